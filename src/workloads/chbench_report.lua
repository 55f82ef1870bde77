-- bmk chbench: the analytic streams' part of `run`'s final report (after
-- tpcc's: NOPM and the TPC-C tables) and --chbench-report's JSON file:
-- per stream its queries completed, passes, cut queries and geometric
-- mean; per query its runs, min, average, max and geometric mean over the
-- streams, and each stream's average; with --endpoints each stream's
-- endpoint and the replica's lag at its queries (count with a sample,
-- mean, max), per stream and per query. Times in seconds. docs/chbench.md
-- "Results" and "Replicas".

local chrun = require("chbench_run")
local queries = require("chbench_queries")

local M = {}

local function f3(x) return x and string.format("%.3f", x) or "-" end

-- Prints the streams' block of the final report and writes
-- --chbench-report; `interference` (optional) is the JSON text of the
-- --baseline comparison (chbench_baseline.json), written as a member.
function M.print(c, interference)
  if c.streams == 0 then
    print("CH-benCHmark: no analytic streams (--analytic-streams=0): TPC-C alone")
    print("")
    return
  end
  local r = chrun.results(c)
  print(string.format("CH-benCHmark analytic streams (%d stream(s), seed %d; times in seconds):",
                      c.streams, c.seed))
  for _, st in ipairs(r.streams) do
    print(string.format("  stream %d: %d queries completed, %d full pass(es), %d cut at the " ..
                          "end of the run; geometric mean %s", st.stream, st.n, st.passes,
                        st.cut, f3(st.geomean)))
    if st.endpoint and not c.ep_lag[st.stream] then
      print(string.format("  stream %d: on %s (no replica: no lag)", st.stream, st.endpoint))
    elseif st.endpoint then
      print(string.format("  stream %d: on %s; replica lag at its queries: mean %s, max %s " ..
                            "(%d of %d with a sample)", st.stream, st.endpoint, f3(st.lag.mean),
                          f3(st.lag.max), st.lag.n, st.n))
    end
  end
  local head = string.format("  %-5s %6s %9s %9s %9s %9s", "QUERY", "RUNS", "MIN", "AVG",
                             "MAX", "GEOMEAN")
  if c.ep then head = head .. string.format(" %9s %9s", "LAG AVG", "LAG MAX") end
  for s = 1, c.streams do head = head .. string.format(" %9s", "S" .. s .. " AVG") end
  print(head)
  for _, q in ipairs(c.qlist) do
    local a = r.queries[q]
    local line = string.format("  %-5s %6d %9s %9s %9s %9s", "Q" .. q, a.runs, f3(a.min),
                               f3(a.runs > 0 and a.sum / a.runs or nil), f3(a.max),
                               f3(a.runs > 0 and math.exp(a.log / a.runs) or nil))
    if c.ep then
      line = line .. string.format(" %9s %9s", f3(a.lag_n > 0 and a.lag_sum / a.lag_n or nil),
                                   f3(a.lag_max))
    end
    for _, st in ipairs(r.streams) do
      line = line .. string.format(" %9s", f3(st.queries[q] and st.queries[q].avg))
    end
    print(line)
  end
  print(string.format("Analytic queries completed: %d; geometric mean of their times: %s s",
                      r.n, f3(r.geomean)))
  print("")
  if c.chbench_report ~= "" then M.write_json(c, r, interference) end
end

local function num(x)
  if x == nil then return "null" end
  return string.format("%.6f", x)
end

-- ', "lag": {...}' for a lag { n, mean, max }; "" without --endpoints.
local function lag_json(c, n, mean, max)
  if not c.ep then return "" end
  return string.format(', "lag": {"queries": %d, "mean": %s, "max": %s}', n, num(mean), num(max))
end

-- Writes the results `r` (chbench_run.results) to --chbench-report, with
-- the member "interference" when `interference` (JSON text) is given.
function M.write_json(c, r, interference)
  local f = io.open(c.chbench_report, "w")
  if not f then
    print("WARNING: --chbench-report: cannot write " .. c.chbench_report)
    return
  end
  local streams = {}
  for _, st in ipairs(r.streams) do
    local qs = {}
    for q = 1, queries.COUNT do
      local a = st.queries[q]
      if a then
        qs[#qs + 1] = string.format('"%d": {"runs": %d, "min": %s, "avg": %s, "max": %s, ' ..
                                      '"geomean": %s%s}', q, a.runs, num(a.min), num(a.avg),
                                    num(a.max), num(a.geomean),
                                    lag_json(c, a.lag.n, a.lag.mean, a.lag.max))
      end
    end
    streams[#streams + 1] = string.format(
      '    {"stream": %d, "order": [%s], "queries_completed": %d, "passes": %d, "cut": %d, ' ..
        '"geomean": %s%s%s,\n     "queries": {%s}}', st.stream,
      table.concat(chrun.order(c, st.stream - 1, 1), ", "), st.n, st.passes, st.cut,
      num(st.geomean), st.endpoint and string.format(', "endpoint": "%s"', st.endpoint) or "",
      lag_json(c, st.lag.n, st.lag.mean, st.lag.max), table.concat(qs, ", "))
  end
  local qs = {}
  for q = 1, queries.COUNT do
    local a = r.queries[q]
    if a.runs > 0 then
      qs[#qs + 1] = string.format('"%d": {"runs": %d, "min": %s, "avg": %s, "max": %s, ' ..
                                    '"geomean": %s%s}', q, a.runs, num(a.min), num(a.sum / a.runs),
                                  num(a.max), num(math.exp(a.log / a.runs)),
                                  lag_json(c, a.lag_n, a.lag_n > 0 and a.lag_sum / a.lag_n or nil,
                                           a.lag_max))
    end
  end
  f:write(string.format('{\n  "seed": %d,\n  "queries_completed": %d,\n  "geomean": %s,\n' ..
                          '  "streams": [\n%s\n  ],\n  "queries": {%s}%s\n}\n', c.seed, r.n,
                        num(r.geomean), table.concat(streams, ",\n"), table.concat(qs, ", "),
                        interference and (',\n  "interference": ' .. interference) or ""))
  f:close()
end

return M
