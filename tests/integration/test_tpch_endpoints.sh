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
# Then bmk chbench run --endpoints (docs/chbench.md "Replicas") on the
# same pairs, 1 warehouse: 2 TPC-C VUs and one stream's pass of queries
# 2, 8 and 9 (they read SUPPLIER, NATION, REGION, which TPC-C never does):
# - the stream ran on the replica: MariaDB's replica Com_select grew by
#   exactly the 3 queries + 2 (the stream's SELECT VERSION(), the catch-up
#   wait's one MASTER_GTID_WAIT); PostgreSQL's standby scanned those
#   tables, the primary never (0), and the standby's xact_commit grew by
#   at least the queries and their SETs;
# - TPC-C ran on the primary: its New-Orders (sum of d_next_o_id) grew,
#   and its commits by at least as many;
# - every completed query has a lag (as many samples as runs, none
#   negative), and the printed stream line and table columns are the
#   --chbench-report's figures;
# - --baseline with --endpoints: the streams alone run on the replica too;
# - a file without a replica and an unknown --analytic-endpoint: one FATAL
#   line, exit 1. (The ASan pass runs PostgreSQL's half: the same Lua.)
# About 50 s (most of it starting the four servers and loading).
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

# ---- bmk chbench run --endpoints (docs/chbench.md "Replicas") ----------------
# On the same pairs, 1 warehouse in a database / schema of its own: TPC-C
# VUs on the primary, one analytic stream on the replica for one pass of
# three queries that read the CH-benCHmark tables (2, 8, 9).
# chb_lag_agree FILE: the printed lag figures (the stream's line and the
# table's LAG AVG / LAG MAX columns) against --chbench-report's, and a
# lag for every completed query (as many samples as runs, none negative)
chb_lag_agree() {
  python3 - "$1" "$WORK/chb-out.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); out = open(sys.argv[2]).read()
st = d["streams"][0]; f = lambda x: "%.3f" % x
bad = []
line = "stream 1: on replica1; replica lag at its queries: mean %s, max %s (%d of %d with a sample)" % (
    f(st["lag"]["mean"]), f(st["lag"]["max"]), st["lag"]["queries"], st["queries_completed"])
if line not in out: bad.append("no line: " + line)
if st["lag"]["queries"] != st["queries_completed"] or st["lag"]["mean"] < 0 or st["lag"]["max"] < 0:
    bad.append("stream lag %r" % st["lag"])
for q, a in d["queries"].items():
    if a["lag"]["queries"] != a["runs"] or a["lag"]["mean"] < 0 or a["lag"]["max"] < 0:
        bad.append("Q%s lag %r for %d runs" % (q, a["lag"], a["runs"]))
    m = re.search(r"^  Q%s +(\S+ +){5}(\S+) +(\S+) " % q, out, re.M)
    if not m or (m.group(2), m.group(3)) != (f(a["lag"]["mean"]), f(a["lag"]["max"])):
        bad.append("Q%s table row %r" % (q, m and m.group(0)))
print("; ".join(bad) or "ok")
PY
}

# bad input (refused before any table is read)
sed 's/"role": "replica"/"role": "primary"/' "$WORK/pg.json" >"$WORK/noreplica.json"
run_bmk chbench --endpoints="$WORK/noreplica.json" --pgsql-schema=chbench --scale=1 \
  --analytic-streams=1 --time=1 run
assert_eq "chbench: no replica in the file: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
assert_contains "chbench: no replica: message" "$OUT" \
  '--endpoints: no endpoint is a replica (role "replica"): the analytic streams run on a replica'
run_bmk chbench --endpoints="$WORK/pg.json" --pgsql-schema=chbench --scale=1 \
  --analytic-streams=1 --analytic-endpoint=replica9 --time=1 run
assert_eq "chbench: an unknown --analytic-endpoint: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
assert_contains "chbench: unknown endpoint: message" "$OUT" \
  "--analytic-endpoint: the endpoints file has no endpoint named 'replica9'"

