-- bmk tpcc: the five transactions and purge as client SQL,
-- `--tpcc-mode=ps` (server-side prepared statements, prepared once per
-- connection and set) and `text` (the same statements as literal SQL).
--
-- Each transaction is tx(S, I): S the session (tpcc_run.lua), I the
-- inputs drawn before the first attempt (so a retry replays them). It
-- returns "c" (committed) or "r" (the intended New-Order rollback) and
-- raises the session's error object on an SQL error. Values are read
-- through FFI (no row tables, no strings on the hot path); money is kept
-- in integer cents and sent as `? * 0.01`, exact on both databases.

local common = require("tpcc_common")
local ffi = common.ffi
local C = common.C

-- the waiting calls through sysbench.sql.raw: in event mode they let the
-- worker's other sessions run while the server answers
local raw = sysbench.sql.raw
local db_execute, db_query, db_prepare = raw.execute, raw.query, raw.prepare
local db_fetch_row, db_row_value = C.db_fetch_row, C.db_row_value
local db_result_nrows = C.db_result_nrows
local set_int, set_str = C.db_bind_set_int, C.db_bind_set_str
local parse_fixed, memmem = C.sb_tpcc_parse_fixed, C.memmem
local tonumber = tonumber

local M = {}

local SQL_INT, SQL_VARCHAR = 3, 12

-- ---- statements -----------------------------------------------------------------

local warned_text = false

