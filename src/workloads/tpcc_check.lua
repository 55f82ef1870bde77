-- bmk tpcc: `check`, the 12 consistency conditions of TPC-C clause 3.3.2,
-- spread over --threads by warehouse (a parallel command; each warehouse is
-- checked in every set). Comparisons are exact decimal comparisons in SQL,
-- every sum wrapped in COALESCE(...,0): a customer whose only order is
-- undelivered has a NULL sum of delivered amounts, which must count as 0,
-- not pass silently.
--
-- Output: sysbench-tpcc's lines, "Check N, warehouse: W PASSED" or
-- "... FAILED!!! (sets ...)", "N/A" where a condition no longer holds by
-- design (11 after a Delivery; 8, 9, 10, 12 after purge), then a summary.
-- The exit status is 1 when any condition failed. With --endpoints it
-- waits for the replicas to catch up, then runs on the primary and on
-- each replica in turn, a summary line each (tpcc_replicas.lua).

local common = require("tpcc_common")
local C = common.C
local SLOT = common.SLOT
local replicas = require("tpcc_replicas")

local M = {}

-- Undelivered tests of the NULL / DEFAULT variant (NULL, or the sentinels).
local function und(c)
  if c.null_variant then
    return "o_carrier_id IS NULL", "ol_delivery_d IS NULL"
  end
  return "o_carrier_id = " .. common.CARRIER_SENTINEL,
    "ol_delivery_d = '" .. common.DATE_SENTINEL .. "'"
end

-- Per customer sums of warehouse w as derived tables joined to the
-- customers (one grouped scan each, fast without the FK indexes, unlike
-- correlated subqueries): delivered ol_amount (dl.s) and h_amount (h.s).
local function delivered_join(c, n, w)
  local _, olu = und(c)
  return string.format("LEFT JOIN (SELECT o_d_id, o_c_id, SUM(ol_amount) s FROM orders%d, order_line%d " ..
                         "WHERE ol_w_id=o_w_id AND ol_d_id=o_d_id AND ol_o_id=o_id AND NOT (%s) AND " ..
                         "o_w_id=%d GROUP BY o_d_id, o_c_id) dl ON dl.o_d_id=c.c_d_id AND dl.o_c_id=c.c_id",
                       n, n, olu, w)
end

local function history_join(n, w)
  return string.format("LEFT JOIN (SELECT h_c_d_id, h_c_id, SUM(h_amount) s FROM history%d WHERE " ..
                         "h_c_w_id=%d GROUP BY h_c_d_id, h_c_id) h ON h.h_c_d_id=c.c_d_id AND h.h_c_id=c.c_id",
                       n, w)
end

