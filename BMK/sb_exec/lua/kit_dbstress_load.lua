-- bmk kit, dbSTRESS: schema, data and the data-set commands create,
-- prepare, warmup/prewarm and cleanup (docs/kit-dbstress.md).

local opts = require("kit_dbstress_opts")

local M = {}

local BATCH = 100            -- objects per OBJECT INSERT (x20 HISTORY rows)
local HISTORY_PER_OBJECT = 20
local PROGRESS_EVERY = 100000

local function connect()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  opts.apply_session(con, drv)
  return drv, con
end

-- ---- schema ------------------------------------------------------------------

-- Text after the column list: ENGINE and table options on MySQL, nothing
-- on PostgreSQL.
local function table_suffix(pg)
  if pg then
    return ""
  end
  local s = " ENGINE=" .. sysbench.opt.mysql_storage_engine
  if sysbench.opt.mysql_table_options ~= "" then
    s = s .. " " .. sysbench.opt.mysql_table_options
  end
  if sysbench.opt.mysql_table_compression ~= "" then
    s = s .. " compression='" .. sysbench.opt.mysql_table_compression .. "'"
  end
  return s
end

local function ddl(n, pg)
  local e = table_suffix(pg)
  return {
    "CREATE TABLE ZONE" .. n ..
      " ( REF CHAR(2) not null, NAME CHAR(40) not null )" .. e,
    "CREATE TABLE STAT" .. n ..
      " ( REF CHAR(3) not null, NAME CHAR(40) not null, NUMB INT not null )" .. e,
    "CREATE TABLE SECTION" .. n ..
      " ( REF CHAR(2) not null, REF_ZONE CHAR(2) not null, NAME CHAR(40) not null )" .. e,
    "CREATE TABLE OBJECT" .. n ..
      " ( REF CHAR(10) not null, REF_SECTION CHAR(2) not null, NAME CHAR(30) not null," ..
      " CREATE_DATE CHAR(12) not null, NOTE CHAR(100) )" .. e,
    "CREATE TABLE HISTORY" .. n ..
      " ( REF_OBJECT CHAR(10) not null, HORDER INT not null, REF_STAT CHAR(3) not null," ..
      " BEGIN_DATE CHAR(12) not null, END_DATE CHAR(12), NOTE CHAR(100) )" .. e,
  }
end

-- Index names get the set number on PostgreSQL, where they share one
-- namespace per schema.
local function indexes(n, pg)
  local sfx = pg and tostring(n) or ""
  return {
    string.format("create unique index zone_ref_idx%s on ZONE%d( ref )", sfx, n),
    string.format("create unique index stat_ref_idx%s on STAT%d( ref )", sfx, n),
    string.format("create unique index section_ref_idx%s on SECTION%d( ref )", sfx, n),
    string.format("create unique index object_ref_idx%s on OBJECT%d( ref )", sfx, n),
    string.format("create %sindex history_ref_idx%s on HISTORY%d( ref_object, horder )",
                  sysbench.opt.hpk and "unique " or "", sfx, n),
  }
end

local table_exists = require("mysql_common").table_exists

-- ---- data --------------------------------------------------------------------

local X12 = string.rep("X", 12)
local X75 = string.rep("X", 75)
local X72 = string.rep("X", 72)   -- 10 + 3 + 15 + 72 = 100 characters

