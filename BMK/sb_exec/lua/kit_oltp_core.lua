-- bmk kit OLTP: run-time part (docs/kit-oltp.md).
--
-- Statement preparation and execution per class, user-to-table
-- attribution, id generators (--rand-loop), --trx-retry replay, session
-- options, sleeps, extra queries and the reconnect workload. The global
-- function names are BMK-kit's (prepare_<class>, execute_<class>, begin,
-- commit, get_table_num, get_id, ...) so that wrapper scripts written for
-- BMK-kit's oltp_common keep working.

local ffi = require("ffi")
pcall(ffi.cdef, "void db_count_reconnect(int thread_id);")
pcall(ffi.cdef, "void sb_counter_inc(int thread_id, sb_counter_type type);")
pcall(ffi.cdef, "int db_last_connect_error(int *sql_errno, const char **sql_state);")
pcall(ffi.cdef, "const char *db_last_connect_errmsg(void);")
pcall(ffi.cdef, "void db_quiet_connect_errors(int on);")
pcall(ffi.cdef, "bool sb_engine_stopping(void);")

-- usleep(us) and mysql_session_opt(con) come from the compat module.
local mc = require("mysql_common")

local T = sysbench.sql.type

-- ---- users, tables (user-to-table attribution) and ids (--rand-loop) -------

-- The table this thread always uses when U >= tables, else nil.
local function fixed_table()
  local o = sysbench.opt
  if kit.U >= o.tables then
    return (kit.g % o.tables) + 1
  end
  return nil
end

-- --trx-retry record: values drawn since the event started; replayed in
-- order after a restart.
local rec, rec_pos, replaying, restart_pending = {}, 0, false, false

