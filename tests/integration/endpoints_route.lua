-- con:route() (docs/lua-api.md): each event runs a SELECT on the default
-- route (the primary), moves the connection to the "read" route (the
-- replica), runs a SELECT and the prepared statement there, and moves it
-- back ($EP_BACK, "default"). The name con:route returns must be
-- $EP_WANT ("replica1"). $EP_ROUTE replaces "read" (an unknown name: the
-- error); $EP_TX=1 opens a transaction before the move back (refused).
local ROUTE = os.getenv("EP_ROUTE") or "read"
local WANT = os.getenv("EP_WANT") or "replica1"

function thread_init()
  con = sysbench.sql.driver():connect()
  st = con:prepare("SELECT 2")
end

function event()
  con:query("SELECT 1")
  local name = con:route(ROUTE)
  if name ~= WANT or con:endpoint() ~= WANT then
    error(string.format("con:route('%s') returned '%s', con:endpoint() '%s', expected '%s'",
                        ROUTE, name, con:endpoint(), WANT))
  end
  con:query("SELECT 1")
  st:execute()
  if os.getenv("EP_TX") == "1" then
    con:query("BEGIN")
  end
  con:route(os.getenv("EP_BACK") or "default")
end

function thread_done()
  con:disconnect()
end
