-- bmk chbench: `run --baseline`, the interference report. Before the
-- mixed run this process runs the same command twice more as child bmk
-- processes, each for the same --time: TPC-C alone (--analytic-streams=0)
-- and the streams alone (one TPC-C VU that connects to nothing and runs
-- no transaction). Each child writes its figures to a file this process
-- reads (--baseline-phase); after the mixed run the report puts NOPM,
-- each transaction type's p95 and each query's mean time alone beside
-- mixed, with the ratio mixed/alone. A child is a process of its own
-- because the engine keeps a run's state in globals (as --repeat). Each
-- child carries the tag chbench_phase=tpcc-alone or streams-alone, and
-- with --save it is saved as a run of its own, which --baseline=tag:K=V
-- takes the alone side from later (chbench_saved.lua).
-- docs/chbench.md "Interference report".

local common = require("tpcc_common")
local queries = require("chbench_queries")
local ffi = common.ffi

ffi.cdef[[
long readlink(const char *path, char *buf, size_t size);
]]

local M = {}

M.options = {
  baseline = {"on: run TPC-C alone and the streams alone for the same --time first, then " ..
                "the mixed run, and report each figure alone beside mixed; tag:KEY=VALUE: " ..
                "take the alone figures from the newest runs saved with that tag " ..
                "(--baseline --save --tag=KEY=VALUE) and run the mixed run only", "off"},
  baseline_phase = {"Set by --baseline for its two baseline runs: KIND:FILE, the phase " ..
                      "(tpcc or streams) and where it writes its figures", ""},
}

-- The transaction types in the order tpcc reports them.
M.TYPES = { "new_order", "payment", "order_status", "delivery", "stock_level" }

-- The tag key that names a baseline phase's run, and its values.
M.PHASE_TAG = "chbench_phase"
M.PHASE_VALUE = { tpcc = "tpcc-alone", streams = "streams-alone" }

local ON = { [""] = true, on = true, ["true"] = true, ["1"] = true }
local OFF = { off = true, ["false"] = true, ["0"] = true }

-- --baseline's value: "now" (bare, on), nil (off) or "saved" and the
-- tag's KEY=VALUE. Raises one message for any other value.
local function baseline_mode(v)
  v = tostring(v or "off")
  if ON[v:lower()] then return "now" end
  if OFF[v:lower()] then return nil end
  local kv = v:match("^tag:([%w_]+=.+)$")
  if kv then return "saved", kv end
  common.fail("--baseline takes on, off or tag:KEY=VALUE (the saved baselines of that tag), " ..
                "not '%s'", v)
end

-- Adds the baseline options to `c` (chbench_run.configure's): c.baseline
-- (true: an interference report, its alone side run now or saved),
-- c.baseline_tag (KEY=VALUE of the saved baselines, nil: run them now),
-- c.phase ("tpcc"|"streams"|nil) and c.phase_file. Raises one message
-- for bad input or a contradiction. Any state (each builds its own `c`).
function M.configure(c)
  local o = sysbench.opt
  local mode, tag = baseline_mode(o.baseline)
  c.baseline = mode ~= nil
  c.baseline_tag = tag
  local p = tostring(o.baseline_phase or "")
  if p ~= "" then
    c.phase, c.phase_file = p:match("^(%a+):(.+)$")
    if c.phase ~= "tpcc" and c.phase ~= "streams" then
      common.fail("--baseline-phase must be tpcc:FILE or streams:FILE (got '%s')", p)
    end
  end
  if not c.baseline or sysbench.cmdline.command ~= "run" then return end
  if c.streams == 0 then
    common.fail("--baseline compares the mixed run with the streams alone: it needs " ..
                  "--analytic-streams of 1 or more")
  end
  if c.passes > 0 then
    common.fail("--baseline runs each phase for the same --time: leave --analytic-passes out")
  end
  if (tonumber(o.time) or 0) <= 0 then
    common.fail("--baseline runs each phase for the same --time: give --time of 1 or more")
  end
  if c.phase then
    common.fail("--baseline and --baseline-phase exclude each other")
  end
  if sysbench.cluster and sysbench.cluster.size > 1 then
    common.fail("--baseline runs its phases from one process: leave it out of a cluster run")
  end
end

-- ---- the two baseline runs (global state, from init) -------------------------------------

-- Options the children do not get: this process's outputs (the children
-- get their own; --save and --results-db they keep, to be saved as runs
-- of their own), the baseline options, and what the phase replaces.
-- --seed is given as this run's, so the streams alone run the mixed
-- run's orders; --tag with the phase's tag added.
local DROP = { baseline = true, baseline_phase = true, seed = true, results = true,
               chbench_report = true, tag = true,
               tpcc_report = true, hdr_log = true, metrics_listen = true, metrics_linger = true,
               threshold = true, ["repeat"] = true, series_id = true, html = true }

