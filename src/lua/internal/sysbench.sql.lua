-- bmk internal module: sysbench.sql, as sysbench's.
-- The C structures stay opaque, as in sysbench; everything goes through the
-- db_* functions of src/drivers/db_*.c. Connections, statements and results
-- are the C pointers themselves, with methods attached by ffi.metatype, so
-- the hot path (execute / query) allocates no Lua objects.

local ffi = require("ffi")

ffi.cdef[[
sql_driver *db_create(const char *name);
const char *db_driver_name(const sql_driver *drv);
sql_connection *db_connection_create(sql_driver *drv);
sql_connection *db_connection_create_route(sql_driver *drv, const char *what, int who);
int db_connection_route(sql_connection *con, const char *what, int who);
const char *db_connection_endpoint(const sql_connection *con);
int db_connection_move(sql_connection *con, const char *what, int who);
const char *db_route_error(void);
int db_connection_close(sql_connection *con);
int db_connection_reconnect(sql_connection *con);
void db_connection_free(sql_connection *con);
sql_result *db_query(sql_connection *con, const char *query, size_t len);
sql_statement *db_prepare(sql_connection *con, const char *query, size_t len);
int db_bind_create(sql_statement *stmt, int type, unsigned long max_len);
int db_bind_order(sql_statement *stmt, const int *handles, unsigned n);
void db_bind_set_null(sql_statement *stmt, int handle);
void db_bind_set_int(sql_statement *stmt, int handle, int64_t v);
void db_bind_set_double(sql_statement *stmt, int handle, double v);
void db_bind_set_str(sql_statement *stmt, int handle, const char *s, size_t len);
void db_bind_set_rand_str(sql_statement *stmt, int handle, const char *fmt);
sql_result *db_execute(sql_statement *stmt);
int db_close(sql_statement *stmt);
sql_connection *db_stmt_connection(sql_statement *stmt);
sql_row *db_fetch_row(sql_result *rs);
int db_free_results(sql_result *rs);
bool db_more_results(sql_connection *con);
sql_result *db_next_result(sql_connection *con);
int db_bulk_insert_init(sql_connection *con, const char *prefix, size_t len);
int db_bulk_insert_next(sql_connection *con, const char *row, size_t len);
int db_bulk_insert_done(sql_connection *con);
int db_load_start(sql_connection *con, const char *table, const char *const *cols, unsigned ncols);
int db_load_text(sql_connection *con, const char *s, size_t len);
int db_load_null(sql_connection *con);
int db_load_int(sql_connection *con, int64_t v);
int db_load_double(sql_connection *con, double v);
int db_load_end_row(sql_connection *con);
int db_load_rows(sql_connection *con, const char *text, size_t len);
int db_load_finish(sql_connection *con, uint64_t *rows, unsigned *statements);
void db_load_cancel(sql_connection *con, const char *why);
bool db_load_supported(const sql_connection *con);
int db_conn_error(const sql_connection *con);
int db_conn_sql_errno(const sql_connection *con);
const char *db_conn_sql_state(const sql_connection *con);
const char *db_conn_sql_errmsg(const sql_connection *con);
bool db_conn_closed(const sql_connection *con);
int db_conn_in_txn(sql_connection *con);
uint64_t db_result_nrows(const sql_result *rs);
uint32_t db_result_nfields(const sql_result *rs);
const char *db_row_value(const sql_row *row, const sql_result *rs, uint32_t i, size_t *len);
void db_print_error(const sql_connection *con);
int db_pipeline_begin(sql_connection *con);
int db_pipeline_query(sql_connection *con, const char *sql, size_t len);
int db_pipeline_execute(sql_statement *stmt);
int db_pipeline_sync(sql_connection *con);
sql_result *db_pipeline_fetch(sql_connection *con);
int db_pipeline_end(sql_connection *con);
]]

local C = ffi.C

sysbench.sql = {}
local sql = sysbench.sql

sql.type = {
  NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5,
  DOUBLE = 6, TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11,
  VARCHAR = 12
}

sql.error = { NONE = 0, IGNORABLE = 1, FATAL = 2 }

-- The hooks of the calling thread (event mode: of the running virtual
-- user, see bmk.vu).
function sql.__hooks()
  return sysbench.hooks
end

local ERR_IGNORABLE = sql.error.IGNORABLE
local ERR_FATAL = sql.error.FATAL

-- What query() and execute() return for a statement without a result set:
-- a NULL sql_result, as in sysbench (it compares equal to nil, prints as
-- "<sql_result>"; here nrows and nfields read 0 and free() is an invalid
-- free instead of a crash).
local NULL_RESULT = ffi.cast("sql_result *", nil)

