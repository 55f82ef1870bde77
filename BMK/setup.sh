#!/usr/bin/env bash
# Installs what bmk needs from Debian 12 packages (BMK/packages.txt) and
# builds it in the source tree (./bmk). Used by BMK/quickstart.sh and tests/run-all.sh.
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
  # the one list (BMK/packages.txt: GROUP PACKAGE per line)
  groups="build tools"
  if [ "${BMK_WITH_SERVERS:-1}" = 1 ]; then groups="$groups servers"; fi
  pkgs=$(awk -v groups=" $groups " '!/^#/ && NF == 2 && index(groups, " " $1 " ") { print $2 }' BMK/packages.txt)
  [ -n "$pkgs" ] || { echo "BMK/packages.txt: no packages read" >&2; exit 1; }
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
