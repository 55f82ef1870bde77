-- `bmk capacity` (docs/capacity.md "bmk capacity"): searches the highest
-- open-loop --rate (or, with --mode=users, the highest user count) at which
-- a command still meets its latency/error SLOs: geometric steps up to the
-- first failing one, then bisection. Each step is one bmk process writing
-- its --results file (read back through sb_step_summary_read, FFI); steps
-- are classified and run as `bmk series` does (bmk.series). Entered from C
-- (src/lua/sb_kit.c) with main(args, info); returns the exit status.

local sys = require("bmk.kit.sys")
local series = require("bmk.series")
local ffi = require("ffi")

ffi.cdef [[
int mkdir(const char *path, unsigned int mode);
typedef struct {
  double tps, events, time_s, errors, errors_per_s, min_ms, avg_ms;
  double p50_ms, p90_ms, p95_ms, p99_ms, p999_ms, max_ms;
  double rate, vus, backlog_first, backlog_last, running_last;
  double server_cpu_us_per_tx, server_cpus;
  int completed, client_saturated, nsamples;
  double samples[1024];
} sb_step_summary_t;
int sb_step_summary_read(const char *path, double pct, sb_step_summary_t *out, char *err,
                         size_t errlen);
double sb_step_pooled_ms(const char *const *paths, int n, double pct, char *err, size_t errlen);
int sb_html_write_capacity(const char *path, const char *search_json, char *err, size_t errlen);
long sysconf(int name);
]]
local C = ffi.C

local M = {}

local function err(msg)
  io.stderr:write("bmk capacity: ", msg, "\n")
  return 1
end

-- Exit statuses (docs/capacity.md).
M.EXIT_OK, M.EXIT_BAD, M.EXIT_NO_RATE = 0, 1, 3

