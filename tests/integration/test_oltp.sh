#!/usr/bin/env bash
# Every bundled OLTP workload on MariaDB and PostgreSQL: prepare (schema,
# rows, indexes, messages), exact per-event query mix with --events, zero
# errors, option variants, cleanup, as sysbench's oltp_*.lua scripts do.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

q() {  # q DB SQL
  if [ "$1" = mysql ]; then mysql_q "$2"; else pgsql_q "$2"; fi
}
opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }
tables_like() {  # number of sbtest tables
  if [ "$1" = mysql ]; then
    mysql_q "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name LIKE 'sbtest%'"
  else
    pgsql_q "SELECT COUNT(*) FROM pg_tables WHERE schemaname='public' AND tablename LIKE 'sbtest%'"
  fi
}
has_index() {  # DB table index
  if [ "$1" = mysql ]; then
    mysql_q "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='$2' AND index_name='$3'"
  else
    pgsql_q "SELECT COUNT(*) FROM pg_indexes WHERE tablename='$2' AND indexname='$3'"
  fi
}
# mix DB: "reads/writes/other/events/errors/reconnects" from the report
mix() {
  local r w o e er rc
  r=$(report_value "read:" "$OUT"); w=$(report_value "write:" "$OUT"); o=$(report_value "other:" "$OUT")
  e=$(report_value "transactions:" "$OUT"); er=$(report_value "ignored errors:" "$OUT")
  rc=$(report_value "reconnects:" "$OUT")
  echo "$r/$w/$o/$e/$er/$rc"
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)
  # clean slate
  "$BMK" oltp_read_write $O --tables=4 cleanup >/dev/null 2>&1

  # ---- prepare: 2 tables x 1000 rows, parallel over 2 threads -------------
  run_bmk oltp_read_write $O --tables=2 --table-size=1000 --threads=2 prepare
  assert_eq "$db prepare exit 0" 0 "$RC"
  assert_contains "$db prepare messages" "$OUT" "Creating table 'sbtest1'..."
  assert_contains "$db prepare insert message" "$OUT" "Inserting 1000 records into 'sbtest2'"
  assert_contains "$db prepare index message" "$OUT" "Creating a secondary index on 'sbtest1'..."
  assert_eq "$db rows sbtest1" 1000 "$(q $db 'SELECT COUNT(*) FROM sbtest1')"
  assert_eq "$db rows sbtest2" 1000 "$(q $db 'SELECT COUNT(*) FROM sbtest2')"
  assert_eq "$db ids 1..1000" "1 1000" "$(q $db 'SELECT MIN(id), MAX(id) FROM sbtest1' | tr '\t|' '  ')"
  assert_eq "$db c is 119 chars" 119 "$(q $db 'SELECT MIN(LENGTH(c)) FROM sbtest1')"
  assert_eq "$db pad is 59 chars" 59 "$(q $db 'SELECT MAX(LENGTH(pad)) FROM sbtest1')"
  c=$(q $db 'SELECT c FROM sbtest1 WHERE id=1' | sed 's/ *$//')
  assert_match "$db c pattern" "$c" '^([0-9]{11}-){9}[0-9]{11}$'
  kmax=$(q $db 'SELECT MAX(k) FROM sbtest1')
  check "$db k within table_size" test "$kmax" -le 1000
  assert_eq "$db secondary index k_1" 1 "$(has_index $db sbtest1 k_1)"
  if [ $db = mysql ]; then
    ddl=$(mysql_q "SHOW CREATE TABLE sbtest1")
    assert_contains "$db schema id auto_increment" "$ddl" '`id` int(11) NOT NULL AUTO_INCREMENT'
    assert_contains "$db schema c" "$ddl" "\`c\` char(120) NOT NULL DEFAULT ''"
    assert_contains "$db schema engine" "$ddl" "ENGINE=InnoDB"
  else
    assert_eq "$db schema id serial" "nextval('sbtest1_id_seq'::regclass)" \
      "$(pgsql_q "SELECT column_default FROM information_schema.columns WHERE table_name='sbtest1' AND column_name='id'")"
    assert_eq "$db schema c char(120)" "character 120" \
      "$(pgsql_q "SELECT data_type, character_maximum_length FROM information_schema.columns WHERE table_name='sbtest1' AND column_name='c'" | tr '|' ' ')"
  fi

  # ---- exact per-event query mix with --events (1 thread: no races) ----------
  run_bmk oltp_read_write $O --tables=2 --table-size=1000 --events=100 run
  assert_eq "$db oltp_read_write mix" "1400/400/200/100/0/0" "$(mix)"
  assert_eq "$db oltp_read_write rows unchanged" 1000 "$(q $db 'SELECT COUNT(*) FROM sbtest1')"
  run_bmk oltp_read_write $O --tables=2 --table-size=1000 --events=100 --threads=4 run
  assert_eq "$db oltp_read_write 4 threads exact events" 100 "$(report_value "transactions:" "$OUT")"
  # with 4 threads, delete+insert races give ignorable deadlocks or
  # duplicate keys now and then: the event is restarted, never lost
  assert_eq "$db oltp_read_write 4 threads exit 0" 0 "$RC"
  run_bmk oltp_read_only $O --tables=2 --table-size=1000 --events=100 run
  assert_eq "$db oltp_read_only mix" "1400/0/200/100/0/0" "$(mix)"
  run_bmk oltp_write_only $O --tables=2 --table-size=1000 --events=100 run
  assert_eq "$db oltp_write_only mix" "0/400/200/100/0/0" "$(mix)"
  run_bmk oltp_point_select $O --tables=2 --table-size=1000 --events=100 run
  assert_eq "$db oltp_point_select mix" "100/0/0/100/0/0" "$(mix)"
  run_bmk oltp_update_index $O --tables=2 --table-size=1000 --events=100 run
  assert_eq "$db oltp_update_index mix" "0/100/0/100/0/0" "$(mix)"
  run_bmk oltp_update_non_index $O --tables=2 --table-size=1000 --events=100 run
  assert_eq "$db oltp_update_non_index mix" "0/100/0/100/0/0" "$(mix)"
  run_bmk select_random_points $O --tables=1 --table-size=1000 --events=50 run
  assert_eq "$db select_random_points mix" "50/0/0/50/0/0" "$(mix)"
  run_bmk select_random_ranges $O --tables=1 --table-size=1000 --events=50 run
  assert_eq "$db select_random_ranges mix" "50/0/0/50/0/0" "$(mix)"
  run_bmk oltp_read_write $O --tables=2 --table-size=1000 --events=50 --skip-trx=on run
  assert_eq "$db --skip-trx removes BEGIN/COMMIT" "700/200/0/50/0/0" "$(mix)"
  run_bmk oltp_read_only $O --tables=2 --table-size=1000 --events=50 --range-selects=off run
  assert_eq "$db --range-selects=off" "500/0/100/50/0/0" "$(mix)"
  run_bmk oltp_point_select $O --tables=2 --table-size=1000 --events=100 --reconnect=5 run
  assert_eq "$db --reconnect=5 gives 20 reconnects per 100 events" "100/0/0/100/0/20" "$(mix)"
  run_bmk oltp_point_select $O --tables=2 --table-size=1000 --events=100 --db-ps-mode=disable run
  assert_eq "$db --db-ps-mode=disable" "100/0/0/100/0/0" "$(mix)"

  before=$(q $db 'SELECT COUNT(*) FROM sbtest1')
  run_bmk oltp_delete $O --tables=1 --table-size=1000 --events=100 run
  m=$(mix)
  w=$(echo "$m" | cut -d/ -f2); o=$(echo "$m" | cut -d/ -f3)
  assert_eq "$db oltp_delete: writes+other = events" 100 "$((w + o))"
  assert_eq "$db oltp_delete: rows deleted = writes" "$((before - w))" "$(q $db 'SELECT COUNT(*) FROM sbtest1')"

  before=$(q $db 'SELECT COUNT(*) FROM sbtest2')
  run_bmk oltp_insert $O --tables=2 --table-size=1000 --events=100 run
  inserted=$(( $(q $db 'SELECT COUNT(*) FROM sbtest1') + $(q $db 'SELECT COUNT(*) FROM sbtest2') ))
  assert_eq "$db oltp_insert mix" "0/100/0/100/0/0" "$(mix)"
  check "$db oltp_insert added rows" test "$inserted" -ge "$((before + 100))"

  # warmup / prewarm command
  run_bmk oltp_read_write $O --tables=2 --table-size=1000 --threads=2 prewarm
  assert_eq "$db prewarm exit 0" 0 "$RC"
  assert_contains "$db prewarm message" "$OUT" "Preloading table sbtest1"

  # interval and final report layout with a real driver
  run_bmk oltp_read_only $O --tables=2 --table-size=1000 --time=2 --report-interval=1 run
  assert_match "$db interval line" "$OUT" '^\[ 1s \] thds: 1 tps: [0-9]+\.[0-9]{2} qps: [0-9]+\.[0-9]{2} \(r/w/o: [0-9]+\.[0-9]{2}/0\.00/[0-9]+\.[0-9]{2}\) lat \(ms,95%\): [0-9]+\.[0-9]{2} err/s: 0\.00 reconn/s: 0\.00$'
  # sysbench's report, byte for byte; bmk's server-side block follows it
  assert_match "$db server-side block after the report" "$OUT" '^Server-side statistics \('
  masked=$(printf '%s\n' "$OUT" | sed -n '/^SQL statistics:/,$p' | sed '/^Server-side statistics/,$d' |
    sed -E 's/[0-9]+(\.[0-9]+)?/N/g')
  expected='SQL statistics:
    queries performed:
        read:                            N
        write:                           N
        other:                           N
        total:                           N
    transactions:                        N (N per sec.)
    queries:                             N (N per sec.)
    ignored errors:                      N      (N per sec.)
    reconnects:                          N      (N per sec.)

