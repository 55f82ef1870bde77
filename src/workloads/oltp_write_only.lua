-- bmk bundled workload: OLTP write-only transactions
-- (BEGIN; index update; non-index update; delete+insert; COMMIT).

require("oltp_common")

function prepare_statements()
  prepare_transaction()
  prepare_writes()
end

function event()
  begin_transaction()
  execute_writes()
  commit_transaction()
  check_reconnect()
end
