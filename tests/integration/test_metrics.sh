#!/usr/bin/env bash
# --metrics-listen (docs/metrics.md) scraped by a real Prometheus (Debian's
# prometheus package, started here on a loopback port, scrape interval
# 1 s), and the engine's output interface (core/sb_output.h):
#   - an oltp_read_write run on each database, threads, and one in event
#     mode with BMK_METRICS_VUS VUs (default 2,000; each holds a connection,
#     so the scraper's socket gets a descriptor above 1024): Prometheus's last
#     sample of bmk_transactions_total is the final report's transaction
#     count, histogram_quantile(0.95) lies in the bucket that holds the
#     report's p95, bmk_vus is --threads; bmk_server_commits is the
#     server-side block's commits;
#   - two processes with different --tag at once: the sum over both is
#     the sum of their reports;
#   - bad input (a port in use, an address of no local interface, a
#     malformed --tag): FATAL before any connection to the database, exit 1;
#   - an output that fails (--results=/dev/full: the disk is full when the
#     document is written): a WARNING naming it, the report complete, exit 1.
# Counts are compared exactly; bmk waits after its report until a scrape
# has read its final numbers (--metrics-linger), and the test waits for
# Prometheus to have that sample.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

# freeports N: N distinct free loopback ports (all held open while the
# kernel picks them: one at a time, it may give the same port twice)
freeports() {
  python3 -c 'import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))' "$1"
}

if ! command -v prometheus >/dev/null; then
  skip_core "metrics: a real Prometheus" "the prometheus package is not installed (apt-get install prometheus)"
  finish
  exit $?
fi

read -r PROM_PORT P1 P2 P3 <<< "$(freeports 4)"
cat > prom.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: bmk
    static_configs:
      - targets: ['127.0.0.1:$P1', '127.0.0.1:$P2']
EOF
prometheus --config.file=prom.yml --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address=127.0.0.1:$PROM_PORT --log.level=warn > prom.log 2>&1 &
PROM_PID=$!
trap 'kill $PROM_PID 2>/dev/null; wait $PROM_PID 2>/dev/null; rm -rf "$WORK"' EXIT
ready=0
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && { ready=1; break; }
  sleep 0.1
done
assert_eq "Prometheus is up on 127.0.0.1:$PROM_PORT" 1 $ready

