-- bmk tpch: `run --tpch-test=throughput|full`. The throughput test (TPC-H
-- specification v3.0.1 clause 5.3.4): S query streams in parallel, stream
-- s (1..S) running the 22 queries in Appendix A's order for s (wrapping
-- at 41) with qgen's parameters for seed + s, beside one refresh stream
-- running S RF1/RF2 pairs on update sets n .. n+S-1; Ts from the common
-- start to the end of the last stream, Throughput@Size = S x 22 x 3600 /
-- Ts x SF (clause 5.4.2). `full` is the power test then the throughput
-- test (clause 5.3.2), with QphH@Size = sqrt(Power@Size x
-- Throughput@Size) (clause 5.4.3). Thread t < S runs stream t+1, thread S
-- the refresh stream: --threads must be S+1. docs/tpch.md "run".

local common = require("tpch_common")
local run = require("tpch_run")
local results = require("tpch_results")
local eps = require("tpch_endpoints")
local ffi = common.ffi
local C = common.C
local SLOT = common.SLOT

local M = {}

-- The spec's minimum number of streams per SF (clause 5.3.4); 2 below
-- SF 1 (bmk's choice).
local MIN_STREAMS = { { 1, 2 }, { 10, 3 }, { 30, 4 }, { 100, 5 }, { 300, 6 }, { 1000, 7 },
                      { 3000, 8 }, { 10000, 9 }, { 30000, 10 }, { 100000, 11 } }

function M.min_streams(sf)
  local s = 2
  for _, e in ipairs(MIN_STREAMS) do
    if sf >= e[1] then s = e[2] end
  end
  return s
end

-- Per-thread counters (sb_shared_counters): step i's microseconds, rows
-- and status (0 not run: interrupted; 1 ok, 2 failed), the stream's end
-- (microseconds after the start), step i's start (microseconds after the
-- start).
local US, ROWS, STATUS, END, START = 300, 400, 500, 600, 700

-- Slots: the update set of the first pair, the throughput test's start,
-- the seed.
local SLOT_SET, SLOT_T0, SLOT_SEED = 20, 21, 22

local function record(cnt, i, ok, secs, rows, t0, start_ms)
  cnt[START + i] = math.floor((start_ms - t0) * 1000 + 0.5)
  cnt[US + i] = ok and math.floor(secs * 1e6 + 0.5) or 0
  cnt[ROWS + i] = ok and rows or 0
  cnt[STATUS + i] = ok and 1 or 2
end

-- Query stream s on `con`: the 22 queries, recorded as steps 1..22
-- (started t0, common.now_ms's); stops early when bmk is stopping
-- (Ctrl-C). `cte`: con is a replica's (Q15 without its view).
local function query_stream(c, con, s, cnt, t0, cte)
  if c.query_timeout > 0 then run.set_timeout(con, c, c.query_timeout) end
  for pos = 1, 22 do
    if results.stopping() then break end
    local q = C.sb_tpch_qgen_order(s, pos)
    local p = run.params(c, q, c.seed + s)
    local start = common.now_ms()
    local ok, secs, rows = pcall(run.run_query, con, q, p, s, false, cte)
    record(cnt, pos, ok, secs, rows, t0, start)
    if not ok then io.stderr:write(string.format("stream %d Q%d: %s\n", s, q, common.error_text(secs))) end
  end
end

-- The refresh stream: S pairs on update sets n .. n+S-1, steps 2i-1, 2i.
local function refresh_stream(c, con, n, S, cnt, t0)
  for i = 1, S do
    if results.stopping() then break end
    local start = common.now_ms()
    local ok, secs, orders = pcall(run.rf1, con, c, n + i - 1)
    record(cnt, 2 * i - 1, ok, secs, orders, t0, start)
    if ok then
      run.write_meta(con, { rf_state = "rf1", rf_set = n + i - 1 })
      start = common.now_ms()
      local ok2, secs2, keys = pcall(run.rf2, con, c, n + i - 1)
      record(cnt, 2 * i, ok2, secs2, keys, t0, start)
      if ok2 then run.write_meta(con, { rf_state = "none", rf_next = n + i }) end
    else
      record(cnt, 2 * i, false, nil, nil, t0, common.now_ms())
    end
  end
end

-- Step i of thread t's stream (t < S: query stream t+1, else the refresh
-- stream) from its counters, as tpch_results.step_json takes it.
local function step_of(c, cnt, t, i, S, n)
  local st = tonumber(cnt[STATUS + i])
  local r = { status = st == 1 and "ok" or st == 2 and "failed" or "not run",
              secs = tonumber(cnt[US + i]) / 1e6, rows = tonumber(cnt[ROWS + i]),
              start_s = st ~= 0 and tonumber(cnt[START + i]) / 1e6 or nil }
  r.endpoint = t < S and eps.query_endpoint(t + 1) or eps.primary()
  if t < S then
    r.pos, r.q = i, C.sb_tpch_qgen_order(t + 1, i)
    r.name = "Q" .. r.q
    r.params = run.params(c, r.q, c.seed + t + 1)
  else
    r.set = n + math.floor((i - 1) / 2)
    r.name = i % 2 == 1 and "RF1" or "RF2"
  end
  return r
end

