-- bmk tpch: the results of `run` beyond the printed table: the metrics
-- computed from the step times (clause 5.4), the run's figures
-- (sysbench.figure: summary.figures in --results, the results database's
-- figures that `bmk compare` compares) and the "tpch" section of the
-- --results document (every step: stream, position, query, seconds, rows,
-- status, parameters, start), handed to --results and --save through
-- sb_cmd_results; the live numbers of --metrics-listen. docs/tpch.md
-- "Results".

local common = require("tpch_common")
local ffi = common.ffi
local C = common.C

ffi.cdef[[
int sb_cmd_results(const char *section, const char *json, double start_epoch_s, double time_s,
                   unsigned threads, const char *interrupted, int exit_code);
int sb_cmd_catch_stop(void);
int sb_cmd_stop_signal(void);
void sb_cmd_exit_on_signal(void);
int sb_cmd_open(const char *name);
void sb_cmd_close(void);
void sb_cmd_query_start(void);
void sb_cmd_query_done(double seconds, bool ok);
]]

local M = {}

-- ---- Ctrl-C -------------------------------------------------------------------------

-- From now on the first SIGINT/SIGTERM only marks the run stopping
-- (core/sb_cmd_signal.h): the step in flight ends, the table so far is
-- printed and the results written; a second one exits at once.
function M.catch_stop()
  C.sb_cmd_catch_stop()
end

-- True when the run is to stop (a signal, or the engine stopping).
function M.stopping()
  return C.sb_cmd_stop_signal() ~= 0 or C.sb_engine_stopping()
end

-- The signal's name when one stopped the run ("SIGINT"), else nil.
local function stop_reason()
  local sig = C.sb_cmd_stop_signal()
  if sig == 0 then return C.sb_engine_stopping() and "stopped" or nil end
  return sig == 2 and "SIGINT" or "SIGTERM"
end

-- After the report and the results: exits 130 (SIGINT) or 143 (SIGTERM)
-- when a signal stopped the run, else returns.
function M.exit_on_signal()
  C.sb_cmd_exit_on_signal()
end

-- ---- the outputs: --results, --metrics-listen -----------------------------------------

-- Thread 0, first: opens the outputs (core/sb_cmd_results.h): checks that
-- --results can be written and serves the live numbers at
-- --metrics-listen when given (bmk_tpch_queries_in_flight,
-- bmk_tpch_query_duration_seconds, ...; metrics/sb_metrics_cmd.h);
-- raises "aborted" after the FATAL line (a file that cannot be written, a
-- bad address, the port in use).
function M.open_outputs()
  if C.sb_cmd_open("tpch") ~= 0 then error("aborted", 0) end
end

-- Runs fn() (a query) between the live numbers' start and done marks;
-- returns what fn returns, or raises its error.
function M.timed_query(fn)
  C.sb_cmd_query_start()
  local t0 = common.now_ms()
  local res = { pcall(fn) }
  C.sb_cmd_query_done((common.now_ms() - t0) / 1000, res[1])
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2)
end

-- ---- metrics ------------------------------------------------------------------------