local USAGE = [[
Usage:
  bmk capacity --slo=SLO [--slo=SLO...] [options] -- COMMAND...
Searches the highest --rate (open loop, default) at which COMMAND meets every
SLO: steps of --rate multiplied by --growth until one fails (SLO missed, or
saturated: achieved rate short of the target or a growing backlog), then
bisection between the highest passing and the lowest failing rate. Prints a
line per step, one table and the answer. With --mode=users: user counts
1,2,4,... (closed loop), then bisection.
SLO:   pNN<=X(us|ms|s) with pNN one of p50 p90 p95 p99 p999 max avg, e.g. p99<=20ms;
       errors<=X% (of events) or errors<=X/s
Options:
  --mode=rate|users        open-loop rate search (default) or user counts
  --step-time=S            measured seconds of a step [10]
  --step-warmup=S          warmup seconds before each step [5]
  --start-rate=R           first rate [25% of the tps of a closed-loop trial run
                           of COMMAND with its own --threads]
  --max-rate=R             highest rate tried [1000000]
  --growth=F               factor between growth steps [2]
  --precision=PCT          bisection ends when (fail-pass)/pass <= PCT% [2]
  --max-steps=N            steps at most (repeats count) [20]
  --max-repeats=N          extra runs of a step within noise of an SLO [2]
  --max-vus=N              virtual users of a step at most [10000]; a step runs
                           4 x rate x the mean latency measured so far (at least
                           16), and a failing step whose VUs were all busy is run
                           again with 4 times as many (verdict all-VUs-busy)
  --max-users=N            --mode=users: highest user count [1024]
  --pause=S, --reset=checkpoint|none, --results-dir=DIR, --id=NAME  as bmk series
  --results=FILE           one JSON document of the whole search (also written
                           to the steps' directory as capacity.json)
  --html=FILE              a page: tps and p50/p95/p99 against the offered rate,
                           the SLO and the answer marked, every step's timeline
COMMAND: a bmk run command line ([bmk] TEST [options...] run), a kit name or
kit script as for bmk series; --threads, --rate, --time and --warmup-time are
set per step. Exit: 0 an answer, 3 no rate met the SLO, 1 bad input or a
step that failed to run, 130 (143) interrupted: the table so far is printed.
See docs/capacity.md.
]]

local PCTS = { p50 = 50, p90 = 90, p95 = 95, p99 = 99, p999 = 99.9, max = 100, avg = -1 }
local UNITS = { us = 0.001, ms = 1, s = 1000 }

-- One --slo value as { kind = "lat"|"err_pct"|"err_rate", name, pct,
-- bound, text } (bound in ms for latency), or nil, why.
function M.parse_slo(s)
  local what, num, unit = s:match("^%s*([%w]+)%s*<=%s*([%d.]+)%s*([%%/%a]*)%s*$")
  local bound = tonumber(num or "")
  if not what or not bound then
    return nil, "--slo='" .. s .. "': expected NAME<=VALUE, e.g. p99<=20ms or errors<=0.1%"
  end
  if what == "errors" then
    if unit == "%" then return { kind = "err_pct", name = "errors", bound = bound, text = s } end
    if unit == "/s" then return { kind = "err_rate", name = "errors", bound = bound, text = s } end
    return nil, "--slo='" .. s .. "': errors take % (of events) or /s, e.g. errors<=0.1%"
  end
  if PCTS[what] == nil then
    return nil, "--slo='" .. s .. "': unknown latency '" .. what
      .. "' (p50, p90, p95, p99, p999, max or avg)"
  end
  if not UNITS[unit] then
    return nil, "--slo='" .. s .. "': the bound needs a unit (us, ms or s), e.g. "
      .. what .. "<=" .. num .. "ms"
  end
  return { kind = "lat", name = what, pct = PCTS[what], bound = bound * UNITS[unit],
    text = what .. "<=" .. num .. unit }
end

local function num_opt(o, k, v, min)
  local x = tonumber((v:gsub("%%$", "")))
  if not x or x < min then return nil, "--" .. k .. ": a number >= " .. min .. " expected, got '" .. v .. "'" end
  o[k] = x
  return true
end

local NUMERIC = { ["step-time"] = 1, ["step-warmup"] = 0, ["start-rate"] = 0.001,
  ["max-rate"] = 0.001, growth = 1.01, precision = 0.01, ["max-steps"] = 1,
  ["max-repeats"] = 0, ["max-vus"] = 1, ["max-users"] = 1, pause = 0 }

local function parse_args(args)
  local o = { slos = {}, mode = "rate", ["step-time"] = 10, ["step-warmup"] = 5,
    ["max-rate"] = 1e6, growth = 2, precision = 2, ["max-steps"] = 20, ["max-repeats"] = 2,
    ["max-vus"] = 10000, ["max-users"] = 1024, pause = 0, reset = "none" }
  local i = 1
  while i <= #args do
    local a = args[i]
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if a == "--" then i = i + 1; break
    elseif a == "--help" or a == "-h" then return nil, "help"
    elseif k == "slo" then
      local s, why = M.parse_slo(v)
      if not s then return nil, why end
      o.slos[#o.slos + 1] = s
    elseif k and NUMERIC[k] then
      local ok, why = num_opt(o, k, v, NUMERIC[k])
      if not ok then return nil, why end
    elseif k == "mode" and (v == "rate" or v == "users") then o.mode = v
    elseif k == "reset" and (v == "checkpoint" or v == "none") then o.reset = v
    elseif k == "results-dir" and v ~= "" then o.dir = v
    elseif k == "results" and v ~= "" then o.results = v
    elseif k == "html" and v ~= "" then o.html = v
    elseif k == "id" and v:match("^[%w_.:-]+$") then o.id = v
    elseif a:match("^%-%-") then return nil, "unknown option or bad value: '" .. a .. "'"
    else break end
    i = i + 1
  end
  o.cmd = {}
  for j = i, #args do o.cmd[#o.cmd + 1] = args[j] end
  if #o.slos == 0 then return nil, "at least one --slo is required, e.g. --slo='p99<=20ms'" end
  if #o.cmd == 0 then return nil, "no command after the options (-- bmk TEST [options] run)" end
  if o["start-rate"] and o["start-rate"] > o["max-rate"] then
    return nil, ("--start-rate=%g is above --max-rate=%g"):format(o["start-rate"], o["max-rate"])
  end
  for _, k in ipairs({ "max-steps", "max-repeats", "max-vus", "max-users" }) do
    o[k] = math.floor(o[k])
  end
  return o
end

-- Options of the command that every step sets itself.
local STEP_SET = { "rate", "tx-rate", "time", "warmup-time", "report-interval", "events" }

-- The command's words without STEP_SET options; the --threads it had.
local function strip_words(c)
  local w, threads = {}, 1
  for _, a in ipairs(c.words) do
    local drop = false
    for _, k in ipairs(STEP_SET) do drop = drop or series.is_opt(a, k) end
    local t = a:match("^%-%-threads=(%d+)$") or a:match("^%-%-num[-_]threads=(%d+)$")
    if t then threads = tonumber(t) end
    if not drop then w[#w + 1] = a end
  end
  local c2 = {}
  for k, v in pairs(c) do c2[k] = v end
  c2.words = w
  return c2, threads
end

-- A step's numbers from its --results file (`pct`: the noise samples'
-- percentile). Returns a table or nil, why.
local function read_file(file, pct)
  local s = ffi.new("sb_step_summary_t")
  local err = ffi.new("char[512]")
  if C.sb_step_summary_read(file, pct, s, err, 512) ~= 0 then return nil, ffi.string(err) end
  local r = {}
  for _, k in ipairs({ "tps", "events", "time_s", "errors", "errors_per_s", "min_ms", "avg_ms",
    "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "rate", "vus", "backlog_first",
    "backlog_last", "running_last", "server_cpu_us_per_tx", "server_cpus" }) do
    local v = tonumber(s[k])
    r[k] = v == v and v or nil       -- NAN: not measured
  end
  r.client_saturated = s.client_saturated ~= 0
  r.samples = {}
  for i = 0, s.nsamples - 1 do r.samples[#r.samples + 1] = tonumber(s.samples[i]) end
  return r
end

local LAT_KEY = { p50 = "p50_ms", p90 = "p90_ms", p95 = "p95_ms", p99 = "p99_ms",
  p999 = "p999_ms", max = "max_ms", avg = "avg_ms" }

-- The latency SLOs' figures of a run: { [slo] = value ms } and per-SLO
-- interval samples. Returns row or nil, why.
local function read_step(file, slos)
  local row, why
  for _, s in ipairs(slos) do
    if s.kind == "lat" then
      local r, e = read_file(file, s.pct)
      if not r then return nil, e end
      row = row or r
      row["samples_" .. s.name] = r.samples
    end
  end
  if not row then row, why = read_file(file, 99) end
  if not row then return nil, why end
  row.samples = nil
  return row
end

-- Mean and standard error of a list; nil when fewer than two values.
local function mean_se(xs)
  local n = #xs
  if n < 2 then return nil end
  local sum, sq = 0, 0
  for _, x in ipairs(xs) do sum = sum + x end
  local m = sum / n
  for _, x in ipairs(xs) do sq = sq + (x - m) ^ 2 end
  return m, math.sqrt(sq / (n - 1) / n)
end

-- True when a latency SLO's bound lies within mean +- 2 standard errors
-- of the run's per-interval samples (the noise rule, docs/capacity.md).
local function near_bound(runs, slos)
  for _, s in ipairs(slos) do
    if s.kind == "lat" then
      local xs = {}
      for _, r in ipairs(runs) do
        for _, x in ipairs(r["samples_" .. s.name] or {}) do xs[#xs + 1] = x end
      end
      local m, se = mean_se(xs)
      if m and math.abs(m - s.bound) <= 2 * se then return true end
    end
  end
  return false
end

-- The pooled figures of the runs of one step (one run: itself).
local function pooled(runs, slos)
  if #runs == 1 then return runs[1] end
  local p = {}
  for k, v in pairs(runs[#runs]) do p[k] = v end
  local ev, t, er = 0, 0, 0
  for _, r in ipairs(runs) do ev, t, er = ev + r.events, t + r.time_s, er + r.errors end
  p.events, p.time_s, p.errors = ev, t, er
  p.tps = t > 0 and ev / t or 0
  p.errors_per_s = t > 0 and er / t or 0
  local paths = ffi.new("const char *[?]", #runs)
  for i, r in ipairs(runs) do paths[i - 1] = r.file end
  local err = ffi.new("char[512]")
  for _, s in ipairs(slos) do
    if s.kind == "lat" then
      local v = tonumber(C.sb_step_pooled_ms(paths, #runs, s.pct, err, 512))
      if v == v then p[LAT_KEY[s.name]] = v end
    end
  end
  return p
end

-- Verdict of (pooled) figures `r` at target `target`: "pass", "fail"
-- (an SLO missed) or "saturated" (open loop: the achieved rate is more
-- than max(5%, 3 Poisson standard deviations) short of the target, or the
-- backlog at the end exceeds 0.1 s of arrivals and grew during the step);
-- and the SLOs missed.
function M.judge(r, slos, target, mode)
  local missed = {}
  for _, s in ipairs(slos) do
    local v
    if s.kind == "lat" then v = r[LAT_KEY[s.name]] or math.huge
    elseif s.kind == "err_pct" then v = r.events > 0 and 100 * r.errors / r.events or (r.errors > 0 and math.huge or 0)
    else v = r.errors_per_s end
    if v > s.bound then missed[#missed + 1] = s.text end
  end
  if mode == "rate" then
    local n = target * r.time_s
    local tol = math.max(0.05, n > 0 and 3 / math.sqrt(n) or 1)
    local bl, bf = r.backlog_last or 0, r.backlog_first or 0
    if r.tps < target * (1 - tol) or (bl > math.max(1, 0.1 * target) and bl > bf) then
      return "saturated", missed
    end
  end
  return #missed == 0 and "pass" or "fail", missed
end

-- Rates tried: 3 significant digits (integers from 100 up).
local function round_rate(x)
  if x >= 100 then return math.floor(x + 0.5) end
  return tonumber(("%.3g"):format(x))
end

-- The largest latency bound of the SLOs in seconds (1 without one).
local function max_bound_s(o)
  local b = 0
  for _, s in ipairs(o.slos) do
    if s.kind == "lat" then b = math.max(b, s.bound / 1000) end
  end
  return b > 0 and b or 1
end

-- Virtual users of an open-loop step (Little's law: events in flight =
-- rate x mean latency): 4 x `boost` x the events in flight at the target
-- rate if each took `lat_s` (the mean latency of the last passing step or
-- of the trial run; nil: the largest latency bound, 1 s without a latency
-- SLO), never more than for the bound (the full pool), at least 16, at
-- most --max-vus. Idle connections cost the server (PostgreSQL forks a
-- backend per connection: a pool sized for a 20 ms bound at 13,000/s is
-- 1,085 backends on 2 cores, and they, not the load, saturated it; at
-- 30,000/s it is above the server's max_connections), so the pool grows
-- only when a step needs it: run_point re-runs a failing step whose VUs
-- were all busy with `boost` x 4. Returns the count, whether --max-vus
-- capped it and whether it is the full pool.
local function vus_for(o, target, lat_s, boost)
  local bound = max_bound_s(o)
  local full = math.max(16, math.ceil(target * bound * 4))
  local want = lat_s and math.max(16, math.ceil(target * math.max(lat_s, 0.0001) * 4 * boost)) or full
  want = math.min(want, full)
  return math.min(want, o["max-vus"]), want > o["max-vus"], want >= full
end

local function fmt(v, f) return v and (f):format(v) or "-" end

local function say(st, msg)
  io.write("=> capacity ", st.id, ": ", msg, "\n")
  io.stdout:flush()
end

-- Runs one bmk process: `vus` users, open loop at `rate` (nil: closed
-- loop), writing `file`. Returns its row, or nil after setting st.sig
-- (interrupted) or st.failed (a message).
local function run_proc(st, vus, rate, file)
  local o = st.o
  local argv = st.step_argv(vus)
  if rate then argv[#argv + 1] = ("--rate=%.10g"):format(rate) end
  local iv = math.max(0.25, math.min(1, o["step-time"] / 8))
  for _, x in ipairs({ "--time=" .. o["step-time"], "--warmup-time=" .. o["step-warmup"],
    "--report-interval=" .. iv, "--results=" .. file }) do argv[#argv + 1] = x end
  local log = file:gsub("%.json$", "") .. ".log"
  local code, sig = series.run_step(argv, { log = log })
  if sig then st.sig = sig return nil end
  if code ~= 0 then
    local why
    local f = io.open(log)
    if f then
      for line in f:lines() do
        if not why and line:match("^FATAL: ") then why = line:sub(8) end   -- the first: the cause
      end
      f:close()
    end
    st.failed = ("the step exited with status %d (%s)%s; its output is in %s; the search stops")
      :format(code, series.shown(argv), why and (": " .. why) or "", log)
    return nil
  end
  local row, why = read_step(file, o.slos)
  if not row then st.failed = why return nil end
  row.file = file
  return row
end

-- One run at `target` (a rate, or users with --mode=users); `boost`: the
-- VU pool's factor (vus_for). Returns its row or nil (stopped: st.sig,
-- st.failed or st.maxed set).
local function run_once(st, target, phase, boost)
  local o = st.o
  if st.nstep >= o["max-steps"] then st.maxed = true return nil end
  if st.nstep > 0 and o.pause > 0 then
    st.sig = series.pause(o.pause)
    if st.sig then return nil end
  end
  st.nstep = st.nstep + 1
  local k, vus, capped, file = st.nstep
  if o.mode == "rate" then
    vus, capped, full = vus_for(o, target, st.lat_hint, boost)
    file = ("%s/%02d-r%g.json"):format(st.dir, k, target)
  else
    vus, file = target, ("%s/%02d-u%d.json"):format(st.dir, k, target)
  end
  local row = run_proc(st, vus, o.mode == "rate" and target or nil, file)
  if not row then return nil end
  row.step, row.phase, row.target, row.vus_capped, row.full = k, phase, target, capped, full
  st.rows[#st.rows + 1] = row
  return row
end

local function step_line(st, r)
  say(st, ("step %d (%s) %s %g: %s tps, p50 %s p99 %s max %s ms, errors %s/s, backlog %s, %d VUs -> %s")
    :format(r.step, r.phase, st.o.mode == "rate" and "rate" or "users", r.target,
      fmt(r.tps, "%.1f"), fmt(r.p50_ms, "%.3f"), fmt(r.p99_ms, "%.3f"), fmt(r.max_ms, "%.3f"),
      fmt(r.errors_per_s, "%.2f"), fmt(r.backlog_last, "%d"), r.vus, r.verdict))
end

-- True when a failing open-loop run had every VU busy with a pool smaller
-- than the one for the latency bound and each event held its VU for less
-- than the bound on average (VUs / achieved tps, Little's law): the pool,
-- sized for the latency measured so far, may be what failed. When events
-- held their VUs longer than the bound, the server answered too slowly
-- and a larger pool would only have queued more on it.
local function pool_short(st, r, v)
  if v == "pass" or st.o.mode ~= "rate" or r.full or (r.running_last or 0) < r.vus then
    return false
  end
  return r.tps <= 0 or r.vus / r.tps < max_bound_s(st.o)
end

-- Runs `target` until its verdict is clear: a run within noise of an SLO
-- bound is repeated up to --max-repeats times and the pooled runs decide;
-- a run whose smaller pool was all busy (pool_short) is run again with a
-- pool 4 times larger, and only the runs with it count.
-- Returns { target, verdict, p = pooled figures, runs } or nil (stopped).
local function run_point(st, target, phase)
  local runs, boost = {}, 1
  while true do
    local r = run_once(st, target, phase, boost)
    if not r then return nil end
    runs[#runs + 1] = r
    local p = pooled(runs, st.o.slos)
    local v, missed = M.judge(p, st.o.slos, target, st.o.mode)
    if pool_short(st, r, v) then
      r.verdict = "all-VUs-busy"
      step_line(st, r)
      runs, boost = {}, boost * 4
    else
      if v ~= "pass" and r.vus_capped and (r.running_last or 0) >= r.vus then
        v = "client-limited"
      elseif v ~= "pass" and r.client_saturated then
        -- bmk's own CPU was the limit: not the server's verdict
        v = "client-cpu"
      end
      if v ~= "saturated" and #runs <= st.o["max-repeats"] and st.nstep < st.o["max-steps"]
          and near_bound(runs, st.o.slos) then
        r.verdict = "noise"
        step_line(st, r)
      else
        r.verdict = v .. (#runs > 1 and (" (repeated %d)"):format(#runs - 1) or "")
        r.missed = missed
        step_line(st, r)
        st.repeats = st.repeats + #runs - 1
        if v == "pass" and p.avg_ms then st.lat_hint = p.avg_ms / 1000 end
        return { target = target, verdict = v, p = p, runs = runs }
      end
    end
  end
end

-- True when no lower load can meet a latency SLO: the step's fastest
-- event already took longer than the bound.
local function impossible(p, slos)
  for _, s in ipairs(slos) do
    if s.kind == "lat" and p.min_ms and p.min_ms > s.bound then return s end
  end
end

-- Geometric growth from `start` (by `growth`, capped at `max`), down from
-- a failing start (rate mode), then bisection until `done(lo, hi)`.
-- Returns the highest passing and the lowest failing points (either nil).
local function search(st, start, growth, max, round, done)
  local lo, hi, x = nil, nil, start
  while true do
    local pt = run_point(st, x, "growth")
    if not pt then return lo, hi end
    if pt.verdict ~= "pass" then hi = pt break end
    lo = pt
    if x >= max then st.at_max = true return lo, hi end
    x = math.min(max, round(x * growth))
  end
  while not lo do
    -- (a saturated step's fastest event waited in the queue: no verdict
    -- on lower loads)
    st.impossible = hi.verdict == "fail" and impossible(hi.p, st.o.slos)
    x = round(x / growth)
    if st.impossible or st.o.mode == "users" or x < 0.01 then return lo, hi end
    local pt = run_point(st, x, "down")
    if not pt then return lo, hi end
    if pt.verdict == "pass" then lo = pt else hi = pt end
  end
  while not done(lo.target, hi.target) do
    x = round((lo.target + hi.target) / 2)
    if x <= lo.target or x >= hi.target then break end
    local pt = run_point(st, x, "bisect")
    if not pt then return lo, hi end
    if pt.verdict == "pass" then lo = pt else hi = pt end
  end
  return lo, hi
end

-- The trial run: a closed-loop run of the command with its own --threads.
-- Returns the start rate (25% of its tps) or nil (stopped).
local function trial(st)
  local file = st.dir .. "/00-trial.json"
  say(st, ("trial run: closed loop, %d threads, %g s"):format(st.threads, st.o["step-time"]))
  local r = run_proc(st, st.threads, nil, file)
  if not r then return nil end
  local start = round_rate(math.max(0.01, r.tps / 4))
  if r.avg_ms then st.lat_hint = r.avg_ms / 1000 end
  say(st, ("trial run: %.1f tps, p99 %s ms; start rate %g (25%%)"):format(r.tps,
    fmt(r.p99_ms, "%.3f"), start))
  return math.min(start, st.o["max-rate"])
end

local function print_table(st)
  local users = st.o.mode == "users"
  io.write(("\n%4s %-6s %9s %6s %10s %9s %9s %9s %9s %8s %7s %9s  %s\n"):format("step", "phase",
    users and "users" or "rate", "VUs", "tps", "p50 ms", "p95 ms", "p99 ms", "max ms", "err/s",
    "backlog", "cpu/tx us", "verdict"))
  for _, r in ipairs(st.rows) do
    io.write(("%4d %-6s %9g %6d %10s %9s %9s %9s %9s %8s %7s %9s  %s\n"):format(r.step, r.phase,
      r.target, r.vus, fmt(r.tps, "%.1f"), fmt(r.p50_ms, "%.3f"), fmt(r.p95_ms, "%.3f"),
      fmt(r.p99_ms, "%.3f"), fmt(r.max_ms, "%.3f"), fmt(r.errors_per_s, "%.2f"),
      fmt(r.backlog_last, "%d"), fmt(r.server_cpu_us_per_tx, "%.1f"), r.verdict))
  end
  io.write("\n")
end

-- The latency shown in the answer: the first latency SLO's (else p99).
local function shown_lat(st)
  for _, s in ipairs(st.o.slos) do if s.kind == "lat" then return s end end
  return { name = "p99" }
end

local function slo_text(st)
  local t = {}
  for _, s in ipairs(st.o.slos) do t[#t + 1] = s.text end
  return table.concat(t, ", ")
end

-- The server's CPU at the step where the load stopped passing (the
-- saturated one, else the first failing one), as "limit: server CPU X of
-- N CPUs" when it was 90% busy or more (the server's CPU was the limit),
-- else as a figure that says the limit lies elsewhere. nil when the step
-- has no server-cost figures (a remote server, --server-cost=off).
local function cpu_limit(st, at)
  -- 0: below the measurement's resolution (a clock tick per process and
  -- sample), not a figure to state
  if not at or not at.server_cpus or at.server_cpus <= 0 then return nil end
  local n = tonumber(C.sysconf(84))            -- _SC_NPROCESSORS_ONLN
  if not n or n < 1 then return nil end
  if at.server_cpus >= 0.9 * n then
    return ("limit: server CPU %.2f of %d CPUs"):format(at.server_cpus, n)
  end
  return ("server CPU there: %.2f of %d CPUs (not the limit: the wait is elsewhere, "
    .. "e.g. locks, I/O or the client)"):format(at.server_cpus, n)
end

-- Prints the answer; returns the answer table for --results (its
-- `lines`: the lines printed).
local function answer(st, lo, hi)
  local l, users = shown_lat(st), st.o.mode == "users"
  local unit = users and " users" or " tps"
  local a = { found = lo ~= nil, repeats = st.repeats, steps = st.nstep, lines = {} }
  local function out(line) a.lines[#a.lines + 1] = line io.write(line, "\n") end
  local sat
  for _, r in ipairs(st.rows) do
    if r.verdict:match("^saturated") and (not sat or r.target < sat.target) then sat = r end
  end
  if lo then
    local v = lo.p[LAT_KEY[l.name]]
    a.max_sustainable, a.latency_ms, a.latency = lo.target, v, l.name
    a.achieved_tps = lo.p.tps
    local line = ("max sustainable: %g%s%s at %s %s ms (SLO %s)"):format(lo.target, unit,
      (users and " (%.1f tps)" or " (achieved %.1f)"):format(lo.p.tps), l.name, fmt(v, "%.3f"),
      slo_text(st))
    if sat then
      a.saturation = sat.target
      line = line .. ("; saturation at %g tps (achieved %.1f tps)"):format(sat.target, sat.tps)
    elseif hi then
      line = line .. ("; first failing %s: %g%s"):format(users and "count" or "rate", hi.target,
        hi.verdict == "client-cpu" and " (bmk's own CPU was the limit there, not the server)" or "")
    end
    local cpu = cpu_limit(st, sat or (hi and hi.runs[#hi.runs]))
    if cpu then line = line .. "; " .. cpu end
    a.server_cpus = (sat or (hi and hi.runs[#hi.runs]) or {}).server_cpus
    out(line)
  else
    local line = ("no %s met the SLO (%s)"):format(users and "user count" or "rate", slo_text(st))
    if hi then line = line .. ("; lowest tried: %g%s, %s %s ms"):format(hi.target, unit, l.name,
      fmt(hi.p[LAT_KEY[l.name]], "%.3f")) end
    if st.impossible then
      line = line .. ("; the fastest event took %.3f ms, above the %s bound: no lower load can meet it")
        :format(hi.p.min_ms, st.impossible.name)
    end
    out(line)
  end
  a.first_fail = hi and hi.target or nil
  if lo then
    out(("range: passes at %g, fails at %s%s; %d steps, %d repeats%s"):format(lo.target,
      hi and ("%g"):format(hi.target) or "- (none failed)", unit, st.nstep, st.repeats,
      st.at_max and "; --max-rate/--max-users reached" or st.maxed and "; --max-steps reached" or ""))
  end
  local pool, cpu
  for _, r in ipairs(st.rows) do
    pool = pool or r.verdict:match("^client%-limited") ~= nil
    cpu = cpu or r.verdict:match("^client%-cpu") ~= nil
  end
  if pool then
    out("note: the client's VU pool (--max-vus) was the limit at some steps: "
      .. "their failure is not the server's capacity")
  end
  if cpu then
    a.client_limited = true
    out("note: bmk itself was saturated (its CPU, not the server) at some steps: their failure "
      .. "is not the server's capacity; the server's lies above them. Give bmk more "
      .. "--workers, CPUs or load hosts (bmk cluster run) and search again")
  end
  return a
end

-- A minimal JSON encoder (numbers, strings, booleans, arrays, objects).
local function json(v)
  local t = type(v)
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    return ("%.10g"):format(v)
  elseif t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      return ({ ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n" })[c] or ("\\u%04x"):format(c:byte())
    end) .. '"'
  elseif t == "boolean" then return tostring(v)
  elseif t == "table" then
    local out = {}
    if #v > 0 or next(v) == nil then
      for _, x in ipairs(v) do out[#out + 1] = json(x) end
      return "[" .. table.concat(out, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do out[#out + 1] = json(k) .. ":" .. json(v[k]) end
    return "{" .. table.concat(out, ",") .. "}"
  end
  return "null"
end

local function write_results(st, a)
  local steps = {}
  for _, r in ipairs(st.rows) do
    local x = {}
    for _, k in ipairs({ "step", "phase", "target", "vus", "file", "tps", "events", "time_s",
      "errors", "errors_per_s", "min_ms", "avg_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms",
      "p999_ms", "max_ms", "backlog_last", "server_cpu_us_per_tx", "server_cpus", "verdict" }) do
      x[k] = r[k]
    end
    steps[#steps + 1] = x
  end
  local slos = {}
  for _, s in ipairs(st.o.slos) do slos[#slos + 1] = { text = s.text, kind = s.kind, bound = s.bound } end
  local doc = { format = "bmk-capacity", format_version = 1, id = st.id, mode = st.o.mode,
    slos = slos, steps = steps, answer = a, interrupted = st.sig ~= nil,
    settings = { step_time_s = st.o["step-time"], step_warmup_s = st.o["step-warmup"],
      growth = st.o.growth, precision_pct = st.o.precision, max_repeats = st.o["max-repeats"] } }
  local text = json(doc) .. "\n"
  for _, path in ipairs({ st.dir .. "/capacity.json", st.o.results }) do
    local tmp = path .. ".tmp"
    local f, e = io.open(tmp, "w")
    if not f then return err("cannot write " .. path .. ": " .. tostring(e)) end
    f:write(text)
    f:close()
    os.rename(tmp, path)
  end
  return 0
end

-- --html: the page of the search from its document (C, results/sb_html_capacity.c).
local function write_html(st)
  local e = ffi.new("char[1024]")
  if C.sb_html_write_capacity(st.o.html, st.dir .. "/capacity.json", e, 1024) ~= 0 then
    return err("--html: " .. ffi.string(e))
  end
  say(st, "charts in " .. st.o.html)
  return 0
end

-- Checks the command and prepares the search state; nil, why on bad input.
local function setup(o, info)
  local c, e = series.classify(o.cmd, info.exe)
  if not c then return nil, e end
  local c2, threads = strip_words(c)
  if c2.kind ~= "bmk" and c2.words[2] then c2.words[2] = tostring(o["step-time"]) end
  local extra = {}
  local st = { o = o, rows = {}, nstep = 0, repeats = 0, threads = threads }
  st.id = o.id or series.default_id("capacity-" .. c.name)
  extra[1] = "--series-id=" .. st.id
  if o.reset == "checkpoint" then extra[2] = "--db-checkpoint=on" end
  st.step_argv, e = series.stepper(c2, extra)
  if not st.step_argv then return nil, e end
  st.dir = o.dir or st.id
  if not sys.isdir(st.dir) and C.mkdir(st.dir, 493) ~= 0 then
    return nil, "cannot create the results directory " .. st.dir .. ": " .. sys.errstr()
  end
  return st
end

-- True when the steps save their runs in a results database (--save or
-- --results-db in the command, or $BMK_RESULTS_DB; docs/results-db.md).
local function saving(cmd)
  local env = os.getenv("BMK_RESULTS_DB")
  if env and env ~= "" then return true end
  for _, a in ipairs(cmd) do
    if a == "--save" or a:match("^%-%-save=on$") or a:match("^%-%-results%-db=.") then return true end
  end
  return false
end

function M.main(args, info)
  local o, why = parse_args(args)
  if not o then
    if why == "help" then io.write(USAGE) return 0 end
    io.stderr:write("bmk capacity: ", why, "\n(bmk capacity --help for the usage)\n")
    return M.EXIT_BAD
  end
  local st, e = setup(o, info)
  if not st then return err(e) end
  sys.block_signals()
  say(st, ("%s search, SLO %s, steps in %s/"):format(o.mode == "rate" and "open-loop rate" or
    "user-count", slo_text(st), st.dir))
  local lo, hi
  if o.mode == "rate" then
    local start = o["start-rate"] or trial(st)
    if start then
      lo, hi = search(st, start, o.growth, o["max-rate"], round_rate,
        function(a, b) return (b - a) / a <= o.precision / 100 end)
    end
  else
    lo, hi = search(st, 1, 2, o["max-users"], function(x) return math.floor(x + 0.5) end,
      function(a, b) return b - a <= 1 or (b - a) / a <= o.precision / 100 end)
  end
  if st.sig then say(st, "interrupted; the table holds the steps done") end
  if st.nstep > 0 and saving(o.cmd) then
    say(st, ("its steps are saved in the results database as series %s (bmk runs list "
      .. "--series=%s; bmk report --series=%s)"):format(st.id, st.id, st.id))
  end
  if st.failed then io.stderr:write("bmk capacity: ", st.failed, "\n") end
  print_table(st)
  -- a search stopped before its first step has no answer and no chart
  local a = #st.rows > 0 and answer(st, lo, hi) or { found = false, steps = 0, lines = {} }
  local bad = write_results(st, a) ~= 0
  if o.html and not bad and #st.rows > 0 then bad = write_html(st) ~= 0 end
  if st.sig then return st.sig == sys.SIGINT and 130 or 143 end
  if st.failed or bad then return M.EXIT_BAD end
  return lo and M.EXIT_OK or M.EXIT_NO_RATE
end

return M
