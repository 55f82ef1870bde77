-- bmk chbench: `answers`, each query once on the data as it is (no TPC-C
-- load beside it): its time and rows; --save-answers=DIR writes each
-- query's rows to DIR/qN.out ('|' between fields), --answers=DIR compares
-- them with such files (another database's, loaded with the same
-- --rand-seed) under TPC-H's tolerances (specification clause 2.1.3.5):
-- counts, keys and texts exactly, sums within 100, averages and ratios
-- within 1%. Rows are compared in a canonical order (by their exact
-- columns), so ties the query's ORDER BY leaves open, or collations that
-- order texts differently, do not count as differences. docs/chbench.md
-- "Comparing databases".

local common = require("tpcc_common")
local queries = require("chbench_queries")

local M = {}

M.options = {
  save_answers = {"answers: write each query's rows to DIR/qN.out", ""},
  answers = {"answers: compare each query's rows with DIR/qN.out", ""},
}

local function trim(s)
  return (tostring(s):gsub("^%s+", ""):gsub("%s+$", ""))
end

-- A field as the comparison sees it: NULL as "NULL", numbers as numbers.
local function field(v)
  if v == nil then return "NULL" end
  return trim(v)
end

-- Sorts rows (arrays of fields) by their exact columns (kinds k and t of
-- `kinds`), then by their original position.
local function canonical(rows, kinds)
  local keyed = {}
  for i, r in ipairs(rows) do
    local key = {}
    for j = 1, #kinds do
      local k = kinds:sub(j, j)
      if k == "k" then
        key[#key + 1] = string.format("%020.4f", (tonumber(r[j]) or 0) + 1e15)
      elseif k == "t" then
        key[#key + 1] = r[j]
      end
    end
    keyed[i] = { key = table.concat(key, "\1"), i = i, r = r }
  end
  table.sort(keyed, function(a, b)
    if a.key ~= b.key then return a.key < b.key end
    return a.i < b.i
  end)
  local out = {}
  for i, e in ipairs(keyed) do out[i] = e.r end
  return out
end

local function agrees(kind, got, want)
  if kind == "x" then return true end
  local g, w = tonumber(got), tonumber(want)
  if kind == "t" or g == nil or w == nil then return got == want end
  if kind == "k" then return math.abs(g - w) < 0.00005 end
  if kind == "s" then return math.abs(g - w) <= 100 end
  return math.abs(g - w) <= math.abs(w) * 0.01 + 0.005
end

-- nil when query q's rows agree with `want` (both arrays of field
-- arrays), else the first difference.
function M.compare(q, got, want)
  local kinds = queries.KINDS[q]
  if #got ~= #want then return string.format("%d rows, the answer has %d", #got, #want) end
  got, want = canonical(got, kinds), canonical(want, kinds)
  for i = 1, #want do
    for j = 1, #kinds do
      if not agrees(kinds:sub(j, j), got[i][j], want[i][j]) then
        return string.format("row %d column %d: got '%s', the answer has '%s'", i, j,
                             got[i][j], want[i][j])
      end
    end
  end
  return nil
end

local function read(dir, q)
  local p = string.format("%s/q%d.out", dir, q)
  local f = io.open(p, "r")
  if not f then return nil, "no answer file " .. p end
  local rows = {}
  for line in f:lines() do
    local r = {}
    for v in (line .. "|"):gmatch("([^|]*)|") do r[#r + 1] = v end
    rows[#rows + 1] = r
  end
  f:close()
  return rows
end

local function write(dir, q, rows)
  local p = string.format("%s/q%d.out", dir, q)
  local f = io.open(p, "w")
  if not f then common.fail("--save-answers: cannot write %s (the directory must exist)", p) end
  for _, r in ipairs(rows) do f:write(table.concat(r, "|"), "\n") end
  f:close()
end

-- `answers`: every query of c.qlist once on `con`'s data. Returns true
-- when every compared query agreed.
function M.cmd_answers(c)
  local o = sysbench.opt
  local save, against = tostring(o.save_answers or ""), tostring(o.answers or "")
  local con = common.monitor(c)
  local bad = 0
  for _, q in ipairs(c.qlist) do
    local t0 = common.now_ms()
    local rs = con:query(queries.text(q, c.pg, 1))
    local rows = {}
    if rs then
      local nf = rs.nfields
      local r = rs:fetch_row()
      while r do
        local row = {}
        for j = 1, nf do row[j] = field(r[j]) end
        rows[#rows + 1] = row
        r = rs:fetch_row()
      end
      rs:free()
    end
    local line = string.format("Q%-2d %8.3fs %7d row(s)", q, (common.now_ms() - t0) / 1000, #rows)
    if save ~= "" then write(save, q, rows) end
    if against ~= "" then
      local want, err = read(against, q)
      local diff = want and M.compare(q, rows, want) or err
      if diff then bad = bad + 1 end
      line = line .. (diff and ("  DIFFERS: " .. diff) or "  agrees")
    end
    print(line)
  end
  con:disconnect()
  if against ~= "" then
    print(string.format("%d of %d queries agree with %s", #c.qlist - bad, #c.qlist, against))
  end
  return bad == 0
end

return M