for db in pgsql mysql; do
  if [ $db = mysql ] && asan_pass; then
    skip "chbench $db: streams on the replica" "the same Lua as PostgreSQL's run; done in the normal pass"
    continue
  fi
  # (MariaDB: the endpoints' "database" is the one bmk uses, so a file
  # naming chbench; PostgreSQL: a schema of the same database)
  if [ $db = mysql ]; then
    my "$MY_P" "CREATE DATABASE chbench"
    sed 's/"database": "sbtest"/"database": "chbench"/' "$WORK/my.json" >"$WORK/chb-my.json"
    O="--endpoints=$WORK/chb-my.json --db-driver=mysql --scale=1"
  else
    pg "$PG_P" "CREATE SCHEMA chbench" >/dev/null
    O="--endpoints=$WORK/pg.json --db-driver=pgsql --pgsql-schema=chbench --scale=1"
  fi
  run_bmk chbench $O --threads=2 --use-fk=0 --rand-seed=42 prepare
  assert_eq "chbench $db: prepare on the primary: exit 0" 0 "$RC"
  # the replica has the tables before the counters are read: bmk's own
  # catch-up wait then finds it caught up at its first look
  if [ $db = mysql ]; then
    wait_for 60 my_caught_up
    sel_r0=$(mystat "$MY_R" Com_select) com_p0=$(mystat "$MY_P" Com_commit)
    no0=$(my "$MY_P" "SELECT SUM(d_next_o_id) FROM chbench.district1")
  else
    wait_for 60 pg_caught_up
    st="SELECT xact_commit FROM pg_stat_database WHERE datname = 'sbtest'"
    xr0=$(pg "$PG_R" "$st")
    xp0=$(pg "$PG_P" "$st")
    scans="SELECT sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)) FROM pg_stat_user_tables WHERE schemaname = 'chbench' AND relname IN ('region', 'nation', 'supplier')"
    sp0=$(pg "$PG_P" "$scans") sr0=$(pg "$PG_R" "$scans")
    no0=$(pg "$PG_P" "SELECT SUM(d_next_o_id) FROM chbench.district1")
  fi
  run_bmk chbench $O --threads=2 --analytic-streams=1 --queries=2,8,9 --analytic-passes=1 \
    --time=120 --chbench-report="$WORK/chb-$db.json" run
  assert_eq "chbench $db: a mixed run with the stream on the replica: exit 0" 0 "$RC"
  [ "$RC" = 0 ] || printf '%s\n' "$OUT" | tail -20 | sed 's/^/    | /'
  printf '%s\n' "$OUT" >"$WORK/chb-out.txt"
  assert_contains "chbench $db: the stream runs on replica1" "$OUT" \
    "chbench: the analytic streams run on replica1; the TPC-C VUs on the file's default route"
  assert_contains "chbench $db: waited for the replica first" "$OUT" \
    "run: replica 'replica1' has caught up with the primary"
  assert_contains "chbench $db: the pass's three queries completed" "$OUT" \
    "stream 1: 3 queries completed, 1 full pass(es), 0 cut"
  assert_eq "chbench $db: --chbench-report: the stream's endpoint, 3 queries" "replica1 3" \
    "$(json_get "$WORK/chb-$db.json" "'%s %d' % (d['streams'][0]['endpoint'], d['queries_completed'])")"
  assert_eq "chbench $db: a lag for every query, the printed figures the file's" ok \
    "$(chb_lag_agree "$WORK/chb-$db.json")"
  if [ $db = mysql ]; then
    # the replica's SELECTs: the 3 queries, the stream's SELECT VERSION()
    # and the catch-up wait's one MASTER_GTID_WAIT (the lag sampler's
    # statements are SHOWs)
    sel_r=$(( $(mystat "$MY_R" Com_select) - sel_r0 ))
    assert_eq "chbench $db: the replica's Com_select: the 3 queries + 2" 5 "$sel_r"
    no=$(( $(my "$MY_P" "SELECT SUM(d_next_o_id) FROM chbench.district1") - no0 ))
    com=$(( $(mystat "$MY_P" Com_commit) - com_p0 ))
    assert_eq "chbench $db: TPC-C on the primary: New-Orders ($no) > 0, commits ($com) >= them" \
      "1 1" "$((no > 0)) $((com >= no))"
  else
    sp=$(( $(pg "$PG_P" "$scans") - sp0 )) sr=$(( $(pg "$PG_R" "$scans") - sr0 ))
    xr=$(( $(pg "$PG_R" "$st") - xr0 )) xp=$(( $(pg "$PG_P" "$st") - xp0 ))
    assert_eq "chbench $db: region, nation, supplier scanned on the standby ($sr >= 3), never on the primary" \
      "1 0" "$((sr >= 3)) $sp"
    assert_eq "chbench $db: the standby's xact_commit (+$xr) >= the 3 queries and their 3 SETs" \
      1 $((xr >= 6))
    no=$(( $(pg "$PG_P" "SELECT SUM(d_next_o_id) FROM chbench.district1") - no0 ))
    assert_eq "chbench $db: TPC-C on the primary: New-Orders ($no) > 0, xact_commit (+$xp) >= them" \
      "1 1" "$((no > 0)) $((xp >= no))"
    # --baseline's child runs get --endpoints as every option: the streams
    # alone on the replica too, with a lag for each query
    if asan_pass; then
      skip "chbench $db: --baseline with --endpoints" "three more runs of the same Lua; done in the normal pass"
    else
      run_bmk chbench $O --threads=2 --analytic-streams=1 --queries=9 --time=1 --baseline \
        --chbench-report="$WORK/chb-b.json" run
      assert_eq "chbench $db: --baseline with --endpoints: exit 0, three phases" "0 3" \
        "$RC $(printf '%s\n' "$OUT" | grep -c '^chbench --baseline: phase [123] of 3: ')"
      for f in chb-b chb-b.streams-alone; do
        assert_eq "chbench $db: --baseline: $f.json: on replica1, a lag for every query" \
          "replica1 1" "$(json_get "$WORK/$f.json" "'%s %d' % (d['streams'][0]['endpoint'], d['streams'][0]['lag']['queries'] == d['queries_completed'])")"
      done
    fi
  fi
done

finish
