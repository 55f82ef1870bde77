-- bmk tpcc: PostgreSQL routines of `--tpcc-mode=sp`.
--
-- Procedures (PostgreSQL 11+), the default: neword<N>, payment<N>,
-- ostat<N>, delivery<N>, slev<N>, called with CALL in autocommit; they
-- COMMIT themselves and roll the intended New-Order rollback back with
-- ROLLBACK; outputs come back in INOUT parameters (status, detail).
-- Functions (--pg-routines=function): <name>_f, called with SELECT; the
-- intended rollback is a caught exception (the block's subtransaction is
-- undone) and the outputs are the returned row. Both kinds are created,
-- so --pg-routines needs no `procs` in between.
--
-- Bodies are built from one template: `%%TX%%` markers are replaced by
-- COMMIT/ROLLBACK in procedures and by nothing / RAISE in functions.

local M = {}

local sp = require("tpcc_sp")
local fu, dist_case = sp.fu, sp.dist_case


-- Body statements of each routine (shared by both kinds). ROLLBACK_R
-- marks the intended rollback, COMMIT the end.
local function neword_body(c, n)
  local p = sp.neword_parts(c, n, "v_o_id := v_o_id - 1;")
  local carrier_col, carrier_val, deliv_col, deliv_val, district =
    p.carrier_col, p.carrier_val, p.deliv_col, p.deliv_val, p.district
  return string.format([[
  SELECT c_discount, c_last, c_credit, w_tax INTO v_disc, v_last, v_credit, v_wtax
    FROM customer%d, warehouse%d WHERE w_id=p_w AND c_w_id=w_id AND c_d_id=p_d AND c_id=p_c;
  %s
  INSERT INTO orders%d (o_id,o_d_id,o_w_id,o_c_id,o_entry_d%s,o_ol_cnt,o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, NOW()%s, p_ol_cnt, p_all_local);
  INSERT INTO new_orders%d (no_o_id,no_d_id,no_w_id) VALUES (v_o_id, p_d, p_w);
  FOR v_i IN 1..p_ol_cnt LOOP
    SELECT i_price, i_name, i_data INTO v_price, v_iname, v_idata FROM item%d WHERE i_id=p_items[v_i];
    IF NOT FOUND THEN
      %%ROLLBACK_R%%
    END IF;
    SELECT s_quantity, s_data, %s INTO v_squant, v_sdata, v_dist
      FROM stock%d WHERE s_i_id=p_items[v_i] AND s_w_id=p_supply[v_i]%s;
    UPDATE stock%d SET s_quantity=CASE WHEN s_quantity>=p_qty[v_i]+10 THEN s_quantity-p_qty[v_i]
        ELSE s_quantity-p_qty[v_i]+91 END, s_ytd=s_ytd+p_qty[v_i], s_order_cnt=s_order_cnt+1,
        s_remote_cnt=s_remote_cnt+CASE WHEN p_supply[v_i]<>p_w THEN 1 ELSE 0 END
      WHERE s_i_id=p_items[v_i] AND s_w_id=p_supply[v_i];
    INSERT INTO order_line%d (ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id%s,
        ol_quantity,ol_amount,ol_dist_info)
      VALUES (v_o_id, p_d, p_w, v_i, p_items[v_i], p_supply[v_i]%s, p_qty[v_i],
        p_qty[v_i]*v_price, v_dist);
  END LOOP;
  %%COMMIT%%
  status := 'c'; detail := v_o_id;]], n, n, district, n, carrier_col, carrier_val, n, n,
    dist_case(), n, fu(c, 1), n, n, deliv_col, deliv_val)
end

local NEWORD_DECL = [[
  v_disc numeric(4,4); v_last varchar(16); v_credit char(2); v_wtax numeric(4,4);
  v_o_id int; v_dtax numeric(4,4); v_i int; v_price numeric(5,2); v_iname varchar(24);
  v_idata varchar(50); v_squant int; v_sdata varchar(50); v_dist char(24);]]

local function by_name(n, cols, into, lock)
  return string.format([[
    SELECT COUNT(*) INTO v_n FROM customer%d WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_last=p_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'no customer with the drawn last name';
    END IF;
    SELECT %s INTO %s FROM customer%d WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_last=p_last
      ORDER BY c_first LIMIT 1 OFFSET (v_n - 1) / 2%s;]], n, cols, into, n, lock)
end

