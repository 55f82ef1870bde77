#!/usr/bin/env bash
# --endpoints (docs/endpoints.md), routes per transaction type and
# failures, on the test's own replicated sandbox (endpoints_lib.sh):
# - tpcc with routing.types order_status and stock_level on the replica:
#   the Endpoints block has the primary's BEGIN/COMMIT pairs for
#   new_order, payment and delivery and the replica's for order_status and
#   stock_level (the per-type table's counts); MariaDB: the primary's
#   Com_commit is new_order+payment+delivery's commits, the replica's is
#   that (replicated) plus order_status+stock_level's, its Com_select the
#   replica's reads; PostgreSQL: the standby's xact_commit grows by the
#   routed transactions between a short and a longer run (--tpcc-mode=text:
#   with prepared statements each Parse is a transaction of its own too;
#   both runs short, under a second, so that the lag sampler's statements,
#   one a second, cancel out; a mix with more of the routed types);
#   then `tpcc check` waits for the replica and passes on both endpoints,
#   and gives up naming the replica when its SQL thread is stopped
#   (--replica-wait=1).
# - the replica stopped mid-run (tools/sandbox.sh down / up mysql-replica),
#   lost connections ignored: endpoints_hold.lua runs one SELECT per event
#   on the read route and holds before event 20's until the replica is
#   down. Default policy: the VU retries the replica, which is brought
#   back once bmk says its reconnect failed: the replica has every SELECT,
#   one error and one reconnect. --on-endpoint-failure=next: the
#   connection moves to the primary at once: 19 SELECTs on the replica,
#   one error and one failover there, 21 on the primary (its Com_select)
#   with one reconnect (in the event loop: --workers=1). Both runs end
#   with exit 0 and 40 events. Each endpoint's latency histogram holds its
#   successful statements (the p95 column, --results latency_ms).
#   PostgreSQL's twin (down / up pgsql-replica): the same counts, the
#   default policy in the event loop and next in the blocking engine.
# - con:route() (endpoints_route.lua): each of 10 events runs a SELECT on
#   the primary, moves to the replica, runs a SELECT and a prepared SELECT
#   there and moves back: the primary's Com_select grows by 10, the
#   replica's by 20, Com_stmt_prepare by 1+10 and 10 (the statement
#   prepared again at each move), the Endpoints block and --results agree
#   (connects and latency counts); in both engines, with a route, a role
#   and an endpoint's name as targets. An unknown name, a move inside a
#   transaction (MariaDB and PostgreSQL), an endpoint that does not answer
#   and a move without --endpoints end the run with exit 1 and a message
#   naming the cause.
# - the kit's dbSTRESS (kit_dbstress.lua) with routing.types SEL1 and SEL2
#   on the replica: a 100-object set loaded on the primary, 10 events of
#   2 SEL1 + 3 SEL2, writes on one event in two: the replica's Com_select
#   grows by the 50 SELECTs, the primary's by none, its Com_commit,
#   Com_delete, Com_insert and Com_update by the client's (10, 10, 10,
#   5), Com_set_option by the session option's SET on each connection
#   (1 and 2); the Endpoints block and --results agree. The SEL1
#   connection killed before the 5th event (--mysql-ignore-errors=lost):
#   the event runs again after one ROLLBACK on the primary and the SET
#   again on every connection, the same counts otherwise. PostgreSQL:
#   the Endpoints block, and the primary's pg_stat_user_tables: HISTORY's
#   rows deleted/inserted/updated are the client's, OBJECT and STAT not
#   scanned there.
source "$(dirname "$0")/lib/lib.sh"
EP_PORT_OFFSET=200     # the port plan: tests/integration/lib/endpoints_lib.sh
source "$(dirname "$0")/lib/endpoints_lib.sh"
COUNTED="--db-server-stats=off --server-cost=off"
TPCC_ROUTES='{"types": {"order_status": "replica", "stock_level": "replica"}}'

start_replicated
endpoints "$WORK/my.json" mysql "$MY_P" "$MY_R" "$TPCC_ROUTES"
endpoints "$WORK/pg.json" pgsql "$PG_P" "$PG_R" "$TPCC_ROUTES"

