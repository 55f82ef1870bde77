-- bmk bundled workloads: a JSON text read into Lua values (RFC 8259),
-- for the documents bmk itself writes (a saved run's --results, `bmk runs
-- export`): objects become tables keyed by their member names, arrays
-- tables indexed 1..n, numbers Lua numbers (doubles), true/false
-- booleans. JSON's null becomes nil: an object's member that is null is
-- absent, and an array with a null has a hole there (bmk's documents use
-- null in objects only). Used by chbench's --baseline=tag:K=V
-- (chbench_saved.lua).

local M = {}

local ESC = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n",
              r = "\r", t = "\t" }

-- UTF-8 of code point `cp` (below 0x110000).
local function utf8(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then
    return string.char(0xC0 + math.floor(cp / 0x40), 0x80 + cp % 0x40)
  end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 0x1000), 0x80 + math.floor(cp / 0x40) % 0x40,
                       0x80 + cp % 0x40)
  end
  return string.char(0xF0 + math.floor(cp / 0x40000), 0x80 + math.floor(cp / 0x1000) % 0x40,
                     0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
end

local value                     -- value(s, i): the value at i, and the index after it

local function fail(s, i, what)
  error(string.format("JSON: %s at byte %d", what, i), 0)
end

local function skip(s, i)
  return s:find("[^ \t\r\n]", i) or #s + 1
end

-- The string whose opening quote is at i.
local function str(s, i)
  local out, j = {}, i + 1
  while true do
    local k = s:find('["\\]', j)
    if not k then fail(s, i, "unterminated string") end
    out[#out + 1] = s:sub(j, k - 1)
    if s:sub(k, k) == '"' then return table.concat(out), k + 1 end
    local e = s:sub(k + 1, k + 1)
    if e == "u" then
      local cp = tonumber(s:sub(k + 2, k + 5), 16)
      if not cp then fail(s, k, "bad \\u escape") end
      j = k + 6
      if cp >= 0xD800 and cp < 0xDC00 and s:sub(j, j + 1) == "\\u" then
        local lo = tonumber(s:sub(j + 2, j + 5), 16)
        if lo and lo >= 0xDC00 and lo < 0xE000 then
          cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
          j = j + 6
        end
      end
      out[#out + 1] = utf8(cp)
    elseif ESC[e] then
      out[#out + 1] = ESC[e]
      j = k + 2
    else
      fail(s, k, "bad escape")
    end
  end
end

-- An object ({ at i) or an array ([ at i).
local function container(s, i, close)
  local t, n = {}, 0
  i = skip(s, i + 1)
  if s:sub(i, i) == close then return t, i + 1 end
  while true do
    if close == "}" then
      if s:sub(i, i) ~= '"' then fail(s, i, "member name expected") end
      local k
      k, i = str(s, i)
      i = skip(s, i)
      if s:sub(i, i) ~= ":" then fail(s, i, "':' expected") end
      t[k], i = value(s, skip(s, i + 1))
    else
      n = n + 1
      t[n], i = value(s, i)
    end
    i = skip(s, i)
    local ch = s:sub(i, i)
    if ch == close then return t, i + 1 end
    if ch ~= "," then fail(s, i, "',' or '" .. close .. "' expected") end
    i = skip(s, i + 1)
  end
end

local WORDS = { ["true"] = true, ["false"] = false }

value = function(s, i)
  i = skip(s, i)
  local ch = s:sub(i, i)
  if ch == "{" then return container(s, i, "}") end
  if ch == "[" then return container(s, i, "]") end
  if ch == '"' then return str(s, i) end
  local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
  if num and #num > 0 then
    local v = tonumber(num)
    if v == nil then fail(s, i, "bad number") end
    return v, i + #num
  end
  for w, v in pairs(WORDS) do
    if s:sub(i, i + #w - 1) == w then return v, i + #w end
  end
  if s:sub(i, i + 3) == "null" then return nil, i + 4 end
  fail(s, i, "a value expected")
end

-- The value of the JSON text `s`. Returns the value, or nil and a
-- message ("JSON: ... at byte N") when `s` is not one JSON value. Pure;
-- any state.
function M.decode(s)
  local ok, v, i = pcall(value, s, 1)
  if not ok then return nil, v end
  if skip(s, i) <= #s then return nil, string.format("JSON: text after the value at byte %d", i) end
  return v
end

return M
