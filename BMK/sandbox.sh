#!/usr/bin/env bash
# Throwaway local database servers for trying and testing bmk.
#
#   bash BMK/sandbox.sh start|stop|status|env mysql|pgsql
#
# start  starts MariaDB or PostgreSQL from Debian's packages with its data
#        directory under $BMK_SANDBOX_DIR (default /tmp/bmk-sandbox),
#        listening on 127.0.0.1 and a unix socket in that directory only,
#        with user sbtest (password $BMK_SANDBOX_PASSWORD, default sbtest)
#        and database sbtest. Settings favour speed over durability.
# stop   stops it and removes its data (BMK_SANDBOX_KEEP=1 keeps it).
# status says whether it runs.
# env    prints shell assignments with bmk's connection options:
#        eval "$(bash BMK/sandbox.sh env mysql)"; bmk ... $BMK_MYSQL_OPTS
# Ports: $BMK_MYSQL_PORT (3306), $BMK_PGSQL_PORT (5432).
set -euo pipefail

action=${1:-}
db=${2:-}
DIR=${BMK_SANDBOX_DIR:-/tmp/bmk-sandbox}
PASS=${BMK_SANDBOX_PASSWORD:-sbtest}
MYSQL_PORT=${BMK_MYSQL_PORT:-3306}
PGSQL_PORT=${BMK_PGSQL_PORT:-5432}
PGBIN=${BMK_PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

usage() {
  echo "usage: $0 start|stop|status|env mysql|pgsql" >&2
  exit 2
}
die() {
  echo "sandbox: $*" >&2
  exit 1
}

my_dir=$DIR/mysql
my_sock=$my_dir/mysqld.sock
pg_dir=$DIR/pgsql

mysql_running() {
  [ -f "$my_dir/mysqld.pid" ] && kill -0 "$(cat "$my_dir/mysqld.pid")" 2>/dev/null
}
pgsql_running() {
  [ -f "$pg_dir/data/postmaster.pid" ] && kill -0 "$(head -1 "$pg_dir/data/postmaster.pid")" 2>/dev/null
}

start_mysql() {
  if mysql_running; then echo "sandbox: mysql already running on port $MYSQL_PORT"; return 0; fi
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || die "mariadbd not found: apt-get install mariadb-server"
  local mysqld=/usr/sbin/mariadbd
  [ -x "$mysqld" ] || mysqld=$(command -v mariadbd)
  mkdir -p "$my_dir"
  rm -rf "$my_dir/data"
  mariadb-install-db --no-defaults --datadir="$my_dir/data" --user=root \
    --auth-root-authentication-method=normal --skip-test-db >"$my_dir/install.log" 2>&1 ||
    { tail -20 "$my_dir/install.log" >&2; die "mariadb-install-db failed"; }
  "$mysqld" --no-defaults --datadir="$my_dir/data" --user=root \
    --socket="$my_sock" --port="$MYSQL_PORT" --bind-address=127.0.0.1 \
    --pid-file="$my_dir/mysqld.pid" --log-error="$my_dir/error.log" \
    --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=256M \
    --innodb-log-file-size=256M --innodb-flush-log-at-trx-commit=2 \
    --sync-binlog=0 --max-connections=1000 --max-prepared-stmt-count=100000 \
    >/dev/null 2>&1 &
  for _ in $(seq 1 120); do
    if mariadb -S "$my_sock" -uroot -e "SELECT 1" >/dev/null 2>&1; then break; fi
    sleep 0.5
  done
  mariadb -S "$my_sock" -uroot -e "SELECT 1" >/dev/null 2>&1 ||
    { tail -20 "$my_dir/error.log" >&2; die "MariaDB did not start within 60 s (log: $my_dir/error.log)"; }
  mariadb -S "$my_sock" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'sbtest'@'localhost' IDENTIFIED BY '$PASS';
CREATE USER IF NOT EXISTS 'sbtest'@'127.0.0.1' IDENTIFIED BY '$PASS';
GRANT ALL ON *.* TO 'sbtest'@'localhost';
GRANT ALL ON *.* TO 'sbtest'@'127.0.0.1';
SQL
  echo "sandbox: mysql running: 127.0.0.1:$MYSQL_PORT, socket $my_sock, user sbtest, database sbtest"
}

stop_mysql() {
  if mysql_running; then
    local pid
    pid=$(cat "$my_dir/mysqld.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  [ "${BMK_SANDBOX_KEEP:-0}" = 1 ] || rm -rf "$my_dir"
  echo "sandbox: mysql stopped"
}

pg() {  # runs a command as the postgres user
  su postgres -s /bin/sh -c "$*"
}

start_pgsql() {
  if pgsql_running; then echo "sandbox: pgsql already running on port $PGSQL_PORT"; return 0; fi
  [ -x "$PGBIN/initdb" ] || die "PostgreSQL binaries not found: apt-get install postgresql"
  mkdir -p "$pg_dir"
  # The server refuses to run as root: the postgres user must reach the dir.
  chmod 755 "$DIR" "$pg_dir"
  chown postgres "$pg_dir"
  rm -rf "$pg_dir/data"
  pg "'$PGBIN/initdb' -D '$pg_dir/data' -U postgres -A trust -E UTF8 --no-locale" >"$pg_dir/initdb.log" 2>&1 ||
    { tail -20 "$pg_dir/initdb.log" >&2; die "initdb failed"; }
  cat >>"$pg_dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PGSQL_PORT
unix_socket_directories = '$pg_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 1100
shared_buffers = 256MB
CONF
  cat >"$pg_dir/data/pg_hba.conf" <<HBA
local all postgres trust
local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
HBA
  pg "'$PGBIN/pg_ctl' -D '$pg_dir/data' -l '$pg_dir/server.log' -w -t 60 start" >/dev/null ||
    { tail -20 "$pg_dir/server.log" >&2; die "PostgreSQL did not start (log: $pg_dir/server.log)"; }
  pg "psql -h '$pg_dir' -p $PGSQL_PORT -U postgres -q -v ON_ERROR_STOP=1" <<SQL
CREATE ROLE sbtest LOGIN SUPERUSER PASSWORD '$PASS';
CREATE DATABASE sbtest OWNER sbtest;
SQL
  echo "sandbox: pgsql running: 127.0.0.1:$PGSQL_PORT, socket dir $pg_dir, user sbtest, database sbtest"
}

stop_pgsql() {
  if pgsql_running; then
    pg "'$PGBIN/pg_ctl' -D '$pg_dir/data' -m fast -w -t 60 stop" >/dev/null || true
  fi
  [ "${BMK_SANDBOX_KEEP:-0}" = 1 ] || rm -rf "$pg_dir"
  echo "sandbox: pgsql stopped"
}

print_env() {
  case $db in
    mysql)
      echo "BMK_MYSQL_OPTS=\"--mysql-host=127.0.0.1 --mysql-port=$MYSQL_PORT --mysql-user=sbtest --mysql-password=$PASS --mysql-db=sbtest\""
      echo "BMK_MYSQL_SOCKET=\"$my_sock\"" ;;
    pgsql)
      echo "BMK_PGSQL_OPTS=\"--pgsql-host=127.0.0.1 --pgsql-port=$PGSQL_PORT --pgsql-user=sbtest --pgsql-password=$PASS --pgsql-db=sbtest\""
      echo "BMK_PGSQL_SOCKET_DIR=\"$pg_dir\"" ;;
  esac
}

case $db in mysql|pgsql) ;; *) usage ;; esac
case $action in
  start) mkdir -p "$DIR"; "start_$db" ;;
  stop) "stop_$db" ;;
  status) if "${db}_running"; then echo "sandbox: $db running"; else echo "sandbox: $db not running"; exit 1; fi ;;
  env) print_env ;;
  *) usage ;;
esac
