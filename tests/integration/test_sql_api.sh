#!/usr/bin/env bash
# The sysbench.sql Lua API on both servers: bind types, NULLs, query_row,
# rows from prepared SELECTs, several connections per thread, counting,
# ignorable errors and hooks, misuse ALERTs, bulk insert limits, reconnects
# (as in sysbench 1.1).
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

cat > api.lua <<'LUA'
function prepare()
  local drv = sysbench.sql.driver()
  local con = drv:connect()
  local con2 = drv:connect()
  print("driver=" .. drv:name())
  con:query("DROP TABLE IF EXISTS bmk_api")
  con:query("CREATE TABLE bmk_api (id INTEGER NOT NULL PRIMARY KEY, i BIGINT, d DOUBLE PRECISION, s VARCHAR(400), n INTEGER)")
  local st = con:prepare("INSERT INTO bmk_api (id, i, d, s, n) VALUES (?, ?, ?, ?, ?)")
  local p = {
    st:bind_create(sysbench.sql.type.INT),
    st:bind_create(sysbench.sql.type.BIGINT),
    st:bind_create(sysbench.sql.type.DOUBLE),
    st:bind_create(sysbench.sql.type.VARCHAR, 400),
    st:bind_create(sysbench.sql.type.INT),
  }
  st:bind_param(unpack(p))
  local long = string.rep("x", 300)
  for id = 1, 3 do
    p[1]:set(id)
    p[2]:set(5000000000 + id)
    p[3]:set(id + 0.25)
    p[4]:set(id == 3 and long or ("str'" .. id))
    p[5]:set(nil)
    st:execute()
  end
  st:close()
  -- text query with NULLs
  local rs = con:query("SELECT id, i, d, s, n FROM bmk_api ORDER BY id")
  print("nrows=" .. rs.nrows .. " nfields=" .. rs.nfields)
  local row = rs:fetch_row()
  print(string.format("row1=%s|%s|%s|%s|%s", row[1], row[2], tonumber(row[3]), row[4], tostring(row[5])))
  rs:free()
  -- prepared SELECT rows come back as text
  local sel = con:prepare("SELECT id, i, s, n FROM bmk_api WHERE id = ?")
  local sp = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(sp)
  sp:set(3)
  local prs = sel:execute()
  local prow = prs:fetch_row()
  print(string.format("prepared=%s|%s|%d|%s", prow[1], prow[2], #prow[3], tostring(prow[4])))
  print("type=" .. type(prow[1]))
  -- query_row and a second connection
  print("query_row=" .. table.concat({con2:query_row("SELECT COUNT(*), MAX(id) FROM bmk_api")}, ","))
  print("no_row=" .. tostring(con:query_row("SELECT id FROM bmk_api WHERE id = 99")))
  -- non-SELECT returns a NULL sql_result (equal to nil), as sysbench
  local urs = con:query("UPDATE bmk_api SET n = 1 WHERE id = 1")
  print("update_rs=" .. tostring(urs) .. " " .. tostring(urs == nil) .. " " .. urs.nrows)
  -- errors: FATAL raises a Lua error with the message
  local ok, err = pcall(function() con:query("SELEKT 1") end)
  print("syntax_error_raised=" .. tostring(not ok) .. " " .. tostring(err):gsub("\n", " "))
  -- sql_error_ignorable hook turns it into a restart descriptor
  sysbench.hooks.sql_error_ignorable = function(e) return true end
  local ok2, e2 = pcall(function() con:query("SELEKT 2") end)
  print("hook_restart=" .. tostring(type(e2) == "table" and e2.errcode == sysbench.error.RESTART_EVENT))
  print("errdesc_query=" .. tostring(type(e2) == "table" and e2.query))
  sysbench.hooks.sql_error_ignorable = nil
  -- bulk insert
  con:query("DROP TABLE IF EXISTS bmk_bulk")
  con:query("CREATE TABLE bmk_bulk (id INTEGER NOT NULL PRIMARY KEY, v VARCHAR(100))")
  con:bulk_insert_init("INSERT INTO bmk_bulk VALUES")
  for i = 1, 20000 do
    con:bulk_insert_next(string.format("(%d, '%s')", i, string.rep("v", 50)))
  end
  con:bulk_insert_done()
  print("bulk_rows=" .. con:query_row("SELECT COUNT(*) FROM bmk_bulk"))
  local okb = pcall(function() con:bulk_insert_init("INSERT INTO bmk_bulk VALUES"); con:bulk_insert_next(string.rep("x", 600000)) end)
  print("oversized_row_fails=" .. tostring(not okb))
  con:query("DROP TABLE bmk_bulk")
  con:query("DROP TABLE bmk_api")
  -- misuse
  local c3 = drv:connect()
  c3:disconnect()
  local ok3, e3 = pcall(function() c3:query("SELECT 1") end)
  print("closed_use=" .. tostring(e3))
  c3:disconnect()
  local c4 = drv:connect()
  local okn, en = pcall(function() c4:bulk_insert_next("(1)") end)
  print("next_before_init=" .. tostring(en))
  local r4 = c4:query("SELECT 1")
  r4:free()
  local okf, ef = pcall(function() r4:free() end)
  print("double_free=" .. tostring(ef))
  local okt, et = pcall(function() local s = c4:prepare("SELECT ?"); s:bind_create(99) end)
  print("bad_type=" .. tostring(et))
  con:reconnect()
  print("after_reconnect=" .. con:query_row("SELECT 42"))
  con:disconnect()
  con2:disconnect()
  c4:disconnect()
end
LUA

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  run_bmk api.lua $O prepare
  assert_eq "$db api script exit 0" 0 "$RC"
  assert_contains "$db driver name" "$OUT" "driver=$db"
  assert_contains "$db nrows/nfields" "$OUT" "nrows=3 nfields=5"
  assert_contains "$db bound types and NULL via text query" "$OUT" "row1=1|5000000001|1.25|str'1|nil"
  assert_contains "$db prepared SELECT returns text, long strings intact" "$OUT" "prepared=3|5000000003|300|nil"
  assert_contains "$db values are strings" "$OUT" "type=string"
  assert_contains "$db second connection + query_row" "$OUT" "query_row=3,3"
  assert_contains "$db query_row without rows" "$OUT" "no_row=nil"
  assert_contains "$db UPDATE returns a NULL sql_result" "$OUT" "update_rs=<sql_result> true 0"
  assert_contains "$db fatal SQL error raises" "$OUT" "syntax_error_raised=true"
  assert_match "$db fatal error message format" "$OUT" "SQL error, errno = [0-9]+, state = '[0-9A-Z]+': "
  assert_contains "$db sql_error_ignorable hook" "$OUT" "hook_restart=true"
  assert_contains "$db errdesc.query" "$OUT" "errdesc_query=SELEKT 2"
  assert_contains "$db bulk insert rows" "$OUT" "bulk_rows=20000"
  assert_contains "$db oversized bulk row fails" "$OUT" "oversized_row_fails=true"
  assert_contains "$db oversized bulk row message" "$OUT" "FATAL: Query length exceeds the maximum value (524288), aborting"
  assert_contains "$db closed connection ALERT" "$OUT" "ALERT: attempt to use an already closed connection"
  assert_match "$db closed connection error" "$OUT" "^closed_use=.*SQL API error$"
  assert_contains "$db double close ALERT" "$OUT" "ALERT: attempt to close an already closed connection"
  assert_contains "$db next before init ALERT" "$OUT" "ALERT: attempt to call bulk_insert_next() before bulk_insert_init()"
  assert_contains "$db next before init error" "$OUT" "db_bulk_insert_next() failed"
  assert_contains "$db double free ALERT" "$OUT" "ALERT: attempt to free an invalid result set"
  assert_contains "$db double free error" "$OUT" "db_free_results() failed"
  assert_contains "$db unsupported bind type" "$OUT" "bad_type="
  assert_contains "$db unsupported bind type message" "$OUT" "Unsupported argument type: 99"
  assert_contains "$db query after reconnect" "$OUT" "after_reconnect=42"
  if [ $db = mysql ]; then
    assert_contains "$db FATAL line format" "$OUT" "FATAL: mysql_drv_query() returned error 1064 ("
  else
    assert_match "$db FATAL line format" "$OUT" "^FATAL: PQexec\(\) failed: [0-9]+ .*syntax error"
    assert_contains "$db FATAL failed query line" "$OUT" "FATAL: failed query was: SELEKT 1"
  fi
done

# ignorable errors in a run: duplicate keys are restarted and counted
cat > dup.lua <<'LUA'
function thread_init()
  con = sysbench.sql.driver():connect()
end
function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS bmk_dup")
  c:query("CREATE TABLE bmk_dup (id INTEGER PRIMARY KEY)")
  c:query("INSERT INTO bmk_dup VALUES (1)")
end
function cleanup()
  sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS bmk_dup")
end
local n = 0
restarts = 0
sysbench.hooks.before_restart_event = function(err) restarts = restarts + 1 end
function event()
  n = n + 1
  if n % 2 == 0 then
    con:query("INSERT INTO bmk_dup VALUES (1)")   -- duplicate: ignorable
  else
    con:query("SELECT 1")
  end
end
function thread_done() print("restarts=" .. restarts) end
LUA
"$BMK" dup.lua $MYSQL_OPTS prepare >/dev/null
run_bmk dup.lua $MYSQL_OPTS --events=10 --mysql-ignore-errors=1062 run
assert_eq "mysql ignorable duplicate: run completes" 0 "$RC"
assert_contains "mysql ignored errors counted" "$OUT" "ignored errors:                      "
check "mysql ignored errors > 0" test "$(report_value 'ignored errors:' "$OUT")" -gt 0
assert_contains "mysql before_restart_event hook called" "$OUT" "restarts="
check "mysql restarts equal errors" test "$(echo "$OUT" | grep -o 'restarts=[0-9]*' | cut -d= -f2)" -eq "$(report_value 'ignored errors:' "$OUT")"
run_bmk dup.lua $MYSQL_OPTS --events=10 run
assert_eq "mysql duplicate not in ignore list is fatal (exit 1)" 1 "$RC"
assert_contains "mysql fatal duplicate message" "$OUT" "FATAL: mysql_drv_query() returned error 1062"
assert_contains "mysql fatal keeps the report" "$OUT" "Run interrupted:"
"$BMK" dup.lua $MYSQL_OPTS cleanup >/dev/null

"$BMK" dup.lua $PGSQL_OPTS prepare >/dev/null
run_bmk dup.lua $PGSQL_OPTS --events=10 run
assert_eq "pgsql default ignore list has 23505" 0 "$RC"
check "pgsql ignored errors > 0" test "$(report_value 'ignored errors:' "$OUT")" -gt 0
run_bmk dup.lua $PGSQL_OPTS --events=10 --pgsql-ignore-errors=40P01 run
assert_eq "pgsql 23505 not listed is fatal" 1 "$RC"
run_bmk dup.lua $PGSQL_OPTS --events=10 --pgsql-ignore-errors=all run
assert_eq "pgsql ignore all" 0 "$RC"
"$BMK" dup.lua $PGSQL_OPTS cleanup >/dev/null

# MySQL: multiple result sets from a stored procedure
cat > multi.lua <<'LUA'
function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("DROP PROCEDURE IF EXISTS bmk_two")
  con:query("CREATE PROCEDURE bmk_two() BEGIN SELECT 1 AS a; SELECT 2 AS b, 3 AS c; END")
  local rs = con:query("CALL bmk_two()")
  print("first=" .. rs:fetch_row()[1])
  local n = 1
  while con:more_results() do
    local r = con:next_result()
    if r and r.nfields > 0 then
      n = n + 1
      print("next=" .. table.concat(r:fetch_row(), ","))
    end
  end
  print("sets=" .. n)
  con:query("DROP PROCEDURE bmk_two")
end
LUA
run_bmk multi.lua $MYSQL_OPTS prepare
assert_contains "mysql CALL first result" "$OUT" "first=1"
assert_contains "mysql CALL second result" "$OUT" "next=2,3"
assert_contains "mysql CALL two result sets" "$OUT" "sets=2"

# MySQL dry run: no server needed, statements count as other
run_bmk oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 --mysql-dry-run --events=50 run
assert_eq "mysql dry run exit 0" 0 "$RC"
assert_contains "mysql dry run counts other" "$OUT" "        other:                           50"

# MySQL endpoint round-robin: two ports of which one is closed; with 2
# threads, exactly one connection goes to each (h1:p1, h1:p2)
cat > rr.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() end
LUA
run_bmk rr.lua --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MYSQL_PORT,1 --mysql-user=sbtest --mysql-password=$DBPASS --threads=2 --events=1 run
assert_contains "mysql round-robin reaches the second endpoint" "$OUT" "port 1, aborting..."
assert_not_contains "mysql round-robin first endpoint works" "$OUT" "port $MYSQL_PORT, aborting"

# PostgreSQL host/port lists round-robin too (bmk decision)
run_bmk rr.lua --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGSQL_PORT,1 --pgsql-user=sbtest --pgsql-password=$DBPASS --threads=2 --events=1 run
assert_not_contains "pgsql port list accepted" "$OUT" "Invalid value for the 'pgsql_port' option"
assert_eq "pgsql round-robin: one connection to each port" 1 "$(printf '%s\n' "$OUT" | grep -c '^FATAL: Connection to database failed:')"
run_bmk rr.lua --db-driver=pgsql --pgsql-port=5432,x --events=1 run
assert_contains "pgsql bad port list" "$OUT" "Invalid value for the 'pgsql_port' option: '5432,x'"

# FFI counters from a script that declares only the function
cat > ffi.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[void sb_counter_inc(int, sb_counter_type);]]
function event(tid) ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_READ) end
LUA
run_bmk ffi.lua $MYSQL_OPTS --events=7 run
assert_eq "FFI sb_counter_inc script runs" 0 "$RC"

finish
