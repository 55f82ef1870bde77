-- bmk bundled workload: OLTP read-only transactions
-- (BEGIN; point selects; the four range selects; COMMIT).

-- With --endpoints the connection takes the "read" route (the replicas,
-- docs/endpoints.md); without, the one server.
oltp_route = "read"

require("oltp_common")

function prepare_statements()
  prepare_transaction()
  prepare_reads()
end

function event()
  begin_transaction()
  execute_reads()
  commit_transaction()
  check_reconnect()
end
