-- bmk kit: reading the standard report of a bmk process and the kit's own
-- summary lines (docs/kit.md); a split run's Combined line comes from
-- merging the processes' --results files.

local ffi = require("ffi")

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

-- The merge of result files (src/results/sb_merge.h), reached through
-- LuaJIT's FFI: the bmk binary exports its symbols.
ffi.cdef [[
typedef struct {
  unsigned runs;
  unsigned threads;
  double time_s;
  double events, tps, qps, reads_s, writes_s, other_s, errors_s, reconnects_s;
  double avg_ms;
  unsigned percentile;
  double pct_ms;
  char error[512];
} sb_merge_totals_t;
int sb_merge_files(const char *const *paths, unsigned n, const char *out_path,
                   sb_merge_totals_t *t);
]]

-- Merges the --results files `paths` of a split run's n processes (exact:
-- counts summed, HDR histograms added), writing the merged document to
-- `out` when given. Returns the Combined line and the merged totals
-- (tps, qps), or nil, reason.
function M.combined(paths, users, out)
  local n = #paths
  local c_paths = ffi.new("const char *[?]", n)
  for i = 1, n do c_paths[i - 1] = paths[i] end
  local t = ffi.new("sb_merge_totals_t")
  if ffi.C.sb_merge_files(c_paths, n, out, t) ~= 0 then
    return nil, ffi.string(t.error)
  end
  local line = ("=> Combined (%d processes, %d threads): tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) "
    .. "err/s: %.2f reconn/s: %.2f avg lat (ms): %.2f %dth pct (ms): %.2f"):format(
    n, users, t.tps, t.qps, t.reads_s, t.writes_s, t.other_s, t.errors_s, t.reconnects_s,
    t.avg_ms, t.percentile, t.pct_ms)
  return line, { tps = t.tps, qps = t.qps }
end

return M
