-- bmk tpcc: `check` with --endpoints (docs/endpoints.md): the endpoints
-- it runs on (the primary, then each replica) and the wait for every
-- replica to catch up with the primary first (workload_replicas.lua).
-- Without --endpoints neither does anything.

local common = require("tpcc_common")
local shared = require("workload_replicas")

local M = {}

-- The endpoints `check` runs on: { name = PRIMARY } (the default route's
-- endpoint, the name con:endpoint() gave), then { name = N, replica =
-- true } for each replica in file order; {} without --endpoints.
function M.targets(primary)
  local list = {}
  if not shared.active() then return list end
  list[1] = { name = primary }
  for _, name in ipairs(shared.replicas()) do
    list[#list + 1] = { name = name, replica = true }
  end
  return list
end

-- Waits for every replica of `targets` (M.targets) in turn to catch up
-- with the primary (`con`), at most --replica-wait seconds each; raises
-- an error naming the replica that did not.
function M.wait_caught_up(con, c, targets)
  local w = { pg = c.pg, what = "check", wait_s = c.replica_wait,
              monitor = function(name) return common.monitor(c, name) end }
  for _, t in ipairs(targets) do
    if t.replica then shared.wait_one(con, t.name, w) end
  end
end

return M
