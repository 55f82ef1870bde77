-- bmk tpcc: `--tpcc-mode=sp`: the stored procedures
-- are created by `prepare` and by `bmk tpcc procs`, and each business
-- transaction is one call with every input generated on the client. The
-- bodies: tpcc_sp_mysql.lua, tpcc_sp_pgsql.lua. Purge has no procedure:
-- it runs as client SQL (tpcc_txn.lua) in this mode too.

local common = require("tpcc_common")
local ffi = common.ffi
local C = common.C

local M = {}

-- Bumped whenever a body changes, so `run` can tell stale procedures.
M.VERSION = 1

-- ---- helpers of the two body builders ------------------------------------------

-- " FOR UPDATE" when --for-update is at least `level`.
function M.fu(c, level)
  return c.for_update >= level and " FOR UPDATE" or ""
end

-- The stock district column of district p_d: CASE p_d WHEN 1 THEN s_dist_01 ...
function M.dist_case()
  local t = { "CASE p_d" }
  for d = 1, 10 do t[#t + 1] = string.format(" WHEN %d THEN s_dist_%02d", d, d) end
  t[#t + 1] = " END"
  return table.concat(t)
end

-- A locking read and the update of the same row, in the spec's order, or
-- with --for-update=0 the update first so the read sees its own change
-- (then `fixup`, e.g. the order id read minus 1, follows).
function M.ordered(c, read, write, fixup)
  if c.for_update == 0 then
    return write .. "\n  " .. read .. (fixup and ("\n  " .. fixup) or "")
  end
  return read .. "\n  " .. write
end

-- The New-Order pieces both dialects share: the NULL variant's columns
-- and values (the DEFAULT variant leaves them out) and the district read
-- and increment (into v_o_id, v_dtax) in --for-update order.
function M.neword_parts(c, n, fixup)
  local null = c.null_variant
  return {
    carrier_col = null and ",o_carrier_id" or "", carrier_val = null and ",NULL" or "",
    deliv_col = null and ",ol_delivery_d" or "", deliv_val = null and ",NULL" or "",
    district = M.ordered(c, string.format("SELECT d_next_o_id, d_tax INTO v_o_id, v_dtax FROM " ..
                                            "district%d WHERE d_w_id=p_w AND d_id=p_d%s;", n, M.fu(c, 1)),
                         string.format("UPDATE district%d SET d_next_o_id=d_next_o_id+1 WHERE " ..
                                         "d_w_id=p_w AND d_id=p_d;", n), fixup),
  }
end

-- Payment's warehouse and district reads (into v_wname, v_dname) and
-- YTD updates (by v_amt) in --for-update order; the same in both dialects.
function M.payment_wd(c, n)
  local fu1 = M.fu(c, 1)
  return M.ordered(c, string.format("SELECT w_name INTO v_wname FROM warehouse%d WHERE w_id=p_w%s;",
                                    n, fu1),
                   string.format("UPDATE warehouse%d SET w_ytd=w_ytd+v_amt WHERE w_id=p_w;", n)) ..
    "\n  " ..
    M.ordered(c, string.format("SELECT d_name INTO v_dname FROM district%d WHERE d_w_id=p_w AND " ..
                                 "d_id=p_d%s;", n, fu1),
              string.format("UPDATE district%d SET d_ytd=d_ytd+v_amt WHERE d_w_id=p_w AND d_id=p_d;", n))
end

-- Payment's customer part (P6-P9), the same in both dialects but for
-- two expressions: `prefix`, the BC c_data prefix ending in c_data, and
-- `h_data`.
function M.payment_customer(c, n, prefix, h_data)
  return string.format([[
  SELECT c_first, c_credit, c_balance INTO v_first, v_credit, v_balance FROM customer%d
    WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_id=v_c%s;
  IF v_credit = 'BC' THEN
    SELECT c_data INTO v_cdata FROM customer%d WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_id=v_c;
    UPDATE customer%d SET c_balance=c_balance-v_amt, c_ytd_payment=c_ytd_payment+v_amt,
        c_payment_cnt=c_payment_cnt+1, c_data=SUBSTR(%s, 1, 500)
      WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_id=v_c;
  ELSE
    UPDATE customer%d SET c_balance=c_balance-v_amt, c_ytd_payment=c_ytd_payment+v_amt,
        c_payment_cnt=c_payment_cnt+1
      WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_id=v_c;
  END IF;
  INSERT INTO history%d (h_c_d_id,h_c_w_id,h_c_id,h_d_id,h_w_id,h_date,h_amount,h_data)
    VALUES (p_cd, p_cw, v_c, p_d, p_w, NOW(), v_amt, %s);]], n, M.fu(c, 1), n, n, prefix, n, n, h_data)
end

local function impl(c)
  return c.pg and require("tpcc_sp_pgsql") or require("tpcc_sp_mysql")
end

-- The creation-time options recorded in tpcc_meta.proc_options.
function M.options_text(c)
  return string.format("v=%d,for_update=%d,force_primary=%d,null=%d", M.VERSION, c.for_update,
                       (not c.pg and c.force_primary) and 1 or 0, c.null_variant and 1 or 0)
end

function M.drop_all(con, c, sets)
  local im = impl(c)
  for n = 1, sets do
    for _, sql in ipairs(im.drop(n)) do con:query(sql) end
  end
end

-- (Re)creates the routines of every set and records their options.
function M.create_all(con, c, meta)
  local im = impl(c)
  for n = 1, c.tables do
    for _, sql in ipairs(im.drop(n)) do con:query(sql) end
    for _, sql in ipairs(im.create(c, n)) do con:query(sql) end
  end
  common.write_meta(con, c, { proc_options = M.options_text(c) })
end

-- `bmk tpcc procs`: (re)creates the stored procedures only.
function M.cmd_procs()
  local c = common.config()
  local con = common.monitor(c)
  local meta = require("tpcc_run").check_schema(con, c, "procs")
  if meta == nil then
    common.fail("the stored procedures need a schema prepared by bmk (its tpcc_meta table " ..
                  "records their options): run `bmk tpcc prepare`")
  end
  print(string.format("Creating the stored procedures of %d set(s) (for-update %d, force-primary %d, " ..
                        "%s variant)...", c.tables, c.for_update, c.force_primary and 1 or 0,
                      c.null_variant and "NULL" or "DEFAULT"))
  M.create_all(con, c, meta)
  con:disconnect()
  print("Done.")
end

-- run in sp mode: the routines must exist with this run's options.
function M.check_ready(con, c, meta)
  if meta == nil then
    common.fail("--tpcc-mode=sp needs a schema prepared by bmk (its tpcc_meta table records " ..
                  "the stored procedures' options): run `bmk tpcc prepare`, or use ps or text mode")
  end
  local want = M.options_text(c)
  local have = meta and meta.proc_options
  if have ~= want then
    common.fail("--tpcc-mode=sp: the stored procedures were created with %s, this run needs %s: " ..
                  "run `bmk tpcc procs` with this run's options first",
                have and ("'" .. have .. "'") or "nothing (none exist)", "'" .. want .. "'")
  end
end

-- ---- calls -------------------------------------------------------------------------

local txn = require("tpcc_txn")
local set_int, set_str = C.db_bind_set_int, C.db_bind_set_str

local mk = txn.mk

local function call_stmt(S, ty, n)
  return txn.cached(S, "calls", n, ty, function()
    local sql, spec
    if S.pg then
      sql, spec = require("tpcc_sp_pgsql").call(S.c.pg_routines, ty, n)
    else
      local def = require("tpcc_sp_mysql").CALLS[ty]
      sql, spec = string.format(def[1], n), def[2]
    end
    return mk(S, sql, spec)
  end)
end

-- Executes the call, returns (status, detail) from its result, and reads
-- any further result (MySQL's CALL ends with a status result).
local function run_call(S, st)
  local rs = sysbench.sql.raw.execute(st)
  if rs == nil then S.sql_fail() end
  local row = C.db_fetch_row(rs)
  local status, detail = "c", nil
  if row ~= nil then
    status = txn.col_str(rs, row, 0)
    detail = txn.col_int(rs, row, 1)
  end
  while C.db_more_results(S.con) do
    if sysbench.sql.raw.next_result(S.con) == nil and C.db_conn_error(S.con) ~= 0 then
      S.sql_fail()
    end
  end
  return status, detail
end

local function list(t, n, sep)
  local parts = {}
  for k = 1, n do parts[k] = t[k] end
  return table.concat(parts, sep)
end

M.TX = {}

function M.TX.new_order(S, I)
  local st = call_stmt(S, "new_order", I.set)
  local n = I.ol_cnt
  local items, supply, qty
  if S.pg then
    items = "{" .. list(I.item, n, ",") .. "}"
    supply = "{" .. list(I.supply, n, ",") .. "}"
    qty = "{" .. list(I.qty, n, ",") .. "}"
  else
    items, supply, qty = list(I.item, n, ","), list(I.supply, n, ","), list(I.qty, n, ",")
  end
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.c); set_int(st, 3, n)
  set_int(st, 4, I.all_local)
  set_str(st, 5, items, #items); set_str(st, 6, supply, #supply); set_str(st, 7, qty, #qty)
  local status = run_call(S, st)
  return status == "r" and "r" or "c"
end

function M.TX.payment(S, I)
  local st = call_stmt(S, "payment", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.c_w); set_int(st, 3, I.c_d)
  set_int(st, 4, I.by_name and 0 or I.c); set_int(st, 5, I.by_name and 1 or 0)
  local last = I.by_name and I.last or ""
  set_str(st, 6, last, #last)
  set_int(st, 7, I.amount)
  run_call(S, st)
  return "c"
end

function M.TX.order_status(S, I)
  local st = call_stmt(S, "order_status", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.by_name and 0 or I.c)
  set_int(st, 3, I.by_name and 1 or 0)
  local last = I.by_name and I.last or ""
  set_str(st, 4, last, #last)
  local _, o_id = run_call(S, st)
  I.o_id = o_id
  return "c"
end

function M.TX.delivery(S, I)
  local st = call_stmt(S, "delivery", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.carrier)
  set_int(st, 2, S.c.delivery_commit == "district" and 1 or 0)
  local _, skipped = run_call(S, st)
  I.skipped = skipped or 0
  return "c"
end

function M.TX.stock_level(S, I)
  local st = call_stmt(S, "stock_level", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.threshold)
  local _, low = run_call(S, st)
  I.low_stock = low
  return "c"
end

M.TX.purge = txn.TX.purge

function M.session_init(S)
  S.calls = {}
end

return M
