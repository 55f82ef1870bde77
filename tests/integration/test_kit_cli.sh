#!/usr/bin/env bash
# `bmk kit` (docs/kit.md): the default catalogue, the names BMK-kit's
# documentation uses verbatim and their options (through `bmk kit explain`),
# name and usage errors, K sizes, passwords, and — on MariaDB and
# PostgreSQL — the launcher: create/prepare/cleanup, the sb11_MAX split with
# its SYNC-file start, a user --sync-file, and a generated script. The kit
# workloads are written elsewhere, so the runs use the test-only hook
# BMK_KIT_WORKLOAD with tests/integration/fixtures/kit/kit_probe.lua.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK" || exit 1
unset BMK_HOME BMK_KIT_WORKLOAD BMK_BENCH_SOURCED BMK_PASS BMK_PG_PASS PGPASSWORD MYSQL_PWD sb11
PROBE=$TOP/tests/integration/fixtures/kit/kit_probe.lua

kit() { OUT=$(timeout -k 5 60 "$BMK" kit "$@" 2>&1); RC=$?; }

# ---- default catalogue ------------------------------------------------------
H=$WORK/home
mkdir -p "$H"
printf 'sb11=%s\n' "$BMK" > "$H/.bench"
kit generate --home="$H"
assert_eq "generate: exit 0" 0 "$RC"
assert_contains "generate: summary" "$OUT" "generated 3776 scripts in $H/sb_exec"
assert_eq "generate: CATALOGUE lines" 3776 "$(wc -l < "$H/sb_exec/CATALOGUE")"
assert_eq "generate: script files" 3776 "$(ls "$H/sb_exec" | grep -c '^sb11-.*\.sh$')"
check "generate: scripts executable" test -x "$H/sb_exec/sb11-OLTP_RW_10M_8tab-uniform-ps-trx.sh"
assert_contains "generate: script body" "$(cat "$H/sb_exec/sb11-TPCC_100W.sh")" 'exec "$sb11" kit "sb11-TPCC_100W.sh" "$@"'

DOC_NAMES="sb11-Prepare_10M_8tab-InnoDB.sh sb11-Prepare_50M_8tab-InnoDB.sh
sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh sb11-OLTP_RW_10M_8tab-uniform-ps-trx.sh
sb11-OLTP_RW_10M_8tab-uniform-trx.sh sb11-OLTP_RO_10M_8tab-uniform-ps-notrx.sh
sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh sb11-OLTP_RO_10M_8tab-uniform-p_sel1-notrx.sh
sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh sb11-OLTP_RW_10M_8tab-uniform-upd_idx1-notrx.sh
sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-trx.sh sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh
sb11-OLTP_RO_10M_8tab-pareto-trx-socket.sh sb11-OLTP_RO_10M_8tab-pareto-p_sel1-notrx-socket.sh
sb11-OLTP_RO_10M_8tab-pareto-s_ranges1-notrx-socket.sh sb11-OLTP_RO_10M_8tab-pareto-sum_ranges1-notrx-socket.sh
sb11-OLTP_RO_10M_8tab-pareto-p_sel10-reconnect-notrx-socket.sh
sb11-OLTP_RO_1M_8tab-pareto-ps-p_sel1-reconnect-notrx-socket.sh
sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx-socket.sh
sb11-Prepare_TPCC_100W-InnoDB-NoFK.sh sb11-Prepare_TPCC_1000W-InnoDB-NoFK.sh
sb11-Prepare_TPCC_10x100W-InnoDB-NoFK.sh sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh
sb11-TPCC_100W.sh sb11-TPCC_1000W.sh sb11-TPCC_10x100W.sh
sb11-Prepare_dbSTRESS_10M-InnoDB.sh sb11-Prepare_dbSTRESS_10x1M-InnoDB.sh
sb11-Prepare_dbSTRESS_10M-InnoDB-HPK.sh
sb11-dbSTRESS_10M-RO-notrx.sh sb11-dbSTRESS_10M-RO-SEL1-notrx.sh sb11-dbSTRESS_10M-RO-SEL2-notrx.sh
sb11-dbSTRESS_10M-RW1-trx.sh sb11-dbSTRESS_10M-RW10-trx.sh
sb11-dbSTRESS_10M-RW1-UPD-trx.sh sb11-dbSTRESS_10M-RW10-UPD-trx.sh
sb11-Prepare_TPCH_SF1-InnoDB.sh sb11-TPCH_SF1-power.sh sb11-TPCH_SF1-throughput2.sh
sb11-TPCH_SF1-full2.sh sb11-TPCH_SF10-throughput3.sh sb11-TPCH_SF100-full5.sh"
missing=""
for n in $DOC_NAMES; do
  [ -x "$H/sb_exec/$n" ] || missing="$missing $n"
  case $n in *OLTP_*_10M_*)
    for s in 50M 500M; do m=${n/_10M_/_${s}_}; [ -x "$H/sb_exec/$m" ] || missing="$missing $m"; done ;;
  esac
done
assert_eq "generate: every name of the kit's catalogue (and 50M/500M OLTP twins) exists" "" "$missing"

# ---- BMK-kit's own names: explain lines carry the documented options ---------
export BMK_HOME=$H
RUN="--threads=64 --time=300 --events=0 --forced-shutdown=1 --thread-init-timeout=0"
CONN="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=sbtest --mysql-db=sbtest --mysql-ssl=disabled"
# $H has no sb_exec/lua/ of its own: the kit Lua shipped beside the binary runs
W=$(dirname "$BMK")/BMK/sb_exec/lua
RO="--statements=point,simple,sum,order,distinct"
RW="$RO,index_update,non_index_update,delete_insert"
S10="--table-size=10000000 --tables=8"
while IFS='|' read -r name args want; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  kit explain "$name" $args
  bad=""
  flat=" ${OUT//$'\n'/ } "
  for w in $want; do [[ "$flat" == *" $w "* ]] || bad="$bad $w"; done
  assert_eq "explain $name" "0:" "$RC:$bad"
