-- bmk tpcc: `--tpcc-mode=sp` (tpcc.md §6 (c)): the stored procedures
-- are created by `prepare` and by `bmk tpcc procs`, and each business
-- transaction is one call with every input generated on the client. The
-- bodies: tpcc_sp_mysql.lua, tpcc_sp_pgsql.lua. Purge has no procedure:
-- it runs as client SQL (tpcc_txn.lua) in this mode too.

local common = require("tpcc_common")
local ffi = common.ffi
local C = common.C

local M = {}

-- Bumped whenever a body changes, so `run` can tell stale procedures.
M.VERSION = 1

local function impl(c)
  return c.pg and require("tpcc_sp_pgsql") or require("tpcc_sp_mysql")
end

-- The creation-time options recorded in tpcc_meta.proc_options.
function M.options_text(c)
  return string.format("v=%d,for_update=%d,force_primary=%d,null=%d", M.VERSION, c.for_update,
                       (not c.pg and c.force_primary) and 1 or 0, c.null_variant and 1 or 0)
end

function M.drop_all(con, c, sets)
  local im = impl(c)
  for n = 1, sets do
    for _, sql in ipairs(im.drop(n)) do con:query(sql) end
  end
end

-- (Re)creates the routines of every set and records their options.
function M.create_all(con, c, meta)
  local im = impl(c)
  for n = 1, c.tables do
    for _, sql in ipairs(im.drop(n)) do con:query(sql) end
    for _, sql in ipairs(im.create(c, n)) do con:query(sql) end
  end
  common.write_meta(con, c, { proc_options = M.options_text(c) })
end

-- `bmk tpcc procs`: (re)creates the stored procedures only.
function M.cmd_procs()
  local c = common.config()
  local con = common.driver():connect()
  if c.pg then con:query("SET search_path TO " .. c.schema) end
  local meta = require("tpcc_run").check_schema(con, c, "procs")
  print(string.format("Creating the stored procedures of %d set(s) (for-update %d, force-primary %d, " ..
                        "%s variant)...", c.tables, c.for_update, c.force_primary and 1 or 0,
                      c.null_variant and "NULL" or "DEFAULT"))
  M.create_all(con, c, meta)
  con:disconnect()
  print("Done.")
end

-- run in sp mode: the routines must exist with this run's options.
function M.check_ready(con, c, meta)
  local want = M.options_text(c)
  local have = meta and meta.proc_options
  if have ~= want then
    common.fail("--tpcc-mode=sp: the stored procedures were created with %s, this run needs %s: " ..
                  "run `bmk tpcc procs` with this run's options first",
                have and ("'" .. have .. "'") or "nothing (none exist)", "'" .. want .. "'")
  end
end

-- ---- calls -------------------------------------------------------------------------

local txn = require("tpcc_txn")
local set_int, set_str = C.db_bind_set_int, C.db_bind_set_str

local mk = txn.mk

local function call_stmt(S, ty, n)
  local per = S.calls[n]
  if not per then
    per = {}
    S.calls[n] = per
  end
  local st = per[ty]
  if not st then
    local sql, spec
    if S.pg then
      sql, spec = require("tpcc_sp_pgsql").call(S.c.pg_routines, ty, n)
    else
      local def = require("tpcc_sp_mysql").CALLS[ty]
      sql, spec = string.format(def[1], n), def[2]
    end
    st = mk(S, sql, spec)
    per[ty] = st
  end
  return st
end

-- Executes the call, returns (status, detail) from its result, and reads
-- any further result (MySQL's CALL ends with a status result).
local function run_call(S, st)
  local rs = C.db_execute(st)
  if rs == nil then S.sql_fail() end
  local row = C.db_fetch_row(rs)
  local status, detail = "c", nil
  if row ~= nil then
    status = txn.col_str(rs, row, 0)
    detail = txn.col_int(rs, row, 1)
  end
  while C.db_more_results(S.con) do
    if C.db_next_result(S.con) == nil and C.db_conn_error(S.con) ~= 0 then S.sql_fail() end
  end
  return status, detail
end

local function list(t, n, sep)
  local parts = {}
  for k = 1, n do parts[k] = t[k] end
  return table.concat(parts, sep)
end

M.TX = {}

function M.TX.new_order(S, I)
  local st = call_stmt(S, "new_order", I.set)
  local n = I.ol_cnt
  local items, supply, qty
  if S.pg then
    items = "{" .. list(I.item, n, ",") .. "}"
    supply = "{" .. list(I.supply, n, ",") .. "}"
    qty = "{" .. list(I.qty, n, ",") .. "}"
  else
    items, supply, qty = list(I.item, n, ","), list(I.supply, n, ","), list(I.qty, n, ",")
  end
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.c); set_int(st, 3, n)
  set_int(st, 4, I.all_local)
  set_str(st, 5, items, #items); set_str(st, 6, supply, #supply); set_str(st, 7, qty, #qty)
  local status = run_call(S, st)
  return status == "r" and "r" or "c"
end

function M.TX.payment(S, I)
  local st = call_stmt(S, "payment", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.c_w); set_int(st, 3, I.c_d)
  set_int(st, 4, I.by_name and 0 or I.c); set_int(st, 5, I.by_name and 1 or 0)
  local last = I.by_name and I.last or ""
  set_str(st, 6, last, #last)
  set_int(st, 7, I.amount)
  run_call(S, st)
  return "c"
end

function M.TX.order_status(S, I)
  local st = call_stmt(S, "order_status", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.by_name and 0 or I.c)
  set_int(st, 3, I.by_name and 1 or 0)
  local last = I.by_name and I.last or ""
  set_str(st, 4, last, #last)
  local _, o_id = run_call(S, st)
  I.o_id = o_id
  return "c"
end

function M.TX.delivery(S, I)
  local st = call_stmt(S, "delivery", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.carrier)
  set_int(st, 2, S.c.delivery_commit == "district" and 1 or 0)
  local _, skipped = run_call(S, st)
  I.skipped = skipped or 0
  return "c"
end

function M.TX.stock_level(S, I)
  local st = call_stmt(S, "stock_level", I.set)
  set_int(st, 0, I.w); set_int(st, 1, I.d); set_int(st, 2, I.threshold)
  local _, low = run_call(S, st)
  I.low_stock = low
  return "c"
end

M.TX.purge = txn.TX.purge

function M.session_init(S)
  S.calls = {}
end

return M
