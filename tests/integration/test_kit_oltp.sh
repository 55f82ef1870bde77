#!/usr/bin/env bash
# The kit OLTP workload BMK/sb_exec/lua/kit_oltp.lua on MariaDB and
# PostgreSQL (docs/kit-oltp.md): create/prepare (schema, rows, ids,
# load modes, refusal of existing tables), exact per-event query mix of the
# kit's statement sets, the reconnect workload, and the SQL that options
# produce as seen by the server (MariaDB general log, PostgreSQL
# log_statement in the sandbox's server.log).
set -u
source "$(dirname "$0")/lib/lib.sh"
KIT="$TOP/BMK/sb_exec/lua/kit_oltp.lua"
cd "$WORK"

q() { if [ "$1" = mysql ]; then mysql_q "$2"; else pgsql_q "$2"; fi; }
opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }
# mix: "reads/writes/other/events/errors/reconnects" from the report
mix() {
  echo "$(report_value "read:" "$OUT")/$(report_value "write:" "$OUT")/$(report_value "other:" "$OUT")/$(report_value "transactions:" "$OUT")/$(report_value "ignored errors:" "$OUT")/$(report_value "reconnects:" "$OUT")"
}
has_index() {  # DB table index
  if [ "$1" = mysql ]; then
    mysql_q "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='$2' AND index_name='$3'"
  else
    pgsql_q "SELECT COUNT(*) FROM pg_indexes WHERE tablename='$2' AND indexname='$3'"
  fi
}
count_lines() { printf '%s\n' "$1" | grep -c -- "$2"; }

# ---- statement log: what the server received --------------------------------
PGLOG="$SANDBOX_DIR/pgsql/server.log"
log_on() {
  if [ "$1" = mysql ]; then
    mysql_q "SET GLOBAL log_output='TABLE'; SET GLOBAL general_log=1; TRUNCATE mysql.general_log"
  else
    pgsql_q "ALTER SYSTEM SET log_statement='all'" >/dev/null
    pgsql_q "SELECT pg_reload_conf()" >/dev/null
    sleep 0.3
  fi
}
log_off() {
  if [ "$1" = mysql ]; then
    mysql_q "SET GLOBAL general_log=0"
  else
    pgsql_q "ALTER SYSTEM RESET log_statement" >/dev/null
    pgsql_q "SELECT pg_reload_conf()" >/dev/null
  fi
}
log_mark() {  # sets MARK
  if [ "$1" = mysql ]; then mysql_q "TRUNCATE mysql.general_log"; MARK=0
  else MARK=$(wc -l <"$PGLOG"); fi
}
log_since() {  # statements logged since log_mark
  if [ "$1" = mysql ]; then
    mysql_q "SELECT argument FROM mysql.general_log WHERE command_type IN ('Query','Prepare','Execute')"
  else
    tail -n +$((MARK + 1)) "$PGLOG" | grep -E 'LOG:  (statement|execute)'
  fi
}

