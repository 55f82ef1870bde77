-- bmk bundled workload `tpch` (derived from TPC-H; results are not TPC-H
-- results): options, configuration, the FFI declarations of the C
-- generator (src/datagen/sb_tpch_gen.h), connections, the shared job
-- queue and progress lines. The entry script is tpch.lua; docs/tpch.md
-- says what the workload is and how it differs from TPC-H proper.

if not BMK_TPCH then
  error("tpch_common.lua is bmk's bundled module, loaded by a script that is not " ..
          "bmk's tpch.lua", 0)
end

local ffi = require("ffi")
-- workload_util declares core/sb_shared.h's functions (sb_shared_*)
local util = require("workload_util")
local eps = require("tpch_endpoints")

ffi.cdef[[
typedef struct sb_tpch_gen sb_tpch_gen_t;
typedef struct {
  double sf;
  int64_t scale;
  int64_t supp, part, cust, orders;
} sb_tpch_scale_t;
int sb_tpch_scale(double sf, sb_tpch_scale_t *out);
int64_t sb_tpch_table_rows(const sb_tpch_scale_t *sc, int t);
const char *sb_tpch_table_name(int t);
const char *sb_tpch_columns(int t);
int sb_tpch_child(int t);
int sb_tpch_chunk(const sb_tpch_scale_t *sc, int t, int chunk, int chunks,
                  int64_t *first, int64_t *count);
sb_tpch_gen_t *sb_tpch_gen_new(double sf, int t, int chunk, int chunks);
int64_t sb_tpch_update_rows(const sb_tpch_scale_t *sc);
sb_tpch_gen_t *sb_tpch_gen_new_update(double sf, int set);
int64_t sb_tpch_delete_key(double sf, int set, int64_t k);
int64_t sb_tpch_write_deletes(double sf, int set, int fmt, int fd);
void sb_tpch_gen_free(sb_tpch_gen_t *g);
int64_t sb_tpch_gen_total(const sb_tpch_gen_t *g);
int64_t sb_tpch_gen_left(const sb_tpch_gen_t *g);
int64_t sb_tpch_gen_child_rows(const sb_tpch_gen_t *g);
int sb_tpch_gen_rows(sb_tpch_gen_t *g, int fmt, char *buf, size_t cap,
                     size_t *len, char *cbuf, size_t ccap, size_t *clen,
                     int max_rows);
int64_t sb_tpch_gen_write(sb_tpch_gen_t *g, int fmt, int fd, int cfd,
                          int64_t max_rows);
int sb_tpch_create(const char *path);
int close(int fd);
int mkdir(const char *path, unsigned int mode);
char *strerror(int errnum);

bool sb_engine_stopping(void);
void db_connection_uncounted(sql_connection *con);

]]

local C = ffi.C
local M = { C = C, ffi = ffi }

-- ---- tables -------------------------------------------------------------------
-- sb_tpch_table_t ids; FAMILIES are the parent tables a generator makes
-- (PART with PARTSUPP, ORDERS with LINEITEM), biggest first so that the
-- long jobs start first.
M.T = { region = 0, nation = 1, part = 2, supplier = 3, partsupp = 4,
        customer = 5, orders = 6, lineitem = 7 }
M.NT = 8
M.FAMILIES = { M.T.orders, M.T.part, M.T.customer, M.T.supplier, M.T.nation,
               M.T.region }
-- drop order (children first)
M.DROP_ORDER = { "lineitem", "orders", "partsupp", "customer", "supplier", "part",
                 "nation", "region", "tpch_meta" }

function M.name(t)
  return ffi.string(C.sb_tpch_table_name(t))
end

function M.child(t)
  local c = C.sb_tpch_child(t)
  return c >= 0 and c or nil
end

-- Output formats of sb_tpch_gen_rows / _write.
M.FMT = { tbl = 0, csv = 1, tsv = 2, sql = 3 }

