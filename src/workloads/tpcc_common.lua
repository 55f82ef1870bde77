-- bmk bundled workload `tpcc` (TPROC-C-style, derived from TPC-C; results
-- are not TPC-C results): options, configuration, FFI declarations,
-- connections and session setup, the bookkeeping tables. Spec:
-- docs/tpcc.md (bmk's decisions) and the TPC-C standard's clauses.
--
-- The entry script is tpcc.lua; this module is required by it and by the
-- other tpcc_*.lua modules. sysbench-tpcc ships modules of the same names
-- (tpcc_common, tpcc_run, tpcc_check): its scripts must be run from their
-- own directory so that theirs are found first, which the guard below
-- turns into a clear message instead of a confusing failure.

if not BMK_TPCC then
  error("tpcc_common.lua here is bmk's bundled module, loaded by a script that " ..
          "is not bmk's tpcc.lua (sysbench-tpcc?): run that script from its own " ..
          "directory so its own tpcc_common.lua is found first", 0)
end

local ffi = require("ffi")
-- workload_util declares core/sb_shared.h's functions (sb_shared_*)
local util = require("workload_util")
-- workload_replicas declares core/sb_endpoints.h's accessors (sb_endpoints_*)
require("workload_replicas")

ffi.cdef[[
typedef struct { uint64_t s[2]; } sb_rand_stream_t;
void sb_tpcc_seed(sb_rand_stream_t *r, uint64_t seed, int64_t a, int64_t b,
                  int64_t c, int64_t d);
uint64_t sb_tpcc_run_seed(void);
int64_t sb_tpcc_rand(sb_rand_stream_t *r, int64_t x, int64_t y);
double sb_tpcc_rand_double(sb_rand_stream_t *r);
int32_t sb_tpcc_nurand(sb_rand_stream_t *r, int32_t A, int32_t x, int32_t y,
                       int32_t C);
size_t sb_tpcc_lastname(int32_t num, char *buf);
size_t sb_tpcc_astring(sb_rand_stream_t *r, char *buf, int32_t min, int32_t max);
int32_t sb_tpcc_remote_wh(sb_rand_stream_t *r, int32_t home, int32_t scale);
bool sb_tpcc_c_delta_ok(int32_t c_load, int32_t c_run);
int32_t sb_tpcc_c_run(sb_rand_stream_t *r, int32_t c_load);
int64_t sb_tpcc_think_ms(sb_rand_stream_t *r, double mean_ms);
void sb_tpcc_shuffle(sb_rand_stream_t *r, int32_t *a, int32_t n);
int64_t sb_tpcc_parse_fixed(const char *p, size_t len, int scale, bool *ok);
size_t sb_tpcc_fmt_fixed(char *buf, int64_t v, int scale);

void sb_shared_mark(void);
void sb_shared_marked(uint64_t *out);
int sb_shared_code_id(const char *code);
const char *sb_shared_code_name(int id);
int sb_shared_code_count(void);

/* the SQL layer's db_* functions come from sysbench.sql's declarations */
sql_statement *db_prepare_text(sql_connection *con, const char *query, size_t len);
void db_connection_uncounted(sql_connection *con);
bool sb_engine_stopping(void);
int sb_server_stats_xacts(int which, bool all_dbs, uint64_t *out);
const char *sb_server_stats_version(void);
void *memmem(const void *haystack, size_t hlen, const void *needle, size_t nlen);
]]

local C = ffi.C
local M = {}

M.C = C
M.ffi = ffi

-- ---- options ------------------------------------------------------------------
-- Defaults are sysbench-tpcc's and BMK-kit's; names are written with
-- underscores, and the core treats '-' and '_' alike (--use_fk = --use-fk).

local A = sysbench.cmdline
M.options = {
  -- sysbench-tpcc
  scale = {"Warehouses per set of tables (1..32767)", 100},
  tables = {"Number of table sets", 1},
  use_fk = {"Foreign keys: 0 none but FK-supporting indexes, 1 keys and indexes, " ..
              "2 neither", 1},
  force_pk = {"1: an auto-increment primary key on history", 0},
  trx_level = {"Transaction isolation level: RC, RR or SER", "RR"},
  enable_purge = {"Add the purge transaction (yes, no)", "no"},
  report_csv = {"Interval lines in sysbench's CSV form (yes, no)", "no"},
  pgsql_schema = {"PostgreSQL schema of the tables", "public"},
  mysql_storage_engine = {"Storage engine, if MySQL is used", "innodb"},
  mysql_table_options = {"Extra table options, if MySQL is used", ""},
  splittable = {"START TRANSACTION READ WRITE/READ ONLY for read/write-splitting " ..
                  "proxies (yes, no)", "no"},
  -- BMK-kit
  trx_retry = {"Replay a transaction with the same inputs after a retryable " ..
                 "error until it commits (on, off)", "off"},
  trx_debug = {"Run one transaction type only: 1 New-Order, 2 Payment, " ..
                 "3 Order-Status, 4 Delivery, 5 Stock-Level (0 = the mix)", 0},
  for_update = {"FOR UPDATE clauses: 0 none, 1 the spec's, 2 also the Delivery " ..
                  "orders and Payment by-name selects", 1},
  force_primary = {"1: FORCE INDEX (PRIMARY) on the order_line statements (MySQL)", 0},
  force_null = {"1: undelivered o_carrier_id/ol_delivery_d are NULL; 0: NOT NULL " ..
                  "with DEFAULT sentinels", 1},
  mysql_table_compression = {"COMPRESSION='ALG' on MySQL tables", ""},
  mysql_session_options = {"Statements run on every new connection, ';'-separated", ""},
  -- bmk's own
  fk_checks = {"MySQL FOREIGN_KEY_CHECKS in the sessions (on, off)", "on"},
  partition = {"Partitioning: none or hash (by warehouse)", "none"},
  partitions = {"Hash partitions: N or auto (scale/100 from scale 200)", "auto"},
  partition_tables = {"Tables to partition (comma list)", "order_line"},
  data_profile = {"Data: spec, or compressible (sysbench-tpcc's repeated characters)", "spec"},
  nurand_c = {"Run NURand constants C_LAST,C_ID,C_OL_I_ID (default: drawn per run)", ""},
  load_batch = {"Rows per INSERT, COPY or LOAD DATA statement when loading; 0 = 1000 for INSERT, 10000 for the fast path", 0},
  load_method = {"Load with auto (PostgreSQL: COPY; MySQL: LOAD DATA LOCAL INFILE when the server's local_infile is ON, else INSERT), insert (multi-row INSERT), or copy / infile (the fast path: PostgreSQL COPY FROM STDIN, MySQL LOAD DATA LOCAL INFILE)", "auto"},
  index_build = {"Secondary indexes after or before the load", "after"},
  resume = {"Continue an interrupted prepare", false},
  force = {"Drop an existing or half-loaded schema and prepare again", false},
  delivery_commit = {"Delivery commits once (trx) or per district (district)", "trx"},
  purge_weight = {"Weight of purge in the mix (0 = the Delivery weight)", 0},
  trx_retry_max = {"Attempts after the first with --trx-retry=on (0 = unlimited)", 0},
  trx_retry_codes = {"More retryable error codes (MySQL errno or SQLSTATE), comma list", ""},
  tpcc_mode = {"Execution: ps (prepared), text, sp (stored procedures), pipeline " ..
                 "(PostgreSQL)", "ps"},
  pg_routines = {"PostgreSQL sp mode routines: procedure or function", "procedure"},
  mix = {"Weights NO,P,OS,D,SL, or sysbench (10,10,1,1,1 drawn at random)", "45,43,4,4,4"},
  mix_draw = {"deck (shuffled deck per session) or random", "deck"},
  keying_thinking = {"Keying and thinking times of the spec (on, off)", "off"},
  kt_scale = {"Factor on keying and thinking times", 1},
  warehouse_pick = {"home (session's home warehouse), all (a list per session) " ..
                      "or random (per transaction)", "home"},
  all_warehouses = {"Same as --warehouse-pick=all", false},
  home_assign = {"Home warehouses: spread or random", "spread"},
  terminals_per_warehouse = {"Terminals per warehouse (keying/thinking model)", 10},
  tpm_scope = {"PostgreSQL TPM: all databases or db (the current one)", "all"},
  rollback_as_error = {"Count the intended New-Order rollbacks as errors (on, off)", "off"},
  tpcc_report = {"Per-interval, per-type rows to FILE.csv or FILE.json", ""},
  checks = {"check: conditions to run, e.g. 1,2,8 (default all 12)", ""},
  replica_wait = {"check (chbench run: before the streams) with --endpoints: seconds to wait " ..
                   "for each replica to catch up with the primary", 300},
  audit = {"Run-rule audit after run (on, off)", "on"},
  audit_min_neworders = {"Fewest New-Orders for an audit verdict", 10000},
  -- kit runs split over several processes (sb11_MAX)
  thread_offset = {"Global id of this process's first thread (multi-process runs)", 0},
  threads_total = {"Threads over all processes; 0 means --threads", 0},
}

-- ---- configuration -----------------------------------------------------------

local fail, yesno = util.fail, util.yesno
M.fail = fail

local function int_opt(name, lo, hi)
  local v = tonumber(sysbench.opt[name])
  local dash = name:gsub("_", "-")
  if v == nil or v ~= math.floor(v) then
    fail("--%s must be an integer (got '%s')", dash, tostring(sysbench.opt[name]))
  end
  if (lo and v < lo) or (hi and v > hi) then
    fail("--%s must be in %s..%s (got %d)", dash, tostring(lo), tostring(hi or "∞"), v)
  end
  return v
end

local function one_of(name, allowed)
  local v = tostring(sysbench.opt[name] or ""):lower()
  for _, a in ipairs(allowed) do
    if v == a then return v end
  end
  fail("--%s must be one of %s (got '%s')", name:gsub("_", "-"),
       table.concat(allowed, ", "), tostring(sysbench.opt[name]))
end

local function csv_list(s)
  local t = {}
  for x in tostring(s or ""):gmatch("[^,%s]+") do t[#t + 1] = x end
  return t
end
M.csv_list = csv_list

-- The mix: weights {no, p, os, d, sl} and whether draws are random.
local function parse_mix(o)
  local v = tostring(o.mix or "")
  if v:lower() == "sysbench" then
    return {10, 10, 1, 1, 1}, true
  end
  local w = csv_list(v)
  if #w ~= 5 then
    fail("--mix must be 5 integer weights NO,P,OS,D,SL or 'sysbench' (got '%s')", v)
  end
  local sum = 0
  for i = 1, 5 do
    w[i] = tonumber(w[i])
    if not w[i] or w[i] < 0 or w[i] ~= math.floor(w[i]) then
      fail("--mix weights must be integers >= 0 (got '%s')", v)
    end
    sum = sum + w[i]
  end
  if sum == 0 then fail("--mix weights must not all be 0") end
  return w, false
end

local function parse_nurand(v)
  if v == nil or v == "" then return nil end
  local t = csv_list(v)
  local lim = {255, 1023, 8191}
  if #t ~= 3 then
    fail("--nurand-c must be C_LAST,C_ID,C_OL_I_ID (got '%s')", v)
  end
  for i = 1, 3 do
    t[i] = tonumber(t[i])
    if not t[i] or t[i] < 0 or t[i] > lim[i] or t[i] ~= math.floor(t[i]) then
      fail("--nurand-c: value %d must be an integer in 0..%d (got '%s')", i, lim[i], v)
    end
  end
  return t
end

local function trx_level(v)
  local map = { RC = "RC", RR = "RR", SER = "SER", ["READ-COMMITTED"] = "RC",
                ["REPEATABLE-READ"] = "RR", SERIALIZABLE = "SER" }
  local l = map[tostring(v):upper()]
  if not l then fail("--trx-level must be RC, RR or SER (got '%s')", tostring(v)) end
  return l
end

-- Which driver the run uses, without connecting (--db-driver, default
-- mysql as in sysbench).
local function driver_name()
  local d = sysbench.opt.db_driver
  if d == nil or d == "" then d = "mysql" end
  return d
end

-- Schema options.
local function schema_options(c, o)
  c.scale = int_opt("scale", 1, 32767)
  c.tables = int_opt("tables", 1, 1000)
  c.warehouses = c.scale * c.tables
  c.use_fk = int_opt("use_fk", 0, 2)
  c.force_pk = int_opt("force_pk", 0, 1) == 1
  c.null_variant = int_opt("force_null", 0, 1) == 1
  c.schema = tostring(o.pgsql_schema or "public")
  if not c.schema:match("^[%a_][%w_]*$") then
    fail("--pgsql-schema must be a plain identifier (got '%s')", c.schema)
  end
  c.engine = tostring(o.mysql_storage_engine or "innodb")
  c.table_options = tostring(o.mysql_table_options or "")
  c.compression = tostring(o.mysql_table_compression or "")
  c.partition = one_of("partition", {"none", "hash"})
  local parts = tostring(o.partitions or "auto"):lower()
  if parts == "auto" then
    c.partitions = c.scale >= 200 and math.floor(c.scale / 100 + 0.5) or 0
  else
    c.partitions = tonumber(parts)
    if not c.partitions or c.partitions < 1 or c.partitions ~= math.floor(c.partitions) then
      fail("--partitions must be auto or an integer >= 1 (got '%s')", tostring(o.partitions))
    end
  end
  if c.partition == "none" then c.partitions = 0 end
  c.partition_tables = {}
  for _, t in ipairs(csv_list(o.partition_tables)) do
    if not M.WCOL[t] then fail("--partition-tables: '%s' cannot be partitioned by warehouse", t) end
    c.partition_tables[t] = true
  end
  if c.partitions > 0 and not c.pg and c.use_fk == 1 then
    fail("--partition=hash needs --use-fk=0 or 2 on MySQL: InnoDB has no foreign keys " ..
           "on partitioned tables")
  end
end

-- c.load_batch's default (0 given) for the method chosen: 10000 rows per
-- fast-path statement, 1000 per INSERT; unchanged while the method is
-- still "auto".
function M.default_load_batch(c)
  if c.load_batch == 0 and c.load_method ~= "auto" then
    c.load_batch = c.load_method == "copy" and 10000 or 1000
  end
end

-- Load options.
local function load_options(c, o)
  c.data_profile = one_of("data_profile", {"spec", "compressible"})
  c.load_method = one_of("load_method", {"auto", "insert", "infile", "copy"})
  if c.load_method == "infile" then
    c.load_method = "copy"             -- one fast path, named either way
  elseif c.load_method == "auto" and c.pg then
    c.load_method = "copy"
  end
  -- MySQL's auto stays "auto" until a load connection can read the
  -- server's local_infile (tpcc_load.lua, resolve_load_method); the
  -- batch's default follows the method
  c.load_batch = int_opt("load_batch", 0, 100000)
  M.default_load_batch(c)
  c.index_build = one_of("index_build", {"after", "before"})
  c.resume = o.resume == true
  c.force = o.force == true
end

-- Session and transaction options.
local function transaction_options(c, o)
  c.trx_level = trx_level(o.trx_level)
  c.purge = yesno("enable_purge", o.enable_purge)
  c.splittable = yesno("splittable", o.splittable)
  c.retry = yesno("trx_retry", o.trx_retry)
  c.retry_max = int_opt("trx_retry_max", 0)
  c.retry_codes = {}
  for _, x in ipairs(csv_list(o.trx_retry_codes)) do c.retry_codes[x:upper()] = true end
  c.trx_debug = int_opt("trx_debug", 0, 5)
  c.for_update = int_opt("for_update", 0, 2)
  c.force_primary = int_opt("force_primary", 0, 1) == 1
  c.session_sql = {}
  for s in tostring(o.mysql_session_options or ""):gmatch("[^;]+") do
    if s:match("%S") then c.session_sql[#c.session_sql + 1] = s end
  end
  c.fk_checks = yesno("fk_checks", o.fk_checks)
  c.nurand_c = parse_nurand(o.nurand_c)
  c.delivery_commit = one_of("delivery_commit", {"trx", "district"})
  c.purge_weight = int_opt("purge_weight", 0, 1000000)
  c.mode = one_of("tpcc_mode", {"ps", "text", "sp", "pipeline"})
  if c.mode == "ps" and o.db_ps_mode == "disable" then c.mode = "text" end
  if c.mode == "pipeline" and not c.pg then
    fail("--tpcc-mode=pipeline needs PostgreSQL (libpq pipeline mode); use ps, text " ..
           "or sp on MySQL")
  end
  c.pg_routines = one_of("pg_routines", {"procedure", "function"})
end

-- Mix, pacing, warehouse model and sessions (the sessions are the
-- engine's virtual users: --async-sessions, --login-delay).
local function pacing_options(c, o)
  c.mix, c.mix_random = parse_mix(o)
  c.mix_sysbench = tostring(o.mix):lower() == "sysbench"
  if one_of("mix_draw", {"deck", "random"}) == "random" then c.mix_random = true end
  c.kt = yesno("keying_thinking", o.keying_thinking)
  c.kt_scale = tonumber(o.kt_scale)
  if not c.kt_scale or c.kt_scale < 0 then
    fail("--kt-scale must be a number >= 0 (got '%s')", tostring(o.kt_scale))
  end
  if c.kt and (tonumber(o.rate) or 0) > 0 then
    fail("--keying-thinking=on and --rate exclude each other")
  end
  c.pick = one_of("warehouse_pick", {"home", "all", "random"})
  if o.all_warehouses == true then c.pick = "all" end
  c.home_assign = one_of("home_assign", {"spread", "random"})
  c.terminals = int_opt("terminals_per_warehouse", 1, 1000)
  c.thread_offset = int_opt("thread_offset", 0)
  c.threads = tonumber(o.threads) or 1
  c.sessions = int_opt("threads_total", 0)
  -- a cluster run (docs/cluster.md): this process's sessions are
  -- index * threads .. of size * threads, unless given explicitly
  local cl = sysbench.cluster
  if cl.size > 1 and c.sessions == 0 and c.thread_offset == 0 then
    c.thread_offset = cl.index * c.threads
    c.sessions = cl.size * c.threads
  end
  if c.sessions == 0 then c.sessions = c.threads end
  if c.thread_offset + c.threads > c.sessions then
    fail("--thread-offset + --threads exceeds --threads-total")
  end
end

-- Reports, check and audit.
local function report_options(c, o)
  c.report_csv = yesno("report_csv", o.report_csv)
  c.tpm_scope = one_of("tpm_scope", {"all", "db"})
  c.rollback_as_error = yesno("rollback_as_error", o.rollback_as_error)
  c.tpcc_report = tostring(o.tpcc_report or "")
  if c.tpcc_report ~= "" and not (c.tpcc_report:match("%.csv$") or c.tpcc_report:match("%.json$")) then
    fail("--tpcc-report must name a .csv or .json file (got '%s')", c.tpcc_report)
  end
  c.checks = {}
  local clist = csv_list(o.checks)
  if #clist == 0 then for i = 1, 12 do c.checks[i] = true end end
  for _, x in ipairs(clist) do
    local n = tonumber(x)
    if not n or n < 1 or n > 12 or n ~= math.floor(n) then
      fail("--checks must list condition numbers 1..12 (got '%s')", tostring(o.checks))
    end
    c.checks[n] = true
  end
  c.replica_wait = int_opt("replica_wait", 1)
  c.audit = yesno("audit", o.audit)
  c.audit_min_no = int_opt("audit_min_neworders", 0)
end

-- M.config(): the validated options as a plain table (cached per Lua
-- state). Raises one error message (no Lua position) for bad input.
local cfg_cache
function M.config()
  if cfg_cache then return cfg_cache end
  local o = sysbench.opt
  local c = {}
  c.driver = driver_name()
  if c.driver ~= "mysql" and c.driver ~= "pgsql" then
    fail("the tpcc workload supports --db-driver=mysql and pgsql (got '%s')", c.driver)
  end
  c.pg = c.driver == "pgsql"
  schema_options(c, o)
  load_options(c, o)
  transaction_options(c, o)
  pacing_options(c, o)
  report_options(c, o)
  cfg_cache = c
  return c
end

-- ---- names --------------------------------------------------------------------

-- Table `name` of set n ("order_line", 3 -> "order_line3").
function M.tname(name, n)
  return name .. n
end

M.TABLES = {"warehouse", "district", "customer", "history", "orders",
            "new_orders", "order_line", "stock", "item"}

-- The column holding the warehouse id, for key-range deletes and
-- partitioning.
M.WCOL = { warehouse = "w_id", district = "d_w_id", customer = "c_w_id",
           history = "h_w_id", orders = "o_w_id", new_orders = "no_w_id",
           order_line = "ol_w_id", stock = "s_w_id" }
M.DCOL = { district = "d_id", customer = "c_d_id", history = "h_d_id",
           orders = "o_d_id", new_orders = "no_d_id", order_line = "ol_d_id" }

-- Sentinels of the DEFAULT variant (NOT NULL columns, undelivered rows).
M.CARRIER_SENTINEL = 0
M.DATE_SENTINEL = "2000-01-01 00:00:00"

-- ---- connections ----------------------------------------------------------------

local drv_cache
function M.driver()
  if not drv_cache then drv_cache = sysbench.sql.driver() end
  return drv_cache
end

-- First row, single value and all rows of `sql` (workload_util.lua).
M.row, M.value, M.rows = util.row, util.value, util.rows

local ISO_MY = { RC = "READ-COMMITTED", RR = "REPEATABLE-READ", SER = "SERIALIZABLE" }
local ISO_PG = { RC = "READ COMMITTED", RR = "REPEATABLE READ", SER = "SERIALIZABLE" }

-- Session setup: isolation, FOREIGN_KEY_CHECKS and --mysql-session-options
-- on MySQL; isolation and search_path on PostgreSQL. `purpose` "load" turns
-- FK checks off (units load in any order) and, on PostgreSQL, synchronous
-- commit (a lost tail is reloaded by --resume, since the unit's record is
-- lost with it).
function M.setup_session(con, c, purpose)
  if c.pg then
    con:query("SET search_path TO " .. c.schema)
    con:query("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " ..
                ISO_PG[c.trx_level])
    if purpose == "load" then
      con:query("SET synchronous_commit TO off")
    end
    return
  end
  local var = M.value(con, "SHOW VARIABLES LIKE 't%_isolation'")
  if var then
    con:query("SET SESSION " .. var .. "='" .. ISO_MY[c.trx_level] .. "'")
  end
  local fk = purpose == "load" and 0 or (c.fk_checks and 1 or 0)
  con:query("SET FOREIGN_KEY_CHECKS=" .. fk)
  for _, s in ipairs(c.session_sql) do con:query(s) end
end

-- A new connection with the session set up; `endpoint`, optional, a
-- route of --endpoints (a transaction type's name) to open it on.
function M.connect(c, purpose, endpoint)
  local con = M.driver():connect(endpoint and { endpoint = endpoint } or nil)
  M.setup_session(con, c, purpose)
  return con
end

-- One line for an error raised by the SQL API or a Lua error
-- (workload_util.lua).
M.error_text = util.error_text

-- ---- bookkeeping (tpcc_meta, tpcc_load_units) -----------------------------------

-- True when the catalog has `name`: kind "table" (in --pgsql-schema /
-- the database) or "index" (of table `tbl`).
function M.exists(con, c, kind, name, tbl)
  local sql
  if c.pg then
    sql = kind == "table"
      and "SELECT COUNT(*) FROM pg_tables WHERE schemaname='%s' AND tablename='%s'"
      or "SELECT COUNT(*) FROM pg_indexes WHERE schemaname='%s' AND indexname='%s'"
    sql = string.format(sql, c.schema, name:lower())
  elseif kind == "table" then
    sql = string.format("SELECT COUNT(*) FROM information_schema.tables WHERE " ..
                          "table_schema=DATABASE() AND table_name='%s'", name)
  else
    sql = string.format("SELECT COUNT(*) FROM information_schema.statistics WHERE " ..
                          "table_schema=DATABASE() AND table_name='%s' AND index_name='%s'", tbl, name)
  end
  return tonumber(M.value(con, sql)) > 0
end

function M.table_exists(con, c, name)
  return M.exists(con, c, "table", name)
end

-- A monitor connection (its statements count nowhere) in --pgsql-schema;
-- `endpoint`, optional, an endpoint of --endpoints to open it on.
function M.monitor(c, endpoint)
  local con = M.driver():connect(endpoint and { endpoint = endpoint } or nil)
  C.db_connection_uncounted(con)
  if c.pg then con:query("SET search_path TO " .. c.schema) end
  return con
end

-- A parallel command (prepare, check) in thread sysbench.tid: runs
-- body(c, tid) with the configuration. The first failing thread aborts the
-- others (sb_shared_abort) and raises its error as one FATAL line; the
-- others return false quietly, so the command prints one message and
-- exits 1 (workload_util.parallel_command). `precheck(c)`, optional, may
-- raise a configuration error.
function M.parallel_command(body, precheck)
  return util.parallel_command(function()
    local cfg = M.config()
    if precheck then precheck(cfg) end
    return cfg
  end, body)
end

-- Number of tpcc data tables (of any set) present.
function M.count_tables(con, c)
  local names = {}
  for _, t in ipairs(M.TABLES) do names[#names + 1] = "'" .. t .. "'" end
  local sql
  if c.pg then
    sql = "SELECT COUNT(*) FROM pg_tables WHERE schemaname='" .. c.schema ..
      "' AND regexp_replace(tablename, '[0-9]+$', '') IN (" .. table.concat(names, ",") ..
      ") AND tablename ~ '[0-9]$'"
  else
    sql = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema=DATABASE() " ..
      "AND REGEXP_REPLACE(table_name, '[0-9]+$', '') IN (" .. table.concat(names, ",") ..
      ") AND table_name REGEXP '[0-9]$'"
  end
  return tonumber(M.value(con, sql)) or 0
end

-- tpcc_meta as a table k -> v, or nil when it does not exist.
function M.read_meta(con, c)
  if not M.table_exists(con, c, "tpcc_meta") then return nil end
  local m = {}
  for _, r in ipairs(M.rows(con, "SELECT k, v FROM tpcc_meta")) do
    m[r[1]] = r[2]
  end
  return m
end

local function quote(s)
  return "'" .. tostring(s):gsub("'", "''") .. "'"
end
M.quote = quote

-- Sets meta keys (a table k -> v) in one transaction.
function M.write_meta(con, c, kv)
  con:query("BEGIN")
  for k, v in pairs(kv) do
    con:query("DELETE FROM tpcc_meta WHERE k=" .. quote(k))
    con:query("INSERT INTO tpcc_meta (k, v) VALUES (" .. quote(k) .. "," .. quote(v) .. ")")
  end
  con:query("COMMIT")
end

-- ---- shared slots and counters ------------------------------------------------------
-- Slots of sb_shared (one process runs one command, so they do not clash).
M.SLOT = {
  DECISION = 0,       -- prepare: what thread 0 decided (1 fresh, 2 resume, 3 done)
  UNIT = 1,           -- prepare: next load unit
  JOB = 2,            -- prepare: next index/FK/analyze job
  FAILED = 3,         -- a thread failed (prepare/check)
  CHECK_FAIL = 4,     -- check: failed conditions
  CHECK_NA = 5,       -- check: not applicable ones
  CHECK_PASS = 6,
  LOAD_T0 = 7,        -- prepare: load start (ms since epoch)
  DELIVERED = 8,      -- run: a Delivery committed (delivery_executed)
  PURGED = 9,
}

-- Now in milliseconds (CLOCK_MONOTONIC), for progress and phase times;
-- "2m31s" / "12s" / "1h02m" (workload_util.lua).
M.now_ms, M.duration = util.now_ms, util.duration

-- 1190000 -> "1.19M", 35000 -> "35k".
function M.human(x)
  if x >= 1e6 then return string.format("%.2fM", x / 1e6) end
  if x >= 1e4 then return string.format("%.0fk", x / 1e3) end
  if x >= 1e3 then return string.format("%.1fk", x / 1e3) end
  return string.format("%.0f", x)
end

-- Interval for progress lines: --report-interval, 10 s when not given.
function M.progress_every()
  local r = tonumber(sysbench.opt.report_interval) or 0
  return r > 0 and r or 10
end

M.DISCLAIMER = "TPROC-C-style workload derived from TPC-C; results are not TPC-C " ..
  "results and are not comparable with published TPC-C results."

return M
