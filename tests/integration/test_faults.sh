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
# Then, on both databases and in both modes: a cut that lasts until every
# VU's statement has hit --db-query-timeout (one timeout and one reconnect
# per VU, the run completes), a relay frozen before bmk connects
# (--db-connect-timeout names host and port, exit 1), and the server
# killed with SIGKILL under load (tools/sandbox.sh crash: one reconnect per
# VU, the server-statistics block from the restart).
# Every assertion is a count, an exit code or an order; those runs end
# after a fixed number of events, not a time; the bounds on time are
# the configured limits plus a generous margin (hang guards).
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

RELAY=$TOP/tests/integration/tools/relay.py
GRACE=2
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
    M="--workers=threads"; [ $mode = events ] && M="--workers=2"
    relay_opts "$db" > opts.txt
    O=$(cat opts.txt)
    start=$(date +%s)
    : > run.out    # emptied first: the wait below must not see an earlier run's lines
    timeout -k 5 300 "$BMK" oltp_point_select $O $T --threads=$VUS $M --time=$RUN_S --stuck-grace=$GRACE \
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

# ---- a short cut with --db-query-timeout -----------------------------------------------
# The relay is frozen until every VU's statement has timed out (the
# interval lines' timeouts add up to the VUs), then let go. Each VU
# thinks 10 ms between its point selects, so all of them are inside a
# statement within moments of the cut and each times out exactly once: its
# connection is closed and opened again (through the frozen relay: that
# login waits for the relay, well within --db-connect-timeout). The run
# ends after a fixed number of events, however long the cut lasted.
EV=$TOP/tests/integration/fixtures/evloop
TO_EVENTS=1500
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ "$db" = mysql ]; then D=$MYSQL_OPTS; else D=$PGSQL_OPTS; fi
  T="--tables=1 --table-size=1000"
  run_bmk oltp_point_select $D $T prepare
  for mode in threads events; do
    name="$db $mode, --db-query-timeout=1"
    M="--workers=threads"; [ $mode = events ] && M="--workers=2"
    relay_opts "$db" > opts.txt
    O=$(cat opts.txt)
    : > run.out    # emptied first: the wait below must not see an earlier run's lines
    timeout -k 5 600 "$BMK" "$EV/think_point_select.lua" $O $T --think-ms=10 --threads=$VUS $M \
      --time=0 --events=$TO_EVENTS --report-interval=1 --db-query-timeout=1 \
      --$db-ignore-errors=timeout --results=timeout.json run > run.out 2>&1 &
    pid=$!
    for _ in $(seq 1 3000); do grep -q '^\[ 2s \] thds' run.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    kill -STOP "$relay_pid"
    n=0
    for _ in $(seq 1 3000); do
      n=$(sed -n 's/^\[ *[0-9]*s \] timeouts: \([0-9]*\) statement.*/\1/p' run.out | awk '{ s += $1 } END { print s + 0 }')
      [ "$n" -ge $VUS ] && break
      kill -0 $pid 2>/dev/null || break
      sleep 0.1
    done
    kill -CONT "$relay_pid"
    wait $pid
    RC=$?
    OUT=$(cat run.out)
    stop_relay
    assert_eq "$name: exit 0 (the run went on)" 0 "$RC"
    assert_eq "$name: the interval lines count one timeout per VU" $VUS "$n"
    assert_eq "$name: timeouts in the report" $VUS "$(report_value "timeouts:" "$OUT")"
    assert_eq "$name: one reconnect per VU" $VUS "$(report_value "reconnects:" "$OUT")"
    assert_eq "$name: no ignored error besides them" 0 "$(report_value "ignored errors:" "$OUT")"
    assert_eq "$name: every event done" $TO_EVENTS "$(report_value "total number of events:" "$OUT")"
    assert_eq "$name: no FATAL line" "" "$(printf '%s\n' "$OUT" | grep '^FATAL')"
    check "$name: JSON valid" json_ok timeout.json
    assert_eq "$name: JSON: timeouts and reconnects" "$VUS $VUS" \
      "$(json_get timeout.json "'%s %s' % (d['summary']['timeouts'], d['summary']['reconnects'])")"
  done
  # not ignored: the timeout is the run's fatal error, named as such
  relay_opts "$db" > opts.txt
  O=$(cat opts.txt)
  : > run.out    # emptied first: the wait below must not see an earlier run's lines
  timeout -k 5 600 "$BMK" "$EV/think_point_select.lua" $O $T --think-ms=10 --threads=2 \
    --time=0 --events=$TO_EVENTS --report-interval=1 --db-query-timeout=1 --db-server-stats=off \
    run > run.out 2>&1 &
  pid=$!
  for _ in $(seq 1 3000); do grep -q '^\[ 1s \] thds' run.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -STOP "$relay_pid"
  wait $pid
  RC=$?
  OUT=$(cat run.out)
  stop_relay
  assert_eq "$db: a timeout not ignored: exit 1" 1 "$RC"
  assert_contains "$db: a timeout not ignored: the FATAL line names it" "$OUT" \
    "no answer from the server within 1 s (--db-query-timeout); the connection is closed"
  "$BMK" oltp_point_select $D $T cleanup >/dev/null 2>&1
