#!/usr/bin/env bash
# Where the CPUs go when bmk and a server share a machine: per run of
# oltp_point_select (4 tables x 20,000 rows) by sysbench 1.0.20, bmk's
# default and bmk variants, the client's CPU, the time its runnable
# threads waited for a CPU (run-queue wait, from the kernel's
# /proc/PID/task/*/schedstat), the server's CPU and the idle time. It is
# the profile behind docs/performance.md's rows where bmk's default does
# not reach sysbench: with as many server threads as connections, the
# kernel shares the CPUs per thread, and a client of two event-loop
# workers is two threads among many.
#
# Usage: bash bench/client_runqueue.sh [VU counts ("16 64 128")] [runs (3)] [seconds (5)]
# Environment:
#   BENCH_CONFIGS="mysql-threads pgsql"  server configurations (as in
#                       bench/engine_vs_sysbench.sh: mysql-threads,
#                       mysql-pool, pgsql)
#   BENCH_VARIANTS="--workers=threads"   more bmk variants, ';'-separated
#   BENCH_BMK=path      the bmk binary (default ./bmk)
#   BENCH_PORT_BASE=3466  the servers' ports: MariaDB on it, PostgreSQL on +1
# Starts and stops its own servers (bench/server_configs.sh). Needs ./bmk built and `apt-get install sysbench`.
set -euo pipefail
cd "$(dirname "$0")/.."
vus_list=${1:-"16 64 128"}
runs=${2:-3}
secs=${3:-5}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=${BENCH_BMK:-$(pwd)/bmk}
[ -x "$BMK" ] || { echo "$BMK is not built: see README" >&2; exit 1; }
. bench/server_configs.sh
bench_servers_init "${BENCH_PORT_BASE:-3466}"

out=$(mktemp)
for cfg in ${BENCH_CONFIGS:-mysql-threads pgsql}; do
  bench_config_start "$cfg"
  python3 bench/client_runqueue.py "$cfg" "$DB" "$BMK" "$SERVER_PID" "$vus_list" "$runs" "$secs" \
    "${BENCH_VARIANTS---workers=threads}" | tee -a "$out"
  bench_config_stop
done
echo
echo "== summary (oltp_point_select, 4 x 20,000 rows, ${secs} s runs, medians of $runs)"
grep '^|' "$out" | awk '!seen[$0]++'
rm -f "$out"