done <<EOF
sb11-Prepare_10M_8tab-InnoDB.sh||$BMK $W/kit_oltp.lua $CONN --auto-inc=on $S10 --mysql-storage-engine=InnoDB --threads=32 create prepare
sb11-Prepare_50M_8tab-InnoDB.sh|16 --rnd-data=50|--table-size=50000000 --tables=8 --threads=16 --rnd-data=50 create prepare
sb11-OLTP_RW_50M_8tab-uniform-ps-trx.sh|64 300|--table-size=50000000 --rand-type=uniform --db-ps-mode=auto --skip-trx=off $RW $RUN run
sb11-OLTP_RW_10M_8tab-uniform-ps-trx.sh|64 300|$S10 --db-ps-mode=auto --skip-trx=off $RW
sb11-OLTP_RW_10M_8tab-uniform-trx.sh|64 300 --report-interval=1|--db-ps-mode=disable --skip-trx=off $RW --report-interval=1
sb11-OLTP_RO_10M_8tab-uniform-ps-notrx.sh|64 300|--db-ps-mode=auto --skip-trx=on $RO
sb11-OLTP_RO_10M_8tab-uniform-ps-p_sel1-notrx.sh|64 300|--db-ps-mode=auto --statements=point --point-selects=1
sb11-OLTP_RO_10M_8tab-uniform-p_sel1-notrx.sh|64 300|--db-ps-mode=disable --skip-trx=on --statements=point --point-selects=1
sb11-OLTP_RW_10M_8tab-uniform-upd_noidx1-notrx.sh|64 300|--statements=non_index_update --non-index-updates=1 --skip-trx=on
sb11-OLTP_RW_10M_8tab-uniform-upd_idx1-notrx.sh|64 300|--statements=index_update --index-updates=1
sb11-OLTP_RW_10M_8tab-uniform-upd_insdel1-trx.sh|64 300|--statements=index_update,non_index_update,delete_insert --index-updates=1 --non-index-updates=1 --delete-inserts=1 --skip-trx=off
sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx.sh|64 300|--statements=point --point-selects=1 --reconnect-event=on
sb11-OLTP_RO_10M_8tab-pareto-trx-socket.sh|64 300|--rand-type=pareto --mysql-socket=/var/run/mysqld/mysqld.sock $RO --skip-trx=off
sb11-OLTP_RO_10M_8tab-pareto-p_sel1-notrx-socket.sh|64 300|--mysql-socket=/var/run/mysqld/mysqld.sock --statements=point --point-selects=1
sb11-OLTP_RO_10M_8tab-pareto-s_ranges1-notrx-socket.sh|64 300|--statements=simple --simple-ranges=1
sb11-OLTP_RO_10M_8tab-pareto-sum_ranges1-notrx-socket.sh|64 300|--statements=sum --sum-ranges=1
sb11-OLTP_RO_10M_8tab-pareto-p_sel10-reconnect-notrx-socket.sh|64 300|--statements=point --point-selects=10 --reconnect-event=on
sb11-OLTP_RO_1M_8tab-pareto-ps-p_sel1-reconnect-notrx-socket.sh|64 300|--table-size=1000000 --db-ps-mode=auto --reconnect-event=on
sb11-OLTP_RO_10M_8tab-uniform-p_sel1-reconnect-notrx-socket.sh|64 300|--rand-type=uniform --reconnect-event=on --mysql-socket=/var/run/mysqld/mysqld.sock
OLTP_RO_10M_8tab-uniform-ps-dst_ranges1-Rsize10-notrx|64 300|--statements=distinct --distinct-ranges=1 --range-size=10
OLTP_RW_10M_8tab-uniform-del_ins1-trx|64 300|--statements=delete_insert --delete-inserts=1
OLTP_RW_10M_8tab-uniform-ins1-notrx|64 300|--statements=inserts --inserts-only=1
OLTP_RW_10M_8tab-uniform-upd_noidx1-URsize100-notrx|64 300|--non-index-updates=1 --update-range-size=100
OLTP_RW_10M_8tab-uniform-p_sel10-upd_insdel1-trx|64 300|--statements=point,index_update,non_index_update,delete_insert --point-selects=10 --index-updates=1
sb11-Prepare_TPCC_100W-InnoDB-NoFK.sh||tpcc --tables=1 --scale=100 --force-null=0 --mysql_storage_engine=InnoDB --use-fk=0 --threads=32 prepare
sb11-Prepare_TPCC_1000W-InnoDB-NoFK.sh|8|--scale=1000 --use-fk=0 --threads=8
sb11-Prepare_TPCC_10x100W-InnoDB-NoFK.sh||--tables=10 --scale=100
sb11-Prepare_TPCC_1000W-NULL-InnoDB-NoFK.sh||--force-null=1 --use-fk=0
Prepare_TPCC_100W-InnoDB-NoFK2||--use-fk=2
Prepare_TPCC_100W-InnoDB||--use-fk=1
sb11-TPCC_100W.sh|64 300|tpcc --tables=1 --scale=100 --force-null=0 $RUN run
sb11-TPCC_1000W.sh|64 300|--scale=1000
sb11-TPCC_10x100W.sh|64 300 --sync-file=/tmp/start --sync-wait=20|--tables=10 --scale=100 --sync-file=/tmp/start --sync-wait=20
sb11-Prepare_TPCH_SF1-InnoDB.sh||tpch $CONN --scale=1 --mysql-storage-engine=InnoDB --threads=32 prepare
sb11-Prepare_TPCH_SF10-InnoDB.sh|8 --indexes=on|--scale=10 --threads=8 --indexes=on prepare
sb11-TPCH_SF1-power.sh||tpch $CONN --scale=1 --tpch-test=power --threads=1 run
sb11-TPCH_SF10-throughput3.sh|--query-timeout=600|--scale=10 --tpch-test=throughput --streams=3 --threads=4 --query-timeout=600 run
TPCH_SF0.1-full2-socket||--mysql-socket=/var/run/mysqld/mysqld.sock --scale=0.1 --tpch-test=full --streams=2 --threads=3 run
sb11-Prepare_dbSTRESS_10M-InnoDB.sh||$W/kit_dbstress.lua --obj-table-size=10000000 --obj-tables=1 --mysql-storage-engine=InnoDB create prepare
sb11-Prepare_dbSTRESS_10x1M-InnoDB.sh||--obj-table-size=1000000 --obj-tables=10
sb11-Prepare_dbSTRESS_10M-InnoDB-HPK.sh||--hpk=on
sb11-dbSTRESS_10M-RO-notrx.sh|64 300|$W/kit_dbstress.lua --db-ps-mode=auto --rand-type=uniform --skip-trx=on --statements=SEL1,SEL2 $RUN
sb11-dbSTRESS_10M-RO-SEL1-notrx.sh|64 300|--statements=SEL1
sb11-dbSTRESS_10M-RO-SEL2-notrx.sh|64 300|--statements=SEL2
sb11-dbSTRESS_10M-RW1-trx.sh|64 300|--statements=SEL1,SEL2,INSDEL,UPDATE --rw-ratio=1 --skip-trx=off
sb11-dbSTRESS_10M-RW10-trx.sh|64 300|--rw-ratio=10
sb11-dbSTRESS_10M-RW1-UPD-trx.sh|64 300|--statements=SEL1,SEL2,UPDATE --delete-inserts=0 --rw-ratio=1
sb11-dbSTRESS_10M-RW10-UPD-trx.sh|64 300|--statements=SEL1,SEL2,UPDATE --delete-inserts=0 --rw-ratio=10
dbSTRESS_10M-pareto-RW1-xDEAD-xREF-trx|64 300|--rand-type=pareto --anti-dead=off --same-ref=off
EOF


