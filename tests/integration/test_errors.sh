#!/usr/bin/env bash
# Bad input against real servers: wrong password, unreachable host, unknown
# driver, the server closing connections mid-run (fatal by default; with
# `lost` ignorable the run survives and counts reconnects). Each case must
# give a clear message and a non-zero exit, never a crash or a hang.
set -u
source "$(dirname "$0")/lib/lib.sh"
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
# the server's max_connections below --threads, one thread per VU (the
# event loop's case is test_evloop.sh's): bmk names the limit after the
# driver's "Too many connections" (MariaDB's lowest limit is 10; it lets
# one more privileged session such as sbtest's in)
if [ -z "${BMK_TEST_DBS:-}" ] || [[ " $BMK_TEST_DBS " == *" mysql "* ]]; then
  maxc=$(mysql_q 'SELECT @@max_connections')
  mysql_q "SET GLOBAL max_connections = 10"
  run_bmk conn.lua $MYSQL_OPTS --threads=24 --workers=threads --db-server-stats=off --server-cost=off --events=24 run
  mysql_q "SET GLOBAL max_connections = $maxc"
  assert_eq "max_connections below --threads (threads): exit 1" 1 "$RC"
  assert_match "max_connections (threads): the driver's error" "$OUT" "^FATAL: error 1040: Too many connections"
  assert_match "max_connections (threads): bmk names the limit" "$OUT" \
    "^FATAL: the server refused connection [0-9]+: its connection limit is reached \(MariaDB/MySQL max_connections, PostgreSQL max_connections, pgbouncer max_client_conn\); raise it or lower --threads$"
