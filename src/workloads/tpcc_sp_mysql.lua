-- bmk tpcc: MySQL/MariaDB stored procedures of `--tpcc-mode=sp` (HammerDB's
-- approach). NEWORD<N>, PAYMENT<N>, OSTAT<N>, DELIVERY<N> and SLEV<N> run
-- tpcc_txn.lua's statements with the same locks, relative updates and
-- outcomes inside START TRANSACTION ... COMMIT and end with one result set
-- (status, detail), so one CALL is one round trip. Inputs come from the
-- client: the New-Order lines as comma-separated lists, amounts in cents.
-- An SQL error rolls back and is re-raised to the client (EXIT handler +
-- RESIGNAL), so deadlocks reach it with their own code.
--
-- --for-update, --force-primary and the NULL/DEFAULT variant are fixed
-- when the procedures are created (recorded in tpcc_meta.proc_options).

local M = {}

local sp = require("tpcc_sp")
local fu, dist_case = sp.fu, sp.dist_case

local HANDLER = "DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;"

-- k-th item of a comma-separated list p (1-based).
local function nth(list, k)
  return string.format("CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(%s, ',', %s), ',', -1) AS SIGNED)",
                       list, k)
end


function M.neword(c, n)
  local p = sp.neword_parts(c, n, "SET v_o_id = v_o_id - 1;")
  local carrier_col, carrier_val, deliv_col, deliv_val, district =
    p.carrier_col, p.carrier_val, p.deliv_col, p.deliv_val, p.district
  return string.format([[
CREATE PROCEDURE NEWORD%d(IN p_w INT, IN p_d INT, IN p_c INT, IN p_ol_cnt INT, IN p_all_local INT,
  IN p_items VARCHAR(128), IN p_supply VARCHAR(128), IN p_qty VARCHAR(64))
proc: BEGIN
  DECLARE v_disc DECIMAL(4,4); DECLARE v_last VARCHAR(16); DECLARE v_credit CHAR(2);
  DECLARE v_wtax DECIMAL(4,4); DECLARE v_o_id INT; DECLARE v_dtax DECIMAL(4,4);
  DECLARE v_i INT DEFAULT 1; DECLARE v_item INT; DECLARE v_sw INT; DECLARE v_q INT;
  DECLARE v_price DECIMAL(5,2); DECLARE v_iname VARCHAR(24); DECLARE v_idata VARCHAR(50);
  DECLARE v_squant INT; DECLARE v_sdata VARCHAR(50); DECLARE v_dist CHAR(24);
  DECLARE v_found INT DEFAULT 1;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  %s
  START TRANSACTION;
  SELECT c_discount, c_last, c_credit, w_tax INTO v_disc, v_last, v_credit, v_wtax
    FROM customer%d, warehouse%d WHERE w_id=p_w AND c_w_id=w_id AND c_d_id=p_d AND c_id=p_c;
  %s
  INSERT INTO orders%d (o_id,o_d_id,o_w_id,o_c_id,o_entry_d%s,o_ol_cnt,o_all_local)
    VALUES (v_o_id, p_d, p_w, p_c, NOW()%s, p_ol_cnt, p_all_local);
  INSERT INTO new_orders%d (no_o_id,no_d_id,no_w_id) VALUES (v_o_id, p_d, p_w);
  WHILE v_i <= p_ol_cnt DO
    SET v_item = %s, v_sw = %s, v_q = %s;
    SET v_found = 1;
    SELECT i_price, i_name, i_data INTO v_price, v_iname, v_idata FROM item%d WHERE i_id=v_item;
    IF v_found = 0 THEN
      ROLLBACK;
      SELECT 'r' AS status, v_o_id AS detail;
      LEAVE proc;
    END IF;
    SELECT s_quantity, s_data, %s INTO v_squant, v_sdata, v_dist
      FROM stock%d WHERE s_i_id=v_item AND s_w_id=v_sw%s;
    UPDATE stock%d SET s_quantity=CASE WHEN s_quantity>=v_q+10 THEN s_quantity-v_q
        ELSE s_quantity-v_q+91 END, s_ytd=s_ytd+v_q, s_order_cnt=s_order_cnt+1,
        s_remote_cnt=s_remote_cnt+IF(v_sw<>p_w,1,0)
      WHERE s_i_id=v_item AND s_w_id=v_sw;
    INSERT INTO order_line%d (ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id%s,
        ol_quantity,ol_amount,ol_dist_info)
      VALUES (v_o_id, p_d, p_w, v_i, v_item, v_sw%s, v_q, v_q*v_price, v_dist);
    SET v_i = v_i + 1;
  END WHILE;
  COMMIT;
  SELECT 'c' AS status, v_o_id AS detail;
END]], n, HANDLER, n, n, district, n, carrier_col, carrier_val, n, nth("p_items", "v_i"),
    nth("p_supply", "v_i"), nth("p_qty", "v_i"), n, dist_case(), n, fu(c, 1), n, n,
    deliv_col, deliv_val)
