#!/usr/bin/env bash
# bmk tpcc, schema and load (docs/tpcc.md): bad input, the kit's Prepare
# script with size overrides (--scale=2), exact cardinalities and population
# rules, keys, indexes and FKs, parallel load, prepare idempotence and
# refusals, check on a fresh and on a corrupted schema, and a NULL-variant,
# partitioned schema without FKs or FK indexes, killed mid-load and resumed:
# its data equals the main schema's warehouse 1 (same seed, another thread
# count and scale: every unit has its own stream), then cleanup.
#
# The main schema (sbtest database / public schema, DEFAULT variant,
# --scale=2, seed 42) is left for test_tpcc_run.sh, which reuses it; the
# variant schema lives in the database / schema tpccr and is dropped.
set -u
source "$(dirname "$0")/lib/lib.sh"
source "$(dirname "$0")/lib/tpcc_lib.sh"
cd "$WORK" || exit 1
unset BMK_HOME BMK_KIT_WORKLOAD MYSQL_PWD PGPASSWORD

# where DB NAME: options putting the tables into database/schema NAME
where() { if [ "$1" = mysql ]; then echo "--mysql-db=$2"; else echo "--pgsql-schema=$2"; fi; }
fatal_lines() { printf '%s\n' "$OUT" | grep -c '^FATAL'; }

