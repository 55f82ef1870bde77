#!/usr/bin/env bash
# Empty-event rate of bmk vs Debian's sysbench 1.0.20 in one run: a Lua
# script whose event() does nothing, so the figure is the engine's own cost
# per event (event loop, counters, latency recording). Also prints the cost
# of recording one latency sample per thread (bench/hdr_record).
#
# Usage: bash bench/empty_event_vs_sysbench.sh [seconds per run (5)] [repetitions (3)]
# Runs alternate bmk and sysbench at 1 and 2 threads; medians are printed.
# Needs ./bmk built and `apt-get install sysbench`. No database.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
reps=${2:-3}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'function event() end\n' > "$tmp/empty.lua"

make -s bench/hdr_record >/dev/null
echo "== cost of recording one latency sample (per thread, own histogram)"
./bench/hdr_record 20000000 2
echo

events() {  # events/s from a report: total events / total time
  awk '/total number of events:/{e=$NF} /time elapsed:|total time:/{t=$NF; sub(/s$/,"",t)} END{printf "%.0f", e/t}'
}
median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

echo "== empty event() rate, ${secs}s runs, median of $reps (events/s)"
printf '%8s %14s %14s %8s\n' threads bmk sysbench ratio
for t in 1 2; do
  : > "$tmp/b"; : > "$tmp/s"
  for r in $(seq "$reps"); do
    ./bmk "$tmp/empty.lua" --threads=$t --time=$secs run | events >> "$tmp/b"; echo >> "$tmp/b"
    sysbench "$tmp/empty.lua" --threads=$t --time=$secs run | events >> "$tmp/s"; echo >> "$tmp/s"
  done
  b=$(median < "$tmp/b"); s=$(median < "$tmp/s")
  printf '%8s %14s %14s %8.2f\n' $t "$b" "$s" "$(awk -v b="$b" -v s="$s" 'BEGIN{print b/s}')"
done