TS="--tables=2 --table-size=2000"
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)
  for n in sbtest lm lo xt; do "$BMK" "$KIT" $O --tables=2 --table-name=$n cleanup >/dev/null 2>&1; done

  # ---- missing command / missing data set: clear FATAL, exit 1 ------------------
  run_bmk "$KIT" $O
  assert_eq "$db no command exit 1" 1 "$RC"
  assert_contains "$db no command message" "$OUT" "FATAL: Command is required. Supported commands:"
  assert_not_contains "$db no command: no Lua position" "$OUT" "oltp_common.lua:"
  run_bmk "$KIT" $O $TS --events=1 run
  assert_eq "$db run without tables exit 1" 1 "$RC"
  assert_contains "$db run without tables: hint" "$OUT" "sbtest1"
  assert_contains "$db run without tables: what to do" "$OUT" "; create and load the data set first"
  assert_not_contains "$db run without tables: no Lua position" "$OUT" "kit_oltp_core.lua:"

  # ---- create + prepare (parallel, 3 threads > 2 tables) -----------------------
  run_bmk "$KIT" $O $TS --threads=3 create
  assert_eq "$db create exit 0" 0 "$RC"
  assert_contains "$db create message" "$OUT" "Creating table 'sbtest2'..."
  assert_eq "$db create: empty table" 0 "$(q $db 'SELECT COUNT(*) FROM sbtest1')"
  assert_eq "$db create: index before load (parallel)" 1 "$(has_index $db sbtest1 k_1)"
  run_bmk "$KIT" $O $TS --threads=3 create
  assert_eq "$db create refuses existing tables: exit 1" 1 "$RC"
  assert_contains "$db create refuses existing tables: message" "$OUT" "FATAL: table sbtest1 already exists"
  run_bmk "$KIT" $O $TS --threads=3 prepare
  assert_eq "$db prepare exit 0" 0 "$RC"
  assert_contains "$db load mode line" "$OUT" "=> TABLE LOAD MODE : [parallel]"
  assert_eq "$db progress lines (5 per table)" 10 "$(count_lines "$OUT" '^Loading DATA TABLE#')"
  assert_contains "$db progress format" "$OUT" "Loading DATA TABLE#1 => 0.002M @bulk_size 1K | range [0.0008M + 0.0004M]..."
  assert_eq "$db load time lines" 3 "$(count_lines "$OUT" '^=> TOTAL TABLE(s) LOAD TIME @thread-0[0-2] : ')"
  for t in 1 2; do
    assert_eq "$db sbtest$t rows/ids" "2000 1 2000 2000" \
      "$(q $db "SELECT COUNT(*), MIN(id), MAX(id), COUNT(DISTINCT id) FROM sbtest$t" | tr '\t|' '  ')"
  done
  assert_eq "$db k within 1..2000" "1" "$(q $db 'SELECT CASE WHEN MIN(k) >= 1 AND MAX(k) <= 2000 THEN 1 ELSE 0 END FROM sbtest1')"
  c=$(q $db 'SELECT c FROM sbtest1 WHERE id=7' | sed 's/ *$//')
  assert_match "$db c random (rand-data 100)" "$c" '^([0-9]{11}-){9}[0-9]{11}$'
  if [ $db = mysql ]; then
    ddl=$(mysql_q "SHOW CREATE TABLE sbtest1")
    assert_contains "$db schema id BIGINT" "$ddl" '`id` bigint(20) NOT NULL AUTO_INCREMENT'
    assert_contains "$db schema k BIGINT" "$ddl" '`k` bigint(20) NOT NULL DEFAULT 0'
  else
    assert_eq "$db schema k bigint" bigint "$(pgsql_q "SELECT data_type FROM information_schema.columns WHERE table_name='sbtest1' AND column_name='k'")"
    assert_eq "$db setval after explicit ids" 2000 "$(pgsql_q 'SELECT last_value FROM sbtest1_id_seq')"
  fi

  # ---- load modes: complete tables with threads > tables -----------------------
  run_bmk "$KIT" $O $TS --table-name=lo --load-mode=original create
  ki=k; [ $db = pgsql ] && ki=lo_k  # PostgreSQL prefixes non-default names
  assert_eq "$db original: no index before load" 0 "$(has_index $db lo1 ${ki}_1)"
  run_bmk "$KIT" $O $TS --table-name=lo --load-mode=original --threads=3 prepare
  assert_eq "$db original prepare exit 0" 0 "$RC"
  assert_eq "$db original: index after load" 1 "$(has_index $db lo2 ${ki}_2)"
  assert_eq "$db original rows" "2000 2000 2000 2000" \
    "$(q $db 'SELECT (SELECT COUNT(*) FROM lo1), (SELECT COUNT(DISTINCT id) FROM lo1), (SELECT COUNT(*) FROM lo2), (SELECT MAX(id) FROM lo2)' | tr '\t|' '  ')"
  for mode in parallel parallel_ordered; do
    "$BMK" "$KIT" $O --tables=2 --table-name=lm cleanup >/dev/null 2>&1
    run_bmk "$KIT" $O $TS --table-name=lm --load-mode=$mode --load-bulk-size=300 create
    run_bmk "$KIT" $O $TS --table-name=lm --load-mode=$mode --load-bulk-size=300 --threads=5 prepare
    assert_eq "$db $mode 5 threads exit 0" 0 "$RC"
    assert_contains "$db $mode bulk size in progress" "$OUT" "@bulk_size 0.3K"
    assert_eq "$db $mode complete tables" "2000 2000 1 2000 2000 2000" \
      "$(q $db 'SELECT (SELECT COUNT(*) FROM lm1), (SELECT COUNT(DISTINCT id) FROM lm1), (SELECT MIN(id) FROM lm1), (SELECT MAX(id) FROM lm1), (SELECT COUNT(*) FROM lm2), (SELECT COUNT(DISTINCT id) FROM lm2)' | tr '\t|' '  ')"
  done

  # ---- extra columns, partitions, --rand-data=0 ---------------------------------
  run_bmk "$KIT" $O --tables=1 --table-size=500 --table-name=xt --extra-cols=2 \
    --extra-cols-default='##-@@' --mysql-table-partitions=4 --rand-data=0 \
    --mysql-table-options="COMMENT='kitB'" create
  assert_eq "$db xt create exit 0" 0 "$RC"
  run_bmk "$KIT" $O --tables=1 --table-size=500 --table-name=xt --extra-cols=2 \
    --extra-cols-default='##-@@' --mysql-table-partitions=4 --rand-data=0 prepare
  assert_eq "$db xt rows" 500 "$(q $db 'SELECT COUNT(*) FROM xt1')"
  assert_match "$db extra col value from template" "$(q $db 'SELECT col2 FROM xt1 WHERE id=3')" '^[0-9]{2}-[a-z]{2}$'
  assert_eq "$db rand-data 0: fixed c" "$(printf '1234567890X-%.0s' 1 2 3 4 5 6 7 8 9)1234567890X" \
    "$(q $db 'SELECT c FROM xt1 WHERE id=5' | sed 's/ *$//')"
  if [ $db = mysql ]; then
    ddl=$(mysql_q "SHOW CREATE TABLE xt1")
    assert_contains "$db extra col type" "$ddl" '`col1` varchar(32)'
    assert_contains "$db partitions" "$ddl" "PARTITION \`p00\` VALUES LESS THAN MAXVALUE"
    assert_contains "$db table options" "$ddl" "COMMENT='kitB'"
    # MariaDB has no COMPRESSION table option: the DDL reaches the server and fails
    run_bmk "$KIT" $O --tables=1 --table-name=cz --mysql-table-compression=lz4 create
    assert_contains "$db compression clause sent" "$OUT" "ENGINE = innodb COMPRESSION='lz4'"
    assert_eq "$db failing DDL: exit 1" 1 "$RC"
    assert_match "$db failing DDL: one FATAL line, no Lua position" "$OUT" "^FATAL: \`create' function failed: SQL error, errno = [0-9]+"
    "$BMK" "$KIT" $O --tables=1 --table-name=cz cleanup >/dev/null 2>&1
    assert_eq "$db 4 partitions" 4 "$(mysql_q "SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema='sbtest' AND table_name='xt1'")"
  else
    assert_contains "$db partitions ignored notice" "$OUT" "=> --mysql-table-partitions ignored on PostgreSQL"
    assert_eq "$db extra col type" "character varying" "$(pgsql_q "SELECT data_type FROM information_schema.columns WHERE table_name='xt1' AND column_name='col1'")"
  fi

  # ---- exact per-event mix (1 thread, --events=20) -----------------------------
  R="$TS --events=20 run"
  run_bmk "$KIT" $O --statements=point,simple,sum,order,distinct $R
  assert_eq "$db OLTP_RO trx 14/0/2" "280/0/40/20/0/0" "$(mix)"
  assert_contains "$db startup line" "$OUT" "=> using point-SELECTs: 10"
  run_bmk "$KIT" $O --statements=point,simple,sum,order,distinct --skip-trx=on $R
  assert_eq "$db OLTP_RO notrx 14/0/0" "280/0/0/20/0/0" "$(mix)"
  run_bmk "$KIT" $O $R
  assert_eq "$db OLTP_RW trx 14/4/2" "280/80/40/20/0/0" "$(mix)"
  assert_eq "$db OLTP_RW rows unchanged" 2000 "$(q $db 'SELECT COUNT(*) FROM sbtest1')"
  run_bmk "$KIT" $O --statements=point --point-selects=10 --skip-trx=on $R
  assert_eq "$db p_sel10 notrx" "200/0/0/20/0/0" "$(mix)"
  run_bmk "$KIT" $O --statements=non_index_update --non-index-updates=1 --skip-trx=on $R
  assert_eq "$db upd_noidx1 notrx" "0/20/0/20/0/0" "$(mix)"
  run_bmk "$KIT" $O --statements=index_update --index-updates=1 --skip-trx=on $R
  assert_eq "$db upd_idx1 notrx" "0/20/0/20/0/0" "$(mix)"
  run_bmk "$KIT" $O --statements=index_update,non_index_update,delete_insert --index-updates=1 --non-index-updates=1 --delete-inserts=1 $R
  assert_eq "$db upd_insdel1 trx" "0/80/40/20/0/0" "$(mix)"
  run_bmk "$KIT" $O --statements=delete_insert --delete-inserts=1 $R
  assert_eq "$db del_ins1 trx" "0/40/40/20/0/0" "$(mix)"
  assert_eq "$db del_ins rows unchanged" "2000 2000" "$(q $db 'SELECT (SELECT COUNT(*) FROM sbtest1), (SELECT COUNT(*) FROM sbtest2)' | tr '\t|' '  ')"
  run_bmk "$KIT" $O --statements=inserts --inserts-only=1 --skip-trx=on $R
  assert_eq "$db ins1 notrx" "0/20/0/20/0/0" "$(mix)"
  assert_eq "$db ins1 rows grow by 20" 4020 "$(q $db 'SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)')"
  q $db "DELETE FROM sbtest1 WHERE id > 2000" >/dev/null; q $db "DELETE FROM sbtest2 WHERE id > 2000" >/dev/null

  # ---- compat module: a BMK-kit style wrapper script ---------------------------
  cat >"$WORK/my_wrapper.lua" <<'EOS'
