-- bmk kit compat module `mysql_common` (BMK-kit's module of that name):
-- BMK-kit's helper functions under their global names, usable by kit_oltp,
-- kit_dbstress and users' own wrapper scripts.
--
--   usleep(us)              sleep in microseconds
--   mysql_session_opt(con)  run the session statements on a new connection
--   session_statements()    the session statements of this driver
--   SYSBENCH_REPORT_CSV=1        interval reports as CSV lines with a header
--   SYSBENCH_FINAL_REPORT_CSV=1  final report as one CSV line after
--                                `Final report :` (replaces the text report)
--
-- require() returns a table with split(), session_text(), error_text(),
-- guard(), given(), table_exists(), print_options() and now(), shared by the kit OLTP and dbSTRESS modules.

local ffi = require("ffi")
pcall(ffi.cdef, "int usleep(unsigned int usec);")

-- usleep(us): sleeps `us` microseconds; no-op for nil or us <= 0.
function usleep(us)
  if us and us > 0 then
    ffi.C.usleep(us)
  end
end

-- Whether this state's driver is PostgreSQL (the kit's setting once
-- resolved, else the driver's name, cached).
local pg_driver
local function is_pgsql()
  if kit and kit.ready then
    return kit.pg
  end
  if pg_driver == nil then
    local ok, name = pcall(function() return (drv or sysbench.sql.driver()):name() end)
    if not ok then
      return sysbench.opt ~= nil and sysbench.opt.db_driver == "pgsql"
    end
    pg_driver = name == "pgsql"
  end
  return pg_driver
end

local M = {}

-- M.split(text, sep): the `sep`-separated items of text, trimmed, empty
-- ones dropped (session statements, --statements lists).
function M.split(text, sep)
  local out = {}
  for item in (text or ""):gmatch("[^" .. sep .. "]+") do
    item = item:match("^%s*(.-)%s*$")
    if item ~= "" then out[#out + 1] = item end
  end
  return out
end

-- M.session_text(pg): the text of --mysql-session-options
-- (--pgsql-session-options when pg), or of $MYSQL_SESSION_OPTIONS /
-- $PGSQL_SESSION_OPTIONS when the option is empty.
function M.session_text(pg)
  local o = sysbench.opt or {}
  local text = (pg and o.pgsql_session_options or o.mysql_session_options) or ""
  if text == "" then
    text = os.getenv(pg and "PGSQL_SESSION_OPTIONS" or "MYSQL_SESSION_OPTIONS") or ""
  end
  return text
end

-- session_statements(): the `;`-separated statements of M.session_text()
-- for the current driver.
function session_statements()
  if kit and kit.ready and kit.session then
    return kit.session
  end
  return M.split(M.session_text(is_pgsql()), ";")
end

-- mysql_session_opt(con): runs the session statements on `con` (each one
-- counts as a query). Raises the driver's SQL error on failure.
function mysql_session_opt(c)
  for _, q in ipairs(session_statements()) do
    c:query(q)
  end
end

-- M.error_text(err): the message for an error raised in thread_init or a
-- command, where no event can be restarted: an SQL error table becomes
-- text, the Lua position is dropped, and a missing table (SQLSTATE 42S02 /
-- 42P01) gets a hint to load the data set first. A statement that could
-- not be prepared raises sysbench's bare "SQL API error": its cause is in
-- sysbench.__prepare_error.
function M.error_text(err)
  if type(err) == "string" and err:find("SQL API error$") and sysbench.__prepare_error then
    err = sysbench.__prepare_error
  end
  if type(err) == "table" then
    err = string.format("SQL error, errno = %s, state = '%s': %s",
                        tostring(err.sql_errno), tostring(err.sql_state),
                        tostring(err.sql_errmsg))
  end
  err = tostring(err):gsub("^[^:]*%.lua:%d+: ", "")
  if err:find("state = '42S02'", 1, true) or err:find("state = '42P01'", 1, true) then
    err = err .. "; create and load the data set first (the kit's Prepare " ..
      "script, or 'create' and 'prepare' with the same options)"
  end
  return err
end

-- M.guard(fn): fn wrapped so that its errors are raised as error_text(err)
-- (the core prints them as one FATAL line); fn's results are returned.
function M.guard(fn)
  return function(...)
    local r = {pcall(fn, ...)}
    if not r[1] then
      error(M.error_text(r[2]), 0)
    end
    return unpack(r, 2, table.maxn(r))
  end
end

-- M.given(name): the value given on the command line for option `name`
-- (underscore form; either spelling matches; "on" for a bare --name), or
-- nil. The last occurrence wins, as in the core parser.
function M.given(name)
  local argv = sysbench.cmdline.argv or {}
  local v
  for i = 1, #argv do
    local k, val = argv[i]:match("^%-%-([%w_%-]+)=(.*)$")
    if k == nil then
      k = argv[i]:match("^%-%-([%w_%-]+)$")
      val = k and "on"
    end
    if k and k:gsub("-", "_") == name then
      v = val
    end
  end
  return v
end

-- M.table_exists(con, pg, name): whether table `name` exists in the
-- connection's current schema (database on MySQL).
function M.table_exists(con, pg, name)
  local n
  if pg then
    n = con:query_row("SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() " ..
                        "AND tablename = '" .. name:lower() .. "'")
  else
    n = con:query_row("SELECT COUNT(*) FROM information_schema.tables WHERE " ..
                        "table_schema = DATABASE() AND table_name = '" .. name .. "'")
  end
  return tonumber(n) > 0
end

-- M.print_options(options): --opt-debug, one `   opt: <name> : <value>`
-- line per option of the table `options`, sorted by name.
function M.print_options(options)
  local names = {}
  for n in pairs(options) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    local v = sysbench.opt[n]
    if type(v) == "table" then v = table.concat(v, ",") end
    print(string.format("   opt: %s : %s", n, tostring(v)))
  end
end

pcall(ffi.cdef, [[
struct kit_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct kit_timespec *ts);
]])

-- M.now(): monotonic seconds, fractional (load time lines).
function M.now()
  local ts = ffi.new("struct kit_timespec")
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

-- ---- CSV reports ------------------------------------------------------------

local function pct()
  return sysbench.opt and sysbench.opt.percentile or 95
end

local function csv_line(stat)
  local s = stat.time_interval
  return string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
                       stat.time_total, stat.threads_running, stat.events / s,
                       (stat.reads + stat.writes + stat.other) / s,
                       stat.reads / s, stat.writes / s, stat.other / s,
                       stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s)
end

local function csv_header()
  return "time,thds,tps,qps,r,w,o,lat" .. pct() .. ",err/s,reconn/s"
end

local function env_on(name)
  local v = os.getenv(name)
  return v ~= nil and v ~= "" and v ~= "0" and v:lower() ~= "off"
end

if env_on("SYSBENCH_REPORT_CSV") then
  local header_done = false
  sysbench.hooks.report_intermediate = function(stat)
    if not header_done then
      print(csv_header())
      header_done = true
    end
    print(csv_line(stat))
  end
end

if env_on("SYSBENCH_FINAL_REPORT_CSV") then
  sysbench.hooks.report_cumulative = function(stat)
    print("Final report :")
    print(csv_header())
    print(csv_line(stat))
  end
end

return M
