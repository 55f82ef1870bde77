#!/usr/bin/env bash
# TLS and compression on both drivers: every --mysql-ssl / --pgsql-sslmode
# verification level with the sandbox CA, the session really encrypted
# (the server's own view: Ssl_cipher / pg_stat_ssl), --mysql-compression
# (Compression status), and clear errors with a non-zero exit for a wrong
# CA, a wrong host name and a server without TLS; TLS per endpoint
# (--endpoints "tls") on both drivers.
#
# Needs a pair of servers with TLS and a pair without: the sandbox pair
# (tools/sandbox.sh; plain unless started with BMK_SANDBOX_TLS=1) is one of
# them, the other is started here on free ports and stopped at the end.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

OWN_MY=$(free_port $((MYSQL_PORT + 100)))
OWN_PG=$(free_port $((PGSQL_PORT + 100)))
eval "$(bash "$TOP/tools/sandbox.sh" env mysql)"
if [ -n "${BMK_TLS_CA:-}" ]; then OWN_TLS=0; else OWN_TLS=1; fi
own() {
  BMK_SANDBOX_DIR=$WORK/own BMK_SANDBOX_TLS=$OWN_TLS BMK_MYSQL_PORT=$OWN_MY BMK_PGSQL_PORT=$OWN_PG \
    bash "$TOP/tools/sandbox.sh" "$@"
}
trap 'own stop mysql >/dev/null 2>&1; own stop pgsql >/dev/null 2>&1; rm -rf "$WORK"' EXIT
if ! own start mysql >own.log 2>&1 || ! own start pgsql >>own.log 2>&1; then
  not_ok "starting a server pair with BMK_SANDBOX_TLS=$OWN_TLS failed"
  cat own.log
  finish
  exit 1
