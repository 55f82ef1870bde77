-- bmk kit, dbSTRESS: options and the helpers shared by the load and run
-- parts (docs/kit-dbstress.md).
--
-- Module state is per Lua state: every worker re-runs the script, so
-- nothing here is shared between threads.

-- session options, usleep() and the CSV report switches, as in kit_oltp
local mc = require("mysql_common")

local M = {}

local ARG_INT = sysbench.cmdline.ARG_INT

-- Option table of the workload (plus the kit's shared interface).
M.options = {
  obj_table_size = {"Number of OBJECTs per set; HISTORY holds 20 rows per OBJECT",
                    1000000, ARG_INT},
  obj_tables = {"Number of table sets (ZONE, STAT, SECTION, OBJECT, HISTORY)",
                1, ARG_INT},
  mysql_storage_engine = {"Storage engine of the tables (MySQL)", "InnoDB"},
  mysql_table_options = {"Text appended after the ENGINE clause (MySQL)", ""},
  mysql_table_compression = {"Appends compression='<x>' to CREATE TABLE (MySQL)", ""},
  mysql_session_options = {"';'-separated statements run on every new connection " ..
                             "(MySQL); default: $MYSQL_SESSION_OPTIONS", ""},
  pgsql_session_options = {"';'-separated statements run on every new connection " ..
                             "(PostgreSQL); default: $PGSQL_SESSION_OPTIONS", ""},
  ordered_load = {"Loader threads of one set take interleaved 100-object blocks", false},
  SEL1 = {"SEL1 queries (OBJECT+SECTION+ZONE join, 1 row) per event", 1, ARG_INT},
  SEL2 = {"SEL2 queries (HISTORY+STAT join, 20 rows) per event", 1, ARG_INT},
  updates = {"HISTORY UPDATEs per write event", 1, ARG_INT},
  delete_inserts = {"HISTORY DELETE+INSERT pairs per write event", 1, ARG_INT},
  rw_ratio = {"Writes run on one event in N of each thread (values < 1 mean 1)",
              1, ARG_INT},
  hpk = {"Make the HISTORY (ref_object, horder) index unique (InnoDB clustered key)", false},
  anti_dead = {"Each thread draws REFs inside its own slice of OBJECT (no deadlocks)", true},
  same_ref = {"One (set, REF) per event for the first query of every group", true},
  skip_trx = {"Run in autocommit mode: no BEGIN/COMMIT around an event", false},
  for_update = {"Append FOR UPDATE to SEL1 and SEL2", false},
  mysql_check_charset = {"Thread 0 prints the connection's character-set variables (MySQL)",
                         false},
  opt_debug = {"Thread 0 prints every workload option", false},
  thread_offset = {"Global id of this process's first thread (multi-process runs)",
                   0, ARG_INT},
  threads_total = {"Threads over all processes; 0 means --threads", 0, ARG_INT},
  statements = {"Statement classes of an event: SEL1,SEL2,INSDEL,UPDATE; empty = all", ""},
}

-- Options that mean something to MySQL only, as spelled on the command line.
local MYSQL_ONLY = {"mysql_storage_engine", "mysql_table_options",
                    "mysql_table_compression", "mysql_session_options",
                    "mysql_check_charset"}

local CLASSES = {"SEL1", "SEL2", "INSDEL", "UPDATE"}

-- is_pg(drv): true when `drv` (a sysbench.sql driver) is PostgreSQL.
function M.is_pg(drv)
  return drv:name() == "pgsql"
end

-- threads_total(): U, the thread count over all processes.
function M.threads_total()
  local u = sysbench.opt.threads_total
  if u == nil or u <= 0 then
    u = sysbench.opt.threads
  end
  return u
end

-- gid(): the global id g of the calling thread (--thread-offset + tid).
function M.gid()
  return sysbench.opt.thread_offset + sysbench.tid
end

-- statement_classes(): set of the classes named by --statements
-- ({SEL1=true, ...}); all four when the option is empty. Errors on an
-- unknown class name.
function M.statement_classes()
  local text = sysbench.opt.statements or ""
  local set = {}
  if text:match("^%s*$") then
    for _, c in ipairs(CLASSES) do set[c] = true end
    return set
  end
  for item in text:gmatch("[^,]+") do
    local name = item:match("^%s*(.-)%s*$"):upper()
    local known = false
    for _, c in ipairs(CLASSES) do
      if c == name then known = true end
    end
    if not known then
      error(string.format("invalid --statements item '%s' (expected a comma " ..
                            "list of SEL1,SEL2,INSDEL,UPDATE)", item), 0)
    end
    set[name] = true
  end
  return set
end

-- config(): validates the options and returns the effective event plan
-- {sel1, sel2, insdel, updates = statements per event (0 = class off),
-- rw = rw-ratio >= 1, trx = BEGIN/COMMIT on, sets, size, U, g}.
-- Raises an error message (no position) when an option is invalid.
function M.config()
  local o = sysbench.opt
  if o.obj_table_size < 1 then
    error("--obj-table-size must be >= 1", 0)
  end
  if o.obj_tables < 1 then
    error("--obj-tables must be >= 1", 0)
  end
  for _, name in ipairs({"SEL1", "SEL2", "updates", "delete_inserts"}) do
    if o[name] < 0 then
      error(string.format("--%s must be >= 0", name:gsub("_", "-")), 0)
    end
  end
  local U = M.threads_total()
  if o.thread_offset < 0 or o.thread_offset + o.threads > U then
    error(string.format("--thread-offset (%d) + --threads (%d) exceeds " ..
                          "--threads-total (%d)", o.thread_offset, o.threads, U), 0)
  end
  local cls = M.statement_classes()
  return {
    sel1 = cls.SEL1 and o.SEL1 or 0,
    sel2 = cls.SEL2 and o.SEL2 or 0,
    insdel = cls.INSDEL and o.delete_inserts or 0,
    updates = cls.UPDATE and o.updates or 0,
    rw = o.rw_ratio < 1 and 1 or o.rw_ratio,
    trx = not o.skip_trx,
    sets = o.obj_tables,
    size = o.obj_table_size,
    U = U,
    g = M.gid(),
  }
end

-- session_options(drv): the session statements' text for this driver,
-- from the option or, when empty, from MYSQL_SESSION_OPTIONS /
-- PGSQL_SESSION_OPTIONS.
function M.session_options(drv)
  return mc.session_text(M.is_pg(drv))
end

-- apply_session(con, drv): runs each ';'-separated session statement on
-- the connection `con` (a new or re-established one).
function M.apply_session(con, drv)
  for _, q in ipairs(mc.split(M.session_options(drv), ";")) do
    con:query(q)
  end
end

-- mysql_only_notices(drv): on PostgreSQL, prints `=> --<option> ignored on
-- PostgreSQL` once per MySQL-only option that was given or changed.
function M.mysql_only_notices(drv)
  if not M.is_pg(drv) then
    return
  end
  for _, name in ipairs(MYSQL_ONLY) do
    if mc.given(name) ~= nil or sysbench.opt[name] ~= M.options[name][2] then
      print(string.format("=> --%s ignored on PostgreSQL", (name:gsub("_", "-"))))
    end
  end
end

-- print_options(): --opt-debug, one `   opt: <name> : <value>` line per
-- workload option, sorted by name.
function M.print_options()
  mc.print_options(M.options)
end

-- now(): monotonic time in seconds (fractional).
M.now = mc.now

-- millions(n): n / 1e6 as the kit prints sizes (`10`, `0.005`).
function M.millions(n)
  return string.format("%g", n / 1e6)
end

-- ref(i): the OBJECT reference of object number i, `%010d`.
function M.ref(i)
  return string.format("%010d", i)
end

-- date(d): the `DD/MM/19YY` string of day number d.
function M.date(d)
  return string.format("%02d/%02d/19%02d", d % 28 + 1, d % 12 + 1, d % 100)
end

-- table_names(n): the five tables of set n, in creation order.
function M.table_names(n)
  return {"ZONE" .. n, "STAT" .. n, "SECTION" .. n, "OBJECT" .. n, "HISTORY" .. n}
end

return M
