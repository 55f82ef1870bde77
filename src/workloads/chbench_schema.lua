-- bmk chbench: the tables CH-benCHmark adds to TPC-C's (SUPPLIER, NATION,
-- REGION): their definitions, their rows (generated from the seed that
-- tpcc's prepare recorded, so the same --rand-seed gives the same rows on
-- every database), their load (the fast path of --load-method, else
-- multi-row INSERTs), their fixed facts for `check`, and their cleanup.
-- docs/chbench.md "Schema".

local common = require("tpcc_common")
local ffi = common.ffi
local C = common.C

local M = {}

M.TABLES = { "region", "nation", "supplier" }
M.SUPPLIERS = 10000

-- CH-benCHmark's regions (keys 1..5) and 62 nations (key, name, region
-- key), as the paper defines them: a nation's key is the character code
-- of one of 0-9, A-Z, a-z, so that the first character of a customer's
-- c_state is its nation (ascii(substr(c_state,1,1)) = n_nationkey); the
-- names are the paper's, "Finnland" included.
M.REGIONS = { "Africa", "America", "Asia", "Australia", "Europe" }
M.NATIONS = {
  { 48, "Australia", 4 }, { 49, "Belgium", 5 }, { 50, "Cameroon", 1 },
  { 51, "Denmark", 5 }, { 52, "Ecuador", 2 }, { 53, "France", 5 }, { 54, "Germany", 5 },
  { 55, "Hungary", 5 }, { 56, "Italy", 5 }, { 57, "Japan", 3 }, { 65, "Kenya", 1 },
  { 66, "Lithuania", 5 }, { 67, "Mexico", 2 }, { 68, "Netherlands", 5 }, { 69, "Oman", 1 },
  { 70, "Portugal", 5 }, { 71, "Qatar", 1 }, { 72, "Rwanda", 1 }, { 73, "Serbia", 5 },
  { 74, "Togo", 1 }, { 75, "United States", 2 }, { 76, "Vietnam", 3 },
  { 77, "Singapore", 3 }, { 78, "Cambodia", 3 }, { 79, "Yemen", 1 }, { 80, "Zimbabwe", 1 },
  { 81, "Argentina", 2 }, { 82, "Bolivia", 2 }, { 83, "Canada", 2 },
  { 84, "Dominican Republic", 2 }, { 85, "Egypt", 1 }, { 86, "Finnland", 5 },
  { 87, "Ghana", 1 }, { 88, "Haiti", 2 }, { 89, "India", 3 }, { 90, "Jamaica", 4 },
  { 97, "Kazakhstan", 3 }, { 98, "Luxembourg", 5 }, { 99, "Morocco", 1 },
  { 100, "Norway", 5 }, { 101, "Poland", 5 }, { 102, "Peru", 2 }, { 103, "Nicaragua", 2 },
  { 104, "Romania", 5 }, { 105, "South Africa", 1 }, { 106, "Thailand", 3 },
  { 107, "United Kingdom", 5 }, { 108, "Venezuela", 2 }, { 109, "Liechtenstein", 5 },
  { 110, "Austria", 5 }, { 111, "Laos", 3 }, { 112, "Zambia", 1 },
  { 113, "Switzerland", 5 }, { 114, "China", 3 }, { 115, "Papua New Guinea", 4 },
  { 116, "East Timor", 4 }, { 117, "Bulgaria", 5 }, { 118, "Brazil", 2 },
  { 119, "Albania", 5 }, { 120, "Andorra", 5 }, { 121, "Belize", 2 },
  { 122, "Botswana", 1 },
}

