-- bmk kit compat module `mysql_common` (bmk-kit.md §6 "Module
-- compatibility"): BMK-kit's helper functions under their global names,
-- usable by kit_oltp, kit_dbstress and users' own wrapper scripts.
--
--   usleep(us)              sleep in microseconds
--   mysql_session_opt(con)  run the session statements on a new connection
--   SYSBENCH_REPORT_CSV=1        interval reports as CSV lines with a header
--   SYSBENCH_FINAL_REPORT_CSV=1  final report as one CSV line after
--                                `Final report :` (replaces the text report)

local ffi = require("ffi")
pcall(ffi.cdef, "int usleep(unsigned int usec);")

-- usleep(us): sleeps `us` microseconds; no-op for nil or us <= 0.
function usleep(us)
  if us and us > 0 then
    ffi.C.usleep(us)
  end
end

local function is_pgsql()
  if kit and kit.ready then
    return kit.pg
  end
  local ok, name = pcall(function() return drv:name() end)
  if ok then
    return name == "pgsql"
  end
  return sysbench.opt and sysbench.opt.db_driver == "pgsql"
end

-- session_statements(): the `;`-separated statements of
-- --mysql-session-options (--pgsql-session-options on PostgreSQL), or of
-- $MYSQL_SESSION_OPTIONS / $PGSQL_SESSION_OPTIONS when the option is empty.
function session_statements()
  if kit and kit.ready and kit.session then
    return kit.session
  end
  local pg = is_pgsql()
  local o = sysbench.opt or {}
  local text = (pg and o.pgsql_session_options or o.mysql_session_options) or ""
  if text == "" then
    text = os.getenv(pg and "PGSQL_SESSION_OPTIONS" or "MYSQL_SESSION_OPTIONS") or ""
  end
  local out = {}
  for item in text:gmatch("[^;]+") do
    item = item:match("^%s*(.-)%s*$")
    if item ~= "" then out[#out + 1] = item end
  end
  return out
end

-- mysql_session_opt(con): runs the session statements on `con` (each one
-- counts as a query). Raises the driver's SQL error on failure.
function mysql_session_opt(c)
  for _, q in ipairs(session_statements()) do
    c:query(q)
  end
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
