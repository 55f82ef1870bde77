#!/usr/bin/env bash
# bmk cluster run's coordinator: its CPU per merged interval and how long
# after an interval's end its merged line prints, with N processes on this
# host (--launcher=local) at --report-interval=1 (docs/cluster.md
# "Speed"). The processes run a script of 10 ms sleeps (no server needed,
# little CPU), so the figure is the coordinator's and the stream's, not
# the load's. The coordinator's CPU includes launching the processes and
# the clock probes.
#
# Usage: bash bench/cluster_coordinator.sh [processes (16)] [seconds (20)]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-16}
secs=${2:-20}
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./autogen.sh && ./configure && make)" >&2; exit 1; }
dir=$(mktemp -d /tmp/bmk-bench-cluster-XXXXXX)
trap 'rm -rf "$dir"' EXIT
printf 'function event() sysbench.sleep(0.01) end\n' > "$dir/sleep.lua"
printf 'localhost %d\n' "$n" > "$dir/hosts"
"$BMK" cluster run --hosts="$dir/hosts" --launcher=local -- "$dir/sleep.lua" --threads=4 \
  --time="$secs" --report-interval=1 run > "$dir/out" 2>&1 || { tail -20 "$dir/out"; exit 1; }
echo "$n processes, $secs s, --report-interval=1 ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)):"
grep '^Coordinator:' "$dir/out"
grep -c 'procs: '"$n/$n"'$' "$dir/out" | sed 's/^/merged lines with every process: /'