local DDL = {
  region = "CREATE TABLE region (r_regionkey int NOT NULL, r_name varchar(25) NOT NULL, " ..
    "r_comment varchar(152), PRIMARY KEY (r_regionkey))",
  nation = "CREATE TABLE nation (n_nationkey int NOT NULL, n_name varchar(25) NOT NULL, " ..
    "n_regionkey int NOT NULL, n_comment varchar(152), PRIMARY KEY (n_nationkey))",
  supplier = "CREATE TABLE supplier (su_suppkey int NOT NULL, su_name varchar(25) NOT NULL, " ..
    "su_address varchar(40) NOT NULL, su_nationkey int NOT NULL, su_phone char(15) NOT NULL, " ..
    "su_acctbal decimal(12,2) NOT NULL, su_comment varchar(101) NOT NULL, " ..
    "PRIMARY KEY (su_suppkey))",
}
local COLUMNS = {
  region = "r_regionkey,r_name,r_comment",
  nation = "n_nationkey,n_name,n_regionkey,n_comment",
  supplier = "su_suppkey,su_name,su_address,su_nationkey,su_phone,su_acctbal,su_comment",
}

-- The rows of each table as arrays of field strings, drawn from `seed`
-- (uint64_t cdata, tpcc_meta's seed): comments and addresses are TPC-C
-- a-strings; one supplier in a hundred has "bad" in its comment (what
-- query 16 looks for). Pure function of the seed.
function M.rows(seed)
  local r = ffi.new("sb_rand_stream_t")
  C.sb_tpcc_seed(r, seed, 0x43484348, 0, 0, 0)             -- "CHCH"
  local buf = ffi.new("char[128]")
  local function astr(lo, hi)
    return ffi.string(buf, C.sb_tpcc_astring(r, buf, lo, hi))
  end
  local function rnd(lo, hi) return tonumber(C.sb_tpcc_rand(r, lo, hi)) end
  local out = { region = {}, nation = {}, supplier = {} }
  for k, name in ipairs(M.REGIONS) do
    out.region[k] = { tostring(k), name, astr(31, 115) }
  end
  for k, n in ipairs(M.NATIONS) do
    out.nation[k] = { tostring(n[1]), n[2], tostring(n[3]), astr(31, 114) }
  end
  for k = 1, M.SUPPLIERS do
    local ni = rnd(1, #M.NATIONS)
    local nk = M.NATIONS[ni][1]
    local comment = astr(25, 100)
    if rnd(1, 100) == 1 then
      local at = rnd(1, #comment - 3)
      comment = comment:sub(1, at - 1) .. "bad" .. comment:sub(at + 3)
    end
    local cents = rnd(-99999, 999999)
    out.supplier[k] = {
      tostring(k), string.format("Supplier#%09d", k), astr(10, 40), tostring(nk),
      string.format("%02d-%03d-%03d-%04d", ni + 10, rnd(100, 999), rnd(100, 999), rnd(1000, 9999)),
      string.format("%s%d.%02d", cents < 0 and "-" or "", math.floor(math.abs(cents) / 100),
                    math.abs(cents) % 100),
      comment,
    }
  end
  return out
end

-- Loads `rows` into table `t` on `con`: one fast-load statement (COPY /
-- LOAD DATA LOCAL INFILE) when `fast`, else INSERTs of 1000 rows.
local function load_table(con, t, rows, fast)
  if fast then
    local lines = {}
    for i, r in ipairs(rows) do lines[i] = table.concat(r, "\t") end
    local text = table.concat(lines, "\n") .. "\n"
    local colv = ffi.new("const char *[1]")
    colv[0] = COLUMNS[t]
    if C.db_load_start(con, t, colv, 1) ~= 0 or C.db_load_rows(con, text, #text) ~= 0 or
       C.db_load_finish(con, nil, nil) ~= 0 then
      C.db_load_cancel(con, nil)
      common.fail("loading %s failed: %s", t, ffi.string(C.db_conn_sql_errmsg(con)))
    end
    return
  end
  for first = 1, #rows, 1000 do
    local vals = {}
    for i = first, math.min(first + 999, #rows) do
      local f = {}
      for j, v in ipairs(rows[i]) do f[j] = common.quote(v) end
      vals[#vals + 1] = "(" .. table.concat(f, ",") .. ")"
    end
    con:query("INSERT INTO " .. t .. " (" .. COLUMNS[t] .. ") VALUES " .. table.concat(vals, ","))
  end
end

-- Whether the fast path loads: --load-method copy/infile, or auto with
-- PostgreSQL, or auto with MySQL's local_infile ON (tpcc's rule).
local function fast_path(con, c)
  if c.load_method == "copy" then return C.db_load_supported(con) end
  if c.load_method ~= "auto" then return false end
  local v = tostring(common.value(con, "SELECT @@local_infile") or ""):upper()
  return (v == "1" or v == "ON") and C.db_load_supported(con)
end

-- Drops the added tables that exist. Returns how many were dropped.
function M.drop(con, c)
  local n = 0
  for i = #M.TABLES, 1, -1 do
    if common.table_exists(con, c, M.TABLES[i]) then
      con:query("DROP TABLE " .. M.TABLES[i])
      n = n + 1
    end
  end
  return n
end

-- Creates and loads the added tables unless they are there already with
-- their rows (then nothing); --force makes them again. Thread 0 of
-- prepare, after tpcc's load. Raises on failure.
function M.prepare(c)
  local con = common.connect(c, "load")
  local meta = common.read_meta(con, c)
  if not meta or not meta.seed then
    common.fail("tpcc_meta has no seed: the TPC-C tables were not prepared by bmk")
  end
  local present = 0
  for _, t in ipairs(M.TABLES) do
    if common.table_exists(con, c, t) then present = present + 1 end
  end
  if present == #M.TABLES and not c.force and #M.facts(con) == 0 then
    print("The CH-benCHmark tables (supplier, nation, region) are already loaded; nothing to do.")
    con:disconnect()
    return
  end
  M.drop(con, c)
  local fast = fast_path(con, c)
  local t0 = common.now_ms()
  local rows = M.rows(require("tpcc_load").parse_u64(meta.seed))
  for _, t in ipairs(M.TABLES) do
    con:query(DDL[t])
    load_table(con, t, rows[t], fast)
    common.rows(con, (c.pg and "ANALYZE " or "ANALYZE TABLE ") .. t)
  end
  print(string.format("CH-benCHmark tables: %d suppliers, %d nations, %d regions loaded (%s) " ..
                        "in %.1fs", #rows.supplier, #rows.nation, #rows.region,
                      fast and "fast path" or "INSERT", (common.now_ms() - t0) / 1000))
  con:disconnect()
end

-- The added tables' fixed facts that do not hold on `con`: an array of
-- messages (empty when all hold).
function M.facts(con)
  local bad = {}
  local function want(sql, n, what)
    local ok, v = pcall(common.value, con, sql)
    v = ok and tonumber(v) or nil
    if v ~= n then
      bad[#bad + 1] = string.format("%s: %s, want %d", what, v and tostring(v) or "unreadable", n)
    end
  end
  want("SELECT COUNT(*) FROM region", #M.REGIONS, "regions")
  want("SELECT COUNT(*) FROM nation", #M.NATIONS, "nations")
  want("SELECT COUNT(*) FROM supplier", M.SUPPLIERS, "suppliers")
  want("SELECT COUNT(DISTINCT su_suppkey) FROM supplier WHERE su_suppkey BETWEEN 1 AND " ..
         M.SUPPLIERS, M.SUPPLIERS, "supplier keys 1.." .. M.SUPPLIERS)
  want("SELECT COUNT(*) FROM supplier LEFT JOIN nation ON n_nationkey = su_nationkey " ..
         "WHERE n_nationkey IS NULL", 0, "suppliers without a nation")
  want("SELECT COUNT(*) FROM nation LEFT JOIN region ON r_regionkey = n_regionkey " ..
         "WHERE r_regionkey IS NULL", 0, "nations without a region")
  want("SELECT COUNT(*) FROM region WHERE r_name IN ('" .. table.concat(M.REGIONS, "','") ..
         "')", #M.REGIONS, "CH-benCHmark's region names")
  return bad
end

-- The added tables missing on `con` (an array of names).
function M.missing(con, c)
  local out = {}
  for _, t in ipairs(M.TABLES) do
    if not common.table_exists(con, c, t) then out[#out + 1] = t end
  end
  return out
end

return M
