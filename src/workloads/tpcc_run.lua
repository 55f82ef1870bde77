-- bmk tpcc: `run`: the session (home warehouse, own random stream, deck of
-- transaction types), the inputs of each type, one business transaction per
-- event with retries and error accounting, keying and thinking times, and
-- the client-side counters behind NOPM and the audit. The SQL of each mode
-- lives in tpcc_txn.lua (ps, text), tpcc_sp.lua (sp) and tpcc_pipeline.lua
-- (pipeline).

local common = require("tpcc_common")
local ffi = common.ffi
local C = common.C

local M = {}

-- Transaction types: ids, event-type names.
M.NO, M.P, M.OS, M.D, M.SL, M.PURGE = 1, 2, 3, 4, 5, 6
M.NAMES = { "new_order", "payment", "order_status", "delivery", "stock_level", "purge" }

-- Client counters (per thread, sb_shared_counters): per type t at t*16+k.
M.ATT, M.COMMIT, M.RBK, M.RETRY, M.IGNORED, M.GAVEUP = 0, 1, 2, 3, 4, 5
M.KEY_MS, M.THINK_MS, M.KT_N = 8, 9, 10
function M.tk(t, k) return t * 16 + k end
-- Audit quantities of completed business transactions.
M.NO_LINES, M.NO_REMOTE, M.P_REMOTE, M.P_BYNAME, M.OS_BYNAME, M.D_SKIPPED = 128, 129, 130, 131, 132, 133
-- Errors per (code id, type): occurrences, retried to a commit, abandoned.
M.CODE_BASE = 256
function M.ck(code, t, k) return M.CODE_BASE + (code * 8 + t) * 3 + k end

-- Shared slots set by init() for the sessions: the run's NURand constants.
local SLOT_C_LAST, SLOT_C_ID, SLOT_C_ITEM, SLOT_C_LOAD = 10, 11, 12, 13

-- Keying times and mean think times, seconds (TPC-C clause 5.2.5.7); purge as
-- Delivery.
M.KEYING = { 18, 3, 2, 2, 2, 2 }
M.THINK = { 12, 12, 10, 5, 5, 5 }

local S                  -- this worker's session
local sb_event_type = sysbench.event_type

-- ---- the session -------------------------------------------------------------------

local modes = {
  ps = "tpcc_txn", text = "tpcc_txn", sp = "tpcc_sp", pipeline = "tpcc_pipeline",
}

-- The retryable errors: the driver's ignorable ones, PostgreSQL's fixed
-- set, and --trx-retry-codes.
local PG_RETRY = { ["40P01"] = true, ["40001"] = true, ["23505"] = true }

local function build_deck(c)
  local w = {}
  for i = 1, 5 do w[i] = c.mix[i] end
  if c.trx_debug > 0 then
    w = { 0, 0, 0, 0, 0 }
    w[c.trx_debug] = 1
  end
  local purge = 0
  if c.purge and c.trx_debug == 0 then
    purge = c.purge_weight > 0 and c.purge_weight or (c.mix_sysbench and 1 or c.mix[4])
  end
  w[6] = purge
  local n = 0
  for i = 1, 6 do n = n + w[i] end
  local deck = ffi.new("int32_t[?]", n)
  local k = 0
  for t = 1, 6 do
    for _ = 1, w[t] do
      deck[k] = t
      k = k + 1
    end
  end
  return deck, n, w
end
M.build_deck = build_deck

-- Home (set, warehouse, district) of session k of K (--home-assign).
function M.home(c, k, r)
  if c.home_assign == "random" then
    return tonumber(C.sb_tpcc_rand(r, 1, c.tables)), tonumber(C.sb_tpcc_rand(r, 1, c.scale)),
      tonumber(C.sb_tpcc_rand(r, 1, 10))
  end
  local set = k % c.tables + 1
  local w = math.floor(k / c.tables) % c.scale + 1
  local d = math.floor(k / (c.tables * c.scale)) % 10 + 1
  return set, w, d
end

