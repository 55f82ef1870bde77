-- bmk internal module: the global `sysbench` table, the FFI declarations
-- scripts rely on, the default event loop and the Lua reporters.
-- Contract: sysbench 1.1's src/lua/internal/sysbench.lua.

-- A global, as in sysbench (its internal sysbench.lua sets it): third-party
-- scripts call ffi.cdef without require("ffi").
ffi = require("ffi")
local ffi = ffi

-- Exactly sysbench's public FFI names: scripts use them without
-- declaring them, and must be able to declare their own libc structs.
ffi.cdef[[
typedef enum
{
  SB_CNT_OTHER,
  SB_CNT_READ,
  SB_CNT_WRITE,
  SB_CNT_TRX,
  SB_CNT_ERROR,
  SB_CNT_RECONNECT,
  SB_CNT_BYTES_READ,
  SB_CNT_BYTES_WRITTEN,
  SB_CNT_MAX
} sb_counter_type;

typedef enum
{
  SB_ARG_TYPE_NULL,
  SB_ARG_TYPE_BOOL,
  SB_ARG_TYPE_INT,
  SB_ARG_TYPE_SIZE,
  SB_ARG_TYPE_DOUBLE,
  SB_ARG_TYPE_STRING,
  SB_ARG_TYPE_LIST,
  SB_ARG_TYPE_FILE,
  SB_ARG_TYPE_MAX
} sb_arg_type_t;

typedef struct
{
  const char    *name;
  const char    *desc;
  const char    *value;
  sb_arg_type_t type;
  bool          (*validate)(const char *, const char *);
} sb_arg_t;

typedef enum
{
  SQL_ERROR_NONE,
  SQL_ERROR_IGNORABLE,
  SQL_ERROR_FATAL
} sql_error_t;

typedef enum
{
  SQL_TYPE_NONE,
  SQL_TYPE_TINYINT,
  SQL_TYPE_SMALLINT,
  SQL_TYPE_INT,
  SQL_TYPE_BIGINT,
  SQL_TYPE_FLOAT,
  SQL_TYPE_DOUBLE,
  SQL_TYPE_TIME,
  SQL_TYPE_DATE,
  SQL_TYPE_DATETIME,
  SQL_TYPE_TIMESTAMP,
  SQL_TYPE_CHAR,
  SQL_TYPE_VARCHAR
} sql_bind_type_t;

typedef struct sql_driver sql_driver;
typedef struct sql_connection sql_connection;
typedef struct sql_statement sql_statement;
typedef struct sql_result sql_result;
typedef struct sql_row sql_row;
typedef struct sql_value sql_value;
typedef struct sql_bind sql_bind;
typedef struct sb_histogram sb_histogram_t;

void sb_counter_inc(int thread_id, sb_counter_type type);
void sb_counter_add(int thread_id, sb_counter_type type, uint64_t value);
uint64_t sb_counter_val(int thread_id, sb_counter_type type);

bool sb_more_events(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
int sb_event_type_id(const char *name);
void sb_event_set_type(int thread_id, int type_id);
void sb_event_restarted(int thread_id);
void sb_event_failed(int thread_id);
bool sb_event_may_retry(int thread_id, unsigned tries);
int sb_retry_max_tries(void);
void sb_retry_count(int thread_id, const char *code, int what);
void sb_rand_state_get(uint64_t s[2]);
void sb_rand_state_set(const uint64_t s[2]);
bool sb_engine_sleep(int thread_id, double seconds);
int sb_metric_id(const char *name);
void sb_metric_add(int id, uint64_t value);
int sb_figure_set(const char *name, const char *help, int flags, double value);
bool sb_engine_stopping(void);
int sb_vu_current(void);
unsigned sb_cluster_index(void);
unsigned sb_cluster_size(void);
int sb_cluster_global_tid(int tid);
int sb_cluster_note(const char *key, const char *value);

]]

local C = ffi.C

-- print() as one write per line: stdout is unbuffered and several threads
-- print at once, so the stock print (one write per argument) interleaves
-- their lines.
do
  local stdout, tostring, select, concat = io.stdout, tostring, select, table.concat
  function print(...)
    local n = select('#', ...)
    local parts = {...}
    for i = 1, n do
      parts[i] = tostring(parts[i])
    end
    stdout:write(concat(parts, "\t", 1, n) .. "\n")
  end
end

sysbench = sysbench or {}
sysbench.error = { NONE = 0, RESTART_EVENT = 1 }
sysbench.hooks = sysbench.hooks or {}

-- sysbench.cluster (bmk, docs/cluster.md): this process's place in a
-- cluster run (--cluster-index, --cluster-size; 0 and 1 outside one).
-- index, size; tid: the global thread id of this thread (index * threads
-- + sysbench.tid); threads: the VUs of the whole cluster (size *
-- --threads). Read when asked: the options are parsed after the script's
-- chunk runs. note(key, value): records a pair this process sends the
-- coordinator with its end (the per-process "notes" of the cluster's
-- --results); an error for a malformed key or value. go(): in process 0
-- of a `prepare` split by bmk cluster run, lets the other processes start
-- (what must come first, e.g. the schema, is done); nothing elsewhere.
local function cluster_go()
  if C.sb_cluster_size() > 1 and C.sb_cluster_index() == 0 then
    io.stdout:write("bmkc go\n")
    io.stdout:flush()
  end
end
local function cluster_note(key, value)
  if C.sb_cluster_note(tostring(key), tostring(value)) ~= 0 then
    error(string.format("sysbench.cluster.note(%q, %q): the key must be 1-63 characters of " ..
                          "[A-Za-z0-9_.-] and the value under 256 characters without a newline " ..
                          "(at most 4096 notes)", tostring(key), tostring(value)), 2)
  end
end
sysbench.cluster = setmetatable({}, { __index = function(_, k)
  if k == "note" then return cluster_note
  elseif k == "go" then return cluster_go
  elseif k == "index" then return tonumber(C.sb_cluster_index())
  elseif k == "size" then return tonumber(C.sb_cluster_size())
  elseif k == "tid" then return tonumber(C.sb_cluster_global_tid(sysbench.tid or 0))
  elseif k == "threads" then
    return tonumber(C.sb_cluster_size()) * (tonumber(sysbench.opt and sysbench.opt.threads) or 1)
  end
end })

-- sysbench.event_type(name) (bmk): names the kind of the current event,
-- e.g. "new_order", so the reports keep counts, errors, rollbacks and
-- latency percentiles per type. Call it inside event(), any time before
-- the event ends; the last call wins, and an event with no call is of type
-- "event". name: string of at most 63 bytes; at most 63 distinct names per
-- run. Raises an error for a non-string name or when those limits are
-- exceeded (the event fails like any script error). Costs one table
-- lookup per call once a name is known. Scripts that never call it get
-- sysbench's reports unchanged.
do
  local ids = {}
  function sysbench.event_type(name)
    local id = ids[name]
    if id == nil then
      if type(name) ~= "string" then
        error("sysbench.event_type: the name must be a string, got " .. type(name), 2)
      end
      id = C.sb_event_type_id(name)
      if id < 0 then
        error("sysbench.event_type: cannot register event type '" ..
                tostring(name) .. "'", 2)
      end
      ids[name] = id
    end
    -- the calling thread's (event mode: virtual user's) id
    C.sb_event_set_type(C.sb_vu_current(), id)
  end