# Extra options come last and win (BMK-kit: --mysql-ssl=REQUIRED).
kit explain OLTP_RW_10M_8tab-uniform-trx 128 120 --mysql-ssl=REQUIRED
assert_match "extra options last" "$OUT" -- "--mysql-ssl=disabled .* --mysql-ssl=REQUIRED run$"
kit explain Prepare_10M_8tab-InnoDB --rnd-data=50 --mysql_table_compression=lz4
assert_match "prepare: first arg --x means 32 and all extra" "$OUT" -- "--threads=32 --rnd-data=50 --mysql_table_compression=lz4 create$"

# ---- invalid names: exact messages, exit 2 -----------------------------------
while IFS='|' read -r name msg; do
  [ -n "$name" ] || continue
  kit explain "$name" 1 1
  assert_eq "invalid: $name" "2:bmk kit: invalid script name '$name': $msg" "$RC:$OUT"
done <<'EOF'
OLTP_RO_10M_8tab-uniform-upd_idx1-notrx|write query set 'upd_idx1' in an OLTP_RO name
OLTP_RW_10M_8tab-uniform-p_sel1-reconnect-notrx|'reconnect' is not valid in an OLTP_RW name
OLTP_RO_10M_8tab-uniform-HPK-notrx|'HPK' is only valid in dbSTRESS names
Prepare_10M_8tab-InnoDB-NULL|'NULL' is only valid in TPCC names
Prepare_dbSTRESS_10M-InnoDB-NoFK|'NoFK' is only valid in TPCC names
Prepare_TPCC_100W-InnoDB-NoFK-NoFK2|both 'NoFK' and 'NoFK2'
OLTP_RO_10M_8tab-uniform-notrx-notrx|duplicate token 'notrx'
OLTP_RO_10M_8tab-uniform-p_sel1-p_sel1-notrx|duplicate token 'p_sel1'
OLTP_RO_10M_8tab-uniform-bogus-notrx|unknown token 'bogus'
OLTP_RO_10M_8tab-notrx|missing distribution (one of uniform, pareto, zipfian, gaussian, special)
OLTP_RO_10M_8tab-uniform-pareto-notrx|more than one distribution ('uniform' and 'pareto')
OLTP_RO_10M_8tab-uniform|missing 'trx' or 'notrx'
OLTP_RO_10M_8tab-uniform-trx-notrx|both 'trx' and 'notrx'
dbSTRESS_10M-RO|missing 'trx' or 'notrx'
dbSTRESS_10M-notrx|missing dbSTRESS mode (RO, RO-SEL1, RO-SEL2, RW<N> or RW<N>-UPD)
dbSTRESS_10M-RO-UPD-notrx|'UPD' needs an RW<N> mode
OLTP_RO_10Q_8tab-uniform-notrx|invalid size '10Q' (expected <N>K or <N>M)
Prepare_10M_8tab|missing storage engine (e.g. InnoDB)
FOO_1|unknown workload 'FOO_1' (expected Prepare_..., OLTP_RO_..., OLTP_RW_..., dbSTRESS_..., TPCC_... or TPCH_...)
TPCC_100W-notrx|'notrx' is not valid in a TPCC name
TPCH_SF1-notrx|'notrx' is not valid in a TPCH name
TPCH_SF1|missing TPCH test (power, throughput<S> or full<S>)
TPCH_SF1.5-power|invalid scale factor 'SF1.5' (expected SF<n>, e.g. SF1, SF100, or SF0.1 below 1)
TPCH_SF0-power|invalid scale factor 'SF0' (expected SF<n>, e.g. SF1, SF100, or SF0.1 below 1)
TPCH_1-power|invalid scale factor '1' (expected SF<n>, e.g. SF1, SF100, or SF0.1 below 1)
TPCH_SF1-power-full2|more than one TPCH test ('power' and 'full2')
TPCH_SF1-throughput0|'throughput0': the stream count must be at least 1
Prepare_TPCH_SF1-InnoDB-power|'power' is not valid in a Prepare name
TPCC_100W-power|'power' is only valid in TPCH names
Prepare_TPCH_SF1|missing storage engine (e.g. InnoDB)
EOF
kit generate --home="$WORK/h2" OLTP_RO_10M_8tab-uniform-xDEAD-notrx
assert_eq "generate NAME: invalid name exit 2" "2:bmk kit: invalid script name 'OLTP_RO_10M_8tab-uniform-xDEAD-notrx': 'xDEAD' is only valid in dbSTRESS names" "$RC:$OUT"

