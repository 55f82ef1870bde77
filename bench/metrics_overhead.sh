#!/usr/bin/env bash
# What --metrics-listen costs the client: bmk's own CPU per transaction
# (user + system, from the server-cost block's "client CPU (bmk) per
# transaction" line) with and without the endpoint, scraped every second
# by curl with the OpenMetrics Accept header Prometheus sends, at 16 VUs
# (threads) and at 5,000 VUs (event loop, think time 100 ms). Each pair of
# runs does the same fixed number of events; pairs alternate which goes
# first; prints every run and the median ratio per size. The ratio is
# noisy on a shared machine; each run with the endpoint also prints the
# endpoint's own CPU (its closing "Metrics: ... used X s of CPU" line: the
# reporter thread's adding and rendering, and the HTTP server's thread) as
# a share of bmk's CPU, which is not.
#
# Usage: bash bench/metrics_overhead.sh [pairs (5)] [events at 16 VUs (300000)] [events at 5000 VUs (200000)]
# BMK_BENCH_SKIP_5K=1 runs the 16-VU size only.
# Needs ./bmk and the MariaDB sandbox (bash tools/sandbox.sh start mysql)
# with the oltp_point_select tables (1 x 10,000 rows: the script prepares
# them). Results in docs/metrics.md's "Cost".
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./bmk ] || { echo "build bmk first" >&2; exit 1; }
pairs=${1:-5} ev16=${2:-300000} ev5k=${3:-200000}
PORT=${BMK_MYSQL_PORT:-3306}
D="--mysql-host=127.0.0.1 --mysql-port=$PORT --mysql-user=sbtest --mysql-password=${BMK_SANDBOX_PASSWORD:-sbtest} --mysql-db=sbtest --tables=1 --table-size=10000"
MPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
./bmk oltp_point_select $D cleanup >/dev/null 2>&1 || true
./bmk oltp_point_select $D prepare >/dev/null

# one RUN: prints the client CPU per transaction in us
run() {  # metrics(0|1) args...
  local m=$1 out scr=""
  shift
  if [ "$m" = 1 ]; then
    ( while sleep 1; do
        curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' \
          "http://127.0.0.1:$MPORT/metrics" >/dev/null || true
      done ) &
    scr=$!
    out=$(./bmk "$@" --metrics-listen=127.0.0.1:$MPORT --metrics-linger=0 run 2>&1)
    kill $scr 2>/dev/null; wait $scr 2>/dev/null || true
  else
    out=$(./bmk "$@" run 2>&1)
  fi
  local per trx ep
  per=$(printf '%s\n' "$out" | sed -n 's/^ *client CPU (bmk) per transaction: *\([0-9.]*\) us.*/\1/p')
  trx=$(printf '%s\n' "$out" | sed -n 's/^ *transactions: *\([0-9]*\) .*/\1/p')
  # the endpoint's own CPU (its closing line) as a share of bmk's CPU
  ep=$(printf '%s\n' "$out" | sed -n 's/^Metrics: .* the endpoint used \([0-9.]*\) s of CPU.*/\1/p')
  if [ -n "$ep" ]; then
    echo "$per $(awk -v e="$ep" -v p="$per" -v t="$trx" 'BEGIN{printf "%.3f", e * 100 / (p * t / 1e6)}')"
  else
    echo "$per"
  fi
}

size() {  # label args...
  local label=$1 ratios=() a b
  shift
  echo "== $label"
  local share
  for i in $(seq 1 "$pairs"); do
    if [ $((i % 2)) = 1 ]; then a=$(run 0 "$@"); b=$(run 1 "$@")
    else b=$(run 1 "$@"); a=$(run 0 "$@"); fi
    read -r b share <<< "$b"
    r=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.4f", b / a}')
    ratios+=("$r")
    printf '  pair %d: without %s us, with %s us per transaction: ratio %s; the endpoint itself: %s%% of bmk CPU\n' \
      "$i" "$a" "$b" "$r" "$share"
  done
  printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END{printf "  median ratio (with / without): %.4f (%+.2f%%)\n", v[int((NR+1)/2)], (v[int((NR+1)/2)] - 1) * 100}'
}

size "16 VUs, threads, $ev16 point selects" oltp_point_select $D --threads=16 --time=0 --events=$ev16
[ "${BMK_BENCH_SKIP_5K:-0}" = 1 ] || size "5000 VUs, event loop (2 workers, think 100 ms), $ev5k point selects" \
  tests/integration/fixtures/evloop/think_point_select.lua $D --think-ms=100 --threads=5000 --workers=2 \
  --time=0 --events=$ev5k --thread-init-timeout=600
./bmk oltp_point_select $D cleanup >/dev/null 2>&1 || true
