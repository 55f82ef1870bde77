-- bmk internal module: sysbench.sql (sysbench-compat.md §5.5).
-- The C structures stay opaque (§5.6); everything goes through the db_*
-- functions of src/drivers/db_driver.c. Connections, statements and results are the
-- C pointers themselves, with methods attached by ffi.metatype, so the hot
-- path (execute / query) allocates no Lua objects.

local ffi = require("ffi")

ffi.cdef[[
sql_driver *db_create(const char *name);
const char *db_driver_name(const sql_driver *drv);
sql_connection *db_connection_create(sql_driver *drv);
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
int db_conn_error(const sql_connection *con);
int db_conn_sql_errno(const sql_connection *con);
const char *db_conn_sql_state(const sql_connection *con);
const char *db_conn_sql_errmsg(const sql_connection *con);
bool db_conn_closed(const sql_connection *con);
uint64_t db_result_nrows(const sql_result *rs);
uint32_t db_result_nfields(const sql_result *rs);
const char *db_row_value(const sql_row *row, const sql_result *rs, uint32_t i, size_t *len);
void db_print_error(const sql_connection *con);
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

-- Raises the right Lua error for the last failure on `con` (§5.5 Errors).
local function check_error(con, query, level)
  local rc = C.db_conn_error(con)
  if C.db_conn_closed(con) and rc == 0 then
    error("SQL API error", level)
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
    error(errdesc, level)
  end
  if rc == ERR_FATAL then
    local hook = sql.__hooks().sql_error_ignorable
    if hook and hook(errdesc) then
      errdesc.errcode = sysbench.error.RESTART_EVENT
      error(errdesc, level)
    end
  end
  C.db_print_error(con)
  error(string.format("SQL error, errno = %d, state = '%s': %s",
                      errdesc.sql_errno, errdesc.sql_state,
                      errdesc.sql_errmsg), level)
end

-- The API's value for a statement whose outcome is `rs` on `con`: the
-- result when it has columns, nil when it has none; on failure the error,
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
  return nil
end

-- The same for next_result(): nil when there is no further result.
local function next_result_of(con, rs, what)
  if rs == nil then
    if C.db_conn_error(con) ~= 0 then
      check_error(con, what, 4)
    end
    return nil
  end
  return rs
end

-- ---- driver -------------------------------------------------------------------

local driver_methods = {}

function driver_methods.connect(self)
  local con = C.db_connection_create(self)
  if con == nil then
    error("connection creation failed", 2)
  end
  return ffi.gc(con, C.db_connection_free)
end

function driver_methods.name(self)
  return ffi.string(C.db_driver_name(self))
end

ffi.metatype("sql_driver", { __index = driver_methods })

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
    error("db_free_results() failed", 2)
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
  end
})

-- ---- statements -----------------------------------------------------------------

local param_methods = {}
local param_mt = { __index = param_methods }

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

ffi.metatype("sql_statement", { __index = stmt_methods })

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

function con_methods.prepare(self, query)
  local stmt = C.db_prepare(self, query, #query)
  if stmt == nil then
    check_error(self, query, 3)
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
      check_error(self, "<bulk insert>", 3)
    end
    error("db_bulk_insert_next() failed", 2)
  end
end

function con_methods.bulk_insert_done(self)
  if C.db_bulk_insert_done(self) ~= 0 then
    if C.db_conn_error(self) ~= 0 then
      check_error(self, "<bulk insert>", 3)
    end
    error("db_bulk_insert_done() failed", 2)
  end
end

function con_methods.more_results(self)
  return C.db_more_results(self)
end

function con_methods.next_result(self)
  local r = next_result_of(self, C.db_next_result(self), "<next result>")
  return r
end

function con_methods.reconnect(self)
  if C.db_connection_reconnect(self) ~= 0 then
    error("connection creation failed", 2)
  end
end

function con_methods.disconnect(self)
  C.db_connection_close(self)
end

ffi.metatype("sql_connection", { __index = con_methods })

-- For the event-mode module (bmk.vu), which replaces the methods that
-- wait on the server with forms that yield to the worker's loop.
sql.__methods = { driver = driver_methods, connection = con_methods,
                  statement = stmt_methods, result = result_methods }
sql.__check_error = check_error
sql.__statement_result = statement_result
sql.__next_result_of = next_result_of

return sql