Throughput:
    events/s (eps):                      N
    time elapsed:                        Ns
    total number of events:              N

Latency (ms):
         min:                                    N
         avg:                                    N
         max:                                    N
         Nth percentile:                        N
         sum:                                  N

Threads fairness:
    events (avg/stddev):           N/N
    execution time (avg/stddev):   N/N'
  masked=$(printf '%s\n' "$masked" | sed -E 's/^(    (transactions|queries):  +N) +\(/\1 (/; s/^( +(min|avg|max|sum|Nth percentile):) +N$/\1 N/')
  expected=$(printf '%s\n' "$expected" | sed -E 's/^( +(min|avg|max|sum|Nth percentile):) +N$/\1 N/')
  assert_eq "$db final report layout" "$expected" "$masked"

  # ---- cleanup ------------------------------------------------------------------
  run_bmk oltp_read_write $O --tables=2 cleanup
  assert_contains "$db cleanup message" "$OUT" "Dropping table 'sbtest1'..."
  assert_eq "$db cleanup drops tables" 0 "$(tables_like $db)"

  # ---- option variants -------------------------------------------------------------
  run_bmk oltp_read_write $O --tables=1 --table-size=100 --auto-inc=off --create-secondary=off prepare
  assert_eq "$db --auto-inc=off rows" 100 "$(q $db 'SELECT COUNT(*) FROM sbtest1')"
  assert_eq "$db --create-secondary=off: no k_1" 0 "$(has_index $db sbtest1 k_1)"
  if [ $db = mysql ]; then
    assert_not_contains "$db --auto-inc=off: no AUTO_INCREMENT" "$(mysql_q 'SHOW CREATE TABLE sbtest1')" "AUTO_INCREMENT"
  else
    assert_eq "$db --auto-inc=off: no default" "" \
      "$(pgsql_q "SELECT column_default FROM information_schema.columns WHERE table_name='sbtest1' AND column_name='id'")"
  fi
  "$BMK" oltp_read_write $O --tables=1 cleanup >/dev/null
  run_bmk oltp_read_write $O --tables=1 --table-size=100 --secondary=on prepare
  if [ $db = mysql ]; then
    assert_eq "$db --secondary: KEY xid" 1 "$(has_index $db sbtest1 xid)"
    assert_eq "$db --secondary: no PRIMARY" 0 "$(has_index $db sbtest1 PRIMARY)"
  else
    assert_eq "$db --secondary: index xid_1" 1 "$(has_index $db sbtest1 xid_1)"
  fi
  "$BMK" oltp_read_write $O --tables=1 cleanup >/dev/null

  # bulk_insert: one table per thread, rows = events
  "$BMK" bulk_insert $O --threads=2 cleanup >/dev/null 2>&1
  run_bmk bulk_insert $O --threads=2 prepare
  assert_eq "$db bulk_insert prepare creates 2 tables" 2 "$(tables_like $db)"
  run_bmk bulk_insert $O --threads=1 --events=5000 run
  assert_eq "$db bulk_insert rows = events" 5000 "$(q $db 'SELECT COUNT(*) FROM sbtest1')"
  run_bmk bulk_insert $O --threads=2 cleanup
  assert_eq "$db bulk_insert cleanup" 0 "$(tables_like $db)"

  # misuse
  run_bmk oltp_common $O run
  assert_eq "$db oltp_common directly exits 1" 1 "$RC"
  run_bmk select_random_points $O --tables=2 prepare
  assert_contains "$db select_random_points --tables > 1" "$OUT" "this benchmark does not support --tables > 1"
done

finish
