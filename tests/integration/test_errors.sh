#!/usr/bin/env bash
# Bad input against real servers: wrong password, unreachable host, unknown
# driver, the server closing connections mid-run (fatal by default; with
# `lost` ignorable the run survives and counts reconnects). Each case must
# give a clear message and a non-zero exit, never a crash or a hang.
set -u
source "$(dirname "$0")/lib.sh"
cd "$WORK"
BMK_TIMEOUT=60

cat > conn.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
LUA

# wrong password
O=${MYSQL_OPTS/--mysql-password=$DBPASS/--mysql-password=wrong}
run_bmk conn.lua $O --events=5 run
assert_eq "mysql wrong password exit 1" 1 "$RC"
assert_contains "mysql wrong password message" "$OUT" "FATAL: unable to connect to MySQL server on host '127.0.0.1', port $MYSQL_PORT, aborting..."
assert_match "mysql wrong password errno" "$OUT" "^FATAL: error 1045: Access denied"
assert_contains "mysql wrong password init failed" "$OUT" "FATAL: Threads initialization failed!"
O=${PGSQL_OPTS/--pgsql-password=$DBPASS/--pgsql-password=wrong}
run_bmk conn.lua $O --events=5 run
assert_eq "pgsql wrong password exit 1" 1 "$RC"
assert_match "pgsql wrong password message" "$OUT" "^FATAL: Connection to database failed: .*password authentication failed"

# unreachable host (a closed port on loopback)
run_bmk conn.lua --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 --events=5 run
assert_eq "mysql unreachable exit 1" 1 "$RC"
assert_contains "mysql unreachable message" "$OUT" "FATAL: unable to connect to MySQL server on host '127.0.0.1', port 1, aborting..."
run_bmk conn.lua --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=1 --events=5 run
assert_eq "pgsql unreachable exit 1" 1 "$RC"
assert_contains "pgsql unreachable message" "$OUT" "FATAL: Connection to database failed:"
run_bmk conn.lua --db-driver=nosuch --events=5 run
assert_eq "unknown driver exit 1" 1 "$RC"
assert_contains "unknown driver message" "$OUT" "FATAL: invalid database driver name: 'nosuch'"
run_bmk conn.lua $MYSQL_OPTS --mysql-ssl=bogus --events=5 run
assert_contains "bad --mysql-ssl" "$OUT" "FATAL: Invalid value for --mysql-ssl: 'bogus'"
run_bmk conn.lua $MYSQL_OPTS --db-ps-mode=sometimes --events=5 run
assert_contains "bad --db-ps-mode" "$OUT" "FATAL: Invalid value for db-ps-mode: sometimes"

# the server closes our connections mid-run
cat > slowq.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  if sysbench.opt.db_driver == "mysql" then con:query("SELECT SLEEP(0.05)") else con:query("SELECT pg_sleep(0.05)") end
end
LUA
kill_mysql_conns() {
  for id in $(mysql_q "SELECT id FROM information_schema.processlist WHERE user='sbtest' AND info LIKE 'SELECT SLEEP%'"); do
    mysql_q "KILL $id" 2>/dev/null
  done
}
kill_pg_conns() {
  pgsql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND pid <> pg_backend_pid()" >/dev/null
}
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  # default: a lost connection is fatal, the report is kept
  "$BMK" slowq.lua $O --threads=2 --time=20 run > lost.out 2>&1 &
  pid=$!
  sleep 2
  if [ $db = mysql ]; then kill_mysql_conns; else kill_pg_conns; fi
  timeout 30 tail --pid=$pid -f /dev/null
  wait $pid
  rc=$?
  OUT=$(cat lost.out)
  assert_eq "$db connection killed: exit 1" 1 "$rc"
  assert_contains "$db connection killed: keeps the report" "$OUT" "Run interrupted: fatal error in thread"
  assert_contains "$db connection killed: report printed" "$OUT" "SQL statistics:"
  # with lost connections ignorable, the run survives and counts reconnects
  if [ $db = mysql ]; then L="--mysql-ignore-errors=lost"; else L="--pgsql-ignore-errors=lost"; fi
  "$BMK" slowq.lua $O $L --threads=2 --time=4 run > lost.out 2>&1 &
  pid=$!
  sleep 1.5
  if [ $db = mysql ]; then kill_mysql_conns; else kill_pg_conns; fi
  wait $pid
  rc=$?
  OUT=$(cat lost.out)
  assert_eq "$db lost ignorable: run completes" 0 "$rc"
  check "$db lost ignorable: reconnects counted" test "$(report_value 'reconnects:' "$OUT")" -ge 1
done

finish
