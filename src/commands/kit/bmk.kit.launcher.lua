-- bmk kit: runs the bmk processes of a plan (docs/kit.md): one process
-- live on the terminal, or n processes released together through the
-- SYNC-file barrier, their logs and the combined line.

local sys = require("bmk.kit.sys")
local report = require("bmk.kit.report")
local bench = require("bmk.kit.bench")

local M = {}

-- Seconds the processes get to exit after being stopped before their
-- release; then they are killed (SIGKILL), so an unreleased process can
-- never leave the launcher waiting forever.
M.STOP_GRACE = 10

-- A command line as shell text, with the password variables shown as ***.
function M.format(argv, env)
  local parts = {}
  for _, k in ipairs({ "MYSQL_PWD", "PGPASSWORD" }) do
    if env[k] then parts[#parts + 1] = k .. "=***" end
  end
  for _, a in ipairs(argv) do parts[#parts + 1] = bench.shquote(a) end
  return table.concat(parts, " ")
end

-- Prints every command line of `plan` (options.plan), one per line, as
-- `bmk kit explain` shows them.
function M.explain(plan)
  for _, step in ipairs(plan.steps) do
    for _, p in ipairs(step.procs) do io.write(M.format(p.argv, plan.env), "\n") end
  end
end

-- Forwards `text` to our stdout and keeps it.
local function tee(kept, text)
  if text ~= "" then
    sys.write_fd(1, text)
    kept[#kept + 1] = text
  end
end

-- Stops the started processes of `procs` (those with a pid still live).
local function stop_all(procs, live, sig)
  for i, p in ipairs(procs) do if live[i] then sys.kill(p.pid, sig) end end
end

-- Runs one step. Returns the exit status and the per-process outputs
-- (outputs.failed_start: the processes never all started). Whatever
-- happens (a process that cannot start or dies early, a signal), every
-- started process is waited for, the logs are printed and removed, and
-- the sync file is removed.
local function run_step(plan, step)
  local procs = step.procs
  local n = #procs
  local live = {}
  local status = {}
  local kept = {}
  local fd
  local failed_start = false

  if plan.sync then
    local f, e = io.open(plan.sync, "w")
    if not f then
      io.stderr:write("bmk kit: cannot create the sync file: " .. tostring(e)
        .. "; check TMP_DIR in .bench\n")
      return 1, { failed_start = true }
    end
    f:close()
  end
  local nlive = 0
  for i, p in ipairs(procs) do
    local pid, x = sys.spawn(p.argv, { pipe = (i == 1), log = p.log })
    if not pid then
      io.stderr:write(("bmk kit: process %d/%d: %s%s\n")
        :format(i, n, x, i > 1 and "; stopping the others" or ""))
      failed_start = true
      stop_all(procs, live, sys.SIGTERM)
      break
    end
    p.pid = pid
    live[i] = true
    nlive = nlive + 1
    if i == 1 then fd = x end
  end

  local waiting = plan.sync ~= nil and not failed_start
  -- stopped_at: when the processes were told to stop while the sync file
  -- still held them (nil: not stopped, or already released).
  local stopped_at = failed_start and sys.now() or nil
  local killed = false
  local eof = fd == nil
  while nlive > 0 or not eof do
    if not eof then
      local s = sys.read_some(fd, 10)
      if s == nil then eof = true; sys.close(fd) else tee(kept, s) end
    else
      sys.sleep_ms(10)
    end
    local sig = sys.pending_signal()
    if sig then
      -- Terminal signals reach the children too; a kill(1) of the
      -- launcher alone must not leave them running.
      -- The sync file stays until every process is gone: removing it
      -- now would release a process that has not yet seen the signal.
      -- SIGHUP is passed on as SIGTERM, which bmk handles (report kept).
      stop_all(procs, live, sig == sys.SIGHUP and sys.SIGTERM or sig)
      if waiting then stopped_at = stopped_at or sys.now() end
      waiting = false
    end
    for i, p in ipairs(procs) do
      if live[i] then
        local st = sys.reap(p.pid, false)
        if st then
          status[i] = st
          live[i] = false
          nlive = nlive - 1
          if waiting then
            -- A process died before the start: nobody may run alone.
            failed_start = true
            waiting = false
            io.stderr:write(("bmk kit: process %d/%d exited (status %d) before it was ready; stopping the others\n")
              :format(i, n, st))
            stop_all(procs, live, sys.SIGTERM)
            stopped_at = sys.now()
          end
        end
      end
    end
    if stopped_at and not killed and nlive > 0 and sys.now() - stopped_at > M.STOP_GRACE then
      io.stderr:write(("bmk kit: processes still running %d s after being stopped; killing them\n")
        :format(M.STOP_GRACE))
      stop_all(procs, live, sys.SIGKILL)
      killed = true
    end
    if waiting then
      local ready = 0
      for _, p in ipairs(procs) do
        if sys.exists(plan.sync .. ".ready." .. p.pid) then ready = ready + 1 end
      end
      if ready == n then
        sys.unlink(plan.sync)
        waiting = false
      end
    end
  end
  if plan.sync then
    sys.unlink(plan.sync)
    -- A killed process cannot remove its own ready marker.
    for _, p in ipairs(procs) do
      if p.pid then sys.unlink(plan.sync .. ".ready." .. p.pid) end
    end
  end

  local outputs = { table.concat(kept) }
  local rc = 0
  for i = 1, n do
    if (status[i] or 1) > rc then rc = status[i] or 1 end
  end
  for i = 2, n do
    local p = procs[i]
    if p.pid then
      io.write(("==> process %d/%d: %d threads (offset %d) <==\n"):format(i, n, p.threads, p.offset))
      local f, e = io.open(p.log, "r")
      if f then
        outputs[i] = f:read("*a")
        f:close()
        io.write(outputs[i])
      else
        io.write("bmk kit: cannot read ", tostring(e), "\n")
      end
    end
    if p.log then os.remove(p.log) end
  end
  io.stdout:flush()
  if failed_start then rc = 1 end
  outputs.failed_start = failed_start
  return rc, outputs
end

-- Prints a split run's "=> Combined" line (and the qps line of -trx names)
-- from the processes' merged --results files; writes the merged file when
-- the user asked for --results.
local function combined_line(plan, step, spec)
  local paths = {}
  for i, p in ipairs(step.procs) do
    if not sys.exists(p.results) then
      io.write("=> Combined: not available (process " .. i .. " wrote no results)\n")
      return
    end
    paths[i] = p.results
  end
  local line, c = report.combined(paths, step.users, plan.results)
  if not line then
    io.write("=> Combined: not available (" .. c .. ")\n")
    return
  end
  io.write(line, "\n")
  if spec.trx then io.write(report.qps_line(c.qps, c.tps), "\n") end
  if plan.results then io.write("=> Combined results written to ", plan.results, "\n") end
end

-- Runs a plan (options.plan): its steps in order, stopping at the first
-- failure. Returns the exit status: 1 when the load generator cannot be
-- run or the processes never all started, else the highest process status.
function M.execute(plan)
  local prog = plan.steps[1].procs[1].argv[1]
  if not sys.runnable(prog) then
    io.stderr:write("bmk kit: cannot run the load generator '" .. prog .. "' (not found or not "
      .. "executable); set sb11 in " .. plan.home .. "/.bench or put bmk on PATH\n")
    return 1
  end
  local script = plan.steps[1].procs[1].argv[2]
  if plan.kit_lua_tried and script:match("%.lua$") and not sys.exists(script) then
    -- the home has no sb_exec/lua/ and bmk's own kit is not there either
    io.stderr:write("bmk kit: the kit's workload scripts are missing: " .. plan.home
      .. "/sb_exec/lua/ does not exist and this bmk's installation has no kit (looked in "
      .. plan.kit_lua_tried .. "); reinstall bmk, or copy a kit's sb_exec/lua/ into "
      .. plan.home .. "\n")
    return 1
  end
  if script:match("^/.*%.lua$") and not sys.exists(script) then
    io.stderr:write("bmk kit: workload script " .. script .. " not found; is BMK_HOME ("
      .. plan.home .. ") a bmk kit directory?\n")
    return 1
  end
  sys.block_signals()
  -- .bench fields were exported by the script; the password reaches bmk
  -- only as MYSQL_PWD / PGPASSWORD.
  sys.setenv("pass", nil)
  sys.setenv("pg_pass", nil)
  for k, v in pairs(plan.env) do sys.setenv(k, v) end
  for _, l in ipairs(plan.notices) do io.write(l, "\n") end
  if plan.spec.reconnect and not plan.spec.socket then
    -- A connection per event piles up TIME_WAIT sockets (BMK-kit asks for
    -- net.ipv4.tcp_tw_reuse=1).
    local f = io.open("/proc/sys/net/ipv4/tcp_tw_reuse", "r")
    local v = f and f:read("*l")
    if f then f:close() end
    if v == "0" then
      io.write("=> kit: reconnect workload with net.ipv4.tcp_tw_reuse=0; "
        .. "consider 'sudo sysctl net.ipv4.tcp_tw_reuse=1'\n")
    end
  end
  local spec = plan.spec
  for _, step in ipairs(plan.steps) do
    local rc, outputs = run_step(plan, step)
    if step.command == "create" and rc ~= 0 then
      local t = (outputs[1] or ""):match("[Tt]able%s+['`\"]?([%w_.]+)['`\"]?%s+already exists")
      if t then
        io.stderr:write(("bmk kit: table %s already exists; run 'bmk kit cleanup %s' first\n")
          :format(t, spec.name))
        return 1
      end
      return rc
    end
    if step.command == "run" and not outputs.failed_start then
      local n = #step.procs
      if n > 1 then
        combined_line(plan, step, spec)
      else
        local rep = report.parse(outputs[1] or "")
        if rep and spec.trx then io.write(report.qps_line(rep.qps, rep.tps), "\n") end
      end
    end
    for _, p in ipairs(step.procs) do
      if p.results then os.remove(p.results) end
    end
    if rc ~= 0 then return rc end
  end
  return 0
end

return M