require("oltp_common")
function prepare_statements()
  prepare_transaction()
  prepare_point_selects()
  prepare_index_updates()
end
function event()
  start_id()
  begin_transaction()
  execute_point_selects()
  execute_index_updates()
  commit_transaction()
  usleep(10)
end
EOS
  OUT=$(LUA_PATH="$TOP/BMK/sb_exec/lua/?.lua;;" timeout 60 "$BMK" "$WORK/my_wrapper.lua" $O $TS --point-selects=4 --events=10 run 2>&1)
  assert_eq "$db oltp_common wrapper mix" "40/10/20/10/0/0" "$(mix)"

  # ---- sleeps (µs) are inside the event latency ------------------------------
  run_bmk "$KIT" $O --statements=point --point-selects=2 --sleep-after-query=20000 --skip-trx=on $TS --events=3 run
  check "$db sleep-after-query 2 x 20 ms (min $(report_value "min:" "$OUT") ms)" awk "BEGIN{exit !($(report_value "min:" "$OUT") >= 40)}"
  run_bmk "$KIT" $O --statements=point --point-selects=1 --sleep-before-commit=30000 $TS --events=3 run
  check "$db sleep-before-commit 30 ms (min $(report_value "min:" "$OUT") ms)" awk "BEGIN{exit !($(report_value "min:" "$OUT") >= 30)}"

  # ---- reconnect workload -------------------------------------------------------
  if [ $db = mysql ]; then c0=$(mysql_q "SHOW GLOBAL STATUS LIKE 'Connections'" | awk '{print $2}'); fi
  run_bmk "$KIT" $O --statements=point --point-selects=1 --reconnect-event=on --skip-trx=on $R
  assert_eq "$db reconnect notrx: reconnects == transactions" "20/0/0/20/0/20" "$(mix)"
  if [ $db = mysql ]; then
    c1=$(mysql_q "SHOW GLOBAL STATUS LIKE 'Connections'" | awk '{print $2}')
    check "$db reconnect: server saw >= 21 connections (got $((c1 - c0)))" test $((c1 - c0)) -ge 21
  fi
  run_bmk "$KIT" $O --statements=point --point-selects=2 --reconnect-event=on --db-ps-mode=auto $R
  assert_eq "$db reconnect trx p_sel2" "40/0/40/20/0/20" "$(mix)"
  assert_contains "$db reconnect ps notice" "$OUT" "=> reconnect workload: prepared statements are not used"

  # ---- SQL as the server sees it ---------------------------------------------
  log_on $db
  E="$TS --events=3 --skip-trx=on"
  log_mark $db
  run_bmk "$KIT" $O --statements=point,order --point-selects=1 --order-ranges=1 --select-cols='id,k' $E run
  L=$(log_since $db)
  assert_contains "$db select-cols in point select" "$L" "SELECT id,k FROM sbtest"
  assert_match "$db select-cols in order range" "$L" "SELECT id,k FROM sbtest[12] WHERE id BETWEEN .* ORDER BY c"
  log_mark $db
  run_bmk "$KIT" $O --statements=point --point-selects=1 --select-star=on $E run
  assert_contains "$db --select-star alias" "$(log_since $db)" "SELECT * FROM sbtest"
  log_mark $db
  run_bmk "$KIT" $O --statements=point,simple,non_index_update,index_update --by-secidx=on $E run
  L=$(log_since $db)
  assert_match "$db by-secidx point" "$L" "SELECT c FROM sbtest[12] WHERE k=(\?|\\\$1)"
  assert_match "$db by-secidx range" "$L" "SELECT c FROM sbtest[12] WHERE k BETWEEN"
  assert_match "$db by-secidx non-index update" "$L" "UPDATE sbtest[12] SET c=(\?|\\\$1) WHERE k="
  assert_match "$db by-secidx keeps id in index update" "$L" "UPDATE sbtest[12] SET k=k\+1 WHERE id="
  log_mark $db
  before=$(q $db 'SELECT SUM(k) FROM sbtest1')
  run_bmk "$KIT" $O --statements=index_update --update-range-size=10 --thread-offset=0 --threads-total=2 $E run
  after=$(q $db 'SELECT SUM(k) FROM sbtest1')
  assert_match "$db update-range-size SQL" "$(log_since $db)" "UPDATE sbtest1 SET k=k\+1 WHERE id BETWEEN"
  check "$db update-range-size: 3 updates changed > 3 rows ($((after - before)))" test $((after - before)) -gt 3
  log_mark $db
  run_bmk "$KIT" $O --statements=point --point-selects=1 --mysql-query-hint='MAX_EXECUTION_TIME(5000)' $E run
  if [ $db = mysql ]; then
    assert_contains "$db query hint after SELECT" "$(log_since $db)" "SELECT /*+ MAX_EXECUTION_TIME(5000) */ c FROM sbtest"
  else
    assert_contains "$db query hint ignored notice" "$OUT" "=> --mysql-query-hint ignored on PostgreSQL"
    assert_not_contains "$db no hint in SQL" "$(log_since $db)" "/*+"
  fi
  log_mark $db
  run_bmk "$KIT" $O --statements=point --point-selects=1 --extra-query-before='SELECT 11 AS kit_before' --extra-query-after='SELECT 12 AS kit_after' $E run
  assert_eq "$db extra queries counted" "9/0/0/3/0/0" "$(mix)"
  assert_eq "$db extra queries seen" 6 "$(log_since $db | grep -c 'kit_before\|kit_after')"
  log_mark $db
  if [ $db = mysql ]; then
    run_bmk "$KIT" $O --statements=point --point-selects=1 --mysql-session-options='SET @kit_a=1;SET @kit_b=2' $E run
    L=$(log_since $db)
    assert_contains "$db session option 1" "$L" "SET @kit_a=1"
    assert_contains "$db session option 2" "$L" "SET @kit_b=2"
    log_mark $db
    OUT=$(MYSQL_SESSION_OPTIONS='SET @kit_env=3' "$BMK" "$KIT" $O --statements=point --point-selects=1 $E run 2>&1)
    assert_contains "$db session options env fallback" "$(log_since $db)" "SET @kit_env=3"
  else
    log_off $db  # only the session option logs now
    log_mark $db
    run_bmk "$KIT" $O --statements=point --point-selects=1 --pgsql-session-options="SET log_statement='all'" $E run
    assert_contains "$db session option applied (logs its session)" "$(log_since $db)" "SELECT c FROM sbtest"
    assert_contains "$db session-ops line" "$OUT" "=> session-ops: SET log_statement='all'"
    log_mark $db
    OUT=$(PGSQL_SESSION_OPTIONS="SET log_statement='all'" "$BMK" "$KIT" $O --statements=point --point-selects=1 $E run 2>&1)
    assert_contains "$db session options env fallback" "$(log_since $db)" "SELECT c FROM sbtest"
  fi
  # --trx-retry: a lock held by another session makes the first attempt's
  # UPDATE time out once (ignorable); the restart must ROLLBACK (MySQL) and
  # replay the same ids with --trx-retry=on, new ones with off. No fixed
  # sleeps: the locker holds the lock until the server shows bmk's second
  # blocked UPDATE (the restart's: a new statement start time), then is
  # killed, so the restart gets the lock well within its own timeout.
  log_on $db
  for retry in on off; do
    if [ $db = mysql ]; then
      (mysql_q "BEGIN; SELECT COUNT(*) FROM sbtest1 FOR UPDATE; SELECT SLEEP(61.5); COMMIT" >/dev/null 2>&1 &)
      LOCKOPT=(--mysql-session-options="SET SESSION innodb_lock_wait_timeout=2" --mysql-ignore-errors=1205)
      locker() { mysql_q "SELECT id FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP(61.5)%' AND id <> CONNECTION_ID()"; }
      waiting() { mysql_q "SELECT FLOOR(UNIX_TIMESTAMP(NOW(3))*1000 - TIME_MS) FROM information_schema.processlist WHERE info LIKE 'UPDATE sbtest%' AND id <> CONNECTION_ID()"; }
      unlock() { mysql_q "KILL $1" >/dev/null 2>&1; }
    else
      (pgsql_q "BEGIN; SELECT COUNT(*) FROM (SELECT id FROM sbtest1 FOR UPDATE) t; SELECT pg_sleep(61.5); COMMIT" >/dev/null 2>&1 &)
      LOCKOPT=(--pgsql-session-options="SET lock_timeout='2s'" --pgsql-ignore-errors=55P03)
      locker() { pgsql_q "SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(61.5)%' AND wait_event_type = 'Timeout' AND pid <> pg_backend_pid()"; }
      waiting() { pgsql_q "SELECT query_start FROM pg_stat_activity WHERE wait_event_type='Lock'"; }
      unlock() { pgsql_q "SELECT pg_terminate_backend($1)" >/dev/null 2>&1; }
    fi
    lid=""
    for _ in $(seq 3000); do lid=$(locker); [ -n "$lid" ] && break; sleep 0.1; done
    log_mark $db
    ( timeout -k 5 120 "$BMK" "$KIT" $O "${LOCKOPT[@]}" --statements=point,index_update --point-selects=3 \
        --trx-retry=$retry --thread-offset=0 --threads-total=2 $TS --events=1 run > "$WORK/retry.out" 2>&1
      echo $? > "$WORK/retry.rc" ) &
    bmk_pid=$!
    # the first attempt waits for the lock and times out; release it when
    # the restart's wait begins
    first_wait=""
    for _ in $(seq 600); do
      w=$(waiting | head -1)
      if [ -n "$w" ]; then
        # start times in ms (MySQL) may jitter by one between samples
        if [ -z "$first_wait" ]; then first_wait=$w
        elif [ "$w" != "$first_wait" ] && { [ $db = pgsql ] || [ $((w - first_wait)) -gt 500 ]; }; then break; fi
      fi
      kill -0 $bmk_pid 2>/dev/null || break
      sleep 0.05
    done
    [ -n "$lid" ] && unlock "$lid"
    wait $bmk_pid
    OUT=$(cat "$WORK/retry.out"); RC=$(cat "$WORK/retry.rc")
    assert_eq "$db trx-retry=$retry: one ignored error, event done" "1 1 0" \
      "$(report_value "ignored errors:" "$OUT") $(report_value "transactions:" "$OUT") $RC"
    if [ $db = mysql ]; then
      ids=$(log_since $db | sed -n 's/^SELECT c FROM sbtest1 WHERE id=\([0-9]*\)$/\1/p' | tr '\n' ' ')
      assert_contains "$db trx-retry=$retry: ROLLBACK before restart" "$(log_since $db)" "ROLLBACK"
    else
      ids=$(tail -n +$((MARK + 1)) "$PGLOG" | grep -A1 'execute sbstmt[0-9]*: SELECT c FROM sbtest1' | sed -n "s/.*parameters: \$1 = '\([0-9]*\)'.*/\1/p" | tr '\n' ' ')
    fi
    a=($ids)
    first="${a[0]:-} ${a[1]:-} ${a[2]:-}"; second="${a[3]:-} ${a[4]:-} ${a[5]:-}"
    if [ $retry = on ]; then
      check "$db trx-retry=on replays the ids ($ids)" test "$first" = "$second" -a -n "${a[5]:-}"
    else
      check "$db trx-retry=off draws new ids ($ids)" test "$first" != "$second" -a -n "${a[5]:-}"
    fi
  done
  log_off $db

  # ---- user-to-table attribution: each user stays on its own table -----------
  k1=$(q $db 'SELECT SUM(k) FROM sbtest1'); k2=$(q $db 'SELECT SUM(k) FROM sbtest2')
  run_bmk "$KIT" $O --statements=index_update --thread-offset=1 --threads-total=2 $TS --events=20 --skip-trx=on run
  assert_eq "$db global thread 1 of 2 uses only sbtest2" "0 20" \
    "$(( $(q $db 'SELECT SUM(k) FROM sbtest1') - k1 )) $(( $(q $db 'SELECT SUM(k) FROM sbtest2') - k2 ))"
  assert_contains "$db attribution line" "$OUT" "=> users-to-tables: fixed (2 users, 2 tables)"
  k1=$(q $db 'SELECT SUM(k) FROM sbtest1'); k2=$(q $db 'SELECT SUM(k) FROM sbtest2')
  run_bmk "$KIT" $O --statements=index_update $TS --events=100 --skip-trx=on run
  d1=$(( $(q $db 'SELECT SUM(k) FROM sbtest1') - k1 )); d2=$(( $(q $db 'SELECT SUM(k) FROM sbtest2') - k2 ))
  check "$db 1 user < 2 tables: both tables used ($d1 + $d2 = 100)" test $d1 -gt 0 -a $d2 -gt 0 -a $((d1 + d2)) -eq 100

  # ---- --rand-loop id generators (global thread 3 of 4 / 1 of 2) -------------
  snap() { q $db "SELECT id, k FROM sbtest2 ORDER BY id" | tr '\t|' '  '; }
  before=$(snap)
  run_bmk "$KIT" $O --statements=index_update --index-updates=5 --rand-loop=1 --thread-offset=3 --threads-total=4 $TS --events=10 --skip-trx=on run
  changed=$(diff <(printf '%s\n' "$before") <(snap) | awk '/^>/{print $2}')
  check "$db rand-loop 1: ids within chunk 1001..2000 of sbtest2" test -n "$changed" -a "$(printf '%s\n' "$changed" | awk '$1<1001||$1>2000' | wc -l)" -eq 0
  before=$(snap)
  run_bmk "$KIT" $O --statements=index_update --index-updates=5 --rnd-loop=2 --thread-offset=1 --threads-total=2 $TS --events=10 --skip-trx=on run
  changed=$(diff <(printf '%s\n' "$before") <(snap) | awk '/^>/{print $2}' | sort -u | tr '\n' ' ')
  check "$db rand-loop 2 (alias): ids shifted to id - id mod 1000 + 2 ($changed)" test -n "$changed" -a "$(printf '%s' "$changed" | tr ' ' '\n' | grep -v '^$' | grep -cvE '^(2|1002)$')" -eq 0
  OUT=$(SYSBENCH_FINAL_REPORT_CSV=1 "$BMK" "$KIT" $O $TS --statements=point --events=5 run 2>&1)
  assert_match "$db final CSV report" "$OUT" '^[0-9]+,0,[0-9.]+,[0-9.]+,[0-9.]+,0\.00,[0-9.]+,[0-9.]+,0\.00,0\.00$'
  assert_contains "$db final CSV header" "$OUT" "time,thds,tps,qps,r,w,o,lat95,err/s,reconn/s"

  # ---- option errors, warmup, cleanup ------------------------------------------
  run_bmk "$KIT" $O $TS --rand-data=50 --rnd-data=40 --events=1 run
  assert_eq "$db alias conflict exit 1" 1 "$RC"
  assert_contains "$db alias conflict message" "$OUT" "option --rand-data=50 conflicts with its alias --rnd-data=40"
  run_bmk "$KIT" $O $TS --rnd-data=40 --opt-debug=on --events=1 run
  assert_contains "$db alias alone sets primary" "$OUT" "   opt: rand_data : 40"
  run_bmk "$KIT" $O $TS --statements=point,bogus --events=1 run
  assert_eq "$db unknown class exit 1" 1 "$RC"
  assert_contains "$db unknown class message" "$OUT" "unknown statement class 'bogus'"
  run_bmk "$KIT" $O $TS --threads=2 warmup
  assert_eq "$db warmup" "0 2" "$RC $(count_lines "$OUT" '^Preloading table sbtest')"
  for n in sbtest lm lo; do run_bmk "$KIT" $O --tables=2 --table-name=$n cleanup; done
  run_bmk "$KIT" $O --tables=1 --table-name=xt cleanup
  assert_contains "$db cleanup message" "$OUT" "Dropping table 'xt1'..."
  assert_eq "$db no kit tables left" 0 "$(q $db "SELECT COUNT(*) FROM information_schema.tables WHERE table_name IN ('sbtest1','sbtest2','lm1','lm2','lo1','lo2','xt1')")"
done

finish
