-- bmk internal module: the Lua side of event mode (see
-- docs/design.md "Virtual users, workers and the event loop").
--
-- Loaded only into the Lua state of an event-mode worker, which runs many
-- virtual users (VUs), each a coroutine with its own global environment.
-- It builds those environments (per-VU globals, `sysbench` view and
-- `require`), runs the default event loop of a VU, and replaces the SQL
-- methods and sysbench.sleep with forms that yield to the worker's loop
-- instead of blocking the thread. Thread mode never loads it, so it adds
-- nothing there.

local ffi = require("ffi")

ffi.cdef[[
int sb_vu_current(void);
int sb_vu_await(sql_connection *con, int st, bool yieldable);
int sb_vu_sleep(double seconds);
int sb_vu_more_events(int thread_id);
int sb_vu_execute(sql_statement *stmt, bool yieldable);
int sb_vu_next_event(int thread_id, bool stop_prev);
int sb_vu_query(sql_connection *con, const char *query, size_t len, bool yieldable);
sql_result *sb_vu_stmt_result(sql_statement *stmt);
sql_connection *db_connection_new(sql_driver *drv);
int db_connect_start(sql_connection *con);
int db_connect_finish(sql_connection *con);
int db_query_start(sql_connection *con, const char *query, size_t len);
int db_execute_start(sql_statement *stmt);
int db_next_result_start(sql_connection *con);
int db_pipeline_fetch_start(sql_connection *con);
sql_result *db_async_result(sql_connection *con);
int db_prepare_start(sql_connection *con, const char *query, size_t len);
sql_statement *db_async_stmt(sql_connection *con);
int db_reconnect_start(sql_connection *con);
int db_route_start(sql_connection *con, const char *what, int who);
int db_route_end(sql_connection *con, int status);
int db_close_start(sql_statement *stmt);
bool db_bulk_needs_flush(const sql_connection *con, size_t len);
int db_bulk_flush_start(sql_connection *con);
int db_async_status(const sql_connection *con);
]]

-- Every VU runs the script's and modules' top level in this one Lua
-- state, so a declaration of the script (`ffi.cdef[[struct x {...};]]`)
-- would run once per VU and LuaJIT refuses to define a struct twice. The
-- same text declared again is a no-op here, as it is in thread mode where
-- each state sees it once; a different definition of a name still fails.
do
  local cdef, declared = ffi.cdef, {}
  ffi.cdef = function(def, ...)
    if type(def) == "string" and select("#", ...) == 0 then
      if declared[def] then return end
      cdef(def)
      declared[def] = true
      return
    end
    return cdef(def, ...)
  end
end

local C = ffi.C
-- The functions a query calls, bound once (a `C.name` in a frame the
-- interpreter runs is a metamethod call and a symbol lookup).
local db_stmt_connection, db_async_result = C.db_stmt_connection, C.db_async_result
local sb_vu_await = C.sb_vu_await
local sb_vu_more_events, sb_vu_sleep = C.sb_vu_more_events, C.sb_vu_sleep
local sb_vu_execute = C.sb_vu_execute
local sb_vu_next_event, sb_event_start = C.sb_vu_next_event, C.sb_event_start
local sb_vu_query, sb_vu_stmt_result = C.sb_vu_query, C.sb_vu_stmt_result
local db_next_result_start, db_close_start = C.db_next_result_start, C.db_close_start
local db_bulk_needs_flush = C.db_bulk_needs_flush
local S = sysbench
local G = _G
local sql = S.sql
local shared_require = require
local co_running, co_yield, co_create = coroutine.running, coroutine.yield, coroutine.create
local isyieldable = coroutine.isyieldable
local setfenv, getfenv, setmetatable, rawget, rawset = setfenv, getfenv, setmetatable, rawget, rawset
local type, error, pcall, tostring = type, error, pcall, tostring

local M = {}

local envs = {}                                     -- tid -> E
local views = {}                                    -- tid -> V (E.sysbench)
local threads = setmetatable({}, {__mode = "k"})    -- VU coroutine -> tid
local factories = {}                                -- module name -> factory

local env_mt = {__index = G}
local view_mt = {__index = S}
-- While a VU's chunk runs, sysbench.opt is nil, as in thread mode (the
-- options are exported after the script's top level has run).
local view_chunk_mt = {__index = function(_, k)
  if k == "opt" then
    return nil
  end
  return S[k]
end}
local opt_mt

-- ---- waiting ------------------------------------------------------------------

-- True when the running code is a VU's own coroutine and can yield to the
-- worker's loop (not the global state, not a script's own coroutine, not
-- inside a C call such as a string.gsub callback).
local function in_vu()
  local co = co_running()
  return co ~= nil and threads[co] ~= nil and isyieldable()
end
M.in_vu = in_vu

-- Completes the operation started on `con` (step `st`): the loop drives
-- it in C while the VU waits (sb_vu_await), so the VU yields once at most
-- and is resumed when it is done; where it cannot yield, C drives it in
-- place (blocking the worker, and counted as such).
local function drive(con, st)
  if st ~= 0 and sb_vu_await(con, st, in_vu()) == 1 then
    co_yield()
  end
