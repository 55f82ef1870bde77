-- `bmk series` (docs/report.md): runs one bmk command line, kit name or
-- kit script once per user count, each step writing its --results file
-- under one series id, then prints the series table (`bmk report`).
-- Entered from C (src/lua/sb_kit.c) with main(args, info) like the kit:
-- args are the words after "series", info = { exe, datadir }. Returns the
-- exit status.

local sys = require("bmk.kit.sys")
local names = require("bmk.kit.names")
local ffi = require("ffi")

ffi.cdef [[
int mkdir(const char *path, unsigned int mode);
int rmdir(const char *path);
long time(long *t);
]]

local M = {}

-- Longest series accepted (a typo in a progression must not start
-- thousands of runs).
M.MAX_STEPS = 256

local USAGE = [[
Usage:
  bmk series --users=LIST [--pause=SECONDS] [--reset=checkpoint|none]
             [--results-dir=DIR] [--id=NAME] -- COMMAND...
Runs COMMAND once per user count of LIST, waiting SECONDS between steps, and
prints one table of every step (users, tps, qps, p95, p99, errors/s, ...).
COMMAND is one of
  a bmk run command line:  [bmk] TEST [options...] run   (--threads is replaced)
  a kit name:              [bmk kit] NAME USERS SECONDS [options...]
  a generated kit script:  /BMK/sb_exec/sb11-NAME.sh USERS SECONDS [options...]
                           (USERS is replaced)
LIST: 1,2,4,8 or 1,2,4,...,1024 ("..." continues the progression of the two
values before it up to the value after it). Each step writes
DIR/<step>-u<users>.json (default DIR: ./<id>, id = <test or name>-<date>-<time>).
--reset=checkpoint makes the server write its dirty pages before each step
(bmk --db-checkpoint=on). Ctrl-C stops the series and prints the steps done.
See docs/report.md.
]]

local function err(msg, code)
  io.stderr:write("bmk series: ", msg, "\n")
  return code or 1
end

