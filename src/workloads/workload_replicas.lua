-- bmk bundled workloads' replica helpers for --endpoints
-- (docs/endpoints.md), shared by tpcc (`check`), tpch (`run`) and
-- chbench (`run`'s streams): the FFI declarations of core/sb_endpoints.h's
-- Lua accessors, the file's endpoints by role, a replica's latest lag
-- sample, and the wait for a replica to catch up with the primary. MariaDB: the replica's MASTER_GTID_WAIT for the primary's
-- @@gtid_binlog_pos; PostgreSQL: the standby's pg_last_wal_replay_lsn()
-- reaching the primary's pg_current_wal_lsn(). Without --endpoints the
-- lists are empty and nothing waits. Any thread (a connection is one
-- thread's).

local ffi = require("ffi")
local util = require("workload_util")

ffi.cdef[[
bool sb_endpoints_has_route(const char *key);
unsigned sb_endpoints_count(void);
const char *sb_endpoints_name(unsigned i);
const char *sb_endpoints_role(unsigned i);
bool sb_endpoints_replica(unsigned i);
double sb_endpoints_replica_lag(unsigned i);
]]

local C = ffi.C

local M = {}

-- The endpoints of the file whose role is `role` ("primary", "replica"),
-- by name in file order; {} without --endpoints.
function M.with_role(role)
  local list = {}
  for i = 0, tonumber(C.sb_endpoints_count()) - 1 do
    local r = C.sb_endpoints_role(i)
    if r ~= nil and ffi.string(r) == role then list[#list + 1] = ffi.string(C.sb_endpoints_name(i)) end
  end
  return list
end

-- The replicas of the file (sb_endpoints_replica), by name in file
-- order; {} without --endpoints.
function M.replicas()
  local list = {}
  for i = 0, tonumber(C.sb_endpoints_count()) - 1 do
    if C.sb_endpoints_replica(i) then list[#list + 1] = ffi.string(C.sb_endpoints_name(i)) end
  end
  return list
end

-- True when --endpoints loaded a file.
function M.active()
  return tonumber(C.sb_endpoints_count()) > 0
end

-- The 0-based file index of endpoint `name`, or nil when the file has
-- none of that name (or without --endpoints).
function M.index(name)
  for i = 0, tonumber(C.sb_endpoints_count()) - 1 do
    if ffi.string(C.sb_endpoints_name(i)) == name then return i end
  end
  return nil
end

-- True when endpoint `name` is one of the file's replicas.
function M.is_replica(name)
  local i = M.index(name)
  return i ~= nil and C.sb_endpoints_replica(i)
end

-- Replica `i`'s (M.index) latest lag sample in seconds, from bmk's lag
-- sampler (docs/endpoints.md "Replica lag": once a second during the
-- measured time); nil when `i` is no replica or it has no fresh sample
-- (none yet, not replicating, not answering, older than 5 s). Any
-- thread; reads an atomic, no statement.
function M.lag(i)
  local v = tonumber(C.sb_endpoints_replica_lag(i))
  if v < 0 then return nil end
  return v
end

-- The primary's position now (a GTID list or an LSN, as text); `pg`:
-- PostgreSQL.
local function primary_position(con, pg)
  if pg then return util.value(con, "SELECT pg_current_wal_lsn()") end
  return util.value(con, "SELECT @@gtid_binlog_pos")
end

-- The replica's position (for messages).
local function replica_position(rcon, pg)
  if pg then return util.value(rcon, "SELECT pg_last_wal_replay_lsn()") end
  return util.value(rcon, "SELECT @@gtid_slave_pos")
end

-- True when the replica has applied everything up to `pos`; waits up to
-- half a second on the server when not.
local function reached(rcon, pg, pos)
  if pg then
    local v = util.value(rcon, "SELECT pg_last_wal_replay_lsn() >= '" .. pos .. "'::pg_lsn")
    if v == "t" or v == "true" or v == "1" then return true end
    util.value(rcon, "SELECT pg_sleep(0.5)")
    return false
  end
  return util.value(rcon, "SELECT MASTER_GTID_WAIT('" .. pos:gsub("'", "''") .. "', 0.5)") == "0"
end

-- Waits until replica `name` has applied the primary's position of now.
-- `con`: a connection to the primary; `w`: { pg = PostgreSQL?, monitor =
-- function(name) returning an uncounted connection to endpoint `name`,
-- what = the message prefix ("check"), wait_s = seconds at most, quiet =
-- no line when caught up }. Prints progress every 5 s; raises an error
-- naming the replica after w.wait_s seconds (--replica-wait).
function M.wait_one(con, name, w)
  local rcon = w.monitor(name)
  local pos = primary_position(con, w.pg) or ""
  local t0 = util.now_ms()
  local note = t0 + 5000
  while not reached(rcon, w.pg, pos) do
    local now = util.now_ms()
    if now - t0 >= w.wait_s * 1000 then
      local at = tostring(replica_position(rcon, w.pg))
      rcon:disconnect()
      util.fail("%s: replica '%s' has not caught up with the primary within %d s " ..
                  "(--replica-wait): it has applied %s, the primary was at %s; see that it " ..
                  "replicates (SHOW SLAVE STATUS / pg_stat_wal_receiver) or raise --replica-wait",
                w.what, name, w.wait_s, at, pos)
    end
    if now >= note then
      print(string.format("%s: waiting for replica '%s' to catch up with the primary " ..
                            "(%.0f s; applied %s, primary at %s)", w.what, name, (now - t0) / 1000,
                          tostring(replica_position(rcon, w.pg)), pos))
      note = now + 5000
    end
  end
  rcon:disconnect()
  if not w.quiet then
    print(string.format("%s: replica '%s' has caught up with the primary (%s)", w.what, name,
                        pos ~= "" and pos or "no transaction yet"))
  end
end

-- Waits (M.wait_one, `w` as there) for each replica named in `names` in
-- turn, each once; names that are no replica (the primary) are skipped.
-- Raises an error naming a replica that did not catch up in time.
function M.wait_replicas(con, names, w)
  local seen = {}
  for _, name in ipairs(names) do
    if not seen[name] and M.is_replica(name) then
      seen[name] = true
      M.wait_one(con, name, w)
    end
  end
end

return M
