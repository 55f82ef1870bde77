#!/usr/bin/env bash
# Throwaway local database servers for trying and testing bmk.
#
#   bash tools/sandbox.sh start|stop|restart|crash|status|env mysql|pgsql|pgbouncer
#   (`bmk sandbox ...` runs this script too, from the source tree or from
#   an installation's data directory, e.g. /usr/share/bmk/sandbox.sh)
#   bash tools/sandbox.sh start|stop|restart|crash|status|env mysql-replica|mysql-replica2|pgsql-replica
#
# (the replicas: tools/sandbox_replica.sh, which says how they are made;
# mysql-replica2 is a second MariaDB replica of the same primary)
#
# start  starts MariaDB (mysql) or PostgreSQL 15 (pgsql) from Debian's
#        packages with a fresh data directory under $BMK_SANDBOX_DIR
#        (default /tmp/bmk-sandbox), listening on 127.0.0.1 and on a unix
#        socket in that directory only, with a user sbtest (password
#        $BMK_SANDBOX_PASSWORD, default sbtest; all privileges) and a
#        database sbtest. Settings favour speed over durability (no binlog,
#        no fsync); MariaDB allows LOAD DATA LOCAL INFILE (bmk's fast
#        load). Waits up to 60 s for the server to accept connections.
#        Does nothing (exit 0) when the server already runs. Works as root.
#        For many sessions (bmk's event loop): MariaDB runs its
#        thread pool (thread_handling=pool-of-threads;
#        BMK_MYSQL_THREADING=per-connection starts it with MariaDB's own
#        default, one thread per connection, as most servers run) with
#        max_connections $BMK_MYSQL_MAX_CONNECTIONS (default 25000) and the
#        open-files limit to match; `pgbouncer` starts PgBouncer in front
#        of the pgsql sandbox (start pgsql first) on $BMK_PGBOUNCER_PORT
#        (default 6432) in transaction pooling, for up to
#        $BMK_PGBOUNCER_MAX_CLIENTS (default 25000) client connections on
#        20 server connections. Transaction pooling cannot keep named
#        prepared statements (PgBouncer 1.18): run bmk through it with
#        --db-ps-mode=disable.
# stop   stops the server and removes its data directory
#        (BMK_SANDBOX_KEEP=1 keeps it); stop mysql / pgsql stops its
#        replicas first (mysql: both), when they run.
# restart stops the server cleanly (every session is cut) and starts it
#        again on the same data directory and settings, as a server
#        restart under load does (mysql and pgsql).
# crash  kills the server with SIGKILL, as a crash does, and waits until it
#        accepts connections again after its crash recovery: MariaDB's
#        server process is killed and started again on the same data;
#        PostgreSQL's background writer is killed, upon which the
#        postmaster ends every session, recovers and accepts connections
#        again by itself (restart_after_crash; the statistics counters
#        restart from 0, as after any crash) (mysql and pgsql).
# down / up (replicas only: mysql-replica[2], pgsql-replica): down stops the
#        replica's server and keeps its data; up starts it again on that
#        data, where it resumes replicating (a replica that is away for a
#        while, as in a failover test).
# status says whether the server runs (exit 0) or not (exit 1).
# env    prints shell assignments with bmk's connection options:
#          eval "$(bash tools/sandbox.sh env mysql)"
#          bmk oltp_read_write --db-driver=mysql $BMK_MYSQL_OPTS prepare
#        and BMK_TLS_CA, the CA that signed the servers' certificates
#        (empty for servers without TLS).
#
# TLS: BMK_SANDBOX_TLS=1 starts the servers with TLS (they accept TLS and
# plain connections). At the first such start a throwaway CA and a server
# certificate (ECDSA; subjectAltName localhost and 127.0.0.1) are made
# with the openssl command in $BMK_SANDBOX_DIR/tls. Those servers also
# listen on 127.0.0.2, an address the certificate does not name (for
# host-name verification tests). TLS is off by default: with it, every
# PostgreSQL client of the default sslmode=prefer negotiates TLS, and the
# stock mariadb client loads the system's whole CA bundle on each start,
# which changes the timing the other tests rely on
# (tests/integration/test_tls.sh starts its own TLS pair).
#
# Environment: BMK_SANDBOX_DIR, BMK_SANDBOX_PASSWORD, BMK_SANDBOX_KEEP, BMK_SANDBOX_TLS,
#   BMK_MYSQL_PORT (3306), BMK_PGSQL_PORT (5432), BMK_PGBOUNCER_PORT (6432),
#   BMK_MYSQL_REPLICA_PORT (3307), BMK_MYSQL_REPLICA2_PORT (3308),
#   BMK_PGSQL_REPLICA_PORT (5433),
#   BMK_MYSQL_REPLICA_MAX_CONNECTIONS (2000),
#   BMK_MYSQL_MAX_CONNECTIONS (25000), BMK_PGBOUNCER_MAX_CLIENTS (25000),
#   BMK_MYSQL_THREADING (pool, the default, or per-connection),
#   BMK_MYSQL_EXTRA_OPTS (more mariadbd options, word-split),
#   BMK_PGBIN (PostgreSQL bin dir, default the newest /usr/lib/postgresql/*/bin).
set -euo pipefail