-- Thread 0's report: the table, Ts and Throughput@Size (nil when a step
-- failed or did not run). Returns it, the count of failed (or not run)
-- steps and the throughput test's part of the results section.
local function report(c, n, S)
  local failed, ts, steps = 0, 0, {}
  print("")
  print(string.format("Throughput test, SF %s, %d query streams (seeds %d..%d), update sets " ..
                        "%d..%d:", tostring(c.sf), S, c.seed + 1, c.seed + S, n, n + S - 1))
  print(string.format("  %-6s %-4s %-6s %10s %10s  %s", "stream", "pos", "step", "seconds",
                      "rows", "status"))
  for t = 0, S do
    local cnt = C.sb_shared_counters(t)
    for i = 1, t < S and 22 or 2 * S do
      local r = step_of(c, cnt, t, i, S, n)
      local ok = r.status == "ok"
      if not ok then failed = failed + 1 end
      print(string.format("  %-6s %-4s %-6s %10.6f %10s  %s%s", t < S and tostring(t + 1) or "RF",
                          r.pos or "", r.set and (r.name .. " " .. r.set) or r.name, r.secs,
                          ok and tostring(r.rows) or "-", r.status,
                          r.endpoint and ("  on " .. r.endpoint) or ""))
      steps[#steps + 1] = results.step_json(r, t < S and t + 1 or "RF")
    end
    ts = math.max(ts, tonumber(cnt[END]) / 1e6)
  end
  print(string.format("Ts (the longest stream): %.6f s", ts))
  local part = { streams = S, seeds = { c.seed + 1, c.seed + S }, update_sets = { n, n + S - 1 },
                 steps = steps, ts_s = ts, failed_steps = failed, complete = failed == 0,
                 throughput_size = results.null }
  if failed > 0 then
    print(string.format("Metrics incomplete: %d step(s) failed (or timed out, or did not run)",
                        failed))
    return nil, failed, part
  end
  local tput = S * 22 * 3600 / ts * c.sf
  part.throughput_size = tput
  print(string.format("Throughput@Size: %.1f", tput))
  return tput, failed, part
end

-- The throughput (or full) test in thread `tid`; false when a step failed.
function M.run(c, tid)
  local S = c.streams > 0 and c.streams or M.min_streams(c.sf)
  if c.threads ~= S + 1 then
    common.fail("--tpch-test=%s runs %d query streams and a refresh stream: give " ..
                  "--threads=%d (--streams=N needs --threads=N+1)", c.test, S, S + 1)
  end
  local con, n
  local ok, power, power_part = true, nil, nil
  local start, t_start = common.wall_s(), common.now_ms()
  if tid == 0 then
    con, _, n = run.open(c)
    if c.test == "full" then
      ok, power, power_part = run.power(c, con, n)
      n = n + 1
    end
    -- (Ctrl-C during the power test: the streams below stop before their
    -- first step, reported as not run)
    if n + S - 1 > 4000 then common.fail("all 4000 update sets are used: prepare again") end
    -- with --endpoints: the streams' replicas have what the load and the
    -- refresh functions so far wrote before the streams start
    local names = {}
    for s = 1, S do names[s] = eps.query_endpoint(s) end
    eps.wait_caught_up(con, c, names, function(name) return common.monitor(c, name) end)
    print(string.format("Throughput test: %d query streams and a refresh stream...", S))
    io.stdout:flush()
    C.sb_shared_set(SLOT_SET, n)
    C.sb_shared_set(SLOT_SEED, c.seed)
    C.sb_shared_set(SLOT_T0, common.now_ms())
  elseif tid < S then
    con = common.connect_query(c, tid + 1)
  else
    con = common.connect_run(c)
  end
  -- thread 0's stream 1 on its endpoint (con stays the primary's)
  local qcon = con
  if tid == 0 and eps.query_endpoint(1) ~= eps.primary() then qcon = common.connect_query(c, 1) end
  common.barrier(c)
  n = tonumber(C.sb_shared_get(SLOT_SET))
  c.seed = tonumber(C.sb_shared_get(SLOT_SEED))
  local t0 = tonumber(C.sb_shared_get(SLOT_T0))
  local cnt = C.sb_shared_counters(tid)
  if tid < S then
    query_stream(c, qcon, tid + 1, cnt, t0, eps.is_replica(eps.query_endpoint(tid + 1) or ""))
  else
    refresh_stream(c, con, n, S, cnt, t0)
  end
  cnt[END] = math.floor((common.now_ms() - t0) * 1000 + 0.5)   -- microseconds
  common.barrier(c)
  if tid == 0 then
    local tput, failed, part = report(c, n, S)
    results.throughput_figures(part)
    local lines = common.value(con, "SELECT COUNT(*) FROM lineitem")
    run.write_meta(con, { lineitem_rows = lines })
    local section = { test = c.test, power = power_part, throughput = part }
    if c.test == "full" then
      section.qphh_size = results.null
      if power and tput then
        section.qphh_size = math.sqrt(power * tput)
        print(string.format("QphH@Size: %.1f (Power@Size %.1f, Throughput@Size %.1f)",
                            section.qphh_size, power, tput))
      else
        print("QphH@Size incomplete: a step of the power or throughput test failed")
      end
    end
    print("bmk tpch is " .. common.DISCLAIMER .. "; not audited.")
    ok = ok and failed == 0
    local secs = (common.now_ms() - t_start) / 1000
    if not results.publish(c, section, start, secs, ok and 0 or 1) then ok = false end
    results.exit_on_signal()
  end
  if qcon ~= con then qcon:disconnect() end
  con:disconnect()
  return ok
end

return M
