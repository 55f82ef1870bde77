-- bmk kit OLTP: option table, alias resolution and validation
-- (docs/kit-oltp.md; stock options as sysbench's oltp_common.lua).
--
-- Loaded by kit_oltp.lua and the compat module oltp_common.lua. Sets
-- sysbench.cmdline.options at load time (the core reads it after the
-- top-level chunk) and defines the global table `kit` that the other kit
-- modules share within one Lua state.

kit = kit or {}

local ARG_INT = sysbench.cmdline.ARG_INT

sysbench.cmdline.options = {
  -- stock sysbench OLTP options, same texts and defaults
  table_size = {"Number of rows per table", 10000, ARG_INT},
  range_size = {"Range size for range SELECT queries", 100, ARG_INT},
  tables = {"Number of tables", 1, ARG_INT},
  point_selects = {"Number of point SELECT queries per transaction", 10, ARG_INT},
  simple_ranges = {"Number of simple range SELECT queries per transaction", 1, ARG_INT},
  sum_ranges = {"Number of SELECT SUM() queries per transaction", 1, ARG_INT},
  order_ranges = {"Number of SELECT ORDER BY queries per transaction", 1, ARG_INT},
  distinct_ranges = {"Number of SELECT DISTINCT queries per transaction", 1, ARG_INT},
  index_updates = {"Number of UPDATE index queries per transaction", 1, ARG_INT},
  non_index_updates = {"Number of UPDATE non-index queries per transaction", 1, ARG_INT},
  delete_inserts = {"Number of DELETE/INSERT combinations per transaction", 1, ARG_INT},
  range_selects = {"Enable/disable all range SELECT queries", true},
  auto_inc = {"Use AUTO_INCREMENT column as Primary Key (for MySQL), " ..
                "or its alternatives in other DBMS. When disabled, use " ..
                "client-generated IDs", true},
  create_table_options = {"Extra CREATE TABLE options", ""},
  skip_trx = {"Don't start explicit transactions and execute all queries " ..
                "in the AUTOCOMMIT mode", false},
  secondary = {"Use a secondary index in place of the PRIMARY KEY", false},
  create_secondary = {"Create a secondary index in addition to the PRIMARY KEY", true},
  reconnect = {"Reconnect after every N events. The default (0) is to not " ..
                 "reconnect", 0, ARG_INT},
  mysql_storage_engine = {"Storage engine, if MySQL is used", "innodb"},
  pgsql_variant = {"Use this PostgreSQL variant when running with the " ..
                     "PostgreSQL driver. The only currently supported " ..
                     "variant is 'redshift'. When enabled, " ..
                     "create_secondary is automatically disabled, and " ..
                     "delete_inserts is set to 0"},

  -- kit extensions (docs/kit-oltp.md)
  table_name = {"Table name prefix: tables <name><n>, index k_<n>", "sbtest"},
  extra_cols = {"Number of extra columns col1..colN after pad", 0, ARG_INT},
  extra_cols_type = {"Type of the extra columns", "VARCHAR(32)"},
  extra_cols_default = {"Value template of the extra columns (# digit, @ letter)",
                        "1234567890-1234567890-1234567890"},
  extra_cols_options = {"Text after the type of the extra columns, e.g. NOT NULL", ""},
  select_cols = {"Select list of point, simple-range and order-range SELECTs", "c"},
  select_star = {"Alias of --select-cols (on = '*', or a column list)"},
  by_secidx = {"Use k instead of id in the WHERE clause of point, range and " ..
                 "non-index UPDATE statements", false},
  rand_data = {"Percentage (0-100) of random characters in c/pad", 100, ARG_INT},
  rnd_data = {"Alias of --rand-data"},
  rand_loop = {"Id generator: 0 default, 1 chunk, 2 shift, 3 loop", 0, ARG_INT},
  rnd_loop = {"Alias of --rand-loop"},
  update_range_size = {"N > 0: UPDATEs change the rows of [id, id+N-1]", 0, ARG_INT},
  inserts_only = {"Number of auto-increment INSERTs per event (class 'inserts')", 1, ARG_INT},
  load_mode = {"Data load: original, parallel, parallel_ordered", "parallel"},
  load_bulk_size = {"Rows per load INSERT", 1000, ARG_INT},
  load_method = {"Load statements: multi (one INSERT of --load-bulk-size rows), " ..
                   "insert (one row per INSERT, --load-bulk-size per transaction), " ..
                   "copy (COPY FROM STDIN / LOAD DATA LOCAL INFILE of " ..
                   "--load-bulk-size rows)", "multi"},
  trx_retry = {"Retry a rolled-back transaction with the same ids", false},
  mysql_session_options = {"';'-separated statements run on every new MySQL " ..
                             "connection (else $MYSQL_SESSION_OPTIONS)", ""},
  pgsql_session_options = {"';'-separated statements run on every new PostgreSQL " ..
                             "connection (else $PGSQL_SESSION_OPTIONS)", ""},
  mysql_query_hint = {"Optimizer hint inserted as /*+ <hint> */ after the first " ..
                        "keyword of every run statement", ""},
  sleep_before_commit = {"Microseconds of sleep before COMMIT", 0, ARG_INT},
  sleep_after_query = {"Microseconds of sleep after each statement", 0, ARG_INT},
  mysql_table_partitions = {"N > 1: PARTITION BY RANGE (id) in N partitions", 0, ARG_INT},
  mysql_table_compression = {"Table COMPRESSION='<x>'", ""},
  mysql_table_options = {"Text appended after the ENGINE clause", ""},
  extra_query_before = {"SQL run at the start of each event", ""},
  extra_query_after = {"SQL run at the end of each event", ""},
  mysql_check_charset = {"Thread 0 prints the connection's character-set variables", false},
  opt_debug = {"Thread 0 prints every option", false},
  thread_offset = {"Global id of this process' thread 0", 0, ARG_INT},
  threads_total = {"Threads of all processes (0 = --threads)", 0, ARG_INT},
  statements = {"Statement classes run per event: point,simple,sum,order,distinct," ..
                  "index_update,non_index_update,delete_insert,inserts " ..
                  "(empty = read-write mix)", ""},
  reconnect_event = {"Reconnect workload: one connection per event", false},
}

-- Class order within an event and the option holding each class' count.
kit.CLASSES = {"point", "simple", "sum", "order", "distinct", "index_update",
               "non_index_update", "delete_insert", "inserts"}
kit.COUNT_OPT = {
  point = "point_selects", simple = "simple_ranges", sum = "sum_ranges",
  order = "order_ranges", distinct = "distinct_ranges",
  index_update = "index_updates", non_index_update = "non_index_updates",
  delete_insert = "delete_inserts", inserts = "inserts_only",
}
kit.CLASS_LABEL = {
  point = "point-SELECTs", simple = "simple-ranges", sum = "sum-ranges",
  order = "order-ranges", distinct = "distinct-ranges",
  index_update = "index-UPDATEs", non_index_update = "non-index-UPDATEs",
  delete_insert = "DELETE/INSERTs", inserts = "INSERTs-only",
}
local RANGE_CLASS = {simple = true, sum = true, order = true, distinct = true}

-- kit.fail(msg): raises a plain error that the core prints as FATAL and
-- that exits non-zero in every command and state.
function kit.fail(msg)
  error(msg, 0)
end

local mc = require("mysql_common")
local given = mc.given
kit.given = given

local TRUE = {on = true, ["true"] = true, yes = true, ["1"] = true}
local FALSE = {off = true, ["false"] = true, no = true, ["0"] = true}

-- Alias resolution: the alias value replaces the primary's, unless the
-- primary was also given with a different value (an error).
local function resolve_alias(alias, primary, convert)
  local o = sysbench.opt
  local av = o[alias]
  if av == nil or av == "" then
    return
  end
  local v = convert(av)
  if v == nil then
    return
  end
  if given(primary) ~= nil and tostring(o[primary]) ~= tostring(v) then
    kit.fail(string.format("option --%s=%s conflicts with its alias --%s=%s",
                           primary:gsub("_", "-"), tostring(o[primary]),
                           alias:gsub("_", "-"), av))
  end
  o[primary] = v
end

local function to_int(alias)
  return function(s)
    local n = tonumber(s)
    if n == nil or n ~= math.floor(n) then
      kit.fail(string.format("invalid value for --%s: '%s'", alias, s))
    end
    return n
  end
end

local function to_cols(s)
  local l = s:lower()
  if TRUE[l] then return "*" end
  if FALSE[l] then return nil end
  return s
end

local split_list = mc.split

-- kit.setup(drv_name): resolves aliases, validates, and fills `kit` with
-- derived settings. Idempotent per state. Raises on invalid options.
function kit.setup(drv_name)
  if kit.ready then
    return
  end
  local o = sysbench.opt
  resolve_alias("rnd_data", "rand_data", to_int("rnd-data"))
  resolve_alias("rnd_loop", "rand_loop", to_int("rnd-loop"))
  resolve_alias("select_star", "select_cols", to_cols)

  if o.rand_data < 0 or o.rand_data > 100 then
    kit.fail("--rand-data must be within 0..100, got " .. o.rand_data)
  end
  if o.rand_loop < 0 or o.rand_loop > 3 then
    kit.fail("--rand-loop must be 0, 1, 2 or 3, got " .. o.rand_loop)
  end
  if o.tables < 1 then
    kit.fail("--tables must be >= 1")
  end
  if o.table_size < 0 then
    kit.fail("--table-size must be >= 0")
  end
  if o.load_mode ~= "original" and o.load_mode ~= "parallel" and
     o.load_mode ~= "parallel_ordered" then
    kit.fail("--load-mode must be original, parallel or parallel_ordered, got '" ..
               o.load_mode .. "'")
  end
  if o.load_bulk_size < 1 then
    kit.fail("--load-bulk-size must be >= 1")
  end
  if o.load_method ~= "multi" and o.load_method ~= "insert" and o.load_method ~= "copy" then
    kit.fail("--load-method must be multi, insert or copy, got '" .. o.load_method .. "'")
  end
  if o.extra_cols < 0 or o.update_range_size < 0 or o.thread_offset < 0 or
     o.threads_total < 0 or o.sleep_after_query < 0 or o.sleep_before_commit < 0 then
    kit.fail("--extra-cols, --update-range-size, --thread-offset, --threads-total " ..
               "and the sleeps must be >= 0")
  end
  if o.table_name:match("^[%a_][%w_]*$") == nil then
    kit.fail("invalid --table-name: '" .. o.table_name .. "'")
  end

  kit.pg = drv_name == "pgsql"
  kit.name = o.table_name
  kit.S = o.table_size
  kit.U = o.threads_total > 0 and o.threads_total or o.threads
  if o.thread_offset + o.threads > kit.U then
    kit.fail(string.format("--thread-offset=%d + --threads=%d exceeds --threads-total=%d",
                           o.thread_offset, o.threads, kit.U))
  end

  -- statement classes and counts
  local list = split_list(o.statements, ",")
  local want = {}
  if #list == 0 then
    for i = 1, 8 do
      want[kit.CLASSES[i]] = true
    end
  else
    local known = {}
    for _, c in ipairs(kit.CLASSES) do known[c] = true end
    for _, c in ipairs(list) do
      if not known[c] then
        kit.fail("unknown statement class '" .. c .. "' in --statements (known: " ..
                   table.concat(kit.CLASSES, ",") .. ")")
      end
      want[c] = true
    end
  end
  if o.reconnect_event then
    want = {point = true}
    if o.point_selects < 1 then
      o.point_selects = 1
    end
  end
  if not o.range_selects then
    for c in pairs(RANGE_CLASS) do want[c] = nil end
  end
  if o.pgsql_variant == "redshift" and kit.pg then
    o.delete_inserts = 0
  end
  kit.active = {}
  for _, c in ipairs(kit.CLASSES) do
    if want[c] and o[kit.COUNT_OPT[c]] > 0 then
      kit.active[#kit.active + 1] = c
    end
  end

  -- SQL pieces
  local mysql_only = not kit.pg
  kit.hint = (mysql_only and o.mysql_query_hint ~= "") and
    ("/*+ " .. o.mysql_query_hint .. " */ ") or ""
  kit.key = o.by_secidx and "k" or "id"
  kit.cols = o.select_cols ~= "" and o.select_cols or "c"
  kit.session_text = mc.session_text(kit.pg)
  kit.session = split_list(kit.session_text, ";")

  -- c / pad templates: --rand-data % random, the rest fixed
  local rc = math.floor(o.rand_data * 119 / 100)
  local rp = math.floor(o.rand_data * 59 / 100)
  local rand_c = string.rep("###########", 10, "-")
  local fixed_c = string.rep("1234567890X", 10, "-")
  kit.c_template = rand_c:sub(1, rc) .. fixed_c:sub(1, 119 - rc)
  kit.pad_template = rand_c:sub(1, rp) .. fixed_c:sub(1, 59 - rp)
  kit.ready = true
end

-- MySQL-only options that were set, for the PostgreSQL notice.
local MYSQL_ONLY = {"mysql_query_hint", "mysql_table_partitions",
                    "mysql_table_compression", "mysql_table_options",
                    "mysql_session_options", "mysql_check_charset"}

-- Prints `=> --<opt> ignored on PostgreSQL` (or the PostgreSQL twin on
-- MySQL) for each set option that does not apply to this driver.
function kit.print_ignored()
  local o = sysbench.opt
  if kit.pg then
    for _, n in ipairs(MYSQL_ONLY) do
      local v = o[n]
      if v ~= nil and v ~= "" and v ~= 0 and v ~= false then
        print(string.format("=> --%s ignored on PostgreSQL", (n:gsub("_", "-"))))
      end
    end
  elseif o.pgsql_session_options ~= "" then
    print("=> --pgsql-session-options ignored on MySQL")
  end
end

-- --opt-debug: every script option, sorted, as `   opt: <name> : <value>`.
function kit.print_opt_debug()
  if not sysbench.opt.opt_debug then
    return
  end
  mc.print_options(sysbench.cmdline.options)
end
