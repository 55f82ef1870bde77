#!/usr/bin/env bash
# Latencies and rates against the wall clock (docs/results.md): open-loop
# rate accuracy, injected truth against the real servers (bmk's p50 at
# least the script's and the server's own timing, in threads and on the
# event loop under --rate), coordinated omission under a stalled server.
# Each check is a bound that a busy machine cannot break (a slow machine
# only adds latency and loses arrivals); how close to the clock bmk comes
# is bench/rate_accuracy.sh's and bench/latency_truth.sh's figure.
# test_results.sh has the rest.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }
pct_line() {  # pct_line N "$OUT": the value of the "Nth percentile:" line
  printf '%s\n' "$2" | grep -E "^ *$1th percentile:" | head -1 | awk '{print $3}'
}

# ---- open-loop rate: achieved rate and reproducible schedule ----------------
cat > empty.lua <<'EOF'
function event() end
EOF
# Never ahead of the schedule: seed 42's arrivals at 2000/s fall 3,861
# times in the first 2 s (a count of the schedule, the same on every
# machine), and a stop that comes late by up to 0.1 s may start the
# arrivals of that 0.1 s (about 200). How close to the schedule a run
# stays is the machine's speed: bench/rate_accuracy.sh prints it.
run_bmk empty.lua --rate=2000 --time=2 --threads=2 --rand-seed=42 run
ev=$(report_value "total number of events:" "$OUT")
check "rate 2000/s for 2 s: events ($ev) at most the 3,861 arrivals of the schedule + 200" \
  awk -v e="$ev" 'BEGIN{exit !(e >= 1 && e <= 3861 + 200)}'
# (that a seed fixes the schedule is checked on the schedule itself, in
# tests/unit/test_rate.c: two runs' event counts can differ by the one
# arrival that falls on the --time boundary)
run_bmk empty.lua --rate=2.5 --time=4 --rand-seed=3 run
ev=$(report_value "total number of events:" "$OUT")
check "fractional rate 2.5/s runs ($ev events in 4 s)" awk -v e="$ev" 'BEGIN{exit !(e >= 2 && e <= 25)}'

# ---- against the servers -------------------------------------------------------
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)
  # fixtures/sleep_truth.lua: SLEEP / pg_sleep that the server times itself
  # (statement start to after the sleep: the truth includes the server's
  # own timer slack) and the script times with its own clock.
  cp "$TOP/tests/integration/fixtures/sleep_truth.lua" sleep.lua
  # Injected truth. bmk's p50 is at least the script's median (bmk's event
  # encloses the query; 0.2 % for the histogram's precision) and at least
  # the server's own sleep, which is at least the 10 ms asked; one VU's
  # latencies add up to at most the time elapsed. (How far above the
  # script's and the server's timing bmk's lies is the machine's wake-up
  # and dispatch time: bench/latency_truth.sh prints it.)
  run_bmk sleep.lua $O --secs=0.01 --events=200 --threads=1 --percentiles=50 run
  p50=$(pct_line 50 "$OUT")
  srv=$(printf '%s\n' "$OUT" | awk -F': ' '/^server-measured median/{print $2}')
  cli=$(printf '%s\n' "$OUT" | awk -F': ' '/^client-measured median/{print $2}')
  check "$db: one VU's latencies add up to at most the time elapsed ($(report_value "sum:" "$OUT") ms)" \
    awk -v s="$(report_value "sum:" "$OUT")" -v t="$(report_value "time elapsed:" "$OUT")" \
    'BEGIN{exit !(s > 0 && s <= t * 1000 + 0.1)}'
  check "$db: p50 $p50 at least the script's own median $cli ms" \
    awk -v p="$p50" -v c="$cli" 'BEGIN{exit !(p >= c * 0.998)}'
  check "$db: p50 $p50 at least the server's sleep $srv ms" \
    awk -v p="$p50" -v s="$srv" 'BEGIN{exit !(p >= s)}'
  check "$db: the server slept the 10 ms asked at least ($srv)" awk -v s="$srv" 'BEGIN{exit !(s >= 10)}'
  # The same on the event loop under --rate (2 VUs, 1 worker): the loop's
  # own delays in resuming a VU are taken out of its latency (docs/design.md,
  # "Latency under the loop"), never the database's time, so
  # every event still lasts at least the 10 ms the server slept.
  run_bmk sleep.lua $O --secs=0.01 --events=60 --time=0 --threads=2 --workers=1 --rate=100 run
  assert_eq "$db: event loop --rate: events" 60 "$(report_value "total number of events:" "$OUT")"
  mn=$(printf '%s\n' "$OUT" | awk '$1=="min:"{print $2}')
  check "$db: event loop --rate: every latency at least the 10 ms slept (min $mn ms)" \
    awk -v m="$mn" 'BEGIN{exit !(m >= 10)}'

  # Coordinated omission: stop the server for 1 s under --rate=200; the
  # events due during the stall wait for it, so p95 and max show it.
  "$BMK" sleep.lua $O --secs=0 --threads=4 --rate=200 --time=4 --rand-seed=5 run > co.out 2>&1 &
  bgpid=$!
  for _ in $(seq 1 3000); do grep -q '^Threads started!' co.out && break; sleep 0.1; done
  sleep 1
  # PostgreSQL: the postmaster and every backend (forked by now).
  if [ $db = mysql ]; then
    spids=$(cat "$SANDBOX_DIR/mysql/mysqld.pid")
  else
    ppid=$(head -1 "$SANDBOX_DIR/pgsql/data/postmaster.pid")
    spids="$ppid $(pgrep -P "$ppid" | tr '\n' ' ')"
  fi
  kill -STOP $spids
  sleep 1
  kill -CONT $spids
  wait $bgpid
  rc=$?
  OUT=$(cat co.out)
  assert_eq "$db: stalled server: run completes" 0 "$rc"
  p95=$(pct_line 95 "$OUT")
  mx=$(printf '%s\n' "$OUT" | awk '$1=="max:"{print $2}')
  check "$db: stall: p95 $p95 ms >= 500" awk -v v="$p95" 'BEGIN{exit !(v >= 500)}'
  check "$db: stall: max $mx ms >= 900" awk -v v="$mx" 'BEGIN{exit !(v >= 900 && v < 3000)}'

done

finish
