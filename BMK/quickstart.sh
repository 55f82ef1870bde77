#!/usr/bin/env bash
# Quick start (README): on a fresh Debian 12 machine, as root, installs the
# dependencies, builds bmk, starts a throwaway MariaDB server and runs the
# benchmark kit's workflow on a small data set: generate the named scripts,
# prepare 4 tables of 10,000 rows, run OLTP read-write at 1, 2, 4 and 8
# users for 5 s each with a report every second, clean up, stop the server.
#   BMK_DRIVER=pgsql      use PostgreSQL instead of MariaDB
#   BMK_QUICK_SECONDS=N   seconds per load level (5)
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$(pwd)
driver=${BMK_DRIVER:-mysql}
secs=${BMK_QUICK_SECONDS:-5}

bash BMK/setup.sh
export BMK_SANDBOX_DIR=${BMK_SANDBOX_DIR:-$(mktemp -d /tmp/bmk-quickstart-XXXXXX)}
trap 'bash "$TOP/tools/sandbox.sh" stop "$driver" >/dev/null 2>&1 || true' EXIT
bash tools/sandbox.sh start "$driver"

# A kit home for this server: the kit's Lua and a .bench pointing at the
# sandbox (docs/kit.md). A real setup edits BMK/.bench instead.
export BMK_HOME=$BMK_SANDBOX_DIR/kit
mkdir -p "$BMK_HOME/sb_exec"
cp -r BMK/sb_exec/lua "$BMK_HOME/sb_exec/"
cat > "$BMK_HOME/.bench" <<BENCH
sb11=$TOP/bmk
driver=$driver
user=sbtest
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
host=127.0.0.1
port=${BMK_MYSQL_PORT:-3306}
socket=$BMK_SANDBOX_DIR/mysql/mysqld.sock
pg_host=127.0.0.1
pg_port=${BMK_PGSQL_PORT:-5432}
pg_socket=$BMK_SANDBOX_DIR/pgsql
db=sbtest
BENCH

echo "==> bmk kit generate --sizes=10K --tables=4 --dists=uniform"
./bmk kit generate --sizes=10K --tables=4 --dists=uniform | tail -1
bash "$BMK_HOME/sb_exec/sb11-Prepare_10K_4tab-InnoDB.sh" 4
for users in 1 2 4 8; do
  echo
  echo "==> sb11-OLTP_RW_10K_4tab-uniform-ps-trx.sh $users $secs --report-interval=1"
  bash "$BMK_HOME/sb_exec/sb11-OLTP_RW_10K_4tab-uniform-ps-trx.sh" "$users" "$secs" --report-interval=1
  sleep 1
done
./bmk kit cleanup Prepare_10K_4tab-InnoDB