# type_col TYPE COLUMN: a column of the "Transactions per type" table of
# $OUT (2 attempts, 3 commits)
type_col() {
  printf '%s\n' "$OUT" | awk -v t="$1" -v c="$2" '
    /^Transactions per type/ { on = 1; next }
    on && $1 == t { print $c; exit }'
}
# ep_col NAME COLUMN: a column of the Endpoints block (3 reads, 4 writes,
# 5 other, 6 errors, 7 reconnects)
ep_col() {
  printf '%s\n' "$OUT" | awk -v n="$1" -v c="$2" '
    /^Endpoints \(/ { on = 1; next }
    on && $1 == n { print $c; exit }'
}
# tpcc_split DB: the Endpoints block against the per-type table: every
# transaction is one BEGIN and one COMMIT (or the intended ROLLBACK)
tpcc_split() {
  local t prim=0 repl=0
  for t in new_order payment delivery; do prim=$((prim + $(type_col $t 2) + 0)); done
  for t in order_status stock_level; do repl=$((repl + $(type_col $t 2) + 0)); done
  ROUTED=0
  for t in order_status stock_level; do ROUTED=$((ROUTED + $(type_col $t 3) + 0)); done
  assert_eq "$1 tpcc: the replica's BEGIN/COMMIT are order_status's and stock_level's" \
    "$((2 * repl))" "$(ep_col replica1 5)"
  assert_eq "$1 tpcc: the primary's BEGIN/COMMIT are new_order's, payment's and delivery's" \
    "$((2 * prim))" "$(ep_col main 5)"
  assert_eq "$1 tpcc: no write on the replica" 0 "$(ep_col replica1 4)"
}

# ------------------------------------------------------- tpcc routed per type

# both databases' schemas loaded side by side (the client mostly waits)
timeout -k 5 120 "$BMK" tpcc --endpoints="$WORK/pg.json" --scale=1 --tables=1 --use-fk=0 --threads=2 \
  prepare >"$WORK/pg-prepare.out" 2>&1 &
pg_prepare=$!
run_bmk tpcc --endpoints="$WORK/my.json" --scale=1 --tables=1 --use-fk=0 --load-method=infile \
  --threads=2 prepare
assert_eq "mysql tpcc: prepare on the primary: exit 0" 0 "$RC"
wait $pg_prepare
assert_eq "pgsql tpcc: prepare on the primary: exit 0" 0 "$?"
check "mysql tpcc: the replica catches up with the prepare" wait_for 120 my_caught_up
pc=$(mystat "$MY_P" Com_commit) rc=$(mystat "$MY_R" Com_commit) rs=$(mystat "$MY_R" Com_select)
run_bmk tpcc --endpoints="$WORK/my.json" --scale=1 --tables=1 $COUNTED --threads=1 --events=40 run
assert_eq "mysql tpcc run: exit 0" 0 "$RC"
tpcc_split mysql
# (before the wait: my_caught_up's SELECTs count in Com_select)
rsd=$(($(mystat "$MY_R" Com_select) - rs))
check "mysql tpcc: the replica catches up with the run" wait_for 60 my_caught_up
pcd=$(($(mystat "$MY_P" Com_commit) - pc))
prim=0
for t in new_order payment delivery; do prim=$((prim + $(type_col $t 3) + 0)); done
# (+1: the first Delivery after prepare records delivery_executed in tpcc_meta)
[ "$(type_col delivery 3)" -gt 0 ] 2>/dev/null && prim=$((prim + 1))
assert_eq "mysql tpcc: the primary's Com_commit is new_order+payment+delivery's commits" "$prim" "$pcd"
assert_eq "mysql tpcc: the replica's Com_commit is the primary's plus the routed commits" \
  "$ROUTED" "$(($(mystat "$MY_R" Com_commit) - rc - pcd))"
assert_eq "mysql tpcc: the replica's Com_select is the replica's reads" \
  "$(ep_col replica1 3)" "$rsd"

check "pgsql tpcc: the standby catches up with the prepare" wait_for 120 pg_caught_up
# pg_tpcc EVENTS: a run with the per-endpoint server statistics (exact
# at the window's edges: docs/endpoints.md "Results"); R_X the standby's
# own xact_commit + xact_rollback in the window less bmk's own statements
# there (the lag sampler's), and the server equal to bmk's count
pg_tpcc() {
  run_bmk tpcc --endpoints="$WORK/pg.json" --scale=1 --tables=1 --server-cost=off --tpcc-mode=text \
    --threads=1 --mix=2,2,3,1,3 --events="$1" --results="$WORK/pgt.json" run
  local srv
  srv=$(json_get "$WORK/pgt.json" "' '.join(str(v) for v in [(e['server']['transactions'], e['server']['bmk_transactions'] + e['server']['bmk_own_transactions'], e['server']['transactions'] - e['server']['bmk_own_transactions']) for e in d['endpoints'] if e['name'] == 'replica1'][0])")
  read -r SRV_X BMK_X R_X <<< "$srv"
  assert_eq "pgsql tpcc, $1 events: the standby's transactions (server) are bmk's" "$BMK_X" "$SRV_X"
}
pg_tpcc 10
assert_eq "pgsql tpcc run: exit 0" 0 "$RC"
tpcc_split pgsql
x1=$R_X r1=$ROUTED
pg_tpcc 30
tpcc_split pgsql
assert_eq "pgsql tpcc, 30 vs 10 events: the standby's xact_commit grows by the routed transactions" \
  "$((ROUTED - r1))" "$((R_X - x1))"

# check after the runs: waits for the replica, then runs on both
for db in mysql pgsql; do
  j=$WORK/my.json
  [ $db = pgsql ] && j=$WORK/pg.json
  run_bmk tpcc --endpoints="$j" --scale=1 --tables=1 --threads=1 check
  assert_eq "$db tpcc check: exit 0" 0 "$RC"
  assert_match "$db tpcc check: waits for the replica" "$OUT" "^check: replica 'replica1' has caught up with the primary"
  assert_match "$db tpcc check: passes on the primary" "$OUT" \
    "^Checks: [0-9]+ PASSED, 0 FAILED, [0-9]+ N/A .* on endpoint 'main'$"
  assert_match "$db tpcc check: passes on the replica" "$OUT" \
    "^Checks: [0-9]+ PASSED, 0 FAILED, [0-9]+ N/A .* on endpoint 'replica1'$"
done
# a replica that does not apply: check gives up after --replica-wait, naming it
my "$MY_R" "STOP SLAVE SQL_THREAD"
my "$MY_P" "UPDATE warehouse1 SET w_ytd = w_ytd + 0 WHERE w_id = 1; CREATE TABLE IF NOT EXISTS ep_mark (a INT)"
run_bmk tpcc --endpoints="$WORK/my.json" --scale=1 --tables=1 --threads=1 --replica-wait=1 check
my "$MY_R" "START SLAVE SQL_THREAD"
assert_eq "mysql tpcc check, replica stopped applying: exit 1" 1 "$RC"
assert_contains "mysql tpcc check, replica stopped applying: the message names it" "$OUT" \
  "check: replica 'replica1' has not caught up with the primary within 1 s (--replica-wait)"
assert_not_contains "mysql tpcc check, replica stopped applying: nothing checked" "$OUT" "Checks:"

# ------------------------------------------------------------- con:route()

endpoints "$WORK/my-plain.json" mysql "$MY_P" "$MY_R"
endpoints "$WORK/pg-plain.json" pgsql "$PG_P" "$PG_R"
# route_run NAME OPTIONS...: 10 events of endpoints_route.lua (a SELECT
# on the primary, con:route to the replica, a SELECT and the prepared
# SELECT there, back to the primary); each server's counters grow by
# exactly its share, the statement is prepared again at each move
route_run() {
  local name=$1 ps pr qs qr
  shift
  ps=$(mystat "$MY_P" Com_select) pr=$(mystat "$MY_R" Com_select)
  qs=$(mystat "$MY_P" Com_stmt_prepare) qr=$(mystat "$MY_R" Com_stmt_prepare)
  run_bmk "$TOP/tests/integration/fixtures/endpoints/endpoints_route.lua" --endpoints="$WORK/my-plain.json" $COUNTED \
    --threads=1 --events=10 --results="$WORK/route.json" "$@" run
  assert_eq "$name: exit 0" 0 "$RC"
  assert_eq "$name: the primary's Com_select: the SELECT before each move" \
    10 "$(($(mystat "$MY_P" Com_select) - ps))"
  assert_eq "$name: the replica's Com_select: the text and the prepared SELECT after each move" \
    20 "$(($(mystat "$MY_R" Com_select) - pr))"
  assert_eq "$name: Com_stmt_prepare: the primary's first and one per move back, one per move on the replica" \
    "11 10" "$(($(mystat "$MY_P" Com_stmt_prepare) - qs)) $(($(mystat "$MY_R" Com_stmt_prepare) - qr))"
  assert_match "$name: the Endpoints block: 10 reads on the primary" "$OUT" \
    "^    main +primary +10 +0 +0 +0 +0 +0 +[0-9.]+ *$"
  assert_match "$name: the Endpoints block: 20 reads on the replica" "$OUT" \
    "^    replica1 +replica +20 +0 +0 +0 +0 +0 +[0-9.]+ +[-0-9.]+$"
  # (the replica's connects also hold the lag sampler's connection)
  assert_eq "$name: --results: 10 connects on the primary (the moves back), latency counts" \
    "main 10 10 replica1 20" \
    "$(json_get "$WORK/route.json" "' '.join(e['name'] + (' %d' % e['connects'] if e['name'] == 'main' else '') + ' %d' % e['latency_ms']['count'] for e in d['endpoints'])")"
}
route_run "con:route, threads"
# the event loop's form; a role and an endpoint's name as targets
EP_ROUTE=replica EP_BACK=main route_run "con:route, event loop" --workers=1
for w in threads 1; do
  EP_ROUTE=nosuch run_bmk "$TOP/tests/integration/fixtures/endpoints/endpoints_route.lua" --endpoints="$WORK/my-plain.json" \
    $COUNTED --threads=1 --events=1 --workers=$w run
  assert_eq "con:route to an unknown name (--workers=$w): exit 1" 1 "$RC"
  assert_contains "con:route to an unknown name (--workers=$w): the message names it" "$OUT" \
    "endpoints_route.lua:17: con:route('nosuch'): the --endpoints file has no route, endpoint or role of that name"
done
# in a transaction: refused (MariaDB's server status, libpq's transaction status)
EP_TX=1 run_bmk "$TOP/tests/integration/fixtures/endpoints/endpoints_route.lua" --endpoints="$WORK/my-plain.json" \
  $COUNTED --threads=1 --events=1 run
assert_eq "con:route in a transaction: exit 1" 1 "$RC"
assert_contains "con:route in a transaction: the message" "$OUT" \
  "con:route('default'): not moved to endpoint 'main': the connection is in a transaction: COMMIT or ROLLBACK first"
EP_TX=1 run_bmk "$TOP/tests/integration/fixtures/endpoints/endpoints_route.lua" --endpoints="$WORK/pg-plain.json" \
  $COUNTED --threads=1 --events=1 --workers=1 run
assert_eq "pgsql con:route in a transaction, event loop: exit 1" 1 "$RC"
assert_contains "pgsql con:route in a transaction, event loop: the message" "$OUT" \
  "con:route('default'): not moved to endpoint 'main': the connection is in a transaction: COMMIT or ROLLBACK first"
# an endpoint that does not answer (a port nothing listens on): the
# driver's FATAL line, then the error; the connection is closed
python3 - "$WORK/my-plain.json" "$WORK/my-dead.json" "$(free_port $((MY_R + 1)))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["endpoints"].append(dict(d["endpoints"][1], name="dead", port=int(sys.argv[3]), role="spare"))
json.dump(d, open(sys.argv[2], "w"))
PY
EP_ROUTE=dead EP_WANT=dead run_bmk "$TOP/tests/integration/fixtures/endpoints/endpoints_route.lua" \
  --endpoints="$WORK/my-dead.json" $COUNTED --threads=1 --events=1 run
assert_eq "con:route to an endpoint that does not answer: exit 1" 1 "$RC"
assert_contains "con:route to an endpoint that does not answer: the message" "$OUT" \
  "con:route(): connecting to endpoint 'dead' failed (the connection left 'main' and is closed now)"
run_bmk "$TOP/tests/integration/fixtures/endpoints/endpoints_route.lua" --mysql-host=127.0.0.1 --mysql-port="$MY_P" \
  --mysql-user=sbtest --mysql-password="$DBPASS" $COUNTED --threads=1 --events=1 run
assert_eq "con:route without --endpoints: exit 1" 1 "$RC"
assert_contains "con:route without --endpoints: the message" "$OUT" \
  "con:route('read'): routes need an --endpoints file (docs/endpoints.md)"

# ------------------------------------------- the replica stopped mid-run

# hold_run DB NAME OPTIONS...: the held run of 40 events (DB mysql or
# pgsql) with the replica taken down before event 20; brought back while
# bmk retries it (default policy) or after the run (next)
hold_run() {
  local db=$1 name=$2 pid n=0 json=$WORK/my-plain.json caught=my_caught_up
  shift 2
  [ "$db" = pgsql ] && json=$WORK/pg-plain.json caught=pg_caught_up
  rm -f "$WORK/ready" "$WORK/go"
  EP_READY=$WORK/ready EP_GO=$WORK/go timeout -k 5 120 "$BMK" "$TOP/tests/integration/fixtures/endpoints/endpoints_hold.lua" \
    --endpoints="$json" --$db-ignore-errors=lost $COUNTED --threads=1 --events=40 \
    --results="$WORK/hold.json" "$@" run >"$WORK/hold.out" 2>&1 &
  pid=$!
  until [ -e "$WORK/ready" ] || [ $n -ge 1200 ]; do n=$((n + 1)); sleep 0.1; done
  own down $db-replica >/dev/null
  touch "$WORK/go"
  if [[ "$*" != *next* ]]; then
    n=0
    until grep -q "reconnect failed" "$WORK/hold.out" || [ $n -ge 1200 ]; do n=$((n + 1)); sleep 0.1; done
    own up $db-replica >/dev/null
  fi
  wait $pid
  RC=$?
  # (before the replica is back: its IO thread's SELECTs count on the primary)
  [ "$db" = mysql ] && P_SEL=$(mystat "$MY_P" Com_select)
  [[ "$*" == *next* ]] && own up $db-replica >/dev/null
  check "$name: the replica is back and caught up" wait_for 60 $caught
  OUT=$(cat "$WORK/hold.out")
  assert_eq "$name: exit 0" 0 "$RC"
  assert_eq "$name: 40 events" 40 "$(report_value "total number of events:" "$OUT")"
}
# the default policy in the blocking engine, next in the event loop
# (--workers=1: bmk.vu's connect); both share the rebuild's failover code
hold_run mysql "replica down, reconnect"
assert_match "replica down, reconnect: the replica has every SELECT, one error, one reconnect" \
  "$OUT" "^    replica1 +replica +40 +0 +0 +1 +1 +0 +[0-9.]+ +[-0-9.]+$"
assert_match "replica down, reconnect: nothing on the primary" "$OUT" \
  "^    main +primary +0 +0 +0 +0 +0 +0 +- *$"
assert_eq "replica down, reconnect: --results latency counts (none on the primary: null p95)" \
  "main 0 None replica1 40" \
  "$(json_get "$WORK/hold.json" "' '.join('%s %d' % (e['name'], e['latency_ms']['count']) + ('' if e['latency_ms']['count'] else ' %s' % e['latency_ms']['p95']) for e in d['endpoints'])")"
assert_eq "replica down, reconnect: --results" "replica1 1 1 0" \
  "$(json_get "$WORK/hold.json" "' '.join('%s %d %d %d' % (e['name'], e['errors'], e['reconnects'], e['failovers']) for e in d['endpoints'] if e['errors'])")"
ps=$(mystat "$MY_P" Com_select)
hold_run mysql "replica down, next, event loop" --on-endpoint-failure=next --workers=1
assert_match "replica down, next: 19 SELECTs on the replica, one error, one failover" \
  "$OUT" "^    replica1 +replica +19 +0 +0 +1 +0 +1 +[0-9.]+ +[-0-9.]+$"
assert_match "replica down, next: the other 21 on the primary, one reconnect" \
  "$OUT" "^    main +primary +21 +0 +0 +0 +1 +0 +[0-9.]+ *$"
assert_eq "replica down, next: the primary's Com_select" 21 "$((P_SEL - ps))"
assert_eq "replica down, next: --results" "main 0 1 0 replica1 1 0 1" \
  "$(json_get "$WORK/hold.json" "' '.join('%s %d %d %d' % (e['name'], e['errors'], e['reconnects'], e['failovers']) for e in d['endpoints'])")"
# per-endpoint latency: every successful statement timed, where it ran
# (the one lost on the replica is not), p95 within (0, max]
assert_eq "replica down, next: --results latency counts" "main 21 replica1 19" \
  "$(json_get "$WORK/hold.json" "' '.join('%s %d' % (e['name'], e['latency_ms']['count']) for e in d['endpoints'])")"
assert_eq "replica down, next: --results latency 0 < p95 <= max" "True True" \
  "$(json_get "$WORK/hold.json" "' '.join(str(0 < e['latency_ms']['p95'] <= e['latency_ms']['max']) for e in d['endpoints'])")"
assert_contains "replica down, next: the NOTICE" "$OUT" \
  "endpoint 'replica1' does not answer; the connection moved to 'main' (--on-endpoint-failure=next)"
# PostgreSQL's standby (tools/sandbox.sh down / up pgsql-replica): the
# default policy in the event loop, next in the blocking engine
hold_run pgsql "pgsql replica down, reconnect, event loop" --workers=1
assert_match "pgsql replica down, reconnect: the replica has every SELECT, one error, one reconnect" \
  "$OUT" "^    replica1 +replica +40 +0 +0 +1 +1 +0 +[0-9.]+ +[-0-9.]+$"
assert_match "pgsql replica down, reconnect: nothing on the primary" "$OUT" \
  "^    main +primary +0 +0 +0 +0 +0 +0 +- *$"
assert_eq "pgsql replica down, reconnect: --results" "main 0 0 0 0 replica1 1 1 0 40" \
  "$(json_get "$WORK/hold.json" "' '.join('%s %d %d %d %d' % (e['name'], e['errors'], e['reconnects'], e['failovers'], e['latency_ms']['count']) for e in d['endpoints'])")"
hold_run pgsql "pgsql replica down, next" --on-endpoint-failure=next
assert_match "pgsql replica down, next: 19 SELECTs on the replica, one error, one failover" \
  "$OUT" "^    replica1 +replica +19 +0 +0 +1 +0 +1 +[0-9.]+ +[-0-9.]+$"
assert_match "pgsql replica down, next: the other 21 on the primary, one reconnect" \
  "$OUT" "^    main +primary +21 +0 +0 +0 +1 +0 +[0-9.]+ *$"
assert_eq "pgsql replica down, next: --results" "main 0 1 0 21 replica1 1 0 1 19" \
  "$(json_get "$WORK/hold.json" "' '.join('%s %d %d %d %d' % (e['name'], e['errors'], e['reconnects'], e['failovers'], e['latency_ms']['count']) for e in d['endpoints'])")"
assert_contains "pgsql replica down, next: the NOTICE" "$OUT" \
  "endpoint 'replica1' does not answer; the connection moved to 'main' (--on-endpoint-failure=next)"
run_bmk oltp_read_only --endpoints="$WORK/my-plain.json" --on-endpoint-failure=elsewhere --events=1 run
assert_eq "--on-endpoint-failure=elsewhere: exit 1" 1 "$RC"
assert_contains "--on-endpoint-failure=elsewhere: message" "$OUT" \
  "Invalid value for --on-endpoint-failure: elsewhere (reconnect or next)"


# ------------------------------------ dbSTRESS routed per statement class

DBS="$TOP/BMK/sb_exec/lua/kit_dbstress.lua"
DBS_O="--obj-table-size=100 --rand-type=uniform --db-ps-mode=auto"
# 10 events of 2 SEL1 + 3 SEL2 in BEGIN/COMMIT, the writes (2 DELETE+INSERT
# pairs, 1 UPDATE) on events 2, 4, ... 10
DBS_RUN="$COUNTED --threads=1 --events=10 --SEL1=2 --SEL2=3 --delete-inserts=2 --updates=1 --rw-ratio=2"
DBS_ROUTES='{"types": {"SEL1": "replica", "SEL2": "replica"}}'
endpoints "$WORK/my-dbs.json" mysql "$MY_P" "$MY_R" "$DBS_ROUTES"
endpoints "$WORK/pg-dbs.json" pgsql "$PG_P" "$PG_R" "$DBS_ROUTES"
# dbs_com PORT: the server's Com_commit Com_delete Com_insert Com_rollback
# Com_select Com_set_option Com_update
dbs_com() {
  my "$1" "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_delete', 'Com_insert',
    'Com_rollback', 'Com_select', 'Com_set_option', 'Com_update')" |
    sort | awk '{printf "%s%s", sep, $2; sep = " "}'
}
# dbs_delta "BEFORE" "AFTER": the differences of two such lists
dbs_delta() {
  local -a a=($1) b=($2)
  local i out=""
  for i in "${!a[@]}"; do out+="$((b[i] - a[i])) "; done
  echo "${out% }"
}
# the tiny set (100 objects, 2000 HISTORY rows) loaded through the default
# route (the primary), both databases (PostgreSQL folds HISTORY1 to
# history1, TPC-C's table above: TPC-C's tables go first)
run_bmk tpcc --endpoints="$WORK/pg.json" --scale=1 --tables=1 cleanup
assert_eq "pgsql tpcc cleanup before dbSTRESS: exit 0" 0 "$RC"
for db in mysql pgsql; do
  run_bmk "$DBS" --endpoints="$WORK/${db:0:2}-dbs.json" $DBS_O create
  assert_eq "$db dbSTRESS create on the primary: exit 0" 0 "$RC"
  run_bmk "$DBS" --endpoints="$WORK/${db:0:2}-dbs.json" $DBS_O --threads=2 prepare
  assert_eq "$db dbSTRESS prepare on the primary: exit 0" 0 "$RC"
