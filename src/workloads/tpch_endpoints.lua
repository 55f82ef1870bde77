-- bmk tpch with --endpoints (docs/tpch.md "Replicas"): where each part of
-- `run` goes. The refresh functions, tpch_meta and prepare, check and
-- cleanup on the file's primary (the first endpoint whose role is
-- "primary"; a file without one is refused); query stream s on the
-- replicas round-robin by stream (the power test's stream 0 and
-- throughput stream 1 on the first, stream 2 on the second, ...), on the
-- primary when the file has no replica; before a query stream starts, its
-- replica has caught up with the primary (workload_replicas.lua). Without
-- --endpoints every function answers nil / does nothing. Any thread.

local shared = require("workload_replicas")
local util = require("workload_util")

local M = {}

local primary_cache

-- The primary's endpoint name, or nil without --endpoints; fails (one
-- FATAL line) when no endpoint of the file has the role "primary".
function M.primary()
  if not shared.active() then return nil end
  if primary_cache then return primary_cache end
  local p = shared.with_role("primary")[1]
  if p == nil then
    util.fail("--endpoints: no endpoint has the role \"primary\": bmk tpch runs prepare, " ..
                "the refresh functions, check and cleanup on the primary")
  end
  primary_cache = p
  return p
end

-- The endpoint query stream `stream` (0: the power test's, 1..S the
-- throughput test's) runs on: the replicas round-robin (streams 0 and 1
-- on the first), the primary when there is none; nil without --endpoints.
function M.query_endpoint(stream)
  local primary = M.primary()
  if primary == nil then return nil end
  local r = shared.replicas()
  if #r == 0 then return primary end
  local k = stream > 0 and stream - 1 or 0
  return r[k % #r + 1]
end

-- True when endpoint `name` is one of the file's replicas.
M.is_replica = shared.is_replica

-- Waits until each replica named in `names` (others are skipped, each
-- once) has applied what the primary (`con`) has written so far, at most
-- --replica-wait seconds each; `monitor(name)` opens an uncounted
-- connection to an endpoint. Raises an error naming a replica that did
-- not catch up in time. Prints a line per replica.
function M.wait_caught_up(con, c, names, monitor)
  shared.wait_replicas(con, names, { pg = c.pg, what = "run", wait_s = c.replica_wait,
                                     monitor = monitor })
end

return M