-- Raises the right Lua error for the last failure on `con`, as sysbench.
-- The API methods tail-call it (`return check_error(...)`), as sysbench's
-- methods do, so that its error levels name the same positions as
-- sysbench's: an SQL error at `level` (default 2: the script's call), an
-- API error one above. Helpers between the method and this function pass
-- the level that reaches the script (e.g. 4 from statement_result).
local function check_error(con, query, level)
  level = level or 2
  local rc = C.db_conn_error(con)
  if C.db_conn_closed(con) and rc == 0 then
    error("SQL API error", level + 1)
  end
  local errdesc = {
    connection = con,
    query = query,
    sql_errno = C.db_conn_sql_errno(con),
    sql_state = ffi.string(C.db_conn_sql_state(con)),
    sql_errmsg = ffi.string(C.db_conn_sql_errmsg(con)),
  }
  if rc == ERR_IGNORABLE then
    errdesc.errcode = sysbench.error.RESTART_EVENT
    error(errdesc, level + 1)
  end
  -- The driver's FATAL lines come first, as sysbench's drivers print them
  -- when the statement fails, before the hook may ignore the error.
  C.db_print_error(con)
  if rc == ERR_FATAL then
    local hook = sql.__hooks().sql_error_ignorable
    if hook and hook(errdesc) then
      errdesc.errcode = sysbench.error.RESTART_EVENT
      error(errdesc, level + 1)
    end
  end
  error(string.format("SQL error, errno = %d, state = '%s': %s",
                      errdesc.sql_errno, errdesc.sql_state,
                      errdesc.sql_errmsg), level)
end

-- The API's value for a statement whose outcome is `rs` on `con`: the
-- result when it has columns, NULL_RESULT when it has none; on failure the error,
-- raised at the level of the script's call (so call this as
-- `local r = statement_result(...); return r`, never as a tail call, which
-- would drop a stack level). `what` names the statement in the error.
local function statement_result(con, rs, what)
  if rs == nil then
    check_error(con, what, 4)
  end
  if C.db_result_nfields(rs) > 0 then
    return rs
  end
  return NULL_RESULT
end

-- The same for next_result(): nil when there is no further result.
local function next_result_of(con, rs, what)
  if rs == nil then
    if C.db_conn_error(con) ~= 0 then
      check_error(con, what, 4)
    end
    return nil
  end
  -- a CALL's trailing status is no result set
  if C.db_result_nfields(rs) == 0 then
    return nil
  end
  return rs
end

-- ---- driver -------------------------------------------------------------------

local driver_methods = {}

-- drv:connect() / drv:connect{endpoint = NAME}: with --endpoints, NAME is
-- a route ("read", "write", an event type), an endpoint or a role
-- (docs/endpoints.md); the default route otherwise.
function driver_methods.connect(self, opts)
  local con
  if type(opts) == "table" and opts.endpoint ~= nil then
    con = C.db_connection_create_route(self, tostring(opts.endpoint), sysbench.tid or 0)
  else
    con = C.db_connection_create(self)
  end
  if con == nil then
    error("connection creation failed", 2)
  end
  return ffi.gc(con, C.db_connection_free)
end

function driver_methods.name(self)
  return ffi.string(C.db_driver_name(self))
end

-- tostring() of the API objects reads as in sysbench ("<sql_driver>", ...).
local function named(name)
  local text = "<" .. name .. ">"
  return function() return text end
end

ffi.metatype("sql_driver", { __index = driver_methods, __tostring = named("sql_driver") })

function sql.driver(name)
  local drv = C.db_create(name)
  if drv == nil then
    error("failed to initialize the DB driver", 2)
  end
  return drv
end

-- ---- results ------------------------------------------------------------------

local result_methods = {}

function result_methods.fetch_row(self)
  local row = C.db_fetch_row(self)
  if row == nil then
    return nil
  end
  local n = C.db_result_nfields(self)
  local len = ffi.new("size_t[1]")
  local t = {}
  for i = 0, n - 1 do
    local p = C.db_row_value(row, self, i, len)
    if p ~= nil then
      t[i + 1] = ffi.string(p, len[0])
    end
  end
  return t
end

function result_methods.free(self)
  if C.db_free_results(self) ~= 0 then
    -- no position, as sysbench's assert() message
    error("db_free_results() failed", 0)
  end
end

ffi.metatype("sql_result", {
  __index = function(self, key)
    if key == "nrows" then
      return tonumber(C.db_result_nrows(self))
    elseif key == "nfields" then
      return C.db_result_nfields(self)
    end
    return result_methods[key]
  end,
  __tostring = named("sql_result"),
})

