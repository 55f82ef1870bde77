-- A server of known capacity, whatever the number of VUs: every event
-- takes one row lock and holds it ~5 ms, so the server completes at most
-- ~1 / (5 ms + round trips) events a second (MariaDB/MySQL: SLEEP;
-- PostgreSQL: pg_sleep).
-- Used by tests/integration/test_capacity.sh and bench/capacity_search.sh.
local function sleep_sql()
  return sysbench.sql.driver():name() == "pgsql" and "SELECT pg_sleep(0.005)"
    or "SELECT SLEEP(0.005)"
end
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS cap_lock")
  con:query("CREATE TABLE cap_lock (id INT PRIMARY KEY, n INT)")
  con:query("INSERT INTO cap_lock VALUES (1, 0)")
end
function thread_init()
  con = sysbench.sql.driver():connect()
  sleep = sleep_sql()
end
function event()
  con:query("BEGIN")
  con:query("SELECT n FROM cap_lock WHERE id = 1 FOR UPDATE")
  con:query(sleep)
  con:query("COMMIT")
end
