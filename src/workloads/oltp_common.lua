-- bmk bundled workload: code shared by the OLTP scripts.
--
-- Schema, data, statements and per-event query mix follow sysbench 1.1's
-- bundled OLTP scripts (its src/lua/oltp_common.lua), so results compare with
-- sysbench's. Scripts written for sysbench that require("oltp_common") and
-- call its global functions (prepare_point_selects, execute_index_updates,
-- begin, commit, check_reconnect, ...) work unchanged.

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, warmup, run, " ..
          "cleanup, help")
end

sysbench.cmdline.options = {
  table_size = {"Number of rows per table", 10000},
  range_size = {"Range size for range SELECT queries", 100},
  tables = {"Number of tables", 1},
  point_selects = {"Number of point SELECT queries per transaction", 10},
  simple_ranges = {"Number of simple range SELECT queries per transaction", 1},
  sum_ranges = {"Number of SELECT SUM() queries per transaction", 1},
  order_ranges = {"Number of SELECT ORDER BY queries per transaction", 1},
  distinct_ranges = {"Number of SELECT DISTINCT queries per transaction", 1},
  index_updates = {"Number of UPDATE index queries per transaction", 1},
  non_index_updates = {"Number of UPDATE non-index queries per transaction", 1},
  delete_inserts = {"Number of DELETE/INSERT combinations per transaction", 1},
  range_selects = {"Enable/disable all range SELECT queries", true},
  auto_inc = {"Use AUTO_INCREMENT column as Primary Key (for MySQL), " ..
                "or its alternatives in other DBMS. When disabled, use " ..
                "client-generated IDs", true},
  create_table_options = {"Extra CREATE TABLE options", ""},
  skip_trx = {"Don't start explicit transactions and execute all queries " ..
                "in the AUTOCOMMIT mode", false},
  secondary = {"Use a secondary index in place of the PRIMARY KEY", false},
  create_secondary = {"Create a secondary index in addition to the PRIMARY KEY",
                      true},
  reconnect = {"Reconnect after every N events. The default (0) is to not " ..
                 "reconnect", 0},
  mysql_storage_engine = {"Storage engine, if MySQL is used", "innodb"},
  pgsql_variant = {"Use this PostgreSQL variant when running with the " ..
                     "PostgreSQL driver. The only currently supported " ..
                     "variant is 'redshift'. When enabled, " ..
                     "create_secondary is automatically disabled, and " ..
                     "delete_inserts is set to 0"},
  -- bmk extension (docs/capacity.md "Load methods for prepare")
  load_method = {"How prepare loads the tables: multi (multi-row INSERTs, as " ..
                   "sysbench), insert (one row per INSERT, 1000 per transaction), " ..
                   "copy (PostgreSQL COPY FROM STDIN, MySQL LOAD DATA LOCAL INFILE)",
                 "multi", bmk = true},
  -- bmk extension (docs/endpoints.md)
  read_routing = {"With --endpoints: where the reads of a transaction go: " ..
                    "none (the transaction's connection), replicas (the " ..
                    "\"read\" route; writes and BEGIN/COMMIT stay on the " ..
                    "primary; not transactionally consistent)", "none", bmk = true},
}

local ffi = require("ffi")
ffi.cdef[[unsigned sb_endpoints_count(void);]]

-- 10 groups of 11 digits for c (119 chars), 5 for pad (59 chars)
local c_template = string.rep("###########", 10, "-")
local pad_template = string.rep("###########", 5, "-")

function get_c_value()
  return sysbench.rand.string(c_template)
end

function get_pad_value()
  return sysbench.rand.string(pad_template)
end

local function is_pgsql(d)
  return (d or drv):name() == "pgsql"
end

-- --pgsql-variant=redshift applies to the PostgreSQL driver only (the
-- driver itself rejects any other non-empty value).
local function redshift(d)
  return sysbench.opt.pgsql_variant == "redshift" and is_pgsql(d)
end

-- bmk: the smallest value each numeric option accepts; every value must
-- also be a whole number. Scripts add their own (select_random_points adds
-- random_points). An out-of-range value stops the command with one FATAL
-- line naming the option (sysbench would fail later with a Lua error, e.g.
-- an index into a missing table with --tables=0, or run nothing).
option_minimums = {
  tables = 1, table_size = 0, range_size = 0, point_selects = 0,
  simple_ranges = 0, sum_ranges = 0, order_ranges = 0, distinct_ranges = 0,
  index_updates = 0, non_index_updates = 0, delete_inserts = 0, reconnect = 0,
}

