-- Injected truth for latency checks (tests/integration/test_results.sh,
-- bench/latency_truth.sh): each event runs one SELECT SLEEP(--secs)
-- (pg_sleep on PostgreSQL) that also returns how long the server itself
-- spent in the statement, and times the query with the script's own
-- monotonic clock. VU 0 prints both medians (ms) at the end:
--   server-measured median (ms): X
--   client-measured median (ms): Y
sysbench.cmdline.options = { secs = { "seconds to sleep", "0" } }
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bmk_ts;
int clock_gettime(int clk, bmk_ts *ts);
]]
local ts = ffi.new("bmk_ts")
local function now_us()
  ffi.C.clock_gettime(1, ts)   -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end
local srv, cli = {}, {}
local function median(t)
  table.sort(t)
  return t[math.floor((#t + 1) / 2)] / 1000
end
local sleep_sql
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  if drv:name() == "mysql" then
    sleep_sql = "SELECT SLEEP(%s), TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6))"
  else
    sleep_sql = "SELECT pg_sleep(%s), (EXTRACT(EPOCH FROM clock_timestamp() - " ..
      "statement_timestamp()) * 1e6)::bigint"
  end
end
function event()
  local t0 = now_us()
  local rs = con:query(string.format(sleep_sql, sysbench.opt.secs))
  local row = rs:fetch_row()
  cli[#cli + 1] = now_us() - t0
  srv[#srv + 1] = tonumber(row[2])
end
function thread_done()
  con:disconnect()
  if sysbench.tid == 0 and #srv > 0 then
    print(string.format("server-measured median (ms): %.3f", median(srv)))
    print(string.format("client-measured median (ms): %.3f", median(cli)))
  end
end
