#!/usr/bin/env bash
# The one portable binary (README "One portable binary"): bmk-x64 from
# `make static`, beside the bmk under test. It must be statically linked
# (file, ldd), and a copy outside the build tree, run with an empty
# LD_LIBRARY_PATH and a LUA_PATH that reaches no script file, must run the
# embedded oltp_point_select (prepare/run/cleanup) on both servers, its
# FFI calls, a built-in test and the kit (which picks BMK_HOME/bin/bmk-x64).
# In a mount namespace the system's shared libraries are hidden from it as
# well (a core check: as root it must run; see skip_core in lib.sh).
#   BMK_STATIC_TEST=0  skip the whole file (one skip); tests/run-all.sh
#                      leaves this file out of the ASan pass instead: the
#                      static binary is built once, with normal flags
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK" || exit 1

if [ "${BMK_STATIC_TEST:-1}" = 0 ]; then
  skip "bmk-x64" "BMK_STATIC_TEST=0"
  finish
  exit
fi
SRC=${BMK_STATIC_BIN:-$(dirname "$BMK")/bmk-x64}
if [ ! -x "$SRC" ]; then
  not_ok "no $SRC: build it with 'make static'"
  finish
  exit 1
fi

assert_contains "file: statically linked" "$(file "$SRC")" "statically linked"

# What ships beside it (docs/building.md): the licences and a relink kit
# (LGPL-2.1 section 6: bmk's objects, to relink against a changed library)
LIC=$(dirname "$SRC")/bmk-x64-licenses.tar.gz
REL=$(dirname "$SRC")/bmk-x64-relink.tar.gz
LIST=$(tar tzf "$LIC" 2>&1)
assert_contains "licences archive: bmk's LICENSE" "$LIST" "bmk-x64-licenses/LICENSE"
for p in libmariadb-dev libpq-dev libluajit-5.1-dev libssl-dev libaio-dev; do
  assert_contains "licences archive: $p's copyright file" "$LIST" "bmk-x64-licenses/copyright/$p"
done
mkdir -p "$WORK/relink"
if tar xzf "$REL" -C "$WORK/relink" 2>/dev/null; then
  OUT=$(cd "$WORK/relink/bmk-x64-relink" && OUT="$WORK/relinked" sh relink.sh 2>&1); RC=$?
  assert_eq "relink kit: relink.sh exit 0" 0 "$RC"
  check "relink kit: the relinked binary is bmk-x64, byte for byte" cmp -s "$SRC" "$WORK/relinked"
else
  not_ok "relink kit: $REL unpacks"
fi
LDD=$(ldd "$SRC" 2>&1)
assert_contains "ldd: not a dynamic executable" "$LDD" "not a dynamic executable"

# The load host: only the binary (and, for the kit, the kit's own files).
H=$WORK/host
mkdir -p "$H/bin" "$H/empty"
cp "$SRC" "$H/bin/bmk-x64"
X=$H/bin/bmk-x64
HOSTENV=(env -i PATH=/usr/bin:/bin HOME="$H" LD_LIBRARY_PATH= LUA_PATH="$H/empty/?.lua")
sx() { OUT=$(cd "$H" && timeout -k 5 120 "${HOSTENV[@]}" "$X" "$@" 2>&1); RC=$?; }

sx --version
assert_eq "version" "0" "$RC"
assert_contains "version line" "$OUT" "bmk-x64 1.1.0"

for db in mysql pgsql; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; q() { mysql_q "$1"; }; else O=$PGSQL_OPTS; q() { pgsql_q "$1"; }; fi
  T="oltp_point_select $O --tables=1 --table-size=100"
  sx $T cleanup
  sx $T prepare
  assert_eq "$db: embedded oltp_point_select prepare exit 0" 0 "$RC"
  assert_eq "$db: prepare wrote the rows" 100 "$(q "SELECT COUNT(*) FROM sbtest1")"
  sx $T --threads=2 --events=100 run
  assert_eq "$db: run exit 0" 0 "$RC"
  assert_contains "$db: run events" "$OUT" "total number of events:              100"
  assert_contains "$db: run reads" "$OUT" "        read:                            100"
  sx $T cleanup
  assert_eq "$db: cleanup exit 0" 0 "$RC"
  assert_contains "$db: cleanup message" "$OUT" "Dropping table 'sbtest1'..."
done

