#!/usr/bin/env bash
# Throughput and client CPU of bmk's default engine against Debian's
# sysbench 1.0.20 (one thread per user), per user count, on three server
# configurations: MariaDB with one thread per connection (its default),
# MariaDB with its thread pool (the sandbox's default) and PostgreSQL 15.
# oltp_point_select, 4 tables x 20,000 rows, --time=SECONDS runs, the two
# tools alternating (their order swaps from pair to pair, so a drift of
# the shared machine hits both).
#
# Usage: bash bench/engine_vs_sysbench.sh [VU counts ("1 4 8 16 32 64 128 256 1024")]
#                                         [pairs (5)] [seconds (5)]
# Environment:
#   BENCH_CONFIGS="mysql-threads mysql-pool pgsql"   the server configurations
#   BENCH_VARIANTS=""   more bmk variants, ';'-separated option lists
#                       (e.g. "--workers=threads;--workers=1")
#   BENCH_BMK=path      the bmk binary (default ./bmk)
#   BENCH_STRACE="16 256"  VU counts at which one more run of each tool is
#                       made under `strace -c -f` for system calls per query
#                       ("" = none)
#   BENCH_PORT_BASE=3456  the servers' ports: MariaDB on it, PostgreSQL on +1
# The servers are started and stopped here (bench/server_configs.sh), one
# configuration at a time. Needs ./bmk built, `apt-get install sysbench strace`.
#
# Prints one line per run as it goes, then per configuration and user
# count: each tool's transactions per second (median and range over the
# pairs), the ratio of the medians (bmk / sysbench; >= 0.97 is the target),
# each tool's client CPU (user+sys of the process, from wait4) per query
# and the median of the per-pair ratios with its range, and the engine bmk
# chose (threads, or event/W: the event loop on W workers).
set -euo pipefail
cd "$(dirname "$0")/.."
vus_list=${1:-"1 4 8 16 32 64 128 256 1024"}
pairs=${2:-5}
secs=${3:-5}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=${BENCH_BMK:-$(pwd)/bmk}
[ -x "$BMK" ] || { echo "$BMK is not built: see README" >&2; exit 1; }
. bench/server_configs.sh
bench_servers_init "${BENCH_PORT_BASE:-3456}"

out=$(mktemp)
for cfg in ${BENCH_CONFIGS:-mysql-threads mysql-pool pgsql}; do
  bench_config_start "$cfg"
  python3 bench/engine_vs_sysbench.py "$cfg" "$DB" "$BMK" "$vus_list" "$pairs" "$secs" \
    "${BENCH_VARIANTS:-}" "${BENCH_STRACE-16 256}" | tee -a "$out"
  bench_config_stop
done
echo
echo "== summary (oltp_point_select, 4 x 20,000 rows, ${secs} s runs, $pairs alternating pairs)"
grep '^|' "$out"
rm -f "$out"