local function payment_body(c, n)
  local wd = sp.payment_wd(c, n)
  return string.format([[
  v_amt := p_cents / 100.0;
  %s
  IF p_byname = 1 THEN
%s
  ELSE
    v_c := p_c;
  END IF;
%s
  %%COMMIT%%
  status := 'c'; detail := v_c;]], wd, by_name(n, "c_id", "v_c", fu(c, 2)),
    sp.payment_customer(c, n, "v_c||' '||p_cd||' '||p_cw||' '||p_d||' '||p_w||' '||" ..
                          "to_char(v_amt, 'FM999999990.00')||' '||c_data", "v_wname||'    '||v_dname"))
end

local PAYMENT_DECL = [[
  v_amt numeric(12,2); v_wname varchar(10); v_dname varchar(10); v_c int; v_n int;
  v_credit char(2); v_first varchar(16); v_balance numeric(12,2); v_cdata varchar(500);]]

local function ostat_body(c, n, fp)
  return string.format([[
  IF p_byname = 1 THEN
%s
  ELSE
    v_c := p_c;
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_clast
      FROM customer%d WHERE c_w_id=p_w AND c_d_id=p_d AND c_id=v_c;
  END IF;
  SELECT o_id, o_carrier_id, o_entry_d INTO v_o_id, v_carrier, v_entry FROM orders%d
    WHERE o_w_id=p_w AND o_d_id=p_d AND o_c_id=v_c ORDER BY o_id DESC LIMIT 1;
  IF FOUND THEN
    SELECT COUNT(*), SUM(ol_quantity), SUM(ol_amount), MAX(ol_delivery_d)
      INTO v_lines, v_qty, v_amount, v_deliv
      FROM order_line%d WHERE ol_w_id=p_w AND ol_d_id=p_d AND ol_o_id=v_o_id;
  END IF;
  %%COMMIT%%
  status := 'c'; detail := v_o_id;]],
    by_name(n, "c_id, c_balance, c_first, c_middle", "v_c, v_balance, v_first, v_middle", ""),
    n, n, n)
end

local OSTAT_DECL = [[
  p_cw int := p_w; p_cd int := p_d; v_c int; v_n int; v_balance numeric(12,2);
  v_first varchar(16); v_middle char(2); v_clast varchar(16); v_o_id int; v_carrier int;
  v_entry timestamp; v_lines int; v_qty int; v_amount numeric(12,2); v_deliv timestamp;]]

local function delivery_body(c, n)
  return string.format([[
  v_skipped := 0;
  FOR v_d IN 1..10 LOOP
    v_o := NULL;
    FOR v_try IN 1..3 LOOP
      SELECT no_o_id INTO v_o FROM new_orders%d WHERE no_d_id=v_d AND no_w_id=p_w
        ORDER BY no_o_id LIMIT 1%s;
      IF NOT FOUND THEN
        v_o := NULL;
        EXIT;
      END IF;
      DELETE FROM new_orders%d WHERE no_o_id=v_o AND no_d_id=v_d AND no_w_id=p_w;
      GET DIAGNOSTICS v_rows = ROW_COUNT;
      EXIT WHEN v_rows > 0;
      v_o := NULL;
    END LOOP;
    IF v_o IS NULL THEN
      v_skipped := v_skipped + 1;
    ELSE
      SELECT o_c_id INTO v_c FROM orders%d WHERE o_id=v_o AND o_d_id=v_d AND o_w_id=p_w%s;
      UPDATE orders%d SET o_carrier_id=p_carrier WHERE o_id=v_o AND o_d_id=v_d AND o_w_id=p_w;
      UPDATE order_line%d SET ol_delivery_d=NOW() WHERE ol_o_id=v_o AND ol_d_id=v_d AND ol_w_id=p_w;
      SELECT SUM(ol_amount) INTO v_sum FROM order_line%d
        WHERE ol_o_id=v_o AND ol_d_id=v_d AND ol_w_id=p_w;
      UPDATE customer%d SET c_balance=c_balance+COALESCE(v_sum,0), c_delivery_cnt=c_delivery_cnt+1
        WHERE c_id=v_c AND c_d_id=v_d AND c_w_id=p_w;
    END IF;
    IF p_each = 1 AND v_d < 10 THEN
      %%COMMIT%%
    END IF;
  END LOOP;
  %%COMMIT%%
  status := 'c'; detail := v_skipped;]], n, fu(c, 1), n, n, fu(c, 2), n, n, n, n)
end

local DELIVERY_DECL = [[
  v_o int; v_c int; v_sum numeric(12,2); v_skipped int; v_rows int;]]

