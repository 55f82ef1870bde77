-- Test-only stand-in for the kit workloads (BMK_KIT_WORKLOAD hook of
-- test_kit_cli.sh): accepts the options the kit passes for OLTP names,
-- runs one `SELECT 1` per event and, on each thread's first event, prints
-- "probe: g=<global thread id> total=<threads-total> start=<epoch seconds>"
-- so that the test can compare the start of split processes.
local ffi = require("ffi")
ffi.cdef [[
struct probe_ts { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct probe_ts *ts);
]]

sysbench.cmdline.options = {
  ["auto-inc"] = { "kit", true }, ["table-size"] = { "kit", 10000 },
  tables = { "kit", 1 }, ["skip-trx"] = { "kit", false },
  statements = { "kit", "" }, ["point-selects"] = { "kit", 10 },
  ["thread-offset"] = { "kit", 0 }, ["threads-total"] = { "kit", 0 },
  ["reconnect-event"] = { "kit", false },
}

local con
local first = true

function thread_init()
  con = sysbench.sql.driver():connect()
end

function event()
  if first then
    first = false
    local ts = ffi.new("struct probe_ts")
    ffi.C.clock_gettime(0, ts)
    print(string.format("probe: g=%d total=%d start=%.6f",
      sysbench.opt.thread_offset + sysbench.tid, sysbench.opt.threads_total,
      tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9))
  end
  con:query("SELECT 1")
end

function thread_done()
  con:disconnect()
end
