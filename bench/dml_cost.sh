#!/usr/bin/env bash
# `bmk dml_cost` on both sandbox databases, with the figures of F. Pachot's article beside
# it (F. Pachot, "Comparing SQL engines by CPU instructions for simple
# DML": PostgreSQL 16 and MySQL in Docker, perf stat -e instructions:u -G,
# 2,000,000 rows inserted in 2 transactions; "the seed" below and in the
# output). docs/capacity.md "DML cost".
#
# Usage: bash bench/dml_cost.sh [rows (2000000)] [insert transactions (2)] [sleep s (10)]
#   e.g. bash bench/dml_cost.sh 20000 2 1      (a quick try)
# Needs ./bmk built and the sandbox servers started (bash tools/sandbox.sh
# start mysql; ... start pgsql; BMK_MYSQL_PORT/BMK_PGSQL_PORT/
# BMK_SANDBOX_PASSWORD as for the sandbox). BMK_TEST_DBS="mysql" (or
# "pgsql") limits it to one database. Instructions need a PMU and root (or
# CAP_PERFMON): elsewhere the instruction columns show "-" and the line
# below the table says why. SVG=FILE also writes a chart (gnuplot-nox),
# and `--chart-from LOG SVG` draws it from an earlier run's output:
# per step, server CPU and elapsed microseconds per row on each database,
# beside the article's elapsed microseconds per row.
set -euo pipefail
cd "$(dirname "$0")/.."
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./autogen.sh && ./configure && make)" >&2; exit 1; }
rows=${1:-2000000} trx=${2:-2} sleep_s=${3:-10}
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"

# The article's per-row figures: instructions per row and elapsed us per row
# (its totals divided by 2,000,000).
seed() {  # seed DB STEP -> "instructions/row elapsed-us/row totals"
  case "$1:$2" in
    pgsql:insert) echo "26500 10.0 53G/20s" ;;
    pgsql:update) echo "37000 19.5 74G/39s" ;;
    pgsql:count) echo "500 0.5 1G/1s" ;;
    pgsql:delete) echo "5000 5.0 10G/10s" ;;
    mysql:insert) echo "34000 9.0 68G/18s" ;;
    mysql:update) echo "33500 10.5 67G/21s" ;;
    mysql:count) echo "1500 1.0 3G/2s" ;;
    mysql:delete) echo "23500 10.0 47G/20s" ;;
    *) echo "- - -" ;;
  esac
}

# chart DATFILE SVG ROWS: the grouped bar chart (lines "db step cpu-us/row
# elapsed-us/row seed-elapsed-us/row").
chart() {
  local dat=$1 SVG=$2 rows=$3
  command -v gnuplot >/dev/null || { echo "SVG: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
  # one line per step: CPU and elapsed us/row per database, seed's elapsed
  plot=$(mktemp)
  for step in insert update count delete; do
    printf '%s' "$step"
    for db in mysql pgsql; do
      awk -v d=$db -v s=$step '$1 == d && $2 == s { printf " %s %s %s", $3, $4, $5; f = 1 }
                               END { if (!f) printf " NaN NaN NaN" }' "$dat"
    done
    echo
  done >"$plot"
  gnuplot <<GP
set terminal svg size 900,420 dynamic font "sans,12"
set output "$SVG"
set title "DML cost per row ($rows rows): server CPU and elapsed time, beside the seed's elapsed time"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set ylabel "microseconds per row"
set key top right
set grid ytics
plot "$plot" using 2:xtic(1) title "MariaDB server CPU", '' using 3 title "MariaDB elapsed", \
     '' using 4 title "MySQL (seed) elapsed", '' using 5 title "PostgreSQL server CPU", \
     '' using 6 title "PostgreSQL elapsed", '' using 7 title "PostgreSQL 16 (seed) elapsed"
GP
  rm -f "$plot"
  echo "chart: $SVG"
}

# --chart-from LOG SVG: the chart from an earlier run's printed tables.
if [ "${1:-}" = --chart-from ]; then
  [ -f "${2:-}" ] && [ -n "${3:-}" ] || { echo "usage: bash bench/dml_cost.sh --chart-from LOG SVG" >&2; exit 2; }
  dat=$(mktemp)
  trap 'rm -f "$dat"' EXIT
  awk '/^== (mysql|pgsql):/ { db = substr($2, 1, 5); rows = $3 }
       db != "" && $1 ~ /^(insert|update|count|delete)$/ && $2 ~ /^[0-9]+$/ { print db, $1, $7, $8, $11 }
       END { print rows > "/dev/stderr" }' "$2" >"$dat" 2>"$dat.rows"
  chart "$dat" "$3" "$(cat "$dat.rows")"
  rm -f "$dat.rows"
  exit 0
fi

dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  opts=$mysql_opts
  [ "$db" = pgsql ] && opts=$pgsql_opts
  out=$("$BMK" dml_cost $opts --rows="$rows" --insert-transactions="$trx" --sleep="$sleep_s" run 2>&1) || {
    printf '%s\n' "$out" >&2
    echo "bmk dml_cost failed on $db" >&2
    exit 1
  }
  echo "== $db: $(printf '%s\n' "$out" | grep '^DML cost:' | sed 's/^DML cost: //')"
  printf '%s\n' "$out" | grep '^Server cost:' || true
  printf '%-8s %10s %10s %10s %10s %12s %11s %12s | %12s %12s %10s\n' step rows "instr(G)" "CPU(s)" \
    "elapsed(s)" "instr/row" "CPU us/row" "elapsed/row" "seed i/row" "seed us/row" "seed"
  printf '%s\n' "$out" | awk '$1 ~ /^(sleep|insert|update|count|delete)$/ && $2 ~ /^[0-9]+$/' |
    while read -r step n instr cpu el ipr cpr epr; do
      read -r s_ipr s_epr s_tot <<<"$(seed "$db" "$step")"
      printf '%-8s %10s %10s %10s %10s %12s %11s %12s | %12s %12s %10s\n' "$step" "$n" "$instr" \
        "$cpu" "$el" "$ipr" "$cpr" "$epr" "$s_ipr" "$s_epr" "$s_tot"
      [ "$step" = sleep ] || echo "$db $step $cpr $epr $s_epr" >>"$dat"
    done
  printf '%s\n' "$out" | grep '^instructions:u not counted' || true
  echo
done
echo "(seed: 2,000,000 rows in Docker with default settings; elapsed/row in us; this run: $rows rows, $trx insert transaction(s))"
if [ -n "${SVG:-}" ]; then
  chart "$dat" "$SVG" "$rows"
fi