fi
OWN_MYSQL_OPTS=${MYSQL_OPTS//--mysql-port=$MYSQL_PORT/--mysql-port=$OWN_MY}
OWN_PGSQL_OPTS=${PGSQL_OPTS//--pgsql-port=$PGSQL_PORT/--pgsql-port=$OWN_PG}
if [ $OWN_TLS = 1 ]; then
  # the servers with TLS are ours, the sandbox's are the plain ones
  eval "$(own env mysql)"
  PLAIN_MY=$MYSQL_PORT PLAIN_PG=$PGSQL_PORT PM=$MYSQL_OPTS PP=$PGSQL_OPTS
  MYSQL_PORT=$OWN_MY PGSQL_PORT=$OWN_PG MYSQL_OPTS=$OWN_MYSQL_OPTS PGSQL_OPTS=$OWN_PGSQL_OPTS
else
  PLAIN_MY=$OWN_MY PLAIN_PG=$OWN_PG PM=$OWN_MYSQL_OPTS PP=$OWN_PGSQL_OPTS
fi
CA=${BMK_TLS_CA:-}
if [ ! -f "$CA" ]; then
  not_ok "no CA file for the servers with TLS ('$CA')"
  finish
  exit 1
fi

# The server's view of the session that runs the event: one NAME=VALUE line
# per row (cipher empty = plain text).
cat >session.lua <<'EOF'
function event()
  local con = sysbench.sql.driver():connect()
  local q = sysbench.opt.db_driver == "pgsql" and
    "SELECT 'ssl', ssl::text || ':' || coalesce(cipher, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()" or
    "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_cipher', 'Compression')"
  local rs = con:query(q)
  for _ = 1, rs.nrows do
    local r = rs:fetch_row()
    print(r[1] .. "=" .. r[2])
  end
  con:disconnect()
end
EOF
session() { run_bmk session.lua "$@" --events=1 run; }
# FATAL and WARNING lines of the last run.
errors() { printf '%s\n' "$OUT" | grep -E '^(FATAL|WARNING):'; }
BAD_CA=$WORK/wrong-ca.pem
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=not the sandbox CA" \
  -keyout "$WORK/wrong-ca-key.pem" -out "$BAD_CA" >/dev/null 2>&1

# ---- MariaDB
for mode in REQUIRED VERIFY_CA VERIFY_IDENTITY; do
  session $MYSQL_OPTS --mysql-ssl=$mode --mysql-ssl-ca="$CA"
  assert_eq "mysql --mysql-ssl=$mode exit 0" 0 "$RC"
  assert_match "mysql --mysql-ssl=$mode: the server sees a TLS session" "$OUT" '^Ssl_cipher=TLS_'
done
session $MYSQL_OPTS --mysql-ssl=disabled
assert_contains "mysql --mysql-ssl=disabled: plain session" "$OUT" "Ssl_cipher=
"
session $MYSQL_OPTS --mysql-ssl=VERIFY_CA --mysql-ssl-ca="$BAD_CA"
assert_eq "mysql wrong CA: exit 1" 1 "$RC"
assert_eq "mysql wrong CA: message" "FATAL: unable to connect to MySQL server on host '127.0.0.1', port $MYSQL_PORT, aborting...
FATAL: error 2026: TLS/SSL error: self-signed certificate in certificate chain
WARNING: the server's certificate is not signed by a CA in --mysql-ssl-ca=$BAD_CA
FATAL: \`thread_run' function failed: session.lua:2: connection creation failed" "$(errors)"
# 127.0.0.2 reaches the same server, but the certificate names only
# localhost and 127.0.0.1.
session $MYSQL_OPTS --mysql-host=127.0.0.2 --mysql-ssl=VERIFY_IDENTITY --mysql-ssl-ca="$CA"
assert_eq "mysql wrong host name: exit 1" 1 "$RC"
assert_eq "mysql wrong host name: message" "FATAL: unable to connect to MySQL server on host '127.0.0.2', port $MYSQL_PORT, aborting...
FATAL: error 2026: TLS/SSL error: Validation of SSL server certificate failed
WARNING: the server's certificate does not name host '127.0.0.2' (--mysql-ssl=VERIFY_IDENTITY checks it; VERIFY_CA does not)
FATAL: \`thread_run' function failed: session.lua:2: connection creation failed" "$(errors)"
session $MYSQL_OPTS --mysql-host=127.0.0.2 --mysql-ssl=VERIFY_CA --mysql-ssl-ca="$CA"
assert_eq "mysql VERIFY_CA does not check the host name" 0 "$RC"

session $MYSQL_OPTS --mysql-compression=on
assert_contains "mysql --mysql-compression=on: the server sees a compressed session" "$OUT" "Compression=ON"
session $MYSQL_OPTS --mysql-compression=on --mysql-ssl=REQUIRED
assert_match "mysql compression with TLS" "$OUT" '^Ssl_cipher=TLS_'
assert_contains "mysql compression with TLS: compressed" "$OUT" "Compression=ON"
session $MYSQL_OPTS
assert_contains "mysql without --mysql-compression: not compressed" "$OUT" "Compression=OFF"

# workload DB OPTIONS...: oltp_point_select prepare, run, cleanup over TLS.
workload() {
  local db=$1 t
  shift
  t="oltp_point_select $* --tables=1 --table-size=100"
  run_bmk $t prepare
  assert_eq "$db oltp_point_select prepare over TLS" 0 "$RC"
  run_bmk $t --threads=2 --events=200 run
  assert_contains "$db oltp_point_select run over TLS" "$OUT" "total number of events:              200"
  run_bmk $t cleanup
  assert_eq "$db oltp_point_select cleanup over TLS" 0 "$RC"
}
workload mysql $MYSQL_OPTS --mysql-ssl=VERIFY_IDENTITY --mysql-ssl-ca="$CA"

# ---- PostgreSQL
for mode in require verify-ca verify-full; do
  session $PGSQL_OPTS --pgsql-sslmode=$mode --pgsql-sslrootcert="$CA"
  assert_eq "pgsql --pgsql-sslmode=$mode exit 0" 0 "$RC"
  assert_match "pgsql --pgsql-sslmode=$mode: pg_stat_ssl shows TLS" "$OUT" '^ssl=true:TLS_'
done
OUT=$(PGSSLROOTCERT=$CA timeout 60 "$BMK" session.lua $PGSQL_OPTS --pgsql-sslmode=verify-full --events=1 run 2>&1)
assert_match "pgsql: the CA from libpq's PGSSLROOTCERT" "$OUT" '^ssl=true:TLS_'
session $PGSQL_OPTS --pgsql-sslmode=disable
assert_contains "pgsql --pgsql-sslmode=disable: plain session" "$OUT" "ssl=false:"
session $PGSQL_OPTS --pgsql-sslmode=verify-ca --pgsql-sslrootcert="$BAD_CA"
assert_eq "pgsql wrong CA: exit 1" 1 "$RC"
assert_contains "pgsql wrong CA: message" "$(errors)" "FATAL: Connection to database failed: connection to server at \"127.0.0.1\", port $PGSQL_PORT failed: SSL error: certificate verify failed"
session $PGSQL_OPTS --pgsql-host=127.0.0.2 --pgsql-sslmode=verify-full --pgsql-sslrootcert="$CA"
assert_eq "pgsql wrong host name: exit 1" 1 "$RC"
assert_contains "pgsql wrong host name: message" "$(errors)" "failed: server certificate for \"localhost\" (and 1 other name) does not match host name \"127.0.0.2\""
session $PGSQL_OPTS --pgsql-host=127.0.0.2 --pgsql-sslmode=verify-ca --pgsql-sslrootcert="$CA"
assert_eq "pgsql verify-ca does not check the host name" 0 "$RC"

workload pgsql $PGSQL_OPTS --pgsql-sslmode=verify-full --pgsql-sslrootcert="$CA"

# ---- servers without TLS
session $PM --mysql-ssl=REQUIRED
assert_eq "mysql server without TLS, REQUIRED: exit 1" 1 "$RC"
assert_eq "mysql server without TLS: message" "FATAL: unable to connect to MySQL server on host '127.0.0.1', port $PLAIN_MY, aborting...
FATAL: error 2026: TLS/SSL error: SSL is required, but the server does not support it
FATAL: \`thread_run' function failed: session.lua:2: connection creation failed" "$(errors)"
session $PM --mysql-ssl=VERIFY_IDENTITY --mysql-ssl-ca="$CA"
assert_eq "mysql server without TLS, VERIFY_IDENTITY: exit 1" 1 "$RC"
session $PM --mysql-ssl=preferred
assert_contains "mysql server without TLS, preferred: plain session" "$OUT" "Ssl_cipher=
"
session $PP --pgsql-sslmode=require
assert_eq "pgsql server without TLS, require: exit 1" 1 "$RC"
assert_contains "pgsql server without TLS: message" "$(errors)" "FATAL: Connection to database failed: connection to server at \"127.0.0.1\", port $PLAIN_PG failed: server does not support SSL, but SSL was required"
session $PP --pgsql-sslmode=prefer
assert_contains "pgsql server without TLS, prefer: plain session" "$OUT" "ssl=false:"

# ---- TLS per endpoint (--endpoints): one run, two endpoints, each with its
# own settings: "secure" on the server with TLS and verified against the
# CA, "plain" on the one without (no "tls": the --<db>-ssl options, here
# none). The server's view of each endpoint's session, one line each.
cat >endpoints.lua <<'EOF2'
function event()
  for _, name in ipairs({"secure", "plain"}) do
    local con = sysbench.sql.driver():connect{endpoint = name}
    local q = sysbench.opt.db_driver == "pgsql" and
      "SELECT ssl::text || ':' || coalesce(cipher, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()" or
      "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'SSL_CIPHER'"
    print(name .. "=" .. tostring(con:query_row(q)))
    con:disconnect()
  end
end
EOF2
# endpoints_file DRIVER SECURE_PORT PLAIN_PORT MODE CA: the file
endpoints_file() {
  cat > ep-$1.json <<EOF2
{"endpoints": [
  {"name": "secure", "driver": "$1", "host": "127.0.0.1", "port": $2, "user": "sbtest",
   "password_env": "BMK_TLS_PW", "database": "sbtest", "tls": {"mode": "$4", "ca": "$5"}},
  {"name": "plain", "driver": "$1", "host": "127.0.0.1", "port": $3, "user": "sbtest",
   "password_env": "BMK_TLS_PW", "database": "sbtest"}
]}
EOF2
}
export BMK_TLS_PW=$DBPASS
endpoints_file mysql "$MYSQL_PORT" "$PLAIN_MY" VERIFY_CA "$CA"
run_bmk endpoints.lua --db-driver=mysql --endpoints=ep-mysql.json --events=1 run
assert_eq "mysql endpoints: exit 0" 0 "$RC"
assert_match "mysql endpoint with tls VERIFY_CA: the server sees a TLS session" "$OUT" '^secure=TLS_'
assert_contains "mysql endpoint without tls: plain session" "$OUT" "plain=
"
endpoints_file mysql "$MYSQL_PORT" "$PLAIN_MY" VERIFY_CA "$BAD_CA"
run_bmk endpoints.lua --db-driver=mysql --endpoints=ep-mysql.json --events=1 run
assert_eq "mysql endpoint, wrong CA: exit 1" 1 "$RC"
assert_contains "mysql endpoint, wrong CA: the endpoint's tls.ca named" "$(errors)" \
  "WARNING: the server's certificate is not signed by a CA in endpoint 'secure' tls.ca=$BAD_CA"
endpoints_file mysql "$PLAIN_MY" "$PLAIN_MY" REQUIRED "$CA"
run_bmk endpoints.lua --db-driver=mysql --endpoints=ep-mysql.json --events=1 run
assert_eq "mysql endpoint with tls REQUIRED on a server without TLS: exit 1" 1 "$RC"
assert_contains "mysql endpoint with tls REQUIRED on a server without TLS: message" "$(errors)" \
  "FATAL: error 2026: TLS/SSL error: SSL is required, but the server does not support it"
endpoints_file mysql "$MYSQL_PORT" "$PLAIN_MY" verify-full "$CA"
run_bmk endpoints.lua --db-driver=mysql --endpoints=ep-mysql.json --events=1 run
assert_eq "mysql endpoint with a PostgreSQL sslmode: refused before connecting" \
  "1:FATAL: --endpoints: endpoint 'secure': tls.mode 'verify-full' is not a MySQL TLS mode (disabled, preferred, required, verify_ca, verify_identity: the --mysql-ssl values)" \
  "$RC:$(errors | head -1)"
assert_not_contains "mysql endpoint with a PostgreSQL sslmode: nothing ran" "$OUT" "secure="

endpoints_file pgsql "$PGSQL_PORT" "$PLAIN_PG" verify-full "$CA"
run_bmk endpoints.lua --db-driver=pgsql --endpoints=ep-pgsql.json --events=1 run
assert_eq "pgsql endpoints: exit 0" 0 "$RC"
assert_match "pgsql endpoint with tls verify-full: TLS session" "$OUT" '^secure=true:TLS_'
assert_contains "pgsql endpoint without tls: plain session" "$OUT" "plain=false:"
endpoints_file pgsql "$PGSQL_PORT" "$PLAIN_PG" verify-ca "$BAD_CA"
run_bmk endpoints.lua --db-driver=pgsql --endpoints=ep-pgsql.json --events=1 run
assert_eq "pgsql endpoint, wrong CA: exit 1" 1 "$RC"
assert_contains "pgsql endpoint, wrong CA: message" "$(errors)" "SSL error: certificate verify failed"

finish