# ---- usage errors ---------------------------------------------------------------
U="usage: sb11-OLTP_RO_10M_8tab-uniform-notrx.sh <users> <seconds> [options...]"
for a in "" "8" "0 10" "8 0" "x 10" "8 1.5"; do
  # shellcheck disable=SC2086
  kit OLTP_RO_10M_8tab-uniform-notrx $a
  assert_eq "run usage ($a)" "2:$U" "$RC:$OUT"
done
kit Prepare_10M_8tab-InnoDB abc
assert_eq "prepare usage" "2:usage: sb11-Prepare_10M_8tab-InnoDB.sh [<parallel connections>] [options...]" "$RC:$OUT"
OUT=$(bash "$H/sb_exec/sb11-OLTP_RW_10M_8tab-uniform-trx.sh" 2>&1); RC=$?
assert_eq "script usage" "2:usage: sb11-OLTP_RW_10M_8tab-uniform-trx.sh <users> <seconds> [options...]" "$RC:$OUT"
kit
assert_eq "bmk kit alone: exit 2" 2 "$RC"
kit explain
assert_eq "explain without name: exit 2" 2 "$RC"
kit generate --sizes=10Q
assert_eq "generate bad size: exit 2" 2 "$RC"
# --help, as every other bmk command takes it: the subcommand's usage on
# stdout, exit 0, nothing written
kit generate --home="$WORK/help-home" --help
assert_eq "generate --help: exit 0" 0 "$RC"
assert_contains "generate --help: its usage" "$OUT" "Usage: bmk kit generate [--home=DIR]"
assert_contains "generate --help: the options" "$OUT" "--clean        remove the other sb11-*.sh scripts"
check "generate --help: nothing generated" test ! -e "$WORK/help-home"
for sub in list explain cleanup; do
  kit $sub --help
  assert_eq "$sub --help: exit 0 and its usage" "0:Usage: bmk kit $sub" "$RC:$(head -1 <<< "$OUT" | awk '{print $1, $2, $3, $4}')"
done
kit generate --bogus
assert_eq "generate: an unknown option is still refused" "2:bmk kit generate: unknown option '--bogus'" "$RC:$OUT"

# a Prepare name with an OLTP_RO/RW part; <k>x counts of dbSTRESS/TPCC
kit explain Prepare_OLTP_RO_10M_8tab-InnoDB
assert_eq "invalid: Prepare with OLTP_RO" "2:bmk kit: invalid script name 'Prepare_OLTP_RO_10M_8tab-InnoDB': a Prepare name has no OLTP_RO/OLTP_RW part (use Prepare_<size>_<n>tab)" "$RC:$OUT"
kit explain TPCC_0x10W 1 1
assert_eq "invalid: TPCC 0 tables" "2:bmk kit: invalid script name 'TPCC_0x10W': the warehouse count must be at least 1" "$RC:$OUT"
kit explain TPCC_2xW 1 1
assert_eq "invalid: TPCC bad count" "2:bmk kit: invalid script name 'TPCC_2xW': invalid warehouse count '2xW' (expected <n>W or <n>x<m>W)" "$RC:$OUT"
kit explain dbSTRESS_0x10K-RO-notrx 1 1
assert_eq "invalid: dbSTRESS 0 tables" "2:bmk kit: invalid script name 'dbSTRESS_0x10K-RO-notrx': invalid dbSTRESS size '0x10K' (expected <N>M, <N>K or <k>x<N>M)" "$RC:$OUT"

# ---- a broken kit: clear message, exit 1, nothing started ---------------------
B=$WORK/broken
mkdir -p "$B/sb_exec/lua"
: > "$B/sb_exec/lua/kit_oltp.lua"
printf 'sb11=%s\n' "$WORK/no-such-bmk" > "$B/.bench"
OUT=$(BMK_HOME=$B "$BMK" kit OLTP_RO_10K_1tab-uniform-notrx 1 1 2>&1); RC=$?
assert_eq "missing load generator" "1:bmk kit: cannot run the load generator '$WORK/no-such-bmk' (not found or not executable); set sb11 in $B/.bench or put bmk on PATH" "$RC:$OUT"
printf 'sb11=%s\n' "$BMK" > "$B/.bench"
OUT=$(BMK_HOME=$B "$BMK" kit dbSTRESS_10K-RO-notrx 1 1 2>&1); RC=$?
assert_eq "missing workload script" "1:bmk kit: workload script $B/sb_exec/lua/kit_dbstress.lua not found; is BMK_HOME ($B) a bmk kit directory?" "$RC:$OUT"
# a home without sb_exec/lua/ and no kit shipped beside the binary: named
C=$WORK/bare
mkdir -p "$C/bin"
cp "$BMK" "$C/bin/bmk"     # a copy: the kit is looked for beside the real binary
OUT=$(BMK_HOME=$C "$C/bin/bmk" kit OLTP_RO_10K_1tab-uniform-notrx 1 1 2>&1); RC=$?
assert_match "no kit Lua anywhere: exit 1 and the places looked at" "$RC:$OUT" \
  "^1:bmk kit: the kit's workload scripts are missing: $C/sb_exec/lua/ does not exist and this bmk's installation has no kit \(looked in $C/bin/BMK/sb_exec/lua, .*\); reinstall bmk"
