# Shared helpers for the integration tests (sourced).
#
# Each test file sources this, runs checks with the assert_* helpers and
# ends with `finish`, which prints "N passed, M failed, K skipped" and sets
# the exit code. A check that cannot run here is reported with `skip` (or
# `skip_core`), never as a pass. BMK is the binary under test; the sandbox servers' connection
# options come from tools/sandbox.sh (defaults below).

BMK=$(realpath "${BMK:-${1:-./bmk}}")
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
PASS=0
FAIL=0
SKIP=0
WORK=$(mktemp -d /tmp/bmk-it-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

SANDBOX_DIR=${BMK_SANDBOX_DIR:-/tmp/bmk-sandbox}
DBPASS=${BMK_SANDBOX_PASSWORD:-sbtest}
MYSQL_PORT=${BMK_MYSQL_PORT:-3306}
PGSQL_PORT=${BMK_PGSQL_PORT:-5432}
PGBOUNCER_PORT=${BMK_PGBOUNCER_PORT:-6432}
MYSQL_OPTS="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MYSQL_PORT --mysql-user=sbtest --mysql-password=$DBPASS --mysql-db=sbtest"
PGSQL_OPTS="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGSQL_PORT --pgsql-user=sbtest --pgsql-password=$DBPASS --pgsql-db=sbtest"
# PostgreSQL through the sandbox's PgBouncer (transaction pooling: no
# named prepared statements)
PGBOUNCER_OPTS="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGBOUNCER_PORT --pgsql-user=sbtest --pgsql-password=$DBPASS --pgsql-db=sbtest --db-ps-mode=disable"

ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
# not_ok also shows the last bmk run's FATAL lines (run_bmk's OUT), at
# most 5, as comments: a failure seen once in CI then says what bmk said
not_ok() {
  FAIL=$((FAIL + 1))
  echo "not ok - $*"
  printf '%s\n' "${OUT:-}" | grep -m 5 '^FATAL' | sed 's/^/#   the last bmk run said: /' || true
}

# skip NAME REASON: a check that cannot run here (an optional tool or an
# outside project missing). Counted as a skip and printed with its reason.
skip() { SKIP=$((SKIP + 1)); echo "skip - $1: $2"; }

# asan_pass: true when the binary under test is tests/run-all.sh's
# ASan+UBSan build (checks whose figures depend on how fast the machine
# runs the 2-15 times slower build beside four other lanes run in the
# normal pass only, and say so with a skip)
asan_pass() { case "$BMK" in */build-asan/*) return 0 ;; esac; return 1; }

# skip_core NAME REASON: a check of bmk's core that this machine cannot run
# (no mount namespace, no writable cgroup v2, not root, no perf events).
# On the machine the test command is made for (Debian 12 as root, which is
# what CI is) every core check must run, so there a skip is a failure that
# says what was missing; elsewhere (a developer as an ordinary user) it is
# a skip. BMK_REQUIRE_CORE=1/0 overrides the root test.
require_core() {
  if [ -n "${BMK_REQUIRE_CORE:-}" ]; then [ "$BMK_REQUIRE_CORE" = 1 ]; else [ "$(id -u)" = 0 ]; fi
}
skip_core() {
  if require_core; then
    not_ok "$1: could not run ($2); core checks are not skipped as root (BMK_REQUIRE_CORE=0 allows it)"
  else
    skip "$1" "$2"
  fi
}

# check NAME COMMAND...: passes when the command succeeds.
check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else not_ok "$name"; fi
}

assert_eq() {  # name expected actual
  if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi
}

assert_contains() {  # name haystack needle
  if [[ "$2" == *"$3"* ]]; then ok "$1"; else
    not_ok "$1 (missing '$3')"
    printf '%s\n' "$2" | head -40 | sed 's/^/    | /'
  fi
}

assert_not_contains() {  # name haystack needle
  if [[ "$2" != *"$3"* ]]; then ok "$1"; else not_ok "$1 (unexpected '$3')"; fi
}

assert_match() {  # name text extended-regex (any line)
  if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else
    not_ok "$1 (no line matches /$3/)"
    printf '%s\n' "$2" | head -40 | sed 's/^/    | /'
  fi
}

assert_near() {  # name expected actual abs_tolerance: |expected - actual| <= tolerance
  if [ -n "$2" ] && [ -n "$3" ] && awk -v a="$2" -v b="$3" -v t="$4" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d<=t)}'; then
    ok "$1"
  else
    not_ok "$1 (expected '$2' within $4, got '$3')"
  fi
}

# free_port P: the first port from P up that nothing listens on at
# 127.0.0.1 and no socket uses as its local port (a port inside the
# ephemeral range may be an outgoing connection's, and a server's bind
# then fails) (for a test's own servers).
free_port() {
  local p=$1 used
  used=$(ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' | sort -u)
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || grep -qx "$p" <<< "$used"; do
    p=$((p + 1))
  done
  echo "$p"
}

# Runs bmk with a timeout; sets OUT (stdout+stderr) and RC.
run_bmk() {
  local t0=${EPOCHREALTIME:-}
  OUT=$(timeout -k 5 "${BMK_TIMEOUT:-120}" "$BMK" "$@" 2>&1)
  RC=$?
  # BMK_TEST_TIMING=FILE: one line per bmk run, "seconds file:line", to
  # find where a test file's time goes (tests/README.md)
  [ -n "${BMK_TEST_TIMING:-}" ] && [ -n "$t0" ] &&
    awk -v a="$t0" -v b="$EPOCHREALTIME" -v w="$(basename "${BASH_SOURCE[1]}"):${BASH_LINENO[0]}" \
      'BEGIN { printf "%.2f %s\n", b - a, w }' >> "$BMK_TEST_TIMING"
  return 0
}

# Runs bmk keeping stdout and stderr apart: OUT, ERR, RC.
run_bmk_split() {
  OUT=$(timeout -k 5 "${BMK_TIMEOUT:-120}" "$BMK" "$@" 2>"$WORK/stderr")
  RC=$?
  ERR=$(cat "$WORK/stderr")
}

# SQL through the stock clients, as the sandbox's sbtest user.
mysql_q() {
  MYSQL_PWD=$DBPASS mariadb --protocol=tcp -h127.0.0.1 -P"$MYSQL_PORT" -usbtest -N -B sbtest -e "$1"
}
pgsql_q() {
  PGPASSWORD=$DBPASS psql -h 127.0.0.1 -p "$PGSQL_PORT" -U sbtest -d sbtest -At -c "$1"
}

# pg_alone [PORT...]: true when no other backend is in database sbtest on
# each PostgreSQL port given (the sandbox's, $PGSQL_PORT, if none). A
# backend flushes its statistics (its commits) as it exits, after its
# client has gone, so a check of the server's commit count in a run's
# window first waits for the sessions of earlier runs to leave, and for an
# autovacuum worker, whose every table is a transaction of its own; this
# check rolls back, so its own exit adds no commit.
pg_alone() {
  local port
  for port in "${@:-$PGSQL_PORT}"; do
    [ "$(PGPASSWORD=$DBPASS psql -X -h 127.0.0.1 -p "$port" -U sbtest -d sbtest -qAt -c BEGIN \
        -c "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()" \
        -c ROLLBACK 2>/dev/null)" = 0 ] || return 1
  done
}
# wait_pg_alone [PORT...]: waits until pg_alone (a minute at most; then
# prints a note and returns 1, and the caller goes on)
wait_pg_alone() {
  local i
  for i in $(seq 1 600); do pg_alone "$@" && return 0; sleep 0.1; done
  echo "# sessions of earlier runs still on PostgreSQL ${*:-$PGSQL_PORT}"
  return 1
}

# run_scraped OUTFILE PORT COMMAND...: runs COMMAND, a bmk run with
# --metrics-listen=127.0.0.1:PORT and --metrics-linger, in the background
# (its stdout and stderr into OUTFILE); waits until its page answers (30 s
# at most), then for its line "Metrics: waiting up to" (the run has ended
# and lingers; 2 minutes at most), and reads the page once more. Sets PAGE
# (that last page: the run's final figures; "" when it did not answer), RC
# (COMMAND's exit code) and OUT (OUTFILE's text). The waits are hang
# guards, cut short when COMMAND ends: a run that never answers or never
# lingers leaves PAGE empty.
run_scraped() {
  local out=$1 port=$2 pid
  shift 2
  "$@" > "$out" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$port/metrics" > /dev/null && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.05
  done
  for _ in $(seq 1200); do
    grep -q '^Metrics: waiting up to' "$out" && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.1
  done
  PAGE=$(curl -sf "http://127.0.0.1:$port/metrics")
  wait $pid
  RC=$?
  OUT=$(cat "$out")
}

# probe_page PAGE [EXPR]: loads a copy of the HTML file PAGE in headless
# Chromium (60 s at most) with a script that counts the page's charts
# (figure.chart) and those drawn (an <svg> of real size with paths), and,
# when EXPR (a JavaScript expression) is given, appends its value in the
# loaded page. Sets PROBE ("charts drawn", or "charts drawn EXPR's value";
# "" when the page did not load) and CONSOLE (the console messages
# Chromium logged while loading it). Needs chromium (the caller checks);
# leaves probe.html, dom.html and chromium.log in $WORK.
probe_page() {
  local js='const f=[...document.querySelectorAll("figure.chart")];const ok=f.filter(x=>{const s=x.querySelector("svg");if(!s)return false;const r=s.getBoundingClientRect();return r.width>100&&r.height>50&&s.querySelectorAll("path").length>0;}).length;'
  local extra=
  [ -n "${2:-}" ] && extra="+\" \"+($2)"
  js+="document.body.setAttribute(\"data-probe\",f.length+\" \"+ok$extra);"
  PROBE_JS=$js awk '{ i = index($0, "</body>")
    if (i) $0 = substr($0, 1, i - 1) "<script>" ENVIRON["PROBE_JS"] "</script>" substr($0, i)
    print }' "$1" > "$WORK/probe.html"
  rm -rf "$WORK/chromium-profile" && mkdir "$WORK/chromium-profile"
  timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$WORK/chromium-profile" --enable-logging=stderr --v=0 \
    --window-size=1000,800 --dump-dom "file://$WORK/probe.html" > "$WORK/dom.html" 2> "$WORK/chromium.log"
  PROBE=$(sed -n 's/.*data-probe="\([0-9 ]*\)".*/\1/p' "$WORK/dom.html")
  CONSOLE=$(grep -c ':CONSOLE' "$WORK/chromium.log")
}

# within A B PCT: |A-B| <= PCT% of B
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(b>0 && d<=b*p/100)}'; }

# A number from the final report: report_value "transactions:" "$OUT"
report_value() {
  printf '%s\n' "$2" | grep -E "^ *$1" | head -1 | awk -F: '{print $2}' | awk '{print $1}' | sed 's/s$//'
}

# json_ok FILE: the document validates against docs/results.schema.json.
json_ok() {
  python3 - "$1" "$TOP/docs/results.schema.json" <<'EOF'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
EOF
}
# jq-like: json_get FILE PYEXPR (d = the document)
json_get() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

finish() {
  echo "$PASS passed, $FAIL failed, $SKIP skipped"
  [ "$FAIL" -eq 0 ]
}
