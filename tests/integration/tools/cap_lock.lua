-- A server of known capacity, whatever the number of VUs: every event
-- takes one row lock and holds it ~5 ms, so the server completes at most
-- ~1 / (5 ms + round trips) events a second (MariaDB/MySQL: SLEEP).
-- Used by tests/integration/test_capacity.sh and bench/capacity_search.sh.
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS cap_lock")
  con:query("CREATE TABLE cap_lock (id INT PRIMARY KEY, n INT) ENGINE=InnoDB")
  con:query("INSERT INTO cap_lock VALUES (1, 0)")
end
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query("BEGIN")
  con:query("SELECT n FROM cap_lock WHERE id = 1 FOR UPDATE")
  con:query("SELECT SLEEP(0.005)")
  con:query("COMMIT")
end