local function populate_references(con, n)
  local rows = {}
  for i = 0, 9 do
    rows[#rows + 1] = string.format("('%02d','Zone %02d %s')", i, i, string.rep("X", 30))
  end
  con:query("INSERT INTO ZONE" .. n .. " VALUES " .. table.concat(rows, ","))
  rows = {}
  for i = 0, 99 do
    rows[#rows + 1] = string.format("('%02d','%02d','Section %02d %s')",
                                    i, i % 10, i, string.rep("X", 27))
  end
  con:query("INSERT INTO SECTION" .. n .. " VALUES " .. table.concat(rows, ","))
  rows = {}
  for i = 0, 999 do
    rows[#rows + 1] = string.format("('%03d','Status %03d %s',0)", i, i, string.rep("X", 29))
  end
  con:query("INSERT INTO STAT" .. n .. " VALUES " .. table.concat(rows, ","))
end

-- Loads objects a..b-1 of set n: one OBJECT INSERT and one HISTORY INSERT.
local function load_batch(con, n, a, b)
  local date, fmt = opts.date, string.format
  local orows, hrows = {}, {}
  for i = a, b - 1 do
    local ref = opts.ref(i)
    orows[#orows + 1] = fmt("('%s','%02d','%s NAME %s','%s','%s NOTES %s')",
                            ref, i % 100, ref, X12, date(i), ref, X75)
    for j = 0, HISTORY_PER_OBJECT - 1 do
      local d = date(i + j)
      hrows[#hrows + 1] = fmt("('%s',%d,'%03d','%s','%s','%s_%02d HISTORY NOTES %s')",
                              ref, j, (i + 10 * j) % 1000, d, d, ref, j, X72)
    end
  end
  con:query("INSERT INTO OBJECT" .. n .. " VALUES " .. table.concat(orows, ","))
  con:query("INSERT INTO HISTORY" .. n .. " VALUES " .. table.concat(hrows, ","))
end

-- work(g, P, T, S, ordered): the loading work of global loader g among P
-- (the kit OLTP split, sets as tables): a list of
-- {set = n, batches = {{a, b}, ...}} where each batch is objects [a, b) of
-- at most 100 objects.
function M.work(g, P, T, S, ordered)
  local list = {}
  local function whole(n)
    local batches = {}
    for a = 0, S - 1, BATCH do
      batches[#batches + 1] = {a, math.min(a + BATCH, S)}
    end
    list[#list + 1] = {set = n, batches = batches}
  end
  if P <= T then
    for n = g + 1, T, P do
      whole(n)
    end
    return list
  end
  local n = g % T + 1
  local nj = math.floor((P - n) / T) + 1   -- loaders t < P with t mod T = n-1
  local c = math.floor(g / T)
  local batches = {}
  if ordered then
    local nblocks = math.ceil(S / BATCH)
    for blk = c, nblocks - 1, nj do
      batches[#batches + 1] = {blk * BATCH, math.min((blk + 1) * BATCH, S)}
    end
  else
    local lo = math.floor(c * S / nj)
    local hi = math.floor((c + 1) * S / nj)
    for a = lo, hi - 1, BATCH do
      batches[#batches + 1] = {a, math.min(a + BATCH, hi)}
    end
  end
  list[1] = {set = n, batches = batches}
  return list
end

-- ---- commands ---------------------------------------------------------------------

-- Validates the options; prints `FATAL: <reason>` and returns false when
-- one is invalid (the command then returns false: exit 1).
local function config_ok()
  local ok, err = pcall(opts.config)
  if not ok then
    print("FATAL: " .. err)
  end
  return ok
end

-- create (global state, thread 0): tables, indexes and reference rows of
-- every set. Refuses to touch anything when one of the tables exists.
-- Returns false (exit 1) on refusal.
function M.cmd_create()
  if not config_ok() then
    return false
  end
  local drv, con = connect()
  local pg = opts.is_pg(drv)
  opts.mysql_only_notices(drv)
  for n = 1, sysbench.opt.obj_tables do
    for _, t in ipairs(opts.table_names(n)) do
      if table_exists(con, pg, t) then
        print(string.format("FATAL: table %s already exists; run cleanup first", t))
        con:disconnect()
        return false
      end
    end
  end
  local engine = pg and "PostgreSQL" or sysbench.opt.mysql_storage_engine
  local ext = pg and "" or table_suffix(pg):gsub("^ ENGINE=%S+ ?", "")
  for n = 1, sysbench.opt.obj_tables do
    print(string.format("* Creating OBJECT set #%d... [engine: %s ext: %s]", n, engine, ext))
    for _, q in ipairs(ddl(n, pg)) do
      con:query(q)
    end
    print(string.format("* Creating indexes in set #%d [hpk:%s]...", n,
                        tostring(sysbench.opt.hpk)))
    for _, q in ipairs(indexes(n, pg)) do
      con:query(q)
    end
    print(string.format("* Populating reference tables in set #%d...", n))
    populate_references(con, n)
  end
  print("* Done. Ready for 'prepare' step...")
  con:disconnect()
end

-- prepare (parallel): loads OBJECT and HISTORY of the sets/chunks that
-- the kit's load split gives this thread, 100 objects per batch.
function M.cmd_prepare()
  if not config_ok() then
    return false
  end
  local o = sysbench.opt
  local g, P = opts.gid(), opts.threads_total()
  local S = o.obj_table_size
  local drv, con = connect()
  if sysbench.tid == 0 then
    opts.mysql_only_notices(drv)
    print(string.format("=> OBJECT LOAD MODE : [%s]",
                        o.ordered_load and "parallel_ordered" or "parallel"))
  end
  local work = M.work(g, P, o.obj_tables, S, o.ordered_load)
  for _, w in ipairs(work) do
    for _, t in ipairs({"OBJECT" .. w.set, "HISTORY" .. w.set}) do
      if not table_exists(con, opts.is_pg(drv), t) then
        print(string.format("FATAL: table %s does not exist; run 'create' first", t))
        con:disconnect()
        return false
      end
    end
  end
  local t0 = opts.now()
  for _, w in ipairs(work) do
    for k, batch in ipairs(w.batches) do
      local a = batch[1]
      if k == 1 or a % PROGRESS_EVERY == 0 then
        print(string.format("Loading DATA OBJECT#%d => %sM | range [%sK,+100K]...",
                            w.set, opts.millions(S), string.format("%g", a / 1000)))
      end
      load_batch(con, w.set, a, batch[2])
    end
  end
  print(string.format("=> TOTAL OBJECTs/HISTORY LOAD TIME @thread-%02d : %.2f min.",
                      g, (opts.now() - t0) / 60))
  con:disconnect()
end

-- warmup / prewarm (parallel): set n is handled by thread (n-1) mod threads.
function M.cmd_warmup()
  local drv, con = connect()
  local pg = opts.is_pg(drv)
  for n = sysbench.tid + 1, sysbench.opt.obj_tables, sysbench.opt.threads do
    for _, t in ipairs(opts.table_names(n)) do
      con:query((pg and "ANALYZE " or "ANALYZE TABLE ") .. t)
    end
    for _, t in ipairs({"OBJECT" .. n, "HISTORY" .. n}) do
      print("Preloading table: " .. t)
      -- an aggregate over every row: the whole table is read, nothing
      -- is shipped to the client
      con:query(string.format("SELECT COUNT(*), SUM(LENGTH(NOTE)) FROM %s", t))
      if not pg and t:sub(1, 7) == "HISTORY" then
        -- the secondary HISTORY index (SEL2's access path) is read by
        -- an index-only count
        con:query(string.format("SELECT COUNT(REF_OBJECT) FROM %s", t))
      end
    end
  end
  con:disconnect()
end

-- cleanup (global state): drops the five tables of every set.
function M.cmd_cleanup()
  local _, con = connect()
  for n = 1, sysbench.opt.obj_tables do
    print(string.format("Dropping OBJECT set #%d ...", n))
    for _, t in ipairs(opts.table_names(n)) do
      con:query("DROP TABLE IF EXISTS " .. t)
    end
  end
  con:disconnect()
end

return M
