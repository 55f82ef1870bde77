-- bmk tpcc: what `run` prints beyond sysbench's report:
-- the banner, the per-interval tpcc and per-type lines, the measured
-- interval's samples (schema NOPM, server TPM), the end-of-run blocks
-- (HammerDB xtprof-style table, client TPM per type, errors by code, the
-- manifest, NOPM/TPM) and --tpcc-report files. The audit is in
-- tpcc_audit.lua.
--
-- Where the numbers come from: per-type latency from the engine's
-- per-type histograms (stat.types in the report hooks); counts from the
-- sessions' shared counters (sb_shared) minus the mark taken when the
-- measured interval starts; TPM from the server-statistics sampler
-- (sb_server_stats_xacts); schema NOPM from sum(d_next_o_id) read by the
-- monitor connection of the global state.

local common = require("tpcc_common")
local run = require("tpcc_run")
local ffi = common.ffi
local C = common.C

local M = {}
local NAMES = run.NAMES
local SLOT_TPM0, SLOT_TPM_OK = 14, 15

local function tk(t, k) return t * 16 + k end

-- Counters of the measured interval so far: sums minus the mark.
function M.counters()
  local s = ffi.new("uint64_t[1024]")
  local m = ffi.new("uint64_t[1024]")
  C.sb_shared_sum(s)
  C.sb_shared_marked(m)
  local out = {}
  for i = 0, 1023 do out[i] = tonumber(s[i] - m[i]) end
  return out
end

-- The server's transaction counter now (which 0) or at the end sample (1).
local function xacts(c, which)
  local v = ffi.new("uint64_t[1]")
  if C.sb_server_stats_xacts(which, c.tpm_scope == "all", v) ~= 0 then return nil end
  return tonumber(v[0])
end

local function server_name(c)
  local v = ffi.string(C.sb_server_stats_version())
  if c.pg then return "PostgreSQL" end
  return v:lower():find("mariadb", 1, true) and "MariaDB" or "MySQL"
end

-- "PostgreSQL 15.20", "MariaDB 10.11.19" (the version string is long).
local function server_version(c)
  local v = ffi.string(C.sb_server_stats_version())
  if v == "" then return server_name(c) .. " (version unknown)" end
  if c.pg then return (v:match("^(%S+ %S+)") or v) end
  return server_name(c) .. " " .. (v:match("^([%d%.]+)") or v)
end

local function mix_text(c)
  if c.trx_debug > 0 then return "type " .. c.trx_debug .. " only (--trx-debug)" end
  local m = table.concat(c.mix, "/")
  if c.mix_sysbench then m = "sysbench (10/10/1/1/1)" end
  if c.purge then m = m .. " + purge" end
  return m .. (c.mix_random and " (random draws)" or " (deck)")
end

local function sum_next_o_id(mon)
  local total = 0
  for n = 1, mon.c.tables do
    total = total + (tonumber(common.value(mon.con, "SELECT SUM(d_next_o_id) FROM district" .. n)) or 0)
  end
  return total
end

