-- bmk kit: from a resolved name, the .bench configuration and the script's
-- arguments to the bmk command lines (docs/kit.md).

local names = require("bmk.kit.names")

local M = {}

-- Statement classes of kit_oltp.lua in their fixed in-event order, with
-- the count option of each.
local CLASS_ORDER = {
  { "point", "--point-selects" }, { "simple", "--simple-ranges" },
  { "sum", "--sum-ranges" }, { "order", "--order-ranges" },
  { "distinct", "--distinct-ranges" }, { "index_update", "--index-updates" },
  { "non_index_update", "--non-index-updates" },
  { "delete_insert", "--delete-inserts" }, { "inserts", "--inserts-only" },
}
local RO_MIX = "point,simple,sum,order,distinct"
local RW_MIX = RO_MIX .. ",index_update,non_index_update,delete_insert"

-- The workload script of a family: $BMK_HOME/sb_exec/lua/kit_*.lua (or,
-- for a home without sb_exec/lua/, the same file of the kit bmk ships
-- with: b.kit_lua, bench.load), or the built-in `tpcc` or `tpch`. BMK_KIT_WORKLOAD
-- (test hook) replaces the OLTP and dbSTRESS script with another path,
-- options unchanged.
function M.workload(spec, b)
  if spec.family == "tpcc" or spec.family == "tpch" then return spec.family end
  local hook = os.getenv("BMK_KIT_WORKLOAD")
  if hook and hook ~= "" then return hook end
  local f = spec.family == "oltp" and "kit_oltp.lua" or "kit_dbstress.lua"
  return (b.kit_lua or b.BMK_HOME .. "/sb_exec/lua") .. "/" .. f
end

