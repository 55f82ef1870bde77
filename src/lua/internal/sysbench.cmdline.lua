-- bmk internal module: sysbench.cmdline, as sysbench's.
-- `argv`, `command` and `script_path` are filled in by the C core before
-- the script runs; option parsing itself is done in C (src/lua/sb_lua_options.c).

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
-- The structure is checked here, in Lua, so that the errors carry this
-- module's position as sysbench's do ([string "sysbench.cmdline.lua"]:N:).
function cmdline.read_cmdline_options()
  local opts = cmdline.options
  if opts == nil then
    return true
  end
  if type(opts) ~= "table" then
    error("wrong table structure in sysbench.cmdline.options")
  end
  for name, def in pairs(opts) do
    if type(name) ~= "string" or type(def) ~= "table" then
      error("wrong table structure in sysbench.cmdline.options")
    end
    if def[1] == nil then
      error("nil description for option " .. name)
    end
    local t = def[3]
    if t ~= nil and (type(t) ~= "number" or t <= cmdline.ARG_NULL or
                       t >= cmdline.ARG_MAX or t ~= math.floor(t)) then
      error("wrong type for option " .. name)
    end
  end
  sysbench.__c.read_cmdline_options()
  return true
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
