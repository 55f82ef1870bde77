-- One SELECT per event on the "read" route; before event HOLD's SELECT
-- it creates $EP_READY and waits for $EP_GO (the test stops the replica
-- in between).
local HOLD = tonumber(os.getenv("EP_HOLD") or "20")

function thread_init()
  con = sysbench.sql.driver():connect{endpoint = "read"}
  n = 0
end

function event()
  n = n + 1
  if n == HOLD then
    io.open(os.getenv("EP_READY"), "w"):close()
    while true do
      local f = io.open(os.getenv("EP_GO"))
      if f then f:close() break end
      os.execute("sleep 0.1")
    end
  end
  con:query("SELECT 1")
end

function thread_done()
  con:disconnect()
end
