-- bmk kit workload: dbSTRESS (docs/kit-dbstress.md).
--
--   bmk <dir>/kit_dbstress.lua [options] create|prepare|run|warmup|prewarm|cleanup
--
-- The logic lives in the sibling modules kit_dbstress_{opts,load,run}.lua,
-- found through this script's own directory so that the kit works from
-- any current directory.

local dir = (debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./")
if not package.path:find(dir .. "?.lua", 1, true) then
  package.path = dir .. "?.lua;" .. package.path
end

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: create, prepare, warmup, " ..
          "prewarm, run, cleanup, help", 0)
end

require("kit_dbstress_run").install(true)