printf 'sb11=%s\nexit 3\n' "$BMK" > "$B/.bench"
OUT=$(BMK_HOME=$B "$BMK" kit explain OLTP_RO_10K_1tab-uniform-notrx 1 1 2>&1); RC=$?
assert_eq ".bench that exits" "1:bmk kit: cannot load $B/.bench with /bin/bash (see the messages above); fix it or set BMK_HOME" "$RC:$OUT"
printf 'sb11=%s\nTMP_DIR=%s\nsb11_MAX=1\n' "$BMK" "$WORK/no-such-dir" > "$B/.bench"
OUT=$(BMK_HOME=$B "$BMK" kit OLTP_RO_10K_1tab-uniform-notrx 2 1 2>&1); RC=$?
assert_eq "split run, missing TMP_DIR: exit 1" 1 "$RC"
assert_match "split run, missing TMP_DIR: message" "$OUT" "^bmk kit: cannot create the sync file: $WORK/no-such-dir/bmk-sync\.[0-9]+: No such file or directory; check TMP_DIR in \.bench$"
printf 'mysql=%s\n' "$WORK/no-such-mysql" > "$B/.bench"
OUT=$(BMK_HOME=$B "$BMK" kit sql 2>&1); RC=$?
assert_eq "kit sql: missing client" "1:bmk kit sql: cannot run $WORK/no-such-mysql: No such file or directory; set mysql in $B/.bench" "$RC:$OUT"

# ---- K sizes and the test catalogue --------------------------------------------
# ---- a new kit home: generate writes the shipped .bench to edit; the
# kit's Lua stays the one shipped with bmk (beside the binary here)
N=$WORK/newhome
kit generate --home="$N" --sizes=10K --tables=1 --dists=uniform
assert_eq "new home: exit 0" 0 "$RC"
assert_contains "new home: .bench written" "$OUT" "wrote $N/.bench: set the server's address and account there"
check "new home: .bench is the shipped template" cmp -s "$(dirname "$BMK")/BMK/.bench" "$N/.bench"
check "new home: no sb_exec/lua/ copied" test ! -e "$N/sb_exec/lua"
OUT=$(BMK_HOME=$N "$BMK" kit explain OLTP_RO_10K_1tab-uniform-notrx 1 1 2>&1)
assert_contains "new home: runs the shipped kit Lua" "$OUT" " $(dirname "$BMK")/BMK/sb_exec/lua/kit_oltp.lua "
echo "port=3399" >> "$N/.bench"
kit generate --home="$N" --sizes=10K --tables=1 --dists=uniform
assert_not_contains "existing .bench: not rewritten (message)" "$OUT" "wrote $N/.bench"
assert_eq "existing .bench: not rewritten (content)" "port=3399" "$(tail -1 "$N/.bench")"

kit generate --home="$WORK/small" --sizes=10K --tables=1 --dists=uniform --clean
# OLTP 1 prepare + 18 variants x 2 ps x 2 socket; dbSTRESS 2 + 24 (-uniform); TPCC 24;
# TPCH 3 x (prepare, power, throughput, full)
assert_contains "K catalogue size" "$OUT" "generated 135 scripts"
kit explain Prepare_10K_1tab-InnoDB 4
assert_contains "K size: 10K rows" "$OUT" "--table-size=10000 --tables=1"
kit explain dbSTRESS_2x10K-RO-notrx 1 1
assert_contains "K size: dbSTRESS" "$OUT" "--obj-table-size=10000 --obj-tables=2"
kit generate --home="$WORK/small" --clean OLTP_RO_10K_1tab-uniform-notrx
assert_eq "generate NAME --clean leaves one script" 1 "$(ls "$WORK/small/sb_exec" | grep -c '\.sh$')"
assert_eq "CATALOGUE rewritten" "sb11-OLTP_RO_10K_1tab-uniform-notrx.sh" "$(cat "$WORK/small/sb_exec/CATALOGUE")"
OUT=$(BMK_HOME=$WORK/small "$BMK" kit list 2>&1)
assert_eq "list reads CATALOGUE" "sb11-OLTP_RO_10K_1tab-uniform-notrx.sh" "$OUT"
OUT=$(BMK_HOME=$H "$BMK" kit list 'sb11-dbSTRESS_10M-RO-*' 2>&1)
assert_eq "list PATTERN" "sb11-dbSTRESS_10M-RO-notrx.sh sb11-dbSTRESS_10M-RO-trx.sh sb11-dbSTRESS_10M-RO-SEL1-notrx.sh sb11-dbSTRESS_10M-RO-SEL2-notrx.sh" "$(echo $OUT)"