end

-- ---- the SQL API in event mode (same results and errors as sysbench.sql) ----

local methods = sql.__methods
local check_error = sql.__check_error
local statement_result, next_result_of = sql.__statement_result, sql.__next_result_of
local drv_m, con_m, stmt_m = methods.driver, methods.connection, methods.statement

function drv_m.connect(self, opts)
  local con = C.db_connection_new(self)
  if con == nil then
    error("connection creation failed", 2)
  end
  if type(opts) == "table" and opts.endpoint ~= nil and
     C.db_connection_route(con, tostring(opts.endpoint), C.sb_vu_current()) ~= 0 then
    C.db_connection_free(con)
    error("connection creation failed", 2)
  end
  drive(con, C.db_connect_start(con))
  if C.db_connect_finish(con) ~= 0 then
    error("connection creation failed", 2)
  end
  return ffi.gc(con, C.db_connection_free)
end

function con_m.query(self, query)
  if sb_vu_query(self, query, #query, in_vu()) == 1 then
    co_yield()
  end
  local r = statement_result(self, db_async_result(self), query)
  return r
end

function con_m.prepare(self, query)
  drive(self, C.db_prepare_start(self, query, #query))
  local stmt = C.db_async_stmt(self)
  if stmt == nil then
    check_error(self, query, 3)
  end
  return stmt
end

function con_m.next_result(self)
  drive(self, db_next_result_start(self))
  local r = next_result_of(self, db_async_result(self), "<next result>")
  return r
end

function con_m.reconnect(self)
  drive(self, C.db_reconnect_start(self))
  if C.db_async_status(self) ~= 0 then
    error("connection creation failed", 2)
  end
end

-- con:route(what) on the worker's loop: the move's rebuild yields like a
-- reconnect (sysbench.sql's con:route has the checks and the message).
function con_m.route(self, what)
  what = tostring(what)
  drive(self, C.db_route_start(self, what, C.sb_vu_current()))
  if C.db_route_end(self, C.db_async_status(self)) ~= 0 then
    error(ffi.string(C.db_route_error()), 2)
  end
  return ffi.string(C.db_connection_endpoint(self))
end

-- Sends the buffered bulk rows; `what` names the API call in errors.
local function bulk_flush(self, what)
  drive(self, C.db_bulk_flush_start(self))
  if C.db_async_status(self) ~= 0 then
    if C.db_conn_error(self) ~= 0 then
      check_error(self, "<bulk insert>", 4)
    end
    error(what .. " failed", 3)
  end
end

do
  local add_row = con_m.bulk_insert_next
  function con_m.bulk_insert_next(self, row)
    if db_bulk_needs_flush(self, #row) then
      bulk_flush(self, "db_bulk_insert_next()")
    end
    -- the buffer has room now; a tail call keeps the error levels
    return add_row(self, row)
  end
end

function con_m.bulk_insert_done(self)
  bulk_flush(self, "db_bulk_insert_done()")
  C.db_bulk_insert_done(self)
end

-- One FFI call; the loop completes the execution in C (sb_vu_execute).
function stmt_m.execute(self)
  if sb_vu_execute(self, in_vu()) == 1 then
    co_yield()
  end
  -- the connection only for the error (a pointer less to box per query)
  local rs = sb_vu_stmt_result(self)
  local r = statement_result(rs == nil and db_stmt_connection(self) or nil, rs,
                             "<prepared statement>")
  return r
end

function stmt_m.next_result(self)
  local con = db_stmt_connection(self)
  drive(con, db_next_result_start(con))
  local r = next_result_of(con, db_async_result(con), "<prepared statement>")
  return r
end

function stmt_m.close(self)
  drive(db_stmt_connection(self), db_close_start(self))
end

-- sysbench.sql.raw: the C API's waiting calls, completed on the loop.
do
  local raw = sql.raw
  local db_prepare_start, db_async_stmt = C.db_prepare_start, C.db_async_stmt
  local db_pipeline_fetch_start = C.db_pipeline_fetch_start
  function raw.execute(stmt)
    if sb_vu_execute(stmt, in_vu()) == 1 then
      co_yield()
    end
    return sb_vu_stmt_result(stmt)
  end
  function raw.query(con, query, len)
    if sb_vu_query(con, query, len, in_vu()) == 1 then
      co_yield()
    end
    return db_async_result(con)
  end
  function raw.prepare(con, query, len)
    drive(con, db_prepare_start(con, query, len))
    return db_async_stmt(con)
  end
  function raw.next_result(con)
    drive(con, db_next_result_start(con))
    return db_async_result(con)
  end
  function raw.pipeline_fetch(con)
    drive(con, db_pipeline_fetch_start(con))
    return db_async_result(con)
  end
end

-- The hooks of the VU running now (sql_error_ignorable).
function sql.__hooks()
  local v = views[C.sb_vu_current()]
  return (v or S).hooks
end

-- sysbench.sleep: a timer of the worker's loop; blocking where a VU
-- cannot yield. Validation and the blocking form are the thread mode's.
do
  local base_sleep = S.sleep
  function S.sleep(seconds)
    if type(seconds) == "number" and seconds >= 0 and in_vu() then
      local r = sb_vu_sleep(seconds)
      if r == 1 then
        return co_yield() == 1
      elseif r >= 0 then
        return r == 2
      end
    end
    return base_sleep(seconds)
  end
end

-- ---- environments ----------------------------------------------------------------

-- require() of a VU: script modules (files on package.path) run once per
-- VU environment, each compiled once per worker; the embedded sysbench.*
-- modules, standard and C modules are shared by the worker's VUs.
local LOADING = {}

local function require_shared(name)
  local env = getfenv(0)
  setfenv(0, G)       -- a module loaded now belongs to every VU
  local ok, r = pcall(shared_require, name)
  setfenv(0, env)
  if not ok then
    error(r, 0)
  end
  return r
end

local function factory_of(name)
  local fac = factories[name]
  if fac ~= nil then
    return fac
  end
  local path = type(name) == "string" and package.searchpath(name, package.path)
  if not path then
    -- a bundled workload embedded in the binary (static or copied bmk)
    fac = type(name) == "string" and M.load_embedded_factory(name) or nil
    factories[name] = fac
    return fac
  end
  local f, err = M.load_factory(path)
  if f == nil and err ~= nil then
    error(err, 0)
  end
  -- precompiled bytecode cannot be wrapped: each VU loads its own copy
  fac = f or function()
    return assert(loadfile(path))
  end
  factories[name] = fac
  return fac
end

local function vu_require(E, loaded)
  return function(name)
    local v = loaded[name]
    if v ~= nil then
      if v == LOADING then
        error("loop or previous error loading module '" .. tostring(name) .. "'", 0)
      end
      return v
    end
    if package.loaded[name] ~= nil or package.preload[name] ~= nil then
      return require_shared(name)
    end
    local fac = factory_of(name)
    if fac == nil then
      return require_shared(name)     -- C modules, or the standard error
    end
    local chunk = fac()
    setfenv(chunk, E)
    loaded[name] = LOADING
    local r = chunk(name)
    if r == nil then
      r = true
    end
    loaded[name] = r
    return r
  end
end

-- Creates VU `tid`: its environment E (globals of its own, the worker's
-- shared globals behind them), its view V of `sysbench` (own tid, hooks
-- and options, the shared API behind them), and a coroutine that runs a
-- fresh closure of the script's main chunk in E.
function M.new_vu(tid)
  -- its own sysbench.cluster: `tid` is this VU's global thread id (the
  -- shared table's reads the process's sysbench.tid, -1 outside a VU);
  -- the rest is the shared table's
  local cluster = setmetatable({}, { __index = function(_, k)
    if k == "tid" then return tonumber(ffi.C.sb_cluster_global_tid(tid)) end
    return _G.sysbench.cluster[k]
  end })
  local V = setmetatable({tid = tid, hooks = {}, cluster = cluster}, view_chunk_mt)
  local E = setmetatable({sysbench = V, thread_id = tid}, env_mt)
  E._G = E
  E.require = vu_require(E, {})
  -- the default loop as a global, as sysbench.lua defines it in thread
  -- mode: a script that wraps it (local core = thread_run) gets this one
  E.thread_run = M.run
  local chunk
  if M.factory then
    chunk = M.factory()
  else
    chunk = assert(loadstring(M.bytecode, M.bytecode_name))
  end
  setfenv(chunk, E)
  local co = co_create(chunk)
  -- code loaded while the VU runs (loadstring, dofile) gets E too
  debug.setfenv(co, E)
  envs[tid], views[tid], threads[co] = E, V, tid
  return co
end

function M.chunk_done(tid)
  local V = views[tid]
  opt_mt = opt_mt or {__index = rawget(S, "opt")}
  setmetatable(V, view_mt)
  -- a script's writes to sysbench.opt stay in its VU
  rawset(V, "opt", setmetatable({}, opt_mt))
end

-- The function for a phase of VU `tid`: its global `name`, or for
-- thread_run the default loop below unless the script has its own.
function M.phase_function(tid, name)
  local E = envs[tid]
  if name == "thread_run" then
    local f = rawget(E, "thread_run")
    if type(f) == "function" then
      return f
    end
    return M.run
  end
  local f = E[name]
  if type(f) == "function" then
    return f
  end
  return nil
end

-- The default event loop of a VU: thread mode's (sysbench.lua), in the
-- VU's environment, with --rate arrivals waited for on the worker's timers.
local function more_events(tid)
  local m = sb_vu_more_events(tid)
  if m == 2 then
    m = co_yield()
  end
  return m == 1
end

-- The stop of the previous event, the next arrival and the start of the
-- next event in one FFI call (sb_vu_next_event).
local function next_event(tid, stop_prev)
  local m = sb_vu_next_event(tid, stop_prev)
  if m == 2 then
    m = co_yield()
    if m == 1 then
      sb_event_start(tid)
    end
  end
  return m == 1
end

function M.run(tid)
  return S.__event_loop(tid, more_events, envs[tid], next_event)
end

return M
