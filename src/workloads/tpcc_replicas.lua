-- bmk tpcc: `check` with --endpoints (docs/endpoints.md): the endpoints
-- it runs on (the primary, then each replica) and the wait for every
-- replica to catch up with the primary first. MariaDB: the replica's
-- MASTER_GTID_WAIT for the primary's @@gtid_binlog_pos; PostgreSQL: the
-- standby's pg_last_wal_replay_lsn() reaching the primary's
-- pg_current_wal_lsn(). Without --endpoints neither does anything.

local common = require("tpcc_common")
local ffi = common.ffi
local C = common.C

local M = {}

-- The endpoints `check` runs on: { name = PRIMARY } (the default route's
-- endpoint, the name con:endpoint() gave), then { name = N, replica =
-- true } for each replica in file order; {} without --endpoints.
function M.targets(primary)
  local list = {}
  local n = tonumber(C.sb_endpoints_count())
  if n == 0 then return list end
  list[1] = { name = primary }
  for i = 0, n - 1 do
    if C.sb_endpoints_replica(i) then
      list[#list + 1] = { name = ffi.string(C.sb_endpoints_name(i)), replica = true }
    end
  end
  return list
end

-- The primary's position now (a GTID list or an LSN, as text).
local function primary_position(con, c)
  if c.pg then return common.value(con, "SELECT pg_current_wal_lsn()") end
  return common.value(con, "SELECT @@gtid_binlog_pos")
end

-- The replica's position (for messages).
local function replica_position(rcon, c)
  if c.pg then return common.value(rcon, "SELECT pg_last_wal_replay_lsn()") end
  return common.value(rcon, "SELECT @@gtid_slave_pos")
end

-- True when the replica has applied everything up to `pos`; waits up to
-- half a second on the server when not.
local function reached(rcon, c, pos)
  if c.pg then
    local v = common.value(rcon, "SELECT pg_last_wal_replay_lsn() >= '" .. pos .. "'::pg_lsn")
    if v == "t" or v == "true" or v == "1" then return true end
    common.value(rcon, "SELECT pg_sleep(0.5)")
    return false
  end
  return common.value(rcon, "SELECT MASTER_GTID_WAIT('" .. pos:gsub("'", "''") .. "', 0.5)") == "0"
end

-- Waits until replica `name` has applied the primary's position of now
-- (`con`: a connection to the primary), printing progress every 5 s;
-- raises an error naming the replica after --replica-wait seconds.
local function wait_one(con, c, name)
  local rcon = common.monitor(c, name)
  local pos = primary_position(con, c) or ""
  local t0 = common.now_ms()
  local note = t0 + 5000
  while not reached(rcon, c, pos) do
    local now = common.now_ms()
    if now - t0 >= c.replica_wait * 1000 then
      local at = tostring(replica_position(rcon, c))
      rcon:disconnect()
      common.fail("check: replica '%s' has not caught up with the primary within %d s " ..
                    "(--replica-wait): it has applied %s, the primary was at %s; see that it " ..
                    "replicates (SHOW SLAVE STATUS / pg_stat_wal_receiver) or raise --replica-wait",
                  name, c.replica_wait, at, pos)
    end
    if now >= note then
      print(string.format("check: waiting for replica '%s' to catch up with the primary " ..
                            "(%.0f s; applied %s, primary at %s)", name, (now - t0) / 1000,
                          tostring(replica_position(rcon, c)), pos))
      note = now + 5000
    end
  end
  rcon:disconnect()
  print(string.format("check: replica '%s' has caught up with the primary (%s)", name,
                      pos ~= "" and pos or "no transaction yet"))
end

-- Waits for every replica of `targets` (M.targets) in turn.
function M.wait_caught_up(con, c, targets)
  for _, t in ipairs(targets) do
    if t.replica then wait_one(con, c, t.name) end
  end
end

return M
