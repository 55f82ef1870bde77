#!/usr/bin/env bash
# bmk tpch with --endpoints (docs/tpch.md "Replicas"): on the test's own
# replicated sandbox (tests/integration/lib/endpoints_lib.sh: a MariaDB
# GTID replica and a PostgreSQL streaming standby beside their primaries),
# SF 0.01, prepare on the primary, then a power test whose 22 queries run
# on the replica and RF1/RF2 on the primary, checked with the servers' own
# counters:
# - the replica runs the queries: MariaDB Com_select grows by at least the
#   22 queries (also the catch-up wait's MASTER_GTID_WAIT), the primary's
#   by fewer than 22; PostgreSQL the standby's xact_commit by at least 22;
# - the primary's row counters are the refresh functions' rows (RF2
#   deletes old orders: its line items are the primary's lineitem count
#   before, plus RF1's, less after): MariaDB Handler_write / Handler_delete
#   are RF1's orders + line items / RF2's plus the tpch_meta keys the run
#   rewrites (a DELETE of the key when present, an INSERT: 5 keys,
#   rf_state twice); PostgreSQL n_tup_ins / n_tup_del of orders and
#   lineitem are exactly RF1's and RF2's;
# - --results names each step's endpoint: the queries "replica1", RF1 and
#   RF2 "main"; the table says "on replica1";
# - the queries waited for the replica to catch up after RF1 (the line);
# - an endpoints file without a primary: one FATAL line, exit 1.
# About 20 s (most of it starting the four servers).
source "$(dirname "$0")/lib/lib.sh"
EP_PORT_OFFSET=250     # the port plan: tests/integration/lib/endpoints_lib.sh
source "$(dirname "$0")/lib/endpoints_lib.sh"
fatal_lines() { printf '%s\n' "$OUT" | grep -c '^FATAL'; }

start_replicated
endpoints "$WORK/my.json" mysql "$MY_P" "$MY_R"
endpoints "$WORK/pg.json" pgsql "$PG_P" "$PG_R"

# ---- bad input: no primary --------------------------------------------------
sed 's/"role": "primary"/"role": "replica"/' "$WORK/my.json" >"$WORK/noprimary.json"
run_bmk tpch --endpoints="$WORK/noprimary.json" --scale=0.01 run
assert_eq "no primary in the file: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
assert_contains "no primary in the file: message" "$OUT" \
  '--endpoints: no endpoint has the role "primary"'


for db in mysql pgsql; do
  if [ $db = mysql ]; then J=$WORK/my.json; else J=$WORK/pg.json; fi
  O="--endpoints=$J --db-driver=$db --scale=0.01"
  run_bmk tpch $O --threads=2 --indexes prepare
  assert_eq "$db: prepare on the primary: exit 0" 0 "$RC"
  if [ $db = mysql ]; then
    sel_p0=$(mystat "$MY_P" Com_select) sel_r0=$(mystat "$MY_R" Com_select)
    ins0=$(mystat "$MY_P" Handler_write) del0=$(mystat "$MY_P" Handler_delete)
    lines0=$(my "$MY_P" "SELECT COUNT(*) FROM lineitem")
    keys=$(my "$MY_P" "SELECT COUNT(*) FROM tpch_meta WHERE k IN ('rf_state', 'rf_set', 'rf_next', 'lineitem_rows')")
  else
    st="SELECT xact_commit FROM pg_stat_database WHERE datname = 'sbtest'"
    tup="SELECT sum(n_tup_ins) || ' ' || sum(n_tup_del) FROM pg_stat_user_tables WHERE relname IN"
    xr0=$(pg "$PG_R" "$st")
    lines0=$(pg "$PG_P" "SELECT COUNT(*) FROM lineitem")
    read -r oi0 od0 <<<"$(pg "$PG_P" "$tup ('orders')")"
    read -r li0 ld0 <<<"$(pg "$PG_P" "$tup ('lineitem')")"
  fi
  run_bmk tpch $O --results="$WORK/$db.json" run
  assert_eq "$db: power test with --endpoints: exit 0" 0 "$RC"
  [ "$RC" = 0 ] || printf '%s\n' "$OUT" | tail -20 | sed 's/^/    | /'
  assert_eq "$db: --results: the 22 queries on the replica" 22 \
    "$(grep -o '"endpoint": "replica1"' "$WORK/$db.json" | wc -l)"
  check "$db: --results: the document validates" json_ok "$WORK/$db.json"
  assert_eq "$db: --results: RF1 and RF2 on the primary" 2 \
    "$(grep -o '"endpoint": "main"' "$WORK/$db.json" | wc -l)"
  assert_eq "$db: the table: 22 steps on replica1, 2 on main" "22 2" \
    "$(grep -c ' on replica1$' <<<"$OUT") $(grep -c ' on main$' <<<"$OUT")"
  assert_contains "$db: waited for the replica before the queries" "$OUT" \
    "run: replica 'replica1' has caught up with the primary"
  # RF1's orders and line items, RF2's orders (the table's rows column)
  rf1=$(awk '$1 == "RF1" { print $3 }' <<<"$OUT")
  rf1_o=${rf1%+*} rf1_l=${rf1#*+}
  rf2_o=$(awk '$1 == "RF2" { print $3 }' <<<"$OUT")
  assert_eq "$db: RF2 deletes RF1's orders" "$rf1_o" "$rf2_o"
  if [ $db = mysql ]; then
    sel_p=$(( $(mystat "$MY_P" Com_select) - sel_p0 ))
    sel_r=$(( $(mystat "$MY_R" Com_select) - sel_r0 ))
    ins=$(( $(mystat "$MY_P" Handler_write) - ins0 ))
    del=$(( $(mystat "$MY_P" Handler_delete) - del0 ))
    rf2_l=$(( lines0 + rf1_l - $(my "$MY_P" "SELECT COUNT(*) FROM lineitem") ))
    assert_eq "$db: the replica ran the queries (Com_select +$sel_r >= 22)" 1 $((sel_r >= 22))
    assert_eq "$db: the primary ran none (Com_select +$sel_p < 22)" 1 $((sel_p < 22))
    assert_eq "$db: the primary's rows written (Handler_write): RF1's + 5 of tpch_meta" \
      $((rf1_o + rf1_l + 5)) "$ins"
    assert_eq "$db: the primary's rows deleted (Handler_delete): RF2's + tpch_meta's" \
      $((rf2_o + rf2_l + keys + 1)) "$del"
  else
    xr=$(( $(pg "$PG_R" "$st") - xr0 ))
    read -r oi od <<<"$(pg "$PG_P" "$tup ('orders')")"
    read -r li ld <<<"$(pg "$PG_P" "$tup ('lineitem')")"
    rf2_l=$(( lines0 + rf1_l - $(pg "$PG_P" "SELECT COUNT(*) FROM lineitem") ))
    assert_eq "$db: the standby ran the queries (xact_commit +$xr >= 22)" 1 $((xr >= 22))
    assert_eq "$db: the primary's orders inserted / deleted: RF1's / RF2's" \
      "$rf1_o $rf2_o" "$((oi - oi0)) $((od - od0))"
    assert_eq "$db: the primary's line items inserted / deleted: RF1's / RF2's" \
      "$rf1_l $rf2_l" "$((li - li0)) $((ld - ld0))"
  fi
  run_bmk tpch $O check
  assert_eq "$db: check on the primary after the run: exit 0" 0 "$RC"
  run_bmk tpch $O cleanup
  assert_eq "$db: cleanup: exit 0" 0 "$RC"
done

finish