# ---- passwords ----------------------------------------------------------------
P=$WORK/pw
mkdir -p "$P"
printf 'pass=Sekret1\nsb11=%s\n' "$BMK" > "$P/.bench"
OUT=$(BMK_HOME=$P "$BMK" kit explain OLTP_RO_10M_8tab-uniform-notrx 1 1 --mysql-password=Other2 2>&1)
assert_match "password shown as ***" "$OUT" "^MYSQL_PWD=\*\*\* "
assert_not_contains "no .bench password in explain" "$OUT" "Sekret1"
assert_not_contains "no --mysql-password in explain" "$OUT" "Other2"
assert_not_contains "no password option in explain" "$OUT" "password"
OUT=$(BMK_HOME=$H BMK_PASS=Envpw "$BMK" kit explain OLTP_RO_10M_8tab-uniform-notrx 1 1 2>&1)
assert_match "BMK_PASS used, hidden" "$OUT" "^MYSQL_PWD=\*\*\* .*"
printf 'driver=pgsql\npg_pass=PgSecret\npg_port=6543\nsb11=%s\n' "$BMK" > "$P/.bench"
OUT=$(BMK_HOME=$P "$BMK" kit explain Prepare_10M_8tab-InnoDB-socket 2>&1; echo "rc=$?")
assert_match "pgsql: PGPASSWORD=***" "$OUT" "^PGPASSWORD=\*\*\* .*--db-driver=pgsql --pgsql-host=/var/run/postgresql --pgsql-port=6543 --pgsql-user=sbtest --pgsql-db=sbtest --pgsql-sslmode=prefer"
assert_not_contains "pgsql: no password" "$OUT" "PgSecret"
assert_not_contains "pgsql: engine not passed" "$OUT" "storage-engine"

# ---- sb11_MAX split (explain) ---------------------------------------------------
kit explain OLTP_RW_10M_8tab-uniform-trx 32768 300
assert_eq "32768 users: 2 processes" 2 "$(printf '%s\n' "$OUT" | grep -c ' run$')"
assert_match "p1: 20000 threads offset 0, results part 1" "$OUT" "--threads=20000 .*--thread-offset=0 --threads-total=32768 --sync-file=/tmp/bmk-sync\.[0-9]+ --results=/tmp/bmk-OLTP_RW_10M_8tab-uniform-trx\.[0-9]+\.p1\.json run$"
assert_match "p2: 12768 threads offset 20000, results part 2" "$OUT" "--threads=12768 .*--thread-offset=20000 --threads-total=32768 --sync-file=/tmp/bmk-sync\.[0-9]+ --results=/tmp/bmk-OLTP_RW_10M_8tab-uniform-trx\.[0-9]+\.p2\.json run$"
kit explain OLTP_RW_10M_8tab-uniform-trx 65536 300
assert_eq "65536 users: 20000x3 + 5536" "20000 20000 20000 5536" \
  "$(printf '%s\n' "$OUT" | sed -n 's/.*--threads=\([0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')"
kit explain OLTP_RW_10M_8tab-uniform-trx 20000 300
assert_not_contains "20000 users: one process, no sync file" "$OUT" "--sync-file"
# --metrics-listen in a split: a port per process
kit explain OLTP_RW_10M_8tab-uniform-trx 32768 300 --metrics-listen=127.0.0.1:9464
assert_eq "split --metrics-listen: ports 9464 and 9465, one per process" "9464 9465" \
  "$(printf '%s\n' "$OUT" | grep ' run$' | sed -n 's/.*--metrics-listen=127\.0\.0\.1:\([0-9]*\) .*/\1/p' | tr '\n' ' ' | sed 's/ $//')"
assert_eq "split --metrics-listen: the user's option is not passed as well" 2 \
  "$(printf '%s\n' "$OUT" | grep -o -- '--metrics-listen=' | wc -l)"

# TPCC names run `bmk tpcc` (tests/integration/test_tpcc_kit.sh runs them);
# explain shows the tpcc options a name sets and passes extra ones on.
kit explain TPCC_2x3W-NULL 4 5 --tpcc-mode=sp
assert_match "TPCC explain: tpcc options" "$OUT" "tpcc .*--tables=2 --scale=3 --force-null=1 --threads=4 --time=5 --events=0 .*--tpcc-mode=sp run$"

