-- bmk tpcc: `--tpcc-mode=pipeline` (PostgreSQL). The
-- statements of a transaction go to the server in libpq pipeline batches
-- (db_pipeline_* of the SQL layer): dependencies move into SQL (UPDATE
-- ... RETURNING, INSERT ... SELECT, the by-name customer as a LIMIT/OFFSET
-- subquery, Delivery as one data-modifying CTE per district). Batches
-- per transaction: New-Order 2 (its COMMIT or ROLLBACK goes alone, after
-- the item lookups were seen), the others 1 with COMMIT appended.
--
-- Locks: every row the spec reads FOR UPDATE is written by the same
-- batch (UPDATE ... RETURNING), so --for-update changes nothing here
-- except the Delivery new_orders pick. A Delivery district whose oldest
-- new order another Delivery took first is skipped, not retried.

local common = require("tpcc_common")
local txn = require("tpcc_txn")
local ffi = common.ffi
local C = common.C

local set_int, set_str = C.db_bind_set_int, C.db_bind_set_str
local p_query, p_exec = C.db_pipeline_query, C.db_pipeline_execute
-- the waiting calls through sysbench.sql.raw (event mode: without
-- blocking the worker's other sessions)
local p_fetch, db_query = sysbench.sql.raw.pipeline_fetch, sysbench.sql.raw.query
local db_fetch_row, db_result_nrows = C.db_fetch_row, C.db_result_nrows
local col_int, col_fixed = txn.col_int, txn.col_fixed

local M = {}

local mk = txn.mk

-- c_id of the by-name customer: position ceil(n/2) ordered by c_first;
-- parameters (w, d, last) twice.
local function by_name_cid(n)
  return string.format("(SELECT c_id FROM customer%d WHERE c_w_id=? AND c_d_id=? AND c_last=? " ..
                         "ORDER BY c_first LIMIT 1 OFFSET (SELECT (COUNT(*)-1)/2 FROM customer%d " ..
                         "WHERE c_w_id=? AND c_d_id=? AND c_last=?))", n, n)
end

-- New-Order's statements of set n into t.
local function new_order_statements(S, n, t)
  local c = S.c
  t.no_d = mk(S, string.format("UPDATE district%d SET d_next_o_id=d_next_o_id+1 WHERE d_w_id=? AND " ..
                                 "d_id=? RETURNING d_next_o_id-1, d_tax", n), "ii")
  t.no1 = mk(S, string.format("SELECT c_discount,c_last,c_credit,w_tax FROM customer%d,warehouse%d " ..
                                "WHERE w_id=? AND c_w_id=w_id AND c_d_id=? AND c_id=?", n, n), "iii")
  local ocols = c.null_variant and "o_id,o_d_id,o_w_id,o_c_id,o_entry_d,o_carrier_id,o_ol_cnt,o_all_local"
    or "o_id,o_d_id,o_w_id,o_c_id,o_entry_d,o_ol_cnt,o_all_local"
  local ovals = c.null_variant and "NOW(),NULL," or "NOW(),"
  t.no4 = mk(S, string.format("INSERT INTO orders%d (%s) SELECT d_next_o_id-1, ?::int, ?::int, ?::int, " ..
                                "%s?::int, ?::int FROM district%d WHERE d_w_id=? AND d_id=?",
                              n, ocols, ovals, n), "iiiiiii")
  t.no5 = mk(S, string.format("INSERT INTO new_orders%d (no_o_id,no_d_id,no_w_id) SELECT d_next_o_id-1, " ..
                                "?::int, ?::int FROM district%d WHERE d_w_id=? AND d_id=?", n, n), "iiii")
  t.no6 = mk(S, string.format("SELECT i_price,i_name,i_data FROM item%d WHERE i_id=?", n), "i")
  local lcols = c.null_variant and "ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id," ..
    "ol_delivery_d,ol_quantity,ol_amount,ol_dist_info"
    or "ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id,ol_quantity,ol_amount,ol_dist_info"
  for d = 1, 10 do
    t.no7[d] = mk(S, string.format("UPDATE stock%d SET s_quantity=CASE WHEN s_quantity>=?+10 THEN " ..
                                     "s_quantity-? ELSE s_quantity-?+91 END, s_ytd=s_ytd+?, " ..
                                     "s_order_cnt=s_order_cnt+1, s_remote_cnt=s_remote_cnt+? WHERE " ..
                                     "s_i_id=? AND s_w_id=? RETURNING s_quantity, s_data, s_dist_%02d",
                                   n, d), "iiiiiii")
    t.ol[d] = mk(S, string.format("INSERT INTO order_line%d (%s) SELECT d_next_o_id-1, ?::int, ?::int, " ..
                                    "?::int, ?::int, ?::int, %s?::int, ?::int*i_price, s_dist_%02d FROM " ..
                                    "district%d, item%d, stock%d WHERE d_w_id=? AND d_id=? AND i_id=? AND " ..
                                    "s_i_id=? AND s_w_id=?", n, lcols, c.null_variant and "NULL," or "",
                                  d, n, n, n), "iiiiiiiiiiii")
  end
end

-- Payment's and Order-Status's statements, for both customer selectors.
local function customer_statements(S, n, t)
  local fu1 = S.c.for_update >= 1 and " FOR UPDATE" or ""
  -- Payment: one batch for both customer selectors.
  t.p_w = mk(S, string.format("UPDATE warehouse%d SET w_ytd=w_ytd+?*0.01 WHERE w_id=? RETURNING " ..
                                "w_name,w_street_1,w_street_2,w_city,w_state,w_zip", n), "ii")
  t.p_d = mk(S, string.format("UPDATE district%d SET d_ytd=d_ytd+?*0.01 WHERE d_w_id=? AND d_id=? " ..
                                "RETURNING d_name,d_street_1,d_street_2,d_city,d_state,d_zip", n), "iii")
  for _, kind in ipairs({ "id", "name" }) do
    local cid = kind == "id" and "?::int" or by_name_cid(n)
    local cspec = kind == "id" and "i" or "iisiis"
    t["p6" .. kind] = mk(S, string.format("SELECT c_id,c_first,c_middle,c_last,c_street_1,c_street_2," ..
                                            "c_city,c_state,c_zip,c_phone,c_since,c_credit,c_credit_lim," ..
                                            "c_discount,c_balance FROM customer%d WHERE c_w_id=? AND " ..
                                            "c_d_id=? AND c_id=%s%s", n, cid, fu1), "ii" .. cspec)
    t["p8" .. kind] = mk(S, string.format("UPDATE customer%d SET c_balance=c_balance-?*0.01, " ..
                                            "c_ytd_payment=c_ytd_payment+?*0.01, c_payment_cnt=c_payment_cnt+1, " ..
                                            "c_data=CASE WHEN c_credit='BC' THEN SUBSTR(c_id||' '||?||' '||?||" ..
                                            "' '||?||' '||?||' '||?||' '||c_data,1,500) ELSE c_data END " ..
                                            "WHERE c_w_id=? AND c_d_id=? AND c_id=%s", n, cid),
                         "iiiiiisii" .. cspec)
    -- the customer's id again (by name: the same subquery) for history
    t["p9" .. kind] = mk(S, string.format("INSERT INTO history%d (h_c_d_id,h_c_w_id,h_c_id,h_d_id,h_w_id," ..
                                            "h_date,h_amount,h_data) SELECT ?::int, ?::int, %s, ?::int, " ..
                                            "?::int, NOW(), ?*0.01, w_name||'    '||d_name FROM " ..
                                            "warehouse%d, district%d WHERE w_id=? AND d_w_id=? AND d_id=?",
                                          n, cid, n, n), "ii" .. cspec .. "iiiiii")
  end
  -- Order-Status
  local os_cid_name = by_name_cid(n)
  t.os1n = mk(S, string.format("SELECT c_id,c_balance,c_first,c_middle FROM customer%d WHERE c_w_id=? " ..
                                 "AND c_d_id=? AND c_id=%s", n, os_cid_name), "iiiisiis")
  t.os1i = mk(S, string.format("SELECT c_id,c_balance,c_first,c_middle,c_last FROM customer%d WHERE " ..
                                 "c_w_id=? AND c_d_id=? AND c_id=?", n), "iii")
  for _, kind in ipairs({ "id", "name" }) do
    local cid = kind == "id" and "?::int" or os_cid_name
    local cspec = kind == "id" and "i" or "iisiis"
    local last = string.format("(SELECT o_id FROM orders%d WHERE o_w_id=? AND o_d_id=? AND o_c_id=%s " ..
                                 "ORDER BY o_id DESC LIMIT 1)", n, cid)
    t["os2" .. kind] = mk(S, string.format("SELECT o_id,o_carrier_id,o_entry_d FROM orders%d WHERE " ..
                                             "o_w_id=? AND o_d_id=? AND o_id=%s", n, last), "iiii" .. cspec)
    t["os3" .. kind] = mk(S, string.format("SELECT ol_i_id,ol_supply_w_id,ol_quantity,ol_amount," ..
                                             "ol_delivery_d FROM order_line%d WHERE ol_w_id=? AND ol_d_id=? " ..
                                             "AND ol_o_id=%s", n, last), "iiii" .. cspec)
  end
end

local function statements(S, n)
  local fu1 = S.c.for_update >= 1 and " FOR UPDATE" or ""
  local t = { ol = {}, no7 = {} }
  new_order_statements(S, n, t)
  customer_statements(S, n, t)
  -- Delivery: one statement per district.
  t.del = mk(S, string.format([[
WITH no AS (DELETE FROM new_orders%d WHERE no_w_id=? AND no_d_id=? AND no_o_id=
    (SELECT no_o_id FROM new_orders%d WHERE no_w_id=? AND no_d_id=? ORDER BY no_o_id LIMIT 1%s)
    RETURNING no_o_id),
  o AS (UPDATE orders%d SET o_carrier_id=? FROM no WHERE o_w_id=? AND o_d_id=? AND o_id=no.no_o_id
    RETURNING o_c_id, o_id),
  ol AS (UPDATE order_line%d SET ol_delivery_d=NOW() FROM o WHERE ol_w_id=? AND ol_d_id=?
    AND ol_o_id=o.o_id RETURNING ol_amount),
  cu AS (UPDATE customer%d SET c_balance=c_balance+(SELECT COALESCE(SUM(ol_amount),0) FROM ol),
    c_delivery_cnt=c_delivery_cnt+1 FROM o WHERE c_w_id=? AND c_d_id=? AND c_id=o.o_c_id RETURNING c_id)
SELECT no_o_id FROM no]], n, n, fu1, n, n, n), "iiiiiiiiiii")
  -- Stock-Level: d_next_o_id joined in.
  t.sl = mk(S, string.format("SELECT COUNT(DISTINCT s_i_id) FROM district%d, order_line%d, stock%d WHERE " ..
                               "d_w_id=? AND d_id=? AND ol_w_id=? AND ol_d_id=? AND ol_o_id<d_next_o_id AND " ..
                               "ol_o_id>=d_next_o_id-20 AND s_w_id=? AND s_i_id=ol_i_id AND s_quantity<?",
                             n, n, n), "iiiiii")
  return t
end

local function stmts(S, n)
  return txn.cached(S, "pstmts", n, "all", statements)
end

-- ---- batch helpers -----------------------------------------------------------------

local function pbegin(S)
  if C.db_pipeline_begin(S.con) ~= 0 then S.sql_fail() end
end

local function q(S, sql)
  if p_query(S.con, sql, #sql) ~= 0 then S.sql_fail() end
end

local function x(S, st)
  if p_exec(st) ~= 0 then S.sql_fail() end
end

local function sync(S)
  if C.db_pipeline_sync(S.con) ~= 0 then S.sql_fail() end
end

-- Next result of the batch; an error ends the batch (pipeline mode left,
-- the transaction still open and failed: the session rolls it back).
local function nextr(S)
  local rs = p_fetch(S.con)
  if rs == nil then
    if C.db_conn_error(S.con) ~= 0 then
      local e = S.err
      S.sql_fail_keep()
      C.db_pipeline_end(S.con)
      error(e, 0)
    end
    error("pipeline: fewer results than statements", 0)
  end
  return rs
end

local function finish(S)
  p_fetch(S.con)                  -- the sync point
  C.db_pipeline_end(S.con)
end

local function begin_sql(S, read_only)
  return S.c.splittable and (read_only and "START TRANSACTION READ ONLY"
                               or "START TRANSACTION READ WRITE") or "BEGIN"
end

-- ---- transactions --------------------------------------------------------------------

M.TX = {}

local function bind_cid(st, k, S, I, w, d)
  -- binds the customer selector starting at parameter k; returns the next k
  if I.by_name then
    set_int(st, k, w); set_int(st, k + 1, d); set_str(st, k + 2, I.last, I.last_len)
    set_int(st, k + 3, w); set_int(st, k + 4, d); set_str(st, k + 5, I.last, I.last_len)
    return k + 6
  end
  set_int(st, k, I.c)
  return k + 1
end

function M.TX.new_order(S, I)
  local t = stmts(S, I.set)
  local w, d = I.w, I.d
  local n = I.ol_cnt
  pbegin(S)
  q(S, begin_sql(S, false))
  S.in_trx = true
  local st = t.no_d; set_int(st, 0, w); set_int(st, 1, d); x(S, st)
  st = t.no1; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, I.c); x(S, st)
  st = t.no4
  set_int(st, 0, d); set_int(st, 1, w); set_int(st, 2, I.c); set_int(st, 3, n); set_int(st, 4, I.all_local)
  set_int(st, 5, w); set_int(st, 6, d)
  x(S, st)
  st = t.no5; set_int(st, 0, d); set_int(st, 1, w); set_int(st, 2, w); set_int(st, 3, d); x(S, st)
  local no7, ol = t.no7[d], t.ol[d]
  for k = 1, n do
    local i_id, sw, qty = I.item[k], I.supply[k], I.qty[k]
    set_int(t.no6, 0, i_id); x(S, t.no6)
    set_int(no7, 0, qty); set_int(no7, 1, qty); set_int(no7, 2, qty); set_int(no7, 3, qty)
    set_int(no7, 4, sw ~= w and 1 or 0); set_int(no7, 5, i_id); set_int(no7, 6, sw)
    x(S, no7)
    set_int(ol, 0, d); set_int(ol, 1, w); set_int(ol, 2, k); set_int(ol, 3, i_id); set_int(ol, 4, sw)
    set_int(ol, 5, qty); set_int(ol, 6, qty); set_int(ol, 7, w); set_int(ol, 8, d); set_int(ol, 9, i_id)
    set_int(ol, 10, i_id); set_int(ol, 11, sw)
    x(S, ol)
  end
  sync(S)
  nextr(S)                                      -- BEGIN
  local rs = nextr(S)
  local row = db_fetch_row(rs)
  local d_tax = col_fixed(rs, row, 1, 4)
  rs = nextr(S); row = db_fetch_row(rs)
  local disc, w_tax = col_fixed(rs, row, 0, 4), col_fixed(rs, row, 3, 4)
  nextr(S); nextr(S)
  local missing = false
  local total = 0
  for k = 1, n do
    rs = nextr(S)
    row = db_fetch_row(rs)
    if row == nil then
      missing = true
    else
      total = total + I.qty[k] * col_fixed(rs, row, 0, 2)
    end
    nextr(S); nextr(S)
  end
  finish(S)
  -- batch 2: the outcome alone, after seeing the item lookups
  local sql = missing and "ROLLBACK" or "COMMIT"
  S.in_trx = false
  if db_query(S.con, sql, #sql) == nil then S.sql_fail() end
  if missing then return "r" end
  I.total = total * (10000 - disc) * (10000 + w_tax + d_tax) / 1e10
  return "c"
end

function M.TX.payment(S, I)
  local t = stmts(S, I.set)
  local w, d, cw, cd, amount = I.w, I.d, I.c_w, I.c_d, I.amount
  local kind = I.by_name and "name" or "id"
  pbegin(S)
  q(S, begin_sql(S, false))
  S.in_trx = true
  local st = t.p_w; set_int(st, 0, amount); set_int(st, 1, w); x(S, st)
  st = t.p_d; set_int(st, 0, amount); set_int(st, 1, w); set_int(st, 2, d); x(S, st)
  st = t["p6" .. kind]; set_int(st, 0, cw); set_int(st, 1, cd); bind_cid(st, 2, S, I, cw, cd); x(S, st)
  st = t["p8" .. kind]
  local amt = string.format("%d.%02d", math.floor(amount / 100), amount % 100)
  set_int(st, 0, amount); set_int(st, 1, amount)
  set_int(st, 2, cd); set_int(st, 3, cw); set_int(st, 4, d); set_int(st, 5, w)
  set_str(st, 6, amt, #amt)
  set_int(st, 7, cw); set_int(st, 8, cd)
  bind_cid(st, 9, S, I, cw, cd)
  x(S, st)
  st = t["p9" .. kind]
  set_int(st, 0, cd); set_int(st, 1, cw)
  local k = bind_cid(st, 2, S, I, cw, cd)
  set_int(st, k, d); set_int(st, k + 1, w); set_int(st, k + 2, amount)
  set_int(st, k + 3, w); set_int(st, k + 4, w); set_int(st, k + 5, d)
  x(S, st)
  q(S, "COMMIT")
  sync(S)
  for _ = 1, 3 do nextr(S) end
  local rs = nextr(S)
  if db_fetch_row(rs) == nil then
    error(string.format("Payment: no customer (set %d)", I.set), 0)
  end
  nextr(S); nextr(S)
  S.in_trx = false
  nextr(S)                                      -- COMMIT
  finish(S)
  return "c"
end

function M.TX.order_status(S, I)
  local t = stmts(S, I.set)
  local w, d = I.w, I.d
  local kind = I.by_name and "name" or "id"
  pbegin(S)
  q(S, begin_sql(S, true))
  S.in_trx = true
  local st
  if I.by_name then
    st = t.os1n; set_int(st, 0, w); set_int(st, 1, d); bind_cid(st, 2, S, I, w, d)
  else
    st = t.os1i; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, I.c)
  end
  x(S, st)
  for _, name in ipairs({ "os2", "os3" }) do
    st = t[name .. kind]
    set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, w); set_int(st, 3, d)
    bind_cid(st, 4, S, I, w, d)
    x(S, st)
  end
  q(S, "COMMIT")
  sync(S)
  nextr(S)
  local rs = nextr(S)
  if db_fetch_row(rs) == nil then
    error(string.format("Order-Status: no customer (set %d)", I.set), 0)
  end
  rs = nextr(S)
  local row = db_fetch_row(rs)
  I.o_id = row and col_int(rs, row, 0)
  rs = nextr(S)
  while db_fetch_row(rs) ~= nil do end
  S.in_trx = false
  nextr(S)
  finish(S)
  return "c"
end

function M.TX.delivery(S, I)
  local t = stmts(S, I.set)
  local w = I.w
  local per_district = S.c.delivery_commit == "district"
  pbegin(S)
  q(S, begin_sql(S, false))
  S.in_trx = true
  local st = t.del
  for d = 1, 10 do
    set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, w); set_int(st, 3, d)
    set_int(st, 4, I.carrier); set_int(st, 5, w); set_int(st, 6, d); set_int(st, 7, w); set_int(st, 8, d)
    set_int(st, 9, w); set_int(st, 10, d)
    x(S, st)
    if per_district and d < 10 then
      q(S, "COMMIT")
      q(S, "BEGIN")
    end
  end
  q(S, "COMMIT")
  sync(S)
  nextr(S)
  local skipped = 0
  for d = 1, 10 do
    local rs = nextr(S)
    if db_result_nrows(rs) == 0 then skipped = skipped + 1 end
    if per_district and d < 10 then nextr(S); nextr(S) end
  end
  S.in_trx = false
  nextr(S)
  finish(S)
  I.skipped = skipped
  return "c"
end

function M.TX.stock_level(S, I)
  local t = stmts(S, I.set)
  local w, d = I.w, I.d
  pbegin(S)
  q(S, begin_sql(S, true))
  S.in_trx = true
  local st = t.sl
  set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, w); set_int(st, 3, d); set_int(st, 4, w)
  set_int(st, 5, I.threshold)
  x(S, st)
  q(S, "COMMIT")
  sync(S)
  nextr(S)
  local rs = nextr(S)
  local row = db_fetch_row(rs)
  I.low_stock = row and col_int(rs, row, 0)
  S.in_trx = false
  nextr(S)
  finish(S)
  return "c"
end

M.TX.purge = txn.TX.purge

function M.session_init(S)
  S.pstmts = {}
  -- Statements are prepared before any batch: the home set now, others
  -- when first used (always outside a batch).
  stmts(S, S.home_set)
  -- In pipeline mode the driver sends no ROLLBACK after an error.
  S.driver_rolls_back = false
  S.pipeline_reset = function(s) C.db_pipeline_end(s.con) end
  -- the session's error object from the current connection error,
  -- without raising (nextr raises after leaving pipeline mode)
  S.sql_fail_keep = function()
    local ok, e = pcall(S.sql_fail)
    return e
  end
end

return M