done
check "mysql dbSTRESS: the replica catches up with the load" wait_for 60 my_caught_up
p0=$(dbs_com "$MY_P") r0=$(dbs_com "$MY_R")
# (a session option: its SET on each connection, the main one and the two routed)
run_bmk "$DBS" --endpoints="$WORK/my-dbs.json" $DBS_O $DBS_RUN --mysql-session-options="SET @dbs = 1" \
  --results="$WORK/dbs.json" run
assert_eq "mysql dbSTRESS routed: exit 0" 0 "$RC"
# (before the wait: my_caught_up's SELECTs count in Com_select)
rd=$(dbs_delta "$r0" "$(dbs_com "$MY_R")")
assert_contains "mysql dbSTRESS routed: the startup line" "$OUT" "* ROUTED       : [SEL1,SEL2]"
assert_eq "mysql dbSTRESS routed: the replica's Com_select and Com_set_option: the 10 x (2 + 3) SELECTs, the SEL1 and SEL2 connections' SETs" \
  "50 2" "$(echo $rd | cut -d' ' -f5,6)"
assert_eq "mysql dbSTRESS routed: the primary's Com_commit/delete/insert/rollback/select/set_option/update: 10 COMMITs, 5 x 2 DELETE+INSERT, no SELECT, 1 SET, 5 UPDATEs" \
  "10 10 10 0 0 1 5" "$(dbs_delta "$p0" "$(dbs_com "$MY_P")")"
