# shellcheck shell=bash
# shellcheck disable=SC2034  # the globals set here are sandbox.sh's
# Replicas for tools/sandbox.sh (sourced by it; not run on its own).
#
#   bash tools/sandbox.sh start|stop|restart|crash|down|up|status|env mysql-replica|pgsql-replica
#   bash tools/sandbox.sh start|stop|restart|crash|down|up|status|env mysql-replica2
#
# mysql-replica  a MariaDB replica of the sandbox's mysql server on
#                127.0.0.1:$BMK_MYSQL_REPLICA_PORT (default 3307), data in
#                $BMK_SANDBOX_DIR/mysql-replica: GTID replication
#                (MASTER_USE_GTID=slave_pos) from the primary's binary log,
#                as user bmk_repl (made on the primary for it, not
#                replicated; the sbtest sessions stay the benchmark's). The primary needs a binary log: start
#                starts the primary with one (--log-bin, server-id 1,
#                binlog_format ROW) when it does not run, and restarts it
#                with one when it runs without. The replica starts at the
#                primary's current GTID position from its own fresh data
#                directory (the same users and an empty sbtest database),
#                so the primary's sbtest must still be empty: start the
#                replica before loading data (start refuses otherwise).
# mysql-replica2 a second MariaDB replica of the same primary, made the same
#                way, on 127.0.0.1:$BMK_MYSQL_REPLICA2_PORT (default 3308),
#                data in $BMK_SANDBOX_DIR/mysql-replica2, server-id 3 (the
#                first replica's is 2): two replicas of one primary, for
#                routes that choose among replicas (least_lag). Either can
#                start first; each starts at the primary's position then,
#                so start both before loading data.
# pgsql-replica  a PostgreSQL streaming standby of the sandbox's pgsql
#                server on 127.0.0.1:$BMK_PGSQL_REPLICA_PORT (default
#                5433), data in $BMK_SANDBOX_DIR/pgsql-replica: a copy made
#                by pg_basebackup -R (primary_conninfo over the primary's
#                unix socket as postgres), hot standby (read-only
#                sessions). Starts the primary first when it does not run,
#                and lets postgres connect for replication over its socket
#                (a pg_hba.conf line, then a reload).
#
# Both are asynchronous replicas: a read on them may not see the latest
# commit of the primary. `stop mysql` / `stop pgsql` stop the replica
# too (both MariaDB replicas); `stop mysql-replica` / `stop
# mysql-replica2` / `stop pgsql-replica` stop that replica only.
# restart and crash act on the replica alone (the primary keeps running;
# the replica catches up when it is back).

MYSQL_REPLICA_PORT=${BMK_MYSQL_REPLICA_PORT:-3307}
MYSQL_REPLICA2_PORT=${BMK_MYSQL_REPLICA2_PORT:-3308}
PGSQL_REPLICA_PORT=${BMK_PGSQL_REPLICA_PORT:-5433}
# the primary's paths and port, before use_*_replica changes the globals
my_primary_port=$MYSQL_PORT
pg_primary_dir=$pg_dir
pg_primary_port=$PGSQL_PORT

# The binary log options a primary with a replica runs with.
MY_BINLOG_OPTS="--log-bin=binlog --server-id=1 --binlog-format=ROW"

# use_mysql_replica [2] / use_pgsql_replica: the server functions of
# sandbox.sh (start_, stop_, restart_, crash_, *_running) act on the
# replica (with 2: the second MariaDB one) from here on (run in a subshell
# to keep the primary's names).
use_mysql_replica() {
  my_dir=$DIR/mysql-replica${1:-}
  my_sock=$my_dir/mysqld.sock
  my_pid=$my_dir/mysqld.pid
  my_log=$my_dir/error.log
  if [ "${1:-}" = 2 ]; then MYSQL_PORT=$MYSQL_REPLICA2_PORT; else MYSQL_PORT=$MYSQL_REPLICA_PORT; fi
}
use_pgsql_replica() {
  pg_dir=$DIR/pgsql-replica
  pg_data=$pg_dir/data
  pg_sock=$pg_dir/.s.PGSQL.$PGSQL_REPLICA_PORT
  pg_log=$pg_dir/server.log
  PGSQL_PORT=$PGSQL_REPLICA_PORT
}

