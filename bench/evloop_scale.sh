#!/usr/bin/env bash
# The event loop at the sizes CI does not run (soak): 5,000 VUs with a 1 s
# think time on MariaDB's thread pool and through PgBouncer, 2,000 VUs
# ramping into max_connections=1,500, and 1,000 VUs through a server
# restart on each database. It runs the scale part of
# tests/integration/test_evloop.sh with the big sizes (the same checks:
# counts, Little's law, one reconnect per VU) and prints, per step, the
# checks' lines and how long it took.
#
# Usage: bash bench/evloop_scale.sh [many VUs (5000)] [restart VUs (1000)] [VUS:LIMIT (2000:1500)]
# Needs ./bmk built and the sandbox servers started with the sizes these
# need (bash tools/sandbox.sh start mysql; ... start pgsql; ... start
# pgbouncer: MariaDB's thread pool, PostgreSQL max_connections 1,100); bmk
# raises its open-files limit up to the hard limit by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./bmk ] || { echo "build bmk first (./autogen.sh && ./configure && make)" >&2; exit 1; }
many=${1:-5000} restart=${2:-1000} maxconn=${3:-2000:1500}
start=$(date +%s.%N)
BMK_EVLOOP_ONLY=scale BMK_EVLOOP_MANY=$many BMK_EVLOOP_RESTART=$restart BMK_EVLOOP_MAXCONN=$maxconn \
  bash tests/integration/test_evloop.sh ./bmk 2>&1 | while IFS= read -r l; do
    printf '%s  %s\n' "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN{printf "%8.1fs", a - b}')" "$l"
  done
