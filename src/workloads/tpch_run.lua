-- bmk tpch: `run` (the throughput and full tests: tpch_throughput.lua),
-- the power test (TPC-H specification v3.0.1 clause
-- 5.3.3), or with --validate the validation run (clause 2.1.3: the 22
-- queries with qgen -d's parameters on the data as it is, no refresh
-- functions, results against --answers): the refresh function RF1 (update set n's new orders and line
-- items, inserted in one transaction), the 22 queries of query stream 0
-- in Appendix A's order with qgen's parameters for the seed, then RF2 (set
-- n's orders and their line items deleted in one transaction); each timed,
-- then the geometric mean and Power@Size (clause 5.4.1). The next update
-- set's number is kept in tpch_meta, so a run continues where the last
-- ended. docs/tpch.md "run".

local common = require("tpch_common")
local queries = require("tpch_queries")
local answers = require("tpch_answers")
local results = require("tpch_results")
local eps = require("tpch_endpoints")
local ffi = common.ffi
local C = common.C

local M = {}

ffi.cdef[[
typedef struct {
  int32_t query;
  int32_t n;
  char p[11][32];
} sb_tpch_params_t;
int sb_tpch_qgen_params(int64_t seed, int q, double sf, sb_tpch_params_t *out);
int sb_tpch_qgen_defaults(int q, double sf, sb_tpch_params_t *out);
int sb_tpch_qgen_order(int stream, int pos);
]]

-- Parameters of query q as a Lua array of strings: qgen -d's with
-- --validate, else those of qgen -r `seed`.
local function params(c, q, seed)
  local p = ffi.new("sb_tpch_params_t")
  local rc = c.validate and C.sb_tpch_qgen_defaults(q, c.sf, p)
    or C.sb_tpch_qgen_params(seed, q, c.sf, p)
  if rc ~= 0 then common.fail("no parameters for query %d (seed %s)", q, tostring(seed)) end
  local out = {}
  for i = 1, p.n do out[i] = ffi.string(p.p[i]) end
  return out
end

local bit = require("bit")

-- A value as the checksum sees it: numbers rounded to 2 decimals (the
-- databases print averages and ratios to different precisions), texts
-- without trailing blanks (PostgreSQL pads CHAR(n)), NULL as "\N".
local function norm(v)
  if v == nil then return "\\N" end
  if v:match("^%-?%d+%.?%d*$") then return string.format("%.2f", tonumber(v)) end
  return (v:gsub("%s+$", ""))
end

-- FNV-1a (32 bits) of string s, continuing from h.
local function fnv(h, s)
  for i = 1, #s do
    h = bit.tobit(bit.bxor(h, s:byte(i)) * 16777619)
  end
  return h
end

-- Runs `sql`, reads every row; returns the row count, a checksum of the
-- rows in order (each value normalised by norm()) and, when `keep`, the
-- rows (arrays of strings, nil for NULL).
local function run_sql(con, sql, keep)
  local rs = con:query(sql)
  local n, h = 0, bit.tobit(2166136261)
  local rows = keep and {} or nil
  if rs ~= nil then
    local nf = rs.nfields
    local row = rs:fetch_row()
    while row do
      n = n + 1
      for i = 1, nf do h = fnv(fnv(h, norm(row[i])), "|") end
      h = fnv(h, "\n")
      if keep then
        local r = {}
        for i = 1, nf do r[i] = row[i] end
        rows[n] = r
      end
      row = rs:fetch_row()
    end
    rs:free()
  end
  return n, bit.tohex(h), rows
end

-- run_query's work.
local function query_once(con, q, p, stream, keep, cte)
  local t0 = common.now_ms()
  local rows, sum, kept
  if q == 15 and cte then
    rows, sum, kept = run_sql(con, queries.substitute(queries.Q15_CTE, p, stream), keep)
  elseif q == 15 then
    run_sql(con, queries.substitute(queries.Q15[1], p, stream))
    local ok, err = pcall(function()
      rows, sum, kept = run_sql(con, queries.substitute(queries.Q15[2], p, stream), keep)
    end)
    run_sql(con, queries.substitute(queries.Q15[3], p, stream))
    if not ok then error(err, 0) end
  else
    rows, sum, kept = run_sql(con, queries.substitute(queries.TEXT[q], p, stream), keep)
  end
  return (common.now_ms() - t0) / 1000, rows, sum, kept
end

-- Runs query q (Q15: view, query, drop; with `cte`, on a replica, one
-- statement with the view as a common table expression); returns
-- seconds, rows, the checksum and (keep) the rows, or raises. Counted in
-- the live numbers of --metrics-listen (tpch_results.timed_query).
local function run_query(con, q, p, stream, keep, cte)
  return results.timed_query(function() return query_once(con, q, p, stream, keep, cte) end)
end

-- RF1: update set n's orders and line items as multi-row INSERTs in one
-- transaction. Returns seconds, orders, line items.
local function rf1(con, c, n)
  local cap = 4 * 1024 * 1024
  local buf, cbuf = ffi.new("char[?]", cap), ffi.new("char[?]", cap)
  local len, clen = ffi.new("size_t[1]"), ffi.new("size_t[1]")
  local g = C.sb_tpch_gen_new_update(c.sf, n)
  if g == nil then common.fail("cannot make update set %d (out of memory?)", n) end
  local po = "INSERT INTO orders (" .. ffi.string(C.sb_tpch_columns(common.T.orders)) ..
    ") VALUES "
  local pl = "INSERT INTO lineitem (" .. ffi.string(C.sb_tpch_columns(common.T.lineitem)) ..
    ") VALUES "
  local t0 = common.now_ms()
  local orders = 0
  local ok, err = pcall(function()
    con:query("BEGIN")
    while true do
      ffi.copy(buf, po, #po)
      len[0] = #po
      ffi.copy(cbuf, pl, #pl)
      clen[0] = #pl
      local k = C.sb_tpch_gen_rows(g, common.FMT.sql, buf, cap, len, cbuf, cap, clen, 1000)
      if k == 0 then break end
      orders = orders + k
      con:query(ffi.string(buf, len[0] - 1))
      con:query(ffi.string(cbuf, clen[0] - 1))
    end
    con:query("COMMIT")
  end)
  local lines = tonumber(C.sb_tpch_gen_child_rows(g))
  C.sb_tpch_gen_free(g)
  if not ok then
    pcall(function() con:query("ROLLBACK") end)
    error(err, 0)
  end
  return (common.now_ms() - t0) / 1000, orders, lines
end

-- RF2: update set n's order keys deleted (line items first) in one
-- transaction, 1,000 keys per statement. Returns seconds and orders.
local function rf2(con, c, n)
  local rows = tonumber(C.sb_tpch_update_rows(c.sc))
  local t0 = common.now_ms()
  local ok, err = pcall(function()
    con:query("BEGIN")
    for first = 1, rows, 1000 do
      local keys = {}
      for k = first, math.min(first + 999, rows) do
        keys[#keys + 1] = tostring(tonumber(C.sb_tpch_delete_key(c.sf, n, k)))
      end
      local list = table.concat(keys, ",")
      con:query("DELETE FROM lineitem WHERE l_orderkey IN (" .. list .. ")")
      con:query("DELETE FROM orders WHERE o_orderkey IN (" .. list .. ")")
    end
    con:query("COMMIT")
  end)
  if not ok then
    pcall(function() con:query("ROLLBACK") end)
    error(err, 0)
  end
  return (common.now_ms() - t0) / 1000, rows
end

-- Sets the server-side time limit of the connection's statements to
-- `secs` (0: none): PostgreSQL's statement_timeout, MariaDB's
-- max_statement_time, else MySQL's max_execution_time (SELECTs only).
local function set_timeout(con, c, secs)
  if c.pg then
    con:query(string.format("SET statement_timeout = %d", math.ceil(secs * 1000)))
    return
  end
  local ok = pcall(function()
    con:query(string.format("SET SESSION max_statement_time = %.3f", secs))
  end)
  if not ok then
    con:query(string.format("SET SESSION max_execution_time = %d", math.ceil(secs * 1000)))
  end
end

local function write_meta(con, kv)
  for k, v in pairs(kv) do
    con:query("DELETE FROM tpch_meta WHERE k='" .. k .. "'")
    con:query("INSERT INTO tpch_meta (k, v) VALUES ('" .. k .. "','" .. tostring(v) .. "')")
  end
end

-- A step's rows as the table shows them: RF1's orders+line items.
local function rows_text(r)
  if not r.rows then return "-" end
  return r.lines and (r.rows .. "+" .. r.lines) or tostring(r.rows)
end

-- Prints the power test's (or validation run's) table (the steps so far
-- when interrupted) and metrics; returns the metrics
-- (tpch_results.power_metrics).
local function print_report(c, n, res)
  print("")
  if c.validate then
    print(string.format("Validation run, SF %s, validation parameters (qgen -d), no refresh " ..
                          "functions:", tostring(c.sf)))
  else
    print(string.format("Power test, SF %s, seed %s, update set %d:", tostring(c.sf),
                        tostring(c.seed), n))
  end
  print(string.format("  %-4s %-6s %10s %10s  %-8s  %s", "pos", "step", "seconds", "rows",
                      "checksum", "status"))
  for _, r in ipairs(res) do
    print(string.format("  %-4s %-6s %10.6f %10s  %-8s  %s%s%s", r.pos or "", r.name, r.secs or 0,
                        rows_text(r), r.sum or "", r.status,
                        r.answer and ("  answer " .. r.answer) or "",
                        r.endpoint and ("  on " .. r.endpoint) or ""))
    if r.err then print("         " .. r.err) end
    if r.diff then print("         " .. r.diff) end
  end
  local m = results.power_metrics(c.sf, res, c.validate)
  if c.validate then
    print("No Power@Size: a validation run has no refresh functions (clause 2.1.3)")
  end
  if m.failed > 0 then
    print(string.format("Metrics incomplete: %d step(s) failed (or timed out)", m.failed))
  elseif not m.complete then
    print(string.format("Metrics incomplete: interrupted after %d step(s)", #res))
  elseif not c.validate then
    print(string.format("Geometric mean of the 22 query and 2 refresh times: %.4f s", m.geomean_s))
    print(string.format("Geometric mean of query times returning rows (HammerDB's): %.4f s " ..
                          "(%d queries)", m.geomean_rows_s or 0, m.rows_queries))
    print(string.format("Power@Size: %.1f", m.power_size))
  end
  if c.answers ~= "" then
    local pass, bad = 0, 0
    for _, r in ipairs(res) do
      if r.answer == "PASS" then pass = pass + 1 elseif r.q then bad = bad + 1 end
    end
    print(string.format("Answers (%s): %d PASS, %d FAIL", c.answers, pass, bad))
  end
  return m
end

-- The 22 reference answers of --answers, read before anything runs.
local function read_answers(c)
  if c.answers == "" then return nil end
  local all = {}
  for q = 1, 22 do
    local rows, err = answers.read(c.answers, q)
    if not rows then common.fail("--answers: %s", err) end
    all[q] = rows
  end
  return all
end

-- A connection to a schema `run` can use: the connection, tpch_meta and
-- the next update set's number; raises when the schema is not ready.
function M.open(c)
  common.need_sql(c)
  local con = common.connect_run(c)
  local meta = common.loaded_meta(con, c)
  if tonumber(meta.scale) ~= c.sf then
    common.fail("the tables hold SF %s, not --scale=%s", tostring(meta.scale), tostring(c.sf))
  end
  if meta.rf_state == "rf1" then
    common.fail("update set %s was inserted (RF1) but not deleted (RF2): the data is not " ..
                  "the base data; run cleanup and prepare again", tostring(meta.rf_set))
  end
  local n = tonumber(meta.rf_next) or 1
  if n > 4000 then common.fail("all 4000 update sets are used: prepare again") end
  c.seed = c.seed_opt > 0 and c.seed_opt or tonumber(meta.seed) or 1
  return con, meta, n
end

-- The power test's (or validation run's) first line, with a warning
-- when --answers are compared after update sets were applied.
local function print_header(c, n, want)
  if c.validate then
    print(string.format("Validation run: SF %s, the 22 queries with qgen -d's parameters",
                        tostring(c.sf)))
    if n > 1 and want then
      print(string.format("WARNING: %d update set(s) were applied since the load: TPC-H's " ..
                            "reference answers are for the data as loaded", n - 1))
    end
  else
    print(string.format("Power test: SF %s, update set %d, seed %s", tostring(c.sf), n, c.seed))
  end
end

-- The power test's query connection: with --endpoints whose stream 0
-- goes elsewhere than the primary `pname`, a new one there, else `con`
-- (the primary's, or the one server's). Returns it and its endpoint's
-- name (pname, nil without --endpoints).
local function query_connection(c, con, pname)
  if pname and eps.query_endpoint(0) ~= pname then return common.connect_query(c, 0) end
  return con, pname
end

-- Waits for replica `name` to catch up with the primary (`con`); returns
-- nil, or the error's line when it did not within --replica-wait.
local function catch_up(c, con, name)
  local ok, err = pcall(eps.wait_caught_up, con, c, { name },
                        function(n) return common.monitor(c, n) end)
  return not ok and common.error_text(err) or nil
end

-- The power test (or the validation run) on `con` with update set n;
-- returns success, Power@Size (nil without) and the power test's part of
-- the results section (tpch_results.power_json).
function M.power(c, con, n)
  local want = read_answers(c)
  local keep = want ~= nil or c.save_answers ~= ""
  if c.save_answers ~= "" then
    C.mkdir(c.save_answers, tonumber("755", 8))
  end
  print_header(c, n, want)
  -- with --endpoints: the queries on their endpoint, the RFs on the primary
  local pname = eps.primary()
  local qcon, qname = query_connection(c, con, pname)
  local cte, wait_err = qname ~= pname, nil
  if c.pg then
    print("PostgreSQL: max_parallel_workers_per_gather = " ..
            tostring(common.value(qcon, "SHOW max_parallel_workers_per_gather")))
  end
  io.stdout:flush()
  local res, failed = {}, 0
  local answer_failed = 0
  local t0 = common.now_ms()
  local function step(r, fn)
    r.start_s = (common.now_ms() - t0) / 1000
    local ok, a, b, d, kept = pcall(fn)
    if ok then
      r.secs, r.rows, r.status = a, b, "ok"
      if r.q then r.sum = d elseif d then r.lines = d end
      if r.q and want then
        r.diff = answers.compare(r.q, kept, want[r.q])
        r.answer = r.diff and "FAIL" or "PASS"
        if r.diff then answer_failed = answer_failed + 1 end
      end
      if r.q and c.save_answers ~= "" then answers.write(c.save_answers, r.q, kept) end
    else
      r.status, r.err, failed = "failed", common.error_text(a), failed + 1
    end
    res[#res + 1] = r
  end
  -- a validation run queries the data as it is (clause 2.1.3): no RFs
  if not c.validate then
    step({ name = "RF1", set = n, endpoint = pname }, function()
      local s, o, l = rf1(con, c, n)
      write_meta(con, { rf_state = "rf1", rf_set = n })
      return s, o, l
    end)
  end
  -- the replica has what RF1 (and the load) wrote before the queries
  -- start (not timed); when it does not catch up, the queries fail
  if cte then wait_err = catch_up(c, con, qname) end
  if c.query_timeout > 0 then set_timeout(qcon, c, c.query_timeout) end
  for pos = 1, 22 do
    local q = C.sb_tpch_qgen_order(0, pos)
    local p = params(c, q, c.seed)
    step({ pos = pos, name = "Q" .. q, q = q, params = p, endpoint = qname }, function()
      if wait_err then error(wait_err, 0) end
      return run_query(qcon, q, p, 0, keep, cte)
    end)
    -- Ctrl-C: no more queries; RF2 still undoes RF1 (the base data back)
    if results.stopping() then break end
  end
  if c.query_timeout > 0 then set_timeout(qcon, c, 0) end
  if qcon ~= con then qcon:disconnect() end
  if not c.validate then
    -- RF2 without its RF1 would only delete: it waits for a good RF1
    step({ name = "RF2", set = n, endpoint = pname }, function()
      if res[1].status ~= "ok" then error("not run: RF1 failed", 0) end
      return rf2(con, c, n)
    end)
  end
  if not c.validate and res[1].status == "ok" and res[#res].status == "ok" then
    local lines = common.value(con, "SELECT COUNT(*) FROM lineitem")
    write_meta(con, { rf_state = "none", rf_next = n + 1, lineitem_rows = lines })
  end
  local m = print_report(c, n, res)
  results.power_figures(res, m)
  return failed == 0 and answer_failed == 0 and m.complete, m.power_size,
    results.power_json(c, n, res, m)
end

M.params, M.run_query, M.rf1, M.rf2 = params, run_query, rf1, rf2
M.set_timeout, M.write_meta = set_timeout, write_meta

-- `run` in thread sysbench.tid of --threads (a PARALLEL_COMMAND): the
-- power test or validation run in thread 0, or the throughput test and
-- the full sequence (tpch_throughput.lua); false (exit 1) when a step
-- failed.
function M.cmd_run()
  return common.parallel_command(function(c, tid)
    results.catch_stop()
    if tid == 0 then results.open_outputs() end
    if c.validate or c.test == "power" then
      if tid ~= 0 then return true end
      local con, _, n = M.open(c)
      local start, t0 = common.wall_s(), common.now_ms()
      local ok, _, part = M.power(c, con, n)
      print("bmk tpch is " .. common.DISCLAIMER .. "; not audited.")
      con:disconnect()
      local section = { test = c.validate and "validation" or "power", power = part }
      local secs = (common.now_ms() - t0) / 1000
      if not results.publish(c, section, start, secs, ok and 0 or 1) then ok = false end
      results.exit_on_signal()
      return ok
    end
    return require("tpch_throughput").run(c, tid)
  end)
end

return M
