-- bmk bundled workload: CH-benCHmark (Cole et al., "The mixed workload
-- CH-benCHmark", DBTest 2011) on bmk's TPC-C: TPC-C's tables plus
-- SUPPLIER, NATION and REGION, TPC-C VUs (tpcc's, all of `bmk tpcc run`'s
-- options) and analytic query streams running the 22 CH queries at the
-- same time. Results are not TPC-C or TPC-H results. `bmk chbench
-- [options] prepare|run|check|answers|cleanup|help`. Documentation and
-- the module map: docs/chbench.md.

BMK_TPCC = true                -- tpcc's modules are loaded by this script

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, run, check, answers, cleanup, " ..
          "help", 0)
end

local common = require("tpcc_common")
local load = require("tpcc_load")
local run = require("tpcc_run")
local report = require("tpcc_report")
local schema = require("chbench_schema")
local chrun = require("chbench_run")
local baseline = require("chbench_baseline")
local chep = require("chbench_endpoints")

local options = {}
for k, v in pairs(common.options) do options[k] = v end
for k, v in pairs(chrun.options) do options[k] = v end
for k, v in pairs(baseline.options) do options[k] = v end
for k, v in pairs(chep.options) do options[k] = v end
for k, v in pairs(require("chbench_answers").options) do options[k] = v end
sysbench.cmdline.options = options

-- tpcc's configuration with the analytic options; the queries read set 1
-- of the tables, so one set only.
local function config()
  local c = common.config()
  if not c.chbench then
    if c.tables ~= 1 then
      common.fail("chbench runs on one set of TPC-C tables: --tables must be 1 (got %d)", c.tables)
    end
    chrun.configure(c)
    chep.configure(c)
    baseline.configure(c)
    c.chbench = true
  end
  return c
end

-- The TPC-C tables and the added ones must be there (a clear message
-- for each, before anything runs on them).
local function check_tables(c)
  local con = common.monitor(c)
  if common.count_tables(con, c) == 0 then
    common.fail("no TPC-C tables in %s: run `bmk chbench ... prepare` first",
                c.pg and ("schema " .. c.schema) or "the database")
  end
  local missing = schema.missing(con, c)
  if #missing > 0 then
    common.fail("the CH-benCHmark tables %s are missing (a schema of `bmk tpcc prepare`?): " ..
                  "run `bmk chbench ... prepare`, which adds them", table.concat(missing, ", "))
  end
  con:disconnect()
end

local function cmd_prepare()
  local ok = common.parallel_command(function(c) config() return true end)
  if not ok then return false end
  if not load.cmd_prepare() then return false end
  if sysbench.tid ~= 0 then return true end
  local ok2, err = pcall(schema.prepare, config())
  if not ok2 then error(common.error_text(err), 0) end
  return true
end

local function cmd_check()
  local c = config()
  if sysbench.tid == 0 then
    local ok, err = pcall(check_tables, c)
    if not ok then
      common.C.sb_shared_abort()          -- the other threads stop at their barrier
      error(err, 0)
    end
  end
  local ok = require("tpcc_check").cmd_check()
  if sysbench.tid ~= 0 then return ok end
  local con = common.monitor(c)
  local bad = schema.facts(con)
  con:disconnect()
  for _, b in ipairs(bad) do print("CH-benCHmark tables: FAILED: " .. b) end
  if #bad == 0 then
    print(string.format("CH-benCHmark tables: PASSED (%d regions, %d nations, %d suppliers, " ..
                        "keys match)", #schema.REGIONS, #schema.NATIONS, schema.SUPPLIERS))
  end
  return ok and #bad == 0
end

local function cmd_answers()
  local c = config()
  check_tables(c)
  return require("chbench_answers").cmd_answers(c)
end

sysbench.cmdline.commands = {
  prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
  check = {cmd_check, sysbench.cmdline.PARALLEL_COMMAND},
  answers = {cmd_answers},
}

function cleanup()
  local c = config()
  local con = common.monitor(c)
  print(string.format("%d CH-benCHmark table(s) dropped", schema.drop(con, c)))
  con:disconnect()
  load.cmd_cleanup()
end

-- run: thread ids 0..threads-1 are TPC-C VUs, the next --analytic-streams
-- ids the query streams (sysbench.hooks.extra_vus).
function init()
  local c = config()
  check_tables(c)
  if c.baseline_tag then
    require("chbench_saved").load(c)
  elseif c.baseline then
    baseline.run_phases(c)
  end
  chep.init(c)
  run.init()
  chrun.init(c)
end

-- fn_stream(c, tid) for a stream's thread id, else fn_vu(tid). In the
-- --baseline run of the streams alone the one VU is idle: no connection,
-- no transaction, it waits for the run's end.
local function by_thread(fn_stream, fn_vu, idle)
  return function(tid)
    local c = config()
    if tid >= c.threads then return fn_stream(c, tid) end
    if c.phase == "streams" then return idle and idle() end
    return fn_vu(tid)
  end
end

local function idle_vu()
  while not common.C.sb_engine_stopping() and sysbench.sleep(0.1) do end
end

local core_thread_run = thread_run
thread_init = by_thread(chrun.thread_init, run.thread_init)
thread_done = by_thread(chrun.thread_done, run.thread_done)
thread_run = by_thread(chrun.thread_run, function(tid)
  -- keying and thinking: tpcc's own loop (tpcc.lua)
  return (config().kt and run.thread_run_kt or core_thread_run)(tid)
end, idle_vu)
event = run.event

-- The streams' VU count; bad options give 0 here, and init() names them.
function sysbench.hooks.extra_vus()
  local ok, c = pcall(config)
  if not ok then return 0 end
  local as = tostring(sysbench.opt.async_sessions or "1")
  if c.streams > 0 and as ~= "1" then
    common.fail("--analytic-streams need one session per thread: leave --async-sessions out")
  end
  return c.streams
end

function sysbench.hooks.report_intermediate(stat)
  report.report_intermediate(stat)
  chrun.interval(config(), stat)
end
sysbench.hooks.measure_start = report.measure_start
function sysbench.hooks.measure_end()
  report.measure_end()
  chrun.figures(config())
  baseline.alone_figures(config())
end

-- The final report: tpcc's, the streams' block, then with --baseline the
-- interference report (a baseline child writes its figures instead;
-- with --baseline=tag:K=V the alone side is the saved runs').
function sysbench.hooks.report_final(stat)
  report.report_final(stat)
  local c = config()
  local cmp
  if c.baseline or c.phase then
    local res = c.streams > 0 and chrun.results(c) or nil
    local f = baseline.figures(c, stat, report.final_nopm, res)
    if c.phase then baseline.write_phase(c, f) end
    if c.baseline and c.alone then cmp = baseline.compare(c, f) end
  end
  require("chbench_report").print(c, cmp and baseline.json(c, cmp))
  if cmp then baseline.print(c, cmp) end
end