end

-- Customer by last name: position ceil(n/2) of the rows ordered by c_first.
local function by_name(n, cols, into, lock)
  return string.format([[
    SELECT COUNT(*) INTO v_n FROM customer%d WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_last=p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no customer with the drawn last name';
    END IF;
    SET v_off = (v_n - 1) DIV 2;
    SELECT %s INTO %s FROM customer%d WHERE c_w_id=p_cw AND c_d_id=p_cd AND c_last=p_last
      ORDER BY c_first LIMIT v_off, 1%s;]], n, cols, into, n, lock)
end

function M.payment(c, n)
  local wd = sp.payment_wd(c, n)
  return string.format([[
CREATE PROCEDURE PAYMENT%d(IN p_w INT, IN p_d INT, IN p_cw INT, IN p_cd INT, IN p_c INT,
  IN p_byname INT, IN p_last VARCHAR(16), IN p_cents INT)
BEGIN
  DECLARE v_amt DECIMAL(12,2); DECLARE v_wname VARCHAR(10); DECLARE v_dname VARCHAR(10);
  DECLARE v_c INT; DECLARE v_n INT; DECLARE v_off INT; DECLARE v_credit CHAR(2);
  DECLARE v_first VARCHAR(16); DECLARE v_balance DECIMAL(12,2); DECLARE v_cdata VARCHAR(500);
  %s
  SET v_amt = p_cents / 100;
  START TRANSACTION;
  %s
  IF p_byname = 1 THEN
%s
  ELSE
    SET v_c = p_c;
  END IF;
%s
  COMMIT;
  SELECT 'c' AS status, v_c AS detail;
END]], n, HANDLER, wd, by_name(n, "c_id", "v_c", fu(c, 2)),
    sp.payment_customer(c, n, "CONCAT(v_c,' ',p_cd,' ',p_cw,' ',p_d,' ',p_w,' ',v_amt,' ',c_data)",
                        "CONCAT(v_wname,'    ',v_dname)"))
end

function M.ostat(c, n, fp)
  return string.format([[
CREATE PROCEDURE OSTAT%d(IN p_w INT, IN p_d INT, IN p_c INT, IN p_byname INT, IN p_last VARCHAR(16))
BEGIN
  DECLARE p_cw INT DEFAULT p_w; DECLARE p_cd INT DEFAULT p_d;
  DECLARE v_c INT; DECLARE v_n INT; DECLARE v_off INT; DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first VARCHAR(16); DECLARE v_middle CHAR(2); DECLARE v_clast VARCHAR(16);
  DECLARE v_o_id INT; DECLARE v_carrier INT; DECLARE v_entry DATETIME;
  DECLARE v_lines INT; DECLARE v_qty INT; DECLARE v_amount DECIMAL(12,2); DECLARE v_deliv DATETIME;
  DECLARE v_found INT DEFAULT 1;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  %s
  START TRANSACTION;
  IF p_byname = 1 THEN
%s
  ELSE
    SET v_c = p_c;
    SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_clast
      FROM customer%d WHERE c_w_id=p_w AND c_d_id=p_d AND c_id=v_c;
  END IF;
  SELECT o_id, o_carrier_id, o_entry_d INTO v_o_id, v_carrier, v_entry FROM orders%d
    WHERE o_w_id=p_w AND o_d_id=p_d AND o_c_id=v_c ORDER BY o_id DESC LIMIT 1;
  IF v_found = 1 THEN
    SELECT COUNT(*), SUM(ol_quantity), SUM(ol_amount), MAX(ol_delivery_d)
      INTO v_lines, v_qty, v_amount, v_deliv
      FROM order_line%d%s WHERE ol_w_id=p_w AND ol_d_id=p_d AND ol_o_id=v_o_id;
  END IF;
  COMMIT;
  SELECT 'c' AS status, v_o_id AS detail;
END]], n, HANDLER, by_name(n, "c_id, c_balance, c_first, c_middle", "v_c, v_balance, v_first, v_middle", ""),
    n, n, n, fp)
end