assert_eq "mysql dbSTRESS routed: the Endpoints block (reads writes other errors)" \
  "main 0 25 20 0 replica1 50 0 0 0" \
  "main $(ep_col main 3) $(ep_col main 4) $(ep_col main 5) $(ep_col main 6) replica1 $(ep_col replica1 3) $(ep_col replica1 4) $(ep_col replica1 5) $(ep_col replica1 6)"
assert_eq "mysql dbSTRESS routed: --results reads" "main 0 replica1 50" \
  "$(json_get "$WORK/dbs.json" "' '.join('%s %d' % (e['name'], e['reads']) for e in d['endpoints'])")"
# a routed connection lost mid-run (--mysql-ignore-errors=lost): a
# dbSTRESS-common wrapper kills the SEL1 class's connection before the
# 5th event (its CONNECTION_ID(), a KILL from a connection of its own on
# the replica); the event's first SEL1 fails, the restart rolls the
# primary's open transaction back, applies the session again and
# prepares again, and the event runs again: the same statements plus
# the CONNECTION_ID() on the replica and one ROLLBACK on the primary
cat >"$WORK/dbs_kill.lua" <<'EOF'
require("dbSTRESS-common")
local run = require("kit_dbstress_run")
local killed = false
function event()
  if ops == 4 and not killed then
    killed = true
    local id = run.class_connection("SEL1"):query_row("SELECT CONNECTION_ID()")
    local side = sysbench.sql.driver():connect({endpoint = "replica1"})
    side:query("KILL CONNECTION " .. id)
    side:disconnect()
  end
  dbstress_event()
