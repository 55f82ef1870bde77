#!/usr/bin/env bash
# bmk chbench with 0, 1 and 2 analytic streams beside the same TPC-C load
# (docs/chbench.md "Measured"): per database and stream count, NOPM
# (schema), the p95 of New-Order and Payment in ms, the analytic queries
# completed and the geometric mean of their times in seconds. One run per
# row, one after the other, the schema prepared once per database.
#
# Usage: bash bench/chbench_streams.sh [--replica] [seconds per run (60)] [warehouses (4)] [VUs (4)]
# Needs ./bmk built and the sandbox servers started (tools/sandbox.sh);
# BMK_MYSQL_PORT / BMK_PGSQL_PORT / BMK_SANDBOX_PASSWORD as for the
# sandbox; BENCH_DBS="mysql pgsql" selects the databases. The schema is
# left in place (`bmk chbench ... cleanup` drops it).
#
# --replica: the streams on the sandbox's replica (tools/sandbox.sh start
# mysql-replica / pgsql-replica, on BMK_MYSQL_REPLICA_PORT /
# BMK_PGSQL_REPLICA_PORT), the TPC-C VUs on the primary, through an
# endpoints file this script writes (docs/chbench.md "Replicas"); 1 and 2
# streams, and two more columns: the replica lag the queries saw (the mean
# over the streams' queries with a sample, and the largest), seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
replica=0
if [ "${1:-}" = --replica ]; then replica=1; shift; fi
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
# endpoints FILE DB: the sandbox's primary and replica of DB
endpoints() {
  local port rport
  if [ "$2" = mysql ]; then port=${BMK_MYSQL_PORT:-3306} rport=${BMK_MYSQL_REPLICA_PORT:-3307}
  else port=${BMK_PGSQL_PORT:-5432} rport=${BMK_PGSQL_REPLICA_PORT:-5433}; fi
  cat >"$1" <<EOF
{
  "endpoints": [
    {"name": "primary", "driver": "$2", "host": "127.0.0.1", "port": $port, "user": "sbtest",
     "password_env": "BENCH_PW", "database": "sbtest", "role": "primary"},
    {"name": "replica1", "driver": "$2", "host": "127.0.0.1", "port": $rport, "user": "sbtest",
     "password_env": "BENCH_PW", "database": "sbtest", "role": "replica"}
  ]
}
EOF
}
export BENCH_PW=$pass
ep=$(mktemp)
trap 'rm -f "$ep"' EXIT
streams="0 1 2"
head=""
if [ $replica = 1 ]; then streams="1 2" head=$(printf ' %9s %9s' "lag mean" "lag max"); fi
printf '%-8s %7s %8s %11s %10s %8s %12s%s\n' database streams NOPM "NO p95 ms" "P p95 ms" queries "geomean s" "$head"
for db in ${BENCH_DBS:-mysql pgsql}; do
  O="$(opts "$db") --scale=$scale"
  if [ $replica = 1 ]; then
    endpoints "$ep" "$db"
    O="--endpoints=$ep --db-driver=$db --scale=$scale"
  fi
  "$BMK" chbench $O --threads="$vus" --rand-seed=42 prepare >/dev/null
  for s in $streams; do
    out=$("$BMK" chbench $O --threads="$vus" --analytic-streams="$s" --seed=42 --time="$secs" run 2>&1)
    nopm=$(sed -n 's/^NOPM (schema, sum(d_next_o_id)): \([0-9]*\);.*/\1/p' <<< "$out")
    no95=$(awk '$1 == "new_order" && NF == 13 { print $8; exit }' <<< "$out")
    p95=$(awk '$1 == "payment" && NF == 13 { print $8; exit }' <<< "$out")
    q=$(sed -n 's/^Analytic queries completed: \([0-9]*\);.*/\1/p' <<< "$out")
    g=$(sed -n 's/^Analytic queries completed: .* of their times: \([0-9.]*\) s$/\1/p' <<< "$out")
    lag=""
    if [ $replica = 1 ]; then
      # per stream: "stream N: on E; replica lag at its queries: mean M, max X (K of N with a sample)"
      lag=$(awk '/^  stream [0-9]+: on .*; replica lag at its queries: mean / {
          m = $0; sub(/.*: mean /, "", m); x = m; sub(/,.*/, "", m); sub(/.*, max /, "", x)
          k = x; sub(/ .*/, "", x); sub(/^[^(]*[(]/, "", k); sub(/ .*/, "", k)
          if (m != "-") { sum += m * k; n += k }
          if (x != "-" && x + 0 > max) max = x + 0 }
        END { if (n > 0) printf " %9.3f %9.3f", sum / n, max; else printf " %9s %9s", "-", "-" }' <<< "$out")
    fi
    printf '%-8s %7d %8s %11s %10s %8s %12s%s\n' "$db" "$s" "$nopm" "$no95" "$p95" "${q:--}" "${g:--}" "$lag"
  done
done
