#!/usr/bin/env bash
# bmk installed like a Debian tool (docs/building.md "The Debian package",
# "Release tarball"), as a new user meets it:
# - the package is built from a fresh clone (dpkg-buildpackage -b), is
#   lintian clean (errors and warnings; overrides carry their reason in
#   debian/bmk.lintian-overrides), holds what it must (the dynamically
#   linked bmk with computed dependencies, workloads, kit, sandbox script,
#   man pages, completion, docs, the sysbench persona outside PATH), and
#   its version is bmk's release;
# - `apt-get install ./bmk_*.deb`; then, from a directory outside any
#   source tree, with a plain PATH: bmk --version, man -w bmk (and a page
#   for every command --help lists, naming every option --help prints),
#   the bash completion of `bmk oltp_<TAB>` and `bmk --mysql-<TAB>` (and
#   a test's and a driver's options, kit names), `bmk sandbox` and the
#   quick start's kit workflow against this lane's sandbox MariaDB (kit
#   generate into a new home, prepare, a 2-second run with the server's
#   counts, an HTML report, cleanup); a file missing from the installation
#   is named;
# - `apt-get purge` leaves none of the package's files behind (also when
#   a check fails: trap);
# - `make dist` in the clone, and its tarball holds every file of the git
#   tree and unpacks into a Debian source package (dpkg-source); `make
#   distcheck` is bench/distcheck.sh.
# Needs root (apt-get, dpkg) and debhelper, lintian, man-db and
# bash-completion (tests/run-all.sh installs them): without them, a
# skip_core (a failure as root). The ASan pass leaves this file to the
# normal pass (tests/run-all.sh): it builds its own bmk.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK" || exit 1

missing=""
for t in dpkg-buildpackage dh lintian man dpkg-source; do
  command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -f /usr/share/bash-completion/bash_completion ] || missing="$missing bash-completion"
if [ "$(id -u)" != 0 ]; then
  skip_core "the Debian package" "not root (apt-get install and purge)"
  finish; exit
elif [ -n "$missing" ]; then
  skip_core "the Debian package" "missing:$missing (apt-get install debhelper lintian man-db bash-completion)"
  finish; exit
elif dpkg -s bmk >/dev/null 2>&1; then
  skip_core "the Debian package" "a bmk package is installed on this machine already; purge it first (apt-get purge bmk)"
  finish; exit
fi

# Whatever happens below, the package goes again.
purge() { DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq bmk >/dev/null 2>&1; }
trap 'dpkg -s bmk >/dev/null 2>&1 && purge; rm -rf "$WORK"' EXIT

# ---- version: one source ----------------------------------------------------
REL=$("$BMK" --version | sed -n 's/^bmk release //p')
AC=$(sed -n 's/^AC_INIT(\[bmk\], \[\([^]]*\)\].*/\1/p' "$TOP/configure.ac")
CHL=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -SVersion)
assert_eq "configure.ac's AC_INIT is bmk's release (bmk --version)" "$REL" "$AC"
assert_eq "debian/changelog's version is bmk's release" "$REL" "$CHL"

# ---- the package, from a fresh clone ------------------------------------------
git clone -q "$TOP" "$WORK/src/bmk" 2>&1
SRC=$WORK/src/bmk
DEPS=$(cd "$SRC" && dpkg-checkbuilddeps 2>&1)
assert_eq "the build dependencies are installed (dpkg-checkbuilddeps)" "" "$DEPS"
# nocheck: the unit tests run in `make check` of tests/run-all.sh
OUT=$(cd "$SRC" && DEB_BUILD_OPTIONS="nocheck parallel=2" timeout -k 10 900 \
  dpkg-buildpackage -b -us -uc 2>&1); RC=$?
assert_eq "dpkg-buildpackage -b -us -uc: exit 0" 0 "$RC"
[ "$RC" = 0 ] || printf '%s\n' "$OUT" | tail -30 | sed 's/^/    | /'
ARCH=$(dpkg --print-architecture)
DEB=$WORK/src/bmk_${REL}_$ARCH.deb
check "the package is bmk_<release>_<arch>.deb" test -f "$DEB"
if [ ! -f "$DEB" ]; then finish; exit 1; fi

