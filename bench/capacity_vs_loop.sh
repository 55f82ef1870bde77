#!/usr/bin/env bash
# What bmk capacity saves a user (docs/capacity.md "bmk capacity"): for
# oltp_point_select and tpcc (scale 2) on MariaDB and PostgreSQL, the
# highest --rate meeting p99 <= SLO_MS found
#   (a) by `bmk capacity --slo='p99<=SLO_MSms'` (default precision 2%), and
#   (b) by the bash loop people write by hand today: --rate doubled from
#       the same start until a run misses the SLO or falls 5% short of its
#       rate, then three runs between the last pass and the first miss
#       (quarters), each run read back from its --results file;
# printing for each: the answer, the runs and the wall time they took.
# Both use the same step (--time=STEP, --warmup-time=WARM) and the same
# VUs per rate (bmk capacity's: max(16, 4 x rate x the bound)).
#
# BENCH_VERBOSE=1 prints every hand-loop run on stderr.
# Usage: bash bench/capacity_vs_loop.sh [slo ms (20)] [step s (5)] [warmup s (2)] [dbs (mysql pgsql)] [workloads (oltp_point_select tpcc)]
# Needs ./bmk and the sandbox servers (bash tools/sandbox.sh start mysql;
# ... start pgsql); BMK_MYSQL_PORT / BMK_PGSQL_PORT as for the sandbox.
# Figures depend on the machine and what else runs on it: print, never
# assert.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./bmk ] || { echo "build bmk first" >&2; exit 1; }
slo=${1:-20} step=${2:-5} warm=${3:-2} dbs=${4:-mysql pgsql} wls=${5:-oltp_point_select tpcc}
verbose=${BENCH_VERBOSE:-}
P=${BMK_SANDBOX_PASSWORD:-sbtest}
MY="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$P --mysql-db=sbtest"
PG="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$P --pgsql-db=sbtest"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

now() { date +%s.%N; }
# vus RATE: bmk capacity's sizing for a latency bound of $slo ms
vus() { awk -v r="$1" -v b="$slo" 'BEGIN { v = int(4 * r * b / 1000 + 0.999); print (v < 16 ? 16 : v) }'; }
# one_run RATE FILE: a hand-loop run; prints "tps p99_ms"
one_run() {
  ./bmk $CMD --threads="$(vus "$1")" --rate="$1" --time="$step" --warmup-time="$warm" \
    --percentile=99 --results="$2" run >/dev/null 2>&1 || true
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']
print(s['tps'], s['latency_ms']['percentiles']['99'])" "$2" 2>/dev/null || echo "0 1e9"
}
# passes RATE TPS P99: the hand loop's rule (the SLO met, the rate reached within 5%)
passes() { awk -v r="$1" -v t="$2" -v p="$3" -v b="$slo" 'BEGIN { exit !(p <= b && t >= 0.95 * r) }'; }

for db in $dbs; do
  [ "$db" = mysql ] && O=$MY || O=$PG
  for wl in $wls; do
    if [ "$wl" = tpcc ]; then
      CMD="tpcc $O --scale=2"
      ./bmk tpcc $O --scale=2 cleanup >/dev/null 2>&1 || true
      ./bmk tpcc $O --scale=2 --threads=2 prepare >/dev/null
    else
      CMD="oltp_point_select $O --tables=4 --table-size=20000"
      ./bmk $CMD cleanup >/dev/null 2>&1 || true
      ./bmk $CMD prepare >/dev/null
    fi
    # (a) bmk capacity
    t0=$(now)
    out=$(./bmk capacity --slo="p99<=${slo}ms" --step-time="$step" --step-warmup="$warm" \
      --results-dir="$W/$db-$wl" --id="$db-$wl" -- bmk $CMD --threads=8 run 2>&1) || true
    t1=$(now)
    ans=$(printf '%s\n' "$out" | sed -n 's/^max sustainable: \([0-9.]*\) tps.*/\1/p')
    start=$(printf '%s\n' "$out" | sed -n 's/.*; start rate \([0-9.]*\) (25%).*/\1/p')
    steps=$(printf '%s\n' "$out" | sed -n 's/^range: .*; \([0-9]*\) steps.*/\1/p')
    printf '%-6s %-18s bmk capacity: %8s tps at p99<=%sms; %s steps + probe in %.0f s\n' \
      "$db" "$wl" "${ans:-none}" "$slo" "${steps:-?}" "$(echo "$t1 - $t0" | bc)"
    [ -n "$start" ] || continue
    # (b) the hand loop, from the same start rate: doubling while runs
    # pass (halving while they fail, from a failing start), then quarters
    t0=$(now); runs=0; pass=0; fail=""; r=$start
    while [ "$runs" -lt 16 ]; do
      runs=$((runs + 1)); read -r tps p99 < <(one_run "$r" "$W/loop-$db-$wl-$runs.json")
      [ -n "$verbose" ] && echo "  hand loop run $runs: rate $r: $tps tps, p99 $p99 ms" >&2
      if passes "$r" "$tps" "$p99"; then
        pass=$r
        [ -z "$fail" ] || break
        r=$(awk -v r="$r" 'BEGIN { print int(2 * r + 0.5) }')
      else
        fail=$r
        [ "$pass" = 0 ] || break
        r=$(awk -v r="$r" 'BEGIN { print int(r / 2 + 0.5) }')
        [ "$r" -ge 1 ] || break
      fi
    done
    if [ -n "$fail" ] && [ "$pass" != 0 ]; then
      lo=$pass
      for k in 1 2 3; do
        q=$(awk -v a="$lo" -v b="$fail" -v k="$k" 'BEGIN { print int(a + (b - a) * k / 4 + 0.5) }')
        runs=$((runs + 1)); read -r tps p99 < <(one_run "$q" "$W/loop-$db-$wl-$runs.json")
        [ -n "$verbose" ] && echo "  hand loop run $runs: rate $q: $tps tps, p99 $p99 ms" >&2
        if passes "$q" "$tps" "$p99"; then pass=$q; else break; fi
      done
    fi
    t1=$(now)
    printf '%-6s %-18s hand loop:    %8s tps at p99<=%sms; %s runs in %.0f s\n' \
      "$db" "$wl" "$pass" "$slo" "$runs" "$(echo "$t1 - $t0" | bc)"
  done
done