action=${1:-}
db=${2:-}
DIR=${BMK_SANDBOX_DIR:-/tmp/bmk-sandbox}
PASS=${BMK_SANDBOX_PASSWORD:-sbtest}
MYSQL_PORT=${BMK_MYSQL_PORT:-3306}
PGSQL_PORT=${BMK_PGSQL_PORT:-5432}
PGB_PORT=${BMK_PGBOUNCER_PORT:-6432}
MY_MAXCONN=${BMK_MYSQL_MAX_CONNECTIONS:-25000}
PGB_MAXCLIENTS=${BMK_PGBOUNCER_MAX_CLIENTS:-25000}
PGBIN=${BMK_PGBIN:-}
if [ -z "$PGBIN" ]; then
  if [ -x /usr/lib/postgresql/15/bin/initdb ]; then
    PGBIN=/usr/lib/postgresql/15/bin
  else
    # shellcheck disable=SC2012
    PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  fi
fi
# How the messages name this script: `bmk sandbox` sets BMK_SANDBOX_CMD.
SELF=${BMK_SANDBOX_CMD:-bash $0}
TIMEOUT=60
TLS=${BMK_SANDBOX_TLS:-0}
tls_dir=$DIR/tls

usage() {
  echo "usage: $SELF start|stop|restart|crash|status|env mysql|pgsql|pgbouncer|mysql-replica|mysql-replica2|pgsql-replica" >&2
  echo "       $SELF down|up mysql-replica|mysql-replica2|pgsql-replica" >&2
  exit 2
}
die() {
  echo "sandbox: $*" >&2
  exit 1
}
# SQL string literal body: doubles single quotes (and backslashes for MariaDB).
sql_quote_pg() { printf '%s' "${1//\'/\'\'}"; }
sql_quote_my() { local s=${1//\\/\\\\}; printf '%s' "${s//\'/\'\'}"; }

# True when something already listens on 127.0.0.1:$1.
port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

my_dir=$DIR/mysql
my_sock=$my_dir/mysqld.sock
my_pid=$my_dir/mysqld.pid
my_log=$my_dir/error.log
pg_dir=$DIR/pgsql
pg_data=$pg_dir/data
pg_sock=$pg_dir/.s.PGSQL.$PGSQL_PORT
pg_log=$pg_dir/server.log
pgb_dir=$DIR/pgbouncer
pgb_pid=$pgb_dir/pgbouncer.pid
pgb_log=$pgb_dir/pgbouncer.log
# shellcheck source=tools/sandbox_replica.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/sandbox_replica.sh"

# Raises this shell's open-files limit to `n` (as root above the hard
# limit too), so the servers started from it can hold many connections.
raise_nofile() {
  local n=$1
  if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$n" ]; then
    ulimit -Hn "$n" 2>/dev/null || true
  fi
  if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$n" ]; then
    ulimit -Sn "$n" 2>/dev/null || ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
  fi
}

# -------------------------------------------------------------------- TLS

# Makes the CA and the server certificate once per sandbox directory.
# ECDSA P-256 keys: a handshake costs the server far less than with RSA,
# and every PostgreSQL client (sslmode=prefer) negotiates TLS here.
tls_make_certs() {
  [ -f "$tls_dir/server-cert.pem" ] && [ -f "$tls_dir/ca.pem" ] && return 0
  command -v openssl >/dev/null || die "openssl not found: apt-get install openssl"
  mkdir -p "$tls_dir"
  (
    cd "$tls_dir" &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj "/CN=bmk sandbox CA" \
      -keyout ca-key.pem -out ca.pem &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
      -keyout server-key.pem -out server.csr &&
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1" >server.ext &&
    openssl x509 -req -days 3650 -in server.csr -CA ca.pem -CAkey ca-key.pem \
      -CAcreateserial -extfile server.ext -out server-cert.pem
  ) >"$DIR/tls.log" 2>&1 || { cat "$DIR/tls.log" >&2; die "making the TLS certificates failed"; }
  chmod 600 "$tls_dir/ca-key.pem" "$tls_dir/server-key.pem"
}

# Removes the certificates once neither server runs (stop).
tls_forget() {
  [ "${BMK_SANDBOX_KEEP:-0}" = 1 ] && return 0
  mysql_running || pgsql_running || rm -rf "$tls_dir" "$DIR/tls.log"
}

# mariadbd options for TLS (none without BMK_SANDBOX_TLS=1).
tls_mysql_opts() {
  [ "$TLS" = 1 ] || return 0
  tls_make_certs
  echo "--ssl-ca=$tls_dir/ca.pem --ssl-cert=$tls_dir/server-cert.pem --ssl-key=$tls_dir/server-key.pem"
}

# Listen addresses (quoted with $1): 127.0.0.2 as well when TLS is on.
tls_listen() {
  local q=${1:-}
  if [ "$TLS" = 1 ]; then echo "${q}127.0.0.1,127.0.0.2${q}"; else echo "${q}127.0.0.1${q}"; fi
}

# postgresql.conf lines for TLS; the key goes into the data directory,
# owned by the server's user (PostgreSQL refuses a key others can read).
tls_pgsql_conf() {
  if [ "$TLS" != 1 ]; then
    echo "ssl = off"
    return 0
  fi
  tls_make_certs
  cp "$tls_dir/server-cert.pem" "$pg_data/server.crt"
  cp "$tls_dir/server-key.pem" "$pg_data/server.key"
  cp "$tls_dir/ca.pem" "$pg_data/root.crt"
  chmod 600 "$pg_data/server.key"
  [ "$(id -u)" = 0 ] && chown postgres: "$pg_data/server.crt" "$pg_data/server.key" "$pg_data/root.crt"
  printf '%s\n' "ssl = on" "ssl_cert_file = 'server.crt'" "ssl_key_file = 'server.key'" \
    "ssl_ca_file = 'root.crt'"
}

# ---------------------------------------------------------------- MariaDB

mysql_running() {
  [ -f "$my_pid" ] && kill -0 "$(cat "$my_pid" 2>/dev/null)" 2>/dev/null
}

mysql_root() {  # runs the client as the server's root user over the socket
  mariadb --no-defaults -S "$my_sock" -uroot "$@"
}

start_mysql() {
  if mysql_running; then
    echo "sandbox: mysql already running (127.0.0.1:$MYSQL_PORT, socket $my_sock)"
    return 0
  fi
  local mysqld install_db
  mysqld=$(command -v mariadbd || command -v mysqld || true)
  [ -n "$mysqld" ] || { [ -x /usr/sbin/mariadbd ] && mysqld=/usr/sbin/mariadbd; } ||
    die "mariadbd not found: apt-get install mariadb-server"
  install_db=$(command -v mariadb-install-db || command -v mysql_install_db || true)
  [ -n "$install_db" ] || die "mariadb-install-db not found: apt-get install mariadb-server"
  command -v mariadb >/dev/null || die "mariadb client not found: apt-get install mariadb-client"
  port_busy "$MYSQL_PORT" && die "port 127.0.0.1:$MYSQL_PORT is already in use (set BMK_MYSQL_PORT)"

  mkdir -p "$my_dir"
  rm -rf "$my_dir/data" "$my_sock" "$my_pid" "$my_log"
  echo "sandbox: initializing MariaDB in $my_dir/data"
  # a temporary directory of its own: the bootstrap's temporary tables
  # in a shared /tmp once vanished under it (another process cleaning up)
  mkdir -p "$my_dir/tmp"
  "$install_db" --no-defaults --datadir="$my_dir/data" --user=root --tmpdir="$my_dir/tmp" \
    --auth-root-authentication-method=normal --skip-test-db >"$my_dir/install.log" 2>&1 ||
    { tail -20 "$my_dir/install.log" >&2; die "mariadb-install-db failed (log: $my_dir/install.log)"; }
  # what restart needs to start the same server again
  printf 'TLS=%q\nMY_MAXCONN=%q\nMY_EXTRA=%q\nMY_THREADING=%q\n' "$TLS" "$MY_MAXCONN" \
    "${BMK_MYSQL_EXTRA_OPTS:-}" "$(mysql_threading)" \
    >"$my_dir/launch.env"
  launch_mysql "$mysqld"
  local p
  p=$(sql_quote_my "$PASS")
  mysql_root <<SQL || die "creating user/database sbtest failed"
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'sbtest'@'localhost' IDENTIFIED BY '$p';
CREATE USER IF NOT EXISTS 'sbtest'@'127.0.0.1' IDENTIFIED BY '$p';
CREATE USER IF NOT EXISTS 'sbtest'@'127.0.0.2' IDENTIFIED BY '$p';
GRANT ALL ON *.* TO 'sbtest'@'localhost' WITH GRANT OPTION;
GRANT ALL ON *.* TO 'sbtest'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL ON *.* TO 'sbtest'@'127.0.0.2' WITH GRANT OPTION;
SQL
  echo "sandbox: mysql running: 127.0.0.1:$MYSQL_PORT, socket $my_sock, user sbtest, database sbtest"
}

# mysql_threading: MariaDB's thread_handling for BMK_MYSQL_THREADING
# (restart keeps the one the server was started with: MY_THREADING)
mysql_threading() {
  case ${MY_THREADING:-${BMK_MYSQL_THREADING:-pool}} in
    pool|pool-of-threads) echo pool-of-threads ;;
    per-connection|one-thread-per-connection) echo one-thread-per-connection ;;
    *) die "BMK_MYSQL_THREADING=${BMK_MYSQL_THREADING:-} is not pool or per-connection" ;;
  esac
}

