#!/usr/bin/env bash
# The kit's dbSTRESS workload (BMK/sb_exec/lua/kit_dbstress.lua,
# docs/kit-dbstress.md) on MariaDB and PostgreSQL: create + parallel prepare
# (row counts, byte-exact rows, indexes, refusal to overwrite), exact
# per-event r/w/o of the standard scenarios with --events and one thread,
# HISTORY size kept by DELETE+INSERT, multi-set data, warmup, cleanup.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

K="$TOP/BMK/sb_exec/lua/kit_dbstress.lua"
S=2000

q() {  # q DB SQL
  if [ "$1" = mysql ]; then mysql_q "$2"; else pgsql_q "$2"; fi
}
opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }
dbs_tables() {  # number of dbSTRESS tables (any set; on MySQL by exact case: TPC-C's history1 is not HISTORY1)
  if [ "$1" = mysql ]; then
    mysql_q "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='sbtest' AND BINARY table_name REGEXP '^(ZONE|STAT|SECTION|OBJECT|HISTORY)[0-9]+\$'"
  else
    pgsql_q "SELECT COUNT(*) FROM pg_tables WHERE schemaname='public' AND tablename ~ '^(zone|stat|section|object|history)[0-9]+\$'"
  fi
}
unique_idx() {  # DB table index -> 1 unique, 0 not unique, empty if missing
  if [ "$1" = mysql ]; then
    mysql_q "SELECT 1 - MAX(non_unique) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='$2' AND index_name='$3'"
  else
    pgsql_q "SELECT CASE WHEN indexdef LIKE 'CREATE UNIQUE%' THEN 1 ELSE 0 END FROM pg_indexes WHERE tablename=lower('$2') AND indexname='$3'"
  fi
}
# mix: "reads/writes/other/events/errors" from the report
mix() {
  echo "$(report_value "read:" "$OUT")/$(report_value "write:" "$OUT")/$(report_value "other:" "$OUT")/$(report_value "transactions:" "$OUT")/$(report_value "ignored errors:" "$OUT")"
}
xs() { printf 'X%.0s' $(seq 1 "$1"); }
date_of() { printf '%02d/%02d/19%02d' $(($1 % 28 + 1)) $(($1 % 12 + 1)) $(($1 % 100)); }

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O="$(opts $db) --rand-type=uniform --db-ps-mode=auto"
  "$BMK" "$K" $O --obj-tables=2 cleanup >/dev/null 2>&1

  # ---- missing data set: clear FATAL, exit 1 -------------------------------------
  run_bmk "$K" $O --obj-table-size=$S --events=1 run
  assert_eq "$db run without tables exit 1" 1 "$RC"
  assert_contains "$db run without tables: what to do" "$OUT" "; create and load the data set first"
  assert_not_contains "$db run without tables: no Lua position" "$OUT" "kit_dbstress_run.lua:"
  run_bmk "$K" $O --obj-table-size=$S --threads=2 prepare
  assert_eq "$db prepare without tables exit 1" 1 "$RC"
  assert_contains "$db prepare without tables message" "$OUT" "FATAL: table OBJECT1 does not exist; run 'create' first"
  run_bmk "$K" $O --obj-table-size=$S prewarm
  assert_eq "$db prewarm without tables exit 1" 1 "$RC"
  assert_contains "$db prewarm without tables: what to do" "$OUT" "; create and load the data set first"
  assert_not_contains "$db prewarm without tables: no Lua position" "$OUT" "kit_dbstress_load.lua:"

  # ---- create + prepare: one set of S objects, 3 loaders -----------------------
  run_bmk "$K" $O --obj-table-size=$S create
  assert_eq "$db create exit 0" 0 "$RC"
  assert_contains "$db create message" "$OUT" "* Creating OBJECT set #1... [engine: "
  assert_contains "$db create index message" "$OUT" "* Creating indexes in set #1 [hpk:false]..."
  assert_contains "$db create populate message" "$OUT" "* Populating reference tables in set #1..."
  assert_contains "$db create done message" "$OUT" "* Done. Ready for 'prepare' step..."
  assert_eq "$db create: OBJECT empty" 0 "$(q $db 'SELECT COUNT(*) FROM OBJECT1')"
  run_bmk "$K" $O --obj-table-size=$S --threads=3 prepare
  assert_eq "$db prepare exit 0" 0 "$RC"
  assert_contains "$db prepare progress" "$OUT" "Loading DATA OBJECT#1 => 0.002M | range [0K,+100K]..."
  assert_match "$db prepare timing" "$OUT" '^=> TOTAL OBJECTs/HISTORY LOAD TIME @thread-02 : [0-9]+\.[0-9]{2} min\.$'
  assert_eq "$db ZONE rows" 10 "$(q $db 'SELECT COUNT(*) FROM ZONE1')"
  assert_eq "$db SECTION rows" 100 "$(q $db 'SELECT COUNT(*) FROM SECTION1')"
  assert_eq "$db STAT rows" 1000 "$(q $db 'SELECT COUNT(*) FROM STAT1')"
  assert_eq "$db OBJECT rows" $S "$(q $db 'SELECT COUNT(*) FROM OBJECT1')"
  assert_eq "$db OBJECT refs distinct" $S "$(q $db 'SELECT COUNT(DISTINCT REF) FROM OBJECT1')"
  assert_eq "$db HISTORY rows" $((20 * S)) "$(q $db 'SELECT COUNT(*) FROM HISTORY1')"

  # ---- byte-exact rows (trailing CHAR padding dropped by both servers' text casts)
  assert_eq "$db ZONE row" "07|Zone 07 $(xs 30)" \
    "$(q $db "SELECT CONCAT(RTRIM(REF),'|',RTRIM(NAME)) FROM ZONE1 WHERE REF='07'")"
  assert_eq "$db SECTION row" "42|02|Section 42 $(xs 27)" \
    "$(q $db "SELECT CONCAT(RTRIM(REF),'|',RTRIM(REF_ZONE),'|',RTRIM(NAME)) FROM SECTION1 WHERE REF='42'")"
  assert_eq "$db STAT row" "999|Status 999 $(xs 29)|0" \
    "$(q $db "SELECT CONCAT(RTRIM(REF),'|',RTRIM(NAME),'|',NUMB) FROM STAT1 WHERE REF='999'")"
  i=1234; r=$(printf '%010d' $i)
  assert_eq "$db OBJECT row" "$r|34|$r NAME $(xs 12)|$(date_of $i)|$r NOTES $(xs 75)" \
    "$(q $db "SELECT CONCAT(RTRIM(REF),'|',RTRIM(REF_SECTION),'|',RTRIM(NAME),'|',RTRIM(CREATE_DATE),'|',RTRIM(NOTE)) FROM OBJECT1 WHERE REF='$r'")"
  j=7
  assert_eq "$db HISTORY row" "$r|7|$(printf '%03d' $(((i + 10 * j) % 1000)))|$(date_of $((i + j)))|$(date_of $((i + j)))|${r}_07 HISTORY NOTES $(xs 72)" \
    "$(q $db "SELECT CONCAT(RTRIM(REF_OBJECT),'|',HORDER,'|',RTRIM(REF_STAT),'|',RTRIM(BEGIN_DATE),'|',RTRIM(END_DATE),'|',RTRIM(NOTE)) FROM HISTORY1 WHERE REF_OBJECT='$r' AND HORDER=7")"
  assert_eq "$db first/last objects" "0000000000 000000$((S - 1))" \
    "$(q $db 'SELECT MIN(REF), MAX(REF) FROM OBJECT1' | tr '\t|' '  ')"
  assert_eq "$db HISTORY horder 0..19 per object" "0 19 20" \
    "$(q $db "SELECT MIN(HORDER), MAX(HORDER), COUNT(*) FROM HISTORY1 WHERE REF_OBJECT='0000001999'" | tr '\t|' '  ')"

  # ---- indexes ---------------------------------------------------------------------
  sfx=""; [ $db = pgsql ] && sfx=1
  assert_eq "$db object_ref_idx unique" 1 "$(unique_idx $db OBJECT1 object_ref_idx$sfx)"
  assert_eq "$db zone_ref_idx unique" 1 "$(unique_idx $db ZONE1 zone_ref_idx$sfx)"
  assert_eq "$db history_ref_idx not unique without --hpk" 0 "$(unique_idx $db HISTORY1 history_ref_idx$sfx)"

  # ---- create refuses to overwrite ---------------------------------------------------
  run_bmk "$K" $O --obj-table-size=$S create
  assert_eq "$db create on existing tables exits 1" 1 "$RC"
  assert_match "$db create refusal message" "$OUT" '^FATAL: table [A-Z]+1 already exists'
  assert_eq "$db refusal leaves data" $S "$(q $db 'SELECT COUNT(*) FROM OBJECT1')"

  # ---- standard scenarios: exact r/w/o per event (1 thread, 100 events) ------------
  R="$K $O --obj-table-size=$S --events=100"
  run_bmk $R --statements=SEL1,SEL2 --skip-trx=on run
  assert_eq "$db RO-notrx 2/0/0" "200/0/0/100/0" "$(mix)"
  assert_contains "$db startup OBJ SIZE" "$OUT" "* OBJ SIZE     : [0.002M]"
  assert_contains "$db startup SEL2" "$OUT" "* SEL2         : [1]"
  assert_contains "$db startup INSDEL off in RO" "$OUT" "* INSDEL       : [0]"
  run_bmk $R --statements=SEL1,SEL2 --skip-trx=off run
  assert_eq "$db RO-trx 2/0/2" "200/0/200/100/0" "$(mix)"
  run_bmk $R --statements=SEL1 --skip-trx=on run
  assert_eq "$db RO-SEL1-notrx 1/0/0" "100/0/0/100/0" "$(mix)"
  run_bmk $R --statements=SEL2 --skip-trx=on --for-update=on run
  assert_eq "$db RO-SEL2 FOR UPDATE 1/0/0" "100/0/0/100/0" "$(mix)"
  run_bmk $R --statements=SEL1,SEL2,INSDEL,UPDATE --rw-ratio=1 --skip-trx=off run
  assert_eq "$db RW1-trx 2/3/2" "200/300/200/100/0" "$(mix)"
  assert_contains "$db startup RW-ratio" "$OUT" "* RW-ratio     : [1]"
  run_bmk $R --statements=SEL1,SEL2,UPDATE --delete-inserts=0 --rw-ratio=10 --skip-trx=off run
  assert_eq "$db RW10-UPD-trx: 10 UPDATEs in 100 events" "200/10/200/100/0" "$(mix)"
  run_bmk $R --statements=SEL1,SEL2,INSDEL,UPDATE --rw-ratio=1 --skip-trx=off --anti-dead=off run
  assert_eq "$db RW1-xDEAD-trx 2/3/2" "200/300/200/100/0" "$(mix)"
  run_bmk $R --statements=SEL1,SEL2,INSDEL,UPDATE --rw-ratio=1 --skip-trx=on --same-ref=off run
  assert_eq "$db RW1-xREF-notrx 2/3/0" "200/300/0/100/0" "$(mix)"
  assert_eq "$db HISTORY size kept by DELETE+INSERT" $((20 * S)) "$(q $db 'SELECT COUNT(*) FROM HISTORY1')"
  changed=$(q $db "SELECT COUNT(*) FROM HISTORY1 WHERE NOTE LIKE '% NOTE State % FOR REF#%'")
  check "$db run rewrote HISTORY rows ($changed)" test "$changed" -gt 100
  assert_eq "$db OBJECT untouched by runs" $S "$(q $db 'SELECT COUNT(*) FROM OBJECT1')"

  # anti-dead: 4 threads in their own slices never collide
  run_bmk $R --threads=4 --events=400 --statements=SEL1,SEL2,INSDEL,UPDATE run
  assert_eq "$db RW1 4 threads anti-dead: no ignored errors" "800/1200/800/400/0" "$(mix)"
  run_bmk $R --threads-total=200 --thread-offset=7 --events=10 --statements=SEL1 run
  assert_contains "$db anti-dead fallback message" "$OUT" "=> anti_dead: disabled (obj-table-size/threads < 11)"
  assert_eq "$db anti-dead fallback run" "10/0/20/10/0" "$(mix)"
  run_bmk $R --statements=SEL1,SEL9 run
  assert_eq "$db bad --statements exits 1" 1 "$RC"
  assert_contains "$db bad --statements message" "$OUT" "invalid --statements item 'SEL9'"

  # session options run on the connection (a failing one is fatal)
  if [ $db = mysql ]; then
    run_bmk $R --events=1 --mysql-session-options="SET SESSION sql_mode='ANSI';SELECT bmk_no_such_fn()" run
  else
    run_bmk $R --events=1 --pgsql-session-options="SET search_path=public;SELECT bmk_no_such_fn()" run
  fi
  assert_eq "$db failing session option exits 1" 1 "$RC"
  assert_contains "$db failing session option reaches the server" "$OUT" "bmk_no_such_fn"
  if [ $db = mysql ]; then
    OUT=$(MYSQL_SESSION_OPTIONS="SET SESSION sql_mode='ANSI'" "$BMK" $R --events=1 run 2>&1)
    assert_contains "$db session options from the environment" "$OUT" "* SESSION-ops  : [SET SESSION sql_mode='ANSI']"
  else
    run_bmk $R --events=1 --mysql-storage-engine=InnoDB --mysql-table-options="ROW_FORMAT=COMPRESSED" run
    assert_contains "$db MySQL-only option notice" "$OUT" "=> --mysql-storage-engine ignored on PostgreSQL"
    assert_eq "$db MySQL-only notice printed once" 1 "$(printf '%s\n' "$OUT" | grep -c 'mysql-table-options ignored')"
  fi

  # ignorable lock errors restart the event; an open MySQL transaction is
  # rolled back first (another session holds every HISTORY row for 3 s)
  if [ $db = mysql ]; then
    rb0=$(mysql_q "SHOW GLOBAL STATUS LIKE 'Com_rollback'" | cut -f2)
    (mysql_q "BEGIN; SELECT COUNT(*) FROM HISTORY1 WHERE HORDER=5 FOR UPDATE; SELECT SLEEP(3); COMMIT" >/dev/null) &
    sleep 0.5
    run_bmk $R --events=0 --time=2 --mysql-session-options="SET SESSION innodb_lock_wait_timeout=1" run
  else
    (pgsql_q "BEGIN; SELECT COUNT(*) FROM (SELECT 1 FROM HISTORY1 FOR UPDATE) x; SELECT pg_sleep(3); COMMIT" >/dev/null) &
    sleep 0.5
    run_bmk $R --events=0 --time=2 --pgsql-session-options="SET lock_timeout='400ms'" --pgsql-ignore-errors=55P03 run
  fi
  wait
  errs=$(report_value "ignored errors:" "$OUT")
  assert_eq "$db lock errors: run exit 0" 0 "$RC"
  check "$db lock errors are ignored and restart the event ($errs)" test "${errs:-0}" -gt 0
  if [ $db = mysql ]; then
    rb1=$(mysql_q "SHOW GLOBAL STATUS LIKE 'Com_rollback'" | cut -f2)
    check "$db ROLLBACK before each restart ($((rb1 - rb0)) >= $errs)" test $((rb1 - rb0)) -ge "$errs"
  fi
  assert_eq "$db HISTORY size after restarts" $((20 * S)) "$(q $db 'SELECT COUNT(*) FROM HISTORY1')"

  # compat module: a BMK-kit style wrapper on dbSTRESS-common
  cat >"$WORK/dbs_wrapper.lua" <<'EOS'
