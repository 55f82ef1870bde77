-- bmk kit OLTP: create, prepare (parallel load), warmup and cleanup
-- (docs/kit-oltp.md).

local mc = require("mysql_common")
local now = mc.now

-- Connects for a command and resolves the options.
local function command_connect()
  local d = sysbench.sql.driver()
  kit.setup(d:name())
  local c = d:connect()
  mysql_session_opt(c)
  return d, c
end

local function table_exists(c, tn)
  return mc.table_exists(c, kit.pg, tn)
end

-- DDL of table n (BIGINT id and k, optional extra columns).
local function create_sql(n)
  local o = sysbench.opt
  local tn = kit.name .. n
  local id_def
  if kit.pg then
    id_def = o.auto_inc and "SERIAL" or "INTEGER NOT NULL"
    if o.auto_inc and o.pgsql_variant == "redshift" then
      id_def = "INTEGER IDENTITY(1,1)"
    end
  else
    id_def = o.auto_inc and "BIGINT NOT NULL AUTO_INCREMENT" or "BIGINT NOT NULL"
  end
  local lines = {
    "  id " .. id_def,
    "  k BIGINT DEFAULT '0' NOT NULL",
    "  c CHAR(120) DEFAULT '' NOT NULL",
    "  pad CHAR(60) DEFAULT '' NOT NULL",
  }
  for i = 1, o.extra_cols do
    lines[#lines + 1] = string.format("  col%d %s %s", i, o.extra_cols_type,
                                      o.extra_cols_options)
  end
  if not kit.pg then
    lines[#lines + 1] = (o.secondary and "  KEY xid" or "  PRIMARY KEY") .. " (id)"
  elseif not o.secondary then
    lines[#lines + 1] = "  PRIMARY KEY (id)"
  end
  local tail = ""
  if not kit.pg then
    tail = "ENGINE = " .. o.mysql_storage_engine
    if o.mysql_table_options ~= "" then
      tail = tail .. " " .. o.mysql_table_options
    end
    if o.mysql_table_compression ~= "" then
      tail = tail .. " COMPRESSION='" .. o.mysql_table_compression .. "'"
    end
    local N = o.mysql_table_partitions
    if N > 1 then
      local s = math.floor(kit.S / N) + 1
      local parts = {}
      for i = 1, N - 1 do
        parts[#parts + 1] = string.format("PARTITION p%d VALUES LESS THAN (%d)", i, i * s)
      end
      parts[#parts + 1] = "PARTITION p00 VALUES LESS THAN (MAXVALUE)"
      tail = tail .. " PARTITION BY RANGE (id) (" .. table.concat(parts, ", ") .. ")"
    end
  end
  if o.create_table_options ~= "" then
    tail = tail .. " " .. o.create_table_options
  end
  return string.format("CREATE TABLE %s(\n%s\n) %s", tn, table.concat(lines, ",\n"), tail)
end

-- Index name: k_<n> (xid_<n>). PostgreSQL index names are per schema, so
-- there a non-default --table-name prefixes them (<name>_k_<n>) to let
-- several data sets coexist.
function kit.index_name(base, n)
  if kit.pg and kit.name ~= "sbtest" then
    return string.format("%s_%s_%d", kit.name, base, n)
  end
  return string.format("%s_%d", base, n)
end

local function create_indexes(c, n)
  local o = sysbench.opt
  local tn = kit.name .. n
  if kit.pg and o.secondary then
    c:query(string.format("CREATE INDEX %s ON %s(id)", kit.index_name("xid", n), tn))
  end
  if o.create_secondary and not (kit.pg and o.pgsql_variant == "redshift") then
    print(string.format("Creating a secondary index on '%s'...", tn))
    c:query(string.format("CREATE INDEX %s ON %s(k)", kit.index_name("k", n), tn))
  end
end

-- create (thread 0): refuses existing tables, creates them, and with the
-- parallel load modes their indexes (before the load).
function cmd_create()
  local _, c = command_connect()
  local o = sysbench.opt
  kit.print_opt_debug()
  kit.print_ignored()
  for n = 1, o.tables do
    if table_exists(c, kit.name .. n) then
      -- stdout, like the core's FATAL lines: the kit launcher reads it
      -- there to print its own cleanup hint.
      print(string.format("FATAL: table %s%d already exists; run cleanup first", kit.name, n))
      io.stdout:flush()
      os.exit(1)
    end
  end
  for n = 1, o.tables do
    print(string.format("Creating table '%s%d'...", kit.name, n))
    c:query(create_sql(n))
    if o.load_mode ~= "original" then
      create_indexes(c, n)
    end
  end
  c:disconnect()
end

-- ---- data -------------------------------------------------------------------

-- The values of row `id` in draw order (k, c, pad, extra columns): every
-- load method loads the same data.
local function row_draw(id)
  local o = sysbench.opt
  local rs = sysbench.rand.string
  local k = sysbench.rand.uniform(1, math.max(kit.S, 1))
  local v = { id, k, rs(kit.c_template), rs(kit.pad_template) }
  for _ = 1, o.extra_cols do
    v[#v + 1] = rs(o.extra_cols_default)
  end
  return v
end

local function row_values(id)
  local v = row_draw(id)
  local s = string.format("(%d, %d, '%s', '%s'", v[1], v[2], v[3], v[4])
  for i = 5, #v do
    s = s .. ", '" .. v[i] .. "'"
  end
  return s .. ")"
end

-- Work items of loader thread t over P threads: list of
-- {table, {{lo, hi}, ...}} id ranges (inclusive), per --load-mode.
function kit.load_plan(t, P)
  local o = sysbench.opt
  local T, S = o.tables, kit.S
  local B = math.min(o.load_bulk_size, math.max(S, 1))
  local plan = {}
  if o.load_mode == "original" or P <= T then
    for j = t + 1, T, P do
      plan[#plan + 1] = {j, {{1, S}}, true}
    end
    return plan
  end
  local j = (t % T) + 1
  local nj = math.floor((P - (j - 1) - 1) / T) + 1
  local c = math.floor(t / T)
  local ranges = {}
  if o.load_mode == "parallel" then
    local lo = math.floor(c * S / nj) + 1
    local hi = math.floor((c + 1) * S / nj)
    if hi >= lo then ranges[1] = {lo, hi} end
  else
    local b = c
    while b * B < S do
      ranges[#ranges + 1] = {b * B + 1, math.min((b + 1) * B, S)}
      b = b + nj
    end
  end
  plan[1] = {j, ranges, c == 0}
  return plan
end

-- Loads ids lo..hi of table tn with --load-method: one multi-row INSERT,
-- single-row INSERTs in one transaction, or one fast load.
local function load_batch(c, tn, colnames, prefix, lo, hi)
  local method = sysbench.opt.load_method
  if method == "copy" then
    local ld = c:load_start(tn, colnames)
    for i = lo, hi do
      ld:row(unpack(row_draw(i)))
    end
    ld:finish()
  elseif method == "insert" then
    c:query("BEGIN")
    for i = lo, hi do
      c:query(prefix .. row_values(i))
    end
    c:query("COMMIT")
  else
    local rows = {}
    for i = lo, hi do
      rows[#rows + 1] = row_values(i)
    end
    c:query(prefix .. table.concat(rows, ","))
  end
end

local function fmt_num(v)
  return string.format("%g", v)
end

-- Loads ids [lo, hi] of table n in batches; prints a progress line when a
-- batch holds the first id of a 20 % segment of the table.
local function load_range(c, n, lo, hi, B)
  local o = sysbench.opt
  local tn = kit.name .. n
  local cols = "id, k, c, pad"
  local colnames = {"id", "k", "c", "pad"}
  for i = 1, o.extra_cols do
    cols = cols .. ", col" .. i
    colnames[#colnames + 1] = "col" .. i
  end
  local prefix = "INSERT INTO " .. tn .. "(" .. cols .. ") VALUES "
  local S = kit.S
  local id = lo
  while id <= hi do
    local last = math.min(id + B - 1, hi)
    for seg = 0, 4 do
      local a = math.floor(seg * S / 5)
      if a + 1 >= id and a + 1 <= last then
        print(string.format("Loading DATA TABLE#%d => %sM @bulk_size %sK | range [%sM + %sM]...",
                            n, fmt_num(S / 1e6), fmt_num(B / 1000), fmt_num(a / 1e6),
                            fmt_num(S / 5e6)))
      end
    end
    load_batch(c, tn, colnames, prefix, id, last)
    id = last + 1
  end
end

-- prepare (parallel): loads the existing tables per --load-mode.
function cmd_prepare()
  local _, c = command_connect()
  local o = sysbench.opt
  local t, P = sysbench.tid, o.threads
  if t == 0 then
    kit.print_ignored()
    print(string.format("=> TABLE LOAD MODE : [%s]", o.load_mode))
  end
  local B = math.min(o.load_bulk_size, math.max(kit.S, 1))
  local tv_start = now()
  for _, item in ipairs(kit.load_plan(t, P)) do
    local n, ranges, owner = item[1], item[2], item[3]
    if not table_exists(c, kit.name .. n) then
      kit.fail(string.format("table %s%d does not exist; run 'create' first", kit.name, n))
    end
    if o.load_mode == "original" and kit.S > 0 then
      print(string.format("Inserting %d records into '%s%d'", kit.S, kit.name, n))
    end
    for _, r in ipairs(ranges) do
      load_range(c, n, r[1], r[2], B)
    end
    if owner and kit.pg and o.auto_inc and kit.S > 0 and o.pgsql_variant ~= "redshift" then
      c:query(string.format("SELECT setval('%s%d_id_seq', %d)", kit.name:lower(), n, kit.S))
    end
    if o.load_mode == "original" then
      create_indexes(c, n)
    end
  end
  print(string.format("=> TOTAL TABLE(s) LOAD TIME @thread-%02d : %5.2f min.", t,
                      (now() - tv_start) / 60))
  c:disconnect()
end

-- warmup / prewarm (parallel over tables, as stock).
function cmd_prewarm()
  local _, c = command_connect()
  local o = sysbench.opt
  if not kit.pg then
    c:query("SET tmp_table_size=2*1024*1024*1024")
    c:query("SET max_heap_table_size=2*1024*1024*1024")
  end
  for n = sysbench.tid + 1, o.tables, o.threads do
    local tn = kit.name .. n
    print(string.format("Preloading table %s", tn))
    if kit.pg then
      c:query("ANALYZE " .. tn)
      c:query(string.format("SELECT AVG(id) FROM (SELECT * FROM %s ORDER BY id LIMIT %d) t",
                            tn, kit.S))
      c:query(string.format("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k::text LIKE " ..
                              "'%%0%%' LIMIT %d) t", tn, kit.S))
    else
      c:query("ANALYZE TABLE " .. tn)
      c:query(string.format("SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (PRIMARY) " ..
                              "LIMIT %d) t", tn, kit.S))
      c:query(string.format("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k LIKE '%%0%%' " ..
                              "LIMIT %d) t", tn, kit.S))
    end
  end
  c:disconnect()
end

-- cleanup (serial): drops every table.
function cleanup()
  local _, c = command_connect()
  for n = 1, sysbench.opt.tables do
    print(string.format("Dropping table '%s%d'...", kit.name, n))
    c:query("DROP TABLE IF EXISTS " .. kit.name .. n)
  end
  c:disconnect()
end