# checksum DB NAME TABLE: row count and a hash of warehouse 1's rows of
# TABLE (all of item), every column but the timestamps and the variant's
# undelivered values
checksum() {
  local cols w
  case $3 in
    warehouse) cols="w_id,w_name,w_street_1,w_street_2,w_city,w_state,w_zip,w_tax,w_ytd"; w=w_id ;;
    district) cols="d_id,d_w_id,d_name,d_street_1,d_city,d_state,d_zip,d_tax,d_ytd,d_next_o_id"; w=d_w_id ;;
    customer) cols="c_id,c_d_id,c_w_id,c_first,c_last,c_street_1,c_city,c_zip,c_phone,c_credit,c_discount,c_data"; w=c_w_id ;;
    history) cols="h_c_id,h_c_d_id,h_c_w_id,h_amount,h_data"; w=h_w_id ;;
    orders) cols="o_id,o_d_id,o_w_id,o_c_id,o_ol_cnt"; w=o_w_id ;;
    new_orders) cols="no_o_id,no_d_id,no_w_id"; w=no_w_id ;;
    order_line) cols="ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_quantity,ol_amount,ol_dist_info"; w=ol_w_id ;;
    stock) cols="s_i_id,s_w_id,s_quantity,s_dist_01,s_dist_10,s_data"; w=s_w_id ;;
    item) cols="i_id,i_im_id,i_name,i_price,i_data"; w=1 ;;
  esac
  if [ "$1" = mysql ]; then
    q mysql "SELECT COUNT(*), SUM(CRC32(CONCAT_WS('|',$cols))) FROM ${3}1 WHERE $w=1" "$2" | tr '\t' ' '
  else
    q pgsql "SELECT COUNT(*), SUM(hashtext(concat_ws('|',$cols))::bigint) FROM ${3}1 WHERE $w=1" "$2" | tr '|' ' '
  fi
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)
  if [ $db = mysql ]; then q mysql "DROP DATABASE IF EXISTS tpccr; CREATE DATABASE tpccr" >/dev/null
  else q pgsql "DROP SCHEMA IF EXISTS tpccr CASCADE" >/dev/null; fi
  "$BMK" tpcc $O --tables=4 cleanup >/dev/null 2>&1

  # ---- bad input: one FATAL line, non-zero exit, nothing created -----------
  run_bmk tpcc $O --scale=2 check
  assert_eq "$db: check without tables: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: check without tables: message" "$OUT" "no tpcc tables in"
  run_bmk tpcc $O --scale=0 --time=1 run
  assert_eq "$db: --scale=0: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: --scale=0: message" "$OUT" "--scale must be in 1..32767 (got 0)"
  run_bmk tpcc $O --scale=0 --threads=4 prepare
  assert_eq "$db: prepare --scale=0 over 4 threads: one FATAL line" "1 1" "$RC $(fatal_lines)"
  run_bmk tpcc $O --use_fk=3 --time=1 run
  a=$OUT
  run_bmk tpcc $O --use-fk=3 --time=1 run
  assert_eq "$db: --use_fk equals --use-fk" "$a" "$OUT"
  assert_contains "$db: --use-fk range" "$OUT" "--use-fk must be in 0..2 (got 3)"
  run_bmk tpcc $O --tpcc-bogus=1 run
  assert_eq "$db: unknown option: exit 1" 1 "$RC"
  assert_contains "$db: unknown option: named" "$OUT" "tpcc-bogus"
  run_bmk tpcc $O --load-method=bogus prepare
  assert_contains "$db: bad --load-method" "$OUT" "--load-method"
  assert_eq "$db: bad --load-method: exit 1" 1 "$RC"
  if [ $db = mysql ]; then
    n=$(q mysql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name LIKE 'tpcc%'")
  else
    n=$(q pgsql "SELECT COUNT(*) FROM pg_tables WHERE schemaname='public' AND tablename LIKE 'tpcc%'")
  fi
  assert_eq "$db: bad input created nothing" 0 "$n"
  if [ $db = mysql ]; then
    run_bmk tpcc $O --partition=hash --partitions=4 --use-fk=1 prepare
    assert_contains "$db: partitioning with FKs refused" "$OUT" "--partition=hash needs --use-fk=0 or 2 on MySQL"
  fi

  # ---- the kit's Prepare script, sizes overridden: 2 warehouses, 4 loaders ---
  K=$WORK/kit-$db
  kit_home $db "$K" Prepare_TPCC_100W-InnoDB
  OUT=$(BMK_HOME=$K timeout -k 5 300 bash "$K/sb_exec/sb11-Prepare_TPCC_100W-InnoDB.sh" 4 --scale=2 --rand-seed=42 --report-interval=1 2>&1)
  RC=$?
  assert_eq "$db: kit prepare exit 0" 0 "$RC"
  assert_match "$db: progress line with rows/s per table and ETA" "$OUT" '^\[ [0-9]+s \] load: [0-9]+/2 warehouses, units [0-9]+/23; rows/s stock [0-9.]+[kM]? customer .* order_line .*ETA'
  assert_match "$db: summary per table" "$OUT" '^  order_line +[0-9]+ +[0-9.]+ +[0-9]+$'
  assert_contains "$db: summary index/FK times" "$OUT" "secondary indexes"
  if [ $db = mysql ]; then
    # the sandbox allows LOAD DATA LOCAL INFILE (local_infile=1): auto uses it
    assert_contains "$db: --load-method=auto takes LOAD DATA LOCAL INFILE when local_infile is ON" "$OUT" \
      "--load-method=auto: LOAD DATA LOCAL INFILE (the server's local_infile is ON)"
  fi

  # cardinalities per warehouse and per set
  for t in "warehouse 2" "district 20" "customer 60000" "history 60000" "orders 60000" \
           "new_orders 18000" "stock 200000" "item 100000"; do
    set -- $t
    assert_eq "$db: $1 rows" "$2" "$(q $db "SELECT COUNT(*) FROM ${1}1" )"
  done
  assert_eq "$db: order_line rows = sum(o_ol_cnt)" \
    "$(q $db 'SELECT SUM(o_ol_cnt) FROM orders1' )" "$(q $db 'SELECT COUNT(*) FROM order_line1' )"
  assert_eq "$db: per warehouse: 10 districts, 30000 customers, 100000 stock" "10 30000 100000" \
    "$(q $db "SELECT (SELECT COUNT(*) FROM district1 WHERE d_w_id=2), (SELECT COUNT(*) FROM customer1 WHERE c_w_id=2), (SELECT COUNT(*) FROM stock1 WHERE s_w_id=2)"  | tr '\t|' '  ')"
  # population rules (TPC-C clause 4.3.3.1)
  assert_eq "$db: exactly 10% ORIGINAL in item and in each warehouse's stock" "10000 10000 10000" \
    "$(q $db "SELECT (SELECT COUNT(*) FROM item1 WHERE i_data LIKE '%ORIGINAL%'), (SELECT COUNT(*) FROM stock1 WHERE s_w_id=1 AND s_data LIKE '%ORIGINAL%'), (SELECT COUNT(*) FROM stock1 WHERE s_w_id=2 AND s_data LIKE '%ORIGINAL%')"  | tr '\t|' '  ')"
  assert_eq "$db: exactly 300 BC customers in every district" 0 \
    "$(q $db "SELECT COUNT(*) FROM (SELECT c_w_id, c_d_id FROM customer1 GROUP BY c_w_id, c_d_id HAVING SUM(CASE WHEN c_credit='BC' THEN 1 ELSE 0 END) <> 300) t" )"
  assert_eq "$db: c_last = Lastname(c_id-1) for c_id 1, 372, 1000" "BARBARBAR PRICALLYOUGHT EINGEINGEING" \
    "$(q $db "SELECT c_last FROM customer1 WHERE c_w_id=1 AND c_d_id=3 AND c_id IN (1,372,1000) ORDER BY c_id" | tr '\n' ' ' | sed 's/ $//')"
  assert_eq "$db: 1000 distinct last names among c_id <= 1000 per district" 0 \
    "$(q $db "SELECT COUNT(*) FROM (SELECT c_w_id, c_d_id FROM customer1 WHERE c_id <= 1000 GROUP BY c_w_id, c_d_id HAVING COUNT(DISTINCT c_last) <> 1000) t" )"
  assert_eq "$db: o_c_id is a permutation of 1..3000 in every district" 0 \
    "$(q $db "SELECT COUNT(*) FROM (SELECT o_w_id, o_d_id FROM orders1 GROUP BY o_w_id, o_d_id HAVING COUNT(DISTINCT o_c_id) <> 3000 OR MIN(o_c_id) <> 1 OR MAX(o_c_id) <> 3000) t" )"
  assert_eq "$db: ol_amount = 0 exactly for o_id < 2101" 0 \
    "$(q $db "SELECT COUNT(*) FROM order_line1 WHERE (ol_o_id < 2101 AND ol_amount <> 0) OR (ol_o_id >= 2101 AND ol_amount = 0)" )"
  assert_eq "$db: taxes 0..0.2, discounts 0..0.5, s_quantity 10..100" "1 1 1" \
    "$(q $db "SELECT (SELECT CASE WHEN MIN(w_tax) >= 0 AND MAX(d_tax) <= 0.2 AND MAX(w_tax) <= 0.2 THEN 1 ELSE 0 END FROM warehouse1, district1), (SELECT CASE WHEN MIN(c_discount) >= 0 AND MAX(c_discount) <= 0.5 THEN 1 ELSE 0 END FROM customer1), (SELECT CASE WHEN MIN(s_quantity) = 10 AND MAX(s_quantity) = 100 THEN 1 ELSE 0 END FROM stock1)"  | tr '\t|' '  ')"
  # DEFAULT variant: NOT NULL sentinel columns
  if [ $db = mysql ]; then
    nn=$(q mysql "SELECT CONCAT(is_nullable, ' ', column_default) FROM information_schema.columns WHERE table_schema='sbtest' AND table_name='orders1' AND column_name='o_carrier_id'")
    assert_eq "$db: o_carrier_id NOT NULL DEFAULT 0" "NO 0" "$nn"
  else
    nn=$(q pgsql "SELECT is_nullable || ' ' || column_default FROM information_schema.columns WHERE table_schema='public' AND table_name='orders1' AND column_name='o_carrier_id'" )
    assert_eq "$db: o_carrier_id NOT NULL DEFAULT 0" "NO 0" "$nn"
  fi
  assert_eq "$db: undelivered orders and lines carry the sentinels" "18000 0" \
    "$(q $db "SELECT (SELECT COUNT(*) FROM orders1 WHERE o_carrier_id = 0), (SELECT COUNT(*) FROM order_line1 WHERE (ol_delivery_d = '2000-01-01 00:00:00') <> (ol_o_id >= 2101))" | tr '\t|' '  ')"
  # keys, indexes and FKs for --use-fk=1 (sysbench-tpcc's names)
  main=$([ $db = mysql ] && echo sbtest || echo public)
  set -- $(schema_facts $db $main)
  ix=$1 fk=$2
  if [ $db = mysql ]; then
    pk=$(q mysql "SELECT GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM information_schema.statistics WHERE table_schema='sbtest' AND table_name='order_line1' AND index_name='PRIMARY'")
  else
    pk=$(q pgsql "SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM pg_index i JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(att, n) ON true JOIN pg_attribute a ON a.attrelid=i.indrelid AND a.attnum=k.att WHERE i.indrelid='order_line1'::regclass AND i.indisprimary")
  fi
  assert_eq "$db: use-fk=1: 6 secondary indexes, 10 FKs" "6 10" "$ix $fk"
  assert_eq "$db: order_line primary key" "ol_w_id,ol_d_id,ol_o_id,ol_number" "$pk"
  out=$(q $db "INSERT INTO new_orders1 (no_o_id, no_d_id, no_w_id) VALUES (99999, 1, 1)")
  assert_match "$db: an FK violation is rejected" "$out" "foreign key|FOREIGN KEY"
  # more than 2 loaders at once (--threads=4, 23 units)
  if [ $db = mysql ]; then
    busy=$(q mysql "SELECT MAX(n) FROM (SELECT (SELECT COUNT(*) FROM tpcc_load_units b WHERE b.started_at <= a.started_at AND b.finished_at > a.started_at) n FROM tpcc_load_units a) t")
  else
    busy=$(q pgsql "SELECT MAX((SELECT COUNT(*) FROM tpcc_load_units b WHERE b.started_at <= a.started_at AND b.finished_at > a.started_at)) FROM tpcc_load_units a" )
  fi
  check "$db: more than 2 load units in progress at once ($busy)" test "${busy:-0}" -gt 2
  assert_eq "$db: tpcc_meta: complete, DEFAULT variant, C_LOAD 0..255" "complete 0 1" \
    "$(q $db "SELECT (SELECT v FROM tpcc_meta WHERE k='state'), (SELECT v FROM tpcc_meta WHERE k='null_variant'), (SELECT CASE WHEN CAST(v AS INT) BETWEEN 0 AND 255 THEN 1 ELSE 0 END FROM tpcc_meta WHERE k='c_load')"  | tr '\t|' '  ')"

  # ---- prepare again ----------------------------------------------------------
  run_bmk tpcc $O --scale=2 --force-null=0 prepare
  assert_eq "$db: same options: nothing to do, exit 0" 0 "$RC"
  assert_contains "$db: same options: message" "$OUT" "already prepared"
  # a table of a schema marked complete went missing: refused, not
  # "nothing to do" (moved away and back: no reload)
  q $db "ALTER TABLE history1 RENAME TO moved_away" >/dev/null
  run_bmk tpcc $O --scale=2 --force-null=0 prepare
  q $db "ALTER TABLE moved_away RENAME TO history1" >/dev/null
  assert_eq "$db: a missing table: exit 1" 1 "$RC"
  assert_contains "$db: a missing table: message" "$OUT" \
    "the tpcc schema is marked prepared but 1 of its 9 tables are missing"
  run_bmk tpcc $O --scale=3 --force-null=0 prepare
  assert_eq "$db: other options: exit 1" 1 "$RC"
  assert_contains "$db: other options: message" "$OUT" "prepared with other options: scale=2 (now 3)"

  # ---- check (TPC-C clause 3.3.2) ------------------------------------------------
  run_bmk tpcc $O --scale=2 --force-null=0 --threads=2 check
  assert_eq "$db: fresh schema: 24 PASSED, exit 0" "0 24 0" \
    "$RC $(printf '%s\n' "$OUT" | grep -c 'PASSED$') $(printf '%s\n' "$OUT" | grep -c 'FAILED!!!')"
  assert_contains "$db: check summary" "$OUT" "Checks: 24 PASSED, 0 FAILED, 0 N/A"
  q $db "UPDATE warehouse1 SET w_ytd = w_ytd + 0.01 WHERE w_id = 2" >/dev/null
  # the conditions that read w_ytd or the same sums (the full set passed above)
  run_bmk tpcc $O --scale=2 --force-null=0 --threads=2 --checks=1,8,9 check
  assert_eq "$db: corrupted w_ytd: exit 1" 1 "$RC"
  assert_eq "$db: corrupted w_ytd: checks 1 and 8 of warehouse 2 fail, nothing else" \
    "Check 1, warehouse: 2 FAILED!!! (set 1)|Check 8, warehouse: 2 FAILED!!! (set 1)" \
    "$(printf '%s\n' "$OUT" | grep 'FAILED!!!' | sort -t' ' -k2n | tr '\n' '|' | sed 's/|$//')"
  q $db "UPDATE warehouse1 SET w_ytd = w_ytd - 0.01 WHERE w_id = 2" >/dev/null
  run_bmk tpcc $O --scale=2 --force-null=1 --threads=2 check
  assert_contains "$db: check with the other variant refused" "$OUT" "variant mismatch"

  # ---- NULL variant, partitioned, no FK nor FK index, killed mid-load, resumed ----
  R=$(where $db tpccr)
  PART="--scale=1 --use-fk=2 --partition=hash --partitions=4 --rand-seed=42"
  # the other load method than the kit's load above (the fast path by
  # default: COPY, LOAD DATA LOCAL INFILE), so the checksums below compare
  # the two paths. On MySQL it is auto with the server's local_infile OFF:
  # auto must fall back to INSERTs (the fast path would be refused) and say so.
  if [ $db = mysql ]; then
    LM=""
    q mysql "SET GLOBAL local_infile = 0" >/dev/null
  else
    LM=--load-method=insert
  fi
  "$BMK" tpcc $O $R $PART $LM --threads=2 --load-batch=20 prepare > "$WORK/killed.out" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    done_units=$(q $db "SELECT COUNT(*) FROM tpcc_load_units WHERE finished_at IS NOT NULL" tpccr 2>/dev/null)
    case $done_units in (''|*[!0-9]*) done_units=0 ;; esac
    [ "$done_units" -ge 2 ] && break
    sleep 0.1
  done
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  assert_eq "$db: killed prepare left state 'loading'" loading \
    "$(q $db "SELECT v FROM tpcc_meta WHERE k='state'" tpccr)"
  run_bmk tpcc $O $R $PART --threads=2 prepare
  assert_eq "$db: rerun without --resume: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: rerun without --resume: message" "$OUT" "did not finish (state 'loading'): run prepare --resume"
  run_bmk tpcc $O $R $PART $LM --threads=2 --resume prepare
  [ $db = mysql ] && q mysql "SET GLOBAL local_infile = 1" >/dev/null
  assert_eq "$db: --resume completes" 0 "$RC"
  if [ $db = mysql ]; then
    assert_contains "$db: local_infile OFF: --load-method=auto loads with INSERTs and says why" "$OUT" \
      "--load-method=auto: multi-row INSERTs (the server's local_infile is OFF; SET GLOBAL local_infile=1 allows the faster LOAD DATA LOCAL INFILE)"
  fi
  assert_contains "$db: --resume clears the units cut short" "$OUT" "unfinished load unit(s) cleared"
  assert_eq "$db: resumed state complete" complete "$(q $db "SELECT v FROM tpcc_meta WHERE k='state'" tpccr)"
  if [ $db = mysql ]; then
    parts=$(q mysql "SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema='tpccr' AND table_name='order_line1'")
  else
    parts=$(q pgsql "SELECT COUNT(*) FROM pg_inherits WHERE inhparent='tpccr.order_line1'::regclass")
  fi
  set -- $(schema_facts $db tpccr)
  ix=$1 fk=$2 nn=$3
  assert_eq "$db: 4 order_line partitions; use-fk=2: 2 secondary indexes, no FK; nullable ol_delivery_d" \
    "4 2 0 YES" "$parts $ix $fk $nn"
  assert_eq "$db: NULL variant: undelivered orders have NULL carriers" 9000 \
    "$(q $db "SELECT COUNT(*) FROM orders1 WHERE o_carrier_id IS NULL" tpccr)"
  for t in warehouse district customer history orders new_orders order_line stock item; do
    assert_eq "$db: $t: resumed 2-thread scale-1 load (${LM:-auto, INSERTs}) = warehouse 1 of the 4-thread scale-2 load (seed 42)" \
      "$(checksum $db $main $t)" "$(checksum $db tpccr $t)"
  done
  run_bmk tpcc $O $R --scale=1 --use-fk=2 --threads=2 check
  assert_eq "$db: NULL variant fresh schema: 12 PASSED" "0 12" "$RC $(printf '%s\n' "$OUT" | grep -c 'PASSED$')"
  assert_contains "$db: check warns about the missing FK indexes" "$OUT" "slow without the FK-supporting indexes"

  # ---- every transaction mode, briefly, then check ------------------------------
  # (the C each mode runs: prepared statements, text queries, stored
  # procedures' CALL results, PostgreSQL's pipeline; test_tpcc_run.sh
  # checks the modes' figures, in the normal pass only)
  modes="ps text sp"
  [ $db = pgsql ] && modes="$modes pipeline"
  for m in $modes; do
    run_bmk tpcc $O $R --scale=1 --use-fk=2 --tpcc-mode=$m --threads=4 --events=200 \
      --audit-min-neworders=0 --rand-seed=7 run
    assert_eq "$db: NULL variant, mode $m: exit 0, no FATAL" "0 0" "$RC $(printf '%s\n' "$OUT" | grep -c '^FATAL')"
    assert_eq "$db: NULL variant, mode $m: 200 transactions" 200 "$(report_value "transactions:" "$OUT")"
  done
  run_bmk tpcc $O $R --scale=1 --use-fk=2 --threads=2 check
  # (check 11 is N/A once a Delivery has run)
  assert_eq "$db: NULL variant after every mode: check exit 0, 11 PASSED, 0 FAILED" "0 1" \
    "$RC $(printf '%s\n' "$OUT" | grep -c '^Checks: 11 PASSED, 0 FAILED, 1 N/A')"

  # ---- cleanup leaves nothing ------------------------------------------------------
  for n in tpccr; do
    run_bmk tpcc $O $(where $db $n) cleanup
    assert_eq "$db: cleanup $n exit 0" 0 "$RC"
    if [ $db = mysql ]; then
      left=$(q mysql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$n'")
      left=$((left + $(q mysql "SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema='$n'")))
      q mysql "DROP DATABASE $n" >/dev/null
    else
      left=$(q pgsql "SELECT (SELECT COUNT(*) FROM pg_class WHERE relnamespace='$n'::regnamespace) + (SELECT COUNT(*) FROM pg_proc WHERE pronamespace='$n'::regnamespace)" )
      q pgsql "DROP SCHEMA $n" >/dev/null
    fi
    assert_eq "$db: cleanup $n leaves no tpcc objects" 0 "$left"
  done
  # and the main database's sets, for the files after this one in a lane
  "$BMK" tpcc $O --tables=4 cleanup >/dev/null 2>&1
done

finish