-- --warehouse-pick=all: session k's list of (set, w) pairs, numbered
-- set-first.
function M.pairs_of(c, k, K)
  local P = c.tables * c.scale
  local list = {}
  for j = 0, math.ceil(P / K) - 1 do
    local p = (k + j * K) % P
    list[#list + 1] = { p % c.tables + 1, math.floor(p / c.tables) + 1 }
  end
  return list
end

-- ---- routes per transaction type (--endpoints, docs/endpoints.md) -------------------

-- What a session keeps per connection: the connection and the statements
-- prepared on it (ps/text: stmts, sp: calls, pipeline: pstmts).
local CTX_FIELDS = { "con", "stmts", "calls", "pstmts" }

-- Makes `ctx` the session's current connection context (S.con, ...),
-- keeping the current one's fields in its own table.
local function use_ctx(ctx)
  local cur = S.ctx
  if cur == ctx then return end
  for _, f in ipairs(CTX_FIELDS) do
    cur[f] = S[f]
    S[f] = ctx[f]
  end
  S.ctx = ctx
end

-- With --endpoints whose routing names a transaction type
-- (routing.types.order_status, ...), that type runs on a connection of
-- its own opened on that route; the other types on S.con (the default
-- route: the primary).
local function open_routes(c)
  S.ctx_main = {}
  S.ctx = S.ctx_main
  S.ctx_of = {}
  for t = 1, 6 do
    local name = M.NAMES[t]
    if C.sb_endpoints_has_route(name) then
      S.ctx_of[t] = { con = common.connect(c, "run", name), stmts = {}, calls = {}, pstmts = {} }
    end
  end
end

function M.thread_init(tid)
  local c = common.config()
  S = { c = c, pg = c.pg, tid = tid, stmts = {}, in_trx = false,
        text = c.mode == "text",
        force_primary = (not c.pg and c.force_primary) and " FORCE INDEX (PRIMARY)" or "" }
  S.con = common.connect(c, "run")
  S.k = c.thread_offset + tid
  S.rng = ffi.new("sb_rand_stream_t")
  C.sb_tpcc_seed(S.rng, C.sb_tpcc_run_seed(), 0x53455353, S.k, 0, 0)     -- "SESS"
  S.home_set, S.home_w, S.home_d = M.home(c, S.k, S.rng)
  -- the cluster's --results lists each process's home warehouses
  -- ("SET:W"; docs/cluster.md)
  if sysbench.cluster.size > 1 then
    sysbench.cluster.note("tpcc_home_warehouses", S.home_set .. ":" .. S.home_w)
  end
  if c.pick == "all" then S.pairs = M.pairs_of(c, S.k, c.sessions) end
  S.deck, S.deck_n = build_deck(c)
  S.deck_pos = S.deck_n
  S.c_last = tonumber(C.sb_shared_get(SLOT_C_LAST))
  S.c_id = tonumber(C.sb_shared_get(SLOT_C_ID))
  S.c_item = tonumber(C.sb_shared_get(SLOT_C_ITEM))
  S.cnt = C.sb_shared_counters(tid)
  S.reconnects = C.sb_counter_val(tid, C.SB_CNT_RECONNECT)
  S.lastbuf = ffi.new("char[16]")
  S.err = {}
  S.codes = {}             -- errors met by the current transaction
  S.code_ids = {}
  S.sql_fail = function() M.sql_fail(S) end
  local impl = require(modes[c.mode])
  S.TX = impl.TX
  if impl.session_init then impl.session_init(S) end
  S.inputs = {}
  for t = 1, 6 do S.inputs[t] = { item = {}, supply = {}, qty = {} } end
  open_routes(c)
end

function M.thread_done(tid)
  if not S then return end
  use_ctx(S.ctx_main)
  for _, ctx in pairs(S.ctx_of) do ctx.con:disconnect() end
  if S.con then S.con:disconnect() end
end

-- The next transaction type: the deck (reshuffled when used up), or an
-- independent draw with --mix-draw=random / --mix=sysbench.
local function next_type()
  if S.c.mix_random then
    local x = tonumber(C.sb_tpcc_rand(S.rng, 1, S.deck_n))
    return S.deck[x - 1]
  end
  if S.deck_pos >= S.deck_n then
    C.sb_tpcc_shuffle(S.rng, S.deck, S.deck_n)
    S.deck_pos = 0
  end
  local t = S.deck[S.deck_pos]
  S.deck_pos = S.deck_pos + 1
  return t
end
M.next_type = function() return next_type() end

-- ---- inputs (TPC-C clauses 2.4.1-2.8.1; purge is bmk's) ------------------------------

local rand, nurand = C.sb_tpcc_rand, C.sb_tpcc_nurand

local function R(x, y) return tonumber(rand(S.rng, x, y)) end

-- Where this transaction runs: (set, warehouse) and the Stock-Level
-- district, per --warehouse-pick.
local function place(I)
  local c = S.c
  if c.pick == "home" then
    I.set, I.w, I.sl_d = S.home_set, S.home_w, S.home_d
  elseif c.pick == "all" then
    local p = S.pairs[R(1, #S.pairs)]
    I.set, I.w, I.sl_d = p[1], p[2], S.home_d
  else
    I.set, I.w, I.sl_d = R(1, c.tables), R(1, c.scale), R(1, 10)
  end
end

local function customer_selector(I)
  if R(1, 100) <= 60 then
    I.by_name = true
    I.last_len = tonumber(C.sb_tpcc_lastname(nurand(S.rng, 255, 0, 999, S.c_last), S.lastbuf))
    I.last = ffi.string(S.lastbuf, I.last_len)
  else
    I.by_name = false
    I.c = tonumber(nurand(S.rng, 1023, 1, 3000, S.c_id))
  end
end

local GEN = {}

GEN[M.NO] = function(I)
  place(I)
  local scale = S.c.scale
  I.d = R(1, 10)
  I.c = tonumber(nurand(S.rng, 1023, 1, 3000, S.c_id))
  local n = R(5, 15)
  I.ol_cnt = n
  local rbk = R(1, 100)
  local remote, all_local = 0, 1
  for k = 1, n do
    I.item[k] = tonumber(nurand(S.rng, 8191, 1, 100000, S.c_item))
    local sw = I.w
    if R(1, 100) == 1 then sw = tonumber(C.sb_tpcc_remote_wh(S.rng, I.w, scale)) end
    if sw ~= I.w then
      remote = remote + 1
      all_local = 0
    end
    I.supply[k] = sw
    I.qty[k] = R(1, 10)
  end
  if rbk == 1 then I.item[n] = 100001 end
  I.remote, I.all_local = remote, all_local
end

GEN[M.P] = function(I)
  place(I)
  I.d = R(1, 10)
  if R(1, 100) <= 85 then
    I.c_w, I.c_d = I.w, I.d
  else
    I.c_w, I.c_d = tonumber(C.sb_tpcc_remote_wh(S.rng, I.w, S.c.scale)), R(1, 10)
  end
  I.remote = I.c_w ~= I.w
  customer_selector(I)
  I.amount = R(100, 500000)
end

GEN[M.OS] = function(I)
  place(I)
  I.d = R(1, 10)
  customer_selector(I)
end

GEN[M.D] = function(I)
  place(I)
  I.carrier = R(1, 10)
end

GEN[M.SL] = function(I)
  place(I)
  I.d = I.sl_d
  I.threshold = R(10, 20)
end

GEN[M.PURGE] = function(I)
  place(I)
end

-- ---- errors -------------------------------------------------------------------------------

-- Raises the session's error object for the failure on S.con (called by
-- the mode modules when a statement fails).
function M.sql_fail(S_)
  local con = S_.con
  local e = S_.err
  e.class = C.db_conn_error(con)         -- 1 ignorable (driver list), 2 fatal
  e.errno = C.db_conn_sql_errno(con)
  e.state = ffi.string(C.db_conn_sql_state(con))
  e.msg = ffi.string(C.db_conn_sql_errmsg(con))
  e.code = S_.pg and e.state or tostring(e.errno)
  e.sql = true
  error(e, 0)
end

local LOST_MY = { ["2006"] = true, ["2013"] = true, ["2055"] = true, ["2011"] = true }

local function retryable(e)
  if e.class == 1 then return true end
  if S.pg and PG_RETRY[e.state] then return true end
  return S.c.retry_codes[e.code] or false
end

local function code_id(code)
  local id = S.code_ids[code]
  if id == nil then
    id = C.sb_shared_code_id(code)
    S.code_ids[code] = id
  end
  return id
end

-- After an error: exactly one ROLLBACK, and only while a transaction is
-- open (a second one, as sysbench-tpcc sends, makes PostgreSQL warn "no
-- transaction in progress"). The PostgreSQL driver has already rolled
-- back for the errors of its ignore list; a lost connection has no
-- transaction.
local function rollback_after(e)
  local lost = (S.pg and (e.state:sub(1, 2) == "08" or e.state:sub(1, 3) == "57P"))
    or (not S.pg and LOST_MY[e.code])
  local need = S.in_trx and not lost and
    not (S.pg and e.class == 1 and S.driver_rolls_back ~= false)
  S.in_trx = false
  if S.pipeline_reset then S.pipeline_reset(S) end
  if need then
    local rs = sysbench.sql.raw.query(S.con, "ROLLBACK", 8)
    if rs == nil then C.db_conn_error(S.con) end
  end
  -- A rebuilt connection has lost the session settings.
  local rc = C.sb_counter_val(S.tid, C.SB_CNT_RECONNECT)
  if rc ~= S.reconnects then
    S.reconnects = rc
    common.setup_session(S.con, S.c, "run")
    if S.on_reconnect then S.on_reconnect(S) end
  end
end

-- ---- one business transaction ---------------------------------------------------------------

local cnt_inc = function(i, n)
  S.cnt[i] = S.cnt[i] + (n or 1)
end

local function account(ty, I, outcome)
  local c = S.c
  local cnt = S.cnt
  if outcome == "r" then
    cnt[ty * 16 + M.RBK] = cnt[ty * 16 + M.RBK] + 1
    if c.rollback_as_error then C.sb_counter_inc(S.tid, C.SB_CNT_ERROR) end
  else
    cnt[ty * 16 + M.COMMIT] = cnt[ty * 16 + M.COMMIT] + 1
  end
  if ty == M.NO then
    cnt[M.NO_LINES] = cnt[M.NO_LINES] + I.ol_cnt
    cnt[M.NO_REMOTE] = cnt[M.NO_REMOTE] + I.remote
  elseif ty == M.P then
    if I.remote then cnt[M.P_REMOTE] = cnt[M.P_REMOTE] + 1 end
    if I.by_name then cnt[M.P_BYNAME] = cnt[M.P_BYNAME] + 1 end
  elseif ty == M.OS then
    if I.by_name then cnt[M.OS_BYNAME] = cnt[M.OS_BYNAME] + 1 end
  elseif ty == M.D then
    cnt[M.D_SKIPPED] = cnt[M.D_SKIPPED] + (I.skipped or 0)
    if outcome == "c" then C.sb_shared_add(common.SLOT.DELIVERED, 1) end
  elseif ty == M.PURGE then
    C.sb_shared_add(common.SLOT.PURGED, 1)
  end
  for id, n in pairs(S.codes) do
    cnt_inc(M.ck(id, ty, 1), n)
    S.codes[id] = nil
  end
end

local RESTART = { errcode = sysbench.error.RESTART_EVENT }

-- Runs one transaction of type ty: inputs drawn once, replayed on a retry.
local function run_type(ty)
  sb_event_type(M.NAMES[ty])
  use_ctx(S.ctx_of[ty] or S.ctx_main)
  local I = S.inputs[ty]
  GEN[ty](I)
  S.cur_set = I.set
  local tx = S.TX[M.NAMES[ty]]
  local c = S.c
  local attempts = 0
  while true do
    S.cnt[ty * 16 + M.ATT] = S.cnt[ty * 16 + M.ATT] + 1
    local ok, res = pcall(tx, S, I)
    if ok then
      account(ty, I, res)
      return
    end
    if type(res) ~= "table" or not res.sql then
      S.in_trx = false
      error(res, 0)
    end
    local e = res
    if not retryable(e) then
      -- fatal (sysbench semantics): print it and stop the thread
      C.db_print_error(S.con)
      rollback_after(e)
      error(string.format("SQL error, errno = %d, state = '%s': %s", e.errno, e.state, e.msg), 0)
    end
    if e.class ~= 1 then C.sb_counter_inc(S.tid, C.SB_CNT_ERROR) end
    rollback_after(e)
    local id = code_id(e.code)
    if id >= 0 then cnt_inc(M.ck(id, ty, 0)) end
    if c.retry and (c.retry_max == 0 or attempts < c.retry_max) and not C.sb_engine_stopping() then
      attempts = attempts + 1
      S.cnt[ty * 16 + M.RETRY] = S.cnt[ty * 16 + M.RETRY] + 1
      if id >= 0 then S.codes[id] = (S.codes[id] or 0) + 1 end
    else
      -- abandoned: with --trx-retry=on it gave up, otherwise the error is
      -- ignored; either way the event restarts with a new transaction of
      -- the same type (sysbench semantics: the event counts once)
      S.cnt[ty * 16 + (c.retry and M.GAVEUP or M.IGNORED)] =
        S.cnt[ty * 16 + (c.retry and M.GAVEUP or M.IGNORED)] + 1
      if id >= 0 then cnt_inc(M.ck(id, ty, 2)) end
      for k in pairs(S.codes) do S.codes[k] = nil end
      S.retype = ty
      error(RESTART, 0)
    end
  end
end

-- One event = one business transaction. Returns true (the event is not
-- counted and the thread stops) when the run ended while a transaction
-- was being given up or restarted: it never completed.
function M.event()
  local ty = S.retype
  if ty then
    S.retype = nil
    if C.sb_engine_stopping() then return true end
  else
    ty = next_type()
  end
  run_type(ty)
end

-- With --keying-thinking=on: key, execute (measured), think, per type;
-- the waits go through sysbench.sleep and are outside the latency.
function M.thread_run_kt(tid)
  local more, start, stop = C.sb_more_events, C.sb_event_start, C.sb_event_stop
  local scale = S.c.kt_scale
  local now = common.now_ms
  while more(tid) do
    local ty = next_type()
    local t0 = now()
    if not sysbench.sleep(M.KEYING[ty] * scale) then break end
    local t1 = now()
    start(tid)
    while true do
      local ok, err = pcall(run_type, ty)
      if ok then break end
      if type(err) == "table" and err.errcode == sysbench.error.RESTART_EVENT then
        C.sb_event_restarted(tid)
        S.retype = nil
        -- never completed: not counted (as the core loop does)
        if C.sb_engine_stopping() then return end
      else
        error(err, 0)
      end
    end
    stop(tid)
    local think = tonumber(C.sb_tpcc_think_ms(S.rng, M.THINK[ty] * 1000 * scale)) / 1000
    local t2 = now()
    local full = sysbench.sleep(think)
    local t3 = now()
    local cnt = S.cnt
    cnt[ty * 16 + M.KEY_MS] = cnt[ty * 16 + M.KEY_MS] + math.floor(t1 - t0 + 0.5)
    if full then
      cnt[ty * 16 + M.THINK_MS] = cnt[ty * 16 + M.THINK_MS] + math.floor(t3 - t2 + 0.5)
      cnt[ty * 16 + M.KT_N] = cnt[ty * 16 + M.KT_N] + 1
    else
      break
    end
  end
end

-- ---- init (global state) -------------------------------------------------------------------

-- Draws (or takes from --nurand-c) the run's NURand constants and stores
-- them for the sessions. Returns C_LAST_RUN, C_ID, C_OL_I_ID.
local function run_constants(c, c_load)
  local r = ffi.new("sb_rand_stream_t")
  C.sb_tpcc_seed(r, C.sb_tpcc_run_seed(), 0x4352554e, 0, 0, 0)   -- "CRUN"
  local last, id, item
  if c.nurand_c then
    last, id, item = c.nurand_c[1], c.nurand_c[2], c.nurand_c[3]
    if c_load and not C.sb_tpcc_c_delta_ok(c_load, last) then
      print(string.format("WARNING: --nurand-c: C_LAST %d against C_LOAD %d breaks the delta rule " ..
                            "of TPC-C 2.1.6.1 (|C_RUN-C_LOAD| in 65..119, not 96 or 112)",
                          last, c_load))
    end
  else
    last = tonumber(C.sb_tpcc_c_run(r, c_load or 0))
    id = tonumber(C.sb_tpcc_rand(r, 0, 1023))
    item = tonumber(C.sb_tpcc_rand(r, 0, 8191))
  end
  C.sb_shared_set(SLOT_C_LAST, last)
  C.sb_shared_set(SLOT_C_ID, id)
  C.sb_shared_set(SLOT_C_ITEM, item)
  C.sb_shared_set(SLOT_C_LOAD, c_load or -1)
  return last, id, item
end

-- Checks the schema against the options (the choices prepare recorded).
-- Returns tpcc_meta (nil for a schema sysbench-tpcc built).
function M.check_schema(con, c, command)
  if common.count_tables(con, c) == 0 then
    common.fail("no tpcc tables in %s: run `bmk tpcc ... prepare` first",
                c.pg and ("schema " .. c.schema) or "the database")
  end
  for n = 1, c.tables do
    for _, t in ipairs(common.TABLES) do
      if not common.table_exists(con, c, t .. n) then
        common.fail("table %s%d does not exist: the schema has fewer sets than --tables=%d",
                    t, n, c.tables)
      end
    end
  end
  local meta = common.read_meta(con, c)
  if meta == nil then
    print("WARNING: no tpcc_meta table (schema not prepared by bmk, e.g. by sysbench-tpcc): " ..
            "--scale and --tables are taken from the options, the NULL variant is assumed and " ..
            "C_LOAD is unknown")
    if not c.null_variant then
      common.fail("--force-null=0 (the DEFAULT variant) contradicts a schema without tpcc_meta, " ..
                    "which is assumed to be the NULL variant")
    end
    return nil
  end
  if meta.state ~= "complete" then
    common.fail("the tpcc schema is not completely prepared (state '%s'): run prepare --resume",
                tostring(meta.state))
  end
  if tonumber(meta.scale) ~= c.scale or tonumber(meta.tables) ~= c.tables then
    common.fail("the schema was prepared with --tables=%s --scale=%s; %s needs the same " ..
                  "(got --tables=%d --scale=%d)", meta.tables, meta.scale, command, c.tables, c.scale)
  end
  local schema_null = tonumber(meta.null_variant) == 1
  if schema_null ~= c.null_variant then
    common.fail("variant mismatch: the schema is the %s variant (prepared with --force-null=%d%s) " ..
                  "but this %s uses --force-null=%d%s; use the variant the schema was prepared with",
                schema_null and "NULL" or "DEFAULT", schema_null and 1 or 0,
                schema_null and ", a -NULL kit name" or ", a kit name without -NULL",
                command, c.null_variant and 1 or 0,
                c.null_variant and " (a -NULL kit name)" or " (a kit name without -NULL)")
  end
  return meta
end

function M.init()
  if C.sb_retry_max_tries() >= 0 then
    -- its own retries replay a transaction with its inputs; the core's
    -- would replay the whole event on top of them
    common.fail("--max-tries does not apply to tpcc, which retries its transactions itself: " ..
                  "give --trx-retry=on and --trx-retry-max=N instead (docs/tpcc.md)")
  end
  local c = common.config()
  local con = common.monitor(c)
  local meta = M.check_schema(con, c, "run")
  local impl = require(modes[c.mode])
  if impl.check_ready then impl.check_ready(con, c, meta) end
  local c_load = meta and tonumber(meta.c_load)
  local last, id, item = run_constants(c, c_load)
  M.mon = { con = con, c = c, meta = meta, c_load = c_load, c_last = last, c_id = id,
            c_item = item }
  if c.pg and c.trx_level ~= "RC" and not c.retry then
    print("WARNING: PostgreSQL at " .. c.trx_level .. " without --trx-retry=on: serialization " ..
            "failures (40001) will be counted as ignored errors")
  end
  if c.pg and c.force_primary then
    print("NOTICE: --force-primary is a MySQL index hint; ignored on PostgreSQL")
  end
  if c.tpcc_report ~= "" and (tonumber(sysbench.opt.report_interval) or 0) <= 0 then
    print("WARNING: --tpcc-report writes one row per --report-interval; none is set, so the " ..
            "file gets no rows")
  end
  require("tpcc_report").banner(M.mon)
end

return M
