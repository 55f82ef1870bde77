#!/usr/bin/env bash
# What the portable binary and TLS cost: QPS and client CPU (user+system
# seconds per 1,000 queries) of oltp_point_select with ./bmk (dynamic) and
# ./bmk-x64 (make static), each with TLS off and on, at 1 and 8 threads, on
# MariaDB and PostgreSQL (sandbox servers started with BMK_SANDBOX_TLS=1).
#
# Usage: bash bench/static_and_tls.sh [seconds per run (10)] [repetitions (3)]
# Prints one line per configuration with the median of the repetitions.
# Needs: ./bmk and ./bmk-x64 built, the sandbox servers started
# (BMK_SANDBOX_TLS=1 bash tools/sandbox.sh start mysql; ... pgsql) with the same
# BMK_SANDBOX_DIR / ports in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
reps=${2:-3}
for b in bmk bmk-x64; do
  [ -x "./$b" ] || { echo "./$b missing (make; make static)" >&2; exit 1; }
done
eval "$(bash tools/sandbox.sh env mysql)"
eval "$(bash tools/sandbox.sh env pgsql)"
[ -n "${BMK_TLS_CA:-}" ] || { echo "the sandbox has no TLS CA: start it with BMK_SANDBOX_TLS=1" >&2; exit 1; }
data="--tables=4 --table-size=10000"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# median of the numbers given
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-6s %-8s %-4s %7s %12s %14s\n' db binary tls threads qps "cpu s/1k q"
for db in mysql pgsql; do
  if [ $db = mysql ]; then
    conn="--db-driver=mysql $BMK_MYSQL_OPTS"; tls="--mysql-ssl=VERIFY_IDENTITY --mysql-ssl-ca=$BMK_TLS_CA"; plain="--mysql-ssl=disabled"
  else
    conn="--db-driver=pgsql $BMK_PGSQL_OPTS"; tls="--pgsql-sslmode=verify-full --pgsql-sslrootcert=$BMK_TLS_CA"; plain="--pgsql-sslmode=disable"
  fi
  # shellcheck disable=SC2086
  ./bmk oltp_point_select $conn $data cleanup >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  ./bmk oltp_point_select $conn $data --threads=4 prepare >/dev/null
  for bin in bmk bmk-x64; do
    for mode in off on; do
      if [ $mode = on ]; then sslopt=$tls; else sslopt=$plain; fi
      for threads in 1 8; do
        qps=() cpu=()
        for ((r = 0; r < reps; r++)); do
          TIMEFORMAT='%U %S'
          # shellcheck disable=SC2086
          t=$( { time ./$bin oltp_point_select $conn $sslopt $data --threads=$threads \
                   --time="$secs" run >"$out" 2>&1; } 2>&1 )
          q=$(sed -n 's/^ *queries: *\([0-9]*\) *(\([0-9.]*\) per sec.)/\1 \2/p' "$out")
          [ -n "$q" ] || { echo "run failed:" >&2; tail -20 "$out" >&2; exit 1; }
          qps+=("${q#* }")
          cpu+=("$(awk -v t="$t" -v n="${q%% *}" 'BEGIN { split(t, a, " "); printf "%.4f", (a[1] + a[2]) * 1000 / n }')")
        done
        printf '%-6s %-8s %-4s %7d %12.0f %14.4f\n' $db $bin $mode $threads \
          "$(median "${qps[@]}")" "$(median "${cpu[@]}")"
      done
    done
  done
  # shellcheck disable=SC2086
  ./bmk oltp_point_select $conn $data cleanup >/dev/null
done
