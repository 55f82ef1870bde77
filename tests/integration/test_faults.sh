#!/usr/bin/env bash
# A server that stops answering (docs/reliability.md): bmk talks to the
# sandbox server through a TCP relay of the test's own
# (tools/relay.py); two seconds into a 6 s run the relay is frozen
# (SIGSTOP: the connections stay open, nothing comes back — a network
# partition or a hung server as the client sees it). On both databases, in
# thread mode and in event mode:
#   - the run ends by itself after --time plus the stuck grace (exit 2),
#     not killed from outside;
#   - the interval lines while it waits say how many events are in flight
#     and for how long, and no such interval prints a latency of 0;
#   - the end names every VU still in its event with its age, the report
#     says why it was interrupted, the result file too.
# Every assertion is a count, an exit code or an order; the one bound on
# time is the grace plus a generous margin (a hang guard).
set -u
source "$(dirname "$0")/lib.sh"
cd "$WORK"

RELAY=$TOP/tests/integration/tools/relay.py
GRACE=5
RUN_S=6
VUS=4
relay_pid=
stop_relay() {
  [ -n "$relay_pid" ] || return 0
  kill -CONT "$relay_pid" 2>/dev/null
  kill "$relay_pid" 2>/dev/null
  wait "$relay_pid" 2>/dev/null
  relay_pid=
}
trap 'stop_relay; rm -rf "$WORK"' EXIT

# relay_opts DB: starts a relay to DB's sandbox server (relay_pid; not in a
# subshell); prints bmk's options pointing at it
relay_opts() {
  local db=$1 port
  rm -f "$WORK/relay.port"
  if [ "$db" = mysql ]; then port=$MYSQL_PORT; else port=$PGSQL_PORT; fi
  python3 "$RELAY" "$WORK/relay.port" 127.0.0.1 "$port" &
  relay_pid=$!
  for _ in $(seq 1 600); do [ -s "$WORK/relay.port" ] && break; sleep 0.1; done
  if [ "$db" = mysql ]; then
    echo "${MYSQL_OPTS/--mysql-port=$MYSQL_PORT/--mysql-port=$(cat "$WORK/relay.port")}"
  else
    echo "${PGSQL_OPTS/--pgsql-port=$PGSQL_PORT/--pgsql-port=$(cat "$WORK/relay.port")}"
  fi
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ "$db" = mysql ]; then D=$MYSQL_OPTS; else D=$PGSQL_OPTS; fi
  T="--tables=1 --table-size=1000"
  "$BMK" oltp_point_select $D $T cleanup >/dev/null 2>&1
  run_bmk oltp_point_select $D $T prepare
  assert_eq "$db: prepare" 0 "$RC"
  for mode in threads events; do
    name="$db $mode"
    M=""; [ $mode = events ] && M="--workers=2"
    relay_opts "$db" > opts.txt
    O=$(cat opts.txt)
    start=$(date +%s)
    timeout -k 5 300 "$BMK" oltp_point_select $O $T --threads=$VUS $M --time=$RUN_S \
      --report-interval=1 --results=stuck.json run > run.out 2>&1 &
    pid=$!
    # two interval lines of a working server, then the cut
    for _ in $(seq 1 3000); do grep -q '^\[ 2s \] thds' run.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    kill -STOP "$relay_pid"
    wait $pid
    RC=$?
    took=$(( $(date +%s) - start ))
    OUT=$(cat run.out)
    stop_relay
    assert_eq "$name: the run ends by itself, exit 2 (stuck work)" 2 "$RC"
    check "$name: within --time + grace + 60 s of margin (${took}s)" test "$took" -le $((RUN_S + GRACE + 60))
    assert_contains "$name: the FATAL line counts the stuck events" "$OUT" \
      "FATAL: $VUS event(s) still waiting for the server $GRACE.0 s after the end of --time (--stuck-grace)"
    assert_eq "$name: one line per VU still in its event" $VUS \
      "$(printf '%s\n' "$OUT" | grep -cE '^    thread [0-9]+: in its event for [0-9]+\.[0-9]{2} s at the end of --time, [0-9]+\.[0-9]{2} s now$')"
    assert_contains "$name: the report says why it ended" "$OUT" \
      "Run interrupted: $VUS event(s) still waiting for the server $GRACE.0 s after the end of --time;"
    check "$name: interval lines while the server did not answer say so" \
      test "$(printf '%s\n' "$OUT" | grep -cE "^\[ [0-9]+s \] stalled: $VUS event\(s\) in flight for longer than the interval, oldest [0-9.]+ s")" -ge 1
    assert_eq "$name: no interval line without completed events prints latency 0" 0 \
      "$(printf '%s\n' "$OUT" | grep -cE '^\[ [0-9]+s \] thds: [0-9]+ tps: 0\.00 .* lat \(ms,95%\): 0\.00 ')"
    # every stall line follows its interval line, whose latency is the wait
    assert_eq "$name: each stall line follows an interval line of the same second" "" \
      "$(printf '%s\n' "$OUT" | awk '/^\[ [0-9]+s \] stalled:/ { if (prev !~ /^\[ [0-9]+s \] thds: / || $2 != p2) print NR } { prev = $0; p2 = $2 }')"
    check "$name: JSON valid" json_ok stuck.json
    assert_eq "$name: JSON: not completed, exit code 2, the reason" \
      "False 2 $VUS event(s) still waiting for the server $GRACE.0 s after the end of --time" \
      "$(json_get stuck.json "'%s %s %s' % (d['summary']['completed'], d['summary']['exit_code'], d['summary']['interrupted_reason'])")"
    check "$name: JSON: the measured time is --time ($(json_get stuck.json "d['summary']['time_s']") s)" \
      awk -v t="$(json_get stuck.json "d['summary']['time_s']")" -v r=$RUN_S 'BEGIN{exit !(t >= r - 0.1 && t < r + 1)}'
  done
  "$BMK" oltp_point_select $D $T cleanup >/dev/null 2>&1
done

# bad input
run_bmk cpu --stuck-grace=soon --time=1 run
assert_eq "--stuck-grace=soon: exit 1" 1 "$RC"
assert_contains "--stuck-grace=soon: message" "$OUT" "FATAL: Invalid value for --stuck-grace: 'soon' (seconds, or off)"

finish