# ffi.C reaches bmk's functions and the C library in a static binary.
cat >"$H/ffi.lua" <<'EOF'
ffi.cdef[[
int getpid(void);
int usleep(unsigned int usec);
void sb_counter_inc(int thread_id, int type);
uint64_t sb_counter_val(int thread_id, int type);
]]
function event()
  ffi.C.usleep(1)
  ffi.C.sb_counter_inc(sysbench.tid, 1)
  print("pid " .. tostring(ffi.C.getpid() > 0) .. " reads " ..
        tonumber(ffi.C.sb_counter_val(sysbench.tid, 1)))
end
EOF
sed -i '1i local ffi = require("ffi")' "$H/ffi.lua"
sx "$H/ffi.lua" --events=3 run
assert_eq "ffi script exit 0" 0 "$RC"
assert_eq "ffi: libc calls" 3 "$(printf '%s\n' "$OUT" | grep -c '^pid true ')"
assert_contains "ffi: bmk's counters" "$OUT" "pid true reads 3"
sx cpu --events=5 --cpu-max-prime=1000 run
assert_contains "built-in cpu test" "$OUT" "total number of events:              5"

# Without the system's shared libraries (mount namespace, when allowed):
# an empty directory over the multiarch library directory (/lib's too on a
# merged-/usr system), then only the static binary runs.
LIBDIR=/usr/lib/x86_64-linux-gnu
if [ -d $LIBDIR ] && unshare -m true 2>/dev/null; then
  hidden() {
    OUT=$(cd "$H" && timeout -k 5 120 "${HOSTENV[@]}" unshare -m sh -c \
      'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$H/empty" $LIBDIR "${BIN:-$X}" "$@" 2>&1)
    RC=$?
  }
  BIN=$BMK hidden --version
  assert_eq "the dynamic bmk cannot start there (the libraries are hidden)" 127 "$RC"

  for db in mysql pgsql; do
    if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
    hidden oltp_point_select $O --tables=1 --table-size=50 prepare
    assert_eq "$db without shared libraries: prepare" 0 "$RC"
    hidden oltp_point_select $O --tables=1 --table-size=50 --events=50 run
    assert_contains "$db without shared libraries: run" "$OUT" "total number of events:              50"
    hidden oltp_point_select $O --tables=1 cleanup
    assert_eq "$db without shared libraries: cleanup" 0 "$RC"
  done
  # Host names: glibc's files source is inside the static libc.
  hidden oltp_point_select ${PGSQL_OPTS//--pgsql-host=127.0.0.1/--pgsql-host=localhost} --tables=1 cleanup
  assert_eq "a host name from /etc/hosts without shared libraries" "0" "$RC"
else
  skip_core "bmk-x64 with the system's shared libraries hidden" "no mount namespace here (unshare -m needs root or user namespaces)"
fi

# The kit uses $BMK_HOME/bin/bmk-x64 when it is there.
K=$H
mkdir -p "$K/sb_exec"
cp -r "$TOP/BMK/sb_exec/lua" "$K/sb_exec/lua"
printf 'driver=mysql\nhost=127.0.0.1\nport=%s\nuser=sbtest\npass=%s\ndb=sbtest\nTMP_DIR=%s\n' \
  "$MYSQL_PORT" "$DBPASS" "$WORK" > "$K/.bench"
kx() { OUT=$(timeout -k 5 120 "${HOSTENV[@]}" BMK_HOME="$K" bash "$@" 2>&1); RC=$?; }
sx kit generate --home="$K" --sizes=10K --tables=1
assert_contains "kit generate with bmk-x64" "$OUT" "generated 423 scripts in $K/sb_exec"
BMK_HOME=$K timeout 60 "${HOSTENV[@]}" BMK_HOME="$K" "$X" kit cleanup Prepare_10K_1tab-InnoDB >/dev/null 2>&1
kx "$K/sb_exec/sb11-Prepare_10K_1tab-InnoDB.sh" 1
assert_eq "kit prepare through bmk-x64" 0 "$RC"
assert_eq "kit prepare rows" 10000 "$(mysql_q "SELECT COUNT(*) FROM sbtest1")"
kx "$K/sb_exec/sb11-OLTP_RO_10K_1tab-uniform-ps-p_sel1-notrx.sh" 1 1
assert_eq "kit run through bmk-x64" 0 "$RC"
assert_match "kit run: the binary is bmk-x64" "$OUT" "^bmk-x64 1\.1\.0(-[0-9a-f]+)? \(using "
assert_match "kit run: transactions" "$OUT" '^    transactions: +[1-9][0-9]* '
timeout 60 "${HOSTENV[@]}" BMK_HOME="$K" "$X" kit cleanup Prepare_10K_1tab-InnoDB >/dev/null 2>&1
assert_eq "kit cleanup" "" "$(mysql_q "SHOW TABLES LIKE 'sbtest1'")"

finish
