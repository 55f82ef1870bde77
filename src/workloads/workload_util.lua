-- bmk bundled workloads' shared helpers (tpcc_common.lua and
-- tpch_common.lua take them): failing with one message, on/off options,
-- an error's one line, parallel commands, clocks, and reading a statement's rows on a sysbench.sql connection (each
-- raises the SQL API's error when the statement fails; values are
-- strings, NULL is nil). Any thread (a connection is one thread's).

local ffi = require("ffi")

-- core/sb_shared.h: the state a parallel command's threads share (slots,
-- the barrier, the abort flag, per-thread counters), for this module and
-- its callers (tpcc_common, tpch_common: ffi.C after requiring it).
ffi.cdef[[
int64_t sb_shared_add(int slot, int64_t n);
int64_t sb_shared_get(int slot);
void sb_shared_set(int slot, int64_t v);
int sb_shared_barrier(int n);
void sb_shared_abort(void);
bool sb_shared_aborted(void);
uint64_t *sb_shared_counters(int tid);
void sb_shared_sum(uint64_t *out);
struct bmk_workload_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct bmk_workload_timespec *ts);
]]

local C = ffi.C

local M = {}

-- Raises string.format(fmt, ...) without a position: the command's one
-- FATAL line.
function M.fail(fmt, ...)
  error(string.format(fmt, ...), 0)
end

-- Option `name`'s value `v` as a boolean: yes/on/1/true or no/off/0/
-- false/empty; anything else fails, naming --name.
function M.yesno(name, v)
  local s = tostring(v):lower()
  if s == "yes" or s == "on" or s == "1" or s == "true" then return true end
  if s == "no" or s == "off" or s == "0" or s == "false" or s == "" then return false end
  M.fail("--%s must be on/off or yes/no (got '%s')", name:gsub("_", "-"), tostring(v))
end

-- One line for an error raised by the SQL API (a table: "SQL error,
-- errno = N, state = 'S': message") or by Lua, without the "file.lua:123:
-- " position.
function M.error_text(err)
  if type(err) == "table" then
    err = string.format("SQL error, errno = %s, state = '%s': %s", tostring(err.sql_errno),
                        tostring(err.sql_state), tostring(err.sql_errmsg))
  end
  return (tostring(err):gsub("^[^:]*%.lua:%d+: ", ""))
end

-- A parallel command (sysbench.cmdline.PARALLEL_COMMAND) in thread
-- sysbench.tid: runs body(c, tid) with c = config(). The first failing
-- thread aborts the others (sb_shared_abort) and raises its error as one
-- line (the command's FATAL line, exit 1); the others return false
-- quietly; a body raising "aborted" (another thread failed) is quiet too.
-- Returns body's result.
function M.parallel_command(config, body)
  local tid = sysbench.tid
  local ok, c = pcall(config)
  if not ok then
    C.sb_shared_abort()
    if tid == 0 then error(M.error_text(c), 0) end
    return false
  end
  local ok2, res = pcall(body, c, tid)
  if not ok2 then
    local first = not C.sb_shared_aborted()
    C.sb_shared_abort()
    if res == "aborted" or not first then return false end
    error(M.error_text(res), 0)
  end
  return res
end

-- ---- time ----

local ts = ffi.new("struct bmk_workload_timespec")

-- Now in milliseconds (CLOCK_MONOTONIC), for durations and progress.
-- Not for two threads at once: one buffer per Lua state (each thread of a
-- parallel command has its own state).
function M.now_ms()
  C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

-- The wall clock: seconds since the epoch (CLOCK_REALTIME).
function M.wall_s()
  C.clock_gettime(0, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

-- `s` seconds as "12s", "2m31s" or "1h02m".
function M.duration(s)
  s = math.floor(s + 0.5)
  if s < 60 then return s .. "s" end
  if s < 3600 then return string.format("%dm%02ds", math.floor(s / 60), s % 60) end
  return string.format("%dh%02dm", math.floor(s / 3600), math.floor(s % 3600 / 60))
end

-- ---- SQL ----

-- The first row of `sql` as a Lua array of strings (nil values for
-- NULL), or nil when there is no row (or no result set).
function M.row(con, sql)
  local rs = con:query(sql)
  if rs == nil then return nil end
  local r = rs:fetch_row()
  rs:free()
  return r
end

-- The first value of `sql`'s first row (a string), or nil.
function M.value(con, sql)
  local r = M.row(con, sql)
  return r and r[1]
end

-- All rows of `sql` as arrays (an empty table when none).
function M.rows(con, sql)
  local rs = con:query(sql)
  local out = {}
  if rs == nil then return out end
  local r = rs:fetch_row()
  while r do
    out[#out + 1] = r
    r = rs:fetch_row()
  end
  rs:free()
  return out
end

return M