-- ---- options -----------------------------------------------------------------------

M.options = {
  scale = {"Scale factor SF: > 0; a whole number from 1 up; below 1 as dbgen " ..
             "rounds it (0.01, 0.1, ...)", 1},
  dir = {"generate: directory the flat files are written to (created if missing)", ""},
  format = {"generate: file format: tbl (dbgen's, '|' after every column) or csv", "tbl"},
  chunks = {"Chunks each big table is cut into (as dbgen -C): generate writes " ..
              "NAME.tbl.1..N (one NAME.tbl for 1); prepare loads them in parallel " ..
              "(0: --threads x 4)", 0},
  load_method = {"prepare: auto (COPY / LOAD DATA LOCAL INFILE when the server " ..
                   "allows it, else insert), copy, insert (multi-row INSERT)", "auto"},
  load_batch = {"prepare: parent rows per load statement (0: 10000 with copy, " ..
                  "1000 with insert)", 0},
  updates = {"generate: also write update sets 1..N (the refresh functions' new " ..
                "orders, line items and deleted keys, as dbgen -U N)", 0},
  fk = {"prepare: create the foreign keys after the load", false},
  tpch_test = {"run: the test: power (RF1, the 22 queries of stream 0, RF2), " ..
                 "throughput (--streams query streams beside a refresh stream; " ..
                 "--threads=streams+1) or full (power then throughput); --test is the " ..
                 "core's old test-name option", "power"},
  streams = {"run: query streams of the throughput test (0: the spec's minimum for " ..
               "the SF, 2 below SF 1)", 0},
  seed = {"run: qgen's seed of the query parameters (0: the one prepare recorded, " ..
            "the load's end as mmddhhmmss)", 0},
  validate = {"run: the validation parameters (qgen -d) instead of the seed's", false},
  parallel_workers = {"run, PostgreSQL: max_parallel_workers_per_gather of the query " ..
                         "connections (the parallel workers one query may use); -1: the " ..
                         "server's setting", -1},
  answers = {"run: directory of reference answers (TPC-H's qN.out, DuckDB's qNN.csv): " ..
               "each query's result is compared (clause 2.1.3.5's tolerances)", ""},
  save_answers = {"run: directory to write each query's result to, as qN.out", ""},
  query_timeout = {"run: seconds a query may take (server-side: PostgreSQL " ..
                     "statement_timeout, MariaDB max_statement_time, MySQL " ..
                     "max_execution_time); a query over it fails; 0: none", 0},
  indexes = {"prepare: create the secondary indexes (foreign key and date columns) " ..
               "after the load", false},
  replica_wait = {"run with --endpoints: seconds a query stream waits at most for its " ..
                   "replica to catch up with the primary", 300},
  pgsql_schema = {"PostgreSQL schema of the tables", "public"},
  mysql_storage_engine = {"MySQL storage engine of the tables", "innodb"},
}

-- ---- configuration ----------------------------------------------------------------

local fail, yesno = util.fail, util.yesno
M.fail = fail

local function int_opt(name, lo, hi)
  local v = tonumber(sysbench.opt[name])
  if v == nil or v ~= math.floor(v) or v < lo or v > hi then
    fail("--%s must be an integer in %d..%d (got '%s')", name:gsub("_", "-"), lo, hi,
         tostring(sysbench.opt[name]))
  end
  return v
end

local function one_of(name, allowed)
  local v = tostring(sysbench.opt[name]):lower()
  for _, a in ipairs(allowed) do
    if v == a then return v end
  end
  fail("--%s must be one of %s (got '%s')", name:gsub("_", "-"), table.concat(allowed, ", "),
       tostring(sysbench.opt[name]))
end

