-- bmk tpcc: `prepare`: the schema, a parallel load by units drained from
-- one queue by all --threads, progress lines with rows/s per table and an
-- ETA, indexes and foreign keys after the load, ANALYZE, the stored
-- procedures, and --resume / --force.
--
-- Rows come from the C generator (src/core/sb_tpcc_gen.c) straight into
-- a buffer and are shipped by a *sink*: the insert sink (multi-row INSERT
-- of --load-batch rows) or the fast-load sink (PostgreSQL COPY FROM STDIN,
-- MySQL LOAD DATA LOCAL INFILE through the drivers' fast load path, the
-- generator writing the load text format); see docs/tpcc.md.

local common = require("tpcc_common")
local schema = require("tpcc_schema")
local ffi = common.ffi
local C = common.C
local SLOT = common.SLOT

ffi.cdef[[
typedef struct {
  uint64_t seed;
  int32_t set, w, d;
  int32_t c_load;
  int32_t null_variant;
  int32_t compressible;
  char load_time[20];
} sb_tpcc_unit_t;
typedef struct sb_tpcc_gen sb_tpcc_gen_t;
sb_tpcc_gen_t *sb_tpcc_gen_new(const sb_tpcc_unit_t *u);
void sb_tpcc_gen_free(sb_tpcc_gen_t *g);
int64_t sb_tpcc_gen_total(const sb_tpcc_gen_t *g, int t);
int sb_tpcc_gen_rows(sb_tpcc_gen_t *g, int t, int fmt, char *buf, size_t cap,
                     size_t *len, int max_rows);
const char *sb_tpcc_gen_columns(int t);
const char *sb_tpcc_table_name(int t);
]]

local M = {}

-- sb_tpcc_table_t ids and the tables of each unit kind, in load order.
local T = { warehouse = 0, district = 1, customer = 2, history = 3, orders = 4,
            new_orders = 5, order_line = 6, stock = 7, item = 8 }
local NT = 9
local UNIT_TABLES = {
  item = { T.item },
  warehouse = { T.warehouse, T.district, T.stock },
  district = { T.customer, T.history, T.orders, T.new_orders, T.order_line },
}
-- Expected rows of a unit, for the ETA (order lines are about 10 per order).
local UNIT_ROWS = { item = 100000, warehouse = 100011, district = 39900 }

-- Shared counter layout during prepare: rows and busy milliseconds per table.
local CNT_ROWS, CNT_MS, CNT_UNITS = 0, 16, 32

-- ---- units ----------------------------------------------------------------------

-- Unit k (0-based) of the queue: the item tables first (the biggest units,
-- spread over the threads at once), then by warehouse, set and part.
local function unit_of(c, k)
  if k < c.tables then return k + 1, 0, -1 end
  k = k - c.tables
  local per_w = c.tables * 11
  local w = math.floor(k / per_w) + 1
  local r = k % per_w
  return math.floor(r / 11) + 1, w, r % 11
end

local function unit_kind(d)
  return d < 0 and "item" or d == 0 and "warehouse" or "district"
end

local function total_units(c)
  return c.tables + c.scale * c.tables * 11
end

-- A cluster prepare (docs/cluster.md): process 0 loads the item tables
-- and the warehouses w with (w - 1) mod size = 0, process i those with
-- (w - 1) mod size = i. Outside a cluster run every unit is this one's.
local function my_unit(set, w, d)
  local cl = sysbench.cluster
  if cl.size <= 1 then return true end
  if w == 0 then return cl.index == 0 end
  return (w - 1) % cl.size == cl.index
end

ffi.cdef[[
int usleep(unsigned int usec);
]]

-- Process 0 of a cluster prepare: waits until every unit of every
-- process is recorded finished (no progress for 600 s is a failure).
local function wait_all_units(con, c, nunits)
  local last, since = -1, common.now_ms()
  while true do
    local n = tonumber(common.value(con, "SELECT COUNT(*) FROM tpcc_load_units WHERE " ..
                                      "finished_at IS NOT NULL"))
    if n >= nunits then return end
    if n ~= last then last, since = n, common.now_ms() end
    if common.now_ms() - since > 600000 then
      common.fail("cluster prepare: %d of %d load units finished and none for 600 s: did " ..
                    "another process fail? (its host's log names it)", n, nunits)
    end
    if C.sb_shared_aborted() then error("aborted", 0) end
    C.usleep(200000)
  end
