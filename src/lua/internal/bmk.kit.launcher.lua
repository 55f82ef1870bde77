-- bmk kit: runs the bmk processes of a plan (bmk-kit.md §3.2, §3.3, §8,
-- §11): one process live on the terminal, or n processes released together
-- through the SYNC-file barrier, their logs and the combined line.

local sys = require("bmk.kit.sys")
local report = require("bmk.kit.report")
local bench = require("bmk.kit.bench")

local M = {}

-- A command line as shell text, with the password variables shown as ***.
function M.format(argv, env)
  local parts = {}
  for _, k in ipairs({ "MYSQL_PWD", "PGPASSWORD" }) do
    if env[k] then parts[#parts + 1] = k .. "=***" end
  end
  for _, a in ipairs(argv) do parts[#parts + 1] = bench.shquote(a) end
  return table.concat(parts, " ")
end

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

local function read_file(path)
  local f = io.open(path, "r")
  if not f then return "" end
  local t = f:read("*a")
  f:close()
  return t
end

-- Runs one step. Returns the exit status and the per-process outputs.
local function run_step(plan, step)
  local procs = step.procs
  local n = #procs
  local live = {}
  local status = {}
  local kept = {}
  local fd

  if plan.sync then
    local f = io.open(plan.sync, "w")
    if not f then
      io.stderr:write("bmk kit: cannot create " .. plan.sync .. "\n")
      return 1, {}
    end
    f:close()
  end
  for i, p in ipairs(procs) do
    local pid, x = sys.spawn(p.argv, { pipe = (i == 1), log = p.log })
    if not pid then
      io.stderr:write("bmk kit: " .. x .. "\n")
      for j = 1, i - 1 do sys.kill(procs[j].pid, sys.SIGTERM) end
      for j = 1, i - 1 do sys.reap(procs[j].pid, true) end
      if plan.sync then sys.unlink(plan.sync) end
      return 1, {}
    end
    p.pid = pid
    live[i] = true
    if i == 1 then fd = x end
  end

  local waiting = plan.sync ~= nil
  local failed_start = false
  local eof = false
  local nlive = n
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
      for i, p in ipairs(procs) do if live[i] then sys.kill(p.pid, sig) end end
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
            for j, q in ipairs(procs) do if live[j] then sys.kill(q.pid, sys.SIGTERM) end end
          end
        end
      end
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
  if plan.sync then sys.unlink(plan.sync) end

  local outputs = { table.concat(kept) }
  local rc = 0
  for i = 1, n do
    if (status[i] or 1) > rc then rc = status[i] or 1 end
  end
  if n > 1 then
    for i = 2, n do
      local p = procs[i]
      io.write(("==> process %d/%d: %d threads (offset %d) <==\n"):format(i, n, p.threads, p.offset))
      outputs[i] = read_file(p.log)
      io.write(outputs[i])
      os.remove(p.log)
    end
  end
  if failed_start then rc = 1 end
  outputs.failed_start = failed_start
  return rc, outputs
end

-- Runs a plan: its steps in order, stopping at the first failure.
-- Returns the exit status.
function M.execute(plan)
  sys.block_signals()
  -- .bench fields were exported by the script; the password reaches bmk
  -- only as MYSQL_PWD / PGPASSWORD.
  sys.setenv("pass", nil)
  sys.setenv("pg_pass", nil)
  for k, v in pairs(plan.env) do sys.setenv(k, v) end
  for _, l in ipairs(plan.notices) do io.write(l, "\n") end
  if plan.spec.reconnect and not plan.spec.socket then
    -- A connection per event piles up TIME_WAIT sockets (bmk-kit.md §1).
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
      end
      return 1
    end
    if step.command == "run" and not outputs.failed_start then
      local n = #step.procs
      local reps = {}
      for i = 1, n do reps[i] = report.parse(outputs[i] or "") end
      if n > 1 then
        local line, c = report.combined(reps, n, step.users)
        if line then
          io.write(line, "\n")
          if spec.trx then io.write(report.qps_line(c.qps, c.tps), "\n") end
        else
          io.write("=> Combined: not available (" .. c .. ")\n")
        end
      elseif reps[1] and spec.trx then
        io.write(report.qps_line(reps[1].qps, reps[1].tps), "\n")
      end
    end
    if rc ~= 0 then return rc end
  end
  return 0
end

return M
