-- bmk tpch: `prepare` and `cleanup`. prepare creates the tables, loads
-- dbgen's rows straight from the C generator (src/datagen/sb_tpch_gen.h)
-- in chunks drained from one queue by all --threads, through the fast
-- load path (PostgreSQL COPY FROM STDIN, MySQL LOAD DATA LOCAL INFILE; one
-- statement per --load-batch parent rows and one for their children) or
-- multi-row INSERTs, prints progress lines with an ETA, then adds the
-- primary keys (PostgreSQL), the foreign keys and secondary indexes asked
-- for, runs ANALYZE and records the state in tpch_meta. docs/tpch.md.

local common = require("tpch_common")
local schema = require("tpch_schema")
local ffi = common.ffi
local C = common.C

local M = {}

-- One slot per post-load phase (job cursors, never reset).
local PHASE_SLOTS = { pkeys = 8, keys = 9, analyze = 10 }

local PCAP, CCAP = 8 * 1024 * 1024, 32 * 1024 * 1024

local function quote(s)
  return "'" .. tostring(s):gsub("'", "''") .. "'"
end

local function write_meta(con, kv)
  for k, v in pairs(kv) do
    con:query("DELETE FROM tpch_meta WHERE k=" .. quote(k))
    con:query("INSERT INTO tpch_meta (k, v) VALUES (" .. quote(k) .. "," .. quote(v) .. ")")
  end
end

-- --load-method=auto: COPY on PostgreSQL; LOAD DATA LOCAL INFILE on MySQL
-- when the server allows local_infile, else multi-row INSERT.
local function resolve_method(con, c)
  if c.load_method ~= "auto" then return c.load_method end
  if c.pg then return "copy" end
  local v = common.value(con, "SELECT @@GLOBAL.local_infile")
  return tonumber(v) == 1 and "copy" or "insert"
end

-- A loader of one thread: buffers and the statement text per table.
local function new_loader(con, c, method)
  return { con = con, c = c, method = method,
           buf = ffi.new("char[?]", PCAP), cbuf = ffi.new("char[?]", CCAP),
           len = ffi.new("size_t[1]"), clen = ffi.new("size_t[1]"),
           colv = ffi.new("const char *[1]"), cols = {}, prefix = {} }
end

local function load_failed(ld, t)
  local con = ld.con
  local hint = ""
  if ld.c.driver == "mysql" and ld.method == "copy" then
    hint = " (LOAD DATA LOCAL INFILE needs local_infile=1 on the server; or use " ..
      "--load-method=insert)"
  end
  common.fail("loading %s failed: %s%s", common.name(t), ffi.string(C.db_conn_sql_errmsg(con)),
              hint)
end

-- Sends buf[0..len) of table t as one statement.
local function send(ld, t, buf, len)
  local con = ld.con
  if ld.method == "insert" then
    -- the text is the INSERT prefix and tuples ending in ','
    if C.db_query(con, buf, len - 1) == nil then load_failed(ld, t) end
    return
  end
  local cols = ld.cols[t]
  if not cols then
    cols = ffi.string(C.sb_tpch_columns(t))
    ld.cols[t] = cols
  end
  ld.colv[0] = cols
  if C.db_load_start(con, common.name(t), ld.colv, 1) ~= 0 or
     C.db_load_rows(con, buf, len) ~= 0 or
     C.db_load_finish(con, nil, nil) ~= 0 then
    C.db_load_cancel(con, nil)
    load_failed(ld, t)
  end
end