end
EOF
check "mysql dbSTRESS: the replica catches up with the run" wait_for 60 my_caught_up
p0=$(dbs_com "$MY_P") r0=$(dbs_com "$MY_R")
LUA_PATH="$TOP/BMK/sb_exec/lua/?.lua;;" run_bmk "$WORK/dbs_kill.lua" --endpoints="$WORK/my-dbs.json" \
  --mysql-ignore-errors=lost $DBS_O $DBS_RUN --mysql-session-options="SET @dbs = 1" run
assert_eq "mysql dbSTRESS routed connection lost: exit 0" 0 "$RC"
rd=$(dbs_delta "$r0" "$(dbs_com "$MY_R")")
# (the report counts a loss as a reconnect only; the Endpoints block as an error too)
assert_eq "mysql dbSTRESS routed connection lost: 10 events, 1 reconnect" "10 1" \
  "$(report_value "total number of events:" "$OUT") $(report_value "reconnects:" "$OUT")"
# (the session option again on every connection after the loss)
assert_eq "mysql dbSTRESS routed connection lost: the replica's Com_select: 50 and the CONNECTION_ID(); Com_set_option: 2 + 2" \
  "51 4" "$(echo $rd | cut -d' ' -f5,6)"
assert_eq "mysql dbSTRESS routed connection lost: the primary's Com_*: one ROLLBACK more, the SET again" \
  "10 10 10 1 0 2 5" "$(dbs_delta "$p0" "$(dbs_com "$MY_P")")"
