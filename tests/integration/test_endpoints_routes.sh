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
#   with prepared statements each Parse is a transaction of its own too).
source "$(dirname "$0")/lib.sh"
EP_PORT_OFFSET=170
source "$(dirname "$0")/endpoints_lib.sh"
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

run_bmk tpcc --endpoints="$WORK/my.json" --scale=1 --tables=1 --use-fk=0 --load-method=infile \
  --threads=2 prepare
assert_eq "mysql tpcc: prepare on the primary: exit 0" 0 "$RC"
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

run_bmk tpcc --endpoints="$WORK/pg.json" --scale=1 --tables=1 --use-fk=0 --threads=2 prepare
assert_eq "pgsql tpcc: prepare on the primary: exit 0" 0 "$RC"
check "pgsql tpcc: the standby catches up with the prepare" wait_for 120 pg_caught_up
# xacts_r: the standby's xact_commit once no other session is left on
# sbtest (a session's statistics are flushed before it leaves
# pg_stat_activity); sets X and XN, the sessions (psql's, one commit each)
# the wait took
xacts_r() {
  XN=0
  until X=$(pg "$PG_R" "SELECT xact_commit FROM pg_stat_database WHERE datname = 'sbtest' AND
      (SELECT count(*) FROM pg_stat_activity WHERE datname = 'sbtest' AND pid <> pg_backend_pid()) = 0") &&
      [ -n "$X" ]; do
    XN=$((XN + 1))
    [ $XN -ge 300 ] && break
    sleep 0.1
  done
}
# pg_tpcc EVENTS: a run; R_X the standby's xact_commit delta less the
# test's own psql sessions (the first read's and the polls before the last)
pg_tpcc() {
  local rx
  xacts_r
  rx=$X
  run_bmk tpcc --endpoints="$WORK/pg.json" --scale=1 --tables=1 $COUNTED --tpcc-mode=text --threads=1 \
    --events="$1" run
  xacts_r
  R_X=$((X - rx - 1 - XN))
}
pg_tpcc 20
assert_eq "pgsql tpcc run: exit 0" 0 "$RC"
tpcc_split pgsql
x1=$R_X r1=$ROUTED
pg_tpcc 60
tpcc_split pgsql
assert_eq "pgsql tpcc, 60 vs 20 events: the standby's xact_commit grows by the routed transactions" \
  "$((ROUTED - r1))" "$((R_X - x1))"

finish
