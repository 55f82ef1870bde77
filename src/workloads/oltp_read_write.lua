-- bmk bundled workload: OLTP read/write transactions
-- (BEGIN; point selects; the four range selects; index and non-index
-- updates; delete+insert; COMMIT), as sysbench's oltp_read_write.lua.

require("oltp_common")

function prepare_statements()
  prepare_transaction()
  prepare_reads()
  prepare_writes()
end

function event()
  begin_transaction()
  execute_reads()
  execute_writes()
  commit_transaction()
  check_reconnect()
end
