#!/usr/bin/env bash
# sysbench 1.1 drop-in details, numbered "item N" below: each check compares
# bmk's exact output with what sysbench 1.1 prints for the same command. The
# sysbench source each expectation comes from is named beside it (files of
# akopytov/sysbench: src/lua/internal/*.lua, src/sb_*.c, src/db_driver.c,
# src/drivers/*/drv_*.c, tests/t/*.t).
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"
ln -sf "$BMK" "$WORK/sysbench"
SB="$WORK/sysbench"

# Output of a command without the header line and its blank line.
body() { printf '%s\n' "$1" | sed '1,2d'; }

# ends_blank CMD...: true when CMD's stdout ends with an empty line ("\n\n"),
# which $(...) would strip.
ends_blank() { [ "$("$@" 2>/dev/null | tail -c 2 | od -An -c | tr -d ' ')" = '\n\n' ]; }

# --- item 1: no report below --verbosity=3 (sysbench.c/db_driver.c print
# the reports, the header and the cpu block with log_text(LOG_NOTICE)) ------
echo 'function event() end' > e.lua
run_bmk_split e.lua --verbosity=0 --events=1 run
assert_eq "--verbosity=0 run prints nothing" "0:" "$RC:$OUT$ERR"
run_bmk_split cpu --verbosity=2 --events=10 --histogram --report-interval=1 run
assert_eq "--verbosity=2 cpu run prints nothing" "0:" "$RC:$OUT$ERR"
cat > hook.lua <<'LUA'
function event() end
function sysbench.hooks.report_cumulative(stat) print("events=" .. stat.events) end
LUA
run_bmk hook.lua --verbosity=0 --events=3 run
assert_eq "--verbosity=0 still runs report_cumulative" "events=3" "$OUT"

# --- item 2: a script test is named by basename(path) as given, ".lua"
# kept (sb_lua.c: sbtest.sname = basename(testname); tests/t/cmdline.t) ----
echo 'function foo() end' > x.lua
run_bmk_split x.lua run
assert_eq "event() missing names x.lua" "1:FATAL: cannot find the event() function in x.lua" "$RC:$(body "$OUT")"
echo 'sysbench.cmdline.options = { a = {"an option", 1} }' > cmdline.lua
run_bmk_split cmdline.lua prepare
assert_eq "missing prepare names cmdline.lua" "1:'cmdline.lua' test does not implement the 'prepare' command." "$RC:$ERR"
run_bmk_split cmdline.lua help
assert_eq "help fallback names cmdline.lua" "cmdline.lua options:
  --a=N an option [1]" "$(body "$OUT")"
check "help fallback ends with a blank line" ends_blank "$BMK" cmdline.lua help
mkdir -p sub && cp "$TOP/src/workloads/oltp_common.lua" "$TOP/src/workloads/oltp_read_write.lua" sub/
run_bmk_split sub/oltp_read_write.lua help
assert_eq "a path keeps its .lua" "oltp_read_write.lua options:" "$(body "$OUT" | head -1)"
run_bmk_split oltp_read_write help
assert_eq "a module name has no .lua" "oltp_read_write options:" "$(body "$OUT" | head -1)"

# --- item 3: ffi is a global (sysbench.lua: ffi = require("ffi")) -----------
OUT=$(echo 'print(type(ffi))' | "$SB")
assert_eq "ffi is a global" "table" "$(body "$OUT")"
cat > cdef.lua <<'LUA'
ffi.cdef "unsigned int sleep(unsigned int);"
print(ffi.C.sleep(0))
LUA
run_bmk cdef.lua
assert_eq "ffi.cdef without require" "0" "$(body "$OUT")"

# --- item 4: sysbench.histogram prints the header and rows only, with
# sysbench's bucket formula (sb_histogram.c; tests/t/api_histogram.t) -------
OUT=$("$SB" <<'LUA'
h = sysbench.histogram.new(1000, 1, 10)
h:update(1)
h:update(2)
h:update(0)
h:update(10)
h:update(100)
h:update(5.001)
h:print()
print(h)
LUA
)
assert_eq "sysbench.histogram print" "       value  ------------- distribution ------------- count
       1.000 |**************************************** 2
       2.001 |********************                     1
       4.997 |********************                     1
      10.000 |**************************************** 2