fi
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
# wait_for FILE REGEX N: until N lines of FILE match REGEX (at most 30 s).
wait_for() {
  for _ in $(seq 600); do
    [ "$(grep -cE "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
    sleep 0.05
  done
  return 1
}
# kill_mysql_conns / kill_pg_conns: end the sessions running the
# script's sleep now; true when at least one was ended (KILL of an id that
# has gone in the meantime fails and does not count).
kill_mysql_conns() {
  local id ok=1
  for id in $(mysql_q "SELECT id FROM information_schema.processlist WHERE user='sbtest' AND info LIKE 'SELECT SLEEP%'"); do
    mysql_q "KILL $id" 2>/dev/null && ok=0
  done
  return $ok
}
kill_pg_conns() {
  [ "$(pgsql_q "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active' AND pid <> pg_backend_pid()) k WHERE t")" -gt 0 ] 2>/dev/null
}
# kill_running DB: once the run has started (its output says so), kills its
# sessions while they run a query, retrying until one was ended (sequenced
# by the run's own progress, not by a sleep).
kill_running() {
  wait_for lost.out '^Threads started!$' 1
  for _ in $(seq 3000); do
    if [ $1 = mysql ]; then kill_mysql_conns && return 0; else kill_pg_conns && return 0; fi
    sleep 0.05
  done
  echo "# kill_running $1: no session of the run was found running its query" >&2
}
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  # default: a lost connection is fatal, the report is kept
  "$BMK" slowq.lua $O --threads=2 --time=20 run > lost.out 2>&1 &
  pid=$!
  kill_running $db
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
  kill_running $db
  wait $pid
  rc=$?
  OUT=$(cat lost.out)
  assert_eq "$db lost ignorable: run completes" 0 "$rc"
  check "$db lost ignorable: reconnects counted" test "$(report_value 'reconnects:' "$OUT")" -ge 1
done

# A lost connection being re-established (ignorable lost errors) gives one
# WARNING per thread naming the retry and its back-off and one line when it
# is back, not the connect FATAL lines at every attempt (test_dropin.sh,
# item 13).
# The server refuses the reconnects for a while: the account is locked
# (MySQL) or may not log in (PostgreSQL) when its sessions are killed.
lock() {  # db on|off
  if [ $1 = mysql ]; then
    mysql_q "ALTER USER bmk_rc@'127.0.0.1' ACCOUNT $([ $2 = on ] && echo LOCK || echo UNLOCK)"
  else
    pgsql_q "ALTER ROLE bmk_rc $([ $2 = on ] && echo NOLOGIN || echo LOGIN)" >/dev/null
  fi
}
kill_sessions() {
  if [ $1 = mysql ]; then
    for id in $(mysql_q "SELECT id FROM information_schema.processlist WHERE user='bmk_rc'"); do
      mysql_q "KILL $id" 2>/dev/null
    done
  else
    pgsql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename='bmk_rc'" >/dev/null
  fi
}
mysql_q "DROP USER IF EXISTS bmk_rc@'127.0.0.1'"
mysql_q "CREATE USER bmk_rc@'127.0.0.1' IDENTIFIED BY 'rc'"
mysql_q "GRANT ALL ON sbtest.* TO bmk_rc@'127.0.0.1'"
pgsql_q "DROP ROLE IF EXISTS bmk_rc" >/dev/null 2>&1
pgsql_q "CREATE ROLE bmk_rc LOGIN PASSWORD 'rc'" >/dev/null
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then
    O="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MYSQL_PORT --mysql-user=bmk_rc --mysql-password=rc --mysql-db=sbtest --mysql-ignore-errors=lost"
    fatal="FATAL: unable to connect"
  else
    O="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGSQL_PORT --pgsql-user=bmk_rc --pgsql-password=rc --pgsql-db=sbtest --pgsql-ignore-errors=lost"
    fatal="FATAL: Connection to database failed"
  fi
  # refused until both threads have said so, then back: a WARNING and a
  # line per thread. Sequenced by the output, not by sleeps: the account is
  # locked and the sessions killed once the run has started, and unlocked
  # once both WARNINGs are out; --events keeps the run going until the
  # threads are back (a retrying thread completes no event).
  timeout -k 5 60 "$BMK" slowq.lua $O --db-server-stats=off --threads=2 --events=100 run > rc.out 2>&1 &
  pid=$!
  wait_for rc.out '^Threads started!$' 1
  lock $db on
  kill_sessions $db
  wait_for rc.out '^WARNING: thread [01]: lost connection' 2
  lock $db off
  wait $pid
  rc=$?
  OUT=$(cat rc.out)
  assert_eq "$db reconnect after refusals: exit 0" 0 "$rc"
  for t in 0 1; do
    assert_eq "$db thread $t: one WARNING naming the retry" 1 \
      "$(grep -cE "^WARNING: thread $t: lost connection \(.+\); reconnect failed \(.+\); retrying with a back-off from 1 ms doubling to 1 s until it succeeds or the run ends$" <<< "$OUT")"
    assert_eq "$db thread $t: one line when it is back" 1 \
      "$(grep -cE "^thread $t: reconnected after [0-9]+\.[0-9]{2}s \([0-9]+ attempts\)$" <<< "$OUT")"
  done
  assert_not_contains "$db no connect FATAL lines while retrying" "$OUT" "$fatal"
  check "$db reconnects counted" test "$(report_value 'reconnects:' "$OUT")" -ge 2
  # refused until the run ends: it still ends at --time, with one more line
  timeout -k 5 60 "$BMK" slowq.lua $O --db-server-stats=off --time=3 run > rc.out 2>&1 &
  pid=$!
  wait_for rc.out '^Threads started!$' 1
  lock $db on
  kill_sessions $db
  wait $pid
  rc=$?
  lock $db off
  OUT=$(cat rc.out)
  assert_eq "$db reconnect refused until the end: exit 0, no hang" 0 "$rc"
  assert_eq "$db refused until the end: one giving-up line" 1 \
    "$(grep -cE "^WARNING: thread 0: no connection to the server \(.+\); giving up: reconnecting is retried only while a run is going on$" <<< "$OUT")"
  assert_eq "$db refused until the end: no FATAL line" 0 "$(grep -c '^FATAL' <<< "$OUT")"
done
mysql_q "DROP USER IF EXISTS bmk_rc@'127.0.0.1'"
pgsql_q "DROP ROLE IF EXISTS bmk_rc" >/dev/null 2>&1

# An ignorable SQL error raised outside an event (sysbench.sql's error
# table, e.g. a connection lost in thread_init) names the SQL error, not
# only that the error object was a table.
cat > init_err.lua <<'EOF2'
function thread_init()
  error({ sql_errno = 2013, sql_state = "HY000", sql_errmsg = "Lost connection to server", errcode = 2 })
end
function event() end
EOF2
run_bmk init_err.lua --events=1 run
assert_eq "an error table in thread_init: exit 1" 1 "$RC"
assert_contains "... names the SQL error" "$OUT" \
  "FATAL: \`thread_init' function failed: (error object is a table value: SQL error, errno = 2013, state = 'HY000': Lost connection to server; an ignorable error outside an event cannot restart it)"

# ---- --pgsql-db as a connection URI: it wins over host, port and user ---------
if pgsql_q "SELECT 1" >/dev/null 2>&1; then
  U="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=1 --pgsql-user=nobody --pgsql-password=$DBPASS"
  URI="postgresql://sbtest@127.0.0.1:$PGSQL_PORT/sbtest?application_name=bmk_uri_check"
  "$BMK" oltp_point_select $PGSQL_OPTS --tables=1 cleanup >/dev/null 2>&1
  run_bmk oltp_point_select $U --pgsql-db="$URI" --tables=1 --table-size=10 prepare
  assert_eq "--pgsql-db as a URI: prepare through it, exit 0" 0 "$RC"
  assert_eq "... the table is on the URI's server" 10 "$(pgsql_q "SELECT COUNT(*) FROM sbtest1")"
  run_bmk oltp_point_select $U --pgsql-db="$URI" --tables=1 cleanup
  assert_eq "... cleanup through it: exit 0, the table gone" "0 0" \
    "$RC $(pgsql_q "SELECT COUNT(*) FROM pg_tables WHERE tablename = 'sbtest1'")"
fi

finish
