-- bmk kit: reading the standard report of a bmk process and the kit's own
-- summary lines (bmk-kit.md §11).

local M = {}

-- Parses the final report in `text`. Returns a table (reads, writes,
-- other, tps, qps, errps, reconnps, time, events, avg_ms, pct, pct_ms) or
-- nil when no complete report is present.
function M.parse(text)
  local r = {}
  r.reads = tonumber(text:match("\n%s+read:%s+(%d+)"))
  r.writes = tonumber(text:match("\n%s+write:%s+(%d+)"))
  r.other = tonumber(text:match("\n%s+other:%s+(%d+)"))
  r.tps = tonumber(text:match("\n%s+transactions:%s+%d+%s+%(([%d.]+) per sec%.%)"))
  r.qps = tonumber(text:match("\n%s+queries:%s+%d+%s+%(([%d.]+) per sec%.%)"))
  r.errps = tonumber(text:match("\n%s+ignored errors:%s+%d+%s+%(([%d.]+) per sec%.%)"))
  r.reconnps = tonumber(text:match("\n%s+reconnects:%s+%d+%s+%(([%d.]+) per sec%.%)"))
  r.time = tonumber(text:match("\n%s+time elapsed:%s+([%d.]+)s"))
  r.events = tonumber(text:match("\n%s+total number of events:%s+(%d+)"))
  r.avg_ms = tonumber(text:match("\n%s+avg:%s+([%d.]+)"))
  local p, v = text:match("\n%s+(%d+)th percentile:%s+([%d.]+)")
  r.pct, r.pct_ms = tonumber(p), tonumber(v)
  if not (r.tps and r.qps and r.time and r.events and r.reads) then return nil end
  return r
end

-- "=> kit: qps excluding BEGIN/COMMIT: %.2f" for trx names.
function M.qps_line(qps, tps)
  return ("=> kit: qps excluding BEGIN/COMMIT: %.2f"):format(qps - 2 * tps)
end

-- Sums per-process reports. Returns the Combined line and the combined
-- report table, or nil, reason.
function M.combined(reports, n, users)
  local c = { tps = 0, qps = 0, r = 0, w = 0, o = 0, errps = 0, reconnps = 0,
    events = 0, lat_sum = 0, pct_ms = 0 }
  local pct
  for i = 1, n do
    local r = reports[i]
    if not r then return nil, "process " .. i .. " printed no report" end
    local t = r.time > 0 and r.time or 1
    c.tps = c.tps + r.tps
    c.qps = c.qps + r.qps
    c.r = c.r + r.reads / t
    c.w = c.w + r.writes / t
    c.o = c.o + r.other / t
    c.errps = c.errps + (r.errps or 0)
    c.reconnps = c.reconnps + (r.reconnps or 0)
    c.events = c.events + r.events
    c.lat_sum = c.lat_sum + (r.avg_ms or 0) * r.events
    if r.pct_ms and r.pct_ms > c.pct_ms then c.pct_ms = r.pct_ms end
    pct = pct or r.pct
  end
  local avg = c.events > 0 and c.lat_sum / c.events or 0
  local line = ("=> Combined (%d processes, %d threads): tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) "
    .. "err/s: %.2f reconn/s: %.2f avg lat (ms): %.2f %dth pct (ms, worst process): %.2f"):format(
    n, users, c.tps, c.qps, c.r, c.w, c.o, c.errps, c.reconnps, avg, pct or 95, c.pct_ms)
  return line, c
end

return M
