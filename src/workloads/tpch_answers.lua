-- bmk tpch: answers. Reads reference answers (TPC-H's answers/qN.out, as
-- the TPC-H tools ship them for SF 1 with qgen -d's parameters, or
-- DuckDB's qNN.csv: both '|'-separated with a header line), writes a
-- run's results in the qN.out layout (--save-answers), and compares a
-- query's rows with its answer under the tolerances of TPC-H
-- specification v3.0.1 clause 2.1.3.5: keys, counts and texts exactly;
-- SUM results within 100; averages and ratios within 1% after rounding
-- to 0.01. docs/tpch.md "Answers".

local M = {}

-- Each query's columns: k key/count/column value (exact, as numbers),
-- t text (exact, trailing blanks ignored), s SUM result (within 100),
-- a average or ratio (within 1%).
M.KINDS = {
  "ttssssaaak", "kttktttt", "kstk", "tk", "ts", "s", "ttks", "ka", "tks", "ktsktttt", "ks",
  "tss", "kk", "a", "kttts", "ttkk", "s", "tkktks", "s", "tt", "tk", "tks",
}

local function trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

local function split(line)
  local out = {}
  for f in (line .. "|"):gmatch("([^|]*)|") do out[#out + 1] = trim(f) end
  return out
end

local function readable(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

-- The answer file of query q in dir: qN.out, QN.out or qNN.csv, or nil.
function M.path(dir, q)
  for _, name in ipairs({ string.format("q%d.out", q), string.format("Q%d.out", q),
                          string.format("q%02d.csv", q) }) do
    local p = dir .. "/" .. name
    if readable(p) then return p end
  end
  return nil
end

-- Reads query q's answer: an array of rows (arrays of trimmed fields), or
-- nil and a message.
function M.read(dir, q)
  local p = M.path(dir, q)
  if not p then
    return nil, string.format("no answer for Q%d in %s (q%d.out or q%02d.csv)", q, dir, q, q)
  end
  local rows, header = {}, nil
  local want = #M.KINDS[q]
  for line in io.lines(p) do
    if line:match("%S") then
      local f = split(line)
      if not header then
        header = f
        if #f ~= want then
          return nil, string.format("%s: the header has %d columns, Q%d has %d", p, #f, q, want)
        end
      else
        if #f ~= want then
          return nil, string.format("%s: row %d has %d columns, Q%d has %d", p, #rows + 1,
                                    #f, q, want)
        end
        rows[#rows + 1] = f
      end
    end
  end
  if not header then return nil, string.format("%s: empty (no header line)", p) end
  return rows
end

local function close_enough(kind, got, want)
  if kind == "t" then return trim(got) == want end
  local g, w = tonumber(got), tonumber(want)
  if g == nil or w == nil then return trim(got) == want end
  if kind == "k" then return math.abs(g - w) < 0.005 end
  if kind == "s" then return math.abs(g - w) <= 100 end
  -- "a": rounded to 0.01, then within 1% of the answer
  local gr, wr = math.floor(g * 100 + 0.5) / 100, math.floor(w * 100 + 0.5) / 100
  return math.abs(gr - wr) <= math.abs(wr) * 0.01 + 1e-9
end

-- Compares query q's rows (arrays of strings, nil for NULL) with its
-- answer: nil when they agree, else a message naming the first
-- difference.
function M.compare(q, rows, answer)
  local kinds = M.KINDS[q]
  if #rows ~= #answer then
    return string.format("%d rows, the answer has %d", #rows, #answer)
  end
  for i, want in ipairs(answer) do
    for j = 1, #kinds do
      local got = rows[i][j] or "NULL"
      if not close_enough(kinds:sub(j, j), got, want[j]) then
        return string.format("row %d column %d: got '%s', want '%s'", i, j, trim(got), want[j])
      end
    end
  end
  return nil
end

-- Writes query q's rows as dir/qN.out (header c1|c2|..., '|' between
-- fields); raises on an I/O error.
function M.write(dir, q, rows)
  local p = string.format("%s/q%d.out", dir, q)
  local f, err = io.open(p, "w")
  if not f then error(string.format("cannot write %s: %s", p, tostring(err)), 0) end
  local head = {}
  for j = 1, #M.KINDS[q] do head[j] = "c" .. j end
  f:write(table.concat(head, "|"), "\n")
  for _, r in ipairs(rows) do
    local out = {}
    for j = 1, #M.KINDS[q] do out[j] = r[j] and trim(r[j]) or "NULL" end
    f:write(table.concat(out, "|"), "\n")
  end
  f:close()
end

return M
