#!/usr/bin/env bash
# `bmk tpch` at SF 1 (or SF) on the sandbox databases: prepare (with the
# secondary indexes), the validation run against TPC-H's reference answers
# (the TPC-H tools' answers/ folder: qN.out, for SF 1 with qgen -d's
# parameters; or DuckDB's qNN.csv), then one power test; prints each
# database's load summary, the 22 PASS/FAIL lines and the power test's
# per-query times and Power@Size. docs/tpch.md "Answers".
#
# Usage: bash bench/tpch_validate.sh ANSWERS_DIR [SF (1)] [threads (nproc)]
# Needs ./bmk built and the sandbox servers started (bash tools/sandbox.sh
# start mysql; ... start pgsql; BMK_MYSQL_PORT/BMK_PGSQL_PORT/
# BMK_SANDBOX_PASSWORD as for the sandbox). BMK_TEST_DBS="mysql" (or
# "pgsql") limits it to one database. The tables go into a database /
# schema `tpchbench`, dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./autogen.sh && ./configure && make)" >&2; exit 1; }
answers=${1:?usage: bench/tpch_validate.sh ANSWERS_DIR [SF] [threads]}
sf=${2:-1}
threads=${3:-$(nproc)}
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=tpchbench"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest --pgsql-schema=tpchbench"

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ "$db" = mysql ]; then
    O=$mysql_opts
    MYSQL_PWD=$pass mariadb --protocol=tcp -h127.0.0.1 -P"${BMK_MYSQL_PORT:-3306}" -usbtest \
      -e "CREATE DATABASE IF NOT EXISTS tpchbench"
  else
    O=$pgsql_opts
  fi
  echo "== $db"
  "$BMK" tpch $O cleanup >/dev/null 2>&1 || true
  "$BMK" tpch $O --scale="$sf" --threads="$threads" --indexes=on --report-interval=60 prepare |
    sed -n '/^Load summary/,$p'
  "$BMK" tpch $O --scale="$sf" --validate --answers="$answers" run |
    grep -E '^  [0-9]+ +Q|^ {9}row|^Answers' || true
  "$BMK" tpch $O --scale="$sf" run | sed -n '/^Power test,/,$p' || true
  "$BMK" tpch $O cleanup >/dev/null
done
