-- bmk chbench: `run --baseline=tag:KEY=VALUE`, the interference report's
-- alone side from saved runs. `run --baseline --save --tag=KEY=VALUE`
-- saves its two baseline phases as runs of their own, tagged
-- chbench_phase=tpcc-alone and chbench_phase=streams-alone beside the
-- user's tags (chbench_baseline.child_argv); this module finds the newest
-- run of each phase with KEY=VALUE in the results database, checks that
-- it matches this run and reads its figures, so that only the mixed run
-- runs. The database is read by child `bmk runs list` / `bmk runs export`
-- processes (the workloads do not reach the results database's C: docs/
-- design.md), each document decoded by workload_json. docs/chbench.md
-- "Interference report".

local common = require("tpcc_common")
local json = require("workload_json")
local queries = require("chbench_queries")
local baseline = require("chbench_baseline")

local M = {}

local NAMES = { tpcc = "TPC-C-alone", streams = "streams-alone" }

local function slurp(path)
  local f = io.open(path, "r")
  local text = f and f:read("*a") or ""
  if f then f:close() end
  os.remove(path)
  return text
end

-- The results database as the messages name it: --results-db, else
-- $BMK_RESULTS_DB (a URL's password masked), else the default.
local function store_name()
  local db = tostring(sysbench.opt.results_db or "")
  local from = ""
  if db == "" then db, from = os.getenv("BMK_RESULTS_DB") or "", " ($BMK_RESULTS_DB)" end
  if db == "" then return "the default results database" end
  db = db:gsub("^(postgres[a-z]*://[^:/@]*):[^@]*@", "%1:***@")
  return "the results database '" .. db .. "'" .. from
end

local function how(c)
  return string.format("save the baselines with `bmk chbench ... --baseline --save --tag=%s " ..
                         "run` (this run's options)", c.baseline_tag)
end

-- `bmk runs ARGS...` on this run's results database: its stdout. Raises
-- one message with its own (the database cannot be opened, ...) when it
-- fails. Global state.
local function runs(c, args)
  local argv = { baseline.exe(), "runs" }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local db = tostring(sysbench.opt.results_db or "")
  if db ~= "" then argv[#argv + 1] = "--results-db=" .. db end
  local out, err = os.tmpname(), os.tmpname()
  local code = baseline.execute(argv, out, err)
  local text, etext = slurp(out), slurp(err)
  if code ~= 0 then
    local msg = etext:match("^bmk runs: ([^\n]*)") or etext:match("^([^\n]*)") or ""
    common.fail("--baseline=tag:%s: cannot read the saved baselines from %s: %s (bmk runs " ..
                  "exit %d)", c.baseline_tag, store_name(), msg, code)
  end
  return text
end

-- The run ids `bmk runs list --ids` printed (one per line), oldest first.
local function ids(text)
  local out = {}
  for id in text:gmatch("(%d+)\n") do out[#out + 1] = tonumber(id) end
  return out
end

local function figure(doc, name)
  local f = doc.summary and doc.summary.figures and doc.summary.figures[name]
  return f and tonumber(f.value)
end

-- The differences between saved run `doc` of phase `kind` and this run
-- `c`: a list of "what: X there, Y here". What must match: the database
-- kind (--db-driver) and the warehouses (--scale); TPC-C alone's VUs
-- (--threads); the streams alone's --analytic-streams and query list
-- (--queries, in any order).
local function differences(c, kind, doc)
  local o = doc.manifest and doc.manifest.options or {}
  local d = {}
  local function same(what, there, here)
    if tostring(there) ~= tostring(here) then
      d[#d + 1] = string.format("%s: %s there, %s here", what, tostring(there), tostring(here))
    end
  end
  local driver = o.db_driver
  if driver == nil or driver == "" then driver = "mysql" end
  same("database kind (--db-driver)", driver, c.driver)
  same("warehouses (--scale)", tonumber(o.scale) or o.scale, c.scale)
  if kind == "tpcc" then
    same("TPC-C VUs (--threads)", tonumber(o.threads) or o.threads, c.threads)
  else
    same("analytic streams (--analytic-streams)", tonumber(o.analytic_streams) or
           o.analytic_streams, c.streams)
    local q = {}
    for _, x in ipairs(common.csv_list(o.queries or "")) do q[#q + 1] = tonumber(x) or -1 end
    if #q == 0 then for n = 1, queries.COUNT do q[n] = n end end
    local here = {}
    for i, n in ipairs(c.qlist) do here[i] = n end
    table.sort(q)
    table.sort(here)
    same("query list (--queries)", table.concat(q, ","), table.concat(here, ","))
  end
  return d
end

-- The figures of saved run `doc` of phase `kind`, as chbench_baseline
-- .figures gives a phase's: { nopm, p95 = {type = ms}, queries = {[q] =
-- {mean}} }. Raises when the run lacks what the report needs.
local function figures(c, kind, id, doc)
  local f = { p95 = {}, queries = {} }
  if kind == "tpcc" then
    f.nopm = figure(doc, "tpcc_nopm")
    if not f.nopm then
      common.fail("--baseline=tag:%s: saved run %d has no NOPM (summary.figures.tpcc_nopm)",
                  c.baseline_tag, id)
    end
    for _, t in ipairs(doc.event_types or {}) do
      if (tonumber(t.events) or 0) > 0 and t.latency_ms and t.latency_ms.p95 then
        f.p95[t.name] = tonumber(t.latency_ms.p95)
      end
    end
    return f
  end
  local any = false
  for _, q in ipairs(c.qlist) do
    local m = figure(doc, string.format("chbench_mean_q%02d_seconds", q))
    if m then f.queries[q], any = { mean = m }, true end
  end
  if not any and (figure(doc, "chbench_queries") or 0) > 0 then
    common.fail("--baseline=tag:%s: saved run %d has no per-query mean times " ..
                  "(summary.figures.chbench_mean_qNN_seconds: saved by an earlier bmk); %s",
                c.baseline_tag, id, how(c))
  end
  return f
end

-- Reads and checks the newest saved run of phase `kind` (id `id`):
-- returns its figures and its --time. Raises one message when it is not
-- a complete chbench run matching this one.
local function phase(c, kind, id)
  local doc, err = json.decode(runs(c, { "export", tostring(id) }))
  if type(doc) ~= "table" then
    common.fail("--baseline=tag:%s: saved run %d cannot be read: %s", c.baseline_tag, id,
                tostring(err))
  end
  local m = doc.manifest or {}
  if m.test ~= "chbench" then
    common.fail("--baseline=tag:%s: saved run %d, tagged %s=%s, is a run of '%s', not of chbench",
                c.baseline_tag, id, baseline.PHASE_TAG, baseline.PHASE_VALUE[kind],
                tostring(m.test))
  end
  if not (doc.summary and doc.summary.completed) then
    common.fail("--baseline=tag:%s: saved run %d (%s) did not complete (it was interrupted); %s",
                c.baseline_tag, id, NAMES[kind], how(c))
  end
  local d = differences(c, kind, doc)
  if #d > 0 then
    common.fail("--baseline=tag:%s: the newest saved %s run, run %d, does not match this run: " ..
                  "%s; %s, or name the tag of matching ones", c.baseline_tag, NAMES[kind], id,
                table.concat(d, "; "), how(c))
  end
  return figures(c, kind, id, doc), (m.options and m.options.time) or "?"
end

-- --baseline=tag:KEY=VALUE: finds the newest saved run of each baseline
-- phase with that tag, checks each against this run (differences above)
-- and sets c.alone (as chbench_baseline.run_phases does) and c.saved =
-- { tpcc_run, tpcc_seconds, streams_run, streams_seconds }. Raises one
-- message when the database cannot be read, no run carries the tag, one
-- of the two phases is missing, or a run does not match. Global state,
-- before the workers.
function M.load(c)
  local tag = c.baseline_tag
  local found = {}
  for _, kind in ipairs({ "tpcc", "streams" }) do
    local l = ids(runs(c, { "list", "--ids", "--tag=" .. tag, string.format("--tag=%s=%s",
                            baseline.PHASE_TAG, baseline.PHASE_VALUE[kind]), "--last=1" }))
    found[kind] = l[#l]
  end
  if not found.tpcc and not found.streams then
    local any = ids(runs(c, { "list", "--ids", "--tag=" .. tag }))
    if #any == 0 then
      common.fail("--baseline=tag:%s: no saved run carries the tag %s in %s; %s", tag, tag,
                  store_name(), how(c))
    end
    common.fail("--baseline=tag:%s: the runs with that tag (%s) are no saved baseline phase " ..
                  "(tag %s=%s or %s); %s", tag, table.concat(any, ", "), baseline.PHASE_TAG,
                baseline.PHASE_VALUE.tpcc, baseline.PHASE_VALUE.streams, how(c))
  end
  for kind, other in pairs({ tpcc = "streams", streams = "tpcc" }) do
    if found[kind] and not found[other] then
      common.fail("--baseline=tag:%s: only the %s phase is saved with that tag (run %d); the " ..
                    "%s phase is missing; %s", tag, NAMES[kind], found[kind], NAMES[other],
                  how(c))
    end
  end
  c.alone, c.saved = {}, { tpcc_run = found.tpcc, streams_run = found.streams }
  c.alone.tpcc, c.saved.tpcc_seconds = phase(c, "tpcc", found.tpcc)
  c.alone.streams, c.saved.streams_seconds = phase(c, "streams", found.streams)
  print(string.format("chbench --baseline=tag:%s: TPC-C alone from saved run %d, the streams " ..
                        "alone from saved run %d; the mixed run only", tag, found.tpcc,
                      found.streams))
end

return M