-- SQL counting the violations of condition k in set n, warehouse w.
local CHECKS = {
  [1] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM warehouse%d WHERE w_id=%d AND w_ytd <> " ..
                           "(SELECT COALESCE(SUM(d_ytd), 0) FROM district%d WHERE d_w_id=%d)", n, w, n, w)
  end,
  [2] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM district%d d LEFT JOIN (SELECT o_d_id, MAX(o_id) mo " ..
                           "FROM orders%d WHERE o_w_id=%d GROUP BY o_d_id) o ON o.o_d_id=d.d_id " ..
                           "LEFT JOIN (SELECT no_d_id, MAX(no_o_id) mno FROM new_orders%d WHERE " ..
                           "no_w_id=%d GROUP BY no_d_id) x ON x.no_d_id=d.d_id WHERE d.d_w_id=%d AND " ..
                           "(o.mo IS NULL OR d.d_next_o_id-1 <> o.mo OR (x.mno IS NOT NULL AND " ..
                           "d.d_next_o_id-1 <> x.mno))", n, n, w, n, w, w)
  end,
  [3] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM (SELECT no_d_id FROM new_orders%d WHERE no_w_id=%d " ..
                           "GROUP BY no_d_id HAVING MAX(no_o_id)-MIN(no_o_id)+1 <> COUNT(*)) t", n, w)
  end,
  [4] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM (SELECT o_d_id, SUM(o_ol_cnt) s FROM orders%d WHERE " ..
                           "o_w_id=%d GROUP BY o_d_id) o LEFT JOIN (SELECT ol_d_id, COUNT(*) cnt FROM " ..
                           "order_line%d WHERE ol_w_id=%d GROUP BY ol_d_id) l ON l.ol_d_id=o.o_d_id " ..
                           "WHERE l.cnt IS NULL OR o.s <> l.cnt", n, w, n, w)
  end,
  [5] = function(c, n, w)
    local ou = und(c)
    return string.format("SELECT COUNT(*) FROM orders%d LEFT JOIN new_orders%d ON no_w_id=o_w_id AND " ..
                           "no_d_id=o_d_id AND no_o_id=o_id WHERE o_w_id=%d AND ((%s AND no_o_id IS " ..
                           "NULL) OR (NOT (%s) AND no_o_id IS NOT NULL))", n, n, w, ou, ou)
  end,
  [6] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM orders%d o LEFT JOIN (SELECT ol_d_id, ol_o_id, COUNT(*) " ..
                           "cnt FROM order_line%d WHERE ol_w_id=%d GROUP BY ol_d_id, ol_o_id) l ON " ..
                           "l.ol_d_id=o.o_d_id AND l.ol_o_id=o.o_id WHERE o.o_w_id=%d AND (l.cnt IS " ..
                           "NULL OR l.cnt <> o.o_ol_cnt)", n, n, w, w)
  end,
  [7] = function(c, n, w)
    local ou, olu = und(c)
    return string.format("SELECT COUNT(*) FROM orders%d, order_line%d WHERE ol_w_id=o_w_id AND " ..
                           "ol_d_id=o_d_id AND ol_o_id=o_id AND o_w_id=%d AND ((%s AND NOT (%s)) OR " ..
                           "(NOT (%s) AND %s))", n, n, w, olu, ou, olu, ou)
  end,
  [8] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM warehouse%d WHERE w_id=%d AND w_ytd <> " ..
                           "(SELECT COALESCE(SUM(h_amount), 0) FROM history%d WHERE h_w_id=%d)", n, w, n, w)
  end,
  [9] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM district%d d WHERE d_w_id=%d AND d_ytd <> " ..
                           "(SELECT COALESCE(SUM(h_amount), 0) FROM history%d WHERE h_w_id=%d AND " ..
                           "h_d_id=d.d_id)", n, w, n, w)
  end,
  [10] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM customer%d c %s %s WHERE c.c_w_id=%d AND c.c_balance <> " ..
                           "COALESCE(dl.s, 0) - COALESCE(h.s, 0)", n, delivered_join(c, n, w),
                         history_join(n, w), w)
  end,
  [11] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM (SELECT o_d_id, COUNT(*) cnt FROM orders%d WHERE " ..
                           "o_w_id=%d GROUP BY o_d_id) o LEFT JOIN (SELECT no_d_id, COUNT(*) cnt FROM " ..
                           "new_orders%d WHERE no_w_id=%d GROUP BY no_d_id) x ON x.no_d_id=o.o_d_id " ..
                           "WHERE o.cnt - COALESCE(x.cnt, 0) <> 2100", n, w, n, w)
  end,
  [12] = function(c, n, w)
    return string.format("SELECT COUNT(*) FROM customer%d c %s WHERE c.c_w_id=%d AND c.c_balance + " ..
                           "c.c_ytd_payment <> COALESCE(dl.s, 0)", n, delivered_join(c, n, w), w)
  end,
}
M.CHECKS = CHECKS

-- Why condition k does not apply to this schema (nil when it does).
local function not_applicable(k, flags)
  if k == 11 and flags.delivered then return "a Delivery has run" end
  if k == 11 and flags.unknown then return "no tpcc_meta: unknown whether a Delivery ran" end
  if (k == 8 or k == 9 or k == 10 or k == 12) and flags.purged then return "purge has run" end
  return nil
end

