-- bmk bundled workload: DBL, database load tests (Benchware's "Database
-- Load (DBL) Performance Tests"; docs/capacity.md "DBL load tests").
--
-- Each job (thread) inserts --rows rows into one table, --tx-size rows per
-- transaction (0 = one COMMIT after the job's whole load), with one of
-- three load methods: single-row INSERT, multi-row INSERT, or the fast
-- path (PostgreSQL COPY FROM STDIN, MariaDB/MySQL LOAD DATA LOCAL INFILE).
-- An event is one transaction, so the report's transactions are the
-- COMMITs. Workload metrics (sysbench.metric) count rows, statements,
-- statement time and commit time; per interval and at the end the script
-- prints rows/s, transactions/s and the SQL service time per statement and
-- per commit; the server-side block adds the redo/WAL figures.
--
-- Table (--table-name, default dbl), --row-bytes data bytes per row:
--   id     BIGINT NOT NULL PRIMARY KEY   8 bytes: job * rows + n
--   job    INTEGER NOT NULL              4 bytes: the job (0-based thread)
--   n      INTEGER NOT NULL              4 bytes: row number in the job, 1..rows
--   filler VARCHAR(row_bytes - 16)       the rest: ASCII letters and digits
-- Row contents depend only on (job, n): every load method loads the same
-- bytes.

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, run, cleanup, help")
end

sysbench.cmdline.options = {
  tx_size = {"Rows per transaction (a COMMIT after every N rows); 0 = one " ..
               "COMMIT after the job's whole load (bulk load)", 1},
  rows = {"Rows each job (thread) loads", 10000},
  row_bytes = {"Data bytes per row (id 8 + job 4 + n 4 + filler), at least 16", 100},
  load_method = {"How rows are sent: insert (one row per INSERT), multi " ..
                   "(multi-row INSERT), copy (PostgreSQL COPY FROM STDIN, " ..
                   "MySQL LOAD DATA LOCAL INFILE)", "insert"},
  batch_rows = {"Rows per statement at most with --load-method=multi or copy " ..
                  "(a transaction's rows are split into statements of this size)", 1000},
  table_name = {"Table the jobs load", "dbl"},
  create_table_options = {"Extra CREATE TABLE options", ""},
}

local ffi = require("ffi")
ffi.cdef[[
struct dbl_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clk, struct dbl_timespec *ts);
bool sb_engine_stopping(void);
]]
local C = ffi.C
local ts = ffi.new("struct dbl_timespec")

-- Monotonic clock in microseconds (CLOCK_MONOTONIC = 1).
local function now_us()
  C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end

-- Workload metrics: sums, service times are time / count.
local m_rows = sysbench.metric("rows")
local m_stmts = sysbench.metric("statements")
local m_stmt_us = sysbench.metric("statement_time_us")
local m_commits = sysbench.metric("commits")
local m_commit_us = sysbench.metric("commit_time_us")

-- One FATAL line and exit 1 (bad options, wrong table state).
local function fatal(msg)
  print("FATAL: dbl: " .. msg)
  io.stdout:flush()
  os.exit(1)
end

local function int_opt(name, min, what)
  local v = sysbench.opt[name]
  local flag = "--" .. name:gsub("_", "-")
  if type(v) ~= "number" or v ~= math.floor(v) or v < min or v > 2^31 - 1 then
    local given = v
    for i = 1, #sysbench.cmdline.argv do
      local a = sysbench.cmdline.argv[i]
      local val = a:match("^%-%-" .. name:gsub("_", "[-_]") .. "=(.*)$")
      if val then given = val end
    end
    fatal(string.format("%s must be an integer >= %d (%s), got '%s'", flag, min, what,
                        tostring(given)))
  end
  return v
end

-- Validated options (every command checks them first).
local cfg
local function options()
  if cfg then
    return cfg
  end
  local o = sysbench.opt
  cfg = {
    tx = int_opt("tx_size", 0, "rows per transaction; 0 = one commit after the whole load"),
    rows = int_opt("rows", 1, "rows per job"),
    row_bytes = int_opt("row_bytes", 16, "data bytes per row: 16 for id, job and n, the rest filler"),
    batch = int_opt("batch_rows", 1, "rows per statement"),
    method = o.load_method,
    table = o.table_name,
  }
  if cfg.method ~= "insert" and cfg.method ~= "multi" and cfg.method ~= "copy" then
    fatal(string.format("--load-method must be insert, multi or copy, got '%s'",
                        tostring(cfg.method)))
  end
  if type(cfg.table) ~= "string" or not cfg.table:match("^[%a_][%w_]*$") then
    fatal(string.format("--table-name must be a plain SQL name (letters, digits, _), got '%s'",
                        tostring(cfg.table)))
  end
  if o.threads * cfg.rows > 2^53 then
    fatal("--threads x --rows is too large for the table's ids")
  end
  cfg.filler = cfg.row_bytes - 16
  return cfg
end

-- ---- data ------------------------------------------------------------------------

-- A fixed block of letters and digits (the same in every run and thread);
-- a row's filler is a slice of it chosen by the row's id.
local BLOCK = 65536
local block
local function filler_block(len)
  if block == nil or #block < BLOCK + len then
    local chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    local t, x = {}, 12345
    for i = 1, BLOCK + len do
      x = (x * 1103515245 + 12345) % 2147483648
      local k = math.floor(x / 65536) % 62 + 1
      t[i] = chars:sub(k, k)
    end
    block = table.concat(t)
  end
  return block
end

local function filler(id, len)
  local off = (id * 40503) % BLOCK
  return block:sub(off + 1, off + len)
end

-- ---- commands ------------------------------------------------------------------

local function is_pg()
  return sysbench.sql.driver():name() == "pgsql"
end

-- Whether the table exists, and its filler width (nil if unknown).
local function table_info(con, name)
  local sql
  if is_pg() then
    sql = string.format("SELECT character_maximum_length FROM information_schema.columns " ..
                          "WHERE table_schema = current_schema() AND table_name = '%s' " ..
                          "AND column_name = 'filler'", name:lower())
  else
    sql = string.format("SELECT character_maximum_length FROM information_schema.columns " ..
                          "WHERE table_schema = DATABASE() AND table_name = '%s' " ..
                          "AND column_name = 'filler'", name)
  end
  local rs = con:query(sql)
  local row = rs and rs:fetch_row()
  if row == nil then
    return false
  end
  return true, tonumber(row[1])
end

function prepare()
  local c = options()
  local con = sysbench.sql.driver():connect()
  if table_info(con, c.table) then
    fatal(string.format("table '%s' already exists: run 'bmk dbl cleanup' first", c.table))
  end
  local width = math.max(c.filler, 1)
  print(string.format("Creating table '%s' (%d data bytes per row: id, job, n, filler " ..
                        "VARCHAR(%d))...", c.table, c.row_bytes, width))
  con:query(string.format([[
CREATE TABLE %s (
  id BIGINT NOT NULL,
  job INTEGER NOT NULL,
  n INTEGER NOT NULL,
  filler VARCHAR(%d) NOT NULL,
  PRIMARY KEY (id)
) %s]], c.table, width, sysbench.opt.create_table_options))
  con:disconnect()
end

function cleanup()
  local c = options()
  local con = sysbench.sql.driver():connect()
  print(string.format("Dropping table '%s'...", c.table))
  con:query("DROP TABLE IF EXISTS " .. c.table)
  con:disconnect()
end

-- run: the table must exist, be empty and fit --row-bytes.
function init()
  local c = options()
  local con = sysbench.sql.driver():connect()
  local exists, width = table_info(con, c.table)
  if not exists then
    fatal(string.format("table '%s' does not exist: run 'bmk dbl prepare' first", c.table))
  end
  if width and width ~= math.max(c.filler, 1) then
    fatal(string.format("table '%s' was prepared for --row-bytes=%d: run with that value, " ..
                          "or cleanup and prepare again", c.table, width + 16))
  end
  if con:query_row(string.format("SELECT 1 FROM %s LIMIT 1", c.table)) then
    fatal(string.format("table '%s' already holds rows (an earlier run?): run 'bmk dbl " ..
                          "cleanup' and 'bmk dbl prepare' before each run", c.table))
  end
  con:disconnect()
  -- The core's default --time=10 would cut a load short: say so.
  local time_given = false
  for i = 1, #sysbench.cmdline.argv do
    if sysbench.cmdline.argv[i]:match("^%-%-max[-_]time=") or
       sysbench.cmdline.argv[i]:match("^%-%-time=") then
      time_given = true
    end
  end
  if not time_given and (sysbench.opt.time or 0) > 0 then
    print(string.format("dbl: note: the default --time=%d stops the jobs after %d s even " ..
                          "when they have not loaded --rows=%d rows; --time=0 lets every " ..
                          "job finish", sysbench.opt.time, sysbench.opt.time, c.rows))
  end
end

-- ---- worker ---------------------------------------------------------------------

local con, st_begin, st_commit, st_insert, ins_p
local job, nextn            -- this job, and the first row not yet committed

function thread_init()
  local c = options()
  filler_block(c.filler)
  con = sysbench.sql.driver():connect()
  st_begin = con:prepare("BEGIN")
  st_commit = con:prepare("COMMIT")
  if c.method == "insert" then
    local T = sysbench.sql.type
    st_insert = con:prepare(string.format(
      "INSERT INTO %s (id, job, n, filler) VALUES (?, ?, ?, ?)", c.table))
    ins_p = { st_insert:bind_create(T.BIGINT), st_insert:bind_create(T.INT),
              st_insert:bind_create(T.INT), st_insert:bind_create(T.VARCHAR, math.max(c.filler, 1)) }
    st_insert:bind_param(unpack(ins_p))
  end
  job = sysbench.tid
  nextn = 1
end

function thread_done()
  st_begin:close()
  st_commit:close()
  if st_insert then
    st_insert:close()
  end
  con:disconnect()
end

-- Counts one statement of `rows` rows that took `us` microseconds.
local function counted(rows, us)
  m_rows:add(rows)
  m_stmts:add(1)
  m_stmt_us:add(us)
end

-- Sends rows n1..n2 of this job: one statement per row (insert) or per
-- --batch-rows rows (multi, copy). Row texts are built before each
-- statement's clock starts: the service time is the database's.
local function send_insert(c, n1, n2)
  local base = job * c.rows
  for n = n1, n2 do
    local id = base + n
    ins_p[1]:set(id)
    ins_p[2]:set(job)
    ins_p[3]:set(n)
    ins_p[4]:set(filler(id, c.filler))
    local t0 = now_us()
    st_insert:execute()
    counted(1, now_us() - t0)
  end
end

local function send_multi(c, n1, n2)
  local base = job * c.rows
  local prefix = "INSERT INTO " .. c.table .. " (id, job, n, filler) VALUES "
  local vals = {}
  for n = n1, n2 do
    local id = base + n
    vals[#vals + 1] = string.format("(%d,%d,%d,'%s')", id, job, n, filler(id, c.filler))
  end
  local sql = prefix .. table.concat(vals, ",")
  local t0 = now_us()
  con:query(sql)
  counted(n2 - n1 + 1, now_us() - t0)
end

local cols = {"id", "job", "n", "filler"}

local function send_copy(c, n1, n2)
  local base = job * c.rows
  local lines = {}
  for n = n1, n2 do
    local id = base + n
    -- letters and digits only: nothing to escape
    lines[#lines + 1] = string.format("%d\t%d\t%d\t%s\n", id, job, n, filler(id, c.filler))
  end
  local text = table.concat(lines)
  local t0 = now_us()
  local ld = con:load_start(c.table, cols)
  ld:rows(text)
  local rows, stmts = ld:finish()
  local us = now_us() - t0
  m_rows:add(rows)
  m_stmts:add(stmts)
  m_stmt_us:add(us)
end

local senders = { insert = send_insert, multi = send_multi, copy = send_copy }

-- One transaction: rows n1..n2 in statements, then COMMIT. With
-- --tx-size=0 the whole job is one transaction; it ends early (and commits
-- what it loaded) when the run is stopping (--time).
function event()
  local c = cfg
  if nextn > c.rows then
    return true            -- the job is done: stop this thread
  end
  local last = c.tx > 0 and math.min(nextn + c.tx - 1, c.rows) or c.rows
  local send = senders[c.method]
  local step = c.batch
  st_begin:execute()
  local n = nextn
  while n <= last do
    local batch_end = math.min(n + step - 1, last)
    send(c, n, batch_end)
    n = batch_end + 1
    if c.tx == 0 and n <= last and C.sb_engine_stopping() then
      break
    end
  end
  local t0 = now_us()
  st_commit:execute()
  m_commit_us:add(now_us() - t0)
  m_commits:add(1)
  -- a restarted transaction (ignorable error) starts again at nextn
  nextn = n
end

-- ---- reports --------------------------------------------------------------------

-- rows/s, transactions/s and service times (ms) of a stat's metrics.
local function dbl_figures(stat, seconds)
  local m = stat.metrics or {}
  local function per(a, b)
    return (b or 0) > 0 and (a or 0) / b or 0
  end
  return per(m.rows, seconds), per(m.commits, seconds),
         per(m.statement_time_us, m.statements) / 1000, per(m.commit_time_us, m.commits) / 1000
end

function sysbench.hooks.report_intermediate(stat)
  sysbench.report_default(stat)
  local rps, tps, stmt_ms, commit_ms = dbl_figures(stat, stat.time_interval)
  print(string.format("[ %.0fs ] dbl: rows/s: %.2f trx/s: %.2f service time (ms): " ..
                        "statement %.3f commit %.3f",
                      stat.time_total, rps, tps, stmt_ms, commit_ms))
end

function sysbench.hooks.report_final(stat)
  local c = options()
  local rps, tps, stmt_ms, commit_ms = dbl_figures(stat, stat.time_total)
  local m = stat.metrics or {}
  print(string.format("DBL load (%s, %s, %d job(s) x %d rows of %d bytes):", c.method,
                      c.tx > 0 and (c.tx .. " row(s) per transaction") or
                        "one transaction per job", stat.threads, c.rows, c.row_bytes))
  local function line(label, fmt, v)
    print(string.format("    %-38s " .. fmt, label .. ":", v))
  end
  line("rows", "%d", m.rows or 0)
  line("rows/s", "%.2f", rps)
  line("transactions/s", "%.2f", tps)
  line("SQL service time per statement (ms)", "%.3f", stmt_ms)
  line("SQL service time per commit (ms)", "%.3f", commit_ms)
  line("elapsed time (s)", "%.3f", stat.time_total)
  print("")
end
