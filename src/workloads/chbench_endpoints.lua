-- bmk chbench: `run` with --endpoints (docs/chbench.md "Replicas"). The
-- TPC-C VUs are tpcc's and go where the file's routing sends them (the
-- default route: the primary); the analytic streams run on a replica,
-- the file's replicas round-robin by stream as tpch's query streams (or
-- every stream on the endpoint --analytic-endpoint names), after that
-- replica has caught up with the primary (workload_replicas.lua). Each
-- query's freshness is the replica's lag from bmk's lag sampler
-- (docs/endpoints.md "Replica lag"): the larger of its latest samples at
-- the query's start and at its end. Without --endpoints nothing here
-- does anything.

local common = require("tpcc_common")
local shared = require("workload_replicas")

local M = {}

M.options = {
  analytic_endpoint = {"run with --endpoints: the endpoint every analytic stream runs on " ..
                         "(default: the file's replicas, round-robin by stream)", ""},
}

-- Adds the streams' endpoints to `c` (chbench_run.configure's): c.ep[s]
-- the endpoint's name of stream s (1-based) and c.ep_lag[s] its index
-- for the lag samples (nil: no replica, no lag), both absent without
-- --endpoints and for commands other than `run`. Raises one message for
-- bad input: --analytic-endpoint without --endpoints or (run) naming no
-- endpoint of the file, a file without a replica when no endpoint is
-- named (run). Any state.
function M.configure(c)
  local named = tostring(sysbench.opt.analytic_endpoint or "")
  if not shared.active() then
    if named ~= "" then
      common.fail("--analytic-endpoint needs --endpoints=FILE naming that endpoint")
    end
    return
  end
  -- prepare, check and cleanup run on the primary, with or without replicas
  if c.streams == 0 or sysbench.cmdline.command ~= "run" then return end
  local list
  if named ~= "" then
    if shared.index(named) == nil then
      common.fail("--analytic-endpoint: the endpoints file has no endpoint named '%s'", named)
    end
    list = { named }
  else
    list = shared.replicas()
    if #list == 0 then
      common.fail("--endpoints: no endpoint is a replica (role \"replica\"): the analytic " ..
                    "streams run on a replica; add one to the file or name the endpoint " ..
                    "with --analytic-endpoint")
    end
  end
  c.ep, c.ep_lag = {}, {}
  for s = 1, c.streams do
    local name = list[(s - 1) % #list + 1]
    c.ep[s] = name
    if shared.is_replica(name) then c.ep_lag[s] = shared.index(name) end
  end
end

-- Global state, before the streams start: waits for each stream's
-- replica to catch up with the primary (what prepare wrote is there),
-- at most --replica-wait seconds each, and prints where the streams run.
-- Raises an error naming a replica that did not catch up.
function M.init(c)
  if not c.ep then return end
  local con = common.monitor(c)
  shared.wait_replicas(con, c.ep, { pg = c.pg, what = "run", wait_s = c.replica_wait,
                                    monitor = function(name) return common.monitor(c, name) end })
  con:disconnect()
  local seen, names = {}, {}
  for s = 1, c.streams do
    local n = c.ep[s]
    if not seen[n] then
      seen[n] = true
      names[#names + 1] = n .. (c.ep_lag[s] and "" or " (no replica: no lag)")
    end
  end
  print("chbench: the analytic streams run on " .. table.concat(names, ", ") ..
          "; the TPC-C VUs on the file's default route")
end

-- Stream s's (1-based) lag now in seconds, or nil (no replica, no fresh
-- sample). Any thread; no statement.
function M.lag(c, s)
  local i = c.ep_lag and c.ep_lag[s]
  if i == nil then return nil end
  return shared.lag(i)
end

-- Before stream s's first query: waits up to 10 s for the lag sampler's
-- first sample of its replica (it starts with the measured time), so
-- the first queries have a lag too. Returns at once without a replica.
function M.await_sample(c, s)
  if not (c.ep_lag and c.ep_lag[s]) then return end
  local t0 = common.now_ms()
  while M.lag(c, s) == nil and common.now_ms() - t0 < 10000 and
    not common.C.sb_engine_stopping() and sysbench.sleep(0.02) do
  end
end

-- The larger of two lag samples, either of which may be nil.
function M.larger(a, b)
  if a == nil then return b end
  if b == nil then return a end
  return math.max(a, b)
end

return M
