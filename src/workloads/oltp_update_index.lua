-- bmk bundled workload: --index-updates UPDATEs of the indexed column k
-- per event, no transaction.

require("oltp_common")

function prepare_statements()
  prepare_index_updates()
end

function event()
  execute_index_updates()
  check_reconnect()
end
