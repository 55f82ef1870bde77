#!/usr/bin/env bash
# The test command (README "Tests"; .ci/run calls exactly this).
#
# On a fresh Debian 12 machine, as root: installs the build and server
# packages, builds bmk (plus an ASan+UBSan build), runs the cmocka unit
# tests in both builds, starts throwaway MariaDB and PostgreSQL servers
# (BMK/sandbox.sh: temporary data dirs, loopback and unix sockets only),
# runs the integration tests against them, and stops the servers.
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
./configure -q --with-pg-static-libdir="$PGSTATIC" && make -s -j"$(nproc)" && make -s static 2>&1 | grep -vE 'statically linked applications|: in function' || true
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
export BMK_SANDBOX_DIR=${BMK_SANDBOX_DIR:-$(mktemp -d /tmp/bmk-test-XXXXXX)}
cleanup() {
  bash "$TOP/BMK/sandbox.sh" stop pgbouncer >/dev/null 2>&1 || true
  bash "$TOP/BMK/sandbox.sh" stop mysql >/dev/null 2>&1 || true
  bash "$TOP/BMK/sandbox.sh" stop pgsql >/dev/null 2>&1 || true
}
trap cleanup EXIT
bash BMK/sandbox.sh start mysql
bash BMK/sandbox.sh start pgsql
bash BMK/sandbox.sh start pgbouncer

log "integration tests"
set +e
bash tests/integration/run.sh "$TOP/bmk" | tee /tmp/bmk-it-main.log
log "integration tests with the ASan+UBSan build"
# The static binary is checked once, in the pass above.
BMK_STATIC_TEST=0 ASAN_OPTIONS=detect_leaks=0 bash tests/integration/run.sh "$TOP/build-asan/bmk" | tee /tmp/bmk-it-asan.log
set -e
total() { tail -1 "$1" | awk '{print $'"$2"'}'; }
pass=$(( $(total /tmp/bmk-it-main.log 1) + $(total /tmp/bmk-it-asan.log 1) ))
fail=$(( $(total /tmp/bmk-it-main.log 3) + $(total /tmp/bmk-it-asan.log 3) ))
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