require("dbSTRESS-common")
function event()
  ops = ops + 1
  begin()
  execute_SEL1()
  execute_SEL2(2)
  if ops % 2 == 0 then execute_INSDEL() end
  commit()
end
EOS
  WR="$WORK/dbs_wrapper.lua $O --obj-table-size=$S --events=10"
  OUT=$(LUA_PATH="$TOP/BMK/sb_exec/lua/?.lua;;" timeout 60 "$BMK" $WR run 2>&1)
  assert_eq "$db dbSTRESS-common wrapper mix" "30/10/20/10/0" "$(mix)"
  OUT=$(LUA_PATH="$TOP/BMK/sb_exec/lua/?.lua;;" timeout 60 "$BMK" $WR --statements=SEL1,SEL2 run 2>&1); RC=$?
  assert_eq "$db wrapper: unprepared class exit 1" 1 "$RC"
  assert_contains "$db wrapper: unprepared class message" "$OUT" "statement class INSDEL is not prepared"
  OUT=$(SYSBENCH_FINAL_REPORT_CSV=1 "$BMK" $R --events=5 run 2>&1)
  assert_contains "$db final CSV header (mysql_common switch)" "$OUT" "time,thds,tps,qps,r,w,o,lat95,err/s,reconn/s"
  assert_match "$db final CSV line" "$OUT" '^[0-9]+,0,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,0\.00,0\.00$'

  # warmup / prewarm
  run_bmk "$K" $O --obj-table-size=$S --threads=2 prewarm
  assert_eq "$db prewarm exit 0" 0 "$RC"
  assert_contains "$db prewarm message" "$OUT" "Preloading table: HISTORY1"

  # ---- cleanup ------------------------------------------------------------------------
  run_bmk "$K" $O cleanup
  assert_contains "$db cleanup message" "$OUT" "Dropping OBJECT set #1 ..."
  assert_eq "$db cleanup drops the tables" 0 "$(dbs_tables $db)"

  # ---- two sets, --hpk, 4 loaders over 2 sets (2 chunks each), ordered load ---------
  M2="$K $O --obj-tables=2 --obj-table-size=1000 --hpk=on"
  run_bmk $M2 create
  assert_contains "$db --hpk create message" "$OUT" "* Creating indexes in set #2 [hpk:true]..."
  run_bmk $M2 --threads=4 --ordered-load=on prepare
  assert_eq "$db 2 sets prepare exit 0" 0 "$RC"
  assert_contains "$db ordered load mode" "$OUT" "=> OBJECT LOAD MODE : [parallel_ordered]"
  assert_eq "$db set 1 OBJECT" 1000 "$(q $db 'SELECT COUNT(DISTINCT REF) FROM OBJECT1')"
  assert_eq "$db set 2 OBJECT" 1000 "$(q $db 'SELECT COUNT(DISTINCT REF) FROM OBJECT2')"
  assert_eq "$db set 2 HISTORY" 20000 "$(q $db 'SELECT COUNT(*) FROM HISTORY2')"
  assert_eq "$db set 2 STAT" 1000 "$(q $db 'SELECT COUNT(*) FROM STAT2')"
  sfx=""; [ $db = pgsql ] && sfx=2
  assert_eq "$db --hpk: history_ref_idx unique" 1 "$(unique_idx $db HISTORY2 history_ref_idx$sfx)"
  run_bmk $M2 --events=200 --rand-seed=7 --statements=SEL1,SEL2,INSDEL,UPDATE run
  assert_eq "$db 2 sets RW1-trx 2/3/2" "400/600/400/200/0" "$(mix)"
  assert_contains "$db startup OBJ SETS" "$OUT" "* OBJ SETS     : [2]"
  w1=$(q $db "SELECT COUNT(*) FROM HISTORY1 WHERE NOTE LIKE '% NOTE State %'")
  w2=$(q $db "SELECT COUNT(*) FROM HISTORY2 WHERE NOTE LIKE '% NOTE State %'")
  check "$db writes reach both sets ($w1, $w2)" test "$w1" -gt 0 -a "$w2" -gt 0
  assert_eq "$db 2 sets HISTORY size kept" "20000 20000" \
    "$(q $db 'SELECT COUNT(*) FROM HISTORY1') $(q $db 'SELECT COUNT(*) FROM HISTORY2')"
  run_bmk $M2 cleanup
  assert_contains "$db cleanup set 2 message" "$OUT" "Dropping OBJECT set #2 ..."
  assert_eq "$db cleanup drops both sets" 0 "$(dbs_tables $db)"
done

finish
