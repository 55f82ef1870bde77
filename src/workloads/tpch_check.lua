-- bmk tpch: `check`: the loaded data against what the generator makes and
-- the relations dbgen's data have: row counts for the scale factor (the
-- line items against the count the load recorded), dbgen's fixed facts
-- (5 regions, 25 nations and their regions), sparse order keys, each
-- order's o_totalprice and o_orderstatus against its line items,
-- referential integrity, no orders for every third customer. One line per
-- check, a summary line, exit 1 when one fails. docs/tpch.md "check".

local common = require("tpch_common")
local C = common.C

local M = {}

-- The checks: {description, SQL giving one number, expected number}.
-- Relations are "rows that break it" counts, expected 0.
local function checks(c, meta)
  local T = common.T
  local L = {}
  local function add(what, sql, want) L[#L + 1] = { what, sql, want } end
  for _, t in ipairs({ T.region, T.nation, T.part, T.supplier, T.partsupp, T.customer,
                       T.orders, T.lineitem }) do
    local want = tonumber(C.sb_tpch_table_rows(c.sc, t))
    if t == T.lineitem then want = tonumber(meta.lineitem_rows) end
    add("rows of " .. common.name(t), "SELECT COUNT(*) FROM " .. common.name(t), want)
  end
  add("region names are dbgen's",
      "SELECT COUNT(*) FROM region WHERE r_name IN ('AFRICA','AMERICA','ASIA','EUROPE'," ..
        "'MIDDLE EAST') AND r_regionkey BETWEEN 0 AND 4", 5)
  add("nations' regions (sum of n_regionkey, UNITED STATES in AMERICA)",
      "SELECT SUM(n_regionkey) + 100 * SUM(CASE WHEN n_name = 'UNITED STATES' AND " ..
        "n_regionkey = 1 THEN 1 ELSE 0 END) FROM nation", 150)
  local div = c.pg and "(o_orderkey / 8) % 4" or "(o_orderkey DIV 8) % 4"
  local sets = (tonumber(meta.rf_next) or 1) - 1
  add("sparse order keys (8 of every 32 used by the base data, 8 by update sets 1-999)",
      "SELECT COUNT(*) FROM orders WHERE " .. div .. " > 1", 0)
  add(string.format("orders of the %d update set(s) applied", sets),
      "SELECT COUNT(*) FROM orders WHERE " .. div .. " = 1",
      sets * tonumber(C.sb_tpch_update_rows(c.sc)))
  local n = tonumber(C.sb_tpch_table_rows(c.sc, T.orders))
  add("highest order key", "SELECT MAX(o_orderkey) FROM orders",
      math.floor(n / 8) * 32 + n % 8)
  add("orders whose o_totalprice or o_orderstatus disagree with their line items",
      "SELECT COUNT(*) FROM orders o LEFT JOIN (SELECT l_orderkey AS k, " ..
        "SUM(FLOOR(FLOOR(l_extendedprice * 100 * (100 - l_discount * 100) / 100) * " ..
        "(100 + l_tax * 100) / 100)) AS cents, " ..
        "SUM(CASE WHEN l_linestatus = 'F' THEN 1 ELSE 0 END) AS f, COUNT(*) AS n " ..
        "FROM lineitem GROUP BY l_orderkey) x ON x.k = o.o_orderkey " ..
        "WHERE x.k IS NULL OR o.o_totalprice * 100 <> x.cents OR o.o_orderstatus <> " ..
        "CASE WHEN x.f = 0 THEN 'O' WHEN x.f = x.n THEN 'F' ELSE 'P' END", 0)
  add("line items without their part-supplier",
      "SELECT COUNT(*) FROM lineitem l LEFT JOIN partsupp ps ON ps.ps_partkey = " ..
        "l.l_partkey AND ps.ps_suppkey = l.l_suppkey WHERE ps.ps_partkey IS NULL", 0)
  add("orders without their customer, or of a customer key divisible by 3",
      "SELECT COUNT(*) FROM orders o LEFT JOIN customer c ON c.c_custkey = o.o_custkey " ..
        "WHERE c.c_custkey IS NULL OR o.o_custkey % 3 = 0", 0)
  add("part-suppliers without their part or supplier",
      "SELECT COUNT(*) FROM partsupp ps LEFT JOIN part p ON p.p_partkey = ps.ps_partkey " ..
        "LEFT JOIN supplier s ON s.s_suppkey = ps.ps_suppkey " ..
        "WHERE p.p_partkey IS NULL OR s.s_suppkey IS NULL", 0)
  add("suppliers and customers without their nation",
      "SELECT (SELECT COUNT(*) FROM supplier WHERE s_nationkey NOT IN " ..
        "(SELECT n_nationkey FROM nation)) + (SELECT COUNT(*) FROM customer WHERE " ..
        "c_nationkey NOT IN (SELECT n_nationkey FROM nation))", 0)
  return L
end

local function run(c)
  common.need_sql(c)
  local con = common.connect(c, true)
  local meta = common.loaded_meta(con, c)
  if meta.rf_state == "rf1" then
    print(string.format("WARNING: update set %s was inserted (RF1) but not deleted (RF2): " ..
                          "counts differ from the base data's", tostring(meta.rf_set)))
  end
  if tonumber(meta.scale) ~= c.sf then
    common.fail("the tables hold SF %s, not --scale=%s", tostring(meta.scale), tostring(c.sf))
  end
  local pass, failed = 0, 0
  for _, k in ipairs(checks(c, meta)) do
    local got = tonumber(common.value(con, k[2]))
    if got == k[3] then
      pass = pass + 1
      print(string.format("  PASS  %s (%s)", k[1], tostring(got)))
    else
      failed = failed + 1
      print(string.format("  FAIL  %s: expected %s, got %s", k[1], tostring(k[3]),
                          tostring(got)))
    end
  end
  print(string.format("Checks: %d PASSED, %d FAILED (SF %s)", pass, failed, tostring(c.sf)))
  con:disconnect()
  return failed == 0
end

-- `check`: one thread; false (exit 1) when a check fails.
function M.cmd_check()
  local ok, res = pcall(function() return run(common.config()) end)
  if not ok then error(common.error_text(res), 0) end
  return res
end

return M