# launch_mysql MARIADBD: starts the server on the existing data directory
# and waits until it accepts connections (start and restart).
launch_mysql() {
  local mysqld=$1 tls_opts threading
  tls_opts=$(tls_mysql_opts) || exit 1
  threading=$(mysql_threading) || exit 1
  # The thread pool serves thousands of connections with a few threads;
  # each connection still needs a descriptor (and a few for tables).
  raise_nofile $((MY_MAXCONN + 2000))
  mkdir -p "$my_dir/tmp"
  # setsid: the server outlives the shell (and process group) that started it.
  # shellcheck disable=SC2086  # BMK_MYSQL_EXTRA_OPTS and tls_opts are word lists
  setsid "$mysqld" --no-defaults --datadir="$my_dir/data" --user=root \
    --socket="$my_sock" --port="$MYSQL_PORT" --bind-address="$(tls_listen)" $tls_opts \
    --pid-file="$my_pid" --log-error="$my_log" --tmpdir="$my_dir/tmp" \
    --skip-name-resolve --skip-log-bin --sync-binlog=0 \
    --innodb-buffer-pool-size=128M --innodb-log-file-size=256M \
    --innodb-flush-log-at-trx-commit=2 --innodb-doublewrite=0 \
    --thread-handling="$threading" --max-connections="$MY_MAXCONN" \
    --open-files-limit=$((MY_MAXCONN + 2000)) --back-log=4096 \
    --max-prepared-stmt-count=1000000 --local-infile=1 \
    ${MY_EXTRA:-${BMK_MYSQL_EXTRA_OPTS:-}} </dev/null >/dev/null 2>&1 &
  local spid=$! t
  for ((t = 0; t < TIMEOUT * 4; t++)); do
    mysql_root -e "SELECT 1" >/dev/null 2>&1 && break
    if ! kill -0 "$spid" 2>/dev/null; then
      [ -f "$my_log" ] && tail -20 "$my_log" >&2
      die "MariaDB exited during startup (log: $my_log)"
    fi
    sleep 0.25
  done
  if ! mysql_root -e "SELECT 1" >/dev/null 2>&1; then
    [ -f "$my_log" ] && tail -20 "$my_log" >&2
    kill "$spid" 2>/dev/null || true
    die "MariaDB did not accept connections within $TIMEOUT s (log: $my_log)"
  fi
}

