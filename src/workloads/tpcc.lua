-- bmk bundled workload: a TPROC-C-style order-entry workload derived from
-- TPC-C (results are not TPC-C results). `bmk tpcc [options]
-- prepare|run|check|procs|cleanup|help`. Documentation, bmk's decisions
-- and the module map: docs/tpcc.md.

BMK_TPCC = true

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, run, check, procs, " ..
          "cleanup, help", 0)
end

local common = require("tpcc_common")
local load = require("tpcc_load")
local run = require("tpcc_run")
local report = require("tpcc_report")

sysbench.cmdline.options = common.options

sysbench.cmdline.commands = {
  prepare = {load.cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
  check = {function() return require("tpcc_check").cmd_check() end,
           sysbench.cmdline.PARALLEL_COMMAND},
  procs = {function() return require("tpcc_sp").cmd_procs() end},
}

function cleanup()
  load.cmd_cleanup()
end

-- run: the global state checks the schema and draws the run's constants;
-- each worker is one session (tpcc_run.lua).
function init()
  run.init()
end

function thread_init(tid)
  run.thread_init(tid)
end

function thread_done(tid)
  run.thread_done(tid)
end

function event()
  return run.event()
end

-- Keying and thinking need waits outside the measured latency, so they
-- get their own event loop; otherwise the core's.
local core_thread_run = thread_run
function thread_run(tid)
  if common.config().kt then
    return run.thread_run_kt(tid)
  end
  return core_thread_run(tid)
end

sysbench.hooks.report_intermediate = report.report_intermediate
sysbench.hooks.measure_start = report.measure_start
sysbench.hooks.measure_end = report.measure_end
sysbench.hooks.report_final = report.report_final
-- --async-sessions=auto: one session per terminal,
-- --terminals-per-warehouse x warehouses (--scale in each of --tables sets)
function sysbench.hooks.async_sessions()
  local o = sysbench.opt
  return (tonumber(o.terminals_per_warehouse) or 0) * (tonumber(o.scale) or 0) *
    (tonumber(o.tables) or 0)
end
