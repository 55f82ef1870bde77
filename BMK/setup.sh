#!/usr/bin/env bash
# Installs what bmk needs from Debian 12 packages and builds it in the
# source tree (./bmk). Used by BMK/quickstart.sh and tests/run-all.sh.
#   BMK_SKIP_APT=1   skip the apt step (packages already installed)
#   BMK_WITH_SERVERS=0  do not install the MariaDB/PostgreSQL servers
#   BMK_NO_BUILD=1   install only (tests/run-all.sh builds by itself)
#   BMK_CONFIGURE_FLAGS  extra ./configure options (tests/run-all.sh: the
#                    static libpq helpers, so one build serves make static)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${BMK_SKIP_APT:-0}" != 1 ]; then
  echo "==> installing packages (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  pkgs="build-essential autoconf automake libtool pkg-config
        libluajit-5.1-dev libck-dev libmariadb-dev libpq-dev libssl-dev zlib1g-dev libjansson-dev libmicrohttpd-dev libsqlite3-dev
        libcmocka-dev libaio-dev python3 procps strace"
  if [ "${BMK_WITH_SERVERS:-1}" = 1 ]; then
    pkgs="$pkgs mariadb-server mariadb-client postgresql postgresql-client openssl pgbouncer"
  fi
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
fi

[ "${BMK_NO_BUILD:-0}" = 1 ] && exit 0
echo "==> building bmk"
./autogen.sh >/dev/null 2>&1
# shellcheck disable=SC2086
./configure -q ${BMK_CONFIGURE_FLAGS:-}
make -s -j"$(nproc)"
echo "==> built $(pwd)/bmk: $(./bmk --version | head -1)"
