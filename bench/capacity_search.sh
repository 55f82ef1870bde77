#!/usr/bin/env bash
# bmk capacity against a server of known capacity (docs/capacity.md "bmk
# capacity"): every event holds one row lock ~5 ms
# (tests/integration/fixtures/cap_lock.lua, as test_capacity.sh), so the server completes
# at most ~1 / (5 ms + round trips) events a second whatever the VUs.
# Measures that capacity closed-loop (8 VUs), then runs the open-loop
# search with --slo=p99<=SLO_MS and prints the answer as a share of the
# capacity, the steps and the search's wall time, REPEATS times.
#
# Usage: bash bench/capacity_search.sh [repeats (3)] [slo ms (100)] [step seconds (3)]
# Needs ./bmk and the MariaDB sandbox (bash tools/sandbox.sh start mysql);
# BMK_MYSQL_PORT as for the sandbox.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./bmk ] || { echo "build bmk first" >&2; exit 1; }
reps=${1:-3} slo=${2:-100} step=${3:-3}
D="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=${BMK_SANDBOX_PASSWORD:-sbtest} --mysql-db=sbtest"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# every event serialises on one row lock held ~5 ms
cp tests/integration/fixtures/cap_lock.lua "$W/lock.lua"
./bmk "$W/lock.lua" $D prepare >/dev/null
for i in $(seq 1 "$reps"); do
  cap=$(./bmk "$W/lock.lua" $D --threads=8 --time="$step" run 2>&1 |
    sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p')
  t0=$(date +%s.%N)
  out=$(./bmk capacity --slo="p99<=${slo}ms" --step-time="$step" --step-warmup=1 \
    --results-dir="$W/s$i" -- bmk "$W/lock.lua" $D --threads=8 run 2>&1) || true
  t1=$(date +%s.%N)
  ans=$(printf '%s\n' "$out" | sed -n 's/^max sustainable: \([0-9.]*\) tps.*/\1/p')
  steps=$(printf '%s\n' "$out" | sed -n 's/^range: .*; \([0-9]*\) steps.*/\1/p')
  awk -v i="$i" -v c="$cap" -v a="$ans" -v s="$steps" -v t="$(echo "$t1 - $t0" | bc)" 'BEGIN {
    printf "run %d: capacity %.1f tps (closed loop); answer %s tps = %.0f%% of it; %s steps in %.0f s\n",
      i, c, a, (a != "" && c > 0) ? 100 * a / c : 0, s, t }'
done
