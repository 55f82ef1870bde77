-- bench/latency_truth.sh's workload: each event is one SELECT SLEEP(0.01)
-- (SELECT pg_sleep(0.01) on PostgreSQL) on the VU's own connection, sent
-- as plain text like bench/sleep_client.c sends it.
local sql
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  sql = drv:name() == "mysql" and "SELECT SLEEP(0.01)" or "SELECT pg_sleep(0.01)"
end
function event()
  con:query(sql)
end
function thread_done()
  con:disconnect()
end