LINT=$(lintian "$WORK/src/bmk_${REL}_$ARCH.changes" 2>&1 | grep -v '^running with root privileges')
assert_eq "lintian: no error or warning" "" "$LINT"

LIST=$(dpkg-deb -c "$DEB" | awk '{ print $6 ($7 == "->" ? " -> " $8 : "") }')
bad=""
for f in ./usr/bin/bmk ./usr/share/bmk/oltp_read_write.lua ./usr/share/bmk/tpcc.lua \
  ./usr/share/bmk/BMK/.bench ./usr/share/bmk/BMK/sb_exec/lua/kit_oltp.lua \
  ./usr/share/bmk/BMK/sb_exec/lua/kit_dbstress.lua ./usr/share/bmk/sandbox.sh \
  ./usr/share/bmk/sandbox_replica.sh ./usr/share/man/man1/bmk.1.gz \
  ./usr/share/man/man1/bmk-kit.1.gz ./usr/share/bash-completion/completions/bmk \
  ./usr/share/doc/bmk/README.md ./usr/share/doc/bmk/docs/kit.md ./usr/share/doc/bmk/docs/building.md \
  ./usr/share/doc/bmk/docs/grafana/bmk.json ./usr/share/doc/bmk/docs/kubernetes/bmk-load.yaml \
  ./usr/share/doc/bmk/copyright "./usr/lib/bmk/sysbench/sysbench -> ../../../bin/bmk" \
  "./usr/lib/bmk/pgbench/pgbench -> ../../../bin/bmk"; do
  grep -qxF -- "$f" <<< "$LIST" || bad="$bad $f"
done
assert_eq "the package holds the binary, workloads, kit, sandbox, man pages, completion, docs" "" "$bad"
assert_eq "no /usr/bin/sysbench (Debian's sysbench package has it)" "" "$(grep -E '^\./(usr/)?s?bin/sysbench' <<< "$LIST")"
assert_eq "Package: bmk, Version: the release" "bmk $REL" "$(dpkg-deb -f "$DEB" Package Version | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }')"
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
for lib in libc6 libluajit-5.1-2 libmariadb3 libpq5 libssl3; do
  assert_contains "Depends (computed by dpkg-shlibdeps) names $lib" "$DEPENDS" "$lib ("
done

# ---- installed ----------------------------------------------------------------
OUT=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$DEB" 2>&1); RC=$?
assert_eq "apt-get install ./bmk_*.deb: exit 0" 0 "$RC"
[ "$RC" = 0 ] || printf '%s\n' "$OUT" | tail -20 | sed 's/^/    | /'
FILES=$(dpkg -L bmk 2>/dev/null)

# A new user's shell: outside any source tree, a plain PATH and HOME.
U=$WORK/user
mkdir -p "$U/home" "$U/cwd"
USERENV=(env -i PATH=/usr/bin:/bin HOME="$U/home" LANG=C.UTF-8
  BMK_SANDBOX_DIR="$SANDBOX_DIR" BMK_MYSQL_PORT="$MYSQL_PORT" BMK_PGSQL_PORT="$PGSQL_PORT")
u() { OUT=$(cd "$U/cwd" && timeout -k 5 120 "${USERENV[@]}" "$@" 2>&1); RC=$?; }

u sh -c 'command -v bmk'
assert_eq "bmk on PATH is the package's" "/usr/bin/bmk" "$OUT"
u bmk --version
assert_eq "bmk --version: exit 0" 0 "$RC"
assert_match "bmk --version: the compat line" "$OUT" '^bmk 1\.1\.0(-[0-9a-f]+)?$'
assert_contains "bmk --version: the release" "$OUT" "bmk release $REL"
u sh -c 'PATH=/usr/lib/bmk/sysbench:$PATH; sysbench --version'
assert_match "the sysbench persona on PATH=/usr/lib/bmk/sysbench:\$PATH" "$OUT" '^sysbench 1\.1\.0(-[0-9a-f]+)?$'
u sh -c 'PATH=/usr/lib/bmk/pgbench:$PATH; pgbench --version'
assert_match "the pgbench persona on PATH=/usr/lib/bmk/pgbench:\$PATH" "$OUT" '^pgbench \(PostgreSQL\) 15 \(bmk '

