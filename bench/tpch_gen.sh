#!/usr/bin/env bash
# `bmk tpch generate` against TPC-H's reference generator dbgen 2.17.3:
# the time to write SF's flat files on one core and with chunks over all
# cores, rows per second per core, and whether every file is dbgen's, byte
# for byte (MD5 of the whole tables; the chunk files are compared
# concatenated). docs/tpch.md "Speed".
#
# Usage: DBGEN=/path/to/dbgen bash bench/tpch_gen.sh [SF (1)] [chunks (nproc)]
# DBGEN: a dbgen 2.17.3 built from its public source outside this tree
# (with dists.dss beside it); without it only bmk's figures are printed.
# Needs ./bmk built and about 3 x SF GB free in TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./autogen.sh && ./configure && make)" >&2; exit 1; }
sf=${1:-1}
chunks=${2:-$(nproc)}
W=$(mktemp -d "${TMPDIR:-/tmp}/bmk-tpch-bench-XXXXXX")
trap 'rm -rf "$W"' EXIT
TABLES="region nation part supplier partsupp customer orders lineitem"

# secs CMD...: wall seconds of CMD (output discarded)
secs() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}'; }
rows() { cat "$1"/*.tbl* | wc -l; }
md5_table() {  # md5_table DIR TABLE: of the whole table (chunks in order)
  if [ -f "$1/$2.tbl" ]; then md5sum < "$1/$2.tbl"; else
    ls "$1/$2.tbl."* | sort -t. -k3,3n | xargs cat | md5sum; fi | cut -d' ' -f1
}

t1=$(secs "$BMK" tpch --scale="$sf" --dir="$W/bmk1" generate)
n=$(rows "$W/bmk1")
tc=$(secs "$BMK" tpch --scale="$sf" --dir="$W/bmkc" --chunks="$chunks" --threads="$chunks" generate)
printf "SF %s: %d rows, %d core(s) here\n" "$sf" "$n" "$(nproc)"
printf "%-34s %9s %14s\n" "generator" "seconds" "rows/s/core"
printf "%-34s %9s %14.0f\n" "bmk tpch generate, 1 thread" "$t1" "$(awk -v n=$n -v t=$t1 'BEGIN{print n/t}')"
printf "%-34s %9s %14.0f\n" "bmk, $chunks chunks x $chunks threads" "$tc" "$(awk -v n=$n -v t=$tc -v c=$chunks 'BEGIN{print n/t/c}')"
if [ -n "${DBGEN:-}" ]; then
  d=$(dirname "$DBGEN")
  mkdir -p "$W/dbgen"
  td=$(cd "$W/dbgen" && secs "$DBGEN" -q -f -s "$sf" -b "$d/dists.dss")
  printf "%-34s %9s %14.0f\n" "dbgen 2.17.3, 1 process" "$td" "$(awk -v n=$n -v t=$td 'BEGIN{print n/t}')"
  same=0
  for t in $TABLES; do
    a=$(md5_table "$W/dbgen" $t)
    if [ "$a" = "$(md5_table "$W/bmk1" $t)" ] && [ "$a" = "$(md5_table "$W/bmkc" $t)" ]; then
      same=$((same + 1))
    else
      echo "DIFFERENT: $t"
    fi
  done
  echo "tables identical to dbgen's (1 file and $chunks chunks): $same of 8"
fi