local function recorded(v_fn, a, b)
  if not sysbench.opt.trx_retry then
    return v_fn(a, b)
  end
  if replaying then
    rec_pos = rec_pos + 1
    local v = rec[rec_pos]
    if v ~= nil then
      return v
    end
    replaying = false
  end
  local v = v_fn(a, b)
  rec[#rec + 1] = v
  return v
end

-- start_id(): called at the start of each event; replays the record after
-- a restart with --trx-retry=on, else starts a new record.
function start_id()
  if restart_pending and sysbench.opt.trx_retry then
    replaying, rec_pos = true, 0
  else
    reset_id()
  end
  restart_pending = false
end

-- reset_id(): forgets the recorded ids (after COMMIT).
function reset_id()
  rec, rec_pos, replaying = {}, 0, false
end

-- get_table_num(): table number for one statement group: the thread's
-- fixed table when threads >= tables, else uniform over all tables.
function get_table_num()
  if kit.fixed then
    return kit.fixed
  end
  return recorded(sysbench.rand.uniform, 1, sysbench.opt.tables)
end

local loop_v, loop_calls = nil, 0

-- Raw id draw per --rand-loop (integer arithmetic).
local function draw_id()
  local S, U, g = kit.S, kit.U, kit.g
  local mode = sysbench.opt.rand_loop
  local default = sysbench.rand.default
  if mode == 1 then
    local lo, hi
    local tables = sysbench.opt.tables
    if U < tables then
      lo = 1 + math.floor(g * S / U)
      hi = math.floor((g + 1) * S / U)
    else
      local k = math.floor(U / tables)
      local c = math.floor(g / tables)
      lo = 1 + math.floor(c * S / k)
      hi = math.floor((c + 1) * S / k)
    end
    if hi < lo then hi = lo end
    return default(lo, hi)
  elseif mode == 2 then
    local id = default(1, S)
    local step = math.floor(S / U)
    if step < 1 then step = 1 end
    return id - id % step + g + 1
  elseif mode == 3 then
    if loop_v == nil or loop_calls >= 1000000 then
      loop_v, loop_calls = default(1, S), 0
    end
    loop_calls = loop_calls + 1
    loop_v = loop_v + 77777
    return loop_v % S + 1
  end
  return default(1, S)
end

-- get_id(): the next row id, recorded for --trx-retry.
function get_id()
  return recorded(draw_id)
end

-- ---- connections ------------------------------------------------------------

local function sleep_after_query()
  usleep(sysbench.opt.sleep_after_query)
end

-- ---- prepared statements ----------------------------------------------------

-- Statement text per class for table <name><t>: sysbench's, changed by the
-- kit options.
local function sql_for(class, t)
  local o = sysbench.opt
  local tn = kit.name .. t
  local h, key, cols = kit.hint, kit.key, kit.cols
  local urs = o.update_range_size > 0
  if class == "point" then
    return string.format("SELECT %s%s FROM %s WHERE %s=?", h, cols, tn, key), {T.BIGINT}
  elseif class == "simple" then
    return string.format("SELECT %s%s FROM %s WHERE %s BETWEEN ? AND ?", h, cols, tn, key),
      {T.BIGINT, T.BIGINT}
  elseif class == "sum" then
    return string.format("SELECT %sSUM(k) FROM %s WHERE %s BETWEEN ? AND ?", h, tn, key),
      {T.BIGINT, T.BIGINT}
  elseif class == "order" then
    return string.format("SELECT %s%s FROM %s WHERE %s BETWEEN ? AND ? ORDER BY c",
                         h, cols, tn, key), {T.BIGINT, T.BIGINT}
  elseif class == "distinct" then
    return string.format("SELECT %sDISTINCT c FROM %s WHERE %s BETWEEN ? AND ? ORDER BY c",
                         h, tn, key), {T.BIGINT, T.BIGINT}
  elseif class == "index_update" then
    if urs then
      return string.format("UPDATE %s%s SET k=k+1 WHERE id BETWEEN ? AND ?", h, tn),
        {T.BIGINT, T.BIGINT}
    end
    return string.format("UPDATE %s%s SET k=k+1 WHERE id=?", h, tn), {T.BIGINT}
  elseif class == "non_index_update" then
    if urs then
      return string.format("UPDATE %s%s SET c=? WHERE %s BETWEEN ? AND ?", h, tn, key),
        {{T.CHAR, 120}, T.BIGINT, T.BIGINT}
    end
    return string.format("UPDATE %s%s SET c=? WHERE %s=?", h, tn, key),
      {{T.CHAR, 120}, T.BIGINT}
  elseif class == "delete" then
    return string.format("DELETE %sFROM %s WHERE id=?", h, tn), {T.BIGINT}
  elseif class == "insert" or class == "inserts" then
    local cols_l, marks = "id, k, c, pad", "?, ?, ?, ?"
    local types = {T.BIGINT, T.BIGINT, {T.CHAR, 120}, {T.CHAR, 60}}
    if class == "inserts" and o.auto_inc then
      -- MySQL assigns the id for 0; PostgreSQL omits the column (SERIAL).
      -- With --auto-inc=off the id is client-generated, as stock oltp_insert.
      table.remove(types, 1)
      if kit.pg then
        cols_l, marks = "k, c, pad", "?, ?, ?"
      else
        marks = "0, ?, ?, ?"
      end
    end
    for i = 1, o.extra_cols do
      cols_l = cols_l .. ", col" .. i
      marks = marks .. ", ?"
      types[#types + 1] = {T.VARCHAR, #o.extra_cols_default}
    end
    return string.format("INSERT %sINTO %s (%s) VALUES (%s)", h, tn, cols_l, marks), types
  end
  error("unknown statement class " .. tostring(class))
end

-- stmt[t][class] / param[t][class] per thread, as stock oltp_common.
stmt = {}
param = {}

-- The tables this thread's statements can touch.
local function my_tables()
  if kit.fixed then
    return {kit.fixed}
  end
  local l = {}
  for t = 1, sysbench.opt.tables do l[t] = t end
  return l
end

local function prepare_class(class)
  for _, t in ipairs(my_tables()) do
    stmt[t] = stmt[t] or {}
    param[t] = param[t] or {}
    local q, types = sql_for(class, t)
    local s = con:prepare(q)
    local p = {}
    for i, ty in ipairs(types) do
      if type(ty) == "table" then
        p[i] = s:bind_create(ty[1], ty[2])
      else
        p[i] = s:bind_create(ty)
      end
    end
    if #p > 0 then
      s:bind_param(unpack(p))
    end
    stmt[t][class], param[t][class] = s, p
  end
end

-- prepare_begin(), prepare_commit(), prepare_<class>(): prepare the class'
-- statement on `con` for each table this thread uses, into stmt[t][class]
-- with bound parameters param[t][class] (BMK-kit / stock names). No
-- arguments; raise the driver's SQL error on failure.
function prepare_begin() stmt.begin = con:prepare("BEGIN") end
function prepare_commit() stmt.commit = con:prepare("COMMIT") end
function prepare_point_selects() prepare_class("point") end
function prepare_simple_ranges() prepare_class("simple") end
function prepare_sum_ranges() prepare_class("sum") end
function prepare_order_ranges() prepare_class("order") end
function prepare_distinct_ranges() prepare_class("distinct") end
function prepare_index_updates() prepare_class("index_update") end
function prepare_non_index_updates() prepare_class("non_index_update") end
function prepare_delete_inserts() prepare_class("delete"); prepare_class("insert") end
function prepare_inserts() prepare_class("inserts") end

local PREPARE = {
  point = prepare_point_selects, simple = prepare_simple_ranges,
  sum = prepare_sum_ranges, order = prepare_order_ranges,
  distinct = prepare_distinct_ranges, index_update = prepare_index_updates,
  non_index_update = prepare_non_index_updates,
  delete_insert = prepare_delete_inserts, inserts = prepare_inserts,
}

-- prepare_statements(): BEGIN/COMMIT (unless --skip-trx) and every active
-- class. The reconnect workload prepares nothing.
function prepare_statements()
  if sysbench.opt.reconnect_event then
    return
  end
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
  end
  for _, c in ipairs(kit.active) do
    PREPARE[c]()
  end
end

-- close_statements(): closes every prepared statement of this thread.
function close_statements()
  for _, byclass in pairs(stmt) do
    if type(byclass) == "table" then
      for _, s in pairs(byclass) do s:close() end
    else
      byclass:close()
    end
  end
  stmt, param = {}, {}
end

-- ---- execution --------------------------------------------------------------

local in_trx = false

-- begin() / commit(): the prepared BEGIN / COMMIT. commit() first sleeps
-- --sleep-before-commit µs and afterwards forgets the --trx-retry record.
function begin()
  stmt.begin:execute()
  in_trx = true
end

function commit()
  usleep(sysbench.opt.sleep_before_commit)
  stmt.commit:execute()
  in_trx = false
  reset_id()
end

local function run(s)
  s:execute()
  sleep_after_query()
end

-- execute_<class>(): runs the class' statements of one event (count from
-- its option) on one table from get_table_num(), ids from get_id(), each
-- followed by --sleep-after-query. No arguments, no return value.
function execute_point_selects()
  local t = get_table_num()
  local s, p = stmt[t].point, param[t].point[1]
  for _ = 1, sysbench.opt.point_selects do
    p:set(get_id())
    run(s)
  end
end

local function execute_range(class)
  local t = get_table_num()
  local s, p = stmt[t][class], param[t][class]
  local rs = sysbench.opt.range_size
  for _ = 1, sysbench.opt[kit.COUNT_OPT[class]] do
    local id = get_id()
    p[1]:set(id)
    p[2]:set(id + rs - 1)
    run(s)
  end
end

function execute_simple_ranges() execute_range("simple") end
function execute_sum_ranges() execute_range("sum") end
function execute_order_ranges() execute_range("order") end
function execute_distinct_ranges() execute_range("distinct") end

-- Index and non-index UPDATEs of one group. The key is a fresh id per
-- statement, or with --update-range-size=N the range [start, start+N-1]
-- of one start id per group. The non-index UPDATE sets c first.
local function execute_updates(class)
  local t = get_table_num()
  local s, p = stmt[t][class], param[t][class]
  local urs = sysbench.opt.update_range_size
  local start = urs > 0 and get_id() or nil
  local key = 1
  if class == "non_index_update" then key = 2 end
  for _ = 1, sysbench.opt[kit.COUNT_OPT[class]] do
    if key == 2 then p[1]:set_rand_str(kit.c_template) end
    if start then
      p[key]:set(start)
      p[key + 1]:set(start + urs - 1)
    else
      p[key]:set(get_id())
    end
    run(s)
  end
end

function execute_index_updates() execute_updates("index_update") end
function execute_non_index_updates() execute_updates("non_index_update") end

local function set_extra(p, first)
  local tmpl = sysbench.opt.extra_cols_default
  for i = 0, sysbench.opt.extra_cols - 1 do
    p[first + i]:set(sysbench.rand.string(tmpl))
  end
end

-- DELETE then INSERT of the same id, new k/c/pad (and extra columns).
function execute_delete_inserts()
  local t = get_table_num()
  local ds, dp = stmt[t].delete, param[t].delete[1]
  local is, ip = stmt[t].insert, param[t].insert
  for _ = 1, sysbench.opt.delete_inserts do
    local id = get_id()
    local k = sysbench.rand.default(1, math.max(kit.S, 1))
    dp:set(id)
    run(ds)
    ip[1]:set(id)
    ip[2]:set(k)
    ip[3]:set_rand_str(kit.c_template)
    ip[4]:set_rand_str(kit.pad_template)
    set_extra(ip, 5)
    run(is)
  end
end

-- INSERTs of new rows: id from the server (or rand.unique() with
-- --auto-inc=off).
function execute_inserts()
  local t = get_table_num()
  local s, p = stmt[t].inserts, param[t].inserts
  local n = 1
  for _ = 1, sysbench.opt.inserts_only do
    n = 1
    if not sysbench.opt.auto_inc then
      p[1]:set(sysbench.rand.unique() - 2147483648)
      n = 2
    end
    p[n]:set(sysbench.rand.default(1, math.max(kit.S, 1)))
    p[n + 1]:set_rand_str(kit.c_template)
    p[n + 2]:set_rand_str(kit.pad_template)
    set_extra(p, n + 3)
    run(s)
  end
end

local EXECUTE = {
  point = execute_point_selects, simple = execute_simple_ranges,
  sum = execute_sum_ranges, order = execute_order_ranges,
  distinct = execute_distinct_ranges, index_update = execute_index_updates,
  non_index_update = execute_non_index_updates,
  delete_insert = execute_delete_inserts, inserts = execute_inserts,
}

-- check_extra_query_before() / check_extra_query_after(): run the
-- --extra-query-before/-after text on connection `c` (default `con`).
function check_extra_query_before(c)
  local q = sysbench.opt.extra_query_before
  if q ~= "" then (c or con):query(q) end
end

function check_extra_query_after(c)
  local q = sysbench.opt.extra_query_after
  if q ~= "" then (c or con):query(q) end
end

-- do_reconnect(): stock --reconnect=N: reconnect (counted), re-apply the
-- session options and re-prepare the statements.
function do_reconnect()
  close_statements()
  con:reconnect()
  mysql_session_opt(con)
  prepare_statements()
end

local events_since_reconnect = 0

-- check_reconnect(): stock --reconnect=N: do_reconnect() every N events.
function check_reconnect()
  local n = sysbench.opt.reconnect
  if n > 0 then
    events_since_reconnect = events_since_reconnect + 1
    if events_since_reconnect >= n then
      do_reconnect()
      events_since_reconnect = 0
    end
  end
end

-- kit_event(): one event of the kit OLTP workload.
function kit_event()
  start_id()
  if sysbench.opt.reconnect_event then
    return execute_point_selects_reconnect(not sysbench.opt.skip_trx)
  end
  check_extra_query_before()
  local trx = not sysbench.opt.skip_trx
  if trx then begin() end
  for _, c in ipairs(kit.active) do
    EXECUTE[c]()
  end
  if trx then commit() end
  check_extra_query_after()
  check_reconnect()
end

-- ---- reconnect workload ----------------------------------------------------

local rcon            -- the event's connection while it is open

-- connect_ignorable(): true when the failed connect just made by this
-- thread is listed as ignorable: its MySQL error number in
-- --mysql-ignore-errors, or its SQLSTATE in --pgsql-ignore-errors (`all`
-- matches any). The connection is freed by the core, so the code comes
-- from db_last_connect_error().
local connect_errno = ffi.new("int[1]")
local connect_state = ffi.new("const char *[1]")

local function connect_ignorable()
  if ffi.C.db_last_connect_error(connect_errno, connect_state) == 0 then
    return false
  end
  local code = kit.pg and ffi.string(connect_state[0]) or tostring(connect_errno[0])
  local l = kit.pg and sysbench.opt.pgsql_ignore_errors or sysbench.opt.mysql_ignore_errors
  for _, v in ipairs(type(l) == "table" and l or {}) do
    v = tostring(v)
    if v == "all" or (code ~= "" and code ~= "0" and v == code) then return true end
  end
  return false
end

-- The drivers are kept quiet during the connect: an ignored failure must
-- not print FATAL lines; a fatal one is reported here with its code.
-- Returns the connection, or nil when an ignored failure happens after the
-- run has ended (the event then gives up: not counted, thread stops)
-- instead of retrying into the forced shutdown.
local function event_connect()
  ffi.C.db_quiet_connect_errors(1)
  local ok, c = pcall(drv.connect, drv)
  ffi.C.db_quiet_connect_errors(0)
  if ok then
    return c
  end
  if connect_ignorable() then
    ffi.C.sb_counter_inc(sysbench.tid, ffi.C.SB_CNT_ERROR)
    if ffi.C.sb_engine_stopping() then
      return nil
    end
    usleep(10000)
    error({errcode = sysbench.error.RESTART_EVENT}, 0)
  end
  if ffi.C.db_last_connect_error(connect_errno, connect_state) ~= 0 then
    error(string.format("reconnect workload: connect failed: error %d, SQLSTATE '%s': %s",
      connect_errno[0], ffi.string(connect_state[0]),
      ffi.string(ffi.C.db_last_connect_errmsg())), 0)
  end
  error(c, 0)
end

-- execute_point_selects_reconnect(trx): one reconnect event: connect,
-- session options, [BEGIN], N text point selects, [COMMIT], disconnect.
-- Counts one reconnect per event (db_count_reconnect). Returns true when
-- the event gave up because the run ended during ignored connect failures
-- (the event function returns it, so the engine stops the thread).
function execute_point_selects_reconnect(trx)
  rcon = event_connect()
  if rcon == nil then
    return true
  end
  mysql_session_opt(rcon)
  check_extra_query_before(rcon)
  if trx then rcon:query("BEGIN") end
  local t = get_table_num()
  local fmt = "SELECT " .. kit.hint .. kit.cols .. " FROM " .. kit.name .. t ..
    " WHERE " .. kit.key .. " = %d"
  for _ = 1, sysbench.opt.point_selects do
    rcon:query(string.format(fmt, get_id()))
    sleep_after_query()
  end
  if trx then
    usleep(sysbench.opt.sleep_before_commit)
    rcon:query("COMMIT")
  end
  check_extra_query_after(rcon)
  rcon:disconnect()
  rcon = nil
  ffi.C.db_count_reconnect(sysbench.tid)
end

-- ---- restarts ---------------------------------------------------------------

local lost_errnos = {[2006] = true, [2011] = true, [2013] = true, [2055] = true}
local lost_states = {["08000"] = true, ["08003"] = true, ["08006"] = true,
                     ["57P01"] = true, ["57P02"] = true, ["57P03"] = true}

-- Before an event restarts: close the reconnect event's connection; send
-- ROLLBACK on MySQL if a transaction is open (PostgreSQL's driver already
-- rolled back); after a lost connection re-apply the session options and
-- re-prepare; mark the restart for the --trx-retry replay.
function sysbench.hooks.before_restart_event(errdesc)
  restart_pending = true
  if rcon then
    pcall(rcon.disconnect, rcon)
    rcon = nil
    return
  end
  local lost = lost_errnos[errdesc.sql_errno] or
    (errdesc.sql_errno == 0 and lost_states[errdesc.sql_state])
  if in_trx and not kit.pg and not lost and con then
    pcall(con.query, con, "ROLLBACK")
  end
  in_trx = false
  if lost and con then
    pcall(mysql_session_opt, con)
    close_statements()
    prepare_statements()
  end
end

-- ---- thread setup -----------------------------------------------------------

local function thread_init_body()
  drv = sysbench.sql.driver()
  kit.setup(drv:name())
  kit.g = sysbench.opt.thread_offset + sysbench.tid
  kit.fixed = fixed_table()
  con = drv:connect()
  mysql_session_opt(con)
  if sysbench.tid == 0 then
    kit.print_startup(con)
  end
  if sysbench.opt.reconnect_event then
    con:disconnect()
    con = nil
    return
  end
  stmt, param = {}, {}
  prepare_statements()
end

-- kit_thread_init(): connect (once, also for the reconnect workload, to
-- surface configuration errors before `Threads started!`), session
-- options, thread 0's startup lines, statements. SQL errors are reported
-- as text, since no event can be restarted here.
function kit_thread_init()
  local ok, err = pcall(thread_init_body)
  if not ok then
    error(mc.error_text(err), 0)
  end
end

-- kit_thread_done(): closes the statements and the thread's connection.
function kit_thread_done()
  if con then
    close_statements()
    con:disconnect()
    con = nil
  end
end

-- ---- startup lines ---------------------------------------------------------

local function orz(v, unit)
  if v == nil or v == "" then return "none" end
  return unit and (v .. unit) or v
end

-- kit.print_startup(c): thread 0's `=>` lines, --opt-debug and
-- --mysql-check-charset output, printed before `Threads started!`.
function kit.print_startup(c)
  local o = sysbench.opt
  kit.print_opt_debug()
  kit.print_ignored()
  print(string.format("=> rand_data: %d(%%)", o.rand_data))
  if o.reconnect_event then
    print(string.format("=> reconnect workload: %d point-SELECTs per connection",
                        o.point_selects))
    if kit.given("db_ps_mode") == "auto" then
      print("=> reconnect workload: prepared statements are not used")
    end
  end
  for _, cl in ipairs(kit.active) do
    print(string.format("=> using %s: %d", kit.CLASS_LABEL[cl], o[kit.COUNT_OPT[cl]]))
  end
  if o.update_range_size > 0 then
    print(string.format("=> update-range-size: %d", o.update_range_size))
  end
  local rl = {[0] = "default", "chunk", "shift", "loop"}
  print("=> rand-type: " .. tostring(o.rand_type))
  print(string.format("=> rand-loop: %d (%s)", o.rand_loop, rl[o.rand_loop]))
  print("=> where-id-key: " .. kit.key)
  print("=> select-cols: " .. kit.cols)
  print("=> session-ops: " .. orz(kit.session_text))
  if kit.fixed then
    print(string.format("=> users-to-tables: fixed (%d users, %d tables)", kit.U, o.tables))
  else
    print(string.format("=> users-to-tables: random (%d users, %d tables)", kit.U, o.tables))
  end
  print("=> sleep-after-query: " .. o.sleep_after_query .. " us")
  print("=> sleep-before-commit: " .. o.sleep_before_commit .. " us")
  print("=> extra-query-before-event: " .. orz(o.extra_query_before))
  print("=> extra-query-after-event: " .. orz(o.extra_query_after))
  if o.mysql_check_charset and not kit.pg then
    local rs = c:query("SHOW VARIABLES WHERE Variable_name LIKE 'character_set%' " ..
                         "OR Variable_name LIKE 'collation%'")
    local row = rs and rs:fetch_row()
    while row do
      print(string.format("=> charset: %s = %s", row[1], tostring(row[2])))
      row = rs:fetch_row()
    end
  end
end
