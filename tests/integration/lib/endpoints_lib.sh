# Shared by the --endpoints tests (test_endpoints*.sh; sourced after
# lib.sh): the test's own replicated sandbox on free ports (own ...,
# start_replicated), an endpoints file for it (endpoints FILE DRIVER
# PRIMARY-PORT REPLICA-PORT [ROUTING-JSON]), SQL as sbtest (my, mystat,
# pg), waiting for a condition (wait_for) and for the replicas
# (my_caught_up, pg_caught_up).
[ -n "$MYSQL_PORT" ] && [ -n "$PGSQL_PORT" ] || { not_ok "no sandbox ports"; finish; exit 1; }
# The port plan of the tests' own servers: the CI passes run side by side
# on sandbox ports 10 apart (tests/run-all.sh: +0, +10, +20), and a test
# takes the ports from its offset up (free_port only skips ports in use at
# that moment, not one another pass is about to take), so offsets are at
# least 22 apart: test_tls.sh +100, test_endpoints.sh +150,
# test_endpoints_routes.sh +200, test_tpch_endpoints.sh +250 (two ports
# each; test_endpoints.sh a third for MariaDB: MY_R2, its second replica).
MY_P=$(free_port $((MYSQL_PORT + ${EP_PORT_OFFSET:-150})))
MY_R=$(free_port $((MY_P + 1)))
PG_P=$(free_port $((PGSQL_PORT + ${EP_PORT_OFFSET:-150})))
PG_R=$(free_port $((PG_P + 1)))
own() {
  BMK_SANDBOX_DIR=$WORK/own BMK_MYSQL_PORT=$MY_P BMK_MYSQL_REPLICA_PORT=$MY_R \
    BMK_PGSQL_PORT=$PG_P BMK_PGSQL_REPLICA_PORT=$PG_R bash "$TOP/tools/sandbox.sh" "$@"
}
# (both pairs stopped side by side)
trap '{ own stop mysql >/dev/null 2>&1 & own stop pgsql >/dev/null 2>&1; wait; }; rm -rf "$WORK"' EXIT
export BMK_EP_PW=$DBPASS

# start_replicated: both pairs side by side (each waits for its servers);
# on failure the test ends (not ok, the logs shown, exit 1).
start_replicated() {
  local my_start pg_start my_rc pg_rc
  own start mysql-replica >"$WORK/own-my.log" 2>&1 &
  my_start=$!
  own start pgsql-replica >"$WORK/own-pg.log" 2>&1 &
  pg_start=$!
  wait $my_start
  my_rc=$?
  wait $pg_start
  pg_rc=$?
  if [ $my_rc -ne 0 ] || [ $pg_rc -ne 0 ]; then
    not_ok "starting the replicated sandbox failed"
    sed 's/^/    | /' "$WORK/own-my.log" "$WORK/own-pg.log"
    finish
    exit 1
  fi
}

# endpoints FILE DRIVER PRIMARY-PORT REPLICA-PORT [ROUTING-JSON]
endpoints() {
  local routing=""
  [ -n "$5" ] && routing=",
  \"routing\": $5"
  cat >"$1" <<EOF
{
  "endpoints": [
    {"name": "main", "driver": "$2", "host": "127.0.0.1", "port": $3, "user": "sbtest",
     "password_env": "BMK_EP_PW", "database": "sbtest", "role": "primary"},
    {"name": "replica1", "driver": "$2", "host": "127.0.0.1", "port": $4, "user": "sbtest",
     "password_env": "BMK_EP_PW", "database": "sbtest", "role": "replica"}
  ]$routing
}
EOF
}

my() {  # my PORT SQL: as sbtest over TCP
  MYSQL_PWD=$DBPASS mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$1" -usbtest -N -B sbtest -e "$2"
}
mystat() {  # mystat PORT NAME: a global status counter (the query counts in Questions)
  my "$1" "SHOW GLOBAL STATUS LIKE '$2'" | awk '{print $2}'
}
pg() {  # pg PORT SQL
  PGPASSWORD=$DBPASS psql -X -h 127.0.0.1 -p "$1" -U sbtest -d sbtest -At -c "$2"
}
# wait_for SECONDS CMD...: until CMD succeeds (0) or the time is up (1)
wait_for() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.2
  done
}
my_caught_up() {
  local p r
  p=$(my "$MY_P" 'SELECT @@gtid_binlog_pos') && r=$(my "$MY_R" 'SELECT @@gtid_slave_pos') &&
    [ -n "$p" ] && [ "$p" = "$r" ]
}
pg_caught_up() {
  local p r
  p=$(pg "$PG_P" 'SELECT pg_current_wal_lsn()') && r=$(pg "$PG_R" 'SELECT pg_last_wal_replay_lsn()') &&
    [ -n "$p" ] && [ "$p" = "$r" ]
}

# The second MariaDB replica (tools/sandbox.sh mysql-replica2) for the
# least_lag checks: own_replica2 start|stop (the primary's `stop mysql`
# in the EXIT trap stops it too).
MY_R2=$(free_port $((MY_R + 1)))
own_replica2() {
  BMK_MYSQL_REPLICA2_PORT=$MY_R2 own "$1" mysql-replica2
}
# endpoints3 FILE PRIMARY-PORT REPLICA1-PORT REPLICA2-PORT ROUTING-JSON:
# a MariaDB primary "main" and two replicas "replica1", "replica2"
endpoints3() {
  local ep='"driver": "mysql", "host": "127.0.0.1", "user": "sbtest", "password_env": "BMK_EP_PW", "database": "sbtest"'
  cat >"$1" <<EOF
{
  "endpoints": [
    {"name": "main", $ep, "port": $2, "role": "primary"},
    {"name": "replica1", $ep, "port": $3, "role": "replica"},
    {"name": "replica2", $ep, "port": $4, "role": "replica"}
  ],
  "routing": $5
}
EOF
}
my_behind() {  # my_behind PORT: the replica's Seconds_Behind_Master (NULL while not applying)
  MYSQL_PWD=$DBPASS mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$1" -usbtest -e "SHOW SLAVE STATUS\G" |
    sed -n 's/^ *Seconds_Behind_Master: //p'
}