# man pages: bmk(1), one per command of --help, every option of --help in bmk(1)
u man -w bmk
assert_eq "man -w bmk" "/usr/share/man/man1/bmk.1.gz" "$OUT"
u bmk --help
HELP=$OUT
CMDS=$(printf '%s\n' "$HELP" | sed -n '/^bmk extensions (commands):$/,/^$/s/^  bmk \([^ ]*\) .*/\1/p')
bad=""
for c in $CMDS; do
  u man -w "bmk-$c"
  [ "$OUT" = "/usr/share/man/man1/bmk-$c.1.gz" ] || bad="$bad bmk-$c"
done
assert_eq "a man page for every command of --help (Makefile.am MAN_COMMANDS)" "" "$bad"
check "the commands are read from --help" test -n "$CMDS"
MAN=$(cd "$U/cwd" && "${USERENV[@]}" MANWIDTH=200 man bmk 2>&1 | col -b)
bad=""
for o in $(printf '%s\n' "$HELP" | sed -n 's/^  \(--[a-z][a-z0-9_-]*\).*/\1/p'); do
  grep -qE -- "^ *$o(\[|=| |\$)" <<< "$MAN" || bad="$bad $o"
done
assert_eq "man bmk: every option of bmk --help" "" "$bad"
WARN=$(cd "$U/cwd" && for p in $(printf '%s\n' "$FILES" | grep '/man1/.*\.1\.gz$'); do
  "${USERENV[@]}" man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 >/dev/null; done)
assert_eq "the man pages format without groff warnings" "" "$WARN"