function M.delivery(c, n, fp)
  return string.format([[
CREATE PROCEDURE DELIVERY%d(IN p_w INT, IN p_carrier INT, IN p_each INT)
BEGIN
  DECLARE v_d INT DEFAULT 1; DECLARE v_o INT; DECLARE v_c INT; DECLARE v_sum DECIMAL(12,2);
  DECLARE v_skipped INT DEFAULT 0; DECLARE v_try INT; DECLARE v_found INT DEFAULT 1;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
  %s
  START TRANSACTION;
  WHILE v_d <= 10 DO
    SET v_try = 0, v_o = NULL;
    pick: WHILE v_try < 3 DO
      SET v_found = 1, v_try = v_try + 1;
      SELECT no_o_id INTO v_o FROM new_orders%d WHERE no_d_id=v_d AND no_w_id=p_w
        ORDER BY no_o_id LIMIT 1%s;
      IF v_found = 0 THEN
        SET v_o = NULL;
        LEAVE pick;
      END IF;
      DELETE FROM new_orders%d WHERE no_o_id=v_o AND no_d_id=v_d AND no_w_id=p_w;
      IF ROW_COUNT() > 0 THEN
        LEAVE pick;
      END IF;
      SET v_o = NULL;
    END WHILE;
    IF v_o IS NULL THEN
      SET v_skipped = v_skipped + 1;
    ELSE
      SELECT o_c_id INTO v_c FROM orders%d WHERE o_id=v_o AND o_d_id=v_d AND o_w_id=p_w%s;
      UPDATE orders%d SET o_carrier_id=p_carrier WHERE o_id=v_o AND o_d_id=v_d AND o_w_id=p_w;
      UPDATE order_line%d%s SET ol_delivery_d=NOW() WHERE ol_o_id=v_o AND ol_d_id=v_d AND ol_w_id=p_w;
      SELECT SUM(ol_amount) INTO v_sum FROM order_line%d%s
        WHERE ol_o_id=v_o AND ol_d_id=v_d AND ol_w_id=p_w;
      UPDATE customer%d SET c_balance=c_balance+COALESCE(v_sum,0), c_delivery_cnt=c_delivery_cnt+1
        WHERE c_id=v_c AND c_d_id=v_d AND c_w_id=p_w;
    END IF;
    IF p_each = 1 AND v_d < 10 THEN
      COMMIT;
      START TRANSACTION;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
  SELECT 'c' AS status, v_skipped AS detail;
END]], n, HANDLER, n, fu(c, 1), n, n, fu(c, 2), n, n, fp, n, fp, n)
end

function M.slev(c, n)
  return string.format([[
CREATE PROCEDURE SLEV%d(IN p_w INT, IN p_d INT, IN p_threshold INT)
BEGIN
  DECLARE v_next INT; DECLARE v_cnt INT;
  %s
  START TRANSACTION;
  SELECT d_next_o_id INTO v_next FROM district%d WHERE d_w_id=p_w AND d_id=p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_cnt FROM order_line%d, stock%d
    WHERE ol_w_id=p_w AND ol_d_id=p_d AND ol_o_id<v_next AND ol_o_id>=v_next-20
      AND s_w_id=p_w AND s_i_id=ol_i_id AND s_quantity<p_threshold;
  COMMIT;
  SELECT 'c' AS status, v_cnt AS detail;
END]], n, HANDLER, n, n, n)
end

-- CREATE statements of set n (after dropping the old ones).
function M.create(c, n)
  local fp = c.force_primary and " FORCE INDEX (PRIMARY)" or ""
  return { M.neword(c, n), M.payment(c, n), M.ostat(c, n, fp), M.delivery(c, n, fp), M.slev(c, n) }
end

function M.drop(n)
  local out = {}
  for _, p in ipairs({ "NEWORD", "PAYMENT", "OSTAT", "DELIVERY", "SLEV" }) do
    out[#out + 1] = "DROP PROCEDURE IF EXISTS " .. p .. n
  end
  return out
end

-- The CALL of each type: SQL and parameter spec (i integer, s text).
M.CALLS = {
  new_order = { "CALL NEWORD%d(?,?,?,?,?,?,?,?)", "iiiiisss" },
  payment = { "CALL PAYMENT%d(?,?,?,?,?,?,?,?)", "iiiiiisi" },
  order_status = { "CALL OSTAT%d(?,?,?,?,?)", "iiiis" },
  delivery = { "CALL DELIVERY%d(?,?,?)", "iii" },
  stock_level = { "CALL SLEV%d(?,?,?)", "iii" },
}

return M