end

local function unit_key(set, w, d)
  return set * 100000000 + w * 100 + (d + 1)
end

-- Deletes whatever rows unit (set, w, d) may have loaded, by key range.
local function delete_unit_rows(con, c, set, w, d)
  if d < 0 then
    con:query("DELETE FROM item" .. set)
  elseif d == 0 then
    con:query(string.format("DELETE FROM warehouse%d WHERE w_id=%d", set, w))
    con:query(string.format("DELETE FROM district%d WHERE d_w_id=%d", set, w))
    con:query(string.format("DELETE FROM stock%d WHERE s_w_id=%d", set, w))
  else
    for _, t in ipairs({"order_line", "new_orders", "orders", "history", "customer"}) do
      con:query(string.format("DELETE FROM %s%d WHERE %s=%d AND %s=%d", t, set,
                              common.WCOL[t], w, common.DCOL[t], d))
    end
  end
end

-- ---- sinks --------------------------------------------------------------------------

local InsertSink = {}
InsertSink.__index = InsertSink

-- A multi-row INSERT sink on `con`: each send() generates up to
-- c.load_batch rows of one table into its buffer and runs one INSERT.
function InsertSink.new(con, c)
  local cap = 4 * 1024 * 1024
  local self = setmetatable({ con = con, c = c, cap = cap,
                              buf = ffi.new("char[?]", cap), len = ffi.new("size_t[1]"),
                              prefix = {} }, InsertSink)
  return self
end