function check_options()
  local names = {}
  for name in pairs(option_minimums) do
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local v, min = sysbench.opt[name], option_minimums[name]
    if type(v) == "number" and (v < min or v ~= math.floor(v)) then
      error(string.format("Invalid value for --%s: %s (expected a whole number >= %d)",
                          name, tostring(v), min), 0)
    end
  end
  local rr = sysbench.opt.read_routing
  if rr ~= "none" and rr ~= "replicas" then
    error(string.format("Invalid value for --read-routing: %s (none or replicas)",
                        tostring(rr)), 0)
  end
  if rr == "replicas" and ffi.C.sb_endpoints_count() == 0 then
    error("--read-routing=replicas needs --endpoints=FILE (docs/endpoints.md)", 0)
  end
end

function init()
  assert(event ~= nil, "this script is meant to be included by other " ..
           "OLTP scripts and should not be called directly.")
  check_options()
end

-- Tables handled by thread `tid` in a parallel command: tid+1,
-- tid+1+threads, ... with the cluster's global thread ids and thread
-- count, so the processes of a cluster run (docs/cluster.md) share the
-- tables out and each table is loaded by one of them.
local function my_tables()
  local list = {}
  local cl = sysbench.cluster
  for n = cl.tid + 1, sysbench.opt.tables, cl.threads do
    list[#list + 1] = n
  end
  return list
end

-- Loads table_size rows into sbtest<table_num> with --load-method; the
-- same random draws in the same order (c, pad, then k, as sysbench)
-- whatever the method, so every method loads the same data.
local function load_rows(c, table_num)
  local method = sysbench.opt.load_method
  local auto_inc = sysbench.opt.auto_inc
  local n = sysbench.opt.table_size
  local tname = "sbtest" .. table_num
  local cols = auto_inc and "(k, c, pad)" or "(id, k, c, pad)"
  local function draw()
    local c_val = get_c_value()
    local pad_val = get_pad_value()
    return sysbench.rand.default(1, n), c_val, pad_val
  end
  local function values(i, k, c_val, pad_val)
    if auto_inc then
      return string.format("(%d, '%s', '%s')", k, c_val, pad_val)
    end
    return string.format("(%d, %d, '%s', '%s')", i, k, c_val, pad_val)
  end

  if method == "copy" then
    local ld = c:load_start(tname, auto_inc and {"k", "c", "pad"} or {"id", "k", "c", "pad"})
    for i = 1, n do
      local k, c_val, pad_val = draw()
      if auto_inc then
        ld:row(k, c_val, pad_val)
      else
        ld:row(i, k, c_val, pad_val)
      end
    end
    ld:finish()
  elseif method == "insert" then
    local prefix = "INSERT INTO " .. tname .. cols .. " VALUES "
    for i = 1, n do
      if i % 1000 == 1 then
        c:query("BEGIN")
      end
      c:query(prefix .. values(i, draw()))
      if i % 1000 == 0 or i == n then
        c:query("COMMIT")
      end
    end
  else
    c:bulk_insert_init("INSERT INTO " .. tname .. cols .. " VALUES")
    for i = 1, n do
      c:bulk_insert_next(values(i, draw()))
    end
    c:bulk_insert_done()
  end
end

function create_table(d, c, table_num)
  local id_def
  local engine = ""
  local key = sysbench.opt.secondary and "KEY xid" or "PRIMARY KEY"
  local pg = d:name() == "pgsql"

  if pg then
    if not sysbench.opt.auto_inc then
      id_def = "INTEGER NOT NULL"
    elseif redshift(d) then
      id_def = "INTEGER IDENTITY(1,1)"
    else
      id_def = "SERIAL"
    end
  else
    id_def = sysbench.opt.auto_inc and "INTEGER NOT NULL AUTO_INCREMENT"
      or "INTEGER NOT NULL"
    engine = "/*! ENGINE = " .. sysbench.opt.mysql_storage_engine .. " */"
  end

  print(string.format("Creating table 'sbtest%d'...", table_num))
  local key_clause = string.format(",\n  %s (id)", key)
  if pg and sysbench.opt.secondary then
    key_clause = ""
  end
  c:query(string.format([[
CREATE TABLE sbtest%d(
  id %s,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL%s
) %s %s]], table_num, id_def, key_clause, engine,
    sysbench.opt.create_table_options))
  if sysbench.opt.table_size > 0 then
    print(string.format("Inserting %d records into 'sbtest%d'",
                        sysbench.opt.table_size, table_num))
  end

  load_rows(c, table_num)

  -- bmk: PostgreSQL has no KEY clause in CREATE TABLE; with --secondary the
  -- id index is built after loading instead.
  if pg and sysbench.opt.secondary then
    c:query(string.format("CREATE INDEX xid_%d ON sbtest%d(id)", table_num, table_num))
  end

  if sysbench.opt.create_secondary and not redshift(d) then
    print(string.format("Creating a secondary index on 'sbtest%d'...", table_num))
    c:query(string.format("CREATE INDEX k_%d ON sbtest%d(k)", table_num, table_num))
  end
end

function cmd_prepare()
  check_options()
  local m = sysbench.opt.load_method
  if m ~= "multi" and m ~= "insert" and m ~= "copy" then
    error(string.format("--load-method must be multi, insert or copy, got '%s'",
                        tostring(m)), 0)
  end
  -- a split prepare (bmk cluster run): each process creates its own
  -- tables, so the others need not wait for process 0
  if sysbench.tid == 0 then sysbench.cluster.go() end
  local d = sysbench.sql.driver()
  local c = d:connect()
  for _, n in ipairs(my_tables()) do
    create_table(d, c, n)
  end
end

-- Loads each table into the buffer pool / shared buffers.
function cmd_prewarm()
  check_options()
  local d = sysbench.sql.driver()
  local c = d:connect()
  local pg = d:name() == "pgsql"
  if not pg then
    c:query("SET tmp_table_size=2*1024*1024*1024")
    c:query("SET max_heap_table_size=2*1024*1024*1024")
  end
  for _, n in ipairs(my_tables()) do
    local t = "sbtest" .. n
    print(string.format("Preloading table %s", t))
    if pg then
      c:query("ANALYZE " .. t)
      c:query(string.format(
        "SELECT AVG(id) FROM (SELECT * FROM %s ORDER BY id LIMIT %d) t",
        t, sysbench.opt.table_size))
      c:query(string.format(
        "SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k::text LIKE '%%0%%' LIMIT %d) t",
        t, sysbench.opt.table_size))
    else
      c:query("ANALYZE TABLE " .. t)
      c:query(string.format(
        "SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (PRIMARY) LIMIT %d) t",
        t, sysbench.opt.table_size))
      c:query(string.format(
        "SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k LIKE '%%0%%' LIMIT %d) t",
        t, sysbench.opt.table_size))
    end
  end
end

sysbench.cmdline.commands = {
  prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
  warmup = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
  prewarm = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
}

-- ---- statements ---------------------------------------------------------------

local T = sysbench.sql.type

-- Statement classes: SQL and parameter types ({type, max_len} for text).
local stmt_defs = {
  point_selects = {"SELECT c FROM sbtest%d WHERE id=?", T.INT},
  simple_ranges = {"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?", T.INT, T.INT},
  sum_ranges = {"SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?", T.INT, T.INT},
  order_ranges = {"SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
                  T.INT, T.INT},
  distinct_ranges = {"SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
                     T.INT, T.INT},
  index_updates = {"UPDATE sbtest%d SET k=k+1 WHERE id=?", T.INT},
  non_index_updates = {"UPDATE sbtest%d SET c=? WHERE id=?", {T.CHAR, 120}, T.INT},
  deletes = {"DELETE FROM sbtest%d WHERE id=?", T.INT},
  inserts = {"INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
             T.INT, T.INT, {T.CHAR, 120}, {T.CHAR, 60}},
}

-- stmt[table][class] and param[table][class][i], per thread (thread_init)
stmt = {}
param = {}

function prepare_begin()
  stmt.begin = con:prepare("BEGIN")
end

function prepare_commit()
  stmt.commit = con:prepare("COMMIT")
end

-- The statement groups that only read (--read-routing=replicas runs them
-- on rcon).
local read_keys = {point_selects = true, simple_ranges = true, sum_ranges = true,
                   order_ranges = true, distinct_ranges = true}

function prepare_for_each_table(key)
  local def = stmt_defs[key]
  for t = 1, sysbench.opt.tables do
    stmt[t] = stmt[t] or {}
    param[t] = param[t] or {}
    stmt[t][key] = (read_keys[key] and rcon or con):prepare(string.format(def[1], t))
    local p = {}
    for i = 2, #def do
      local d = def[i]
      if type(d) == "table" then
        p[#p + 1] = stmt[t][key]:bind_create(d[1], d[2])
      else
        p[#p + 1] = stmt[t][key]:bind_create(d)
      end
    end
    if #p > 0 then
      stmt[t][key]:bind_param(unpack(p))
    end
    param[t][key] = p
  end
end

function prepare_point_selects() prepare_for_each_table("point_selects") end
function prepare_simple_ranges() prepare_for_each_table("simple_ranges") end
function prepare_sum_ranges() prepare_for_each_table("sum_ranges") end
function prepare_order_ranges() prepare_for_each_table("order_ranges") end
function prepare_distinct_ranges() prepare_for_each_table("distinct_ranges") end
function prepare_index_updates() prepare_for_each_table("index_updates") end
function prepare_non_index_updates() prepare_for_each_table("non_index_updates") end

function prepare_delete_inserts()
  prepare_for_each_table("deletes")
  prepare_for_each_table("inserts")
end

-- One statement table and one parameter table per sbtest table, so that
-- scripts written for sysbench can index stmt[t] / param[t] directly.
local function reset_statement_tables()
  stmt = {}
  param = {}
  for t = 1, sysbench.opt.tables do
    stmt[t] = {}
    param[t] = {}
  end
end

function thread_init()
  drv = sysbench.sql.driver()
  -- oltp_route: the route a script's connection takes (oltp_read_only:
  -- "read"; nil: the default route), docs/endpoints.md
  con = drv:connect(oltp_route and {endpoint = oltp_route} or nil)
  rcon = con
  if sysbench.opt.read_routing == "replicas" then
    rcon = drv:connect{endpoint = "read"}
  end
  if redshift(drv) then
    sysbench.opt.delete_inserts = 0
  end
  reset_statement_tables()
  -- each script defines prepare_statements()
  prepare_statements()
end

function close_statements()
  for t = 1, sysbench.opt.tables do
    for _, s in pairs(stmt[t] or {}) do
      s:close()
    end
  end
  if stmt.begin then
    stmt.begin:close()
  end
  if stmt.commit then
    stmt.commit:close()
  end
  reset_statement_tables()
end

function thread_done()
  close_statements()
  if rcon ~= con then
    rcon:disconnect()
  end
  con:disconnect()
end

function cleanup()
  check_options()
  local d = sysbench.sql.driver()
  local c = d:connect()
  for n = 1, sysbench.opt.tables do
    print(string.format("Dropping table 'sbtest%d'...", n))
    c:query("DROP TABLE IF EXISTS sbtest" .. n)
  end
end

-- Statement groups combined by oltp_read_write / read_only / write_only.
function prepare_transaction()
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
  end
end

function prepare_reads()
  prepare_point_selects()
  if sysbench.opt.range_selects then
    prepare_simple_ranges()
    prepare_sum_ranges()
    prepare_order_ranges()
    prepare_distinct_ranges()
  end
end

function prepare_writes()
  prepare_index_updates()
  prepare_non_index_updates()
  prepare_delete_inserts()
end

-- For workloads that only use sbtest1 (select_random_*): prepare and
-- cleanup refuse --tables > 1.
function single_table_only()
  local function check()
    assert(sysbench.opt.tables == 1, "this benchmark does not support --tables > 1")
  end
  local base_prepare = sysbench.cmdline.commands.prepare[1]
  sysbench.cmdline.commands.prepare = {
    function() check(); base_prepare() end,
    sysbench.cmdline.PARALLEL_COMMAND
  }
  local base_cleanup = cleanup
  cleanup = function() check(); base_cleanup() end
end

-- The slice of k values thread `sysbench.tid` draws from in select_random_*:
-- len = table_size/threads (not rounded, as sysbench), bounds truncated;
-- global thread ids in a cluster run, so the processes' slices differ.
function thread_slice()
  local cl = sysbench.cluster
  local len = sysbench.opt.table_size / cl.threads
  local lo = cl.tid * len
  return math.floor(lo), math.floor(lo + len)
end

-- ---- event helpers ------------------------------------------------------------

local function get_table_num()
  return sysbench.rand.uniform(1, sysbench.opt.tables)
end

local function get_id()
  return sysbench.rand.default(1, sysbench.opt.table_size)
end

function begin()
  stmt.begin:execute()
end

function commit()
  stmt.commit:execute()
end

function execute_point_selects()
  local t = get_table_num()
  local s, p = stmt[t].point_selects, param[t].point_selects[1]
  for _ = 1, sysbench.opt.point_selects do
    p:set(get_id())
    s:execute()
  end
end

local function execute_range(key)
  local t = get_table_num()
  local s, p = stmt[t][key], param[t][key]
  for _ = 1, sysbench.opt[key] do
    local id = get_id()
    p[1]:set(id)
    p[2]:set(id + sysbench.opt.range_size - 1)
    s:execute()
  end
end

function execute_simple_ranges() execute_range("simple_ranges") end
function execute_sum_ranges() execute_range("sum_ranges") end
function execute_order_ranges() execute_range("order_ranges") end
function execute_distinct_ranges() execute_range("distinct_ranges") end

function execute_index_updates()
  local t = get_table_num()
  local s, p = stmt[t].index_updates, param[t].index_updates[1]
  for _ = 1, sysbench.opt.index_updates do
    p:set(get_id())
    s:execute()
  end
end

function execute_non_index_updates()
  local t = get_table_num()
  local s, p = stmt[t].non_index_updates, param[t].non_index_updates
  for _ = 1, sysbench.opt.non_index_updates do
    p[1]:set_rand_str(c_template)
    p[2]:set(get_id())
    s:execute()
  end
end

function execute_delete_inserts()
  local t = get_table_num()
  local ds, dp = stmt[t].deletes, param[t].deletes[1]
  local is, ip = stmt[t].inserts, param[t].inserts
  for _ = 1, sysbench.opt.delete_inserts do
    local id = get_id()
    local k = get_id()
    dp:set(id)
    ds:execute()
    ip[1]:set(id)
    ip[2]:set(k)
    ip[3]:set_rand_str(c_template)
    ip[4]:set_rand_str(pad_template)
    is:execute()
  end
end

function begin_transaction()
  if not sysbench.opt.skip_trx then
    begin()
  end
end

function commit_transaction()
  if not sysbench.opt.skip_trx then
    commit()
  end
end

function execute_reads()
  execute_point_selects()
  if sysbench.opt.range_selects then
    execute_simple_ranges()
    execute_sum_ranges()
    execute_order_ranges()
    execute_distinct_ranges()
  end
end

function execute_writes()
  execute_index_updates()
  execute_non_index_updates()
  execute_delete_inserts()
end

-- --reconnect=N: every N events of this thread, close the statements,
-- reconnect (counted) and prepare them again.
local events_since_reconnect = 0

function check_reconnect()
  if sysbench.opt.reconnect > 0 then
    events_since_reconnect = events_since_reconnect + 1
    if events_since_reconnect >= sysbench.opt.reconnect then
      close_statements()
      con:reconnect()
      if rcon ~= con then
        rcon:reconnect()
      end
      prepare_statements()
      events_since_reconnect = 0
    end
  end
end

-- After a lost connection the server-side statements are gone: prepare
-- them again before the event is restarted.
local lost_errnos = {[2006] = true, [2011] = true, [2013] = true, [2055] = true}
local lost_states = {["08000"] = true, ["08003"] = true, ["08006"] = true,
                     ["57P01"] = true, ["57P02"] = true, ["57P03"] = true}

function sysbench.hooks.before_restart_event(errdesc)
  if lost_errnos[errdesc.sql_errno] or
     (errdesc.sql_errno == 0 and lost_states[errdesc.sql_state]) then
    close_statements()
    prepare_statements()
  end
end
