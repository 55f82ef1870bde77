-- bmk bundled workloads: a JSON text read into Lua values, for the
-- documents bmk itself writes (a saved run's --results, `bmk runs
-- export`). jansson parses it (sysbench.__c.json_decode,
-- src/lua/sb_lua_json.c): objects become tables keyed by their member
-- names, arrays tables indexed 1..n, numbers Lua numbers, true/false
-- booleans; JSON's null becomes nil (an object's null member is absent,
-- an array's null a hole). Used by chbench's --baseline=tag:K=V
-- (chbench_saved.lua).

local M = {}

-- decode(text): the value, or nil and a message naming jansson's error
-- with its line and column. Any state.
function M.decode(text)
  if type(text) ~= "string" then
    return nil, "JSON: no text (" .. type(text) .. ")"
  end
  return sysbench.__c.json_decode(text)
end

return M