# The primary with a binary log, running (started or restarted for it).
mysql_primary_with_binlog() {
  if ! mysql_running; then
    BMK_MYSQL_EXTRA_OPTS="${BMK_MYSQL_EXTRA_OPTS:-} $MY_BINLOG_OPTS" start_mysql
    return 0
  fi
  [ "$(mysql_root -N -e 'SELECT @@log_bin')" = 1 ] && return 0
  echo "sandbox: restarting mysql with a binary log (for its replica)"
  local env
  # shellcheck disable=SC1091
  env=$(. "$my_dir/launch.env" &&
    printf 'TLS=%q\nMY_MAXCONN=%q\nMY_EXTRA=%q\n' "$TLS" "$MY_MAXCONN" "${MY_EXTRA:-} $MY_BINLOG_OPTS")
  printf '%s\n' "$env" >"$my_dir/launch.env"
  (restart_mysql)
}

# start_mysql_replica [2]: the (second) MariaDB replica started.
start_mysql_replica() {
  local nr=${1:-} name=mysql-replica${1:-} port=$MYSQL_REPLICA_PORT var=BMK_MYSQL_REPLICA_PORT
  [ "$nr" = 2 ] && port=$MYSQL_REPLICA2_PORT var=BMK_MYSQL_REPLICA2_PORT
  if (use_mysql_replica "$nr"; mysql_running); then
    echo "sandbox: $name already running (127.0.0.1:$port)"
    return 0
  fi
  [ "$port" != "$MYSQL_PORT" ] || die "$var equals BMK_MYSQL_PORT ($MYSQL_PORT)"
  [ "$nr" != 2 ] || [ "$MYSQL_REPLICA_PORT" != "$MYSQL_REPLICA2_PORT" ] ||
    die "BMK_MYSQL_REPLICA2_PORT equals BMK_MYSQL_REPLICA_PORT ($MYSQL_REPLICA_PORT)"
  mysql_primary_with_binlog
  local n gtid p t
  n=$(mysql_root -N -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest'")
  [ "$n" = 0 ] || die "the primary's sbtest database has $n table(s): $name starts empty at the primary's position; start it before loading data (or stop and start mysql again)"
  # a user of its own for the replica's connection: the sessions of
  # sbtest are the benchmark's (tests count and kill them)
  mysql_root <<SQL || die "creating the replication user on the primary failed"
SET SESSION sql_log_bin = 0;
CREATE USER IF NOT EXISTS 'bmk_repl'@'127.0.0.1' IDENTIFIED BY '$(sql_quote_my "$PASS")';
GRANT REPLICATION SLAVE ON *.* TO 'bmk_repl'@'127.0.0.1';
SQL
  gtid=$(mysql_root -N -e "SELECT @@gtid_binlog_pos")
  p=$(sql_quote_my "$PASS")
  (
    use_mysql_replica "$nr"
    unset MY_EXTRA
    BMK_MYSQL_EXTRA_OPTS="${BMK_MYSQL_EXTRA_OPTS:-} --server-id=$(( ${nr:-1} + 1 )) --relay-log=relay" \
      MY_MAXCONN=${BMK_MYSQL_REPLICA_MAX_CONNECTIONS:-2000} start_mysql >/dev/null
    mysql_root <<SQL || die "setting up replication on the replica failed (log: $my_log)"
SET GLOBAL gtid_slave_pos = '$gtid';
CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = $my_primary_port,
  MASTER_USER = 'bmk_repl', MASTER_PASSWORD = '$p', MASTER_USE_GTID = slave_pos,
  MASTER_CONNECT_RETRY = 1;
START SLAVE;
SQL
    for ((t = 0; t < TIMEOUT * 4; t++)); do
      mysql_root -e "SHOW SLAVE STATUS\G" | grep -q 'Slave_IO_Running: Yes' &&
        mysql_root -e "SHOW SLAVE STATUS\G" | grep -q 'Slave_SQL_Running: Yes' && break
      sleep 0.25
    done
    mysql_root -e "SHOW SLAVE STATUS\G" | grep -q 'Slave_IO_Running: Yes' || {
      mysql_root -e "SHOW SLAVE STATUS\G" | grep -E 'Running|Error' >&2
      die "the replica did not connect to the primary within $TIMEOUT s (log: $my_log)"
    }
    echo "sandbox: $name running: 127.0.0.1:$MYSQL_PORT, socket $my_sock, replicating 127.0.0.1:$my_primary_port from GTID '$gtid'"
  )
}

start_pgsql_replica() {
  if (use_pgsql_replica; pgsql_running); then
    echo "sandbox: pgsql-replica already running (127.0.0.1:$PGSQL_REPLICA_PORT)"
    return 0
  fi
  [ "$PGSQL_REPLICA_PORT" != "$PGSQL_PORT" ] || die "BMK_PGSQL_REPLICA_PORT equals BMK_PGSQL_PORT ($PGSQL_PORT)"
  pgsql_running || start_pgsql
  if ! grep -q '^local replication postgres trust' "$pg_data/pg_hba.conf"; then
    echo "local replication postgres trust" >>"$pg_data/pg_hba.conf"
    as_postgres "$PGBIN/pg_ctl" -D "$pg_data" reload >/dev/null ||
      die "reloading the primary's pg_hba.conf failed"
  fi
  (
    use_pgsql_replica
    port_busy "$PGSQL_PORT" && die "port 127.0.0.1:$PGSQL_PORT is already in use (set BMK_PGSQL_REPLICA_PORT)"
    rm -rf "$pg_dir"
    mkdir -p "$pg_dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres: "$pg_dir"
      chmod 755 "$pg_dir"
    fi
    echo "sandbox: copying the primary into $pg_data (pg_basebackup)"
    as_postgres "$PGBIN/pg_basebackup" -D "$pg_data" -R -X stream -c fast \
      -h "$pg_primary_dir" -p "$pg_primary_port" -U postgres >"$pg_dir/basebackup.log" 2>&1 ||
      { tail -20 "$pg_dir/basebackup.log" >&2; die "pg_basebackup failed (log: $pg_dir/basebackup.log)"; }
    cat >>"$pg_data/postgresql.conf" <<CONF

# bmk sandbox: the standby
port = $PGSQL_PORT
unix_socket_directories = '$pg_dir'
hot_standby = on
hot_standby_feedback = on
CONF
    if ! as_postgres "$PGBIN/pg_ctl" -D "$pg_data" -l "$pg_log" -w -t "$TIMEOUT" start >/dev/null 2>&1; then
      [ -f "$pg_log" ] && tail -20 "$pg_log" >&2
      die "the PostgreSQL standby did not accept connections within $TIMEOUT s (log: $pg_log)"
    fi
    echo "sandbox: pgsql-replica running: 127.0.0.1:$PGSQL_PORT, socket dir $pg_dir, streaming from 127.0.0.1:$pg_primary_port"
  )
}

# replica_up mysql|pgsql [2]: the stopped (down) replica's server started
# again on its data.
replica_up() {
  if "${1}_running"; then
    echo "sandbox: $1-replica${2:-} already running"
    return 0
  fi
  if [ "$1" = mysql ]; then
    [ -f "$my_dir/launch.env" ] || die "no mysql-replica${2:-} data in $my_dir ($SELF start mysql-replica${2:-})"
    # shellcheck disable=SC1091
    . "$my_dir/launch.env"
    rm -f "$my_sock" "$my_pid"
    launch_mysql "$(command -v mariadbd || command -v mysqld || echo /usr/sbin/mariadbd)"
  else
    [ -d "$pg_data" ] || die "no pgsql-replica data in $pg_data ($SELF start pgsql-replica)"
    as_postgres "$PGBIN/pg_ctl" -D "$pg_data" -l "$pg_log" -w -t "$TIMEOUT" start >/dev/null 2>&1 ||
      { [ -f "$pg_log" ] && tail -20 "$pg_log" >&2; die "the standby did not start within $TIMEOUT s (log: $pg_log)"; }
  fi
  echo "sandbox: $1-replica${2:-} up again"
}

# replica_action ACTION mysql|pgsql [2]: stop/restart/crash/down/up/status/env
# of the replica (2: the second MariaDB replica).
replica_action() {
  local action=$1 base=$2 nr=${3:-}
  local name=$base-replica$nr
  (
    "use_${base}_replica" "$nr"
    case $action in
      stop) "stop_$base" | sed "s/sandbox: $base /sandbox: $name /" ;;
      restart|crash) "${action}_$base" ;;
      down) BMK_SANDBOX_KEEP=1 "stop_$base" | sed "s/sandbox: $base /sandbox: $name /" ;;
      up) replica_up "$base" "$nr" ;;
      status)
        if "${base}_running"; then
          echo "sandbox: $name running (127.0.0.1:$( [ "$base" = mysql ] && echo "$MYSQL_PORT" || echo "$PGSQL_PORT"))"
        else
          echo "sandbox: $name not running"
          exit 1
        fi ;;
      env) db=$base print_env | sed -E "s/^BMK_(MYSQL|PGSQL)_/BMK_\\1_REPLICA${nr}_/" ;;
    esac
  )
}
