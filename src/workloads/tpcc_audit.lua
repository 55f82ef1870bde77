-- bmk tpcc: the run-rule audit printed after every `run`.
-- It uses the client-side counters of the measured interval only (no
-- database queries) and shows how faithful a run was to the TPC-C input
-- rules; it never makes it a TPC-C result.
--
-- Bands: the spec's targets with bmk's tolerances, widened to target +/-
-- 4 binomial standard errors when that is wider, so a short run does not
-- fail by chance. Below --audit-min-neworders New-Orders every line reads
-- INSUFFICIENT SAMPLE.

local run = require("tpcc_run")

local M = {}

local function tk(t, k) return t * 16 + k end

-- p90 response-time limits, seconds (TPC-C 5.2.5.7; Delivery's latency
-- stands for its deferred execution, limit 80 s).
local P90_LIMIT = { new_order = 5, payment = 5, order_status = 5, delivery = 80, stock_level = 20 }

local function pct(x) return string.format("%.2f%%", x) end

-- Line model: {name, value text, target text, band text, verdict}.
local function line(out, name, value, target, band, verdict)
  out[#out + 1] = { name, value, target, band, verdict }
end

-- A two-sided band [lo, hi] around a proportion target p (0..1) over n
-- trials, in percent; widened to p +/- 4 SE.
local function band2(p, n, lo, hi)
  if n > 0 then
    local se = math.sqrt(p * (1 - p) / n) * 100
    lo = math.min(lo, p * 100 - 4 * se)
    hi = math.max(hi, p * 100 + 4 * se)
  end
  return lo, hi
end

local function check2(out, name, value, target_text, p, n, lo, hi)
  lo, hi = band2(p, n, lo, hi)
  line(out, name, pct(value), target_text, string.format("%.2f-%.2f", lo, hi),
       (value >= lo and value <= hi) and "PASS" or "FAIL")
end

-- Completed business transactions per type (commits + intended
-- rollbacks) and their total.
local function completed(cur)
  local done, total = {}, 0
  for t = 1, 5 do
    done[t] = cur[tk(t, run.COMMIT)] + cur[tk(t, run.RBK)]
    total = total + done[t]
  end
  return done, total
end

-- The mix minimums. With the deck the shares are exact over every full
-- deck, so the verdict is on the configured weights (the achieved share
-- of a run that stops inside a deck is shown, not judged); random draws
-- are judged on the achieved share with the 4-SE widening.
local function mix_lines(out, c, done, total)
  local P, OS, D, SL = run.P, run.OS, run.D, run.SL
  local mins = { [P] = 43.0, [OS] = 4.0, [D] = 4.0, [SL] = 4.0 }
  local names = { [P] = "Payment", [OS] = "Order-Status", [D] = "Delivery", [SL] = "Stock-Level" }
  local wsum = 0
  for t = 1, 5 do wsum = wsum + c.mix[t] end
  for _, t in ipairs({ P, OS, D, SL }) do
    local share = total > 0 and done[t] * 100 / total or 0
    local nm = "mix: " .. names[t] .. " share"
    if c.trx_debug > 0 then
      line(out, nm, pct(share), ">= " .. mins[t], "", "N/A")
    elseif not c.mix_random then
      local configured = c.mix[t] * 100 / wsum
      line(out, nm, pct(share), string.format(">= %.1f", mins[t]),
           string.format("deck %.2f", configured), configured >= mins[t] and "PASS" or "FAIL")
    else
      local lo = mins[t]
      if total > 0 then
        local p = mins[t] / 100
        lo = math.min(lo, mins[t] - 4 * math.sqrt(p * (1 - p) / total) * 100)
      end
      line(out, nm, pct(share), string.format(">= %.1f", mins[t]), string.format(">= %.2f", lo),
           share >= lo and "PASS" or "FAIL")
    end
  end
end

-- The input-rule rates: rollbacks, remote lines and payments, by name,
-- order lines, skipped Delivery districts.
local function rate_lines(out, c, cur, done)
  local no = done[run.NO]
  if no > 0 then
    check2(out, "New-Order rollback %", cur[tk(run.NO, run.RBK)] * 100 / no, "1.00", 0.01, no, 0.90, 1.10)
  else
    line(out, "New-Order rollback %", "-", "1.00", "0.90-1.10", "N/A")
  end
  local lines, remote = cur[run.NO_LINES], cur[run.NO_REMOTE]
  if c.scale < 2 or lines == 0 then
    line(out, "remote order lines %", lines > 0 and pct(remote * 100 / lines) or "-", "1.00",
         "0.95-1.05", "N/A")
  else
    check2(out, "remote order lines %", remote * 100 / lines, "1.00", 0.01, lines, 0.95, 1.05)
  end
  local pays = done[run.P]
  if c.scale < 2 or pays == 0 then
    line(out, "remote Payment %", pays > 0 and pct(cur[run.P_REMOTE] * 100 / pays) or "-", "15.0",
         "14.0-16.0", "N/A")
  else
    check2(out, "remote Payment %", cur[run.P_REMOTE] * 100 / pays, "15.0", 0.15, pays, 14.0, 16.0)
  end
  local pos = done[run.P] + done[run.OS]
  if pos > 0 then
    check2(out, "by-name %", (cur[run.P_BYNAME] + cur[run.OS_BYNAME]) * 100 / pos, "60.0", 0.60,
           pos, 57.0, 63.0)
  else
    line(out, "by-name %", "-", "60.0", "57.0-63.0", "N/A")
  end
  -- average order lines: uniform 5..15 has standard deviation sqrt(10)
  if no > 0 then
    local avg = lines / no
    local se = math.sqrt(10) / math.sqrt(no)
    local lo, hi = math.min(9.5, 10 - 4 * se), math.max(10.5, 10 + 4 * se)
    line(out, "average order lines", string.format("%.2f", avg), "10.0",
         string.format("%.2f-%.2f", lo, hi), (avg >= lo and avg <= hi) and "PASS" or "FAIL")
  else
    line(out, "average order lines", "-", "10.0", "9.5-10.5", "N/A")
  end
  local deliveries = done[run.D]
  if deliveries > 0 then
    local skipped = cur[run.D_SKIPPED] * 100 / (deliveries * 10)
    line(out, "skipped Delivery districts", pct(skipped), "0", "<= 1%",
         skipped <= 1 and "PASS" or "FAIL")
  else
    line(out, "skipped Delivery districts", "-", "0", "<= 1%", "N/A")
  end
end

-- p90 per type and the keying/thinking means (keying/thinking runs only).
local function kt_lines(out, c, cur, stat)
  local by_name = {}
  for _, ty in ipairs(stat.types or {}) do by_name[ty.name] = ty end
  for t = 1, 5 do
    local nm = run.NAMES[t]
    local ty = by_name[nm]
    if c.kt and ty and ty.events > 0 then
      line(out, "p90 response time " .. nm, string.format("%.3fs", ty.p90),
           "<= " .. P90_LIMIT[nm] .. "s", "<= " .. P90_LIMIT[nm] .. "s",
           ty.p90 <= P90_LIMIT[nm] and "PASS" or "FAIL")
    else
      line(out, "p90 response time " .. nm, ty and string.format("%.3fs", ty.p90) or "-",
           "<= " .. P90_LIMIT[nm] .. "s", "", "N/A")
    end
  end
  if not c.kt then
    line(out, "keying/thinking means", "off", "on", ">= 99%, x1", "N/A")
    return
  end
  local got, want = 0, 0
  for t = 1, 5 do
    local n = cur[tk(t, run.KT_N)]
    got = got + cur[tk(t, run.KEY_MS)] + cur[tk(t, run.THINK_MS)]
    want = want + n * (run.KEYING[t] + run.THINK[t]) * 1000 * c.kt_scale
  end
  local achieved = want > 0 and got * 100 / want or 0
  line(out, "keying/thinking means", pct(achieved) .. (c.kt_scale ~= 1 and
         string.format(" (x%g)", c.kt_scale) or ""), "100% x1", ">= 99%, x1",
       (achieved >= 99 and c.kt_scale == 1) and "PASS" or "FAIL")
end

-- Every audit line: {quantity, value, target, band, verdict}, and
-- the number of completed New-Orders.
function M.lines(c, cur, stat)
  local out = {}
  local done, total = completed(cur)
  mix_lines(out, c, done, total)
  rate_lines(out, c, cur, done)
  kt_lines(out, c, cur, stat)
  line(out, "warehouse model", c.pick, "home", "home", c.pick == "home" and "PASS" or "FAIL")
  return out, done[run.NO]
end

function M.print(c, cur, stat)
  local out, no = M.lines(c, cur, stat)
  local small = no < c.audit_min_no
  print(string.format("Run-rule audit (measured interval, client counters, %d New-Orders; not a " ..
                        "TPC-C audit):", no))
  print(string.format("  %-34s %14s %10s %14s  %s", "QUANTITY", "VALUE", "TARGET", "BAND", "VERDICT"))
  local fails = 0
  for _, l in ipairs(out) do
    local v = l[5]
    if small and v ~= "N/A" then v = "INSUFFICIENT SAMPLE" end
    if v == "FAIL" then fails = fails + 1 end
    print(string.format("  %-34s %14s %10s %14s  %s", l[1], l[2], l[3], l[4], v))
  end
  local verdict
  if small then
    verdict = string.format("INSUFFICIENT SAMPLE (fewer than --audit-min-neworders=%d New-Orders)",
                            c.audit_min_no)
  elseif fails > 0 then
    verdict = string.format("FAIL (%d line(s) outside their band)", fails)
  else
    verdict = "PASS"
  end
  print("Audit verdict: " .. verdict)
  print("")
end

return M
