-- bmk kit OLTP workload (docs/kit-oltp.md).
--
-- Usage: bmk <dir>/kit_oltp.lua [options] create|prepare|run|cleanup|warmup
-- `create` makes the tables (thread 0), `prepare` loads them in parallel,
-- `run` executes the --statements classes per event (or the reconnect
-- workload with --reconnect-event=on). The work is split into sibling
-- modules, loaded from this script's own directory.

-- The sibling modules (and the compat module oltp_common) are found
-- through this script's own directory, from any current directory.
local dir = (debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./")
if not package.path:find(dir .. "?.lua", 1, true) then
  package.path = dir .. "?.lua;" .. package.path
end

-- Options, commands, thread_init/thread_done and the statement functions.
require("oltp_common")

-- One event: the --statements classes (or a reconnect event).
function event()
  return kit_event()
end