done

# ---- a server that accepts connections but never answers the handshake ----------------
# The relay, frozen before bmk connects: the kernel completes the TCP
# handshake, nothing else comes back.
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  for mode in threads events; do
    name="$db $mode, silent server"
    M="--workers=threads"; [ $mode = events ] && M="--workers=2"
    relay_opts "$db" > opts.txt
    O=$(cat opts.txt)
    port=$(cat "$WORK/relay.port")
    kill -STOP "$relay_pid"
    start=$(date +%s)
    run_bmk oltp_point_select $O --tables=1 --threads=2 $M --time=5 --db-connect-timeout=2 run
    took=$(( $(date +%s) - start ))
    stop_relay
    assert_eq "$name: exit 1" 1 "$RC"
    assert_contains "$name: the FATAL line names host, port and the option" "$OUT" \
      "FATAL: no answer from host '127.0.0.1', port $port within 2 s (--db-connect-timeout)"
    check "$name: gives up after the connect timeout, not the run's time (${took}s, bound 2 + 60 s of margin)" \
      test "$took" -le 62
  done
done

# ---- the server killed (SIGKILL) and back under load ------------------------------------
# tools/sandbox.sh crash: MariaDB's server process is killed and started on
# its data; PostgreSQL's background writer is killed, so the postmaster
# ends every session, recovers and accepts logins again. Every VU (think
# time 200 ms: 5 events a second each, whatever the machine) loses its
# connection and gets a new one once; the run ends after a fixed number of
# events, so the time the server takes to come back does not matter. The
# server-statistics block is complete and says that the counters
# restarted.
CRASH_EV_VUS=${BMK_FAULTS_EVENT_VUS:-200}
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ "$db" = mysql ]; then D=$MYSQL_OPTS; else D=$PGSQL_OPTS; fi
  T="--tables=1 --table-size=1000"
  run_bmk oltp_point_select $D $T prepare
  for mode in threads events; do
    if [ $mode = threads ]; then n=64; M="--workers=threads"; else n=$CRASH_EV_VUS; M="--workers=2"; fi
    events=$((n * 5 * 5))
    name="$db $mode, $n VUs, server killed"
    : > run.out    # emptied first: the wait below must not see an earlier run's lines
    timeout -k 5 900 "$BMK" "$EV/think_point_select.lua" $D $T --think-ms=200 --threads=$n $M \
      --time=0 --events=$events --report-interval=1 --$db-ignore-errors=lost \
      --thread-init-timeout=600 --results=crash.json run > run.out 2>&1 &
    pid=$!
    for _ in $(seq 1 6000); do grep -q '^\[ 1s \] thds' run.out && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    bash "$TOP/tools/sandbox.sh" crash $db > crash.log 2>&1
    assert_eq "$name: the sandbox killed the server and it came back" 0 $?
    wait $pid
    RC=$?
    OUT=$(cat run.out)
    assert_eq "$name: exit 0" 0 "$RC"
    assert_eq "$name: one reconnect per VU" $n "$(report_value "reconnects:" "$OUT")"
    assert_eq "$name: every event done" $events "$(report_value "total number of events:" "$OUT")"
    assert_eq "$name: no FATAL line" "" "$(printf '%s\n' "$OUT" | grep '^FATAL')"
    assert_contains "$name: the server-statistics block, from the restart" "$OUT" \
      "from the server's restart during the run to the end of the workers):"
    assert_contains "$name: ... which says the counters restarted" "$OUT" \
      "(the server restarted during the run and its counters started again from 0:"
    check "$name: JSON valid" json_ok crash.json
    assert_eq "$name: JSON: server counters restarted, sampler reconnected" "True True" \
      "$(json_get crash.json "'%s %s' % (d['server']['counters_restarted'], d['server']['sampler_reconnected'])")"
  done
  "$BMK" oltp_point_select $D $T cleanup >/dev/null 2>&1
done

# bad input
run_bmk cpu --stuck-grace=soon --time=1 run
assert_eq "--stuck-grace=soon: exit 1" 1 "$RC"
assert_contains "--stuck-grace=soon: message" "$OUT" "FATAL: Invalid value for --stuck-grace: 'soon' (seconds, or off)"
for opt in db-query-timeout db-connect-timeout; do
  run_bmk oltp_point_select $MYSQL_OPTS --$opt=-1 --time=1 run
  assert_eq "--$opt=-1: exit 1" 1 "$RC"
  assert_contains "--$opt=-1: message" "$OUT" \
    "FATAL: Invalid value for --$opt: -1 (whole seconds from 0 to 86400; 0 = no limit)"
done

finish