assert_eq "mysql dbSTRESS routed connection lost: the replica's error and reconnect (Endpoints block)" \
  "1 1" "$(ep_col replica1 6) $(ep_col replica1 7)"

# PostgreSQL: the client's Endpoints block, and the primary's own table
# statistics once every session has left (its statistics flushed): the
# HISTORY rows deleted, inserted and updated are the client's, and
# neither OBJECT (SEL1) nor STAT (SEL2) was scanned there
pg_idle() {
  [ "$(pg "$PG_P" "SELECT count(*) FROM pg_stat_activity WHERE datname = 'sbtest' AND pid <> pg_backend_pid()")" = 0 ]
}
pg_tab() {
  pg "$PG_P" "SELECT string_agg(v::text, ' ') FROM (SELECT n_tup_del AS v, 1 AS o FROM pg_stat_user_tables WHERE relname = 'history1'
    UNION ALL SELECT n_tup_ins, 2 FROM pg_stat_user_tables WHERE relname = 'history1'
    UNION ALL SELECT n_tup_upd, 3 FROM pg_stat_user_tables WHERE relname = 'history1'
    UNION ALL SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0), 4 FROM pg_stat_user_tables WHERE relname = 'object1'
    UNION ALL SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0), 5 FROM pg_stat_user_tables WHERE relname = 'stat1' ORDER BY o) s"
}
check "pgsql dbSTRESS: the standby catches up with the load" wait_for 60 pg_caught_up
check "pgsql dbSTRESS: no session left before the run" wait_for 60 pg_idle
t0=$(pg_tab)
run_bmk "$DBS" --endpoints="$WORK/pg-dbs.json" $DBS_O $DBS_RUN run
assert_eq "pgsql dbSTRESS routed: exit 0" 0 "$RC"
assert_eq "pgsql dbSTRESS routed: the Endpoints block (reads writes other errors)" \
  "main 0 25 20 0 replica1 50 0 0 0" \
  "main $(ep_col main 3) $(ep_col main 4) $(ep_col main 5) $(ep_col main 6) replica1 $(ep_col replica1 3) $(ep_col replica1 4) $(ep_col replica1 5) $(ep_col replica1 6)"
check "pgsql dbSTRESS: no session left after the run" wait_for 60 pg_idle
assert_eq "pgsql dbSTRESS routed: the primary's HISTORY rows deleted/inserted/updated, OBJECT and STAT scans" \
  "10 10 5 0 0" "$(dbs_delta "$t0" "$(pg_tab)")"

finish