end

-- sysbench.sleep(seconds) (bmk): the one way a workload waits (keying and
-- thinking times, pauses). seconds: number >= 0, fractions allowed
-- (about 1 ms resolution). Returns true when the whole time passed, false
-- when the run is stopping (it then wakes within 100 ms). Raises an error
-- for a negative or non-number argument. Goes through the engine (never a
-- raw usleep) so that an event-loop engine can turn it into a timer.
do
  local sleep = C.sb_engine_sleep
  function sysbench.sleep(seconds)
    if type(seconds) ~= "number" or seconds ~= seconds or seconds < 0 or
       seconds == math.huge then
      error("sysbench.sleep: seconds must be a finite number >= 0, got " ..
              tostring(seconds), 2)
    end
    return sleep(sysbench.tid, seconds)
  end
end

-- sysbench.figure(name, value [, opts]) (bmk): publishes one figure of
-- the run, a single value measured at the end of the measured window
-- (call it from sysbench.hooks.measure_end): the --metrics-listen gauge
-- bmk_<name> and summary.figures.<name> in --results. name: [a-z][a-z0-9_]*,
-- at most 47 bytes; value: a finite number; opts.help: one line saying
-- what it is (the gauge's HELP); opts.per_minute = true: value is a count
-- over the measured window, shown per minute of it (tpcc's NOPM: the
-- New-Orders counted, shown as count / window minutes, the same division
-- as its report); opts.scope = "server": the value is the database's
-- (its counters, a count in its schema), the same for every client of it,
-- so merging concurrent runs on one database averages it instead of
-- adding it up (default "client": this run's own). Setting a name again
-- replaces its value. Raises an error for a bad name, value or scope, or
-- a 65th figure.
function sysbench.figure(name, value, opts)
  if type(value) ~= "number" or value ~= value or value == math.huge or value == -math.huge then
    error("sysbench.figure: the value must be a finite number, got " .. tostring(value), 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error("sysbench.figure: opts must be a table {help=..., per_minute=..., scope=...}", 2)
  end
  opts = opts or {}
  if opts.scope ~= nil and opts.scope ~= "client" and opts.scope ~= "server" then
    error("sysbench.figure: opts.scope must be \"client\" or \"server\", got " ..
            tostring(opts.scope), 2)
  end
  local flags = (opts.per_minute and 1 or 0) + (opts.scope == "server" and 2 or 0)
  if type(name) ~= "string" or
    C.sb_figure_set(name, tostring(opts.help or ""), flags, value) ~= 0 then
    error("sysbench.figure: bad name " .. tostring(name) .. " (give [a-z][a-z0-9_]*, at " ..
            "most 47 bytes) or more than 64 figures", 2)
  end
end

-- sysbench.metric(name) (bmk): declares the workload metric `name` (a
-- sum: rows loaded, statements, microseconds spent in COMMIT, ...) and
-- returns an object whose :add(n) adds n to it for the calling thread.
-- name: string of 1..63 bytes; the same name gives the same metric in
-- every thread; at most 16 names per run. n: number >= 0, default 1,
-- rounded to the nearest integer. The engine reports every metric per
-- interval (stat.metrics in report hooks, intervals[].metrics in
-- --results) and at the end (the "Workload metrics:" block, total and
-- per second; summary.metrics), warmup excluded. Raises an error for a
-- bad name, a 17th name or a bad n. Cost of :add: one FFI store into the
-- thread's own slot.
do
  local add, floor = C.sb_metric_add, math.floor
  local methods = {}
  local mt = { __index = methods }
  function methods.add(self, n)
    if n == nil then
      n = 1
    elseif type(n) ~= "number" or not (n >= 0) or n >= 2^63 then
      error("metric '" .. self.name .. "': add() needs a number >= 0, got " ..
              tostring(n), 2)
    end
    add(self.id, floor(n + 0.5))
  end
  local known = {}
  function sysbench.metric(name)
    local m = known[name]
    if m then
      return m
    end
    if type(name) ~= "string" then
      error("sysbench.metric: the name must be a string, got " .. type(name), 2)
    end
    local id = C.sb_metric_id(name)
    if id < 0 then
      error(string.format("sysbench.metric: cannot declare '%s' (at most 16 " ..
                            "metrics, names of 1 to 63 bytes)", name), 2)
    end
    m = setmetatable({ id = id, name = name }, mt)
    known[name] = m
    return m
  end
end

require("sysbench.rand")
require("sysbench.cmdline")
require("sysbench.histogram")
require("sysbench.sql")
require("sysbench.compat")

-- One event of env.event (env: the globals the script runs in; event
-- mode passes a virtual user's environment), restarted on RESTART_EVENT
-- errors with env.sysbench.hooks.before_restart_event. Returns true when
-- the thread must stop with this event uncounted: the event returned a
-- non-nil, non-false value, or (bmk) the run stopped and the event's
-- connection could not be rebuilt, so running it again would only fail on
-- the closed connection (db_conn_closed: declared by sysbench.sql.lua).
-- Globals are looked up per event, as a script may replace them.
-- The event again after its error `err` (a loop of its own, off the
-- common path: a loop inside the event's call keeps LuaJIT from compiling
-- the loop of events around it).
local function restart_event(thread_id, env, err)
  local RESTART = sysbench.error.RESTART_EVENT
  while true do
    if type(err) == "table" and err.errcode == RESTART then
      C.sb_event_restarted(thread_id)
      if C.sb_engine_stopping() and err.connection ~= nil and
          C.db_conn_closed(err.connection) then
        return true
      end
      local hook = env.sysbench.hooks.before_restart_event
      if hook then
        hook(err)
      end
    else
      error(err, 0)
    end
    local ok, ret = pcall(env.event, thread_id)
    if ok then
      return ret and true or false
    end
    err = ret
  end
end

local function one_event(thread_id, env)
  local ok, ret = pcall(env.event, thread_id)
  if ok then
    return ret and true or false
  end
  return restart_event(thread_id, env, ret)
end

-- ---- retries (bmk: --max-tries, docs/usage.md "Retries") ---------------------
--
-- With --max-tries given, a transaction (the event, or a
-- sysbench.transaction() call) whose try fails on an error that would
-- restart the event is rolled back and, when the error is a serialization
-- failure or a deadlock, tried again from its start with the random
-- numbers of its first try, while sb_event_may_retry allows; any other
-- such error, or the last try's, makes it a failure. Counted per error
-- code in core/sb_retry.c.

local RETRIABLE = { ["40001"] = true, ["40P01"] = true, ["1213"] = true, ["1205"] = true }
local RETRIED, RETRIES, FAILURES = 0, 1, 2

-- The code of an error: MySQL's error number, else the SQLSTATE.
local function error_code(err)
  local errno = tonumber(err.sql_errno) or 0
  if errno ~= 0 then
    return tostring(errno)
  end
  return tostring(err.sql_state or "")
end

-- Ends the transaction the failed try left open on its connection
-- (PostgreSQL's driver has rolled it back already; MySQL keeps it open
-- after a lock wait timeout). A ROLLBACK that fails is left to the next
-- statement to report.
local function rollback_after(err)
  local con = err.connection
  if con ~= nil and C.db_conn_in_txn(con) == 1 then
    pcall(con.query, con, "ROLLBACK")
  end
end

local function pack(...)
  return { n = select("#", ...), ... }
end

-- Runs fn(...) as one transaction under --max-tries for virtual user
-- `tid`; `hooks`: the hooks table whose before_restart_event runs before
-- each retry. Returns "ok", packed results of fn; "failed", the errdesc
-- of the last try; or "stop" when the run stopped while a try failed (the
-- transaction is then neither counted nor tried again). Errors that would
-- not restart the event are raised again.
local function run_tries(tid, hooks, fn, ...)
  local rng = ffi.new("uint64_t[2]")
  C.sb_rand_state_get(rng)
  local tries = 1
  while true do
    local r = pack(pcall(fn, ...))
    if r[1] then
      return "ok", r
    end
    local err = r[2]
    if type(err) ~= "table" or err.errcode ~= sysbench.error.RESTART_EVENT then
      error(err, 0)
    end
    rollback_after(err)
    if C.sb_engine_stopping() then
      return "stop"
    end
    local code = error_code(err)
    if not RETRIABLE[code] or not C.sb_event_may_retry(tid, tries) then
      C.sb_retry_count(tid, code, FAILURES)
      return "failed", err
    end
    if tries == 1 then
      C.sb_retry_count(tid, code, RETRIED)
    end
    C.sb_retry_count(tid, code, RETRIES)
    C.sb_event_restarted(tid)
    local hook = hooks and hooks.before_restart_event
    if hook then
      hook(err)
    end
    tries = tries + 1
    C.sb_rand_state_set(rng)
  end
end

-- one_event under --max-tries: a failed event ends uncounted
-- (sb_event_failed).
local function tried_event(thread_id, env)
  local status, r = run_tries(thread_id, env.sysbench.hooks, env.event, thread_id)
  if status == "ok" then
    return r[2] and true or false
  elseif status == "stop" then
    return true
  end
  C.sb_event_failed(thread_id)
  return false
end

-- sysbench.transaction(fn, ...) (bmk): runs fn(...) as one transaction of
-- the current event, for an event that runs several transactions or does
-- work before its transaction (by default the whole event is one). With
-- --max-tries, a try that fails on a serialization failure or deadlock is
-- rolled back and fn runs again with the same random numbers, up to
-- --max-tries tries; fn must begin and commit the transaction itself.
-- Returns true and fn's results when it committed; false and the error
-- (the errdesc of con:query's errors: sql_errno, sql_state, sql_errmsg,
-- connection) when it failed after its last try, or on another error that
-- restarts events; the event then goes on. Without --max-tries it calls
-- fn(...) and returns true and its results (errors restart the event, as
-- sysbench's do). Errors that stop the thread (SQL errors not ignored,
-- script errors) pass through. Do not nest calls.
function sysbench.transaction(fn, ...)
  if type(fn) ~= "function" then
    error("sysbench.transaction: fn must be a function, got " .. type(fn), 2)
  end
  if C.sb_retry_max_tries() < 0 then
    return true, fn(...)
  end
  local status, r = run_tries(C.sb_vu_current(), sysbench.sql.__hooks(), fn, ...)
  if status == "ok" then
    return true, unpack(r, 2, r.n)
  end
  return false, r
end

-- The event loop of a thread: while more(thread_id), one event (above),
-- timed by sb_event_start / sb_event_stop. Event mode passes next_event
-- instead of `more`: next_event(thread_id, stop_prev) stops the previous
-- event when stop_prev, asks for the next and starts it, in one call
-- (sb_vu_next_event: its frames run in LuaJIT's interpreter, where each
-- FFI call is costly).
function sysbench.__event_loop(thread_id, more, env, next_event)
  local one_event = C.sb_retry_max_tries() >= 0 and tried_event or one_event
  if next_event then
    local done = false
    while next_event(thread_id, done) do
      if one_event(thread_id, env) then
        return
      end
      done = true
    end
    return
  end
  local event_start = C.sb_event_start
  local event_stop = C.sb_event_stop
  while more(thread_id) do
    event_start(thread_id)
    if one_event(thread_id, env) then
      return
    end
    event_stop(thread_id)
  end
end

-- The default event loop. A script may define its own global thread_run;
-- it then replaces this one, since the script runs later.
function thread_run(thread_id)
  return sysbench.__event_loop(thread_id, C.sb_more_events, _G)
end

-- ---- reporters --------------------------------------------------------------

local function pct_label()
  return sysbench.opt and sysbench.opt.percentile or 95
end

function sysbench.report_default(stat)
  local seconds = stat.time_interval
  print(string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f " ..
                        "(r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%u%%): %4.2f " ..
                        "err/s %4.2f reconn/s: %4.2f",
                      stat.time_total, stat.threads_running,
                      stat.events / seconds,
                      (stat.reads + stat.writes + stat.other) / seconds,
                      stat.reads / seconds, stat.writes / seconds,
                      stat.other / seconds, pct_label(),
                      stat.latency_pct * 1000,
                      stat.errors / seconds, stat.reconnects / seconds))
end

function sysbench.report_csv(stat)
  local seconds = stat.time_interval
  print(string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
                      stat.time_total, stat.threads_running,
                      stat.events / seconds,
                      (stat.reads + stat.writes + stat.other) / seconds,
                      stat.reads / seconds, stat.writes / seconds,
                      stat.other / seconds, stat.latency_pct * 1000,
                      stat.errors / seconds, stat.reconnects / seconds))
end

-- Each Lua state writes its own JSON array: "[" before the first object,
-- "," between objects, "\n]\n" when the state closes (through the
-- finaliser of a sentinel object).
local json_started = false
local json_sentinel = newproxy(true)
getmetatable(json_sentinel).__gc = function()
  if json_started then
    io.stdout:write("\n]\n")
    io.stdout:flush()
  end
end
sysbench.__json_sentinel = json_sentinel

function sysbench.report_json(stat)
  local seconds = stat.time_interval
  if not json_started then
    io.stdout:write("[\n")
    json_started = true
  else
    io.stdout:write(",\n")
  end
  io.stdout:write(string.format([[
  {
    "time": %4.0f,
    "threads": %u,
    "tps": %4.2f,
    "qps": {
      "total": %4.2f,
      "reads": %4.2f,
      "writes": %4.2f,
      "other": %4.2f
    },
    "latency": %4.2f,
    "errors": %4.2f,
    "reconnects": %4.2f
  }]],
    stat.time_total, stat.threads_running,
    stat.events / seconds,
    (stat.reads + stat.writes + stat.other) / seconds,
    stat.reads / seconds, stat.writes / seconds, stat.other / seconds,
    stat.latency_pct * 1000,
    stat.errors / seconds, stat.reconnects / seconds))
  io.stdout:flush()
end

return sysbench