-- stat.types in the canonical order of the five types (then purge and
-- anything else), skipping types without events.
local ORDER = {}
for i, n in ipairs(NAMES) do ORDER[n] = i end
local function sorted_types(stat)
  local rows = {}
  for _, ty in ipairs(stat.types or {}) do
    if ty.events > 0 then rows[#rows + 1] = ty end
  end
  table.sort(rows, function(a, b) return (ORDER[a.name] or 99) < (ORDER[b.name] or 99) end)
  return rows
end

-- ---- banner (init) -----------------------------------------------------------------

function M.banner(mon)
  local c = mon.c
  print(common.DISCLAIMER)
  print(string.format("tpcc: %d set(s) x %d warehouse(s), %d session(s)%s, mode %s, mix %s, " ..
                        "warehouse model %s (%s homes), isolation %s, for-update %d, retries %s",
                      c.tables, c.scale, c.threads,
                      c.sessions ~= c.threads and (" of " .. c.sessions) or "",
                      c.mode .. (c.mode == "sp" and c.pg and (" (" .. c.pg_routines .. ")") or ""),
                      mix_text(c), c.pick, c.home_assign, c.trx_level, c.for_update,
                      c.retry and "on" or "off"))
  print(string.format("tpcc: NURand constants C_LOAD %s, C_RUN (C_LAST) %d, C_ID %d, C_OL_I_ID %d%s",
                      mon.c_load and tostring(mon.c_load) or "unknown", mon.c_last, mon.c_id,
                      mon.c_item, c.kt and string.format("; keying/thinking on (x%g)", c.kt_scale) or ""))
  if c.tpcc_report ~= "" then
    local f = io.open(c.tpcc_report, "w")
    if not f then common.fail("--tpcc-report: cannot write %s", c.tpcc_report) end
    if c.tpcc_report:match("%.csv$") then
      f:write("time,type,count,tpm,commits,rollbacks,errors,retries,min,p25,p50,p75,p95,p99,max,avg\n")
    else
      f:write("[\n")
    end
    f:close()
  end
end

-- ---- the measured interval (global state) ------------------------------------------

function M.measure_start()
  local mon = run.mon
  if not mon then return end
  C.sb_shared_mark()
  mon.measured = true
  local ok, v = pcall(sum_next_o_id, mon)
  mon.no_start = ok and v or nil
  -- At the end of a warmup the sessions go on while the monitor reads
  -- the schema: the New-Orders they committed between the mark above and
  -- the end of that read (a round trip, longer on a loaded machine) are
  -- in the client's count and may be in the schema's start value as well,
  -- so they widen the agreement's limit (nopm below).
  mon.no_start_slack = M.counters()[tk(run.NO, run.COMMIT)] or 0
  mon.tpm_start = xacts(mon.c, 0)
  C.sb_shared_set(SLOT_TPM0, mon.tpm_start or 0)
  C.sb_shared_set(SLOT_TPM_OK, mon.tpm_start and 1 or 0)
end

function M.measure_end()
  local mon = run.mon
  if not mon then return end
  print(common.DISCLAIMER)
  if not mon.measured then return end
  local ok, v = pcall(sum_next_o_id, mon)
  mon.no_end = ok and v or nil
  mon.tpm_end = xacts(mon.c, 1) or xacts(mon.c, 0)
  -- NOPM and TPM as figures of the run (the metrics endpoint's gauges,
  -- summary.figures in --results): counts over the window, shown per
  -- minute of it, as the report below divides them
  -- (the schema's count and the server's transactions are the database's:
  -- scope "server", so a cluster run on one database does not add them up)
  local n, src, scope = nil, "the schema's sum(d_next_o_id)", "server"
  if mon.no_start and mon.no_end then n = mon.no_end - mon.no_start end
  if not n then
    n, src, scope = M.counters()[tk(run.NO, run.COMMIT)], "the client's committed New-Orders",
      "client"
  end
  sysbench.figure("tpcc_nopm", n, { per_minute = true, scope = scope,
    help = "TPC-C New-Order transactions per minute of measured time (" .. src .. ")" })
  if mon.tpm_start and mon.tpm_end then
    sysbench.figure("tpcc_tpm", mon.tpm_end - mon.tpm_start, { per_minute = true, scope = "server",
      help = "Server transactions (commits and rollbacks) per minute of measured time, " ..
        "HammerDB's TPM" })
  end
end

-- ---- interval lines (reporter state) -------------------------------------------------

local prev, prev_tpm, json_rows

local function fmt_ms(x)
  return string.format("%.2f", x * 1000)
end

-- The sysbench DB interval line (the core's layout, colon after err/s).
local function sysbench_line(stat)
  local t = stat.time_interval
  local function ps(n) return t > 0 and n / t or 0 end
  print(string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) " ..
                        "lat (ms,%u%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
                      stat.time_total, stat.threads_running, ps(stat.events),
                      ps(stat.reads + stat.writes + stat.other), ps(stat.reads), ps(stat.writes),
                      ps(stat.other), sysbench.opt.percentile or 95, stat.latency_pct * 1000,
                      ps(stat.errors), ps(stat.reconnects)))
  if (tonumber(sysbench.opt.rate) or 0) > 0 then
    print(string.format("[ %.0fs ] queue length: %d, concurrency: %d", stat.time_total,
                        stat.queue_length or 0, stat.concurrency or 0))
  end
end