function InsertSink:send(g, t, set)
  local key = t * 100000 + set
  local pre = self.prefix[key]
  if not pre then
    pre = string.format("INSERT INTO %s%d (%s) VALUES ", ffi.string(C.sb_tpcc_table_name(t)),
                        set, ffi.string(C.sb_tpcc_gen_columns(t)))
    self.prefix[key] = pre
  end
  ffi.copy(self.buf, pre, #pre)
  self.len[0] = #pre
  local n = C.sb_tpcc_gen_rows(g, t, 0, self.buf, self.cap, self.len, self.c.load_batch)
  if n > 0 then
    local rs = C.db_query(self.con, self.buf, self.len[0])
    if rs == nil then
      C.db_print_error(self.con)
      error(string.format("loading %s%d failed: %s", ffi.string(C.sb_tpcc_table_name(t)),
                          set, ffi.string(C.db_conn_sql_errmsg(self.con))), 0)
    end
  end
  return n
end

local LoadSink = {}
LoadSink.__index = LoadSink

-- A fast-load sink on `con` (docs/drivers.md "Fast load"): each send()
-- generates up to c.load_batch rows of one table in the load text format
-- (tab-separated, \N = NULL) and loads them as one COPY FROM STDIN
-- (PostgreSQL) or LOAD DATA LOCAL INFILE (MySQL) statement, in autocommit
-- like the insert sink.
function LoadSink.new(con, c)
  local cap = 8 * 1024 * 1024
  return setmetatable({ con = con, c = c, cap = cap,
                        buf = ffi.new("char[?]", cap), len = ffi.new("size_t[1]"),
                        names = {}, cols = {}, colv = ffi.new("const char *[1]") }, LoadSink)
end

function LoadSink:send(g, t, set)
  self.len[0] = 0
  local n = C.sb_tpcc_gen_rows(g, t, 1, self.buf, self.cap, self.len, self.c.load_batch)
  if n == 0 then
    return 0
  end
  local key = t * 100000 + set
  local name = self.names[key]
  if not name then
    name = ffi.string(C.sb_tpcc_table_name(t)) .. set
    self.names[key] = name
  end
  local cols = self.cols[t]
  if not cols then
    cols = ffi.string(C.sb_tpcc_gen_columns(t))
    self.cols[t] = cols
  end
  self.colv[0] = cols           -- the Lua string stays alive in self.cols
  local con = self.con
  if C.db_load_start(con, name, self.colv, 1) ~= 0 or
     C.db_load_rows(con, self.buf, self.len[0]) ~= 0 or
     C.db_load_finish(con, nil, nil) ~= 0 then
    C.db_load_cancel(con, nil)
    if C.db_conn_error(con) ~= 0 then
      C.db_print_error(con)
    end
    local hint = ""
    if self.c.driver == "mysql" then
      hint = " (LOAD DATA LOCAL INFILE needs local_infile=1 on the server; " ..
             "or use --load-method=insert)"
    end
    error(string.format("loading %s failed: %s%s", name,
                        ffi.string(C.db_conn_sql_errmsg(con)), hint), 0)
  end
  return n
end

-- The sink of --load-method: the fast path (copy / infile; COPY is the
-- default on PostgreSQL) or multi-row INSERTs.
local function new_sink(con, c)
  if c.load_method == "copy" then
    if con ~= nil and not C.db_load_supported(con) then
      common.fail("--load-method=copy: the " .. c.driver .. " driver has no fast load path")
    end
    return LoadSink.new(con, c)
  end
  return InsertSink.new(con, c)
end

-- ---- progress -------------------------------------------------------------------------

local function sums()
  local s = ffi.new("uint64_t[1024]")
  C.sb_shared_sum(s)
  return s
end

local TABLE_ORDER = { T.stock, T.customer, T.history, T.orders, T.order_line,
                      T.new_orders, T.item, T.warehouse, T.district }

local function progress_line(c, st, elapsed)
  local s = sums()
  local parts = {}
  local done_rows = 0
  for _, t in ipairs(TABLE_ORDER) do
    local rows = tonumber(s[CNT_ROWS + t])
    done_rows = done_rows + rows
    if t ~= T.warehouse and t ~= T.district then
      parts[#parts + 1] = ffi.string(C.sb_tpcc_table_name(t)) .. " " ..
        common.human(rows / math.max(elapsed, 0.001))
    end
  end
  local units = tonumber(s[CNT_UNITS]) + st.skipped_units
  local wh_units = math.max(units - c.tables, 0)
  local eta = ""
  local todo = st.expected_rows - done_rows
  if done_rows > 0 and todo > 0 then
    eta = "; ETA " .. common.duration(todo / (done_rows / elapsed))
  end
  return string.format("[ %.0fs ] load: %d/%d warehouses, units %d/%d; rows/s %s%s",
                       elapsed, math.floor(wh_units / 11), c.warehouses, units, st.nunits,
                       table.concat(parts, " "), eta)
end

-- ---- phases -----------------------------------------------------------------------------

local function meta_diffs(meta, c)
  local want = { scale = c.scale, tables = c.tables, null_variant = c.null_variant and 1 or 0,
                 use_fk = c.use_fk, force_pk = c.force_pk and 1 or 0,
                 partition = c.partitions > 0 and (c.partitions .. ":" .. M.partition_list(c)) or "none",
                 data_profile = c.data_profile }
  local d = {}
  for _, k in ipairs({"scale", "tables", "null_variant", "use_fk", "force_pk", "partition",
                      "data_profile"}) do
    if meta[k] ~= nil and tostring(meta[k]) ~= tostring(want[k]) then
      d[#d + 1] = string.format("%s=%s (now %s)", k, tostring(meta[k]), tostring(want[k]))
    end
  end
  return d
end

function M.partition_list(c)
  local t = {}
  for k in pairs(c.partition_tables) do t[#t + 1] = k end
  table.sort(t)
  return table.concat(t, ",")
end

-- Thread 0: decides what this prepare does. Returns 1 fresh, 2 resume,
-- 3 nothing to do; raises on a refusal.
local function decide(con, c)
  local meta = common.read_meta(con, c)
  local present = common.count_tables(con, c)
  if meta == nil then
    if present > 0 and not c.force then
      common.fail("tpcc tables exist but tpcc_meta does not (not prepared by bmk, or " ..
                    "prepared by sysbench-tpcc): run cleanup first, or prepare --force to drop them")
    end
    if present > 0 then schema.drop_all(con, c, math.max(c.tables, 64)) end
    return 1
  end
  local sets = math.max(c.tables, tonumber(meta.tables) or 0)
  if c.force then
    print("Dropping the existing tpcc schema (--force)...")
    require("tpcc_sp").drop_all(con, c, sets)
    schema.drop_all(con, c, sets)
    return 1
  end
  local diffs = meta_diffs(meta, c)
  if meta.state == "complete" then
    -- complete by tpcc_meta, but a table of it may have been dropped since
    local want = #common.TABLES * c.tables
    if #diffs == 0 and present < want then
      common.fail("the tpcc schema is marked prepared but %d of its %d tables are missing " ..
                    "(dropped by hand or by another tool): run prepare --force to load it again",
                  want - present, want)
    end
    if #diffs == 0 then
      print(string.format("The tpcc schema is already prepared (%d x %d warehouses); nothing to do.",
                          c.tables, c.scale))
      return 3
    end
    common.fail("the tpcc schema was prepared with other options: %s; run cleanup first, " ..
                  "or prepare --force", table.concat(diffs, ", "))
  end
  if not c.resume then
    common.fail("a previous prepare did not finish (state '%s'): run prepare --resume to " ..
                  "continue it, or prepare --force to start again", tostring(meta.state))
  end
  if #diffs > 0 then
    common.fail("--resume needs the options of the interrupted prepare: %s",
                table.concat(diffs, ", "))
  end
  return 2
end

local function start_fresh(con, c)
  if c.pg and c.schema ~= "public" then
    con:query("CREATE SCHEMA IF NOT EXISTS " .. c.schema)
    con:query("SET search_path TO " .. c.schema)
  end
  schema.create_meta(con, c)
  local seed = C.sb_tpcc_run_seed()
  local r = ffi.new("sb_rand_stream_t")
  C.sb_tpcc_seed(r, seed, 0x434c4f4144, 0, 0, 0)          -- "CLOAD"
  local c_load = tonumber(C.sb_tpcc_rand(r, 0, 255))
  common.write_meta(con, c, {
    bmk_version = sysbench.version_string, scale = c.scale, tables = c.tables,
    null_variant = c.null_variant and 1 or 0, use_fk = c.use_fk, force_pk = c.force_pk and 1 or 0,
    partition = c.partitions > 0 and (c.partitions .. ":" .. M.partition_list(c)) or "none",
    data_profile = c.data_profile, seed = tostring(seed):gsub("ULL$", ""), c_load = c_load,
    load_time = os.date("%Y-%m-%d %H:%M:%S"), state = "loading", index_build = c.index_build,
    delivery_executed = 0, purged = 0,
  })
end

-- Creates the missing tables of set n (all of them on a fresh prepare).
local function create_tables(con, c, n)
  for _, name in ipairs(common.TABLES) do
    local t = common.tname(name, n)
    if not common.table_exists(con, c, t) then
      for _, sql in ipairs(schema.create_sql(c, name, n)) do con:query(sql) end
    end
  end
end

-- Runs fn for every job index j = next from SLOT.JOB until `n` jobs are
-- taken (all threads share the cursor).
function M.drain(n, fn)
  while true do
    local j = tonumber(C.sb_shared_add(SLOT.JOB, 1))
    if j >= n or C.sb_shared_aborted() then return end
    fn(j)
  end
end

function M.barrier(c)
  if C.sb_shared_barrier(c.threads) ~= 0 then error("aborted", 0) end
end
local barrier, drain = M.barrier, M.drain

-- Creates the missing secondary indexes of every set, spread over the
-- threads (all threads call it).
local function build_indexes(con, c, tid, announce)
  local jobs = {}
  for n = 1, c.tables do
    for _, ix in ipairs(schema.indexes(c, n)) do jobs[#jobs + 1] = ix end
  end
  if tid == 0 then
    if announce then print(string.format("Creating %d secondary index(es)...", #jobs)) end
    C.sb_shared_set(SLOT.JOB, 0)
  end
  M.barrier(c)
  M.drain(#jobs, function(j)
    local ix = jobs[j + 1]
    if not common.exists(con, c, "index", ix[1], ix[2]) then schema.create_index(con, c, ix) end
  end)
  M.barrier(c)
end

local function fk_count(con, c, n)
  local sql
  if c.pg then
    sql = string.format("SELECT COUNT(*) FROM pg_constraint WHERE contype='f' AND " ..
                          "conname LIKE 'fkey%%\\_%d' AND connamespace=(SELECT oid FROM " ..
                          "pg_namespace WHERE nspname='%s')", n, c.schema)
  else
    sql = string.format("SELECT COUNT(*) FROM information_schema.table_constraints WHERE " ..
                          "constraint_schema=DATABASE() AND constraint_type='FOREIGN KEY' AND " ..
                          "constraint_name LIKE 'fkey%%\\_%d'", n)
  end
  return tonumber(common.value(con, sql))
end

-- Loads one unit: a start record, its tables batch by batch, the finish
-- record. Counts rows and busy time per table in the thread's counters.
local function load_unit(con, c, st, sink, set, w, d)
  local now = c.pg and "clock_timestamp()" or "NOW(3)"
  con:query(string.format("INSERT INTO tpcc_load_units (set_no, w_id, part, nrows, started_at, " ..
                            "finished_at) VALUES (%d,%d,%d,0,%s,NULL)", set, w, d, now))
  local u = st.unit
  u.set, u.w, u.d = set, w, d
  local g = C.sb_tpcc_gen_new(u)
  if g == nil then error("out of memory creating a load unit", 0) end
  local cnt = st.cnt
  local rows = 0
  local ok, err = pcall(function()
    for _, t in ipairs(UNIT_TABLES[unit_kind(d)]) do
      local t0 = common.now_ms()
      while true do
        local n = sink:send(g, t, set)
        if n == 0 then break end
        rows = rows + n
        cnt[CNT_ROWS + t] = cnt[CNT_ROWS + t] + n
        if st.progress then st.progress() end
        if C.sb_shared_aborted() then error("aborted", 0) end
      end
      cnt[CNT_MS + t] = cnt[CNT_MS + t] + (common.now_ms() - t0)
    end
  end)
  C.sb_tpcc_gen_free(g)
  if not ok then error(err, 0) end
  con:query(string.format("UPDATE tpcc_load_units SET nrows=%d, finished_at=%s WHERE " ..
                            "set_no=%d AND w_id=%d AND part=%d", rows, now, set, w, d))
  cnt[CNT_UNITS] = cnt[CNT_UNITS] + 1
end


-- ---- the command -------------------------------------------------------------------------

-- Phase C: on --resume, thread 0 deletes the rows of the units that were
-- cut short (started, not finished) and their records.
local function clear_cut_units(con, c)
  local cut = common.rows(con, "SELECT set_no, w_id, part FROM tpcc_load_units WHERE " ..
                            "finished_at IS NULL")
  for _, r in ipairs(cut) do
    local set, w, d = tonumber(r[1]), tonumber(r[2]), tonumber(r[3])
    delete_unit_rows(con, c, set, w, d)
    con:query(string.format("DELETE FROM tpcc_load_units WHERE set_no=%d AND w_id=%d AND part=%d",
                            set, w, d))
  end
  if #cut > 0 then
    print(string.format("Resuming: %d unfinished load unit(s) cleared", #cut))
  end
end

-- The load state of this thread: finished units, counters, the unit
-- template (seed, C_LOAD, variant, timestamps from tpcc_meta) and, in
-- thread 0, the progress printer.
local function load_state(con, c, tid, meta)
  local finished = {}
  for _, r in ipairs(common.rows(con, "SELECT set_no, w_id, part FROM tpcc_load_units WHERE " ..
                                   "finished_at IS NOT NULL")) do
    finished[unit_key(tonumber(r[1]), tonumber(r[2]), tonumber(r[3]))] = true
  end
  local st = { cnt = C.sb_shared_counters(tid), nunits = total_units(c), skipped_units = 0,
               expected_rows = 0, finished = finished }
  if st.cnt == nil then error("out of memory for the load counters", 0) end
  for k = 0, st.nunits - 1 do
    local set, w, d = unit_of(c, k)
    if finished[unit_key(set, w, d)] then
      st.skipped_units = st.skipped_units + 1
    else
      st.expected_rows = st.expected_rows + UNIT_ROWS[unit_kind(d)]
    end
  end
  local u = ffi.new("sb_tpcc_unit_t")
  u.seed = M.parse_u64(meta.seed)
  u.c_load = tonumber(meta.c_load)
  u.null_variant = c.null_variant and 1 or 0
  u.compressible = c.data_profile == "compressible" and 1 or 0
  ffi.copy(u.load_time, meta.load_time, 19)
  st.unit = u
  if tid == 0 then
    local every = common.progress_every() * 1000
    local last = common.now_ms()
    local t0 = last
    st.progress = function()
      local now = common.now_ms()
      if now - last >= every then
        last = now
        print(progress_line(c, st, (now - t0) / 1000))
      end
    end
    print(string.format("Loading %d unit(s) of %d (%d warehouse(s) in %d set(s)) with %d thread(s), " ..
                          "seed %s, C_LOAD %s...", st.nunits - st.skipped_units, st.nunits,
                        c.warehouses, c.tables, c.threads, meta.seed, meta.c_load))
  end
  return st
end

-- --load-method=auto on MySQL: LOAD DATA LOCAL INFILE when the server's
-- local_infile is ON (MariaDB's default; about twice as fast as INSERTs,
-- docs/performance.md), else multi-row INSERTs, which need no server
-- setting. Each load thread reads the global on its own connection (one
-- query; every thread gets the same answer) and thread 0 says which
-- method it is.
local function resolve_load_method(con, c, tid)
  if c.load_method ~= "auto" then return end
  local v = tostring(common.value(con, "SELECT @@local_infile") or ""):upper()
  local on = v == "1" or v == "ON"
  c.load_method = on and "copy" or "insert"
  common.default_load_batch(c)
  if tid == 0 then
    if on then
      print("--load-method=auto: LOAD DATA LOCAL INFILE (the server's local_infile is ON)")
    else
      print("--load-method=auto: multi-row INSERTs (the server's local_infile is OFF; " ..
              "SET GLOBAL local_infile=1 allows the faster LOAD DATA LOCAL INFILE)")
    end
  end
end

-- Phase D: units from the shared queue until it is empty. Returns the
-- seconds it took (every thread waits for the others).
local function load_units(con, c, tid, meta)
  resolve_load_method(con, c, tid)
  local st = load_state(con, c, tid, meta)
  local sink = new_sink(con, c)
  local t_load = common.now_ms()
  while true do
    local k = tonumber(C.sb_shared_add(SLOT.UNIT, 1))
    if k >= st.nunits or C.sb_shared_aborted() then break end
    local set, w, d = unit_of(c, k)
    if not st.finished[unit_key(set, w, d)] and my_unit(set, w, d) then
      load_unit(con, c, st, sink, set, w, d)
    end
  end
  barrier(c)
  return (common.now_ms() - t_load) / 1000
end

-- Phase E: foreign keys per set (sets over the threads), then ANALYZE of
-- every table (over the threads). Returns the FK seconds.
local function keys_and_analyze(con, c, tid)
  local t_fk = common.now_ms()
  if c.use_fk == 1 then
    if tid == 0 then print("Adding foreign keys...") end
    for n = tid + 1, c.tables, c.threads do
      if fk_count(con, c, n) == 0 then schema.add_foreign_keys(con, c, n) end
    end
  end
  barrier(c)
  local fk_s = (common.now_ms() - t_fk) / 1000
  local jobs = {}
  for n = 1, c.tables do
    for _, name in ipairs(common.TABLES) do jobs[#jobs + 1] = common.tname(name, n) end
  end
  if tid == 0 then C.sb_shared_set(SLOT.JOB, 0) end
  barrier(c)
  drain(#jobs, function(j)
    common.rows(con, (c.pg and "ANALYZE " or "ANALYZE TABLE ") .. jobs[j + 1])
  end)
  barrier(c)
  return fk_s
end

-- A process > 0 of a cluster prepare: process 0 made the schema ready
-- (it said so before this one started). Returns the decision: 3 when
-- the schema is complete already, else 1.
local function follow(con, c)
  local meta = common.read_meta(con, c)
  if meta and meta.state == "complete" then return 3 end
  if not meta or meta.state ~= "loading" then
    common.fail("cluster prepare: process 0 has not made the tpcc schema ready (state '%s'): " ..
                  "run prepare through bmk cluster run", meta and tostring(meta.state) or "none")
  end
  return 1
end

local function prepare_body(c, tid)
  local con = common.connect(c, "load")
  local t_start = common.now_ms()
  local cl = sysbench.cluster
  local lead = cl.index == 0
  if not lead then
    if tid == 0 then C.sb_shared_set(SLOT.DECISION, follow(con, c)) end
    barrier(c)
    if tonumber(C.sb_shared_get(SLOT.DECISION)) == 3 then return true end
    if tid == 0 then C.sb_shared_set(SLOT.UNIT, 0) end
    barrier(c)
    local load_s = load_units(con, c, tid, common.read_meta(con, c))
    if tid == 0 then
      M.print_summary(c, load_s, 0, 0, (common.now_ms() - t_start) / 1000)
    end
    con:disconnect()
    return true
  end
  -- Phase A: thread 0 decides (and on a fresh prepare writes tpcc_meta).
  if tid == 0 then
    if c.pg and c.schema ~= "public" then
      con:query("CREATE SCHEMA IF NOT EXISTS " .. c.schema)
    end
    local d = decide(con, c)
    if d == 1 then start_fresh(con, c) end
    C.sb_shared_set(SLOT.DECISION, d)
  end
  barrier(c)
  local decision = tonumber(C.sb_shared_get(SLOT.DECISION))
  if decision == 3 then return true end
  local meta = common.read_meta(con, c)
  -- Phase B: tables, sets spread over the threads.
  if tid == 0 then
    print(string.format("Creating tables: %d set(s) of 9 tables...", c.tables))
  end
  for n = tid + 1, c.tables, c.threads do create_tables(con, c, n) end
  barrier(c)
  if c.index_build == "before" then build_indexes(con, c, tid, false) end
  if tid == 0 then
    if decision == 2 then clear_cut_units(con, c) end
    C.sb_shared_set(SLOT.UNIT, 0)
  end
  barrier(c)
  -- a cluster prepare: the other processes start now (docs/cluster.md)
  if tid == 0 then cl.go() end
  local load_s = load_units(con, c, tid, meta)
  if tid == 0 and cl.size > 1 then
    print("Waiting for the other processes' load units...")
    wait_all_units(con, c, total_units(c))
  end
  barrier(c)
  local t_ix = common.now_ms()
  if c.index_build == "after" then build_indexes(con, c, tid, true) end
  local ix_s = (common.now_ms() - t_ix) / 1000
  local fk_s = keys_and_analyze(con, c, tid)
  if tid == 0 then
    common.write_meta(con, c, { state = "indexed" })
    require("tpcc_sp").create_all(con, c, meta)
    common.write_meta(con, c, { state = "complete" })
    M.print_summary(c, load_s, ix_s, fk_s, (common.now_ms() - t_start) / 1000)
  end
  con:disconnect()
  return true
end

-- "12345" (decimal text) -> uint64_t cdata.
function M.parse_u64(s)
  local v = ffi.new("uint64_t", 0)
  for ch in tostring(s):gmatch("%d") do
    v = v * 10 + (ch:byte() - 48)
  end
  return v
end

function M.print_summary(c, load_s, ix_s, fk_s, total_s)
  local s = sums()
  print("")
  print(string.format("Load summary (%d thread(s), data %.1fs):", c.threads, load_s))
  print(string.format("  %-12s %12s %12s %12s", "table", "rows", "thread-s", "rows/s"))
  local total = 0
  for _, t in ipairs(TABLE_ORDER) do
    local rows = tonumber(s[CNT_ROWS + t])
    total = total + rows
    print(string.format("  %-12s %12d %12.1f %12.0f", ffi.string(C.sb_tpcc_table_name(t)),
                        rows, tonumber(s[CNT_MS + t]) / 1000, rows / math.max(load_s, 0.001)))
  end
  print(string.format("  %-12s %12d %12s %12.0f", "total", total, "", total / math.max(load_s, 0.001)))
  print(string.format("  secondary indexes %.1fs, foreign keys %.1fs, total %.1fs", ix_s, fk_s, total_s))
end

-- `prepare` in thread `sysbench.tid` of --threads (a PARALLEL_COMMAND).
-- A failing thread aborts the others, so the command prints one FATAL
-- line and exits 1.
function M.cmd_prepare()
  return common.parallel_command(prepare_body)
end

-- `cleanup`: drops every tpcc object, procedures included.
function M.cmd_cleanup()
  local c = common.config()
  local con = common.monitor(c)
  local meta = common.read_meta(con, c)
  local sets = math.max(c.tables, meta and tonumber(meta.tables) or 0)
  print(string.format("Dropping the tpcc tables and procedures of %d set(s)...", sets))
  require("tpcc_sp").drop_all(con, c, sets)
  local n = schema.drop_all(con, c, sets)
  print(string.format("%d table(s) dropped", n))
  con:disconnect()
end

return M
