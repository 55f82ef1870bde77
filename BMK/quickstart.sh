#!/usr/bin/env bash
# Quick start (README): on a fresh Debian 12 machine, as root, installs
# the dependencies, builds bmk, starts a throwaway MariaDB server, prepares
# a small OLTP data set, runs oltp_read_write for 10 s with a report every
# second, cleans up and stops the server.
#   BMK_DRIVER=pgsql  use PostgreSQL instead of MariaDB
set -euo pipefail
cd "$(dirname "$0")/.."
driver=${BMK_DRIVER:-mysql}

bash BMK/setup.sh
export BMK_SANDBOX_DIR=${BMK_SANDBOX_DIR:-$(mktemp -d /tmp/bmk-quickstart-XXXXXX)}
trap 'bash BMK/sandbox.sh stop "$driver" >/dev/null 2>&1 || true' EXIT
bash BMK/sandbox.sh start "$driver"
eval "$(bash BMK/sandbox.sh env "$driver")"
if [ "$driver" = mysql ]; then opts=$BMK_MYSQL_OPTS; else opts=$BMK_PGSQL_OPTS; fi

# shellcheck disable=SC2086
./bmk oltp_read_write --db-driver="$driver" $opts --tables=4 --table-size=10000 --threads=4 prepare
# shellcheck disable=SC2086
./bmk oltp_read_write --db-driver="$driver" $opts --tables=4 --table-size=10000 --threads=8 \
  --time=10 --report-interval=1 run
# shellcheck disable=SC2086
./bmk oltp_read_write --db-driver="$driver" $opts --tables=4 cleanup
