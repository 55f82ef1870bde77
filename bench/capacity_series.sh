#!/usr/bin/env bash
# The user-count series of docs/capacity.md on both sandbox databases:
# `bmk series` of oltp_read_write at 1, 2, 4, ... users with a checkpoint
# before each step, then one table per database and the charts
# (`bmk report --html --svg-dir`).
#
# Usage: bash bench/capacity_series.sh [OUTDIR (bench-series)] [max users (8)]
#          [seconds per step (10)] [rows per table (10000)] [pause (5)]
# Needs: ./bmk built, gnuplot-nox, the sandbox servers started
# (bash tools/sandbox.sh start mysql; ... start pgsql; BMK_MYSQL_PORT,
# BMK_PGSQL_PORT as for the sandbox). The defaults are small enough to try
# in a minute; the figures in docs/capacity.md use larger ones (stated
# there). OUTDIR gets <db>/<step>-u<users>.json, <db>.txt (the table),
# report.html and svg/chart-<n>.svg (listed in svg/charts.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench-series}
max=${2:-8}
secs=${3:-10}
rows=${4:-10000}
pause=${5:-5}
BMK=$(pwd)/bmk
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"
data="--tables=4 --table-size=$rows"
users=1,2
[ "$max" -gt 2 ] && users="1,2,...,$max"
[ "$max" -lt 2 ] && users=1

mkdir -p "$out"
files=()
for db in mysql pgsql; do
  opts=${db}_opts
  # shellcheck disable=SC2086
  "$BMK" oltp_read_write ${!opts} $data cleanup >/dev/null
  # shellcheck disable=SC2086
  "$BMK" oltp_read_write ${!opts} $data --threads=4 prepare >/dev/null
  rm -rf "${out:?}/$db"
  # shellcheck disable=SC2086
  "$BMK" series --users="$users" --pause="$pause" --reset=checkpoint --results-dir="$out/$db" \
    --id="capacity-$db" -- bmk oltp_read_write ${!opts} $data --time="$secs" run > "$out/$db.log"
  sed -n '/^Series table:/,/^$/p' "$out/$db.log" | tee "$out/$db.txt"
  files+=("$out/$db"/*.json)
  # shellcheck disable=SC2086
  "$BMK" oltp_read_write ${!opts} $data cleanup >/dev/null
done
mkdir -p "$out/svg"
"$BMK" report --html="$out/report.html" --svg-dir="$out/svg" "${files[@]}" | tail -1
echo "charts: $out/svg/charts.txt"
