-- MySQL multiple result sets in event mode: each event CALLs a procedure
-- returning two result sets, as a text query and as a prepared statement,
-- and reads them with next_result(); thread_done prints what each VU saw.
-- `prepare` creates the procedure bmk_ev_two, `cleanup` drops it.
function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP PROCEDURE IF EXISTS bmk_ev_two")
  c:query("CREATE PROCEDURE bmk_ev_two() BEGIN SELECT 1 AS a; SELECT 2 AS b, 3 AS c; END")
end

function cleanup()
  sysbench.sql.driver():connect():query("DROP PROCEDURE IF EXISTS bmk_ev_two")
end

function thread_init()
  con = sysbench.sql.driver():connect()
  st = con:prepare("CALL bmk_ev_two()")
  seen = {}
end

local function rest(first, next_result)
  local got = {first}
  while con:more_results() do
    local r = next_result()
    if r and r.nfields > 0 then
      got[#got + 1] = table.concat(r:fetch_row(), ",")
    end
  end
  return table.concat(got, "|")
end

function event()
  local text = rest(con:query("CALL bmk_ev_two()"):fetch_row()[1],
                    function() return con:next_result() end)
  local prepared = rest(st:execute():fetch_row()[1],
                        function() return st:next_result() end)
  seen[#seen + 1] = text .. "/" .. prepared
end

function thread_done(tid)
  print("vu " .. tid .. " " .. table.concat(seen, " "))
  st:close()
  con:disconnect()
end