-- The scale factor: *sc (sb_tpch_scale_t) and the number.
local function scale_opt()
  local raw = sysbench.opt.scale
  local sf = tonumber(raw)
  local sc = ffi.new("sb_tpch_scale_t")
  if sf == nil or C.sb_tpch_scale(sf, sc) ~= 0 then
    fail("--scale must be > 0, a whole number from 1 up, at most 100000 " ..
           "(dbgen's scale factors; got '%s')", tostring(raw))
  end
  return sf, sc
end

local cfg_cache
function M.config()
  if cfg_cache then return cfg_cache end
  local o = sysbench.opt
  local c = {}
  c.sf, c.sc = scale_opt()
  c.threads = tonumber(o.threads) or 1
  c.chunks = int_opt("chunks", 0, 100000)
  c.updates = int_opt("updates", 0, 4000)
  c.test = one_of("tpch_test", {"power", "throughput", "full"})
  c.streams = int_opt("streams", 0, 1000)
  c.seed_opt = int_opt("seed", 0, 2147483646)
  c.validate = yesno("validate", o.validate)
  c.query_timeout = tonumber(o.query_timeout)
  if c.query_timeout == nil or c.query_timeout < 0 or c.query_timeout > 86400 then
    fail("--query-timeout must be seconds in 0..86400 (got '%s')", tostring(o.query_timeout))
  end
  c.parallel_workers = int_opt("parallel_workers", -1, 1024)
  c.replica_wait = int_opt("replica_wait", 1, 86400)
  c.answers = tostring(o.answers or "")
  c.save_answers = tostring(o.save_answers or "")
  c.format = one_of("format", {"tbl", "csv"})
  c.dir = tostring(o.dir or "")
  c.driver = (o.db_driver == nil or o.db_driver == "") and "mysql" or tostring(o.db_driver)
  c.pg = c.driver == "pgsql"
  c.load_method = one_of("load_method", {"auto", "copy", "infile", "insert"})
  if c.load_method == "infile" then c.load_method = "copy" end
  c.load_batch = int_opt("load_batch", 0, 1000000)
  c.fk = yesno("fk", o.fk)
  c.indexes = yesno("indexes", o.indexes)
  c.schema = tostring(o.pgsql_schema or "public")
  if not c.schema:match("^[%a_][%w_]*$") then
    fail("--pgsql-schema must be a plain identifier (got '%s')", c.schema)
  end
  c.engine = tostring(o.mysql_storage_engine or "innodb")
  if not c.engine:match("^[%w_]+$") then
    fail("--mysql-storage-engine must be a plain name (got '%s')", c.engine)
  end
  cfg_cache = c
  return c
end

-- Checks that the command runs against a database bmk's tpch supports.
function M.need_sql(c)
  if c.driver ~= "mysql" and c.driver ~= "pgsql" then
    fail("the tpch workload supports --db-driver=mysql and pgsql (got '%s')", c.driver)
  end
end

-- ---- jobs -------------------------------------------------------------------------------

