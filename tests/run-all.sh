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

if [ "${BMK_SKIP_APT:-0}" != 1 ]; then
  log "installing packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    build-essential autoconf automake libtool pkg-config \
    libluajit-5.1-dev libck-dev libmariadb-dev libpq-dev libssl-dev zlib1g-dev \
    libcmocka-dev mariadb-server mariadb-client postgresql postgresql-client \
    python3 procps >/dev/null
fi

log "building"
./autogen.sh >/dev/null 2>&1
./configure -q
make -s -j"$(nproc)"

log "unit tests"
make -s check || { cat test-suite.log tests/unit/*.log 2>/dev/null | tail -50; exit 1; }

log "unit tests under ASan+UBSan"
rm -rf build-asan && mkdir build-asan
( cd build-asan && ../configure -q --enable-sanitizers && make -s -j"$(nproc)" &&
  ASAN_OPTIONS=detect_leaks=0 make -s check ) ||
  { cat build-asan/tests/unit/*.log 2>/dev/null | tail -50; exit 1; }

log "starting throwaway database servers"
export BMK_SANDBOX_DIR=${BMK_SANDBOX_DIR:-$(mktemp -d /tmp/bmk-test-XXXXXX)}
cleanup() {
  bash "$TOP/BMK/sandbox.sh" stop mysql >/dev/null 2>&1 || true
  bash "$TOP/BMK/sandbox.sh" stop pgsql >/dev/null 2>&1 || true
}
trap cleanup EXIT
bash BMK/sandbox.sh start mysql
bash BMK/sandbox.sh start pgsql

log "integration tests"
BMK_ASAN_BIN="$TOP/build-asan/bmk" bash tests/integration/run.sh "$TOP/bmk"