-- Connection options. PostgreSQL socket names use the socket
-- directory as host.
function M.connection(spec, b)
  if b.driver == "pgsql" then
    return { "--db-driver=pgsql",
      "--pgsql-host=" .. (spec.socket and b.pg_socket or b.pg_host),
      "--pgsql-port=" .. b.pg_port, "--pgsql-user=" .. b.pg_user,
      "--pgsql-db=" .. b.pg_db, "--pgsql-sslmode=" .. b.pg_sslmode }
  end
  local o = { "--db-driver=mysql" }
  if spec.socket then
    o[#o + 1] = "--mysql-socket=" .. b.socket
  else
    o[#o + 1] = "--mysql-host=" .. b.host
    o[#o + 1] = "--mysql-port=" .. b.port
  end
  o[#o + 1] = "--mysql-user=" .. b.user
  o[#o + 1] = "--mysql-db=" .. b.db
  o[#o + 1] = "--mysql-ssl=disabled"
  return o
end

-- OLTP statement options from the query-set tokens.
local function oltp_statements(spec, o)
  local counts, ranges = {}, {}
  for _, q in ipairs(spec.qsets) do
    local def = names.QSETS[q.name]
    if def.option then
      ranges[#ranges + 1] = def.option .. "=" .. q.count
    else
      for _, cls in ipairs(def.classes) do
        if counts[cls] then
          return nil, "'" .. q.token .. "' repeats a statement class of another query set"
        end
        counts[cls] = q.count
      end
    end
  end
  if spec.reconnect and not counts.point then counts.point = 1 end
  local list = {}
  for _, c in ipairs(CLASS_ORDER) do
    if counts[c[1]] then list[#list + 1] = c[1] end
  end
  if #list == 0 then
    o[#o + 1] = "--statements=" .. (spec.mode == "RO" and RO_MIX or RW_MIX)
  else
    o[#o + 1] = "--statements=" .. table.concat(list, ",")
    for _, c in ipairs(CLASS_ORDER) do
      if counts[c[1]] then o[#o + 1] = c[2] .. "=" .. counts[c[1]] end
    end
  end
  for _, r in ipairs(ranges) do o[#o + 1] = r end
  if spec.reconnect then o[#o + 1] = "--reconnect-event=on" end
  return o
end

-- Options implied by the name (data set, mix, access pattern), in the
-- order `bmk kit explain` shows them. Returns list or nil, reason.
function M.name_options(spec, b)
  local o = {}
  local add = function(x) o[#o + 1] = x end
  -- The data set.
  if spec.family == "oltp" then
    add("--auto-inc=on")
    add("--table-size=" .. spec.rows)
    add("--tables=" .. spec.tables)
  elseif spec.family == "dbstress" then
    add("--db-ps-mode=auto")
    add("--obj-table-size=" .. spec.obj_size)
    add("--obj-tables=" .. spec.obj_tables)
    if spec.hpk then add("--hpk=on") end
  elseif spec.family == "tpch" then
    add("--scale=" .. spec.tpch_sf)
  else -- TPCC: <n>W or <n>x<m>W
    add("--tables=" .. spec.tpcc_tables)
    add("--scale=" .. spec.tpcc_scale)
    add("--force-null=" .. (spec.null and 1 or 0))
  end
  if spec.prepare then
    -- The engine is MySQL's; tpcc spells its option with underscores.
    if spec.engine and b.driver ~= "pgsql" then
      add((spec.family == "tpcc" and "--mysql_storage_engine=" or "--mysql-storage-engine=")
        .. spec.engine)
    end
    if spec.family == "tpcc" then
      add("--use-fk=" .. (spec.nofk == "NoFK" and 0 or spec.nofk == "NoFK2" and 2 or 1))
    end
    return o
  end
  if spec.family == "tpcc" then return o end
  if spec.family == "tpch" then
    add("--tpch-test=" .. spec.tpch_test.test)
    if spec.tpch_test.streams then add("--streams=" .. spec.tpch_test.streams) end
    return o
  end
  -- The run: access pattern, transactions, statements.
  add("--rand-type=" .. spec.dist)
  if spec.family == "oltp" then
    add("--db-ps-mode=" .. (spec.ps and "auto" or "disable"))
    add("--skip-trx=" .. (spec.trx and "off" or "on"))
    return oltp_statements(spec, o)
  end
  add("--skip-trx=" .. (spec.trx and "off" or "on"))
  local d = spec.dmode
  if d.kind == "RO" then
    add("--statements=" .. (d.sel or "SEL1,SEL2"))
  elseif d.upd then
    add("--statements=SEL1,SEL2,UPDATE")
    add("--delete-inserts=0")
    add("--rw-ratio=" .. d.ratio)
  else
    add("--statements=SEL1,SEL2,INSDEL,UPDATE")
    add("--rw-ratio=" .. d.ratio)
  end
  if spec.xdead then add("--anti-dead=off") end
  if spec.xref then add("--same-ref=off") end
  return o
end

-- True if `s` is a decimal integer >= 1.
local function is_uint(s)
  return s ~= nil and s:match("^%d+$") and tonumber(s) >= 1
end

-- Splits extra options into those passed on argv and the passwords moved
-- to the environment (never on a command line).
local function extract_passwords(extra, env)
  local out = {}
  for _, a in ipairs(extra) do
    local k, v = a:match("^%-%-(%a+)[-_]password=(.*)$")
    if k == "mysql" then env.MYSQL_PWD = v
    elseif k == "pgsql" then env.PGPASSWORD = v
    else out[#out + 1] = a end
  end
  return out
end

-- The value of an extra option given as --name=value (last wins), or nil.
function M.extra_value(extra, opt)
  local v
  for _, a in ipairs(extra) do
    local k, val = a:match("^%-%-([%w_-]+)=(.*)$")
    if k and k:gsub("_", "-") == opt then v = val end
  end
  return v
end

-- When the run is saved into a results database (--save, --results-db
-- or $BMK_RESULTS_DB; docs/results-db.md), its processes carry the tags
-- kit=<name> and kit_run=<launcher pid>-<time>, after the user's own
-- --tag ones, so the runs of a kit script are found by name and a split
-- run's parts (each process saves its own, tagged part=i/n) can be merged
-- again: bmk report --merge tag:kit_run=ID. Returns the extra options
-- without the user's --tag and the tag list for --tag, or extra and nil
-- when nothing is saved.
function M.save_tags(extra, name, pid)
  local saving = (os.getenv("BMK_RESULTS_DB") or "") ~= ""
  local user
  local kept = {}
  for _, a in ipairs(extra) do
    local k, v = a:match("^%-%-([%w_-]+)=(.*)$")
    k = k and k:gsub("_", "-")
    if a == "--save" or (k == "save" and v ~= "off" and v ~= "0") or (k == "results-db" and v ~= "") then
      saving = true
    end
    if k == "tag" then user = v else kept[#kept + 1] = a end
  end
  if not saving then return extra, nil end
  local tags = ("kit=%s,kit_run=%d-%d"):format(name, pid, os.time())
  if user and user ~= "" then tags = user .. "," .. tags end
  return kept, tags
end

-- A TPCH run's step into `plan`: one process of 1 thread (power) or S+1
-- (S query streams and the refresh stream), args all extra options (no
-- users or seconds: the test's own length). `cmd` builds an argv.
-- Returns plan.
function M.tpch_run(plan, spec, args, env, pid, cmd)
  local extra = extract_passwords(args, env)
  local tags
  extra, tags = M.save_tags(extra, spec.name, pid)
  local t = spec.tpch_test.streams and spec.tpch_test.streams + 1 or 1
  local front = { "--threads=" .. t }
  if tags then front[#front + 1] = "--tag=" .. tags end
  plan.steps[1] = { command = "run", users = t,
    procs = { { argv = cmd(front, extra, "run"), threads = t, offset = 0 } } }
  return plan
end

-- Builds the plan for `bmk kit <name> args...`: spec from names.resolve,
-- b from bench.load, args the words after the name, what = "run" for a
-- name or "cleanup" for `bmk kit cleanup`, pid the launcher's pid (names
-- the sync file and logs). Returns plan or nil, message, exit code.
-- plan = { spec, script, home, env = {VAR=value}, notices = {line},
-- steps = { {command, users, procs = { {argv, threads, offset, log,
-- results} } } }, sync = path|nil, results = path|nil }
-- A split run's processes each write a --results part file (procs[i].results,
-- in TMP_DIR); the launcher merges them for the Combined line, into
-- plan.results when the user gave --results.
function M.plan(spec, b, args, what, pid)
  local script = "sb11-" .. spec.name .. ".sh"
  local env = {}
  if b.driver == "pgsql" then
    if b.pg_pass ~= "" then env.PGPASSWORD = b.pg_pass end
  elseif b.pass ~= "" then
    env.MYSQL_PWD = b.pass
  end
  local nopts, reason = M.name_options(spec, b)
  if not nopts then
    return nil, "bmk kit: invalid script name '" .. spec.name .. "': " .. reason, 2
  end
  local base = { b.sb11, M.workload(spec, b) }
  for _, x in ipairs(M.connection(spec, b)) do base[#base + 1] = x end
  for _, x in ipairs(nopts) do base[#base + 1] = x end
  local function cmd(extra_front, extra, command)
    local a = {}
    for _, x in ipairs(base) do a[#a + 1] = x end
    for _, x in ipairs(extra_front) do a[#a + 1] = x end
    for _, x in ipairs(extra) do a[#a + 1] = x end
    a[#a + 1] = command
    return a
  end
  local plan = { spec = spec, script = script, env = env, steps = {}, home = b.BMK_HOME,
    kit_lua_tried = b.kit_lua_tried }
  local notices = {}
  if spec.engine and b.driver == "pgsql" then
    notices[#notices + 1] = "=> storage engine '" .. spec.engine .. "' ignored on PostgreSQL"
  end
  plan.notices = notices

  if what == "cleanup" then
    local extra = extract_passwords(args, env)
    plan.steps[1] = { command = "cleanup", procs = { { argv = cmd({}, extra, "cleanup") } } }
    return plan
  end

  if spec.prepare then
    local par, rest = 32, 1
    if args[1] and not args[1]:match("^%-%-") then
      if not is_uint(args[1]) then
        return nil, "usage: " .. script .. " [<parallel connections>] [options...]", 2
      end
      par, rest = tonumber(args[1]), 2
    end
    local extra = {}
    for i = rest, #args do extra[#extra + 1] = args[i] end
    extra = extract_passwords(extra, env)
    local front = { "--threads=" .. par }
    -- TPC-C and TPC-H have no separate create step: `prepare` does both.
    local cmds = (spec.family == "tpcc" or spec.family == "tpch") and { "prepare" }
      or { "create", "prepare" }
    for _, c in ipairs(cmds) do
      plan.steps[#plan.steps + 1] = { command = c, procs = { { argv = cmd(front, extra, c), threads = par } } }
    end
    return plan
  end

  if spec.family == "tpch" then return M.tpch_run(plan, spec, args, env, pid, cmd) end
  if not is_uint(args[1]) or not is_uint(args[2]) then
    return nil, "usage: " .. script .. " <users> <seconds> [options...]", 2
  end
  local users, secs = tonumber(args[1]), tonumber(args[2])
  local extra = {}
  for i = 3, #args do extra[#extra + 1] = args[i] end
  extra = extract_passwords(extra, env)
  local tags
  extra, tags = M.save_tags(extra, spec.name, pid)
  -- The options every kit run passes, for a process of `t` threads.
  local function front(t)
    return { "--threads=" .. t, "--time=" .. secs, "--events=0",
      "--forced-shutdown=1", "--thread-init-timeout=0" }
  end
  local n = math.ceil(users / b.sb11_MAX)
  local step = { command = "run", procs = {}, users = users }
  if n == 1 then
    local f = front(users)
    if tags then f[#f + 1] = "--tag=" .. tags end
    step.procs[1] = { argv = cmd(f, extra, "run"), threads = users, offset = 0 }
  else
    -- A user's --sync-file means they release the start themselves
    -- (multi-host); the launcher then neither creates nor removes it.
    local user_sync = M.extra_value(extra, "sync-file")
    if not user_sync then
      plan.sync = b.TMP_DIR .. "/bmk-sync." .. pid
    end
    -- The user's --results becomes the merged file; each process writes
    -- its own part (removed after the merge).
    plan.results = M.extra_value(extra, "results")
    if plan.results then
      local kept = {}
      for _, a in ipairs(extra) do
        if not a:match("^%-%-results=") then kept[#kept + 1] = a end
      end
      extra = kept
    end
    -- The user's --metrics-listen=ADDR:PORT: process i serves PORT+i-1
    -- (each process is an endpoint of its own; docs/metrics.md).
    local ml = M.extra_value(extra, "metrics-listen")
    local ml_host, ml_port = (ml or ""):match("^(.*):(%d+)$")
    if ml_port then
      local kept = {}
      for _, a in ipairs(extra) do
        if not a:match("^%-%-metrics%-listen=") then kept[#kept + 1] = a end
      end
      extra = kept
      plan.notices[#plan.notices + 1] = ("=> kit: --metrics-listen: process i of %d serves "
        .. "%s:%d+i-1 (ports %d to %d)"):format(n, ml_host, tonumber(ml_port), tonumber(ml_port),
        tonumber(ml_port) + n - 1)
    end
    local offset = 0
    for i = 1, n do
      local t = (i < n) and b.sb11_MAX or (users - b.sb11_MAX * (n - 1))
      local f = front(t)
      if ml_port then
        f[#f + 1] = "--metrics-listen=" .. ml_host .. ":" .. (tonumber(ml_port) + i - 1)
      end
      if tags then f[#f + 1] = ("--tag=%s,part=%d/%d"):format(tags, i, n) end
      f[#f + 1] = "--thread-offset=" .. offset
      f[#f + 1] = "--threads-total=" .. users
      if plan.sync then f[#f + 1] = "--sync-file=" .. plan.sync end
      local part = b.TMP_DIR .. "/bmk-" .. spec.name .. "." .. pid .. ".p" .. i
      f[#f + 1] = "--results=" .. part .. ".json"
      step.procs[i] = { argv = cmd(f, extra, "run"), threads = t, offset = offset,
        log = i > 1 and (part .. ".log") or nil, results = part .. ".json" }
      offset = offset + t
    end
  end
  plan.steps[1] = step
  return plan
end

return M
