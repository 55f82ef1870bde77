#!/usr/bin/env bash
# bmk chbench with 0, 1 and 2 analytic streams beside the same TPC-C load
# (docs/chbench.md "Measured"): per database and stream count, NOPM
# (schema), the p95 of New-Order and Payment in ms, the analytic queries
# completed and the geometric mean of their times in seconds. One run per
# row, one after the other, the schema prepared once per database.
#
# Usage: bash bench/chbench_streams.sh [seconds per run (60)] [warehouses (4)] [VUs (4)]
# Needs ./bmk built and the sandbox servers started (tools/sandbox.sh);
# BMK_MYSQL_PORT / BMK_PGSQL_PORT / BMK_SANDBOX_PASSWORD as for the
# sandbox; BENCH_DBS="mysql pgsql" selects the databases. The schema is
# left in place (`bmk chbench ... cleanup` drops it).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
scale=${2:-4}
vus=${3:-4}
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./bmk not found)" >&2; exit 1; }
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
opts() {
  if [ "$1" = mysql ]; then
    echo "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
  else
    echo "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"
  fi
}
printf '%-8s %7s %8s %11s %10s %8s %12s\n' database streams NOPM "NO p95 ms" "P p95 ms" queries "geomean s"
for db in ${BENCH_DBS:-mysql pgsql}; do
  O="$(opts "$db") --scale=$scale"
  "$BMK" chbench $O --threads="$vus" --rand-seed=42 prepare >/dev/null
  for s in 0 1 2; do
    out=$("$BMK" chbench $O --threads="$vus" --analytic-streams="$s" --seed=42 --time="$secs" run 2>&1)
    nopm=$(sed -n 's/^NOPM (schema, sum(d_next_o_id)): \([0-9]*\);.*/\1/p' <<< "$out")
    no95=$(awk '$1 == "new_order" && NF == 13 { print $8; exit }' <<< "$out")
    p95=$(awk '$1 == "payment" && NF == 13 { print $8; exit }' <<< "$out")
    q=$(sed -n 's/^Analytic queries completed: \([0-9]*\);.*/\1/p' <<< "$out")
    g=$(sed -n 's/^Analytic queries completed: .* of their times: \([0-9.]*\) s$/\1/p' <<< "$out")
    printf '%-8s %7d %8s %11s %10s %8s %12s\n' "$db" "$s" "$nopm" "$no95" "$p95" "${q:--}" "${g:--}"
  done
done