# q EXPR: the value of an instant query's first result ("" when none).
# Queries read a run's series with last_over_time(...[10m]): once bmk has
# exited, Prometheus marks its series stale at the next failed scrape and
# a plain instant query no longer returns them.
q() {
  curl -sf -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
# wait_final RUN_ID: until Prometheus holds the sample with bmk_run_finished 1
wait_final() {
  local v=""
  for _ in $(seq 1 600); do
    v=$(q "max(last_over_time(bmk_run_finished{run_id=\"$1\"}[10m]))")
    [ "$v" = 1 ] && return 0
    sleep 0.1
  done
  return 1
}
run_id_of() { sed -n 's/^Metrics: run_id \([^ ]*\) .*/\1/p' "$1" | head -1; }
# the bucket bounds around VALUE (seconds): "lo hi"
bucket_of() {
  python3 - "$1" <<'EOF'
import sys
v = float(sys.argv[1])
b = [m * 10.0 ** e for e in range(-4, 2) for m in (1, 1.5, 2, 3, 5, 7)] + [100.0]
lo = 0.0
for hi in b:
    if v <= hi * 1.0000001:
        print(lo, hi); break
    lo = hi
else:
    print(lo, "inf")
EOF
}

check_run() {  # NAME OUTFILE THREADS
  local name=$1 out=$2 n=$3 id trx p95 est lo hi
  OUT=$(cat "$out")
  id=$(run_id_of "$out")
  check "$name: bmk names its run_id" test -n "$id"
  check "$name: Prometheus has the final sample" wait_final "$id"
  trx=$(report_value "transactions:" "$OUT")
  assert_eq "$name: bmk_transactions_total = the report's transactions" "$trx" \
    "$(q "last_over_time(bmk_transactions_total{run_id=\"$id\"}[10m])")"
  assert_eq "$name: bmk_vus = --threads" "$n" "$(q "last_over_time(bmk_vus{run_id=\"$id\"}[10m])")"
  # bmk's own CPU: one saturated interval per "client saturated" line
  assert_eq "$name: bmk_client_saturated_intervals_total = the report's saturation lines" \
    "$(printf '%s\n' "$OUT" | grep -c '^\[ [0-9]*s \] client saturated:')" \
    "$(q "last_over_time(bmk_client_saturated_intervals_total{run_id=\"$id\"}[10m])")"
  check "$name: bmk_client_cpu_seconds_total is above 0" awk -v v="$(q "last_over_time(bmk_client_cpu_seconds_total{run_id=\"$id\"}[10m])")" 'BEGIN { exit !(v > 0) }'
  assert_eq "$name: bmk_loop_blocking_calls_total" 0 \
    "$(q "last_over_time(bmk_loop_blocking_calls_total{run_id=\"$id\"}[10m])")"
  p95=$(report_value "95th percentile:" "$OUT")
  est=$(q "histogram_quantile(0.95, sum by (le) (last_over_time(bmk_latency_seconds_bucket{run_id=\"$id\"}[10m])))")
  read -r lo hi <<< "$(bucket_of "$est")"
  check "$name: histogram_quantile(0.95) $est s is in the bucket ($lo, $hi] holding the report's p95 $p95 ms" \
    awk -v p="$p95" -v lo="$lo" -v hi="$hi" 'BEGIN { p /= 1000; exit !(p >= lo * 0.999 && (hi == "inf" || p <= hi * 1.001)) }'
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ "$db" = mysql ]; then D=$MYSQL_OPTS; else D=$PGSQL_OPTS; fi
  T="--tables=2 --table-size=1000"
  "$BMK" oltp_read_write $D $T cleanup >/dev/null 2>&1
  run_bmk oltp_read_write $D $T prepare
  : > run.out    # emptied first: the wait below must not see an earlier run's lines
  timeout -k 5 300 "$BMK" oltp_read_write $D $T --threads=8 --time=6 --report-interval=1 \
    --metrics-listen=127.0.0.1:$P1 --tag=db=$db run > run.out 2>&1 &
  pid=$!
  # the page itself, once, for the check of the dashboard below
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$P1/metrics" > metrics.page 2>/dev/null && break
    sleep 0.1
  done
  wait $pid
  RC=$?
  assert_eq "$db threads: exit 0" 0 "$RC"
  [ "$RC" = 0 ] || tail -5 run.out | sed 's/^/    | /'
  check_run "$db threads, 8 VUs" run.out 8
  # the server's counters over the window, once the run ended: the
  # server-side block's numbers
  label="commits (Com_commit):"; [ "$db" = pgsql ] && label="commits (xact_commit):"
  id=$(run_id_of run.out)
  assert_eq "$db: bmk_server_commits = the server-side block's commits" \
    "$(report_value "$(printf '%s' "$label" | sed 's/[()]/\\&/g')" "$(cat run.out)")" \
    "$(q "last_over_time(bmk_server_commits{run_id=\"$id\"}[10m])")"
  "$BMK" oltp_read_write $D $T cleanup >/dev/null 2>&1
done

# event mode, many VUs (think time 100 ms)
VUS=${BMK_METRICS_VUS:-2000}
db=${BMK_TEST_DBS:-mysql}; db=${db%% *}
if [ "$db" = mysql ]; then D=$MYSQL_OPTS; else D=$PGSQL_OPTS; fi
"$BMK" oltp_point_select $D --tables=1 --table-size=1000 prepare >/dev/null 2>&1
timeout -k 5 900 "$BMK" "$TOP/tests/integration/fixtures/evloop/think_point_select.lua" $D --tables=1 \
  --table-size=1000 --think-ms=100 --threads=$VUS --workers=2 --time=6 --report-interval=1 \
  --thread-init-timeout=600 --metrics-listen=127.0.0.1:$P2 run > run.out 2>&1
assert_eq "$db events: exit 0" 0 "$?"
check_run "$db events, $VUS VUs" run.out $VUS
"$BMK" oltp_point_select $D --tables=1 cleanup >/dev/null 2>&1

# the Grafana dashboard's queries are valid PromQL over bmk's metrics:
# each, with its variables filled in, is accepted by Prometheus, and each
# bmk_* name it uses is one bmk exports
bad=$(python3 - "$TOP/docs/grafana/bmk.json" "$PROM_PORT" <<'EOF'
import json, re, sys, urllib.parse, urllib.request
d = json.load(open(sys.argv[1]))
names = set(re.findall(r"^# TYPE (bmk_[a-z_]+) ", open("metrics.page").read(), re.M))
for p in d["panels"]:
    for t in p["targets"]:
        e = t["expr"].replace("$test", ".*").replace("$run_id", ".*").replace("$__rate_interval", "5s")
        u = "http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[2], urllib.parse.urlencode({"query": e}))
        try:
            ok = json.load(urllib.request.urlopen(u))["status"] == "success"
        except Exception:
            ok = False
        for n in re.findall(r"bmk_[a-z_]+", e):
            base = re.sub(r"_(bucket|sum|count)$", "", n)
            if base not in names:
                print("%s: unknown metric %s" % (p["title"], n))
        if not ok:
            print("%s: rejected: %s" % (p["title"], e))
EOF
)
assert_eq "docs/grafana/bmk.json: every query valid, every bmk metric exported" "" "$bad"

# two processes at once, told apart by --tag (3 s each: scraped during the
# run, so each waits for a scrape of its final numbers)
"$BMK" cpu --threads=2 --time=3 --cpu-max-prime=2000 --report-interval=1 \
  --metrics-listen=127.0.0.1:$P1 --tag=node=a run > a.out 2>&1 &
pa=$!
"$BMK" cpu --threads=1 --time=3 --cpu-max-prime=2000 --report-interval=1 \
  --metrics-listen=127.0.0.1:$P2 --tag=node=b run > b.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
assert_eq "two processes: both exit 0" "0 0" "$ra $rb"
ia=$(run_id_of a.out); ib=$(run_id_of b.out)
check "two processes: Prometheus has both final samples" wait_final "$ia"
check "two processes: ... the second too" wait_final "$ib"
ea=$(report_value "total number of events:" "$(cat a.out)")
eb=$(report_value "total number of events:" "$(cat b.out)")
assert_eq "two processes: sum(bmk_events_total) over both tags = the sum of the reports" \
  "$((ea + eb))" "$(q "sum(last_over_time(bmk_events_total{node=~\"a|b\",run_id=~\"$ia|$ib\"}[10m]))")"
assert_eq "two processes: each tag's own count" "$ea $eb" \
  "$(q "sum(last_over_time(bmk_events_total{node=\"a\",run_id=\"$ia\"}[10m]))") $(q "sum(last_over_time(bmk_events_total{node=\"b\",run_id=\"$ib\"}[10m]))")"

# bad input: FATAL before any connection (the server named here does not exist)
NOWHERE="--mysql-host=127.0.0.1 --mysql-port=1"
run_bmk oltp_point_select $NOWHERE --time=1 --metrics-listen=127.0.0.1:$PROM_PORT run
assert_eq "port in use: exit 1" 1 "$RC"
assert_contains "port in use: says so" "$OUT" \
  "FATAL: --metrics-listen=127.0.0.1:$PROM_PORT: the port is in use"
check "port in use: before connecting" eval '! printf "%s" "$OUT" | grep -q "unable to connect"'
run_bmk oltp_point_select $NOWHERE --time=1 --metrics-listen=192.0.2.1:9464 run
assert_eq "not a local address: exit 1" 1 "$RC"
assert_contains "not a local address: says so" "$OUT" \
  "FATAL: --metrics-listen=192.0.2.1:9464: '192.0.2.1' is not an address of this host"
for bad in nokey 1a=b test=x "a b=c"; do
  run_bmk oltp_point_select $NOWHERE --time=1 --metrics-listen=127.0.0.1:$P3 "--tag=$bad" run
  assert_eq "--tag=$bad: exit 1" 1 "$RC"
  assert_contains "--tag=$bad: names it" "$OUT" "FATAL: --tag: '$bad' is not key=value"
  check "--tag=$bad: before connecting" eval '! printf "%s" "$OUT" | grep -q "unable to connect"'
done
run_bmk cpu --time=1 --metrics-listen=9464 run
assert_contains "--metrics-listen without an address: says how" "$OUT" \
  "FATAL: --metrics-listen=9464: give ADDRESS:PORT"

# an output that fails at the end (the disk is full when the document is
# written): the report and the other outputs go on
"$BMK" cpu --threads=1 --time=3 --cpu-max-prime=2000 --report-interval=1 \
  --results=/dev/full --metrics-listen=127.0.0.1:$P1 run > full.out 2>&1
RC=$?
OUT=$(cat full.out)
assert_eq "--results=/dev/full: exit 1" 1 "$RC"
assert_contains "--results=/dev/full: the output is named" "$OUT" \
  "WARNING: output --results failed (at the end of the run) and is switched off"
assert_contains "--results=/dev/full: the report is complete" "$OUT" "Threads fairness:"
check "--results=/dev/full: the metrics output still published the end" wait_final "$(run_id_of full.out)"
check "--results=/dev/full: /dev/full is still the device (written in place, not replaced)" test -c /dev/full

# The endpoint's server thread blocks SIGINT and SIGTERM: a signal sent to
# the process goes to any thread that does not block it, and only the
# run's own wait prints the summary so far (taken by the server's thread,
# main's early handler would end the process at once, without it).
"$BMK" cpu --threads=1 --time=60 --cpu-max-prime=2000 --report-interval=1 \
  --metrics-listen=127.0.0.1:$P1 run > sig.out 2>&1 &
ps_pid=$!
mhd_mask() {  # the SigBlk of the process's libmicrohttpd thread, or nothing
  local t
  for t in /proc/$ps_pid/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in MHD*) sed -n 's/^SigBlk:\t//p' "$t/status";; esac
  done
}
for t in $(seq 300); do grep -q '^\[ 1s \]' sig.out && [ -n "$(mhd_mask)" ] && break; sleep 0.1; done
m=$(mhd_mask)
assert_eq "the metrics server's thread blocks SIGINT and SIGTERM (SigBlk $m)" 16386 \
  "$(( ${m:+0x$m} & 0x4002 ))"
kill -INT $ps_pid
wait $ps_pid; rs=$?
assert_eq "SIGINT during a run with --metrics-listen: exit 130, as without" 130 "$rs"
assert_contains "... the summary so far is printed" "$(cat sig.out)" "Threads fairness:"

finish