<sb_histogram>" "$(body "$OUT")"
# --histogram keeps sysbench.c's title and its closing line holding a space
run_bmk e.lua --events=5 --histogram run
assert_match "--histogram title" "$OUT" '^Latency histogram \(values are in milliseconds\)$'
check "--histogram closing line" grep -qx ' ' <<< "$OUT"

# --- item 5: pairs(sysbench.rand) lists sysbench 1.1's keys
# (sysbench.rand.lua); special() stays reachable as a bmk extension --------
cat > keys.lua <<'LUA'
local k = {}
for name in pairs(sysbench.rand) do k[#k + 1] = name end
table.sort(k)
print(table.concat(k, " "))
local v = sysbench.rand.special(1, 10)
print(v >= 1 and v <= 10)
LUA
run_bmk keys.lua
assert_eq "sysbench.rand keys" "default gaussian pareto string uniform uniform_double uniform_uint64 unique varstring zipfian
true" "$(body "$OUT")"

# --- item 9: script options (sysbench.cmdline.lua, sb_lua.c; tests/t/
# cmdline.t, script_oltp_help.t) ---------------------------------------------
cat > opts.lua <<'LUA'
sysbench.cmdline.options = {
  str_opt1 = {"str_opt1 description"},
  int_opt2 = {"int_opt2 description", nil, sysbench.cmdline.ARG_INT},
  dbl_opt = {"dbl_opt description", nil, sysbench.cmdline.ARG_DOUBLE},
  size_opt = {"size_opt description", nil, sysbench.cmdline.ARG_SIZE},
  pgsql_variant = {"a script option a bmk option shadows"},
}
function help()
  print("Available options:")
  sysbench.cmdline.print_test_options()
  local o = sysbench.opt
  print(o.str_opt1, o.int_opt2, o.dbl_opt, o.size_opt)
end
LUA
run_bmk opts.lua help
assert_eq "print_test_options ends with a blank line; unset numbers read 0" "Available options:
  --dbl_opt=N            dbl_opt description
  --int_opt2=N           int_opt2 description
  --pgsql_variant=STRING a script option a bmk option shadows
  --size_opt=SIZE        size_opt description
  --str_opt1=STRING      str_opt1 description

	0	0	0" "$(body "$OUT")"
printf 'sysbench.cmdline.options = {\n  {},\n}\nfunction help() end\n' > badopts.lua
run_bmk badopts.lua help
assert_match "wrong table structure keeps sysbench.cmdline.lua's position" "$(body "$OUT")" \
  '^FATAL: `sysbench.cmdline.read_cmdline_options'"'"' function failed: \[string "sysbench.cmdline.lua"\]:[0-9]+: wrong table structure in sysbench.cmdline.options$'
assert_eq "wrong table structure exit 1" 1 "$RC"
# as sysbench: sysbench's text; bmk's additions to the script's options
# (entries marked bmk = true, e.g. --load_method) are listed only as bmk
OUT=$("$SB" sub/oltp_read_write.lua help 2>&1)
assert_eq "oltp_read_write.lua help as sysbench's" "oltp_read_write.lua options:
  --auto_inc[=on|off]           Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs [on]
  --create_secondary[=on|off]   Create a secondary index in addition to the PRIMARY KEY [on]
  --create_table_options=STRING Extra CREATE TABLE options []
  --delete_inserts=N            Number of DELETE/INSERT combinations per transaction [1]
  --distinct_ranges=N           Number of SELECT DISTINCT queries per transaction [1]
  --index_updates=N             Number of UPDATE index queries per transaction [1]
  --mysql_storage_engine=STRING Storage engine, if MySQL is used [innodb]
  --non_index_updates=N         Number of UPDATE non-index queries per transaction [1]
  --order_ranges=N              Number of SELECT ORDER BY queries per transaction [1]
  --pgsql_variant=STRING        Use this PostgreSQL variant when running with the PostgreSQL driver. The only currently supported variant is 'redshift'. When enabled, create_secondary is automatically disabled, and delete_inserts is set to 0
  --point_selects=N             Number of point SELECT queries per transaction [10]
  --range_selects[=on|off]      Enable/disable all range SELECT queries [on]
  --range_size=N                Range size for range SELECT queries [100]
  --reconnect=N                 Reconnect after every N events. The default (0) is to not reconnect [0]
  --secondary[=on|off]          Use a secondary index in place of the PRIMARY KEY [off]
  --simple_ranges=N             Number of simple range SELECT queries per transaction [1]
  --skip_trx[=on|off]           Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode [off]
  --sum_ranges=N                Number of SELECT SUM() queries per transaction [1]
  --table_size=N                Number of rows per table [10000]
  --tables=N                    Number of tables [1]" "$(body "$OUT")"
check "oltp_read_write.lua help ends with a blank line" ends_blank "$BMK" sub/oltp_read_write.lua help
run_bmk sub/oltp_read_write.lua help
assert_match "as bmk the help lists --load_method" "$OUT" '^  --load_method=STRING +How prepare loads the tables: multi'
assert_match "as bmk the help lists --read_routing" "$OUT" '^  --read_routing=STRING +With --endpoints: where the reads'
assert_eq "as bmk the help has two more options (--load_method, --read_routing)" \
  "$(( $("$SB" sub/oltp_read_write.lua help | grep -c '^  --') + 2 ))" "$(echo "$OUT" | grep -c '^  --')"
OUT=$("$SB" sub/oltp_read_write.lua --load-method=bogus --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 prepare 2>&1)
assert_contains "as sysbench --load-method is still accepted" "$OUT" "--load-method must be multi, insert or copy, got 'bogus'"

# --- item 10: --luajit-cmd acts before the script is loaded (tests/t/
# opt_luajit_cmd.t), in every Lua state ------------------------------------
echo 'print("JIT status: " .. (jit.status() and "on" or "off"))' > jit.lua
for v in "--luajit-cmd:on" "--luajit-cmd=off:off" "--luajit-cmd=on:on"; do
  OUT=$("$SB" "${v%:*}" jit.lua)
  assert_eq "${v%:*} in the main chunk" "JIT status: ${v##*:}" "$(body "$OUT")"
done
cat > jitev.lua <<'LUA'
function event() print("event JIT " .. (jit.status() and "on" or "off")) end
LUA
run_bmk jitev.lua --luajit-cmd=off --events=1 --verbosity=0 run
assert_eq "--luajit-cmd=off in a worker state" "event JIT off" "$OUT"
run_bmk jit.lua --luajit-cmd=nonsense
assert_eq "bad --luajit-cmd" "1:FATAL: unknown luaJIT command or jit.* modules not installed" "$RC:$(body "$OUT")"

# --- item 11: time elapsed runs until the workers are joined (sysbench.c
# stops sb_exec_timer after joining them): a 2 s event with --time=1 is in
# the time, so time elapsed >= the thread's execution time ---------------
cat > slow2.lua <<'LUA'
ffi.cdef "int usleep(unsigned int);"
function event() ffi.C.usleep(2000000) end
LUA
run_bmk slow2.lua --time=1 run
t=$(report_value "time elapsed:" "$OUT")
x=$(printf '%s\n' "$OUT" | sed -n 's|^    execution time (avg/stddev): *\([0-9.]*\)/.*|\1|p')
assert_eq "one 2 s event" 1 "$(report_value "total number of events:" "$OUT")"
check "time elapsed ($t) >= execution time ($x)" awk -v t="$t" -v x="$x" 'BEGIN{exit !(t >= x && x >= 2)}'

# --- items 6 and 8: the SQL API as sysbench's tests/t/api_sql_{mysql,pgsql}.t
# (script from tests/include/api_sql_common.sh; our inspect() is a minimal
# one with the layout of its inspect.lua). Items: prepare() failing prints
# the driver's lines and raises "SQL API error" (drv_mysql.c, drv_pgsql.c,
# sysbench.sql.lua); a non-SELECT returns a NULL sql_result; freeing a
# result set a later statement replaced is an invalid free (db_driver.c);
# the FATAL line precedes the sql_error_ignorable hook; a PostgreSQL
# connect failure keeps libpq's newline.
cat > api_sql.lua <<'LUA'
function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
end

function event()
  local e, m
  e, m = pcall(sysbench.sql.driver, "non-existing")
  print(m)
  con:query("DROP TABLE IF EXISTS t")
  con:query("CREATE TABLE t(a INT)")
  con:bulk_insert_init("INSERT INTO t VALUES")
  for i = 1,100 do
    con:bulk_insert_next(string.format("(%d)", i))
  end
  con:bulk_insert_done()
  print(con:query_row("SELECT COUNT(DISTINCT a) FROM t"))
  print('--')
  con:query("DROP TABLE IF EXISTS t2")
  con:query("CREATE TABLE t2(a INT, b VARCHAR(120), c FLOAT)")
  con:query("INSERT INTO t2 VALUES (1, 'foo', 0.4)")
  con:query("INSERT INTO t2 VALUES (NULL, 'bar', 0.2)")
  con:query("INSERT INTO t2 VALUES (2, NULL, 0.3)")
  con:query("INSERT INTO t2 VALUES (NULL, NULL, 0.1)")
  print('--')
  local rs = con:query("SELECT * FROM t2 ORDER BY a")
  for i = 1, rs.nrows do
     print(string.format("%s %s %s", unpack(rs:fetch_row(), 1, rs.nfields)))
  end
  print('--')
  print(string.format("%s %s", con:query_row("SELECT b, a FROM t2 ORDER BY b")))
  print('--')
  con:query("DROP TABLE t2")
  con:query("ALTER TABLE t ADD COLUMN b CHAR(10)")
  e, m = pcall(con.prepare, con, "SELECT * FROM nonexisting")
  print(m)
  print('--')
  local stmt = con:prepare("UPDATE t SET a = a + ?, b = ?")
  local a = stmt:bind_create(sysbench.sql.type.INT)
  local b = stmt:bind_create(sysbench.sql.type.CHAR, 10)
  print(a)
  print(b)
  e, m = pcall(stmt.bind_create, stmt, sysbench.sql.type.DATE)
  print(m)
  print(stmt:bind_param())
  stmt:bind_param(a, b)
  a:set(100)
  rs1 = stmt:execute()
  print(rs1)
  a:set(200)
  b:set("01234567890")
  rs2 = stmt:execute()
  print(rs2)
  e, m = pcall(rs2.free, rs)
  print(m)
  e, m = pcall(rs1.free, rs)
  print(m)
  stmt:close()
  print('--')
  con:disconnect()
  e, m = pcall(con.query, con, "SELECT 1")
  print(m)
  con:disconnect()
  print('--')
  con = drv:connect()
  rs = con:query("SELECT MIN(a), MAX(a), MIN(b), MAX(b) FROM t")
  print(rs.nfields)
  for i = 1, rs.nrows do
     print(string.format("%s %s %s %s", unpack(rs:fetch_row(), 1, rs.nfields)))
  end
  con:query("DROP TABLE t")
  print('--')
end
LUA
cat > api_hooks.lua <<'LUA'
-- inspect()-like dump of a flat table (tests/include/inspect.lua's layout)
local function inspect(t)
  local k = {}
  for name in pairs(t) do k[#k + 1] = name end
  table.sort(k)
  local lines = {}
  for i, n in ipairs(k) do
    local v = t[n]
    if type(v) == "string" then
      v = (v:find('"', 1, true) and not v:find("'", 1, true)) and ("'" .. v .. "'") or ('"' .. v .. '"')
    else
      v = tostring(v)
    end
    lines[i] = "  " .. n .. " = " .. v
  end
  return "{\n" .. table.concat(lines, ",\n") .. "\n}"
end
function sysbench.hooks.sql_error_ignorable(e)
  print("Got an error descriptor:")
  print(inspect(e))
end
function event()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  local queries = {
    "CREATE TABLE t(a CHAR(1) NOT NULL)",
    "INSERT INTO t VALUES (1)",
    "INSERT INTO t VALUES (NULL)",
    [[INSERT INTO t VALUES ('test')]],
    "DROP TABLE t",
    "DROP TABLE t"
  }
  print('--')
  con:query("DROP TABLE IF EXISTS t")
  if (drv:name() == 'mysql') then
    con:query("SET sql_mode='STRICT_TRANS_TABLES'")
  end
  for i = 1, #queries do
    local e, m = pcall(function () con:query(queries[i]) end)
    if not e then print(m) end
  end
  print('--')
end
LUA
cat > api_conn.lua <<'LUA'
function event()
  local drv = sysbench.sql.driver()
  local e, m = pcall(drv.connect, drv)
  print(m)
end
LUA
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then
    O=$MYSQL_OPTS
    rows='nil bar 0.2
nil nil 0.1
1 foo 0.4
2 nil 0.3
--
nil 2'
    prep='FATAL: mysql_stmt_prepare() failed
FATAL: MySQL error: 1146 "Table '"'sbtest.nonexisting'"' doesn'"'"'t exist"'
  else
    O=$PGSQL_OPTS
    rows='1 foo 0.4
2 nil 0.3
nil bar 0.2
nil nil 0.1
--
bar nil'
    prep='FATAL: PQprepare() failed: ERROR:  relation "nonexisting" does not exist
LINE 1: SELECT * FROM nonexisting
                      ^
'
  fi
  run_bmk --verbosity=1 --events=1 $O api_sql.lua run
  assert_eq "$db api_sql.t" "FATAL: invalid database driver name: 'non-existing'
failed to initialize the DB driver
100
--
--
$rows
--
$prep
SQL API error
--
<sql_param>
<sql_param>
Unsupported argument type: 8
nil
<sql_result>
<sql_result>
ALERT: attempt to free an invalid result set
db_free_results() failed
db_free_results() failed
--
(last message repeated 1 times)
ALERT: attempt to use an already closed connection
api_sql.lua:$(grep -n 'pcall(con.query, con, "SELECT 1")' api_sql.lua | cut -d: -f1): SQL API error
ALERT: attempt to close an already closed connection
--
4
301 400 0123456789 0123456789
--" "$OUT"
  run_bmk --verbosity=1 --events=1 $O api_hooks.lua run
  n=$(grep -n 'pcall(function () con:query' api_hooks.lua | cut -d: -f1)
  if [ $db = mysql ]; then
    assert_eq "$db FATAL line before the sql_error_ignorable hook" "--
FATAL: mysql_drv_query() returned error 1048 (Column 'a' cannot be null) for query 'INSERT INTO t VALUES (NULL)'
Got an error descriptor:
{
  connection = <sql_connection>,
  query = \"INSERT INTO t VALUES (NULL)\",
  sql_errmsg = \"Column 'a' cannot be null\",
  sql_errno = 1048,
  sql_state = \"23000\"
}
api_hooks.lua:$n: SQL error, errno = 1048, state = '23000': Column 'a' cannot be null" "$(printf '%s\n' "$OUT" | head -11)"
  else
    assert_eq "$db FATAL lines before the sql_error_ignorable hook" "--
FATAL: PQexec() failed: 7 null value in column \"a\" of relation \"t\" violates not-null constraint
FATAL: failed query was: INSERT INTO t VALUES (NULL)
Got an error descriptor:
{
  connection = <sql_connection>,
  query = \"INSERT INTO t VALUES (NULL)\",
  sql_errmsg = 'null value in column \"a\" of relation \"t\" violates not-null constraint',
  sql_errno = 0,
  sql_state = \"23502\"
}
api_hooks.lua:$n: SQL error, errno = 0, state = '23502': null value in column \"a\" of relation \"t\" violates not-null constraint" "$(printf '%s\n' "$OUT" | head -12)"
  fi
  assert_eq "$db three failing statements reach the hook" 3 "$(grep -c '^Got an error descriptor:$' <<< "$OUT")"
done
run_bmk --verbosity=1 --events=1 $MYSQL_OPTS --mysql-host=non-existing api_conn.lua run
assert_match "mysql connect failure" "$OUT" "^FATAL: unable to connect to MySQL server on host 'non-existing', port $MYSQL_PORT, aborting\.\.\.$"
assert_eq "mysql connect failure raises" "connection creation failed" "$(printf '%s\n' "$OUT" | tail -1)"
"$BMK" --verbosity=1 --events=1 $PGSQL_OPTS --pgsql-host=non-existing api_conn.lua run > conn.out
assert_match "pgsql connect failure" "$(cat conn.out)" '^FATAL: Connection to database failed: could not translate host name "non-existing" to address: '
assert_eq "pgsql connect failure keeps libpq's newline" "
connection creation failed" "$(tail -2 conn.out)"

# a failed prepare() called directly names the script's line
cat > prep.lua <<'LUA'
function event()
  local con = sysbench.sql.driver():connect()
  con:prepare("SELECT * FROM nonexisting")
end
LUA
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  run_bmk --verbosity=1 --events=1 $O prep.lua run
  assert_eq "$db failed prepare() raises at the script's line" \
    "FATAL: \`thread_run' function failed: prep.lua:3: SQL API error" "$(grep thread_run <<< "$OUT")"
  assert_eq "$db failed prepare() exit 1" 1 "$RC"
done

# --- item 8: a CALL's trailing status is no result set: next_result() gives
# nil, and a script that never reads it can run the CALL again (GH-304) -----
cat > call.lua <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP PROCEDURE IF EXISTS bmk_sp")
  con:query("CREATE PROCEDURE bmk_sp(a INT) BEGIN SELECT a; END")
end
function cleanup()
  sysbench.sql.driver():connect():query("DROP PROCEDURE IF EXISTS bmk_sp")
end
function thread_init()
  con = sysbench.sql.driver():connect()
  st = con:prepare("CALL bmk_sp(?)")
  p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
end
local n = 0
function event()
  n = n + 1
  if n == 1 then
    local rs = con:query("CALL bmk_sp(1)")
    print(rs.nrows, rs:fetch_row()[1], con:more_results())
    print(con:next_result(), con:more_results())
  elseif n == 2 then
    p:set(2)
    local rs = st:execute()
    print(rs.nrows, rs:fetch_row()[1])
  else
    con:query("CALL bmk_sp(3)")     -- GH-304: the status is never read
  end
end
LUA
"$BMK" $MYSQL_OPTS call.lua prepare > /dev/null
run_bmk $MYSQL_OPTS --verbosity=1 --events=5 call.lua run
assert_eq "mysql CALL: one result set, then nil; GH-304 runs" "1	1	true
nil	false
1	2" "$OUT"
assert_eq "mysql repeated CALLs exit 0" 0 "$RC"
"$BMK" $MYSQL_OPTS call.lua cleanup > /dev/null

# --- item 13: lost connections being re-established: test_errors.sh -------

# item 13: out-of-range options of the bundled workloads stop with one
# FATAL line before any connection (bmk; sysbench fails later with a Lua
# nil-index error or runs nothing)
run_bmk oltp_read_write --tables=0 --events=1 run
assert_eq "--tables=0 run" "1:FATAL: \`init' function failed: Invalid value for --tables: 0 (expected a whole number >= 1)" "$RC:$(body "$OUT")"
run_bmk oltp_read_write --tables=0 prepare
assert_eq "--tables=0 prepare" "1:FATAL: \`prepare' function failed: Invalid value for --tables: 0 (expected a whole number >= 1)" "$RC:$(body "$OUT")"
run_bmk oltp_point_select --table-size=-5 cleanup
assert_eq "negative --table-size cleanup" "1:FATAL: \`cleanup' function failed: Invalid value for --table_size: -5 (expected a whole number >= 0)" "$RC:$(body "$OUT")"
run_bmk oltp_read_only --range-size=2.5 --events=1 run
assert_eq "fractional --range-size" "1:FATAL: \`init' function failed: Invalid value for --range_size: 2.5 (expected a whole number >= 0)" "$RC:$(body "$OUT")"
run_bmk select_random_points --random-points=0 --events=1 run
assert_eq "--random-points=0" "1:FATAL: \`init' function failed: Invalid value for --random_points: 0 (expected a whole number >= 1)" "$RC:$(body "$OUT")"

# --- the rule for bmk's additions: under the name sysbench the output is
# sysbench's (no Server-side statistics block, no lag field on the --rate
# queue line) unless their option asks; under the name bmk they are on.
# Behaviour fixes hold in both (--rate-overload=abort: sysbench's text). --
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  "$BMK" oltp_point_select $O cleanup > /dev/null 2>&1
  "$BMK" oltp_point_select $O --table-size=100 prepare > /dev/null
  OUT=$("$SB" oltp_point_select $O --table-size=100 --events=20 run)
  assert_not_contains "$db as sysbench: no server-side block" "$OUT" "Server-side statistics"
  assert_eq "$db as sysbench: the report ends with sysbench's fairness block" "Threads fairness:
    events (avg/stddev):           20.0000/0.00" "$(printf '%s\n' "$OUT" | tail -3 | head -2)"
  check "$db as sysbench: the report ends with a blank line" ends_blank "$SB" oltp_point_select $O --table-size=100 --events=5 run
  OUT=$("$SB" oltp_point_select $O --table-size=100 --events=20 --db-server-stats run)
  assert_match "$db as sysbench, asked for: server-side block" "$OUT" '^Server-side statistics \('
  run_bmk oltp_point_select $O --table-size=100 --events=20 run
  assert_match "$db as bmk: server-side block by default" "$OUT" '^Server-side statistics \('
  # item 1 with a server: nothing below --verbosity=3, the block included
  run_bmk oltp_point_select $O --table-size=100 --events=20 --verbosity=2 run
  assert_eq "$db --verbosity=2 run prints nothing" "0:" "$RC:$OUT"
  OUT=$("$SB" oltp_point_select $O --table-size=100 --time=1 --rate=50 --report-interval=0.5 run)
  assert_match "$db as sysbench: queue line without lag" "$OUT" '^\[ [0-9]+s \] queue length: [0-9]+, concurrency: [0-9]+$'
  OUT=$("$SB" oltp_point_select $O --table-size=100 --time=1 --rate=50 --report-interval=0.5 --rate-lag run)
  assert_match "$db as sysbench, asked for: lag field" "$OUT" '^\[ [0-9]+s \] queue length: [0-9]+, concurrency: [0-9]+, lag \(ms\): [0-9]+\.[0-9]{2}$'
  run_bmk oltp_point_select $O --table-size=100 --time=1 --rate=50 --report-interval=0.5 run
  assert_match "$db as bmk: lag field by default" "$OUT" '^\[ [0-9]+s \] queue length: [0-9]+, concurrency: [0-9]+, lag \(ms\): [0-9]+\.[0-9]{2}$'
  "$BMK" oltp_point_select $O cleanup > /dev/null
done
cat > slowev.lua <<'LUA'
ffi.cdef "int usleep(unsigned int);"
function event() ffi.C.usleep(100000) end
LUA
OUT=$("$SB" slowev.lua --time=1 --rate=5 --report-interval=0.5 run)
assert_match "generic queue line as sysbench (no comma, no lag)" "$OUT" '^\[ [0-9]+s \] queue length: [0-9]+ concurrency: [0-9]+$'
# a backlog beyond sysbench's 131072-event queue: a warning, the run goes on;
# with --rate-overload=abort sysbench's FATAL text, exit 1, report kept
queue_full="The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate"
run_bmk slowev.lua --rate=2000000 --time=1 run
assert_eq "overload: warning once, exit 0" "0:1" "$RC:$(grep -cx "WARNING: $queue_full" <<< "$OUT")"
OUT=$("$SB" slowev.lua --rate=2000000 --time=3 --rate-overload=abort run)
RC=$?
assert_eq "overload abort: exit 1" 1 "$RC"
assert_eq "overload abort: sysbench's FATAL line" 1 "$(grep -cx "FATAL: $queue_full" <<< "$OUT")"
assert_match "overload abort: report kept" "$OUT" '^Run interrupted: the event queue is full \(--rate-overload=abort\); the report covers [0-9.]+s of measured time\.$'
assert_contains "overload abort: rate printed as sysbench's %d" "$OUT" "Target transaction rate: 2000000/sec"

# --- item 7: SQL objects print as sysbench's (sysbench.sql.lua __tostring) ---
cat > tostr.lua <<'LUA'
function event()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  print(drv)
  print(con)
  local st = con:prepare("SELECT 1")
  print(st)
  print(st:bind_create(sysbench.sql.type.INT))
  print(con:query("SELECT 1"))
  st:close()
  con:disconnect()
end
LUA
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  run_bmk tostr.lua $O --verbosity=1 --events=1 run
  assert_eq "$db tostring of SQL objects" "<sql_driver>
<sql_connection>
<sql_statement>
<sql_param>
<sql_result>" "$OUT"
done

finish