# bash completion, loaded by bash-completion by name, as an interactive
# shell does; comp LINE prints the candidates for LINE (cursor at the end)
comp() {
  (cd "$U/cwd" && "${USERENV[@]}" bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion bmk || { echo "no completion for bmk"; exit 0; }
    COMP_LINE=$1 COMP_POINT=${#1}
    read -ra COMP_WORDS <<< "$COMP_LINE"; [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    f=$(complete -p bmk | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
    "$f" bmk "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' comp "$1" | sort | tr '\n' ' ' | sed 's/ $//')
}
assert_eq "completion: bmk oltp_<TAB>" \
  "oltp_delete oltp_insert oltp_point_select oltp_read_only oltp_read_write oltp_update_index oltp_update_non_index oltp_write_only" \
  "$(comp "bmk oltp_")"
WANT=$(printf '%s\n' "$HELP" | sed -n 's/^  \(--mysql-[a-z-]*\)\(\[*=\{0,1\}\).*/\1\2/p' | sed 's/\[=$//' | sort | tr '\n' ' ' | sed 's/ $//')
assert_eq "completion: bmk --mysql-<TAB> (the mysql driver's options of --help)" "$WANT" "$(comp "bmk --mysql-")"
check "completion: the mysql options were read from --help" test -n "$WANT"
assert_eq "completion: another driver chosen, no mysql options" "" "$(comp "bmk --db-driver=pgsql oltp_read_write --mysql-")"
assert_eq "completion: the chosen test's options" "--table_size= --tables=" "$(comp "bmk oltp_read_write --table")"
assert_eq "completion: a test's commands" "cleanup help prepare run" "$(comp "bmk oltp_point_select ")"
assert_eq "completion: an option's values" "mysql pgsql" "$(comp "bmk --db-driver=")"
assert_eq "completion: kit script names" "Prepare_10M_1tab-InnoDB Prepare_10M_8tab-InnoDB" "$(comp "bmk kit explain Prepare_10M_")"
assert_eq "completion: commands" "sandbox select_random_points select_random_ranges series" "$(comp "bmk s")"

# the sandbox script of the installation (this lane's server)
u bmk sandbox status mysql
assert_eq "bmk sandbox status mysql: exit 0" 0 "$RC"
assert_contains "bmk sandbox: the installed script answers" "$OUT" "sandbox: mysql running"
u bmk sandbox bogus mysql
assert_eq "bmk sandbox: a usage error is exit 2" 2 "$RC"
assert_contains "bmk sandbox: the usage names the command" "$OUT" "usage: bmk sandbox start|stop"

# ---- the quick start's workflow with the installed bmk -----------------------
KH=$U/home/bmk-kit
u bmk kit generate --home="$KH" --sizes=10K --tables=2 --dists=uniform
assert_eq "kit generate --home: exit 0" 0 "$RC"
assert_contains "kit generate --home: the scripts" "$OUT" "generated 135 scripts in $KH/sb_exec"
assert_contains "kit generate --home: a .bench to edit" "$OUT" "wrote $KH/.bench: set the server's address"
check "the new home's .bench is the installed template" cmp -s /usr/share/bmk/BMK/.bench "$KH/.bench"
printf 'host=127.0.0.1\nport=%s\nuser=sbtest\npass=%s\ndb=sbtest\nTMP_DIR=%s\n' \
  "$MYSQL_PORT" "$DBPASS" "$U/home" >> "$KH/.bench"
u bmk kit generate --home=/usr/share/bmk/BMK --sizes=10K
assert_eq "kit generate into the installed kit: refused (exit 2)" 2 "$RC"
assert_contains "kit generate into the installed kit: the message" "$OUT" "is the kit installed with bmk"
u sh -c "BMK_HOME='$KH' bmk kit explain OLTP_RW_10K_2tab-uniform-ps-trx 2 2"
assert_contains "the kit runs the installed kit Lua" "$OUT" "/usr/bin/bmk /usr/share/bmk/BMK/sb_exec/lua/kit_oltp.lua "

u sh -c "BMK_HOME='$KH' bmk kit cleanup Prepare_10K_2tab-InnoDB"
u bash "$KH/sb_exec/sb11-Prepare_10K_2tab-InnoDB.sh" 2
assert_eq "kit prepare: exit 0" 0 "$RC"
assert_eq "kit prepare: the rows" "10000 10000" "$( (mysql_q "SELECT COUNT(*) FROM sbtest1"; mysql_q "SELECT COUNT(*) FROM sbtest2") 2>&1 | tr '\n' ' ' | sed 's/ $//')"
u bash "$KH/sb_exec/sb11-OLTP_RW_10K_2tab-uniform-ps-trx.sh" 2 2 --report-interval=1 --results="$U/home/run.json"
assert_eq "kit run (2 users, 2 s): exit 0" 0 "$RC"
assert_match "kit run: per-second lines" "$OUT" '^\[ 1s \] thds: 2 tps: '
SRV=$(printf '%s\n' "$OUT" | sed -n 's/^ *commits (Com_commit): *\([0-9]*\) .*client events: *\([0-9]*\) .*/\1 \2/p')
read -r scommits cevents <<< "$SRV"
check "kit run: the server's commits were counted" test "${scommits:-0}" -gt 0
assert_eq "kit run: the server's commits = the client's events" "${cevents:-none}" "${scommits:-}"
if command -v gnuplot >/dev/null 2>&1; then
  u bmk report --html="$U/home/run.html" "$U/home/run.json"
  assert_eq "bmk report --html of the run: exit 0" 0 "$RC"
  check "bmk report --html: the page has its charts" grep -q '<svg' "$U/home/run.html"
else
  skip_core "bmk report --html with the installed bmk" "gnuplot is not installed (apt-get install gnuplot-nox)"
fi
u sh -c "BMK_HOME='$KH' bmk kit cleanup Prepare_10K_2tab-InnoDB"
assert_eq "kit cleanup: exit 0" 0 "$RC"
assert_eq "kit cleanup: the tables are gone" "" "$(mysql_q "SHOW TABLES LIKE 'sbtest%'")"

# ---- a file missing from the installation is named ---------------------------
mv /usr/share/bmk/sandbox.sh "$WORK/sandbox.sh.aside"
u bmk sandbox status mysql
assert_eq "no sandbox script: exit 1" 1 "$RC"
assert_contains "no sandbox script: the message" "$OUT" \
  "bmk sandbox: the sandbox script is missing from this installation (looked for /usr/bin/tools/sandbox.sh, /usr/bin/../tools/sandbox.sh, /usr/share/bmk/sandbox.sh); reinstall bmk"
mv "$WORK/sandbox.sh.aside" /usr/share/bmk/sandbox.sh
mv /usr/share/bmk/BMK "$WORK/BMK.aside"
u sh -c "BMK_HOME='$KH' bmk kit OLTP_RW_10K_2tab-uniform-ps-trx 1 1"
assert_eq "no installed kit Lua: exit 1" 1 "$RC"
assert_contains "no installed kit Lua: the message" "$OUT" \
  "bmk kit: the kit's workload scripts are missing: $KH/sb_exec/lua/ does not exist and this bmk's installation has no kit (looked in /usr/bin/BMK/sb_exec/lua, /usr/bin/../BMK/sb_exec/lua, /usr/share/bmk/BMK/sb_exec/lua); reinstall bmk"
mv "$WORK/BMK.aside" /usr/share/bmk/BMK

# ---- purge: nothing of the package stays ---------------------------------------
OUT=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq bmk 2>&1); RC=$?
assert_eq "apt-get purge bmk: exit 0" 0 "$RC"
check "dpkg: bmk is gone" sh -c '! dpkg -s bmk >/dev/null 2>&1'
left=""
while IFS= read -r f; do
  [ -n "$f" ] || continue
  # directories other packages share (/usr/share/man/man1, ...) stay
  if [ -d "$f" ] && [ ! -L "$f" ]; then
    case $f in /usr/share/bmk*|/usr/lib/bmk*|/usr/share/doc/bmk*) [ -e "$f" ] && left="$left $f" ;; esac
  elif [ -e "$f" ] || [ -L "$f" ]; then
    left="$left $f"
  fi
done <<< "$FILES"
assert_eq "apt-get purge leaves no file of the package" "" "$left"
check "the package had files" test "$(printf '%s\n' "$FILES" | wc -l)" -gt 50

# ---- the release tarball -------------------------------------------------------
# `make dist` in the clone the package was built from (configured by
# the build); the out-of-tree build of the tarball (`make distcheck`,
# a second whole build) is bench/distcheck.sh, run by hand before a
# release: the checks below already hold the tarball to the git tree.
OUT=$(cd "$SRC" && { [ -f Makefile ] || ./configure -q; } && timeout -k 10 900 make -s dist 2>&1); RC=$?
assert_eq "make dist: exit 0" 0 "$RC"
[ "$RC" = 0 ] || printf '%s\n' "$OUT" | tail -30 | sed 's/^/    | /'
TARBALL=$SRC/bmk-$REL.tar.gz
if [ -f "$TARBALL" ]; then
  IN=$(tar tzf "$TARBALL" | sed "s|^bmk-$REL/||")
  gone=$(cd "$SRC" && git ls-files | while IFS= read -r f; do grep -qxF -- "$f" <<< "$IN" || echo "$f"; done)
  assert_eq "the tarball holds every file of the git tree" "" "$gone"
  mkdir -p "$WORK/tb" && tar xzf "$TARBALL" -C "$WORK/tb"
  OUT=$(cd "$WORK/tb" && dpkg-source -b "bmk-$REL" 2>&1); RC=$?
  assert_eq "the unpacked tarball is a Debian source package (dpkg-source -b)" 0 "$RC"
  check "dpkg-source wrote the .dsc" test -f "$WORK/tb/bmk_$REL.dsc"
else
  not_ok "make distcheck left no $TARBALL"
fi

finish
