-- bmk chbench: `run`'s analytic side. The TPC-C VUs are tpcc's
-- (tpcc_run.lua); the --analytic-streams query streams are VUs of their
-- own after them (sysbench.hooks.extra_vus), each on one connection
-- running the 22 queries (or --queries) in a seeded permuted order per
-- pass, --analytic-delay seconds apart. A stream's query times go to a C
-- buffer that the global state allocated (its address in a shared slot):
-- each stream writes only its own records with plain stores; the
-- interval line reads them while they change (a count may be one query
-- behind its sums), the final report after the streams have ended.
-- Each query is also timed live (core/sb_cmd_gauge.h) for the run's
-- --metrics-listen page: bmk_chbench_queries_in_flight, ..._query_duration
-- _seconds, ..._queries_failed_total; and each completed query's start
-- and end go to the results document (core/sb_spans.h: --results
-- "analytic_queries", drawn by bmk report --html). docs/chbench.md "run".

local common = require("tpcc_common")
local queries = require("chbench_queries")
local eps = require("chbench_endpoints")
local ffi = common.ffi
local C = common.C

ffi.cdef[[
void *calloc(size_t n, size_t size);
void sb_engine_end_run(void);
void sb_cmd_gauge_publish(const char *prefix);
void sb_span_add(int lane, int label, double start_ms, double end_ms);
]]
-- declared once per Lua state (tpch's modules may have declared them)
pcall(ffi.cdef, [[
void sb_cmd_query_start(void);
void sb_cmd_query_done(double seconds, bool ok);
]])

local M = {}

-- Shared slots (tpcc's are 0..15): the buffer's address, finished streams.
local SLOT_BUF, SLOT_DONE = 40, 41
-- Per stream, 23 records of F doubles: record 0 the stream's totals
-- (queries, passes, cut queries, sum of log seconds, seconds), record q
-- query q's (runs, sum, min, max, sum of log seconds); in both, fields
-- 5..7 the replica lag of its completed queries (with --endpoints: how
-- many had a sample, their sum, their max; seconds).
local F = 8
local function at(s, q, f) return (s * 23 + q) * F + f end

-- Queries completed, as a workload metric: per interval in --results
-- (intervals[].metrics.chbench_queries, beside the interval's New-Orders
-- in intervals[].types.new_order), warmup excluded as for every metric.
local m_queries = sysbench.metric("chbench_queries")

-- ---- options -----------------------------------------------------------------------------

M.options = {
  analytic_streams = {"Analytic query streams running beside the TPC-C VUs", 1},
  analytic_delay = {"Seconds between two queries of a stream", 0},
  analytic_passes = {"End the run when every stream has run this many passes of the " ..
                       "queries (0: run until --time)", 0},
  seed = {"Seed of the streams' query orders (0: the run's --rand-seed)", 0},
  queries = {"The queries the streams run, e.g. 1,6,14 (default all 22)", ""},
  chbench_report = {"Per-stream, per-query times to FILE.json at the end of the run", ""},
}

-- Adds the analytic options to `c` (tpcc's validated configuration).
-- Raises one message for bad input.
function M.configure(c)
  local o = sysbench.opt
  local function num(name, lo, int)
    local v = tonumber(o[name])
    if v == nil or v < lo or (int and v ~= math.floor(v)) then
      common.fail("--%s must be %s >= %d (got '%s')", name:gsub("_", "-"),
                  int and "an integer" or "a number", lo, tostring(o[name]))
    end
    return v
  end
  c.streams = num("analytic_streams", 0, true)
  if c.streams > 1000 then common.fail("--analytic-streams must be at most 1000") end
  c.delay = num("analytic_delay", 0, false)
  c.passes = num("analytic_passes", 0, true)
  c.seed = num("seed", 0, true)
  -- from the run's seed, made small enough to print and give back exactly
  if c.seed == 0 then c.seed = tonumber(C.sb_tpcc_run_seed() % 2147483647) + 1 end
  c.qlist = {}
  for _, x in ipairs(common.csv_list(o.queries)) do
    local q = tonumber(x)
    if not q or q ~= math.floor(q) or q < 1 or q > queries.COUNT then
      common.fail("--queries: unknown query number '%s' (CH-benCHmark has queries 1..%d)",
                  x, queries.COUNT)
    end
    c.qlist[#c.qlist + 1] = q
  end
  if #c.qlist == 0 then
    for q = 1, queries.COUNT do c.qlist[q] = q end
  end
  c.chbench_report = tostring(o.chbench_report or "")
  if c.chbench_report ~= "" and not c.chbench_report:match("%.json$") then
    common.fail("--chbench-report must name a .json file (got '%s')", c.chbench_report)
  end
  if c.passes > 0 and c.streams == 0 then
    common.fail("--analytic-passes needs --analytic-streams of 1 or more")
  end
end

-- Stream s's (0-based) order of c.qlist in pass p (1-based): a shuffle
-- seeded by the seed, the stream and the pass. Pure.
function M.order(c, s, p)
  local n = #c.qlist
  local a = ffi.new("int32_t[?]", n)
  for i = 1, n do a[i - 1] = c.qlist[i] end
  local r = ffi.new("sb_rand_stream_t")
  C.sb_tpcc_seed(r, c.seed, 0x43485354, s, p, 0)          -- "CHST"
  C.sb_tpcc_shuffle(r, a, n)
  local out = {}
  for i = 1, n do out[i] = tonumber(a[i - 1]) end
  return out
end

local function buffer()
  return ffi.cast("double *", ffi.cast("intptr_t", C.sb_shared_get(SLOT_BUF)))
end

-- Global state, before the workers: the results buffer and the banner.
function M.init(c)
  local p = C.calloc(math.max(c.streams, 1) * 23 * F, ffi.sizeof("double"))
  if p == nil then common.fail("out of memory for the streams' results") end
  C.sb_shared_set(SLOT_BUF, ffi.cast("intptr_t", p))
  C.sb_shared_set(SLOT_DONE, 0)
  if c.streams > 0 then C.sb_cmd_gauge_publish("chbench") end
  print(string.format("chbench: %d analytic stream(s) beside %d TPC-C VU(s); seed %d; " ..
                        "%d quer%s per pass; delay %gs; %s", c.streams, c.threads, c.seed,
                      #c.qlist, #c.qlist == 1 and "y" or "ies", c.delay,
                      c.passes > 0 and (c.passes .. " pass(es), then the run ends")
                        or "passes until --time"))
  for s = 0, math.min(c.streams, 8) - 1 do
    print(string.format("chbench: stream %d pass 1 order: %s", s + 1,
                        table.concat(M.order(c, s, 1), ",")))
  end
end

-- ---- a stream -------------------------------------------------------------------------------

local S                       -- this stream's state

local function is_mariadb(con)
  return tostring(common.value(con, "SELECT VERSION()") or ""):find("MariaDB", 1, true) ~= nil
end

-- Stream thread `tid` (the VUs are 0..threads-1): its connection.
function M.thread_init(c, tid)
  local s = tid - c.threads
  S = { c = c, s = s, con = common.monitor(c, c.ep and c.ep[s + 1]) }
  if not c.pg then S.maria = is_mariadb(S.con) end
  S.buf = buffer()
  -- the run's end, for the statement timeout that cuts a query there
  local t = (tonumber(sysbench.opt.time) or 0) + (tonumber(sysbench.opt.warmup_time) or 0)
  S.limit = t > 0 and t or nil
end

-- The stream's end: its connection closed (arguments as thread_init's).
function M.thread_done()
  if S and S.con then S.con:disconnect() end
end

-- A statement timeout ending at the run's end: a query still running
-- then is cut, and one that ends after the run ended is not counted.
local function set_timeout(remaining)
  local con = S.con
  if S.c.pg then
    con:query(string.format("SET statement_timeout = %d", math.ceil(remaining * 1000)))
  elseif S.maria then
    con:query(string.format("SET SESSION max_statement_time = %.3f", remaining))
  else
    con:query(string.format("SET SESSION max_execution_time = %d", math.ceil(remaining * 1000)))
  end
end

-- Runs `sql` and reads its rows. Returns true, or false and the error's
-- code and message (nothing printed: the caller decides).
local function execute(sql)
  local con = S.con
  local rs = C.db_query(con, sql, #sql)
  if rs == nil then
    if C.db_conn_error(con) == 0 then return true end
    local code = S.c.pg and ffi.string(C.db_conn_sql_state(con)) or tostring(C.db_conn_sql_errno(con))
    return false, code, ffi.string(C.db_conn_sql_errmsg(con))
  end
  while C.db_fetch_row(rs) ~= nil do end
  C.db_free_results(rs)
  return true
end

local TIMEOUT = { ["57014"] = true, ["1969"] = true, ["3024"] = true }

-- Adds `lag` (seconds, or nil: no sample) to record q's lag fields.
local function record_lag(q, lag)
  local b, s = S.buf, S.s
  if lag == nil then return end
  b[at(s, q, 5)] = b[at(s, q, 5)] + 1
  b[at(s, q, 6)] = b[at(s, q, 6)] + lag
  if lag > b[at(s, q, 7)] then b[at(s, q, 7)] = lag end
end

local function record(q, secs, lag)
  local b, s = S.buf, S.s
  record_lag(q, lag)
  record_lag(0, lag)
  local lg = math.log(math.max(secs, 1e-6))
  b[at(s, q, 0)] = b[at(s, q, 0)] + 1
  b[at(s, q, 1)] = b[at(s, q, 1)] + secs
  if b[at(s, q, 0)] == 1 or secs < b[at(s, q, 2)] then b[at(s, q, 2)] = secs end
  if secs > b[at(s, q, 3)] then b[at(s, q, 3)] = secs end
  b[at(s, q, 4)] = b[at(s, q, 4)] + lg
  b[at(s, 0, 0)] = b[at(s, 0, 0)] + 1
  b[at(s, 0, 3)] = b[at(s, 0, 3)] + lg
  b[at(s, 0, 4)] = b[at(s, 0, 4)] + secs
  m_queries:add(1)
end

-- One query of the stream. Returns false when the stream must stop (the
-- run ends: the query is counted as cut); raises on an SQL error.
local function one_query(q, t_start)
  local c = S.c
  if S.limit then
    local remaining = S.limit - (common.now_ms() - t_start) / 1000
    if remaining <= 0 then return false end
    set_timeout(remaining)
  end
  local lag0 = eps.lag(c, S.s + 1)
  local t0 = common.now_ms()
  C.sb_cmd_query_start()
  local ok, code, msg = execute(queries.text(q, c.pg, 1))
  local t1 = common.now_ms()
  local secs = (t1 - t0) / 1000
  local counted = ok and not C.sb_engine_stopping()
  C.sb_cmd_query_done(secs, counted)
  if counted then
    C.sb_span_add(S.s + 1, q, t0, t1)
    record(q, secs, eps.larger(lag0, eps.lag(c, S.s + 1)))
    return true
  end
  if ok or TIMEOUT[code] or C.sb_engine_stopping() then
    S.buf[at(S.s, 0, 2)] = S.buf[at(S.s, 0, 2)] + 1
    return false
  end
  error(string.format("analytic stream %d, query %d: SQL error %s: %s", S.s + 1, q, code, msg), 0)
end

-- The stream's loop: passes of its permuted queries until the run stops
-- (or --analytic-passes are done: the last stream to finish ends the run).
function M.thread_run()
  local c = S.c
  local t_start = common.now_ms()
  eps.await_sample(c, S.s + 1)
  local pass, first = 0, true
  local stop = false
  while not stop and (c.passes == 0 or pass < c.passes) do
    pass = pass + 1
    for _, q in ipairs(M.order(c, S.s, pass)) do
      if C.sb_engine_stopping() then stop = true break end
      if not first and c.delay > 0 and not sysbench.sleep(c.delay) then stop = true break end
      first = false
      if not one_query(q, t_start) then stop = true break end
    end
    if not stop then S.buf[at(S.s, 0, 1)] = S.buf[at(S.s, 0, 1)] + 1 end
  end
  if not stop and c.passes > 0 then
    if tonumber(C.sb_shared_add(SLOT_DONE, 1)) + 1 >= c.streams then
      C.sb_engine_end_run()
    end
  end
end

-- ---- figures and reports (global and reporter states) ------------------------------------------

-- Record q's lag of stream s: { n = queries with a sample, mean, max }
-- (seconds; mean and max nil when n is 0).
local function lag_of(b, s, q)
  local n = b[at(s, q, 5)]
  return { n = n, mean = n > 0 and b[at(s, q, 6)] / n or nil,
           max = n > 0 and b[at(s, q, 7)] or nil }
end

-- The streams' results: { streams = {...}, queries = {...}, n, geomean }
-- (seconds), read from the buffer. A stream has its endpoint (nil
-- without --endpoints) and its lag ({ n, mean, max }), as each of its
-- queries; a query over the streams lag_n, lag_sum and lag_max.
function M.results(c)
  local b = buffer()
  local out = { streams = {}, queries = {}, n = 0, seconds = 0 }
  local slog = 0
  for q = 1, queries.COUNT do
    out.queries[q] = { runs = 0, sum = 0, log = 0, lag_n = 0, lag_sum = 0 }
  end
  for s = 0, c.streams - 1 do
    local st = { stream = s + 1, n = b[at(s, 0, 0)], passes = b[at(s, 0, 1)],
                 cut = b[at(s, 0, 2)], seconds = b[at(s, 0, 4)], queries = {},
                 endpoint = c.ep and c.ep[s + 1], lag = lag_of(b, s, 0) }
    st.geomean = st.n > 0 and math.exp(b[at(s, 0, 3)] / st.n) or nil
    for q = 1, queries.COUNT do
      local n = b[at(s, q, 0)]
      if n > 0 then
        st.queries[q] = { runs = n, min = b[at(s, q, 2)], avg = b[at(s, q, 1)] / n,
                          max = b[at(s, q, 3)], geomean = math.exp(b[at(s, q, 4)] / n),
                          lag = lag_of(b, s, q) }
        local a = out.queries[q]
        a.runs, a.sum, a.log = a.runs + n, a.sum + b[at(s, q, 1)], a.log + b[at(s, q, 4)]
        a.lag_n, a.lag_sum = a.lag_n + b[at(s, q, 5)], a.lag_sum + b[at(s, q, 6)]
        if b[at(s, q, 5)] > 0 then a.lag_max = math.max(a.lag_max or 0, b[at(s, q, 7)]) end
        a.min = math.min(a.min or math.huge, b[at(s, q, 2)])
        a.max = math.max(a.max or 0, b[at(s, q, 3)])
      end
    end
    out.streams[s + 1] = st
    out.n, out.seconds = out.n + st.n, out.seconds + st.seconds
    slog = slog + b[at(s, 0, 3)]
  end
  out.geomean = out.n > 0 and math.exp(slog / out.n) or nil
  return out
end

-- measure_end: the figures (summary.figures in --results): queries
-- completed, their geometric mean, each query's geometric mean and its
-- arithmetic mean (what --baseline=tag:K=V reads from a saved run).
function M.figures(c)
  local r = M.results(c)
  sysbench.figure("chbench_queries", r.n, { help = "CH-benCHmark analytic queries completed" })
  if r.geomean then
    sysbench.figure("chbench_geomean_seconds", r.geomean,
                    { help = "Geometric mean of the analytic queries' times, seconds" })
  end
  for q = 1, queries.COUNT do
    local a = r.queries[q]
    if a.runs > 0 then
      sysbench.figure(string.format("chbench_q%02d_seconds", q), math.exp(a.log / a.runs),
                      { help = string.format("CH-benCHmark query %d: geometric mean of its " ..
                                               "times, seconds", q) })
      sysbench.figure(string.format("chbench_mean_q%02d_seconds", q), a.sum / a.runs,
                      { help = string.format("CH-benCHmark query %d: arithmetic mean of its " ..
                                               "times, seconds", q) })
    end
  end
end

local prev_n = 0

-- The per-interval line beside tpcc's: analytic queries completed (not
-- with --report-csv, whose lines stay CSV).
function M.interval(c, stat)
  if c.report_csv or c.streams == 0 then return end
  local n = M.results(c).n
  print(string.format("[ %.0fs ] chbench analytic queries completed %d (total %d)",
                      stat.time_total, n - prev_n, n))
  prev_n = n
end

return M
