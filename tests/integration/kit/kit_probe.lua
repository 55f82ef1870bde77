-- Test-only stand-in for the kit workloads (BMK_KIT_WORKLOAD hook of
-- test_kit_cli.sh), so that the launcher can be tested without
-- kit_oltp.lua. It accepts the options the kit passes for OLTP names and:
--   create   makes table kitprobe1, or fails with
--            "FATAL: table kitprobe1 already exists" (exit 1) as the kit
--            workloads do;
--   prepare  (parallel) inserts one row per thread;
--   cleanup  drops kitprobe1;
--   run      one `SELECT 1` per event (thread_init fails on purpose in
--            processes with --thread-offset >= --probe-fail-offset); at the
--            end of each thread's thread_init prints "probe: g=<global
--            thread id> ready=<epoch seconds>", and on its first event
--            "probe: g=<global thread id> total=<threads-total>
--            start=<epoch seconds>": the SYNC barrier holds when every
--            start comes after every ready.
local ffi = require("ffi")
ffi.cdef [[
struct probe_ts { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct probe_ts *ts);
]]

local function exists(con)
  local n = con:query_row("SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'kitprobe1'")
  return tonumber(n) > 0
end

local function cmd_create()
  local con = sysbench.sql.driver():connect()
  if exists(con) then
    print("FATAL: table kitprobe1 already exists")
    os.exit(1)
  end
  con:query("CREATE TABLE kitprobe1 (id INTEGER)")
end

local function cmd_prepare()
  local con = sysbench.sql.driver():connect()
  con:query("INSERT INTO kitprobe1 VALUES (" .. sysbench.tid .. ")")
end

sysbench.cmdline.options = {
  ["auto-inc"] = { "kit", true }, ["table-size"] = { "kit", 10000 },
  tables = { "kit", 1 }, ["skip-trx"] = { "kit", false },
  statements = { "kit", "" }, ["point-selects"] = { "kit", 10 },
  ["thread-offset"] = { "kit", 0 }, ["threads-total"] = { "kit", 0 },
  ["reconnect-event"] = { "kit", false },
  ["mysql-storage-engine"] = { "kit", "InnoDB" },
  ["probe-fail-offset"] = { "test: thread_init fails when --thread-offset >= this (0: never)", 0 },
}
sysbench.cmdline.commands = {
  create = { cmd_create },
  prepare = { cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND },
}

function cleanup()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS kitprobe1")
end

local con
local first = true

local function now()
  local ts = ffi.new("struct probe_ts")
  ffi.C.clock_gettime(0, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

function thread_init()
  local f = sysbench.opt.probe_fail_offset
  if f > 0 and sysbench.opt.thread_offset >= f then
    error("probe: failing on purpose (thread offset " .. sysbench.opt.thread_offset .. ")")
  end
  con = sysbench.sql.driver():connect()
  print(string.format("probe: g=%d ready=%.6f", sysbench.opt.thread_offset + sysbench.tid, now()))
end

function event()
  if first then
    first = false
    print(string.format("probe: g=%d total=%d start=%.6f",
      sysbench.opt.thread_offset + sysbench.tid, sysbench.opt.threads_total, now()))
  end
  con:query("SELECT 1")
end

function thread_done()
  con:disconnect()
end