# ---- runs on the servers ---------------------------------------------------------
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  K=$WORK/kit-$db
  mkdir -p "$K/tmp"
  if [ "$db" = mysql ]; then
    printf 'driver=mysql\nhost=127.0.0.1\nport=%s\nuser=sbtest\npass=%s\ndb=sbtest\n' "$MYSQL_PORT" "$DBPASS" > "$K/.bench"
    printf 'mysql=%s\n' "$(command -v mariadb || command -v mysql)" >> "$K/.bench"
    rows() { mysql_q "SELECT COUNT(*) FROM kitprobe1" 2>/dev/null; }
  else
    printf 'driver=pgsql\npg_host=127.0.0.1\npg_port=%s\npg_user=sbtest\npg_pass=%s\npg_db=sbtest\n' "$PGSQL_PORT" "$DBPASS" > "$K/.bench"
    rows() { pgsql_q "SELECT COUNT(*) FROM kitprobe1" 2>/dev/null; }
  fi
  printf 'sb11=%s\nTMP_DIR=%s\nsb11_MAX=4\n' "$BMK" "$K/tmp" >> "$K/.bench"
  export BMK_HOME=$K BMK_KIT_WORKLOAD=$PROBE
  "$BMK" kit cleanup Prepare_10K_1tab-InnoDB >/dev/null 2>&1

  # prepare = create then prepare; create refuses an existing table
  kit Prepare_10K_1tab-InnoDB 3
  assert_eq "$db: prepare exit 0" 0 "$RC"
  assert_eq "$db: prepare loaded by 3 connections" 3 "$(rows)"
  kit Prepare_10K_1tab-InnoDB 3
  assert_eq "$db: second prepare exit 1" 1 "$RC"
  assert_contains "$db: table exists message" "$OUT" "bmk kit: table kitprobe1 already exists; run 'bmk kit cleanup Prepare_10K_1tab-InnoDB' first"
  assert_eq "$db: rows untouched" 3 "$(rows)"
  kit cleanup sb11-Prepare_10K_1tab-InnoDB.sh
  assert_eq "$db: cleanup exit 0" 0 "$RC"
  assert_eq "$db: table dropped" "" "$(rows)"

  # sb11_MAX=4, 6 users: 4 + 2 threads released together
  kit OLTP_RO_10K_1tab-uniform-p_sel1-trx 6 2
  assert_eq "$db: split run exit 0" 0 "$RC"
  assert_eq "$db: sync announced twice" 2 "$(printf '%s\n' "$OUT" | grep -c "^=> SYNC-file : synchronization via $K/tmp/bmk-sync\.[0-9]*$")"
  assert_eq "$db: started twice" 2 "$(printf '%s\n' "$OUT" | grep -c '^=> SYNC-file : started !$')"
  assert_contains "$db: header of process 2" "$OUT" "==> process 2/2: 2 threads (offset 4) <=="
  assert_eq "$db: global thread ids 0..5 of 6" "0 1 2 3 4 5" \
    "$(printf '%s\n' "$OUT" | sed -n 's/^probe: g=\([0-9]*\) total=6 .*/\1/p' | sort -n | tr '\n' ' ' | sed 's/ $//')"
  # the barrier releases the processes together: every thread starts after
  # every thread of both processes is ready (order and counts, no clock
  # bound; bench/kit_sync_spread.sh prints how close the starts are)
  assert_eq "$db: six threads ready" 6 "$(printf '%s\n' "$OUT" | grep -c '^probe: g=[0-5] ready=')"
  assert_eq "$db: six threads started" 6 "$(printf '%s\n' "$OUT" | grep -c '^probe: g=[0-5] total=6 start=')"
  last_ready=$(printf '%s\n' "$OUT" | sed -n 's/^probe: g=[0-9]* ready=//p' | sort -n | tail -1)
  first_start=$(printf '%s\n' "$OUT" | sed -n 's/^probe: .* start=//p' | sort -n | head -1)
  check "$db: no thread starts before all are ready" awk -v r="$last_ready" -v s="$first_start" 'BEGIN{exit !(s >= r)}'
  assert_match "$db: combined line" "$OUT" "^=> Combined \(2 processes, 6 threads\): tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/0\.00/0\.00\) err/s: 0\.00 reconn/s: 0\.00 avg lat \(ms\): [0-9.]+ 95th pct \(ms\): [0-9.]+$"
  # merged from the processes' result files: all events over the run's
  # time (the report prints the time to 4 decimals: 0.05 % tolerance)
  t1=$(printf '%s\n' "$OUT" | awk '/^ *total number of events:/{e+=$5} /^ *time elapsed:/{if ($3+0 > t) t=$3+0} END{printf "%.2f", e/t}')
  c_tps=$(printf '%s\n' "$OUT" | sed -n 's/^=> Combined .* tps: \([0-9.]*\) qps: .*/\1/p')
  assert_near "$db: combined tps = all events / time" "$t1" "$c_tps" "$(awk -v t="$t1" 'BEGIN{print t*0.0005}')"
  assert_match "$db: trx name: qps excluding BEGIN/COMMIT" "$OUT" "^=> kit: qps excluding BEGIN/COMMIT: -?[0-9.]+$"
  assert_eq "$db: sync file, markers and logs removed" "" "$(ls "$K/tmp")"

  # bmk series over a kit name: the <users> argument replaced; the 6-user
  # step is split (4 + 2) and its file is the processes' merge
  OUT=$(timeout -k 5 120 "$BMK" series --users=2,6 --results-dir="$WORK/kser-$db" --id=kser -- \
    OLTP_RO_10K_1tab-uniform-p_sel1-trx 1 1 2>&1); RC=$?
  assert_eq "$db: series of a kit name: exit 0" 0 "$RC"
  assert_contains "$db: series step 2 runs the kit with 6 users" "$OUT" \
    "=> series kser: step 2/2, 6 users: $BMK kit OLTP_RO_10K_1tab-uniform-p_sel1-trx 6 1 --series-id=kser --results=$WORK/kser-$db/02-u6.json"
  assert_eq "$db: series of a kit name: the split step's file merges 2 processes of 6 threads" "2 6 kser" \
    "$(json_get "$WORK/kser-$db/02-u6.json" "len(d['manifest']['merged_from']), d['summary']['threads'], d['manifest']['series_id']" | tr -d "(),'")"
  assert_match "$db: series table rows 2 and 6" "$(printf '%s\n' "$OUT" | awk '/^Series table/{t=1} t && $1 ~ /^[0-9]+$/ {printf "%s ", $1}')" '^2 6 $'
  assert_eq "$db: series: part files removed" "" "$(ls "$K/tmp")"
  # ... and over a generated script
  "$BMK" kit generate --home="$K" OLTP_RO_10K_1tab-uniform-p_sel1-trx >/dev/null
  OUT=$(timeout -k 5 120 "$BMK" series --users=3 --results-dir="$WORK/sser-$db" --id=sser -- \
    "$K/sb_exec/sb11-OLTP_RO_10K_1tab-uniform-p_sel1-trx.sh" 1 1 2>&1); RC=$?
  assert_eq "$db: series of a kit script: exit 0" 0 "$RC"
  assert_eq "$db: series of a kit script: 3 users" "3 sser" \
    "$(json_get "$WORK/sser-$db/01-u3.json" "d['summary']['threads'], d['manifest']['series_id']" | tr -d "(),'")"

  # a process that dies before it is ready stops the others: exit 1
  kit OLTP_RO_10K_1tab-uniform-p_sel1-notrx 6 30 --probe-fail-offset=4
  assert_eq "$db: early death: exit 1" 1 "$RC"
  assert_contains "$db: early death message" "$OUT" "bmk kit: process 2/2 exited (status 1) before it was ready; stopping the others"
  # process 1 is stopped wherever it is: in its wait or its init (it says
  # so), or, on a slow machine, before it printed anything at all
  p1=$(printf '%s\n' "$OUT" | sed -n '/^bmk kit: process 2\/2 exited/q;p')
  check "$db: process 1 stopped (in its wait, its init, or before its header)" \
    bash -c '[ -z "$1" ] || printf "%s\n" "$2" | grep -Eq "^(=> SYNC-file : aborted|FATAL: interrupted by SIGTERM)$"' _ "$p1" "$OUT"
  assert_not_contains "$db: process 1 never started its run" "$OUT" "Threads started!"
  assert_not_contains "$db: nobody started" "$OUT" "Threads started!"
  assert_eq "$db: early death: sync file and markers removed" "" "$(ls "$K/tmp")"

  # SIGTERM to the launcher alone (split run): forwarded to the processes,
  # the logs still printed, no process, sync file or log left behind
  "$BMK" kit OLTP_RO_10K_1tab-uniform-p_sel1-notrx 6 30 > "$WORK/sig.out" 2>&1 &
  pid=$!
  for _ in $(seq 3000); do grep -q '^=> SYNC-file : started !$' "$WORK/sig.out" && break; sleep 0.1; done
  sleep 0.5
  kill -TERM $pid
  wait $pid; RC=$?
  OUT=$(cat "$WORK/sig.out")
  check "$db: SIGTERM: non-zero exit ($RC)" test "$RC" -ne 0
  assert_contains "$db: SIGTERM: log of process 2 printed" "$OUT" "==> process 2/2: 2 threads (offset 4) <=="
  assert_eq "$db: SIGTERM: no process left" "" "$(pgrep -f "bmk-sync\.$pid" || true)"
  assert_eq "$db: SIGTERM: sync file, markers and logs removed" "" "$(ls "$K/tmp")"

  # --sync-file from the user with one process: waits until the file goes
  rm -f "$WORK/start"*
  "$BMK" kit OLTP_RO_10K_1tab-uniform-p_sel1-notrx 2 1 --sync-file="$WORK/start" > "$WORK/sync.out" 2>&1 &
  pid=$!
  for _ in $(seq 3000); do ls "$WORK"/start.ready.* >/dev/null 2>&1 && break; sleep 0.1; done
  check "$db: user sync file created" test -e "$WORK/start"
  check "$db: one ready marker" test "$(ls "$WORK"/start.ready.* 2>/dev/null | wc -l)" -eq 1
  mpid=$(ls "$WORK"/start.ready.* | sed 's/.*\.ready\.//')
  assert_contains "$db: marker content" "$(cat "$WORK/start.ready.$mpid")" " $mpid 2"
  cmdline=$(tr '\0' ' ' < "/proc/$mpid/cmdline")
  assert_not_contains "$db: no password option in argv" "$cmdline" "password"
  assert_contains "$db: password in the environment" "$(tr '\0' '\n' < "/proc/$mpid/environ")" \
    "$( [ $db = mysql ] && echo MYSQL_PWD || echo PGPASSWORD)=$DBPASS"
  assert_not_contains "$db: not started before release" "$(cat "$WORK/sync.out")" "Threads started!"
  rm -f "$WORK/start"
  wait $pid; RC=$?
  OUT=$(cat "$WORK/sync.out")
  assert_eq "$db: user sync run exit 0" 0 "$RC"
  assert_match "$db: ready then started" "$(printf '%s\n' "$OUT" | grep '^=> SYNC-file' | tr '\n' '|')" \
    "^=> SYNC-file : synchronization via $WORK/start\|=> SYNC-file : ready to start\.\.\|=> SYNC-file : started !\|$"
  assert_not_contains "$db: notrx: no qps-excluding line" "$OUT" "=> kit: qps excluding"
  assert_not_contains "$db: single process: no combined line" "$OUT" "=> Combined"

  # bmk kit sql: the .bench client, password through the environment
  if [ "$db" = mysql ]; then OUT=$(echo "SELECT 6*7" | "$BMK" kit sql -N 2>&1)
  else OUT=$("$BMK" kit sql -Atc "SELECT 6*7" 2>&1); fi
  assert_eq "$db: bmk kit sql" 42 "$OUT"

  # a generated script (sources .bench itself)
  "$BMK" kit generate --home="$K" OLTP_RO_10K_1tab-uniform-p_sel1-notrx >/dev/null
  unset BMK_HOME
  OUT=$(BMK_KIT_WORKLOAD=$PROBE bash "$K/sb_exec/sb11-OLTP_RO_10K_1tab-uniform-p_sel1-notrx.sh" 3 1 --report-interval=1 2>&1); RC=$?
  assert_eq "$db: script run exit 0" 0 "$RC"
  assert_eq "$db: script run threads" 3 "$(printf '%s\n' "$OUT" | grep -c '^probe: g=[0-2] total=')"
  assert_match "$db: interval line" "$OUT" "^\[ 1s \] thds: [0-9]+ tps: "
  check "$db: script run events > 0" test "$(report_value "transactions:" "$OUT")" -gt 0
  unset BMK_KIT_WORKLOAD
done

finish