local function slev_body(c, n)
  return string.format([[
  SELECT d_next_o_id INTO v_next FROM district%d WHERE d_w_id=p_w AND d_id=p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_cnt FROM order_line%d, stock%d
    WHERE ol_w_id=p_w AND ol_d_id=p_d AND ol_o_id<v_next AND ol_o_id>=v_next-20
      AND s_w_id=p_w AND s_i_id=ol_i_id AND s_quantity<p_threshold;
  %%COMMIT%%
  status := 'c'; detail := v_cnt;]], n, n, n)
end

local SLEV_DECL = [[
  v_next int; v_cnt int;]]

-- name, input parameters, declarations, body builder
local ROUTINES = {
  { "neword", "p_w int, p_d int, p_c int, p_ol_cnt int, p_all_local int, p_items int[], " ..
      "p_supply int[], p_qty int[]", NEWORD_DECL, neword_body },
  { "payment", "p_w int, p_d int, p_cw int, p_cd int, p_c int, p_byname int, p_last varchar, " ..
      "p_cents int", PAYMENT_DECL, payment_body },
  { "ostat", "p_w int, p_d int, p_c int, p_byname int, p_last varchar", OSTAT_DECL, ostat_body },
  { "delivery", "p_w int, p_carrier int, p_each int", DELIVERY_DECL, delivery_body },
  { "slev", "p_w int, p_d int, p_threshold int", SLEV_DECL, slev_body },
}

local function procedure(r, body)
  body = body:gsub("%%ROLLBACK_R%%", "ROLLBACK;\n      status := 'r'; detail := v_o_id;\n      RETURN;")
    :gsub("%%COMMIT%%", "COMMIT;")
  return string.format("CREATE OR REPLACE PROCEDURE %s(%s, INOUT status text DEFAULT NULL, " ..
                         "INOUT detail int DEFAULT NULL)\nLANGUAGE plpgsql AS $tpcc$\nDECLARE\n%s\n" ..
                         "BEGIN\n%s\nEND\n$tpcc$", r.name, r.args, r.decl, body)
end

-- The function form: the body in a block whose exception handler turns
-- the intended rollback (SQLSTATE P0T01) into status 'r'.
local function func(r, body)
  body = body:gsub("%%ROLLBACK_R%%", "RAISE EXCEPTION USING ERRCODE = 'P0T01';")
    :gsub("%%COMMIT%%", "NULL;")
  return string.format("CREATE OR REPLACE FUNCTION %s_f(%s, OUT status text, OUT detail int)\n" ..
                         "LANGUAGE plpgsql AS $tpcc$\nDECLARE\n%s\nBEGIN\n  BEGIN\n%s\n  " ..
                         "EXCEPTION WHEN SQLSTATE 'P0T01' THEN\n    status := 'r'; detail := NULL;\n" ..
                         "  END;\nEND\n$tpcc$", r.name, r.args, r.decl, body)
end

-- CREATE statements of set n (procedures and functions).
function M.create(c, n)
  local out = {}
  for _, def in ipairs(ROUTINES) do
    local r = { name = def[1] .. n, args = def[2], decl = def[3] }
    local body = def[4](c, n)
    out[#out + 1] = procedure(r, body)
    out[#out + 1] = func(r, body)
  end
  return out
end

function M.drop(n)
  local out = {}
  for _, def in ipairs(ROUTINES) do
    out[#out + 1] = string.format("DROP PROCEDURE IF EXISTS %s%d(%s, text, int)", def[1], n, def[2])
    out[#out + 1] = string.format("DROP FUNCTION IF EXISTS %s%d_f(%s)", def[1], n, def[2])
  end
  return out
end

local ARGS = { new_order = "?,?,?,?,?,?::int[],?::int[],?::int[]", payment = "?,?,?,?,?,?,?,?",
               order_status = "?,?,?,?,?", delivery = "?,?,?", stock_level = "?,?,?" }
local NAMES = { new_order = "neword", payment = "payment", order_status = "ostat",
                delivery = "delivery", stock_level = "slev" }
local SPECS = { new_order = "iiiiisss", payment = "iiiiiisi", order_status = "iiiis",
                delivery = "iii", stock_level = "iii" }

-- The call of each type for set n and routine kind: SQL and parameter spec.
function M.call(kind, ty, n)
  if kind == "function" then
    return string.format("SELECT status, detail FROM %s%d_f(%s)", NAMES[ty], n, ARGS[ty]), SPECS[ty]
  end
  return string.format("CALL %s%d(%s, NULL, NULL)", NAMES[ty], n, ARGS[ty]), SPECS[ty]
end

return M