-- Prepares `sql` on S.con with parameters `spec` (one letter each: i
-- integer, s text up to 512 bytes). ps mode falls back to text, with one
-- warning, when the server refuses (e.g. max_prepared_stmt_count).
local function mk(S, sql, spec)
  local con = S.con
  local st
  if S.text then
    st = C.db_prepare_text(con, sql, #sql)
  else
    st = db_prepare(con, sql, #sql)
    if st == nil then
      if not warned_text then
        warned_text = true
        print(string.format("WARNING: the server refused to prepare a statement (%s); " ..
                              "bmk sends such statements as text", ffi.string(C.db_conn_sql_errmsg(con))))
      end
      st = C.db_prepare_text(con, sql, #sql)
    end
  end
  if st == nil then error("cannot create a statement (out of memory)", 0) end
  local n = #spec
  if n > 0 then
    local h = ffi.new("int[?]", n)
    for i = 1, n do
      local ty = spec:sub(i, i) == "s" and SQL_VARCHAR or SQL_INT
      h[i - 1] = C.db_bind_create(st, ty, ty == SQL_VARCHAR and 512 or 0)
    end
    C.db_bind_order(st, h, n)
  end
  return st
end
M.mk = mk

-- The statements of one type for set n, created on first use.
local SQL = {}

function SQL.new_order(S, n)
  local c = S.c
  local fu1 = c.for_update >= 1 and " FOR UPDATE" or ""
  local carrier = c.null_variant and "NULL" or "DEFAULT"
  -- DEFAULT variant: the DEFAULT keyword in text mode, the column left
  -- out with prepared statements.
  local no4, no9
  if S.text or c.null_variant then
    no4 = "INSERT INTO orders%d (o_id,o_d_id,o_w_id,o_c_id,o_entry_d,o_carrier_id,o_ol_cnt," ..
      "o_all_local) VALUES (?,?,?,?,NOW()," .. carrier .. ",?,?)"
    no9 = "INSERT INTO order_line%d (ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id," ..
      "ol_delivery_d,ol_quantity,ol_amount,ol_dist_info) VALUES (?,?,?,?,?,?," .. carrier ..
      ",?,?*0.01,?)"
  else
    no4 = "INSERT INTO orders%d (o_id,o_d_id,o_w_id,o_c_id,o_entry_d,o_ol_cnt,o_all_local) " ..
      "VALUES (?,?,?,?,NOW(),?,?)"
    no9 = "INSERT INTO order_line%d (ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id," ..
      "ol_quantity,ol_amount,ol_dist_info) VALUES (?,?,?,?,?,?,?,?*0.01,?)"
  end
  local t = {
    no1 = mk(S, string.format("SELECT c_discount,c_last,c_credit,w_tax FROM customer%d,warehouse%d " ..
                                "WHERE w_id=? AND c_w_id=w_id AND c_d_id=? AND c_id=?", n, n), "iii"),
    no2 = mk(S, string.format("SELECT d_next_o_id,d_tax FROM district%d WHERE d_w_id=? AND d_id=?%s",
                              n, fu1), "ii"),
    no3 = mk(S, string.format("UPDATE district%d SET d_next_o_id=d_next_o_id+1 WHERE d_w_id=? " ..
                                "AND d_id=?", n), "ii"),
    no4 = mk(S, string.format(no4, n), "iiiiii"),
    no5 = mk(S, string.format("INSERT INTO new_orders%d (no_o_id,no_d_id,no_w_id) VALUES (?,?,?)", n),
             "iii"),
    no6 = mk(S, string.format("SELECT i_price,i_name,i_data FROM item%d WHERE i_id=?", n), "i"),
    no7 = {},
    no8 = mk(S, string.format("UPDATE stock%d SET s_quantity=CASE WHEN s_quantity>=?+10 THEN " ..
                                "s_quantity-? ELSE s_quantity-?+91 END, s_ytd=s_ytd+?, " ..
                                "s_order_cnt=s_order_cnt+1, s_remote_cnt=s_remote_cnt+? " ..
                                "WHERE s_i_id=? AND s_w_id=?", n), "iiiiiii"),
    no9 = mk(S, string.format(no9, n), "iiiiiiiis"),
  }
  for d = 1, 10 do
    t.no7[d] = mk(S, string.format("SELECT s_quantity,s_data,s_dist_%02d FROM stock%d WHERE " ..
                                     "s_i_id=? AND s_w_id=?%s", d, n, fu1), "ii")
  end
  return t
end

function SQL.payment(S, n)
  local c = S.c
  local fu1 = c.for_update >= 1 and " FOR UPDATE" or ""
  local fu2 = c.for_update >= 2 and " FOR UPDATE" or ""
  local concat = c.pg and "?||c_data" or "CONCAT(?,c_data)"
  local p8 = "UPDATE customer%d SET c_balance=c_balance-?*0.01, " ..
    "c_ytd_payment=c_ytd_payment+?*0.01, c_payment_cnt=c_payment_cnt+1%s " ..
    "WHERE c_w_id=? AND c_d_id=? AND c_id=?"
  return {
    p1 = mk(S, string.format("SELECT w_name,w_street_1,w_street_2,w_city,w_state,w_zip FROM " ..
                               "warehouse%d WHERE w_id=?%s", n, fu1), "i"),
    p2 = mk(S, string.format("UPDATE warehouse%d SET w_ytd=w_ytd+?*0.01 WHERE w_id=?", n), "ii"),
    p3 = mk(S, string.format("SELECT d_name,d_street_1,d_street_2,d_city,d_state,d_zip FROM " ..
                               "district%d WHERE d_w_id=? AND d_id=?%s", n, fu1), "ii"),
    p4 = mk(S, string.format("UPDATE district%d SET d_ytd=d_ytd+?*0.01 WHERE d_w_id=? AND d_id=?", n),
            "iii"),
    p5 = mk(S, string.format("SELECT c_id FROM customer%d WHERE c_w_id=? AND c_d_id=? AND " ..
                               "c_last=? ORDER BY c_first%s", n, fu2), "iis"),
    p6 = mk(S, string.format("SELECT c_first,c_middle,c_last,c_street_1,c_street_2,c_city," ..
                               "c_state,c_zip,c_phone,c_since,c_credit,c_credit_lim,c_discount," ..
                               "c_balance FROM customer%d WHERE c_w_id=? AND c_d_id=? AND c_id=?%s",
                             n, fu1), "iii"),
    p7 = mk(S, string.format("SELECT c_data FROM customer%d WHERE c_w_id=? AND c_d_id=? AND c_id=?",
                             n), "iii"),
    p8 = mk(S, string.format(p8, n, ""), "iiiii"),
    p8bc = mk(S, string.format(p8, n, ", c_data=SUBSTR(" .. concat .. ",1,500)"), "iisiii"),
    p9 = mk(S, string.format("INSERT INTO history%d (h_c_d_id,h_c_w_id,h_c_id,h_d_id,h_w_id,h_date," ..
                               "h_amount,h_data) VALUES (?,?,?,?,?,NOW(),?*0.01,?)", n), "iiiiiis"),
  }
end

function SQL.order_status(S, n)
  local fp = S.force_primary
  return {
    os1n = mk(S, string.format("SELECT c_id,c_balance,c_first,c_middle FROM customer%d WHERE " ..
                                 "c_w_id=? AND c_d_id=? AND c_last=? ORDER BY c_first", n), "iis"),
    os1i = mk(S, string.format("SELECT c_balance,c_first,c_middle,c_last FROM customer%d WHERE " ..
                                 "c_w_id=? AND c_d_id=? AND c_id=?", n), "iii"),
    os2 = mk(S, string.format("SELECT o_id,o_carrier_id,o_entry_d FROM orders%d WHERE o_w_id=? AND " ..
                                "o_d_id=? AND o_c_id=? ORDER BY o_id DESC LIMIT 1", n), "iii"),
    os3 = mk(S, string.format("SELECT ol_i_id,ol_supply_w_id,ol_quantity,ol_amount,ol_delivery_d " ..
                                "FROM order_line%d%s WHERE ol_w_id=? AND ol_d_id=? AND ol_o_id=?",
                              n, fp), "iii"),
  }
end

function SQL.delivery(S, n)
  local c = S.c
  local fu1 = c.for_update >= 1 and " FOR UPDATE" or ""
  local fu2 = c.for_update >= 2 and " FOR UPDATE" or ""
  local fp = S.force_primary
  return {
    d1 = mk(S, string.format("SELECT no_o_id FROM new_orders%d WHERE no_d_id=? AND no_w_id=? " ..
                               "ORDER BY no_o_id LIMIT 1%s", n, fu1), "ii"),
    d2 = mk(S, string.format("DELETE FROM new_orders%d WHERE no_o_id=? AND no_d_id=? AND no_w_id=?",
                             n), "iii"),
    d3 = mk(S, string.format("SELECT o_c_id FROM orders%d WHERE o_id=? AND o_d_id=? AND o_w_id=?%s",
                             n, fu2), "iii"),
    d4 = mk(S, string.format("UPDATE orders%d SET o_carrier_id=? WHERE o_id=? AND o_d_id=? AND " ..
                               "o_w_id=?", n), "iiii"),
    d5 = mk(S, string.format("UPDATE order_line%d%s SET ol_delivery_d=NOW() WHERE ol_o_id=? AND " ..
                               "ol_d_id=? AND ol_w_id=?", n, fp), "iii"),
    d6 = mk(S, string.format("SELECT SUM(ol_amount) FROM order_line%d%s WHERE ol_o_id=? AND " ..
                               "ol_d_id=? AND ol_w_id=?", n, fp), "iii"),
    d7 = mk(S, string.format("UPDATE customer%d SET c_balance=c_balance+?*0.01, " ..
                               "c_delivery_cnt=c_delivery_cnt+1 WHERE c_id=? AND c_d_id=? AND c_w_id=?",
                             n), "iiii"),
  }
end

function SQL.stock_level(S, n)
  return {
    sl1 = mk(S, string.format("SELECT d_next_o_id FROM district%d WHERE d_w_id=? AND d_id=?", n), "ii"),
    sl2 = mk(S, string.format("SELECT COUNT(DISTINCT s_i_id) FROM order_line%d, stock%d WHERE " ..
                                "ol_w_id=? AND ol_d_id=? AND ol_o_id<? AND ol_o_id>=?-20 AND " ..
                                "s_w_id=? AND s_i_id=ol_i_id AND s_quantity<?", n, n), "iiiiii"),
  }
end

function SQL.purge(S, n)
  local history = S.pg
    and "DELETE FROM history%d WHERE ctid IN (SELECT ctid FROM history%d WHERE h_w_id=? AND " ..
      "h_d_id=? LIMIT 10)"
    or "DELETE FROM history%d WHERE h_w_id=? AND h_d_id=? LIMIT 10"
  return {
    pu1 = mk(S, string.format("SELECT o_id FROM orders%d o WHERE o_w_id=? AND o_d_id=? AND o_id < " ..
                                "(SELECT COALESCE(MIN(no_o_id), MAX(d_next_o_id)) FROM district%d " ..
                                "LEFT JOIN new_orders%d ON no_w_id=d_w_id AND no_d_id=d_id WHERE " ..
                                "d_w_id=? AND d_id=?) AND EXISTS (SELECT 1 FROM orders%d o2 WHERE " ..
                                "o2.o_w_id=o.o_w_id AND o2.o_d_id=o.o_d_id AND o2.o_c_id=o.o_c_id " ..
                                "AND o2.o_id>o.o_id) ORDER BY o_id LIMIT 1 FOR UPDATE",
                              n, n, n, n), "iiii"),
    pu2 = mk(S, string.format("DELETE FROM order_line%d WHERE ol_w_id=? AND ol_d_id=? AND ol_o_id=?",
                              n), "iii"),
    pu3 = mk(S, string.format("DELETE FROM orders%d WHERE o_w_id=? AND o_d_id=? AND o_id=?", n), "iii"),
    pu4 = mk(S, string.format(history, n, n), "ii"),
  }
end

-- S[field][n][key], built by build(S, n) on first use: a session's
-- statements per set, created lazily (and outside any batch or
-- transaction, as callers fetch them before BEGIN).
function M.cached(S, field, n, key, build)
  local per = S[field][n]
  if not per then
    per = {}
    S[field][n] = per
  end
  local v = per[key]
  if not v then
    v = build(S, n)
    per[key] = v
  end
  return v
end

-- The statements of type `name` for set n of session S.
local function stmts(S, name, n)
  return M.cached(S, "stmts", n, name, SQL[name])
end
M.stmts = stmts

-- ---- execution helpers -------------------------------------------------------------

local lenp = ffi.new("size_t[1]")

local function ex(S, st)
  local rs = db_execute(st)
  if rs == nil then S.sql_fail() end
  return rs
end

-- Integer value of column i of `row` (nil for NULL).
local function col_int(rs, row, i)
  local p = db_row_value(row, rs, i, lenp)
  if p == nil then return nil end
  return tonumber(parse_fixed(p, lenp[0], 0, nil))
end

-- Decimal column i scaled by 10^scale as an integer (cents, basis points).
local function col_fixed(rs, row, i, scale)
  local p = db_row_value(row, rs, i, lenp)
  if p == nil then return nil end
  return tonumber(parse_fixed(p, lenp[0], scale, nil))
end

local function has_original(rs, row, i)
  local p = db_row_value(row, rs, i, lenp)
  return p ~= nil and memmem(p, lenp[0], "ORIGINAL", 8) ~= nil
end

-- Copies column i into buffer `buf` (capacity cap); returns its length.
local function col_copy(rs, row, i, buf, cap)
  local p = db_row_value(row, rs, i, lenp)
  if p == nil then return 0 end
  local n = tonumber(lenp[0])
  if n > cap then n = cap end
  ffi.copy(buf, p, n)
  return n
end

local function col_str(rs, row, i)
  local p = db_row_value(row, rs, i, lenp)
  if p == nil then return "" end
  return ffi.string(p, lenp[0])
end

M.col_int, M.col_fixed, M.col_str = col_int, col_fixed, col_str

-- Row number ceil(n/2) (1-based) of a by-name result (TPC-C clause 2.5.2.2).
local function middle_row(S, rs)
  local n = tonumber(db_result_nrows(rs))
  if n == 0 then
    error(string.format("no customer with the drawn last name (set %d): the data does not " ..
                          "follow the population rules", S.cur_set), 0)
  end
  local row
  for _ = 1, math.floor((n + 1) / 2) do row = db_fetch_row(rs) end
  return row
end
M.middle_row = middle_row

-- Runs the by-name select `st` (parameters w, d, last) and returns the
-- c_id of row ceil(n/2) (first column).
local function by_name_cid(S, st, w, d, I)
  set_int(st, 0, w); set_int(st, 1, d); set_str(st, 2, I.last, I.last_len)
  local rs = ex(S, st)
  return col_int(rs, middle_row(S, rs), 0)
end

local function begin(S, read_only)
  local sql = S.c.splittable and (read_only and "START TRANSACTION READ ONLY"
                                    or "START TRANSACTION READ WRITE") or "BEGIN"
  if db_query(S.con, sql, #sql) == nil then S.sql_fail() end
  S.in_trx = true
end
M.begin = begin

local function commit(S)
  S.in_trx = false         -- a failed COMMIT ends the transaction too
  if db_query(S.con, "COMMIT", 6) == nil then S.sql_fail() end
end
M.commit = commit

local function rollback(S)
  S.in_trx = false
  if db_query(S.con, "ROLLBACK", 8) == nil then S.sql_fail() end
end
M.rollback = rollback

-- ---- transactions -------------------------------------------------------------------------

local TX = {}
M.TX = TX

local dist_buf = ffi.new("char[25]")

-- New-Order (TPC-C clause 2.4).
function TX.new_order(S, I)
  local t = stmts(S, "new_order", I.set)
  local w, d = I.w, I.d
  begin(S, false)
  local st = t.no1
  set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, I.c)
  local rs = ex(S, st)
  local row = db_fetch_row(rs)
  if row == nil then error("New-Order: customer not found", 0) end
  local disc, w_tax = col_fixed(rs, row, 0, 4), col_fixed(rs, row, 3, 4)
  local o_id, d_tax
  if S.c.for_update == 0 then
    st = t.no3; set_int(st, 0, w); set_int(st, 1, d); ex(S, st)
    st = t.no2; set_int(st, 0, w); set_int(st, 1, d)
    rs = ex(S, st); row = db_fetch_row(rs)
    o_id, d_tax = col_int(rs, row, 0) - 1, col_fixed(rs, row, 1, 4)
  else
    st = t.no2; set_int(st, 0, w); set_int(st, 1, d)
    rs = ex(S, st); row = db_fetch_row(rs)
    o_id, d_tax = col_int(rs, row, 0), col_fixed(rs, row, 1, 4)
    st = t.no3; set_int(st, 0, w); set_int(st, 1, d); ex(S, st)
  end
  st = t.no4
  set_int(st, 0, o_id); set_int(st, 1, d); set_int(st, 2, w); set_int(st, 3, I.c)
  set_int(st, 4, I.ol_cnt); set_int(st, 5, I.all_local)
  ex(S, st)
  st = t.no5; set_int(st, 0, o_id); set_int(st, 1, d); set_int(st, 2, w); ex(S, st)
  local total = 0
  local no6, no7, no8, no9 = t.no6, t.no7[d], t.no8, t.no9
  for k = 1, I.ol_cnt do
    local i_id, sw, qty = I.item[k], I.supply[k], I.qty[k]
    set_int(no6, 0, i_id)
    rs = ex(S, no6)
    row = db_fetch_row(rs)
    if row == nil then
      -- the unused item id of the 1 % (only ever the last line)
      rollback(S)
      return "r"
    end
    local price = col_fixed(rs, row, 0, 2)
    local brand = has_original(rs, row, 2)
    set_int(no7, 0, i_id); set_int(no7, 1, sw)
    rs = ex(S, no7)
    row = db_fetch_row(rs)
    if row == nil then error("New-Order: no stock row", 0) end
    brand = brand and has_original(rs, row, 1)
    local dl = col_copy(rs, row, 2, dist_buf, 24)
    set_int(no8, 0, qty); set_int(no8, 1, qty); set_int(no8, 2, qty); set_int(no8, 3, qty)
    set_int(no8, 4, sw ~= w and 1 or 0); set_int(no8, 5, i_id); set_int(no8, 6, sw)
    ex(S, no8)
    local amount = qty * price          -- cents, exact (TPC-C clause 2.4.2.2)
    total = total + amount
    set_int(no9, 0, o_id); set_int(no9, 1, d); set_int(no9, 2, w); set_int(no9, 3, k)
    set_int(no9, 4, i_id); set_int(no9, 5, sw); set_int(no9, 6, qty); set_int(no9, 7, amount)
    set_str(no9, 8, dist_buf, dl)
    ex(S, no9)
    I.brand = brand
  end
  commit(S)
  -- The order total is shown to the terminal, never stored (TPC-C
  -- clause 2.4.2.2).
  I.total = total * (10000 - disc) * (10000 + w_tax + d_tax) / 1e10
  return "c"
end

-- Payment (TPC-C clause 2.5).
function TX.payment(S, I)
  local t = stmts(S, "payment", I.set)
  local w, d, cw, cd = I.w, I.d, I.c_w, I.c_d
  local amount = I.amount
  begin(S, false)
  local st, rs, row
  local fu0 = S.c.for_update == 0
  if fu0 then st = t.p2; set_int(st, 0, amount); set_int(st, 1, w); ex(S, st) end
  st = t.p1; set_int(st, 0, w)
  rs = ex(S, st); row = db_fetch_row(rs)
  local w_name = col_str(rs, row, 0)
  if not fu0 then st = t.p2; set_int(st, 0, amount); set_int(st, 1, w); ex(S, st) end
  if fu0 then
    st = t.p4; set_int(st, 0, amount); set_int(st, 1, w); set_int(st, 2, d); ex(S, st)
  end
  st = t.p3; set_int(st, 0, w); set_int(st, 1, d)
  rs = ex(S, st); row = db_fetch_row(rs)
  local d_name = col_str(rs, row, 0)
  if not fu0 then
    st = t.p4; set_int(st, 0, amount); set_int(st, 1, w); set_int(st, 2, d); ex(S, st)
  end
  local c = I.by_name and by_name_cid(S, t.p5, cw, cd, I) or I.c
  st = t.p6; set_int(st, 0, cw); set_int(st, 1, cd); set_int(st, 2, c)
  rs = ex(S, st); row = db_fetch_row(rs)
  if row == nil then error("Payment: customer not found", 0) end
  local p = db_row_value(row, rs, 10, lenp)
  local bc = p ~= nil and p[0] == 66 and p[1] == 67          -- "BC"
  if bc then
    st = t.p7; set_int(st, 0, cw); set_int(st, 1, cd); set_int(st, 2, c); ex(S, st)
    local prefix = string.format("%d %d %d %d %d %d.%02d ", c, cd, cw, d, w,
                                 math.floor(amount / 100), amount % 100)
    st = t.p8bc
    set_int(st, 0, amount); set_int(st, 1, amount); set_str(st, 2, prefix, #prefix)
    set_int(st, 3, cw); set_int(st, 4, cd); set_int(st, 5, c)
  else
    st = t.p8
    set_int(st, 0, amount); set_int(st, 1, amount)
    set_int(st, 2, cw); set_int(st, 3, cd); set_int(st, 4, c)
  end
  ex(S, st)
  local h_data = w_name .. "    " .. d_name
  st = t.p9
  set_int(st, 0, cd); set_int(st, 1, cw); set_int(st, 2, c); set_int(st, 3, d); set_int(st, 4, w)
  set_int(st, 5, amount); set_str(st, 6, h_data, #h_data)
  ex(S, st)
  commit(S)
  return "c"
end

-- Order-Status (TPC-C clause 2.6, read-only). OS3 reads the order OS2 found.
function TX.order_status(S, I)
  local t = stmts(S, "order_status", I.set)
  local w, d = I.w, I.d
  begin(S, true)
  local st, rs, row
  local c = I.c
  if I.by_name then
    c = by_name_cid(S, t.os1n, w, d, I)
  else
    st = t.os1i; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, c)
    ex(S, st)
  end
  st = t.os2; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, c)
  rs = ex(S, st); row = db_fetch_row(rs)
  I.o_id = nil
  if row ~= nil then
    local o_id = col_int(rs, row, 0)
    I.o_id = o_id
    st = t.os3; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, o_id)
    rs = ex(S, st)
    while db_fetch_row(rs) ~= nil do end
  end
  commit(S)
  return "c"
end

-- Delivery (TPC-C clause 2.7): districts 1..10, an empty one is skipped
-- and counted.
function TX.delivery(S, I)
  local t = stmts(S, "delivery", I.set)
  local w = I.w
  local per_district = S.c.delivery_commit == "district"
  local skipped = 0
  begin(S, false)
  for d = 1, 10 do
    local o_id
    for _ = 1, 3 do            -- D2 removed nothing: another Delivery took it
      local st = t.d1; set_int(st, 0, d); set_int(st, 1, w)
      local rs = ex(S, st)
      local row = db_fetch_row(rs)
      if row == nil then break end
      local candidate = col_int(rs, row, 0)
      st = t.d2; set_int(st, 0, candidate); set_int(st, 1, d); set_int(st, 2, w)
      rs = ex(S, st)
      if db_result_nrows(rs) > 0 then
        o_id = candidate
        break
      end
    end
    if o_id == nil then
      skipped = skipped + 1
    else
      local st = t.d3; set_int(st, 0, o_id); set_int(st, 1, d); set_int(st, 2, w)
      local rs = ex(S, st)
      local row = db_fetch_row(rs)
      local c = col_int(rs, row, 0)
      st = t.d4; set_int(st, 0, I.carrier); set_int(st, 1, o_id); set_int(st, 2, d); set_int(st, 3, w)
      ex(S, st)
      st = t.d5; set_int(st, 0, o_id); set_int(st, 1, d); set_int(st, 2, w); ex(S, st)
      st = t.d6; set_int(st, 0, o_id); set_int(st, 1, d); set_int(st, 2, w)
      rs = ex(S, st); row = db_fetch_row(rs)
      local sum = col_fixed(rs, row, 0, 2) or 0
      st = t.d7; set_int(st, 0, sum); set_int(st, 1, c); set_int(st, 2, d); set_int(st, 3, w)
      ex(S, st)
    end
    if per_district and d < 10 then
      commit(S)
      begin(S, false)
    end
  end
  commit(S)
  I.skipped = skipped
  return "c"
end

-- Stock-Level (TPC-C clause 2.8, read-only), on the session's Stock-Level
-- district.
function TX.stock_level(S, I)
  local t = stmts(S, "stock_level", I.set)
  local w, d = I.w, I.d
  begin(S, true)
  local st = t.sl1; set_int(st, 0, w); set_int(st, 1, d)
  local rs = ex(S, st)
  local row = db_fetch_row(rs)
  local next_o = col_int(rs, row, 0)
  st = t.sl2
  set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, next_o); set_int(st, 3, next_o)
  set_int(st, 4, w); set_int(st, 5, I.threshold)
  rs = ex(S, st)
  row = db_fetch_row(rs)
  I.low_stock = col_int(rs, row, 0)
  commit(S)
  return "c"
end

-- Purge (bmk's, not TPC-C's): 10 small transactions, one per district of
-- the warehouse.
function TX.purge(S, I)
  local t = stmts(S, "purge", I.set)
  local w = I.w
  local n = 0
  for d = 1, 10 do
    begin(S, false)
    local st = t.pu1; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, w); set_int(st, 3, d)
    local rs = ex(S, st)
    local row = db_fetch_row(rs)
    if row ~= nil then
      local o_id = col_int(rs, row, 0)
      st = t.pu2; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, o_id); ex(S, st)
      st = t.pu3; set_int(st, 0, w); set_int(st, 1, d); set_int(st, 2, o_id); ex(S, st)
      st = t.pu4; set_int(st, 0, w); set_int(st, 1, d); ex(S, st)
      n = n + 1
    end
    commit(S)
  end
  I.purged = n
  return "c"
end

return M