-- The generator jobs of `chunks` chunks: {t, chunk, chunks, rows}, the
-- big families' chunks first; REGION and NATION are one job each.
function M.jobs(c, chunks)
  local list = {}
  for _, t in ipairs(M.FAMILIES) do
    local n = (t == M.T.region or t == M.T.nation) and 1 or chunks
    for k = 1, n do
      local first, count = ffi.new("int64_t[1]"), ffi.new("int64_t[1]")
      C.sb_tpch_chunk(c.sc, t, k, n, first, count)
      list[#list + 1] = { t = t, chunk = k, chunks = n, rows = tonumber(count[0]) }
    end
  end
  return list
end

-- Runs `jobs` over the command's threads from one shared queue: thread
-- `tid` takes the next job and calls do_job(job, counters, tick) (its
-- sb_shared_counters; tick: the progress printer, thread 0's only, nil in
-- the others) until none is left. Thread 0 must have called
-- M.start_jobs() before; starts and ends with a barrier. `what` names the
-- progress lines ("load"). Returns the seconds since M.start_jobs.
function M.run_jobs(c, tid, jobs, what, do_job)
  M.barrier(c)
  local total = 0
  for _, j in ipairs(jobs) do total = total + j.rows end
  local tick = tid == 0 and M.progress_printer(what, total, #jobs) or nil
  local cnt = C.sb_shared_counters(tid)
  while true do
    local k = tonumber(C.sb_shared_add(M.SLOT.JOB, 1))
    if k >= #jobs then break end
    do_job(jobs[k + 1], cnt, tick)
  end
  M.barrier(c)
  return (M.now_ms() - tonumber(C.sb_shared_get(M.SLOT.T0))) / 1000
end

-- After a generator batch of a job: counts its `n` rows of table t and
-- the rows its child table (c_t, or nil) got since `seen` in the
-- counters `cnt` from `base` (CNT_ROWS or CNT_UROWS), ticks the progress
-- printer (when given) and raises "aborted" when another thread failed.
-- Returns the child rows generated so far (the next `seen`).
function M.count_batch(cnt, base, g, t, n, c_t, seen, tick)
  cnt[base + t] = cnt[base + t] + n
  if c_t then
    local now = tonumber(C.sb_tpch_gen_child_rows(g))
    cnt[base + c_t] = cnt[base + c_t] + (now - seen)
    seen = now
  end
  if tick then tick() end
  if C.sb_shared_aborted() then error("aborted", 0) end
  return seen
end

-- Thread 0, before M.run_jobs: the queue at its first job, the clock
-- started.
function M.start_jobs()
  C.sb_shared_set(M.SLOT.JOB, 0)
  C.sb_shared_set(M.SLOT.T0, M.now_ms())
end

-- Slots of sb_shared (one command per process, so they do not clash).
M.SLOT = { JOB = 0, PHASE_JOB = 1, T0 = 2, CHECK_FAIL = 3 }
-- Shared counters: rows per table, jobs done, files written, rows per
-- table of update sets.
M.CNT_ROWS, M.CNT_JOBS, M.CNT_FILES, M.CNT_UROWS = 0, 16, 17, 32

-- ---- connections ------------------------------------------------------------------------

-- First row, single value and all rows of `sql` (workload_util.lua).
M.row, M.value, M.rows = util.row, util.value, util.rows

-- A connection of `run`: M.connect's, with --parallel-workers on
-- PostgreSQL; `endpoint` as M.connect's.
function M.connect_run(c, endpoint)
  local con = M.connect(c, false, endpoint)
  if c.pg and c.parallel_workers >= 0 then
    con:query("SET max_parallel_workers_per_gather = " .. c.parallel_workers)
  end
  return con
end

-- Query stream `stream`'s connection (0: the power test's): with
-- --endpoints on its endpoint (tpch_endpoints.query_endpoint), else
-- M.connect_run's. Returns it and the endpoint's name (nil without
-- --endpoints).
function M.connect_query(c, stream)
  local name = eps.query_endpoint(stream)
  return M.connect_run(c, name), name
end

-- An uncounted connection to endpoint `name` of --endpoints (for the
-- replicas' catch-up wait).
function M.monitor(c, name)
  return M.connect(c, true, name)
end

-- A connection in --pgsql-schema; `monitor`: its statements count
-- nowhere. `endpoint`: an endpoint of --endpoints to open it on; nil: the
-- primary (tpch_endpoints.primary; raises when the file has none), or
-- the one server without --endpoints.
function M.connect(c, monitor, endpoint)
  endpoint = endpoint or eps.primary()
  local con = sysbench.sql.driver():connect(endpoint and { endpoint = endpoint } or nil)
  if monitor then C.db_connection_uncounted(con) end
  if c.pg then
    con:query("SET search_path TO " .. c.schema)
  else
    con:query("SET FOREIGN_KEY_CHECKS=0")
  end
  return con
end

function M.table_exists(con, c, name)
  local sql
  if c.pg then
    sql = string.format("SELECT COUNT(*) FROM pg_tables WHERE schemaname='%s' AND " ..
                          "tablename='%s'", c.schema, name)
  else
    sql = string.format("SELECT COUNT(*) FROM information_schema.tables WHERE " ..
                          "table_schema=DATABASE() AND table_name='%s'", name)
  end
  return tonumber(M.value(con, sql)) > 0
end

-- tpch_meta as k -> v, or nil when absent.
function M.read_meta(con, c)
  if not M.table_exists(con, c, "tpch_meta") then return nil end
  local m = {}
  for _, r in ipairs(M.rows(con, "SELECT k, v FROM tpch_meta")) do m[r[1]] = r[2] end
  return m
end

-- tpch_meta of a schema whose load completed; fails (one FATAL line)
-- when there is no tpch data or the load did not complete.
function M.loaded_meta(con, c)
  local meta = M.read_meta(con, c)
  if meta == nil then
    fail("no tpch data in %s: run `bmk tpch prepare` first",
         c.pg and ("schema " .. c.schema) or "the database")
  end
  if meta.state ~= "complete" then
    fail("the tpch load is not complete (state '%s'): run `bmk tpch cleanup` and " ..
           "prepare again", tostring(meta.state))
  end
  return meta
end

-- One line for an error (workload_util.lua).
M.error_text = util.error_text

-- A parallel command in thread sysbench.tid: body(c, tid) with the
-- configuration (workload_util.parallel_command: the first failing
-- thread's error is the one FATAL line, exit 1).
function M.parallel_command(body)
  return util.parallel_command(M.config, body)
end

-- Waits for the command's other threads; raises "aborted" when one failed.
function M.barrier(c)
  if C.sb_shared_barrier(c.threads) ~= 0 then error("aborted", 0) end
end

-- ---- time and progress ----------------------------------------------------------------

-- Clocks and durations (workload_util.lua).
M.now_ms, M.wall_s, M.duration = util.now_ms, util.wall_s, util.duration

-- Interval of progress lines: --report-interval, 10 s when not given.
function M.progress_every()
  local r = tonumber(sysbench.opt.report_interval) or 0
  return r > 0 and r or 10
end

-- Sums of the shared counters.
function M.sums()
  local s = ffi.new("uint64_t[1024]")
  C.sb_shared_sum(s)
  return s
end

-- Parent rows done over all jobs, for progress and the ETA.
function M.parent_rows_done(s)
  local n = 0
  for _, t in ipairs(M.FAMILIES) do n = n + tonumber(s[M.CNT_ROWS + t]) end
  return n + tonumber(s[M.CNT_UROWS + M.T.orders])
end

-- "[ 12s ] what: 40% (1.2M of 3.0M rows), 12 of 30 jobs; ETA 18s".
function M.progress_line(what, elapsed_s, total_rows, njobs)
  local s = M.sums()
  local done = M.parent_rows_done(s)
  local eta = ""
  if done > 0 and done < total_rows then
    eta = "; ETA " .. M.duration((total_rows - done) / (done / elapsed_s))
  end
  return string.format("[ %.0fs ] %s: %.0f%% (%d of %d parent rows), %d of %d jobs%s",
                       elapsed_s, what, 100 * done / math.max(total_rows, 1), done, total_rows,
                       tonumber(s[M.CNT_JOBS]), njobs, eta)
end

-- A progress printer for thread 0: call it often; prints every
-- --report-interval seconds.
function M.progress_printer(what, total_rows, njobs)
  local t0 = M.now_ms()
  local every = M.progress_every() * 1000
  local next_at = t0 + every
  return function()
    local now = M.now_ms()
    if now >= next_at then
      next_at = now + every
      print(M.progress_line(what, (now - t0) / 1000, total_rows, njobs))
      io.stdout:flush()
    end
  end
end

M.DISCLAIMER = "derived from TPC-H; results are not TPC-H results and are not " ..
  "comparable with published TPC-H results"

return M
