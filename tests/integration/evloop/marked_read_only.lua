-- oltp_read_only that records each virtual user's server connection id
-- (MariaDB CONNECTION_ID(), PostgreSQL pg_backend_pid()) in evloop_conn
-- at thread_init (phase 'init') and thread_done (phase 'done'), so a test
-- can kill exactly one VU's connection and see which VUs reconnected, and
-- the order in which the VUs logged in (MariaDB connection ids grow with
-- each login; PostgreSQL: the backend's start time). The table is
-- created by test_evloop.sh.
require("oltp_read_only")

local function record(tid, phase)
  local pg = drv:name() == "pgsql"
  local id, login = con:query_row(pg and
    "SELECT pid, extract(epoch FROM backend_start) FROM pg_stat_activity WHERE pid = pg_backend_pid()"
    or "SELECT CONNECTION_ID(), CONNECTION_ID()")
  con:query(string.format("INSERT INTO evloop_conn (tid, phase, conn, login) VALUES (%d, '%s', %s, %s)",
                          tid, phase, id, login))
end

local base_init, base_done = thread_init, thread_done

function thread_init(tid)
  base_init(tid)
  record(tid, "init")
end

function thread_done(tid)
  record(tid, "done")
  base_done(tid)
end
