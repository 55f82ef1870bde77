-- bmk bundled workload: a TPC-H-derived analytic workload (results are not
-- TPC-H results). `bmk tpch [options] generate|prepare|run|check|cleanup|help`.
-- Its data are dbgen 2.17.3's rows, byte for byte (src/datagen/sb_tpch_*).
-- Documentation and the module map: docs/tpch.md.

BMK_TPCH = true

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: generate, prepare, run, check, " ..
          "cleanup, help", 0)
end

local common = require("tpch_common")

sysbench.cmdline.options = common.options

sysbench.cmdline.commands = {
  generate = {function() return require("tpch_generate").cmd_generate() end,
              sysbench.cmdline.PARALLEL_COMMAND},
  prepare = {function() return require("tpch_load").cmd_prepare() end,
             sysbench.cmdline.PARALLEL_COMMAND},
  check = {function() return require("tpch_check").cmd_check() end},
  run = {function() return require("tpch_run").cmd_run() end,
         sysbench.cmdline.PARALLEL_COMMAND},
}

function cleanup()
  require("tpch_load").cmd_cleanup()
end

function event()
end
