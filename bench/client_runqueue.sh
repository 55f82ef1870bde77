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
# Starts and stops its own servers (tools/sandbox.sh in a directory of its
# own). Needs ./bmk built and `apt-get install sysbench`.
set -euo pipefail
cd "$(dirname "$0")/.."
vus_list=${1:-"16 64 128"}
runs=${2:-3}
secs=${3:-5}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=${BENCH_BMK:-$(pwd)/bmk}
[ -x "$BMK" ] || { echo "$BMK is not built: see README" >&2; exit 1; }
base=${BENCH_PORT_BASE:-3466}
export BMK_SANDBOX_DIR
BMK_SANDBOX_DIR=$(mktemp -d /tmp/bmk-bench-runqueue-XXXXXX)
export BMK_MYSQL_PORT=$base BMK_PGSQL_PORT=$((base + 1))
stop_all() {
  bash tools/sandbox.sh stop mysql >/dev/null 2>&1 || true
  bash tools/sandbox.sh stop pgsql >/dev/null 2>&1 || true
  rm -rf "$BMK_SANDBOX_DIR"
}
trap stop_all EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

out=$(mktemp)
for cfg in ${BENCH_CONFIGS:-mysql-threads pgsql}; do
  case $cfg in
    mysql-threads) db=mysql; export BMK_MYSQL_THREADING=per-connection ;;
    mysql-pool)    db=mysql; export BMK_MYSQL_THREADING=pool ;;
    pgsql)         db=pgsql ;;
    *) echo "unknown configuration $cfg" >&2; exit 1 ;;
  esac
  bash tools/sandbox.sh start "$db" >/dev/null
  if [ "$db" = mysql ]; then
    pid=$(cat "$BMK_SANDBOX_DIR/mysql/mysqld.pid")
  else
    pid=$(head -1 "$BMK_SANDBOX_DIR/pgsql/data/postmaster.pid")
  fi
  python3 bench/client_runqueue.py "$cfg" "$db" "$BMK" "$pid" "$vus_list" "$runs" "$secs" \
    "${BENCH_VARIANTS---workers=threads}" | tee -a "$out"
  bash tools/sandbox.sh stop "$db" >/dev/null
done
echo
echo "== summary (oltp_point_select, 4 x 20,000 rows, ${secs} s runs, medians of $runs)"
grep '^|' "$out" | awk '!seen[$0]++'
rm -f "$out"
