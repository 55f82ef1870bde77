#!/usr/bin/env bash
# How closely the kit's SYNC-file barrier starts split processes: a kit run
# of `users` threads with sb11_MAX=`per_process` (so several bmk processes)
# on the MariaDB sandbox server, with the test probe workload
# (tests/integration/fixtures/kit/kit_probe.lua), which prints when each thread is
# ready (end of thread_init) and when it starts its first event. Prints,
# per repetition, the spread of the start times (first to last start) and
# the wait from the last ready thread to the first start, in ms; then the
# median spread. test_kit_cli.sh checks the order (no thread starts before
# all are ready); this script gives the figure.
#
# Usage: bash bench/kit_sync_spread.sh [users (6)] [per_process (4)] [repetitions (5)]
# Needs ./bmk built and the sandbox MariaDB started (bash tools/sandbox.sh
# start mysql; BMK_MYSQL_PORT / BMK_SANDBOX_PASSWORD as for the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
users=${1:-6}
per=${2:-4}
reps=${3:-5}
BMK=$(pwd)/bmk
PROBE=$(pwd)/tests/integration/fixtures/kit/kit_probe.lua
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
port=${BMK_MYSQL_PORT:-3306}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/tmp"
unset BMK_BENCH_SOURCED BMK_PASS BMK_PG_PASS PGPASSWORD MYSQL_PWD sb11
printf 'driver=mysql\nhost=127.0.0.1\nport=%s\nuser=sbtest\npass=%s\ndb=sbtest\n' "$port" "$pass" > "$home/.bench"
printf 'sb11=%s\nTMP_DIR=%s\nsb11_MAX=%s\n' "$BMK" "$home/tmp" "$per" >> "$home/.bench"
export BMK_HOME=$home BMK_KIT_WORKLOAD=$PROBE

echo "== SYNC-file start: $users threads, at most $per per process, $reps runs (ms)"
printf '%4s %12s %22s\n' run spread "last ready->first start"
spreads=()
for r in $(seq "$reps"); do
  out=$("$BMK" kit OLTP_RO_10K_1tab-uniform-p_sel1-notrx "$users" 1 2>&1)
  starts=$(printf '%s\n' "$out" | sed -n 's/^probe: .* start=//p' | sort -n)
  readys=$(printf '%s\n' "$out" | sed -n 's/^probe: g=[0-9]* ready=//p' | sort -n)
  n=$(printf '%s\n' "$starts" | grep -c . || true)
  if [ "$n" -ne "$users" ]; then
    echo "run $r: $n of $users threads started; output:" >&2
    printf '%s\n' "$out" | tail -20 >&2
    exit 1
  fi
  spread=$(printf '%s\n' "$starts" | awk 'NR==1{a=$1} {b=$1} END{printf "%.1f", (b-a)*1000}')
  gap=$(awk -v r="$(printf '%s\n' "$readys" | tail -1)" -v s="$(printf '%s\n' "$starts" | head -1)" \
    'BEGIN{printf "%.1f", (s-r)*1000}')
  printf '%4s %12s %22s\n' "$r" "$spread" "$gap"
  spreads+=("$spread")
done
printf '%s\n' "${spreads[@]}" | sort -n | awk '{a[NR]=$1} END{printf "median spread: %s ms\n", a[int((NR+1)/2)]}'