-- The geometric mean of `times` (seconds) after the spec's clamp (clause
-- 5.4.1.4: an interval below 1/1000 of the longest counts as that); nil
-- for no times.
function M.geomean(times)
  if #times == 0 then return nil end
  local max = 0
  for _, t in ipairs(times) do max = math.max(max, t) end
  local floor, s = max / 1000, 0
  for _, t in ipairs(times) do s = s + math.log(math.max(t, floor)) end
  return math.exp(s / #times)
end

-- The power test's metrics from its steps (tables with name, q (nil for
-- an RF), secs, rows, status): { complete, failed, geomean_s (the 22
-- queries' and 2 RFs' times), geomean_rows_s and rows_queries (HammerDB's
-- mean of the queries that returned rows), power_size (3600 x SF /
-- geomean_s, clause 5.4.1) }. `validate`: a validation run, which has no
-- RFs and no Power@Size. Incomplete (no geomean_s, no power_size) when a
-- step failed or is missing.
function M.power_metrics(sf, steps, validate)
  local times, qrows, failed, nq = {}, {}, 0, 0
  for _, r in ipairs(steps) do
    if r.q then nq = nq + 1 end
    if r.status == "ok" then
      times[#times + 1] = r.secs
      if r.q and tonumber(r.rows) > 0 then qrows[#qrows + 1] = r.secs end
    else
      failed = failed + 1
    end
  end
  local m = { failed = failed, rows_queries = #qrows, geomean_rows_s = M.geomean(qrows) }
  m.complete = failed == 0 and nq == 22 and (validate or #steps == 24)
  if m.complete and not validate then
    m.geomean_s = M.geomean(times)
    m.power_size = 3600 * sf / m.geomean_s
  end
  return m
end

-- ---- JSON ---------------------------------------------------------------------------

-- M.null stands for JSON's null in tables given to M.json.
M.null = setmetatable({}, { __tostring = function() return "null" end })

local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(ch)
    local esc = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r" }
    return esc[ch] or string.format("\\u%04x", ch:byte())
  end) .. '"'
end

-- `v` as JSON text: a table with [1] (or the empty table) is an array,
-- else an object with its keys sorted; numbers must be finite. Raises on
-- anything else (a function, NaN).
function M.json(v)
  local t = type(v)
  if v == M.null or v == nil then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then error("json: not a finite number", 2) end
    if v == math.floor(v) and math.abs(v) < 2^53 then return string.format("%d", v) end
    return string.format("%.17g", v)
  end
  if t == "string" then return quote(v) end
  if t ~= "table" then error("json: cannot encode a " .. t, 2) end
  local out = {}
  if v[1] ~= nil or next(v) == nil then
    for i = 1, #v do out[i] = M.json(v[i]) end
    return "[" .. table.concat(out, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do out[i] = quote(k) .. ":" .. M.json(v[k]) end
  return "{" .. table.concat(out, ",") .. "}"
end

-- ---- the section and the figures ----------------------------------------------------

-- A step as the section holds it: { stream, pos, name, query, seconds,
-- rows (queries: rows returned; RF1: orders inserted, with lineitems;
-- RF2: orders deleted), status, error, params, start_s, endpoint (with
-- --endpoints: the endpoint's name it ran on) }.
function M.step_json(r, stream)
  return { stream = stream, pos = r.pos or M.null, name = r.name, query = r.q or M.null,
           seconds = r.status == "ok" and r.secs or M.null,
           rows = r.status == "ok" and tonumber(r.rows) or M.null,
           lineitems = r.lines or nil, checksum = r.sum, status = r.status,
           error = r.err, answer = r.answer, params = r.params,
           start_s = r.start_s, update_set = r.set, endpoint = r.endpoint }
end

-- The power test's part of the section (steps as run by tpch_run.power).
function M.power_json(c, n, steps, m)
  local out = {}
  for i, r in ipairs(steps) do out[i] = M.step_json(r, 0) end
  return {
    update_set = not c.validate and n or M.null, seed = c.seed,
    validation = c.validate, steps = out, complete = m.complete, failed_steps = m.failed,
    geomean_s = m.geomean_s or M.null, geomean_rows_s = m.geomean_rows_s or M.null,
    rows_queries = m.rows_queries, power_size = m.power_size or M.null,
  }
end

local function fig(name, v, help)
  if v then sysbench.figure(name, v, { help = help }) end
end

-- Sets the power test's figures: each query's and RF's seconds
-- (tpch_power_q01_s .. q22_s, tpch_power_rf1_s, rf2_s; a failed step has
-- none), the failed steps, the geometric mean and Power@Size when
-- complete.
function M.power_figures(steps, m)
  -- in the order RF1, Q1 .. Q22, RF2 (a comparison's rows)
  local sorted = {}
  for i, r in ipairs(steps) do sorted[i] = r end
  local function key(r) return r.q or (r.name == "RF1" and 0 or 23) end
  table.sort(sorted, function(a, b) return key(a) < key(b) end)
  for _, r in ipairs(sorted) do
    if r.status == "ok" then
      local key = r.q and string.format("q%02d", r.q) or r.name:lower()
      fig("tpch_power_" .. key .. "_s", r.secs,
          string.format("Seconds of the power test's %s (TPC-H-derived, not audited)", r.name))
    end
  end
  fig("tpch_power_failed_steps", m.failed, "Steps of the power test that failed or timed out")
  fig("tpch_power_geomean_s", m.geomean_s,
      "Geometric mean of the power test's 22 query and 2 refresh times (clause 5.4.1)")
  fig("tpch_power_size", m.power_size, "Power@Size: 3600 x SF / the geometric mean")
end

-- Sets the throughput test's figures: Ts, the failed steps and
-- Throughput@Size when complete.
function M.throughput_figures(t)
  fig("tpch_throughput_ts_s", t.ts_s, "Ts: seconds from the throughput test's start to " ..
        "the end of its last stream (clause 5.4.2)")
  fig("tpch_throughput_failed_steps", t.failed_steps,
      "Steps of the throughput test that failed or timed out")
  fig("tpch_throughput_size", t.throughput_size ~= M.null and t.throughput_size or nil,
      "Throughput@Size: S x 22 x 3600 / Ts x SF (clause 5.4.2)")
end

-- Hands the section to --results and --save: `section` = { test, power,
-- throughput, qphh_size, ... } (tables as M.json takes them), the run's
-- wall-clock start (seconds since the epoch), its seconds, threads and
-- exit code (130/143 when a signal stopped it; summary.interrupted_reason
-- then names the signal), then closes the outputs (M.open_outputs). Sets
-- tpch_qphh_size when the section has it. Returns false when an output
-- failed (named on stderr: exit 1).
function M.publish(c, section, start_epoch_s, secs, exit_code)
  fig("tpch_qphh_size", section.qphh_size ~= M.null and section.qphh_size or nil,
      "QphH@Size: sqrt(Power@Size x Throughput@Size) (clause 5.4.3)")
  section.scale = c.sf
  section.disclaimer = "bmk tpch is " .. common.DISCLAIMER .. "; not audited."
  local reason = stop_reason()
  local sig = C.sb_cmd_stop_signal()
  if sig ~= 0 then exit_code = sig == 2 and 130 or 143 end
  local ok = C.sb_cmd_results("tpch", M.json(section), start_epoch_s, secs, c.threads,
                              reason, exit_code) == 0
  C.sb_cmd_close()
  return ok
end

return M
