#!/usr/bin/env bash
# `make distcheck` of a fresh clone: the release tarball built out of
# tree, its unit tests (`make check`, no server needed), installed and
# uninstalled in a staging directory, `make distclean` leaving nothing.
# A second whole build, so it is run by hand before a release rather than
# by the test command (tests/integration/test_package.sh makes the tarball
# with `make dist` and holds it to `git ls-files` and dpkg-source).
# Prints the seconds it took. Needs the build dependencies (README).
# Usage: bash bench/distcheck.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/bmk-distcheck-XXXXXX)
trap 'rm -rf "$work"' EXIT
git clone -q "$PWD" "$work/bmk"
cd "$work/bmk"
start=$(date +%s)
autoreconf -i >/dev/null 2>&1
./configure -q
make -s -j"$(nproc)" distcheck
echo "make distcheck passed in $(( $(date +%s) - start )) s: $(ls bmk-*.tar.gz)"
