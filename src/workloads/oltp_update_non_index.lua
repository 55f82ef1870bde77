-- bmk bundled workload: --non-index-updates UPDATEs of the non-indexed
-- column c per event, no transaction.

require("oltp_common")

function prepare_statements()
  prepare_non_index_updates()
end

function event()
  execute_non_index_updates()
  check_reconnect()
end
