#!/usr/bin/env bash
# Many threads at once, on both databases: what the ThreadSanitizer pass
# (tests/run-all.sh) runs besides test_faults.sh, and a plain check of the
# same paths in the other passes.
#   - thread mode (--workers=threads), 64 VUs, oltp_read_write (transactions, every statement
#     kind), ended by an event count: every event done, none lost;
#   - event mode, 64 VUs on 2 workers, the same;
#   - SIGINT in the middle of a run, in both modes: exit 130 and the
#     report of what ran;
#   - 64 VUs preparing 8 tables in parallel (--threads with prepare).
# Assertions are exact counts and exit codes; nothing depends on speed.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

EVENTS=1280
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ "$db" = mysql ]; then D=$MYSQL_OPTS; else D=$PGSQL_OPTS; fi
  T="--tables=8 --table-size=500"
  "$BMK" oltp_read_write $D $T cleanup >/dev/null 2>&1
  run_bmk oltp_read_write $D $T --threads=8 prepare
  assert_eq "$db: prepare of 8 tables by 8 threads" 0 "$RC"
  for mode in threads events; do
    M="--workers=threads"; [ $mode = events ] && M="--workers=2"
    name="$db $mode, 64 VUs"
    BMK_TIMEOUT=600 run_bmk oltp_read_write $D $T --threads=64 $M --time=0 --events=$EVENTS \
      --mysql-ignore-errors=1213,1020,1205 --pgsql-ignore-errors=40P01,23505,40001 run
    assert_eq "$name: exit 0" 0 "$RC"
    assert_eq "$name: every event done" $EVENTS "$(report_value "total number of events:" "$OUT")"
    # 18 statements per event (10 point selects, 4 ranges, 2 updates, a
    # delete and an insert) besides BEGIN/COMMIT; a deadlock restarts an
    # event, so at least that many
    check "$name: at least 18 statements per event" \
      test "$(report_value "total:" "$OUT")" -ge $((EVENTS * 18))
    assert_eq "$name: no FATAL line" "" "$(printf '%s\n' "$OUT" | grep '^FATAL')"

    name="$db $mode, SIGINT"
    : > sig.out    # emptied first: the wait below must not see an earlier run's lines
    "$BMK" oltp_read_write $D $T --threads=16 $M --time=300 --report-interval=1 run > sig.out 2>&1 &
    pid=$!
    for _ in $(seq 1 3000); do grep -q '^\[ 1s \] thds' sig.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    kill -INT $pid
    wait $pid
    RC=$?
    OUT=$(cat sig.out)
    assert_eq "$name: exit 130" 130 "$RC"
    assert_contains "$name: says so" "$OUT" "FATAL: interrupted by SIGINT"
    assert_match "$name: the report's marker" "$OUT" \
      "^Run interrupted: SIGINT; the report covers [0-9.]+s of measured time\.$"
    assert_contains "$name: the latency block of the report" "$OUT" "95th percentile:"
  done
  "$BMK" oltp_read_write $D $T cleanup >/dev/null 2>&1
done

finish