-- The integers of a --users list, "..." expanded. Returns list or nil, why.
function M.parse_users(s)
  local toks = {}
  for t in s:gmatch("[^,%s]+") do toks[#toks + 1] = t end
  if s:find("^%s*,") or s:find(",%s*,") or s:find(",%s*$") then
    return nil, "an empty user count in '" .. s .. "' (two commas, or one at an end)"
  end
  local out = {}
  for i, t in ipairs(toks) do
    if t == "..." then
      local a, b, last = out[#out - 1], out[#out], tonumber(toks[i + 1] or "")
      if not a or not last or last <= b then
        return nil, "'...' needs two values before it and a larger one after it"
      end
      local ratio = (b % a == 0) and b / a or 0
      local v = ratio > 1 and b * ratio or b + (b - a)
      if b <= a then return nil, "'...' needs an increasing progression before it" end
      while v < last and #out <= M.MAX_STEPS do
        out[#out + 1] = v
        v = ratio > 1 and v * ratio or v + (b - a)
      end
    else
      local v = t:match("^%d+$") and tonumber(t)
      if not v or v < 1 then return nil, "invalid user count '" .. t .. "' (integers >= 1)" end
      out[#out + 1] = v
    end
    if #out > M.MAX_STEPS then return nil, "more than " .. M.MAX_STEPS .. " steps" end
  end
  if #out == 0 then return nil, "no user counts" end
  return out
end

local function basename(p) return (p:gsub("/+$", ""):match("([^/]+)$")) or p end

-- How to run COMMAND (the words after the series options). Returns
-- { kind = "bmk"|"kit"|"script", prog, words, name } or nil, why.
function M.classify(cmd, exe)
  local w = {}
  for i = 1, #cmd do w[i] = cmd[i] end
  local prog = exe
  local first = w[1] or ""
  if first == "bmk" or ((basename(first):match("^bmk") or basename(first) == "sysbench")
      and sys.executable(first) and not first:match("%.sh$") and not first:match("%.lua$")) then
    if first ~= "bmk" then prog = first end
    table.remove(w, 1)
  end
  if #w == 0 then return nil, "no command after the series options" end
  if w[1] == "kit" then
    table.remove(w, 1)
    if #w == 0 then return nil, "'kit' needs a name" end
    local name = table.remove(w, 1)
    return { kind = "kit", prog = prog, name = name, words = w }
  end
  if w[1]:match("%.sh$") and (w[1]:find("/", 1, true) or sys.exists(w[1])) then
    local script = table.remove(w, 1)
    return { kind = "script", prog = "/bin/bash", script = script,
      name = basename(script):gsub("^sb11%-", ""):gsub("%.sh$", ""), words = w }
  end
  if names.resolve(w[1]) and not sys.exists(w[1]) then
    local name = table.remove(w, 1)
    return { kind = "kit", prog = prog, name = name, words = w }
  end
  return { kind = "bmk", prog = prog, words = w,
    name = basename(w[1]):gsub("%.lua$", "") }
end

local function is_opt(a, name)
  return a:match("^%-%-" .. name:gsub("%-", "[-_]") .. "=") ~= nil
end

-- Checks COMMAND and returns a function users -> argv of a step, or nil,
-- why. `extra` are the options the series adds to every step.
function M.stepper(c, extra)
  for _, a in ipairs(c.words) do
    for _, o in ipairs({ "results", "series-id" }) do
      if is_opt(a, o) then
        return nil, "--" .. o .. " is set by bmk series for every step; remove it from the command"
      end
    end
  end
  if c.kind == "bmk" then
    local last
    for _, a in ipairs(c.words) do if not a:match("^%-") then last = a end end
    if last ~= "run" then
      return nil, "the bmk command line must end with the 'run' command (got '"
        .. tostring(last) .. "')"
    end
    return function(u)
      local argv = { c.prog }
      for _, a in ipairs(c.words) do
        if not (is_opt(a, "threads") or is_opt(a, "num-threads")) then argv[#argv + 1] = a end
      end
      argv[#argv + 1] = "--threads=" .. u
      for _, x in ipairs(extra) do argv[#argv + 1] = x end
      return argv
    end
  end
  if not (c.words[1] or ""):match("^%d+$") or not (c.words[2] or ""):match("^%d+$") then
    return nil, "a kit " .. (c.kind == "script" and "script" or "name")
      .. " takes <users> <seconds> [options...]"
  end
  return function(u)
    local argv = c.kind == "script" and { c.prog, c.script } or { c.prog, "kit", c.name }
    argv[#argv + 1] = tostring(u)
    for i = 2, #c.words do argv[#argv + 1] = c.words[i] end
    for _, x in ipairs(extra) do argv[#argv + 1] = x end
    return argv
  end
end

-- The command line as shown to the user (passwords masked).
local function shown(argv)
  local t = {}
  for i, a in ipairs(argv) do
    t[i] = a:gsub("(password=).*", "%1***")
  end
  return table.concat(t, " ")
end

-- Runs one step; forwards SIGHUP/SIGINT/SIGTERM (SIGHUP as SIGTERM).
-- Returns the exit status and the signal that stopped the series (nil).
-- `opts` as sys.spawn's (opts.log: a file for the step's output).
local function run_step(argv, opts)
  local pid, e = sys.spawn(argv, opts)
  if not pid then
    io.stderr:write("bmk series: ", e, "\n")
    return 1
  end
  local stopped
  while true do
    local st = sys.reap(pid, false)
    if st then return st, stopped end
    local sig = sys.pending_signal()
    if sig then
      stopped = stopped or sig
      sys.kill(pid, sig == sys.SIGHUP and sys.SIGTERM or sig)
    end
    sys.sleep_ms(20)
  end
end

-- Sleeps `s` seconds; returns a signal that arrived meanwhile, or nil.
local function pause(s)
  local t_end = sys.now() + s
  while sys.now() < t_end do
    local sig = sys.pending_signal()
    if sig then return sig end
    sys.sleep_ms(math.min(100, math.max(1, (t_end - sys.now()) * 1000)))
  end
end

local function parse_args(args)
  local o = { pause = 0, reset = "none" }
  local i = 1
  while i <= #args do
    local a = args[i]
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if a == "--" then i = i + 1; break
    elseif a == "--help" or a == "-h" then return nil, "help"
    elseif k == "users" then
      local u, why = M.parse_users(v)
      if not u then return nil, "--users: " .. why end
      o.users = u
    elseif k == "pause" then
      o.pause = tonumber(v)
      if not o.pause or o.pause < 0 then return nil, "--pause: seconds >= 0 expected, got '" .. v .. "'" end
    elseif k == "reset" then
      if v ~= "checkpoint" and v ~= "none" then
        return nil, "--reset: 'checkpoint' or 'none' expected, got '" .. v .. "'"
      end
      o.reset = v
    elseif k == "results-dir" and v ~= "" then o.dir = v
    elseif k == "id" and v:match("^[%w_.:-]+$") then o.id = v
    elseif a:match("^%-%-") then return nil, "unknown option or bad value: '" .. a .. "'"
    else break end
    i = i + 1
  end
  o.cmd = {}
  for j = i, #args do o.cmd[#o.cmd + 1] = args[j] end
  if not o.users then return nil, "--users=LIST is required" end
  return o
end

-- The default series id: <name>-<YYYYmmdd-HHMMSS>.
local function default_id(name)
  local clean = name:gsub("[^%w_.-]", "_")
  return clean .. "-" .. os.date("%Y%m%d-%H%M%S")
end

-- Shared with `bmk capacity` (bmk.capacity), which steps commands the
-- same way.
M.is_opt, M.shown, M.run_step, M.pause, M.default_id = is_opt, shown, run_step, pause,
  default_id

function M.main(args, info)
  local o, why = parse_args(args)
  if not o then
    if why == "help" then io.write(USAGE) return 0 end
    io.stderr:write("bmk series: ", why, "\n", USAGE)
    return 1
  end
  local c, e = M.classify(o.cmd, info.exe)
  if not c then return err(e) end
  o.id = o.id or default_id(c.name)
  local dir = o.dir or o.id
  local created = false
  if not sys.isdir(dir) then
    if ffi.C.mkdir(dir, 493) ~= 0 then
      return err("cannot create the results directory " .. dir .. ": " .. sys.errstr())
    end
    created = true
  end
  local extra = { "--series-id=" .. o.id }
  if o.reset == "checkpoint" then extra[#extra + 1] = "--db-checkpoint=on" end
  local step_argv, e2 = M.stepper(c, extra)
  if not step_argv then return err(e2) end
  sys.block_signals()
  io.write(("=> series %s: %d steps (users %s), results in %s/\n"):format(o.id, #o.users,
    table.concat(o.users, ","), dir))
  io.stdout:flush()
  local files, rc, sig = {}, 0, nil
  for k, u in ipairs(o.users) do
    if k > 1 and o.pause > 0 then
      io.write(("=> series %s: pause of %g s\n"):format(o.id, o.pause))
      io.stdout:flush()
      sig = pause(o.pause)
      if sig then break end
    end
    local file = ("%s/%02d-u%d.json"):format(dir, k, u)
    local argv = step_argv(u)
    argv[#argv + 1] = "--results=" .. file
    io.write(("=> series %s: step %d/%d, %d users: %s\n"):format(o.id, k, #o.users, u, shown(argv)))
    io.stdout:flush()
    local st
    st, sig = run_step(argv)
    if sys.exists(file) then files[#files + 1] = file end
    if sig then break end
    if st ~= 0 then
      rc = st
      io.write(("=> series %s: step %d exited with status %d; the series stops\n"):format(o.id, k, st))
      break
    end
  end
  if sig then
    io.write(("=> series %s: interrupted (%s); the table holds the steps done\n"):format(o.id,
      sig == sys.SIGINT and "SIGINT" or sig == sys.SIGTERM and "SIGTERM" or "SIGHUP"))
    rc = sig == sys.SIGINT and 130 or 143
  end
  io.write("\n")
  io.stdout:flush()
  if #files == 0 then
    io.write("=> series ", o.id, ": no step wrote its results\n")
    if created then ffi.C.rmdir(dir) end     -- empty: leave nothing behind
    return rc ~= 0 and rc or 1
  end
  local argv = { info.exe, "report" }
  for _, f in ipairs(files) do argv[#argv + 1] = f end
  local st = run_step(argv)
  if rc == 0 then rc = st end
  return rc
end

return M