local function write_rows(c, stat, cur, d)
  if c.tpcc_report == "" or not stat.types then return end
  local f = io.open(c.tpcc_report, "a")
  if not f then return end
  local csv = c.tpcc_report:match("%.csv$")
  for _, ty in ipairs(sorted_types(stat)) do
    local t = ORDER[ty.name]
    if t then
      local commits, rbk = d(tk(t, run.COMMIT)), d(tk(t, run.RBK))
      local errs = d(tk(t, run.IGNORED)) + d(tk(t, run.GAVEUP))
      local retries = d(tk(t, run.RETRY))
      local tpm = (commits + rbk) * 60 / stat.time_interval
      local v = { stat.time_total, ty.name, ty.events, tpm, commits, rbk, errs, retries,
                  ty.min * 1000, ty.p25 * 1000, ty.p50 * 1000, ty.p75 * 1000, ty.p95 * 1000,
                  ty.p99 * 1000, ty.max * 1000, ty.avg * 1000 }
      if csv then
        f:write(string.format("%.0f,%s,%d,%.1f,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                              unpack(v)))
      else
        f:write(json_rows and ",\n" or "")
        json_rows = true
        f:write(string.format('  {"time": %.0f, "type": "%s", "count": %d, "tpm": %.1f, ' ..
                                '"commits": %d, "rollbacks": %d, "errors": %d, "retries": %d, ' ..
                                '"min": %.3f, "p25": %.3f, "p50": %.3f, "p75": %.3f, "p95": %.3f, ' ..
                                '"p99": %.3f, "max": %.3f, "avg": %.3f}', unpack(v)))
      end
    end
  end
  f:close()
end

function M.report_intermediate(stat)
  local c = common.config()
  local cur = M.counters()
  if not prev then
    prev = {}
    for i = 0, 1023 do prev[i] = 0 end
    prev_tpm = tonumber(C.sb_shared_get(SLOT_TPM_OK)) == 1 and tonumber(C.sb_shared_get(SLOT_TPM0)) or nil
  end
  local function d(i) return cur[i] - prev[i] end
  local secs = stat.time_interval
  if c.report_csv then
    sysbench.report_csv(stat)
  else
    sysbench_line(stat)
    local tpm_text = "n/a"
    local now_tpm = xacts(c, 0)
    if now_tpm and prev_tpm then
      tpm_text = string.format("%.0f", (now_tpm - prev_tpm) * 60 / secs)
    end
    prev_tpm = now_tpm or prev_tpm
    local retries, codes = 0, {}
    for t = 1, 6 do retries = retries + d(tk(t, run.RETRY)) end
    for id = 0, C.sb_shared_code_count() - 1 do
      local n = 0
      for t = 1, 6 do n = n + d(run.ck(id, t, 0)) end
      if n > 0 then codes[#codes + 1] = ffi.string(C.sb_shared_code_name(id)) .. ":" .. n end
    end
    print(string.format("[ %.0fs ] tpcc NOPM(client) %.0f TPM(server) %s rbk/s %.1f retry/s %.1f%s",
                        stat.time_total, d(tk(run.NO, run.COMMIT)) * 60 / secs, tpm_text,
                        d(tk(run.NO, run.RBK)) / secs, retries / secs,
                        #codes > 0 and (" (" .. table.concat(codes, " ") .. ")") or ""))
    for _, ty in ipairs(sorted_types(stat)) do
      print(string.format("[ %.0fs ]   %-12s n=%d min=%s p50=%s p95=%s p99=%s max=%s ms",
                          stat.time_total, ty.name, ty.events, fmt_ms(ty.min), fmt_ms(ty.p50),
                          fmt_ms(ty.p95), fmt_ms(ty.p99), fmt_ms(ty.max)))
    end
  end
  write_rows(c, stat, cur, d)
  prev = cur
end

-- ---- end of run (global state) ----------------------------------------------------------

local function xtprof(stat)
  local rows = sorted_types(stat)
  local total = 0
  for _, ty in ipairs(rows) do total = total + ty.sum end
  print(string.format("TPROC-C-style results per transaction type (measured interval %.2fs, " ..
                        "latency in ms):", stat.time_total))
  print(string.format("  %-13s %9s %9s %9s %10s %12s %9s %9s %9s %9s %9s %9s %7s", "TYPE", "CALLS",
                      "MIN", "AVG", "MAX", "TOTAL", "P99", "P95", "P75", "P50", "P25", "SD", "RATIO%"))
  for _, r in ipairs(rows) do
    print(string.format("  %-13s %9d %9.3f %9.3f %10.3f %12.1f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f",
                        r.name, r.events, r.min * 1000, r.avg * 1000, r.max * 1000, r.sum * 1000,
                        r.p99 * 1000, r.p95 * 1000, r.p75 * 1000, r.p50 * 1000, r.p25 * 1000,
                        r.stddev * 1000, total > 0 and r.sum * 100 / total or 0))
  end
  print("")
end

local function per_type(cur, minutes)
  local tpm = {}
  print("Transactions per type (measured interval):")
  print(string.format("  %-13s %9s %9s %9s %9s %9s %9s %11s", "TYPE", "ATTEMPTS", "COMMITS",
                      "ROLLBACKS", "RETRIES", "IGNORED", "GAVE UP", "CLIENT TPM"))
  for t = 1, 6 do
    local att = cur[tk(t, run.ATT)]
    if att > 0 then
      local done = cur[tk(t, run.COMMIT)] + cur[tk(t, run.RBK)]
      tpm[#tpm + 1] = string.format("%s %.0f", NAMES[t], done / minutes)
      print(string.format("  %-13s %9d %9d %9d %9d %9d %9d %11.0f", NAMES[t], att,
                          cur[tk(t, run.COMMIT)], cur[tk(t, run.RBK)], cur[tk(t, run.RETRY)],
                          cur[tk(t, run.IGNORED)], cur[tk(t, run.GAVEUP)], done / minutes))
    end
  end
  print("  (ROLLBACKS: the intended 1 % of New-Orders; Delivery skipped " .. cur[run.D_SKIPPED] ..
          " empty district(s))")
  print("")
end

local function errors_by_code(cur)
  print("Errors by code and type (measured interval; intended rollbacks are not errors):")
  local any = false
  for id = 0, C.sb_shared_code_count() - 1 do
    for t = 1, 6 do
      local occ = cur[run.ck(id, t, 0)]
      if occ > 0 then
        if not any then
          print(string.format("  %-8s %-13s %12s %11s %16s", "CODE", "TYPE", "OCCURRENCES",
                              "RETRIED OK", "GAVE UP/IGNORED"))
        end
        any = true
        print(string.format("  %-8s %-13s %12d %11d %16d", ffi.string(C.sb_shared_code_name(id)),
                            NAMES[t], occ, cur[run.ck(id, t, 1)], cur[run.ck(id, t, 2)]))
      end
    end
  end
  if not any then print("  none") end
  print("")
end

local function manifest(mon)
  local c = mon.c
  print("Manifest:")
  print(string.format("  %s; server %s; driver %s; mode %s", sysbench.version_string,
                      server_version(c), c.driver, c.mode ..
                        (c.mode == "sp" and c.pg and (" (" .. c.pg_routines .. ")") or "")))
  print(string.format("  sets %d x %d warehouses; sessions %d (threads %d, offset %d); warehouse " ..
                        "model %s, %s homes", c.tables, c.scale, c.sessions, c.threads,
                      c.thread_offset, c.pick, c.home_assign))
  print(string.format("  mix %s; isolation %s; for-update %d; force-primary %d; %s variant; " ..
                        "retries %s (max %d); delivery commit per %s; keying/thinking %s",
                      mix_text(c), c.trx_level, c.for_update, c.force_primary and 1 or 0,
                      c.null_variant and "NULL" or "DEFAULT", c.retry and "on" or "off",
                      c.retry_max, c.delivery_commit,
                      c.kt and string.format("on (x%g)", c.kt_scale) or "off"))
  print(string.format("  seed %s; NURand C_LOAD %s C_RUN %d C_ID %d C_OL_I_ID %d",
                      tostring(C.sb_tpcc_run_seed()):gsub("ULL$", ""),
                      mon.c_load and tostring(mon.c_load) or "unknown", mon.c_last, mon.c_id,
                      mon.c_item))
  print("")
end

-- The NOPM that keying and thinking times allow: a session cycles
-- through the mix, each transaction taking its keying time plus its mean
-- think time (TPC-C clause 5.2.5.7 minimums and means, times --kt-scale),
-- so it completes 60 x w_NO / sum(w_t x (keying_t + think_t)) New-Orders
-- a minute (1.286 with the default 45/43/4/4/4 mix: 12.86 per warehouse
-- of 10 terminals). nil when the cycle is empty (--kt-scale=0).
local function kt_ceiling(c)
  local cycle = 0
  for t = 1, 5 do cycle = cycle + c.mix[t] * (run.KEYING[t] + run.THINK[t]) * c.kt_scale end
  if cycle <= 0 or c.mix[1] <= 0 then return nil end
  return c.sessions * 60 * c.mix[1] / cycle
end

-- NOPM from the schema and from the client, their agreement, and TPM.
local function nopm(mon, cur, stat)
  local c = mon.c
  local minutes = stat.time_total / 60
  local client = cur[tk(run.NO, run.COMMIT)]
  local line = string.format("NOPM (client, committed New-Orders): %.0f", client / minutes)
  local schema_n
  if mon.no_start and mon.no_end then
    schema_n = mon.no_end - mon.no_start
    local diff = math.abs(schema_n - client)
    local slack = mon.no_start_slack or 0
    local limit = string.format("limit 2 x %d sessions%s", c.threads, slack > 0 and
      string.format(" + %d committed while the start was read", slack) or "")
    local verdict
    if c.sessions ~= c.threads then
      verdict = "agreement n/a (split run: other processes write New-Orders too)"
    elseif diff <= 2 * c.threads + slack then
      verdict = string.format("agree (difference %d New-Orders, %s)", diff, limit)
    else
      verdict = string.format("NOPM DISAGREE (difference %d New-Orders, %s: " ..
                                "another writer, routing, or a bug)", diff, limit)
    end
    print(string.format("NOPM (schema, sum(d_next_o_id)): %.0f; %s; %s", schema_n / minutes, line, verdict))
  else
    print("NOPM (schema): n/a (the district table could not be read); " .. line)
  end
  local primary = schema_n or client
  if mon.tpm_start and mon.tpm_end then
    print(string.format("NOPM %.0f from %.0f %s TPM", primary / minutes,
                        (mon.tpm_end - mon.tpm_start) / minutes, server_name(c)))
  else
    print(string.format("NOPM %.0f (TPM n/a: the server's counters were not sampled; " ..
                          "--db-server-stats=on needed)", primary / minutes))
  end
  local ceiling = kt_ceiling(c)
  if c.kt and ceiling then
    print(string.format("Efficiency: %.2f%% of the %.0f NOPM keying/thinking allows " ..
                          "(%d sessions, %.3f each)", primary / minutes * 100 / ceiling, ceiling,
                        c.sessions, ceiling / c.sessions))
  end
  print("")
  return primary / minutes
end

-- Records in tpcc_meta that a Delivery or a purge ran (checks 11 and
-- 8-10, 12 are then not applicable).
local function record_flags(mon)
  local kv = {}
  local meta = mon.meta
  if not meta then return end
  if tonumber(C.sb_shared_get(common.SLOT.DELIVERED)) > 0 and meta.delivery_executed ~= "1" then
    kv.delivery_executed = 1
  end
  if tonumber(C.sb_shared_get(common.SLOT.PURGED)) > 0 and meta.purged ~= "1" then kv.purged = 1 end
  if next(kv) then pcall(common.write_meta, mon.con, mon.c, kv) end
end

function M.report_final(stat)
  local mon = run.mon
  if not mon then return end
  record_flags(mon)
  local c = mon.c
  if c.tpcc_report ~= "" and c.tpcc_report:match("%.json$") then
    -- closes the array begun at the start, whatever the run measured
    local f = io.open(c.tpcc_report, "a")
    if f then
      f:write("\n]\n")
      f:close()
    end
  end
  if not mon.measured or stat.time_total <= 0 then
    print("tpcc: no measured interval (the run ended during warmup)")
    return
  end
  local cur = M.counters()
  xtprof(stat)
  per_type(cur, stat.time_total / 60)
  errors_by_code(cur)
  manifest(mon)
  M.final_nopm = nopm(mon, cur, stat)
  if c.audit then require("tpcc_audit").print(c, cur, stat) end
end

return M