-- Starts a buffer: the INSERT prefix of table t, or nothing.
local function start(ld, t, buf, lenp)
  lenp[0] = 0
  if ld.method ~= "insert" then return end
  local p = ld.prefix[t]
  if not p then
    p = string.format("INSERT INTO %s (%s) VALUES ", common.name(t),
                      ffi.string(C.sb_tpch_columns(t)))
    ld.prefix[t] = p
  end
  ffi.copy(buf, p, #p)
  lenp[0] = #p
end

-- Loads one job (a chunk of a family), counting rows in `cnt`.
local function load_job(ld, job, cnt, tick)
  local c = ld.c
  local child = common.child(job.t)
  local fmt = ld.method == "insert" and common.FMT.sql or common.FMT.tsv
  local g = C.sb_tpch_gen_new(c.sf, job.t, job.chunk, job.chunks)
  if g == nil then common.fail("out of memory for the generator (the text pool takes 300 MiB)") end
  local seen = 0
  local ok, err = pcall(function()
    while true do
      start(ld, job.t, ld.buf, ld.len)
      if child then start(ld, child, ld.cbuf, ld.clen) end
      local n = C.sb_tpch_gen_rows(g, fmt, ld.buf, PCAP, ld.len, child and ld.cbuf or nil,
                                   CCAP, ld.clen, c.load_batch)
      if n == 0 then break end
      send(ld, job.t, ld.buf, ld.len[0])
      if child then send(ld, child, ld.cbuf, ld.clen[0]) end
      seen = common.count_batch(cnt, common.CNT_ROWS, g, job.t, n, child, seen, tick)
    end
  end)
  C.sb_tpch_gen_free(g)
  if not ok then error(err, 0) end
  cnt[common.CNT_JOBS] = cnt[common.CNT_JOBS] + 1
end

-- Runs the statements `list` of one phase spread over the threads.
local function phase(con, c, slot, list)
  while true do
    local k = tonumber(C.sb_shared_add(slot, 1))
    if k >= #list then break end
    con:query(list[k + 1])
  end
  common.barrier(c)
end

local function post_load(con, c, tid)
  local t0 = common.now_ms()
  local pk, keys, an = {}, {}, {}
  for _, t in ipairs(schema.TABLES) do
    pk[#pk + 1] = schema.pkey_sql(c, t)
    an[#an + 1] = schema.analyze_sql(c, t)
  end
  if c.indexes then
    for _, ix in ipairs(schema.INDEXES) do keys[#keys + 1] = schema.index_sql(ix) end
  end
  if c.fk then
    for _, fk in ipairs(schema.FKEYS) do keys[#keys + 1] = schema.fkey_sql(fk) end
  end
  if tid == 0 then
    print(string.format("Adding %s%s%s, then ANALYZE...",
                        c.pg and "primary keys" or "no keys (primary keys made with the tables)",
                        c.indexes and ", secondary indexes" or "",
                        c.fk and ", foreign keys" or ""))
    io.stdout:flush()
  end
  phase(con, c, PHASE_SLOTS.pkeys, pk)
  phase(con, c, PHASE_SLOTS.keys, keys)
  phase(con, c, PHASE_SLOTS.analyze, an)
  return (common.now_ms() - t0) / 1000
end

local function create_all(con, c)
  if c.pg and c.schema ~= "public" then
    con:query("CREATE SCHEMA IF NOT EXISTS " .. c.schema)
    con:query("SET search_path TO " .. c.schema)
  end
  for _, t in ipairs(common.DROP_ORDER) do
    if common.table_exists(con, c, t) then
      common.fail("tpch table %s exists already in %s: run `bmk tpch cleanup` first",
                  t, c.pg and ("schema " .. c.schema) or "the database")
    end
  end
  con:query("CREATE TABLE tpch_meta (k VARCHAR(64) NOT NULL PRIMARY KEY, v VARCHAR(255))")
  write_meta(con, { state = "loading", scale = tostring(c.sf), chunks = c.chunks })
  for _, t in ipairs(schema.TABLES) do con:query(schema.create_sql(c, t)) end
end

local function print_summary(c, method, load_s, post_s)
  local s = common.sums()
  print("")
  print(string.format("Load summary (SF %s, %s, %d chunk(s), %d thread(s), data %.1fs, " ..
                        "keys and ANALYZE %.1fs):", tostring(c.sf), method, c.chunks,
                      c.threads, load_s, post_s))
  print(string.format("  %-10s %12s %12s", "table", "rows", "rows/s"))
  local total = 0
  for t = 0, common.NT - 1 do
    local rows = tonumber(s[common.CNT_ROWS + t])
    total = total + rows
    print(string.format("  %-10s %12d %12.0f", common.name(t), rows, rows / math.max(load_s, 0.001)))
  end
  print(string.format("  %-10s %12d %12.0f", "total", total, total / math.max(load_s, 0.001)))
end

local function body(c, tid)
  common.need_sql(c)
  if c.chunks == 0 then c.chunks = c.threads * 4 end
  local con = common.connect(c, false)
  local method = resolve_method(con, c)
  if c.load_batch == 0 then c.load_batch = method == "copy" and 10000 or 1000 end
  local jobs = common.jobs(c, c.chunks)
  if tid == 0 then
    create_all(con, c)
    print(string.format("Loading TPC-H-derived data, SF %s: 8 tables, %d job(s), %d " ..
                          "thread(s), %s...", tostring(c.sf), #jobs, c.threads,
                        method == "copy" and (c.pg and "COPY" or "LOAD DATA LOCAL INFILE")
                          or "multi-row INSERT"))
    io.stdout:flush()
    common.start_jobs()
  end
  local ld = new_loader(con, c, method)
  local load_s = common.run_jobs(c, tid, jobs, "load", function(job, cnt, tick)
    load_job(ld, job, cnt, tick)
  end)
  local post_s = post_load(con, c, tid)
  if tid == 0 then
    local s = common.sums()
    -- qgen's seed for run (TPC-H clause 2.1.3.3: the load's end as
    -- mmddhhmmss), the first update set
    write_meta(con, { state = "complete", seed = tostring(tonumber(os.date("%m%d%H%M%S"))),
                      rf_next = 1, rf_state = "none", lineitem_rows =
                        tostring(tonumber(s[common.CNT_ROWS + common.T.lineitem])),
                      fk = c.fk and "on" or "off", indexes = c.indexes and "on" or "off" })
    print_summary(c, method, load_s, post_s)
  end
  con:disconnect()
  return true
end

-- `prepare` in thread sysbench.tid of --threads (a PARALLEL_COMMAND).
function M.cmd_prepare()
  return common.parallel_command(body)
end

-- `cleanup`: drops the tpch tables and tpch_meta.
function M.cmd_cleanup()
  local c = common.config()
  common.need_sql(c)
  local con = common.connect(c, true)
  local n = 0
  for _, t in ipairs(common.DROP_ORDER) do
    if common.table_exists(con, c, t) then
      con:query(schema.drop_sql(c, t))
      n = n + 1
    end
  end
  print(string.format("Dropped %d tpch table(s)", n))
  con:disconnect()
end

return M
