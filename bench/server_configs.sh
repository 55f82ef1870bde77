# Sourced by bench scripts that compare on several server configurations:
# their own throwaway servers (tools/sandbox.sh in a directory of their
# own, so nothing else of the machine is touched), one configuration at a
# time.
#   bench_servers_init PORT_BASE   MariaDB on PORT_BASE, PostgreSQL on +1;
#                                  the servers are stopped at exit
#   bench_config_start CFG         mysql-threads (MariaDB, one thread per
#                                  connection: its default), mysql-pool
#                                  (its thread pool: the sandbox's default)
#                                  or pgsql; sets DB=mysql|pgsql and
#                                  SERVER_PID (the server's main process)
#   bench_config_stop              stops the configuration's server
bench_servers_init() {
  export BMK_SANDBOX_DIR
  BMK_SANDBOX_DIR=$(mktemp -d /tmp/bmk-bench-XXXXXX)
  export BMK_MYSQL_PORT=$1 BMK_PGSQL_PORT=$(($1 + 1))
  trap bench_servers_stop EXIT
  # one connection per VU: the open-files limit for 1,024 of them
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}
bench_servers_stop() {
  bash tools/sandbox.sh stop mysql >/dev/null 2>&1 || true
  bash tools/sandbox.sh stop pgsql >/dev/null 2>&1 || true
  rm -rf "$BMK_SANDBOX_DIR"
}
bench_config_start() {
  case $1 in
    mysql-threads) DB=mysql; export BMK_MYSQL_THREADING=per-connection ;;
    mysql-pool)    DB=mysql; export BMK_MYSQL_THREADING=pool ;;
    pgsql)         DB=pgsql ;;
    *) echo "unknown configuration $1 (mysql-threads, mysql-pool, pgsql)" >&2; exit 1 ;;
  esac
  bash tools/sandbox.sh start "$DB" >/dev/null
  if [ "$DB" = mysql ]; then
    SERVER_PID=$(cat "$BMK_SANDBOX_DIR/mysql/mysqld.pid")
  else
    SERVER_PID=$(head -1 "$BMK_SANDBOX_DIR/pgsql/data/postmaster.pid")
  fi
}
bench_config_stop() {
  bash tools/sandbox.sh stop "$DB" >/dev/null
}
