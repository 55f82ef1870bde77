#!/usr/bin/env bash
# The test command (README "Tests"; .ci/run calls exactly this).
#
# On a fresh Debian 12 machine, as root: installs the build and server
# packages, builds bmk (plus an ASan+UBSan build), runs the cmocka unit
# tests in both builds, starts throwaway MariaDB and PostgreSQL servers
# (BMK/sandbox.sh: temporary data dirs, loopback and unix sockets only),
# runs the integration tests of both builds against them (side by side,
# one set of servers each), and stops the servers.
# The last line is "N passed, M failed"; the exit code is non-zero on any
# failure.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$(pwd)

log() { printf '\n==> %s\n' "$*"; }

bash BMK/setup.sh
if [ "${BMK_SKIP_APT:-0}" != 1 ]; then
  # Debian's sysbench 1.0.20: its scripts are run by bmk in test_compat.sh;
  # reference checkers for the result files (test_results.sh): a JSON
  # Schema validator and the Java HdrHistogram library with a JDK;
  # test_report.sh: gnuplot draws `bmk report --html` charts, headless
  # Chromium opens the page.
  apt-get install -y -qq --no-install-recommends sysbench python3-jsonschema \
    libhdrhistogram-java default-jdk-headless gnuplot-nox chromium >/dev/null
fi

log "static binary (make static)"
# libpq.a needs libpgcommon_shlib.a and libpgport_shlib.a, which Debian
# ships in postgresql-server-dev-15; installing that package would pull in
# clang and LLVM, so its files are unpacked aside instead (dpkg-deb -x).
PGSTATIC=/usr/lib/postgresql/15/lib
if [ ! -f "$PGSTATIC/libpgcommon_shlib.a" ]; then
  PGDEV=$(mktemp -d /tmp/bmk-pgdev-XXXXXX)
  ( cd "$PGDEV" && apt-get download -qq postgresql-server-dev-15 >/dev/null &&
    dpkg-deb -x postgresql-server-dev-15_*.deb root )
  PGSTATIC=$PGDEV/root/usr/lib/postgresql/15/lib
fi
rm -f bmk-x64      # a stale one must not pass the check below
./configure -q --with-pg-static-libdir="$PGSTATIC" && make -s -j"$(nproc)" ||
  { echo "configure/make for the static binary failed"; exit 1; }
# (glibc's warnings about static getaddrinfo etc. are expected: README)
make -s static 2>&1 | grep -vE 'statically linked applications|: in function' || true
test -x bmk-x64 || { echo "make static failed"; exit 1; }

log "unit tests"
make -s check || { cat test-suite.log tests/unit/*.log 2>/dev/null | tail -50; exit 1; }

log "unit tests under ASan+UBSan"
# A separate copy of the sources: automake does not allow a second build
# directory beside an in-tree build.
rm -rf build-asan && mkdir build-asan
git ls-files -z | xargs -0 tar cf - | tar xf - -C build-asan
( cd build-asan && ./autogen.sh >/dev/null 2>&1 && ./configure -q --enable-sanitizers &&
  make -s -j"$(nproc)" && ASAN_OPTIONS=detect_leaks=0 make -s check ) ||
  { cat build-asan/tests/unit/*.log 2>/dev/null | tail -50; exit 1; }

log "starting throwaway database servers"
# Two sets of servers: the normal and the ASan+UBSan build's integration
# passes run side by side, each against its own MariaDB, PostgreSQL and
# PgBouncer (temporary data dirs, loopback and unix sockets only), so the
# whole run stays well under 30 minutes on 2 cores.
SB_MAIN=$(mktemp -d /tmp/bmk-test-XXXXXX)
SB_ASAN=$(mktemp -d /tmp/bmk-test-asan-XXXXXX)
# Ports: BMK_MYSQL_PORT / BMK_PGSQL_PORT / BMK_PGBOUNCER_PORT (defaults
# 3306, 5432, 6432) for the normal pass, the same + 10 for the ASan pass.
MY_PORT=${BMK_MYSQL_PORT:-3306} PG_PORT=${BMK_PGSQL_PORT:-5432} PGB_PORT=${BMK_PGBOUNCER_PORT:-6432}
ports() {  # ports main|asan: the environment assignments of that set
  local d=0
  [ "$1" = asan ] && d=10
  echo "BMK_MYSQL_PORT=$((MY_PORT + d)) BMK_PGSQL_PORT=$((PG_PORT + d)) BMK_PGBOUNCER_PORT=$((PGB_PORT + d))"
}
sandbox() {  # sandbox main|asan ACTION DB
  local dir=$SB_MAIN
  [ "$1" = asan ] && dir=$SB_ASAN
  env BMK_SANDBOX_DIR="$dir" $(ports "$1") bash "$TOP/BMK/sandbox.sh" "$2" "$3"
}
cleanup() {
  for set in main asan; do
    for db in pgbouncer mysql pgsql; do sandbox $set stop $db >/dev/null 2>&1 || true; done
  done
  rm -rf "$SB_MAIN" "$SB_ASAN" ${PGDEV:+"$PGDEV"}
}
trap cleanup EXIT
for set in main asan; do
  for db in mysql pgsql pgbouncer; do sandbox $set start $db; done
done

log "integration tests (normal and ASan+UBSan builds side by side)"
set +e
( export BMK_SANDBOX_DIR=$SB_MAIN $(ports main)
  bash tests/integration/run.sh "$TOP/bmk" > /tmp/bmk-it-main.log 2>&1 ) &
main_pid=$!
# The static binary is checked once, in the normal pass.
( export BMK_SANDBOX_DIR=$SB_ASAN $(ports asan)
  BMK_STATIC_TEST=0 ASAN_OPTIONS=detect_leaks=0 \
    bash tests/integration/run.sh "$TOP/build-asan/bmk" > /tmp/bmk-it-asan.log 2>&1 ) &
asan_pid=$!
wait $main_pid
wait $asan_pid
log "integration tests: normal build"
cat /tmp/bmk-it-main.log
log "integration tests: ASan+UBSan build"
cat /tmp/bmk-it-asan.log
set -e
# passed and failed counts of a pass's last line; a pass that died without
# its summary counts as one failure
counts() {
  local last
  last=$(tail -1 "$1")
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
  else
    echo "0 1"
  fi
}
read -r p1 f1 < <(counts /tmp/bmk-it-main.log)
read -r p2 f2 < <(counts /tmp/bmk-it-asan.log)
pass=$((p1 + p2))
fail=$((f1 + f2))
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
