-- bmk kit, dbSTRESS: run-time statements, REF/set choice, the event, the
-- thread hooks, and install() which publishes the workload's globals
-- (docs/kit-dbstress.md; the globals carry BMK-kit's names).
--
-- The per-thread event counter is the global `ops`, so that BMK-kit style
-- wrapper scripts (dbSTRESS-common) and the kit share it.

local opts = require("kit_dbstress_opts")
local load = require("kit_dbstress_load")
local ffi = require("ffi")

-- bmk's route lookup (core/sb_endpoints.h). pcall: another module of the
-- same Lua state may have declared it already (a second cdef is an error).
pcall(ffi.cdef, "bool sb_endpoints_has_route(const char *key);")

local M = {}

local T = sysbench.sql.type
local XGROUPS = table.concat({string.rep("X", 24), string.rep("X", 24),
                              string.rep("X", 24), string.rep("X", 24)}, " ")

-- Per-thread state (one copy per Lua state).
local drv, con, pg
local rcon = {}                 -- rcon[class]: the connection on routing.types.<class>
local cfg                       -- opts.config() of this thread
local stmt = {}                 -- stmt[set][name] (name: SEL1 SEL2 UPDATE DELETE INSERT)
local param = {}                -- param[set][name] = {p1, p2, ...}
local prepared = {}             -- class -> true once prepare_class() ran
local begin_stmt, commit_stmt
local in_trx = false            -- BEGIN sent and no COMMIT/ROLLBACK yet
local restarting = false        -- the next event() call is a restart
local anti_dead = true          -- effective (false when slices are < 11)
local slice = 0

-- ---- statements --------------------------------------------------------------

local function sql_defs(n)
  local fu = sysbench.opt.for_update and " FOR UPDATE" or ""
  return {
    SEL1 = {"SELECT S.REF as sref, S.NAME as snm, Z.REF as zref, Z.NAME as znm, " ..
              "O.NAME as onm, O.CREATE_DATE as ocd, O.NOTE as onote " ..
              "from OBJECT" .. n .. " O, SECTION" .. n .. " S, ZONE" .. n .. " Z " ..
              "where S.REF = O.REF_SECTION and Z.REF = S.REF_ZONE and O.REF = ?" .. fu,
            {T.CHAR, 10}},
    SEL2 = {"SELECT S.REF as stref, S.NAME as stnm, H.HORDER as hord, " ..
              "H.BEGIN_DATE as hbeg, H.END_DATE as hend, H.NOTE as hnote " ..
              "from HISTORY" .. n .. " H, STAT" .. n .. " S " ..
              "where S.REF = H.REF_STAT and H.REF_OBJECT = ? order by H.HORDER" .. fu,
            {T.CHAR, 10}},
    UPDATE = {"UPDATE HISTORY" .. n .. " SET REF_STAT = ?, BEGIN_DATE = ?, " ..
                "END_DATE = ?, NOTE = ? WHERE REF_OBJECT = ? AND HORDER = ?",
              {T.CHAR, 3}, {T.CHAR, 12}, {T.CHAR, 12}, {T.CHAR, 100},
              {T.CHAR, 10}, {T.INT}},
    DELETE = {"DELETE FROM HISTORY" .. n .. " WHERE REF_OBJECT = ? AND HORDER = ?",
              {T.CHAR, 10}, {T.INT}},
    INSERT = {"INSERT INTO HISTORY" .. n .. " VALUES ( ?, ?, ?, ?, ?, ? )",
              {T.CHAR, 10}, {T.INT}, {T.CHAR, 3}, {T.CHAR, 12}, {T.CHAR, 12},
              {T.CHAR, 100}},
  }
end

local CLASS_STMTS = {SEL1 = {"SEL1"}, SEL2 = {"SEL2"}, UPDATE = {"UPDATE"},
                     INSDEL = {"DELETE", "INSERT"}}

-- ensure_connection(): connects this thread (session options applied) if
-- it has no connection yet; returns the connection.
function M.ensure_connection()
  if con == nil then
    drv = sysbench.sql.driver()
    con = drv:connect()
    pg = opts.is_pg(drv)
    opts.apply_session(con, drv)
  end
  return con
end

-- routed(class): true when the --endpoints file has a route named after
-- the class (routing.types.SEL1, ...; false without --endpoints).
function M.routed(class)
  return ffi.C.sb_endpoints_has_route(class)
end

-- class_connection(class): the connection the class's statements run on:
-- with a route for the class, a connection of its own opened on that
-- route (once per thread, session options applied); else the thread's
-- main connection (the default route).
function M.class_connection(class)
  M.ensure_connection()
  if not M.routed(class) then
    return con
  end
  if rcon[class] == nil then
    local c = drv:connect({endpoint = class})
    opts.apply_session(c, drv)
    rcon[class] = c
  end
  return rcon[class]
end

-- prepare_class(class): prepares the statements of class SEL1, SEL2,
-- UPDATE or INSDEL for every set on the class's connection
-- (class_connection(); again if already prepared). Errors on an unknown
-- class.
function M.prepare_class(class)
  local names = CLASS_STMTS[class]
  if names == nil then
    error("unknown dbSTRESS statement class '" .. tostring(class) .. "'", 2)
  end
  local ccon = M.class_connection(class)
  for n = 1, sysbench.opt.obj_tables do
    local defs = sql_defs(n)
    stmt[n] = stmt[n] or {}
    param[n] = param[n] or {}
    for _, name in ipairs(names) do
      if stmt[n][name] then
        stmt[n][name]:close()
      end
      local d = defs[name]
      local s = ccon:prepare(d[1])
      local p = {}
      for i = 2, #d do
        p[#p + 1] = s:bind_create(d[i][1], d[i][2])
      end
      s:bind_param(unpack(p))
      stmt[n][name], param[n][name] = s, p
    end
  end
  prepared[class] = true
end

-- prepare_trx(): prepares BEGIN and COMMIT.
function M.prepare_trx()
  M.ensure_connection()
  begin_stmt = con:prepare("BEGIN")
  commit_stmt = con:prepare("COMMIT")
end

local function prepare_all()
  local counts = {SEL1 = cfg.sel1, SEL2 = cfg.sel2, INSDEL = cfg.insdel, UPDATE = cfg.updates}
  for _, class in ipairs({"SEL1", "SEL2", "INSDEL", "UPDATE"}) do
    if counts[class] > 0 then
      M.prepare_class(class)
    end
  end
  if cfg.trx then
    M.prepare_trx()
  end
end

-- close_all(): closes every prepared statement of this thread.
function M.close_all()
  for _, set in pairs(stmt) do
    for _, s in pairs(set) do
      s:close()
    end
  end
  if begin_stmt then begin_stmt:close() end
  if commit_stmt then commit_stmt:close() end
  stmt, param, begin_stmt, commit_stmt = {}, {}, nil, nil
end

-- ---- REF and set choice ----------------------------------------------------------

local function plan()
  if cfg == nil then
    cfg = opts.config()
    slice = math.floor(cfg.size / cfg.U)
    anti_dead = sysbench.opt.anti_dead and slice >= 11
  end
  return cfg
end

-- get_set_num(): a set number, rand.uniform(1, --obj-tables).
function M.get_set_num()
  return sysbench.rand.uniform(1, plan().sets)
end

-- get_ref(): an OBJECT REF (`%010d`): inside this thread's slice with
-- --anti-dead (slice = obj-table-size / threads-total, 5 objects away from
-- both edges), else over the whole table; --rand-type distribution.
function M.get_ref()
  local c = plan()
  local i
  if anti_dead then
    i = sysbench.rand.default(5, slice - 5) + c.g * slice
  else
    i = sysbench.rand.default(0, c.size - 1)
  end
  return opts.ref(i)
end

-- Runs fn(set, ref) `count` times for one statement group: the first
-- time with the pair given by the caller (the event's pair with
-- --same-ref) or a pair of its own, then with a fresh REF in the same set.
local function each_ref(count, set, ref, fn)
  if set == nil then
    set, ref = M.get_set_num(), M.get_ref()
  end
  for i = 1, count do
    if i > 1 then
      ref = M.get_ref()
    end
    fn(set, ref)
  end
end

-- ---- statement groups ---------------------------------------------------------------

-- A wrapper may call a class that thread_init did not prepare (count 0 or
-- not in --statements): say so instead of indexing a missing statement.
local function need(class)
  if not prepared[class] then
    error(string.format("dbSTRESS: statement class %s is not prepared (count 0 or " ..
                          "not in --statements); call prepare_%s() first", class, class), 0)
  end
end

local function run_select(name, count, set, ref)
  need(name)
  each_ref(count, set, ref, function(n, r)
    param[n][name][1]:set(r)
    stmt[n][name]:execute()
  end)
end

-- execute_SEL1([count[, set, ref]]): SEL1 x count (default --SEL1).
function M.execute_SEL1(count, set, ref)
  run_select("SEL1", count or plan().sel1, set, ref)
end

-- execute_SEL2([count[, set, ref]]): SEL2 x count (default --SEL2).
function M.execute_SEL2(count, set, ref)
  run_select("SEL2", count or plan().sel2, set, ref)
end

-- Random new HISTORY values for (ref, horder): state, date, note.
local function history_values(ref, horder)
  local state = string.format("%03d", sysbench.rand.uniform(0, 999))
  local date = opts.date(sysbench.rand.uniform(0, 99))
  local note = string.format("%s NOTE State %s FOR REF#%s-%d %s", date, state, ref,
                             horder, XGROUPS):sub(1, 100)
  return state, date, note
end

-- execute_INSDEL([count[, set, ref]]): (DELETE, INSERT) of the same
-- (REF, HORDER) x count (default --delete-inserts).
function M.execute_INSDEL(count, set, ref)
  need("INSDEL")
  each_ref(count or plan().insdel, set, ref, function(n, r)
    local dp, ip = param[n].DELETE, param[n].INSERT
    local horder = sysbench.rand.uniform(0, 19)
    local state, date, note = history_values(r, horder)
    dp[1]:set(r); dp[2]:set(horder)
    stmt[n].DELETE:execute()
    ip[1]:set(r); ip[2]:set(horder); ip[3]:set(state)
    ip[4]:set(date); ip[5]:set(date); ip[6]:set(note)
    stmt[n].INSERT:execute()
  end)
end

-- execute_UPDATE([count[, set, ref]]): HISTORY UPDATE x count (default
-- --updates).
function M.execute_UPDATE(count, set, ref)
  need("UPDATE")
  each_ref(count or plan().updates, set, ref, function(n, r)
    local p = param[n].UPDATE
    local horder = sysbench.rand.uniform(0, 19)
    local state, date, note = history_values(r, horder)
    p[1]:set(state); p[2]:set(date); p[3]:set(date); p[4]:set(note)
    p[5]:set(r); p[6]:set(horder)
    stmt[n].UPDATE:execute()
  end)
end

-- begin() / commit(): the prepared BEGIN / COMMIT (tracked, so that a
-- restarted event can roll an open transaction back).
function M.begin()
  begin_stmt:execute()
  in_trx = true
end

function M.commit()
  commit_stmt:execute()
  in_trx = false
end

-- ---- the event -------------------------------------------------------------------------

-- event(): one dbSTRESS event. `ops` counts events, not restarts.
function M.event()
  local c = cfg
  if not restarting then
    ops = (ops or 0) + 1
  end
  restarting = false
  local set, ref
  if sysbench.opt.same_ref then
    set, ref = M.get_set_num(), M.get_ref()
  end
  if c.trx then M.begin() end
  if c.sel1 > 0 then M.execute_SEL1(c.sel1, set, ref) end
  if c.sel2 > 0 then M.execute_SEL2(c.sel2, set, ref) end
  if ops % c.rw == 0 then
    if c.insdel > 0 then M.execute_INSDEL(c.insdel, set, ref) end
    if c.updates > 0 then M.execute_UPDATE(c.updates, set, ref) end
  end
  if c.trx then M.commit() end
end

-- ---- thread hooks -------------------------------------------------------------------------

-- The classes of the event that run on a route of their own.
local function routed_classes()
  local list = {}
  local counts = {SEL1 = cfg.sel1, SEL2 = cfg.sel2, INSDEL = cfg.insdel, UPDATE = cfg.updates}
  for _, class in ipairs({"SEL1", "SEL2", "INSDEL", "UPDATE"}) do
    if counts[class] > 0 and M.routed(class) then
      list[#list + 1] = class
    end
  end
  return list
end

local function print_startup()
  local o = sysbench.opt
  local function line(label, value)
    print(string.format("* %-13s: [%s]", label, tostring(value)))
  end
  line("THREADS", o.threads)
  if cfg.U ~= o.threads then
    line("THREADS-TOTAL", cfg.U)
    line("THREAD-OFFSET", o.thread_offset)
  end
  line("OBJ SIZE", opts.millions(cfg.size) .. "M")
  line("OBJ SETS", cfg.sets)
  line("anti_dead", o.anti_dead)
  line("same_ref", o.same_ref)
  line("SEL1", cfg.sel1)
  line("SEL2", cfg.sel2)
  line("UPDATE", cfg.updates)
  line("INSDEL", cfg.insdel)
  line("RW-ratio", cfg.rw)
  line("SESSION-ops", opts.session_options(drv))
  if o.for_update then
    line("FOR-UPDATE", true)
  end
  local routes = routed_classes()
  if #routes > 0 then
    line("ROUTED", table.concat(routes, ","))
    if cfg.trx then
      print("=> routed classes run in autocommit on their own connections, " ..
              "outside the BEGIN/COMMIT (not transactionally consistent)")
    end
  end
  if o.anti_dead and not anti_dead then
    print("=> anti_dead: disabled (obj-table-size/threads < 11)")
  end
  opts.mysql_only_notices(drv)
  if o.mysql_check_charset and not pg then
    local rs = con:query("SHOW VARIABLES WHERE Variable_name LIKE 'character_set%' " ..
                           "OR Variable_name LIKE 'collation%'")
    local row = rs:fetch_row()
    while row do
      print(string.format("=> %s : %s", row[1], tostring(row[2])))
      row = rs:fetch_row()
    end
  end
  if o.opt_debug then
    opts.print_options()
  end
end

local function thread_init_body()
  ops = ops or 0
  plan()
  M.ensure_connection()
  if sysbench.tid == 0 then
    print_startup()
  end
  prepare_all()
end

-- thread_init(): validates the options, connects, prints the startup lines
-- (thread 0) and prepares the statements the event uses. SQL errors are
-- reported as text (a missing set with a hint to load it).
function M.thread_init()
  local ok, err = pcall(thread_init_body)
  if not ok then
    error(require("mysql_common").error_text(err), 0)
  end
end

-- thread_done(): closes the statements and the thread's connections
-- (the routed classes' too).
function M.thread_done()
  M.close_all()
  for class, c in pairs(rcon) do
    c:disconnect()
    rcon[class] = nil
  end
  if con then
    con:disconnect()
    con = nil
  end
end

-- After a lost connection the driver reconnected in place: the session
-- options and server-side statements are gone.
local lost_errnos = {[2006] = true, [2011] = true, [2013] = true, [2055] = true}
local lost_states = {["08000"] = true, ["08003"] = true, ["08006"] = true,
                     ["57P01"] = true, ["57P02"] = true, ["57P03"] = true}

-- before_restart_event(err): ends the event's open transaction on the main
-- connection (BEGIN sent, no COMMIT yet) unless it is gone already: a
-- MySQL lock wait timeout leaves it open (the next BEGIN would commit it),
-- PostgreSQL's driver has rolled back the failing connection's, a lost
-- main connection has none, and an error on a routed class's connection
-- (autocommit) leaves the main one's open on both. After a lost
-- connection (the driver rebuilt it in place) the session options are
-- applied again on every connection of the thread and every statement is
-- prepared again.
function M.before_restart_event(err)
  restarting = true
  local lost = lost_errnos[err.sql_errno] or
    (err.sql_errno == 0 and lost_states[err.sql_state])
  local on_main = err.connection == nil or err.connection == con
  if in_trx then
    in_trx = false
    if not on_main or not (lost or pg) then
      pcall(con.query, con, "ROLLBACK")
    end
  end
  if lost then
    local classes = prepared
    prepared = {}
    M.close_all()
    opts.apply_session(con, drv)
    for _, c in pairs(rcon) do
      opts.apply_session(c, drv)
    end
    for class in pairs(classes) do
      M.prepare_class(class)
    end
    if cfg.trx then
      M.prepare_trx()
    end
  end
end

-- install(with_event): publishes the workload: options, commands,
-- thread_init/thread_done, the restart hook, and event() when with_event.
function M.install(with_event)
  sysbench.cmdline.options = opts.options
  local PAR = sysbench.cmdline.PARALLEL_COMMAND
  local guard = require("mysql_common").guard
  sysbench.cmdline.commands = {
    create = {guard(load.cmd_create)},
    prepare = {guard(load.cmd_prepare), PAR},
    warmup = {guard(load.cmd_warmup), PAR},
    prewarm = {guard(load.cmd_warmup), PAR},
    cleanup = {guard(load.cmd_cleanup)},
  }
  ops = ops or 0
  function init()
    opts.config()      -- fails early, before the worker threads start
  end
  thread_init = M.thread_init
  thread_done = M.thread_done
  sysbench.hooks.before_restart_event = M.before_restart_event
  if with_event then
    event = M.event
  end
end

return M