-- Checks warehouse w in every set; prints one line per condition.
local function check_warehouse(con, c, flags, w)
  for k = 1, 12 do
    if c.checks[k] then
      local na = not_applicable(k, flags)
      if na then
        print(string.format("Check %d, warehouse: %d N/A (%s)", k, w, na))
        C.sb_shared_add(SLOT.CHECK_NA, 1)
      else
        local bad = {}
        for n = 1, c.tables do
          local v = tonumber(common.value(con, CHECKS[k](c, n, w)))
          if v ~= 0 then bad[#bad + 1] = tostring(n) end
        end
        if #bad == 0 then
          print(string.format("Check %d, warehouse: %d PASSED", k, w))
          C.sb_shared_add(SLOT.CHECK_PASS, 1)
        else
          print(string.format("Check %d, warehouse: %d FAILED!!! (set%s %s)", k, w,
                              #bad > 1 and "s" or "", table.concat(bad, ",")))
          C.sb_shared_add(SLOT.CHECK_FAIL, 1)
        end
      end
    end
  end
end

-- One round of checks on `con` over the warehouses (all threads), then
-- thread 0's summary line (the counts of this round: the shared counters
-- less `prev`, its running totals) and the reset for a next round.
local function round(con, c, tid, flags, label, prev)
  while true do
    local w = tonumber(C.sb_shared_add(SLOT.UNIT, 1)) + 1
    if w > c.scale or C.sb_shared_aborted() then break end
    check_warehouse(con, c, flags, w)
  end
  if C.sb_shared_barrier(c.threads) ~= 0 then error("aborted", 0) end
  if tid == 0 then
    local nchecks = 0
    for k = 1, 12 do
      if c.checks[k] then nchecks = nchecks + 1 end
    end
    local pass, fail = tonumber(C.sb_shared_get(SLOT.CHECK_PASS)), tonumber(C.sb_shared_get(SLOT.CHECK_FAIL))
    local na = tonumber(C.sb_shared_get(SLOT.CHECK_NA))
    print(string.format("Checks: %d PASSED, %d FAILED, %d N/A (%d condition(s) x %d warehouse(s) " ..
                          "x %d set(s))%s", pass - prev.pass, fail - prev.fail, na - prev.na, nchecks,
                        c.scale, c.tables, label and (" on endpoint '" .. label .. "'") or ""))
    prev.pass, prev.fail, prev.na = pass, fail, na
    C.sb_shared_set(SLOT.UNIT, 0)
  end
  if C.sb_shared_barrier(c.threads) ~= 0 then error("aborted", 0) end
end

local function body(c, tid)
  local con = common.monitor(c)
  -- with --endpoints: the primary, then each replica (after it caught up)
  local targets = replicas.targets(con:endpoint())
  if tid == 0 then
    local meta = require("tpcc_run").check_schema(con, c, "check")
    local flags = { delivered = meta and tonumber(meta.delivery_executed) == 1,
                    purged = meta and tonumber(meta.purged) == 1, unknown = meta == nil }
    C.sb_shared_set(SLOT.DECISION, (flags.delivered and 1 or 0) + (flags.purged and 2 or 0) +
                      (flags.unknown and 4 or 0))
    if c.use_fk == 2 and (c.checks[6] or c.checks[10] or c.checks[12]) then
      print("WARNING: checks 6, 10 and 12 are slow without the FK-supporting indexes " ..
              "(--use-fk=2); running them anyway")
    end
    C.sb_shared_set(SLOT.UNIT, 0)
    replicas.wait_caught_up(con, c, targets)
  end
  if C.sb_shared_barrier(c.threads) ~= 0 then error("aborted", 0) end
  local f = tonumber(C.sb_shared_get(SLOT.DECISION))
  local flags = { delivered = f % 2 == 1, purged = math.floor(f / 2) % 2 == 1,
                  unknown = math.floor(f / 4) % 2 == 1 }
  local prev = { pass = 0, fail = 0, na = 0 }
  if #targets == 0 then
    round(con, c, tid, flags, nil, prev)
  end
  for r, t in ipairs(targets) do
    if tid == 0 then
      print(string.format("Endpoint '%s' (%s):", t.name, t.replica and "replica" or "primary"))
    end
    local tcon = r == 1 and con or common.monitor(c, t.name)
    round(tcon, c, tid, flags, t.name, prev)
    if tcon ~= con then tcon:disconnect() end
  end
  con:disconnect()
  return tonumber(C.sb_shared_get(SLOT.CHECK_FAIL)) == 0
end

-- `check` in thread sysbench.tid of --threads.
function M.cmd_check()
  return common.parallel_command(body)
end

return M