# Stops the server cleanly and starts it again on the same data and
# options: every session is cut, as in a server restart under load.
restart_mysql() {
  mysql_running || die "mysql is not running ($SELF start mysql)"
  local mysqld
  mysqld=$(command -v mariadbd || command -v mysqld || echo /usr/sbin/mariadbd)
  # the settings it was started with (TLS, max_connections, extra options)
  # shellcheck disable=SC1091
  [ -f "$my_dir/launch.env" ] && . "$my_dir/launch.env"
  BMK_SANDBOX_KEEP=1 stop_mysql >/dev/null
  rm -f "$my_sock" "$my_pid"
  launch_mysql "$mysqld"
  echo "sandbox: mysql restarted: 127.0.0.1:$MYSQL_PORT, socket $my_sock"
}

# SIGKILL, then the same server started again on its data (crash recovery).
crash_mysql() {
  mysql_running || die "mysql is not running ($SELF start mysql)"
  local mysqld pid t
  mysqld=$(command -v mariadbd || command -v mysqld || echo /usr/sbin/mariadbd)
  # shellcheck disable=SC1091
  [ -f "$my_dir/launch.env" ] && . "$my_dir/launch.env"
  pid=$(cat "$my_pid")
  kill -9 "$pid"
  for ((t = 0; t < TIMEOUT * 10; t++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && die "MariaDB (pid $pid) did not die of SIGKILL within $TIMEOUT s"
  rm -f "$my_sock" "$my_pid"
  launch_mysql "$mysqld"
  echo "sandbox: mysql killed (SIGKILL, pid $pid) and started again: 127.0.0.1:$MYSQL_PORT"
}

stop_mysql() {
  if mysql_running; then
    local pid t
    pid=$(cat "$my_pid")
    mysqladmin --no-defaults -S "$my_sock" -uroot shutdown >/dev/null 2>&1 ||
      kill "$pid" 2>/dev/null || true
    for ((t = 0; t < TIMEOUT * 4; t++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "sandbox: MariaDB did not stop within $TIMEOUT s, killing it" >&2
      kill -9 "$pid" 2>/dev/null || true
    fi
    echo "sandbox: mysql stopped"
  else
    echo "sandbox: mysql was not running"
  fi
  if [ "${BMK_SANDBOX_KEEP:-0}" = 1 ]; then
    echo "sandbox: kept $my_dir"
  else
    rm -rf "$my_dir"
  fi
}

# ------------------------------------------------------------- PostgreSQL

pgsql_running() {
  [ -f "$pg_data/postmaster.pid" ] && kill -0 "$(head -1 "$pg_data/postmaster.pid" 2>/dev/null)" 2>/dev/null
}

as_postgres() {  # runs a command as the postgres OS user (the server refuses root)
  if [ "$(id -u)" = 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

start_pgsql() {
  if pgsql_running; then
    echo "sandbox: pgsql already running (127.0.0.1:$PGSQL_PORT, socket dir $pg_dir)"
    return 0
  fi
  [ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] ||
    die "PostgreSQL binaries not found: apt-get install postgresql (or set BMK_PGBIN)"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || die "OS user postgres missing: apt-get install postgresql"
  fi
  port_busy "$PGSQL_PORT" && die "port 127.0.0.1:$PGSQL_PORT is already in use (set BMK_PGSQL_PORT)"

  mkdir -p "$pg_dir"
  rm -rf "$pg_data" "$pg_log" "$pg_sock" "$pg_sock.lock"
  if [ "$(id -u)" = 0 ]; then
    # The postgres user must reach the data and socket directory: let
    # everyone traverse the parents (e.g. a mktemp -d dir is 0700).
    local d=$pg_dir
    while [ "$d" != / ] && [ -n "$d" ]; do
      d=$(dirname "$d")
      [ "$d" = / ] || [ "$d" = /tmp ] || chmod o+x "$d"
    done
    chmod 755 "$DIR"
    chown postgres: "$pg_dir"
    chmod 755 "$pg_dir"
  fi
  echo "sandbox: initializing PostgreSQL in $pg_data"
  as_postgres "$PGBIN/initdb" -D "$pg_data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --no-locale >"$pg_dir/initdb.log" 2>&1 ||
    { tail -20 "$pg_dir/initdb.log" >&2; die "initdb failed (log: $pg_dir/initdb.log)"; }
  cat >>"$pg_data/postgresql.conf" <<CONF

# bmk sandbox: fast and not durable
listen_addresses = $(tls_listen "'")
port = $PGSQL_PORT
unix_socket_directories = '$pg_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 1100
shared_buffers = 256MB
password_encryption = scram-sha-256
CONF
  tls_pgsql_conf >>"$pg_data/postgresql.conf" || exit 1
  cat >"$pg_data/pg_hba.conf" <<HBA
# bmk sandbox
local all postgres trust
local all all md5
host  all all 127.0.0.1/32 scram-sha-256
host  all all 127.0.0.2/32 scram-sha-256
HBA
  [ "$(id -u)" = 0 ] && chown postgres: "$pg_data/postgresql.conf" "$pg_data/pg_hba.conf"
  # pg_ctl start detaches the server (it survives this shell).
  if ! as_postgres "$PGBIN/pg_ctl" -D "$pg_data" -l "$pg_log" -w -t "$TIMEOUT" start >/dev/null 2>&1; then
    [ -f "$pg_log" ] && tail -20 "$pg_log" >&2
    as_postgres "$PGBIN/pg_ctl" -D "$pg_data" -m immediate stop >/dev/null 2>&1 || true
    die "PostgreSQL did not accept connections within $TIMEOUT s (log: $pg_log)"
  fi
  local p
  p=$(sql_quote_pg "$PASS")
  as_postgres "$PGBIN/psql" -X -h "$pg_dir" -p "$PGSQL_PORT" -U postgres -d postgres -q -v ON_ERROR_STOP=1 <<SQL ||
CREATE ROLE sbtest LOGIN SUPERUSER PASSWORD '$p';
CREATE DATABASE sbtest OWNER sbtest;
SQL
    die "creating role/database sbtest failed"
  echo "sandbox: pgsql running: 127.0.0.1:$PGSQL_PORT, socket dir $pg_dir, user sbtest, database sbtest"
}

# Fast shutdown (sessions cut) and start on the same data directory.
restart_pgsql() {
  pgsql_running || die "pgsql is not running ($SELF start pgsql)"
  as_postgres "$PGBIN/pg_ctl" -D "$pg_data" -l "$pg_log" -m fast -w -t "$TIMEOUT" restart >/dev/null 2>&1 ||
    { [ -f "$pg_log" ] && tail -20 "$pg_log" >&2; die "PostgreSQL did not restart within $TIMEOUT s (log: $pg_log)"; }
  echo "sandbox: pgsql restarted: 127.0.0.1:$PGSQL_PORT, socket dir $pg_dir"
}

# SIGKILL of a server process: the postmaster ends every session and
# recovers (restart_after_crash), then accepts connections again.
crash_pgsql() {
  pgsql_running || die "pgsql is not running ($SELF start pgsql)"
  local pm victim t
  pm=$(head -1 "$pg_data/postmaster.pid")
  victim=$(ps --ppid "$pm" -o pid=,args= | awk '/background writer/ { print $1; exit }')
  [ -n "$victim" ] || die "no background writer process under postmaster $pm"
  kill -9 "$victim"
  # the old writer gone, then a new one (the recovery's end) and a login
  for ((t = 0; t < TIMEOUT * 10; t++)); do
    kill -0 "$victim" 2>/dev/null || break
    sleep 0.1
  done
  for ((t = 0; t < TIMEOUT * 10; t++)); do
    if ps --ppid "$pm" -o pid=,args= | awk -v v="$victim" '/background writer/ && $1 != v { f = 1 } END { exit !f }' &&
       as_postgres "$PGBIN/psql" -h "$pg_dir" -p "$PGSQL_PORT" -d postgres -Atc "SELECT 1" >/dev/null 2>&1; then
      echo "sandbox: pgsql crashed (SIGKILL of pid $victim, its background writer) and recovered: 127.0.0.1:$PGSQL_PORT"
      return 0
    fi
    sleep 0.1
  done
  die "PostgreSQL did not accept connections within $TIMEOUT s of the crash (log: $pg_log)"
}

stop_pgsql() {
  if pgsql_running; then
    as_postgres "$PGBIN/pg_ctl" -D "$pg_data" -m fast -w -t "$TIMEOUT" stop >/dev/null 2>&1 || {
      echo "sandbox: PostgreSQL did not stop within $TIMEOUT s, killing it" >&2
      kill -9 "$(head -1 "$pg_data/postmaster.pid")" 2>/dev/null || true
    }
    echo "sandbox: pgsql stopped"
  else
    echo "sandbox: pgsql was not running"
  fi
  if [ "${BMK_SANDBOX_KEEP:-0}" = 1 ]; then
    echo "sandbox: kept $pg_dir"
  else
    rm -rf "$pg_dir"
  fi
}

# -------------------------------------------------------------- PgBouncer

pgbouncer_running() {
  [ -f "$pgb_pid" ] && kill -0 "$(cat "$pgb_pid" 2>/dev/null)" 2>/dev/null
}

start_pgbouncer() {
  if pgbouncer_running; then
    echo "sandbox: pgbouncer already running (127.0.0.1:$PGB_PORT)"
    return 0
  fi
  local pgb
  pgb=$(command -v pgbouncer || true)
  [ -n "$pgb" ] || { [ -x /usr/sbin/pgbouncer ] && pgb=/usr/sbin/pgbouncer; } ||
    die "pgbouncer not found: apt-get install pgbouncer"
  pgsql_running || die "start the pgsql sandbox first ($SELF start pgsql)"
  port_busy "$PGB_PORT" && die "port 127.0.0.1:$PGB_PORT is already in use (set BMK_PGBOUNCER_PORT)"
  mkdir -p "$pgb_dir"
  rm -f "$pgb_pid" "$pgb_log"
  # Clients authenticate with md5 (cheap: thousands of sessions connect at
  # once); PgBouncer logs in to the server with the plain password.
  local p=${PASS//\"/\"\"}
  printf '"sbtest" "%s"\n' "$p" >"$pgb_dir/userlist.txt"
  cat >"$pgb_dir/pgbouncer.ini" <<INI
[databases]
sbtest = host=127.0.0.1 port=$PGSQL_PORT dbname=sbtest
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir = $pgb_dir
auth_type = md5
auth_file = $pgb_dir/userlist.txt
pool_mode = transaction
max_client_conn = $PGB_MAXCLIENTS
default_pool_size = 20
max_db_connections = 40
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
pidfile = $pgb_pid
logfile = $pgb_log
log_connections = 0
log_disconnections = 0
INI
  raise_nofile $((PGB_MAXCLIENTS + 200))
  local as_user=()
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres: "$pgb_dir"
    chmod 700 "$pgb_dir"
    # it refuses to run as root: -u drops to postgres itself, keeping the
    # raised descriptor limit (runuser would reset it through PAM)
    as_user=(-u postgres)
  fi
  # -d: daemonises itself (it outlives this shell)
  "$pgb" -d "${as_user[@]}" "$pgb_dir/pgbouncer.ini" >/dev/null 2>&1 ||
    { [ -f "$pgb_log" ] && tail -20 "$pgb_log" >&2; die "pgbouncer failed to start (log: $pgb_log)"; }
  local t
  for ((t = 0; t < TIMEOUT * 4; t++)); do
    port_busy "$PGB_PORT" && break
    sleep 0.25
  done
  port_busy "$PGB_PORT" || die "pgbouncer did not listen within $TIMEOUT s (log: $pgb_log)"
  echo "sandbox: pgbouncer running: 127.0.0.1:$PGB_PORT (transaction pooling), user sbtest, database sbtest"
}

stop_pgbouncer() {
  if pgbouncer_running; then
    local pid t
    pid=$(cat "$pgb_pid")
    kill -INT "$pid" 2>/dev/null || true
    for ((t = 0; t < TIMEOUT * 4; t++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    echo "sandbox: pgbouncer stopped"
  else
    echo "sandbox: pgbouncer was not running"
  fi
  if [ "${BMK_SANDBOX_KEEP:-0}" = 1 ]; then
    echo "sandbox: kept $pgb_dir"
  else
    rm -rf "$pgb_dir"
  fi
}

# ------------------------------------------------------------------ misc

status() {
  if "${db}_running"; then
    case $db in
      mysql) echo "sandbox: mysql running (pid $(cat "$my_pid"), 127.0.0.1:$MYSQL_PORT, socket $my_sock)" ;;
      pgsql) echo "sandbox: pgsql running (pid $(head -1 "$pg_data/postmaster.pid"), 127.0.0.1:$PGSQL_PORT, socket dir $pg_dir)" ;;
      pgbouncer) echo "sandbox: pgbouncer running (pid $(cat "$pgb_pid"), 127.0.0.1:$PGB_PORT)" ;;
    esac
  else
    echo "sandbox: $db not running"
    return 1
  fi
}

print_tls_env() {
  if [ -f "$tls_dir/ca.pem" ]; then echo "BMK_TLS_CA=\"$tls_dir/ca.pem\""; else echo "BMK_TLS_CA="; fi
}

print_env() {
  case $db in
    mysql)
      echo "BMK_MYSQL_OPTS=\"--mysql-host=127.0.0.1 --mysql-port=$MYSQL_PORT --mysql-user=sbtest --mysql-password=$PASS --mysql-db=sbtest\""
      echo "BMK_MYSQL_SOCKET_OPTS=\"--mysql-socket=$my_sock --mysql-user=sbtest --mysql-password=$PASS --mysql-db=sbtest\""
      echo "BMK_MYSQL_SOCKET=\"$my_sock\""
      print_tls_env ;;
    pgsql)
      echo "BMK_PGSQL_OPTS=\"--pgsql-host=127.0.0.1 --pgsql-port=$PGSQL_PORT --pgsql-user=sbtest --pgsql-password=$PASS --pgsql-db=sbtest\""
      echo "BMK_PGSQL_SOCKET_OPTS=\"--pgsql-host=$pg_dir --pgsql-port=$PGSQL_PORT --pgsql-user=sbtest --pgsql-password=$PASS --pgsql-db=sbtest\""
      echo "BMK_PGSQL_SOCKET_DIR=\"$pg_dir\""
      echo "BMK_PGSQL_SOCKET=\"$pg_sock\""
      print_tls_env ;;
    pgbouncer)
      echo "BMK_PGBOUNCER_OPTS=\"--pgsql-host=127.0.0.1 --pgsql-port=$PGB_PORT --pgsql-user=sbtest --pgsql-password=$PASS --pgsql-db=sbtest --db-ps-mode=disable\"" ;;
  esac
}

case $db in mysql|pgsql|pgbouncer|mysql-replica|mysql-replica2|pgsql-replica) ;; *) usage ;; esac
for port in "$MYSQL_PORT" "$PGSQL_PORT" "$PGB_PORT" "$MYSQL_REPLICA_PORT" "$MYSQL_REPLICA2_PORT" \
  "$PGSQL_REPLICA_PORT"; do
  [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "invalid port '$port'"
done
if [[ $db == *-replica* ]]; then
  nr=${db##*-replica}   # "" or 2 (mysql-replica2)
  base=${db%-replica*}
  case $action in
    start) mkdir -p "$DIR"; "start_${base}_replica" "$nr" ;;
    stop|restart|crash|status|env|down|up) replica_action "$action" "$base" "$nr" ;;
    *) usage ;;
  esac
  exit
fi
case $action in
  start) mkdir -p "$DIR"; "start_$db" ;;
  stop) if [ "$db" != pgbouncer ]; then
          for nr in "" 2; do
            [ "$db" = pgsql ] && [ "$nr" = 2 ] && continue
            if (use_"$db"_replica "$nr"; "${db}_running"); then
              replica_action stop "$db" "$nr"
            fi
          done
        fi
        "stop_$db"; tls_forget ;;
  restart) [ "$db" != pgbouncer ] || die "restart: mysql or pgsql"; "restart_$db" ;;
  crash) [ "$db" != pgbouncer ] || die "crash: mysql or pgsql"; "crash_$db" ;;
  status) status ;;
  env) print_env ;;
  *) usage ;;
esac