-- ---- statements -----------------------------------------------------------------

local param_methods = {}
local param_mt = { __index = param_methods, __tostring = named("sql_param") }

function param_methods.set(self, v)
  if v == nil then
    C.db_bind_set_null(self.stmt, self.handle)
    return
  end
  local t = self.type
  if t <= 4 then
    C.db_bind_set_int(self.stmt, self.handle, v)
  elseif t <= 6 then
    C.db_bind_set_double(self.stmt, self.handle, v)
  else
    local s = tostring(v)
    C.db_bind_set_str(self.stmt, self.handle, s, #s)
  end
end

function param_methods.set_rand_str(self, fmt)
  C.db_bind_set_rand_str(self.stmt, self.handle, fmt)
end

local stmt_methods = {}

function stmt_methods.bind_create(self, btype, max_len)
  local h = C.db_bind_create(self, btype or 0, max_len or 0)
  if h < 0 then
    error(string.format("Unsupported argument type: %s", tostring(btype)), 2)
  end
  return setmetatable({ stmt = self, handle = h, type = btype }, param_mt)
end

function stmt_methods.bind_param(self, ...)
  local n = select('#', ...)
  if n == 0 then
    return nil
  end
  local handles = ffi.new("int[?]", n)
  for i = 1, n do
    local p = select(i, ...)
    handles[i - 1] = p.handle
  end
  if C.db_bind_order(self, handles, n) ~= 0 then
    error("db_bind_param() failed", 2)
  end
end

function stmt_methods.execute(self)
  local r = statement_result(C.db_stmt_connection(self), C.db_execute(self),
                             "<prepared statement>")
  return r
end

function stmt_methods.next_result(self)
  local con = C.db_stmt_connection(self)
  local r = next_result_of(con, C.db_next_result(con), "<prepared statement>")
  return r
end

function stmt_methods.close(self)
  C.db_close(self)
end

ffi.metatype("sql_statement", { __index = stmt_methods, __tostring = named("sql_statement") })

-- ---- connections ------------------------------------------------------------------

local con_methods = {}

function con_methods.query(self, query)
  local r = statement_result(self, C.db_query(self, query, #query), query)
  return r
end

function con_methods.query_row(self, query)
  local rs = con_methods.query(self, query)
  if rs == nil then
    return nil
  end
  local row = result_methods.fetch_row(rs)
  if row == nil then
    return nil
  end
  return unpack(row, 1, C.db_result_nfields(rs))
end

-- A statement the server refuses to prepare is an API error, as in
-- sysbench: the driver has printed its FATAL lines; "SQL API error" is
-- raised at the caller's position and the sql_error_ignorable hook is not
-- consulted. A lost connection the driver may ignore restarts the event.
function con_methods.prepare(self, query)
  local stmt = C.db_prepare(self, query, #query)
  if stmt == nil then
    if C.db_conn_error(self) == ERR_IGNORABLE then
      return check_error(self, query)
    end
    -- bmk: the cause, for workloads that explain the failure (the kit's
    -- "create and load the data set first"); not part of sysbench's API
    sysbench.__prepare_error = {
      sql_errno = C.db_conn_sql_errno(self),
      sql_state = ffi.string(C.db_conn_sql_state(self)),
      sql_errmsg = ffi.string(C.db_conn_sql_errmsg(self)),
    }
    error("SQL API error", 2)
  end
  return stmt
end

function con_methods.bulk_insert_init(self, prefix)
  if C.db_bulk_insert_init(self, prefix, #prefix) ~= 0 then
    error("db_bulk_insert_init() failed", 2)
  end
end

function con_methods.bulk_insert_next(self, row)
  if C.db_bulk_insert_next(self, row, #row) ~= 0 then
    if C.db_conn_error(self) ~= 0 then
      return check_error(self, "<bulk insert>")
    end
    error("db_bulk_insert_next() failed", 2)
  end
end

function con_methods.bulk_insert_done(self)
  if C.db_bulk_insert_done(self) ~= 0 then
    if C.db_conn_error(self) ~= 0 then
      return check_error(self, "<bulk insert>")
    end
    error("db_bulk_insert_done() failed", 2)
  end
end

-- ---- fast load (bmk; docs/lua-api.md "Fast load") ------------------------------
--
-- ld = con:load_start(table, {col, ...}) starts loading rows into `table`
-- through the driver's bulk path (PostgreSQL COPY FROM STDIN, MySQL LOAD
-- DATA LOCAL INFILE); ld:row(v1, ..., vn) adds a row (strings, numbers,
-- booleans as 1/0, nil = NULL), ld:rows(text) adds rows already in the
-- load format, ld:finish() sends the rest and returns the rows loaded and
-- the number of load statements. SQL errors are raised like con:query's.

local load_methods = {}
local load_mt = { __index = load_methods }
-- the loader currently active on each connection (stale loaders refuse)
local active_load = setmetatable({}, { __mode = "k" })

-- Raises the error of a failed db_load_* call: an SQL error (rc 1) like
-- con:query's, a misuse (rc -1, ALERT printed) as a plain error naming
-- the call.
local function load_error(con, rc, what, call, level)
  if rc > 0 or C.db_conn_error(con) ~= 0 then
    check_error(con, what, level + 1)
  end
  error(string.format("%s: %s failed (see the ALERT above)", what, call), level)
end

function con_methods.load_start(self, tbl, cols)
  if type(tbl) ~= "string" or type(cols) ~= "table" or #cols == 0 then
    error("con:load_start(table, {column, ...}): needs a table name and a " ..
            "list of column names", 2)
  end
  local n = #cols
  local arr = ffi.new("const char *[?]", n)
  for i = 1, n do
    if type(cols[i]) ~= "string" then
      error("con:load_start(): column " .. i .. " is not a string", 2)
    end
    arr[i - 1] = cols[i]
  end
  local rc = C.db_load_start(self, tbl, arr, n)
  if rc ~= 0 then
    load_error(self, rc, "<load into " .. tbl .. ">", "con:load_start()", 3)
  end
  local ld = setmetatable({ con = self, ncols = n, what = "<load into " .. tbl .. ">" },
                          load_mt)
  active_load[self] = ld
  return ld
end

-- Raises the error of a failed call of loader `ld` (rc ~= 0); an SQL
-- error (rc > 0) has ended the load, a misuse (rc < 0) has not.
local function load_failed(ld, rc, call)
  if rc > 0 then
    active_load[ld.con] = nil
  end
  load_error(ld.con, rc, ld.what, call, 4)
end

local function load_con(ld, call)
  local con = ld.con
  if active_load[con] ~= ld then
    error("ld:" .. call .. "(): this load is finished or was cancelled", 3)
  end
  return con
end

local floor = math.floor

function load_methods.row(self, ...)
  local con = load_con(self, "row")
  local n = select('#', ...)
  if n ~= self.ncols then
    error(string.format("ld:row(): %d values for %d columns", n, self.ncols), 2)
  end
  for i = 1, n do
    local v = select(i, ...)
    local t = type(v)
    local rc
    if t == "string" then
      rc = C.db_load_text(con, v, #v)
    elseif t == "number" then
      if v == floor(v) and v > -2^63 and v < 2^63 then
        rc = C.db_load_int(con, v)
      else
        rc = C.db_load_double(con, v)
      end
    elseif v == nil then
      rc = C.db_load_null(con)
    elseif t == "boolean" then
      rc = C.db_load_text(con, v and "1" or "0", 1)
    elseif t == "cdata" then
      rc = C.db_load_int(con, v)
    else
      error(string.format("ld:row(): value %d is a %s", i, t), 2)
    end
    if rc ~= 0 then
      load_failed(self, rc, "ld:row()")
    end
  end
  local rc = C.db_load_end_row(con)
  if rc ~= 0 then
    load_failed(self, rc, "ld:row()")
  end
end

function load_methods.rows(self, text)
  local con = load_con(self, "rows")
  if type(text) ~= "string" then
    error("ld:rows(text): text must be a string", 2)
  end
  local rc = C.db_load_rows(con, text, #text)
  if rc ~= 0 then
    load_failed(self, rc, "ld:rows()")
  end
end

function load_methods.finish(self)
  local con = load_con(self, "finish")
  local rows = ffi.new("uint64_t[1]")
  local stmts = ffi.new("unsigned[1]")
  local rc = C.db_load_finish(con, rows, stmts)
  if rc ~= 0 then
    load_failed(self, rc, "ld:finish()")
  end
  active_load[con] = nil
  return tonumber(rows[0]), tonumber(stmts[0])
end

function con_methods.more_results(self)
  return C.db_more_results(self)
end

function con_methods.next_result(self)
  local r = next_result_of(self, C.db_next_result(self), "<next result>")
  return r
end

-- ---- pipelines (bmk extension, PostgreSQL) ------------------------------------------
-- local p = con:pipeline(); p:query(sql); p:execute(stmt); local r = p:sync()
-- Statements are queued without waiting (a prepared statement with its
-- binds as they are when queued); sync() sends the batch in one round
-- trip and returns one entry per statement, in order:
-- { nrows = N, rows = { {col, ...}, ... } } (rows only for result sets).
-- An SQL error raises like con:query() after the batch is drained; the
-- statements after it in the batch were skipped by the server, and an
-- explicit transaction is left failed (send ROLLBACK). The object can take
-- the next batch after sync(). Raises "this driver has no pipeline mode"
-- on MySQL. Counted per statement by the C layer as its result is
-- fetched (read/write/other, or an error; skipped ones not at all).

local pipe_methods = {}
local pipe_mt = { __index = pipe_methods }

function con_methods.pipeline(self)
  return setmetatable({ con = self, queued = 0 }, pipe_mt)
end

local function pipe_open(p)
  if p.queued == 0 and C.db_pipeline_begin(p.con) ~= 0 then
    check_error(p.con, "<pipeline>", 4)
  end
end

local function pipe_abort(p, what)
  C.db_pipeline_end(p.con)
  p.queued = 0
  check_error(p.con, what, 4)
end

function pipe_methods.query(self, sql)
  pipe_open(self)
  if C.db_pipeline_query(self.con, sql, #sql) ~= 0 then pipe_abort(self, sql) end
  self.queued = self.queued + 1
end

function pipe_methods.execute(self, stmt)
  pipe_open(self)
  if C.db_pipeline_execute(stmt) ~= 0 then pipe_abort(self, "<prepared statement>") end
  self.queued = self.queued + 1
end

function pipe_methods.sync(self)
  local con = self.con
  local out = {}
  if self.queued == 0 then return out end
  if C.db_pipeline_sync(con) ~= 0 then pipe_abort(self, "<pipeline sync>") end
  local n = self.queued
  -- (looked up here: event mode's form waits on the worker's loop)
  local fetch = sql.raw.pipeline_fetch
  for i = 1, n do
    local rs = fetch(con)
    if rs == nil then pipe_abort(self, "<pipeline>") end
    local r = { nrows = tonumber(C.db_result_nrows(rs)) }
    if C.db_result_nfields(rs) > 0 then
      r.rows = {}
      local row = result_methods.fetch_row(rs)
      while row do
        r.rows[#r.rows + 1] = row
        row = result_methods.fetch_row(rs)
      end
    end
    out[i] = r
  end
  fetch(con)                      -- the sync point
  C.db_pipeline_end(con)
  self.queued = 0
  return out
end

function con_methods.reconnect(self)
  if C.db_connection_reconnect(self) ~= 0 then
    error("connection creation failed", 2)
  end
end

-- The endpoint's name ("" without --endpoints).
function con_methods.endpoint(self)
  return ffi.string(C.db_connection_endpoint(self))
end

-- con:route(what): moves the open connection to the endpoint that route,
-- endpoint or role `what` picks (docs/lua-api.md); returns its name.
function con_methods.route(self, what)
  if C.db_connection_move(self, tostring(what), sysbench.tid or 0) ~= 0 then
    error(ffi.string(C.db_route_error()), 2)
  end
  return ffi.string(C.db_connection_endpoint(self))
end

function con_methods.disconnect(self)
  C.db_connection_close(self)
end

ffi.metatype("sql_connection", { __index = con_methods, __tostring = named("sql_connection") })

-- sysbench.sql.raw (bmk): the C calls that wait for the server, for
-- scripts that use the C API through the FFI on their hot path (tpcc):
-- the same arguments and results as the C functions of db_driver.h
-- (pointers, NULL on error, the error on the connection). Here, in thread
-- mode, they are those functions; event mode (bmk.vu) puts in forms that
-- let the worker's other virtual users run while the server answers.
-- Calling the C functions directly from a virtual user blocks its worker
-- (counted: docs/lua-api.md "Event mode").
sql.raw = {
  execute = C.db_execute,                 -- (stmt) -> sql_result*
  query = C.db_query,                     -- (con, sql, len) -> sql_result*
  prepare = C.db_prepare,                 -- (con, sql, len) -> sql_statement*
  next_result = C.db_next_result,         -- (con) -> sql_result*
  pipeline_fetch = C.db_pipeline_fetch,   -- (con) -> sql_result*
}

-- For the event-mode module (bmk.vu), which replaces the methods that
-- wait on the server with forms that yield to the worker's loop.
sql.__methods = { driver = driver_methods, connection = con_methods,
                  statement = stmt_methods, result = result_methods }
sql.__check_error = check_error
sql.__statement_result = statement_result
sql.__next_result_of = next_result_of

return sql
