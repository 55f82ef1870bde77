-- bmk internal module: sysbench.cmdline (sysbench-compat.md §5.2).
-- `argv`, `command` and `script_path` are filled in by the C core before
-- the script runs; option parsing itself is done in C (src/lua/sb_lua.c).

sysbench.cmdline = sysbench.cmdline or {}
local cmdline = sysbench.cmdline

cmdline.ARG_NULL = 0
cmdline.ARG_BOOL = 1
cmdline.ARG_INT = 2
cmdline.ARG_SIZE = 3
cmdline.ARG_DOUBLE = 4
cmdline.ARG_STRING = 5
cmdline.ARG_LIST = 6
cmdline.ARG_FILE = 7
cmdline.ARG_MAX = 8

cmdline.PARALLEL_COMMAND = true

-- Registers the script's `sysbench.cmdline.options` with the core parser.
function cmdline.read_cmdline_options()
  return sysbench.__c.read_cmdline_options()
end

local function command_entry(name)
  local cmds = cmdline.commands
  if type(cmds) ~= "table" then
    return nil
  end
  local e = cmds[name]
  if type(e) ~= "table" or type(e[1]) ~= "function" then
    return nil
  end
  return e
end

function cmdline.command_defined(name)
  return command_entry(name) ~= nil
end

function cmdline.command_parallel(name)
  local e = command_entry(name)
  return e ~= nil and e[2] == cmdline.PARALLEL_COMMAND
end

function cmdline.call_command(name)
  local e = command_entry(name)
  if e == nil then
    return nil
  end
  return e[1]()
end

function cmdline.print_test_options()
  return sysbench.__c.print_test_options()
end

return cmdline