-- The path of bmk's executable, to start a child bmk. Raises when it
-- cannot be read. Global state.
function M.exe()
  local buf = ffi.new("char[4096]")
  local n = tonumber(ffi.C.readlink("/proc/self/exe", buf, 4095))
  if n <= 0 then common.fail("--baseline: cannot find bmk's executable (/proc/self/exe)") end
  return ffi.string(buf, n)
end

-- FILE.json -> FILE.<kind>-alone.json ("" stays "").
local function suffixed(path, kind)
  if path == "" then return "" end
  local stem, ext = path:match("^(.*)(%.[^./]*)$")
  if not stem then stem, ext = path, "" end
  return stem .. "." .. kind .. "-alone" .. ext
end

-- The argv of phase `kind` ("tpcc" or "streams"): this run's, with the
-- phase's options and outputs, its figures to `file`. Global state.
function M.child_argv(c, kind, file)
  local argv = { M.exe() }
  local a = sysbench.cmdline.argv
  local i = 1
  while a[i] do
    local name = a[i]:match("^%-%-([^=]+)")
    local key = name and name:gsub("-", "_")
    if not (key and (DROP[key] or (kind == "tpcc" and key == "analytic_streams")
                     or (kind == "streams" and (key == "threads" or key == "num_threads")))) then
      argv[#argv + 1] = a[i]
    end
    i = i + 1
  end
  argv[#argv + 1] = kind == "tpcc" and "--analytic-streams=0" or "--threads=1"
  argv[#argv + 1] = "--seed=" .. c.seed
  -- explicit, as a --config-file may set it
  argv[#argv + 1] = "--baseline=off"
  argv[#argv + 1] = "--baseline-phase=" .. kind .. ":" .. file
  local tags = {}
  for _, t in ipairs(type(sysbench.opt.tag) == "table" and sysbench.opt.tag or {}) do
    if not t:match("^" .. M.PHASE_TAG .. "=") then tags[#tags + 1] = t end
  end
  tags[#tags + 1] = M.PHASE_TAG .. "=" .. M.PHASE_VALUE[kind]
  argv[#argv + 1] = "--tag=" .. table.concat(tags, ",")
  local o = sysbench.opt
  local r = suffixed(tostring(o.results or ""), kind)
  if r ~= "" then argv[#argv + 1] = "--results=" .. r end
  local ch = suffixed(c.chbench_report, kind)
  if ch ~= "" and kind == "streams" then argv[#argv + 1] = "--chbench-report=" .. ch end
  return argv
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs argv, its stdout to file `out` and its stderr to file `err` when
-- given (else this process's). Returns its exit code, 128 + N when
-- signal N ended it, as a shell says (LuaJIT's os.execute gives the wait
-- status: the code times 256, or the signal's number below 128; Lua
-- 5.2's a flag, a kind and the code). Global state.
function M.execute(argv, out, err)
  local q = {}
  for i, w in ipairs(argv) do q[i] = quote(w) end
  if out then q[#q + 1] = "> " .. quote(out) end
  if err then q[#q + 1] = "2> " .. quote(err) end
  io.stdout:flush()
  local r, kind, code = os.execute(table.concat(q, " "))
  if type(r) == "number" then
    if r >= 256 then return math.floor(r / 256) end
    if r > 0 then return 128 + r % 128 end
    return 0
  end
  if kind == "exit" then return code end
  return 128 + (code or 0)
end

local function read_phase(file)
  local f = io.open(file, "r")
  local text = f and f:read("*a")
  if f then f:close() end
  os.remove(file)
  local fn = text and loadstring("return " .. text)
  if not fn then return nil end
  setfenv(fn, {})
  local ok, v = pcall(fn)
  return ok and type(v) == "table" and v or nil
end

local PHASES = {
  { kind = "tpcc", title = "TPC-C alone (--analytic-streams=0)" },
  { kind = "streams", title = "the streams alone (no TPC-C transaction)" },
}

-- Runs the two baseline phases, one child bmk each, and keeps their
-- figures in c.alone.tpcc and c.alone.streams. Raises when a child
-- fails (its own output says why). Global state, before the workers.
function M.run_phases(c)
  c.alone = {}
  for i, ph in ipairs(PHASES) do
    local file = os.tmpname()
    print(string.format("chbench --baseline: phase %d of 3: %s, %s s", i, ph.title,
                        tostring(sysbench.opt.time)))
    local code = M.execute(M.child_argv(c, ph.kind, file))
    c.alone[ph.kind] = read_phase(file)
    if code == 130 or code == 143 then
      -- Ctrl-C (SIGINT) or SIGTERM reached the phase's run, which printed
      -- its report so far: this run stops too, with the shell's code of
      -- that signal, as an interrupted run does (the mixed run never ran)
      print(string.format("chbench --baseline: interrupted in phase %d of 3 (%s); its report " ..
                            "so far is above, the mixed run did not start", i, ph.title))
      io.stdout:flush()
      os.exit(code)
    end
    if code ~= 0 or not c.alone[ph.kind] then
      common.fail("--baseline: the run of %s failed (exit %d; its output is above), so " ..
                    "there is nothing to compare the mixed run with", ph.title, code)
    end
  end
  print("chbench --baseline: phase 3 of 3: the mixed run")
end

-- ---- figures of a phase -------------------------------------------------------------------

-- This run's figures: { nopm, p95 = {type = ms}, queries = {[q] = {runs,
-- mean}} } from the final `stat`, tpcc's NOPM (report.final_nopm) and
-- the streams' results (chbench_run.results; nil without streams).
-- p95 in milliseconds, the queries' means in seconds. Global state.
function M.figures(c, stat, nopm, res)
  local f = { nopm = nopm, p95 = {}, queries = {} }
  for _, ty in ipairs(stat.types or {}) do
    if ty.events and ty.events > 0 then f.p95[ty.name] = ty.p95 * 1000 end
  end
  for _, q in ipairs(c.qlist) do
    local a = res and res.queries[q]
    if a and a.runs > 0 then f.queries[q] = { runs = a.runs, mean = a.sum / a.runs } end
  end
  return f
end

local function lua_num(x) return x and string.format("%.17g", x) or "nil" end

-- In a baseline child: writes figures `f` (M.figures) to its file, a
-- Lua table constructor run_phases reads back. Global state.
function M.write_phase(c, f)
  local out = io.open(c.phase_file, "w")
  if not out then return end
  local p, q = {}, {}
  for k, v in pairs(f.p95) do p[#p + 1] = string.format("%s = %s", k, lua_num(v)) end
  for k, v in pairs(f.queries) do
    q[#q + 1] = string.format("[%d] = { runs = %d, mean = %s }", k, v.runs, lua_num(v.mean))
  end
  out:write(string.format("{ nopm = %s, p95 = { %s }, queries = { %s } }\n", lua_num(f.nopm),
                          table.concat(p, ", "), table.concat(q, ", ")))
  out:close()
end

-- ---- the comparison -----------------------------------------------------------------------

-- A value as the report and the JSON give it: rounded to 6 decimals, so
-- that the ratio in both is the one of the printed values.
local function r6(x) return x and tonumber(string.format("%.6f", x)) or nil end

local function row(alone, mixed)
  alone, mixed = r6(alone), r6(mixed)
  local ratio = alone and mixed and alone > 0 and r6(mixed / alone) or nil
  return { alone = alone, mixed = mixed, ratio = ratio }
end

-- The comparison of the mixed run's figures `mixed` (M.figures) with
-- c.alone: { nopm = row, p95 = {type = row}, queries = {[q] = row} },
-- row = { alone, mixed, ratio } (nil where a side has no value). Pure.
function M.compare(c, mixed)
  local t, s = c.alone.tpcc, c.alone.streams
  local cmp = { nopm = row(t.nopm, mixed.nopm), p95 = {}, queries = {} }
  for _, ty in ipairs(M.TYPES) do cmp.p95[ty] = row(t.p95[ty], mixed.p95[ty]) end
  for _, q in ipairs(c.qlist) do
    cmp.queries[q] = row(s.queries[q] and s.queries[q].mean,
                         mixed.queries[q] and mixed.queries[q].mean)
  end
  return cmp
end

local function fmt(x, p) return x and string.format(p or "%.3f", x) or "-" end

-- Prints the interference report of `cmp` (M.compare); its heading
-- names the saved runs of the alone side when c.saved (chbench_saved)
-- has them. Global state.
function M.print(c, cmp)
  local sv = c.saved
  if sv then
    print(string.format("CH-benCHmark interference (alone: saved runs %d, TPC-C alone %s s, " ..
                          "and %d, the streams alone %s s, tag %s; mixed %s s; ratio = " ..
                          "mixed / alone; a query's time is the mean of its runs, seconds):",
                        sv.tpcc_run, sv.tpcc_seconds, sv.streams_run, sv.streams_seconds,
                        c.baseline_tag, tostring(sysbench.opt.time)))
  else
    print(string.format("CH-benCHmark interference (each phase %s s; ratio = mixed / alone; " ..
                          "a query's time is the mean of its runs, seconds):",
                        tostring(sysbench.opt.time)))
  end
  print(string.format("  %-22s %12s %12s %8s", "FIGURE", "ALONE", "MIXED", "RATIO"))
  print(string.format("  %-22s %12s %12s %8s", "NOPM", fmt(cmp.nopm.alone, "%.0f"),
                      fmt(cmp.nopm.mixed, "%.0f"), fmt(cmp.nopm.ratio, "%.2f")))
  for _, ty in ipairs(M.TYPES) do
    local r = cmp.p95[ty]
    print(string.format("  %-22s %12s %12s %8s", ty .. " p95 ms", fmt(r.alone),
                        fmt(r.mixed), fmt(r.ratio, "%.2f")))
  end
  for _, q in ipairs(c.qlist) do
    local r = cmp.queries[q]
    print(string.format("  %-22s %12s %12s %8s", "Q" .. q .. " mean s", fmt(r.alone),
                        fmt(r.mixed), fmt(r.ratio, "%.2f")))
  end
  print("")
end

local function jnum(x) return x and string.format("%.6f", x) or "null" end

local function jrow(r)
  return string.format('{"alone": %s, "mixed": %s, "ratio": %s}', jnum(r.alone), jnum(r.mixed),
                       jnum(r.ratio))
end

-- Where the alone values come from, as JSON text: this command's
-- phases, or the saved runs (c.saved: chbench_saved.load's).
local function source_json(c)
  local sv = c.saved
  if not sv then return '{"from": "phases"}' end
  return string.format('{"from": "saved runs", "tag": "%s", "tpcc_run": %d, "tpcc_seconds": %s, ' ..
                         '"streams_run": %d, "streams_seconds": %s}',
                       c.baseline_tag:gsub('[%c"\\]', function(ch)
                         return string.format("\\u%04x", ch:byte()) end),
                       sv.tpcc_run, jnum(tonumber(sv.tpcc_seconds)), sv.streams_run,
                       jnum(tonumber(sv.streams_seconds)))
end

-- `cmp` (M.compare) as the "interference" member of --chbench-report
-- (JSON text). Pure.
function M.json(c, cmp)
  local p, q = {}, {}
  for _, ty in ipairs(M.TYPES) do p[#p + 1] = string.format('"%s": %s', ty, jrow(cmp.p95[ty])) end
  for _, n in ipairs(c.qlist) do
    q[#q + 1] = string.format('      "%d": %s', n, jrow(cmp.queries[n]))
  end
  return string.format('{\n    "phase_seconds": %s,\n    "alone_source": %s,\n' ..
                         '    "query_time": "mean",\n' ..
                         '    "nopm": %s,\n    "p95_ms": {%s},\n    "queries": {\n%s\n    }\n  }',
                       jnum(tonumber(sysbench.opt.time)), source_json(c), jrow(cmp.nopm),
                       table.concat(p, ", "), table.concat(q, ",\n"))
end

-- measure_end of the mixed run: the alone side as figures
-- (summary.figures in --results, beside the mixed run's own):
-- chbench_alone_nopm (NOPM of TPC-C alone, beside tpcc_nopm),
-- chbench_alone_TYPE_p95_ms (each type's p95 alone, milliseconds) and
-- chbench_alone_mean_qNN_seconds (each query's mean time alone, beside
-- chbench_mean_qNN_seconds), each where the phase has a value; bmk report
-- --html draws the queries' alone beside mixed. Global state; nothing
-- without --baseline.
function M.alone_figures(c)
  if not c.alone then return end
  local t, s = c.alone.tpcc, c.alone.streams
  if t.nopm then
    sysbench.figure("chbench_alone_nopm", t.nopm,
                    { help = "NOPM of the --baseline run of TPC-C alone", scope = "server" })
  end
  for _, ty in ipairs(M.TYPES) do
    if t.p95[ty] then
      sysbench.figure("chbench_alone_" .. ty .. "_p95_ms", t.p95[ty],
                      { help = string.format("p95 of %s in the --baseline run of TPC-C " ..
                                               "alone, milliseconds", ty) })
    end
  end
  for _, q in ipairs(c.qlist) do
    local a = s.queries[q]
    if a and a.mean then
      sysbench.figure(string.format("chbench_alone_mean_q%02d_seconds", q), a.mean,
                      { help = string.format("CH-benCHmark query %d: arithmetic mean of its " ..
                                               "times in the --baseline run of the streams " ..
                                               "alone, seconds", q) })
    end
  end
end

return M
