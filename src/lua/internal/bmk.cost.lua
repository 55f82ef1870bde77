-- bmk internal module: bmk.cost, the server-cost measurement for scripts
-- (docs/lua-api.md "bmk.cost"; C side: src/server/sb_server_cost.h).
--
--   local cost = require("bmk.cost")
--   local found, what = cost.locate(con)   -- the server to measure
--   local m = cost.start()                 -- start a measurement
--   local r = m:read()                     -- numbers so far (a table)
--   m:stop()                               -- final numbers, counters closed

local ffi = require("ffi")

ffi.cdef[[
typedef struct sb_cost_meas sb_cost_meas_t;
typedef struct {
  double elapsed_s;
  int has_server_cpu;
  double server_user_s, server_system_s;
  int has_counter;
  double counter;
  double client_user_s, client_system_s;
  double host_busy_pct;
  int host_cpus;
} sb_cost_reading_t;
int sb_cost_locate(sql_connection *con, char *buf, size_t len);
sb_cost_meas_t *sb_cost_start(void);
int sb_cost_read(sb_cost_meas_t *m, sb_cost_reading_t *out);
const char *sb_cost_counter_note(const sb_cost_meas_t *m);
void sb_cost_free(sb_cost_meas_t *m);
]]

local C = ffi.C
local cost = {}

-- cost.locate([con]) -> found (boolean), text (string)
-- Finds the database server to measure: the --server-pid/--server-cgroup
-- target when given, otherwise the local server behind `con` (a
-- connection from sysbench.sql; may be nil). `text` says in one line what
-- is measured, or why nothing is. Main (global) Lua state only.
function cost.locate(con)
  local buf = ffi.new("char[?]", 8192)
  local found = C.sb_cost_locate(con, buf, 8192) == 1
  return found, ffi.string(buf)
end

local meas = {}
meas.__index = meas

-- m:read() -> table of the measurement so far:
--   elapsed_s          wall-clock seconds since cost.start()
--   server_cpu_s, server_user_s, server_system_s
--                      server CPU seconds (nil when not measured)
--   counter            events of the hardware counter: user-space
--                      instructions (nil when not counted)
--   counter_event      "instructions:u" (or "task-clock" in ns with
--                      BMK_COST_PERF_EVENT=task-clock) when counted
--   counter_note       the event name, or why it is not counted and how
--                      to allow it (one line)
--   client_cpu_s       bmk's own CPU seconds (user + system)
--   host_busy_pct      host CPU busy % (nil when unknown), host_cpus
function meas:read()
  if self.final then
    return self.final
  end
  local r = ffi.new("sb_cost_reading_t")
  C.sb_cost_read(self.ptr, r)
  local note = ffi.string(C.sb_cost_counter_note(self.ptr))
  local t = {
    elapsed_s = r.elapsed_s,
    client_cpu_s = r.client_user_s + r.client_system_s,
    host_cpus = r.host_cpus,
    counter_note = note,
  }
  if r.has_server_cpu ~= 0 then
    t.server_user_s = r.server_user_s
    t.server_system_s = r.server_system_s
    t.server_cpu_s = r.server_user_s + r.server_system_s
  end
  if r.has_counter ~= 0 then
    t.counter = r.counter
    t.counter_event = note
  end
  if r.host_busy_pct >= 0 then
    t.host_busy_pct = r.host_busy_pct
  end
  return t
end

-- m:stop() -> the final reading (as m:read()); closes the counters. Later
-- calls of read/stop return the same numbers.
function meas:stop()
  if not self.final then
    self.final = self:read()
    C.sb_cost_free(ffi.gc(self.ptr, nil))
    self.ptr = nil
  end
  return self.final
end

-- cost.start() -> a measurement of the located server (call cost.locate
-- first; without a server only bmk's and the host's CPU are measured).
function cost.start()
  local p = C.sb_cost_start()
  if p == nil then
    error("bmk.cost.start: out of memory", 2)
  end
  return setmetatable({ ptr = ffi.gc(p, C.sb_cost_free) }, meas)
end

return cost
