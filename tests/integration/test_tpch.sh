#!/usr/bin/env bash
# bmk tpch (docs/tpch.md): generate writes dbgen 2.17.3's files byte for
# byte (whole and in chunks, tbl and csv, update sets); prepare loads the same rows on
# MariaDB and PostgreSQL with 1 chunk (fast path) and with 3 chunks over 3
# threads (INSERT path, keys and indexes): each table's content equals
# dbgen's file both times; check passes, and fails on a broken relation;
# the validation run (qgen -d's parameters, no refresh functions) gives
# the same 22 results on both databases (checksums, and --answers against
# the other's --save-answers); the power test (RF1, stream 0's 22 queries,
# RF2) prints a Power@Size that is its table's, check passes after it, a
# second run takes the next update set; --results holds the table's steps
# and metrics recomputed from its step times (power, throughput, full,
# incomplete), --save keeps the runs and bmk compare shows a row per
# query; Ctrl-C prints the table so far and exits 130 with the base data
# back; the kit's TPCH power script runs the power test; the answers'
# tolerances; bad input gives one FATAL line and exit
# 1; cleanup drops everything.
#
# The MD5 figures are those of the .tbl files written by the reference
# dbgen 2.17.3 (TPC-H tools, built from its public source; official
# layout, '|' after every column): `dbgen -s 0.01`, for the chunk files
# `dbgen -s 0.01 -C 4 -S k`, for the update sets `dbgen -s 0.01 -U 2`. PARTSUPP_SORTED_MD5 is that of dbgen's
# partsupp.tbl sorted by its key (`sort -t'|' -k1,1n -k2,2n`): the file
# lists a part's suppliers in generation order, a table by key.
set -u
source "$(dirname "$0")/lib/lib.sh"
source "$(dirname "$0")/lib/tpcc_lib.sh"
cd "$WORK" || exit 1

# The ASan pass runs the PostgreSQL half: what is C in this file beyond
# the generator (which the unit tests run under ASan: every table, chunks,
# update sets) is the same for both databases (the document, the results
# database, the metrics page, the HTML charts, the report), and the
# MariaDB load's C paths (LOAD DATA) run under ASan in test_tpcc.sh.
if asan_pass && [ -z "${BMK_TEST_DBS:-}" ]; then
  skip "tpch on MariaDB in this pass" "the ASan pass runs the PostgreSQL half (the same C for both, MariaDB's loads under ASan in test_tpcc.sh); both in the normal pass"
  BMK_TEST_DBS=pgsql
fi

declare -A DBGEN_MD5=(
  [region]=c235841b00d29ad4f817771fcc851207 [nation]=2f588e0b7fa72939b498c2abecd9fbbe
  [part]=9cce16188c241c25617ca5ed6191e37e [supplier]=56e0621c472064c2a998757c70b44043
  [partsupp]=c6889c3ed0939ca02475f7fb410cbb50 [customer]=a8aa97edad6d47b183a569759fbd3eec
  [orders]=c8d2008fb47f47f9e56543d4cb0f4e6a [lineitem]=4c6d44350a1f7974f56f5d3d7091c2be
)
PARTSUPP_SORTED_MD5=06991e71cc49e822b80694dce0bf0ec9
declare -A ROWS=( [region]=5 [nation]=25 [part]=2000 [supplier]=100 [partsupp]=8000
                  [customer]=1500 [orders]=15000 [lineitem]=60175 )
TABLES="region nation part supplier partsupp customer orders lineitem"
declare -A SUMS=()
fatal_lines() { printf '%s\n' "$OUT" | grep -c '^FATAL'; }

# ---- generate (no server) --------------------------------------------------
if asan_pass; then
  skip "generate against dbgen's files in this pass" "the generator's C runs under ASan in tests/unit/test_tpch_gen.c (every table, chunks, update sets); the files are compared in the normal pass"
else
  run_bmk tpch --scale=0.01 --dir="$WORK/g1" generate
  assert_eq "generate SF 0.01: exit 0" 0 "$RC"
  for t in $TABLES; do
    assert_eq "generate: $t.tbl is dbgen's" "${DBGEN_MD5[$t]}" "$(md5sum < "$WORK/g1/$t.tbl" | cut -d' ' -f1)"
  done
  assert_contains "generate: summary counts the line items" "$OUT" "lineitem          60175"
  run_bmk tpch --scale=0.01 --dir="$WORK/g4" --chunks=4 --threads=2 --updates=2 generate
  assert_eq "generate --chunks=4 --updates=2: exit 0, 32 files" "0 32" "$RC $(ls "$WORK/g4" | wc -l)"
  assert_contains "generate --updates=2: summary" "$OUT" \
    "update sets 1..2: 20 new orders, 81 new line items, 20 deleted orders"
  # dbgen -s 0.01 -U 2
  for f in orders.tbl.u1:3c31b94f1bd15a67d8101b0d63f9eb58 lineitem.tbl.u1:3309ecc7e015d92ca35249f91f303a71 \
           delete.1:079060433d8301aaa3783456ed18c7f0 orders.tbl.u2:bb402163444b211c9d4a24a8029d2907 \
           lineitem.tbl.u2:257dcf795b5959aad60bbdde88b743e0 delete.2:6861e53624044eb66a27c4d51eff4a83; do
    assert_eq "generate --updates=2: ${f%%:*} is dbgen -U 2's" "${f#*:}" \
      "$(md5sum < "$WORK/g4/${f%%:*}" | cut -d' ' -f1)"
  done
  assert_eq "generate --chunks=4: lineitem.tbl.2 is dbgen -C 4 -S 2's" \
    3cc5e82f965eed1a50ff4e55731d4875 "$(md5sum < "$WORK/g4/lineitem.tbl.2" | cut -d' ' -f1)"
  assert_eq "generate --chunks=4: orders.tbl.4 is dbgen -C 4 -S 4's" \
    84edfd8d33efb65c6c98a3896d6eb5b6 "$(md5sum < "$WORK/g4/orders.tbl.4" | cut -d' ' -f1)"
  assert_eq "generate --chunks=4: partsupp.tbl.3 is dbgen -C 4 -S 3's" \
    81478d05d29590cf99d7b0574b228d5c "$(md5sum < "$WORK/g4/partsupp.tbl.3" | cut -d' ' -f1)"
  for t in part lineitem; do
    assert_eq "generate --chunks=4: the 4 $t chunks make dbgen's $t.tbl" "${DBGEN_MD5[$t]}" \
      "$(cat "$WORK/g4/$t.tbl".{1,2,3,4} | md5sum | cut -d' ' -f1)"
  done
  run_bmk tpch --scale=0.01 --dir="$WORK/gc" --format=csv generate
  assert_eq "generate --format=csv: customer 1, commas quoted" \
    '1,Customer#000000001,"IVhzIApeRb ot,c,E",15,25-989-741-2988,711.56,BUILDING,"to the even, regular platelets. regular, ironic epitaphs nag e"' \
    "$(head -1 "$WORK/gc/customer.csv")"
  assert_eq "generate --format=csv: as many lines" 60175 "$(wc -l < "$WORK/gc/lineitem.csv")"
fi

run_bmk tpch --scale=abc --dir="$WORK/bad" generate
assert_eq "generate --scale=abc: exit 1" 1 "$RC"
assert_contains "generate --scale=abc: message" "$OUT" "Invalid value for the 'scale' option: 'abc'"
for args in "--scale=0" "--scale=-1" "--scale=1.5"; do
  run_bmk tpch $args --dir="$WORK/bad" generate
  assert_eq "generate $args: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "generate $args: message" "$OUT" "--scale must be > 0, a whole number from 1 up"
done
run_bmk tpch --scale=0.01 generate
assert_eq "generate without --dir: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
assert_contains "generate without --dir: message" "$OUT" "generate needs --dir=DIR"
run_bmk tpch --scale=0.01 --dir=/proc/no/such generate
assert_contains "generate into an unwritable directory: message" "$OUT" "cannot write in --dir=/proc/no/such"
run_bmk tpch --scale=0.01 --dir="$WORK/bad" --format=xml generate
assert_contains "generate --format=xml: message" "$OUT" "--format must be one of tbl, csv (got 'xml')"

# md5 DB TABLE: MD5 of the table's rows written as dbgen writes them
# (integers for l_quantity, CHAR columns without padding, '|' after each).
md5_of() {
  local cols
  case $2 in
    region) cols="r_regionkey,r_name,r_comment"; k=r_regionkey ;;
    nation) cols="n_nationkey,n_name,n_regionkey,n_comment"; k=n_nationkey ;;
    part) cols="p_partkey,p_name,p_mfgr,p_brand,p_type,p_size,p_container,p_retailprice,p_comment"; k=p_partkey ;;
    supplier) cols="s_suppkey,s_name,s_address,s_nationkey,s_phone,s_acctbal,s_comment"; k=s_suppkey ;;
    partsupp) cols="ps_partkey,ps_suppkey,ps_availqty,ps_supplycost,ps_comment"; k="ps_partkey,ps_suppkey" ;;
    customer) cols="c_custkey,c_name,c_address,c_nationkey,c_phone,c_acctbal,c_mktsegment,c_comment"; k=c_custkey ;;
    orders) cols="o_orderkey,o_custkey,o_orderstatus,o_totalprice,o_orderdate,o_orderpriority,o_clerk,o_shippriority,o_comment"; k=o_orderkey ;;
    lineitem) cols="l_orderkey,l_partkey,l_suppkey,l_linenumber,CAST(l_quantity AS INTEGER),l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode,l_comment"; k="l_orderkey,l_linenumber" ;;
  esac
  if [ "$1" = mysql ]; then
    cols=${cols//INTEGER/SIGNED}
    q mysql "SET SESSION group_concat_max_len=1073741824; SELECT MD5(CONCAT(GROUP_CONCAT(CONCAT_WS('|',$cols) ORDER BY $k SEPARATOR '|\n'),'|\n')) FROM $2"
  else
    # text casts drop CHAR(n)'s padding
    cols=$(echo "$cols" | sed -E 's/(^|,)([a-z_]+)/\1\2::text/g')
    q pgsql "SELECT md5(string_agg(concat_ws('|',$cols) || E'|\n', '' ORDER BY $k)) FROM $2"
  fi
}

# same_as_dbgen DB LABEL: every table holds dbgen's rows
same_as_dbgen() {
  local want
  for t in $TABLES; do
    want=${DBGEN_MD5[$t]}
    [ $t = partsupp ] && want=$PARTSUPP_SORTED_MD5
    assert_eq "$1: $2: $t holds dbgen's rows" "$want" "$(md5_of "$1" "$t")"
  done
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts "$db")
  "$BMK" tpch $O cleanup >/dev/null 2>&1

  run_bmk tpch $O --scale=0.01 check
  assert_eq "$db: check before prepare: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: check before prepare: message" "$OUT" "no tpch data in"
  run_bmk tpch $O --scale=0 prepare
  assert_eq "$db: prepare --scale=0: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_eq "$db: prepare --scale=0 created nothing" 0 \
    "$(q $db "SELECT COUNT(*) FROM information_schema.tables WHERE table_name IN ('region','tpch_meta') AND table_schema IN ('sbtest','public')")"

  # 1 chunk, the fast path (COPY / LOAD DATA LOCAL INFILE)
  run_bmk tpch $O --scale=0.01 --chunks=1 --load-method=copy prepare
  assert_eq "$db: prepare 1 chunk: exit 0" 0 "$RC"
  assert_contains "$db: prepare: summary counts the line items" "$OUT" "lineitem          60175"
  for t in $TABLES; do
    assert_eq "$db: 1 chunk: rows of $t" "${ROWS[$t]}" "$(q $db "SELECT COUNT(*) FROM $t")"
  done
  same_as_dbgen "$db" "1 chunk"
  assert_eq "$db: o_totalprice is DECIMAL(15,2)" "decimal 15 2" \
    "$(q $db "SELECT data_type, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name='orders' AND column_name='o_totalprice' AND table_schema IN ('sbtest','public')" | tr '\t' ' ' | sed 's/numeric/decimal/')"
  assert_eq "$db: l_shipdate is a DATE" date \
    "$(q $db "SELECT data_type FROM information_schema.columns WHERE table_name='lineitem' AND column_name='l_shipdate' AND table_schema IN ('sbtest','public')")"
  run_bmk tpch $O --scale=0.01 check
  assert_eq "$db: check: exit 0" 0 "$RC"
  assert_contains "$db: check: all passed" "$OUT" "Checks: 18 PASSED, 0 FAILED (SF 0.01)"
  run_bmk tpch $O --scale=0.1 check
  assert_contains "$db: check at another SF: message" "$OUT" "the tables hold SF 0.01, not --scale=0.1"
  run_bmk tpch $O --scale=0.01 prepare
  assert_eq "$db: prepare over a prepared schema: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: prepare over a prepared schema: message" "$OUT" "exists already"

  # a broken relation: one order's total, one line item's supplier
  q $db "UPDATE orders SET o_totalprice = o_totalprice + 0.01 WHERE o_orderkey = 7" >/dev/null
  q $db "UPDATE lineitem SET l_suppkey = l_suppkey + 1 WHERE l_orderkey = 1 AND l_linenumber = 1" >/dev/null
  run_bmk tpch $O --scale=0.01 check
  assert_eq "$db: check of broken data: exit 1" 1 "$RC"
  assert_contains "$db: check of broken data: the total" "$OUT" \
    "FAIL  orders whose o_totalprice or o_orderstatus disagree with their line items: expected 0, got 1"
  assert_contains "$db: check of broken data: the part-supplier" "$OUT" \
    "FAIL  line items without their part-supplier: expected 0, got 1"
  assert_contains "$db: check of broken data: summary" "$OUT" "Checks: 16 PASSED, 2 FAILED"

  run_bmk tpch $O cleanup
  assert_eq "$db: cleanup: exit 0, 9 tables" "0" "$RC"
  assert_contains "$db: cleanup: count" "$OUT" "Dropped 9 tpch table(s)"

  if asan_pass; then
    # the ASan pass: the schema again by the fast path, for the runs below
    skip "$db: the INSERT load in 3 chunks, keys and the validation run in this pass" "the same C as the fast path's load and the power test's queries below; done in the normal pass"
    run_bmk tpch $O --scale=0.01 --chunks=1 --load-method=copy prepare
    assert_eq "$db: prepare again: exit 0" 0 "$RC"
  else
    # 3 chunks over 3 threads, multi-row INSERT, indexes and foreign keys
    run_bmk tpch $O --scale=0.01 --chunks=3 --threads=3 --load-method=insert --indexes=on --fk=on prepare
    assert_eq "$db: prepare 3 chunks, insert: exit 0" 0 "$RC"
    assert_contains "$db: prepare 3 chunks: the method" "$OUT" "multi-row INSERT"
    same_as_dbgen "$db" "3 chunks"
    assert_eq "$db: 8 foreign keys" 8 \
      "$(q $db "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_type='FOREIGN KEY' AND table_name IN ('nation','supplier','customer','partsupp','orders','lineitem') AND constraint_schema IN ('sbtest','public')")"
    if [ $db = mysql ]; then
      ix=$(q mysql "SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema='sbtest' AND index_name LIKE '%\_ix%'")
    else
      ix=$(q pgsql "SELECT COUNT(*) FROM pg_indexes WHERE schemaname='public' AND indexname LIKE '%\_ix%'")
    fi
    assert_eq "$db: 8 secondary indexes" 8 "$ix"
    run_bmk tpch $O --scale=0.01 check
    assert_contains "$db: check after the parallel load: all passed" "$OUT" "Checks: 18 PASSED, 0 FAILED"

    # validation run: the 22 queries with qgen -d's parameters, no refresh
    # functions; the results saved as answers on MariaDB, checked against
    # them on PostgreSQL
    ans=""
    [ $db = pgsql ] && [ -d "$WORK/ans-mysql" ] && ans="--answers=$WORK/ans-mysql"
    run_bmk tpch $O --scale=0.01 --validate --save-answers="$WORK/ans-$db" $ans run
    assert_eq "$db: validation run: exit 0" 0 "$RC"
    assert_eq "$db: validation run: 22 answers saved" 22 "$(ls "$WORK/ans-$db" | grep -c '^q[0-9]*\.out$')"
    if [ -n "$ans" ]; then
      assert_contains "$db: validation run: the 22 results pass against MariaDB's" "$OUT" ": 22 PASS, 0 FAIL"
    fi
    assert_eq "$db: validation run: 22 queries, no refresh function" "22 0" \
      "$(printf '%s\n' "$OUT" | grep -cE '^  [0-9]+ +Q[0-9]+ .* ok( |$)') $(printf '%s\n' "$OUT" | grep -cE '^ +RF[12] ')"
    assert_contains "$db: validation run: no Power@Size" "$OUT" "No Power@Size: a validation run has no refresh functions"
    assert_eq "$db: validation run: no update set used" 1 "$(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
    SUMS[$db]=$(printf '%s\n' "$OUT" | awk '/^  [0-9]+ +Q/ {print $2, $4, $5}' | sort)
  fi

  # power test: RF1, the 22 queries with the recorded seed's parameters, RF2
  RDB="$WORK/runs-$db.db"
  run_bmk tpch $O --scale=0.01 --results="$WORK/power-$db.json" --results-db="$RDB" run
  assert_eq "$db: power test: exit 0" 0 "$RC"
  assert_match "$db: power test: the recorded seed, update set 1" "$OUT" "^Power test, SF 0.01, seed [0-9]+, update set 1:$"
  assert_eq "$db: power test: 22 queries and 2 refresh functions ok" "22 2" \
    "$(printf '%s\n' "$OUT" | grep -cE '^  [0-9]+ +Q[0-9]+ .* ok( |$)') $(printf '%s\n' "$OUT" | grep -cE '^ +RF[12] .* ok$')"
  assert_eq "$db: power test: stream 0's order" "14 2 9 20 6 17 18 8 21 13 3 22 16 4 11 15 1 10 19 5 7 12" \
    "$(printf '%s\n' "$OUT" | awk '/^  [0-9]+ +Q/ {sub("Q", "", $2); printf "%s%s", s, $2; s=" "}')"
  assert_contains "$db: power test: RF1 inserts set 1's 10 orders and 37 line items" "$OUT" "10+37"
  # Power@Size from the table: 3600 x SF / geometric mean of the 24 times,
  # each at least 1/1000 of the longest (clause 5.4.1)
  want=$(printf '%s\n' "$OUT" | awk '/ ok( |$)/ && ($2 ~ /^Q/ || $1 ~ /^RF/) { t[++n] = ($1 ~ /^RF/) ? $2 : $3 }
    END { m = 0; for (i = 1; i <= n; i++) if (t[i] > m) m = t[i]
          s = 0; for (i = 1; i <= n; i++) s += log(t[i] < m / 1000 ? m / 1000 : t[i])
          printf "%.1f", 3600 * 0.01 / exp(s / n) }')
  got=$(printf '%s\n' "$OUT" | sed -n 's/^Power@Size: //p')
  assert_near "$db: power test: Power@Size is the table's" "$want" "${got:-0}" 1
  # --results: the document validates; its steps are the table's (RF1, 22
  # queries in stream 0's order, RF2, all ok, with their parameters); its
  # metrics are those of its step times; the figures are the steps' and
  # the metrics'
  check "$db: power test --results: the document validates" json_ok "$WORK/power-$db.json"
  assert_eq "$db: power test --results: RF1, 22 queries in stream 0's order, RF2, all ok" \
    "RF1 14 2 9 20 6 17 18 8 21 13 3 22 16 4 11 15 1 10 19 5 7 12 RF2 ok" \
    "$(json_get "$WORK/power-$db.json" '" ".join(s["name"] if s["query"] is None else str(s["query"]) for s in d["tpch"]["power"]["steps"]) + " " + ",".join(sorted(set(s["status"] for s in d["tpch"]["power"]["steps"])))')"
  assert_eq "$db: power test --results: the rows and parameters are the table's" \
    "$(printf '%s\n' "$OUT" | awk '/^  [0-9]+ +Q/ {printf "%s ", $4}')22" \
    "$(json_get "$WORK/power-$db.json" '"".join("%d " % s["rows"] for s in d["tpch"]["power"]["steps"] if s["query"]) + str(sum(1 for s in d["tpch"]["power"]["steps"] if s["query"] and s["params"]))')"
  assert_eq "$db: power test --results: Power@Size, geometric mean and figures from the step times" "ok" \
    "$(python3 - "$WORK/power-$db.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1])); p = d["tpch"]["power"]; f = d["summary"]["figures"]
t = [s["seconds"] for s in p["steps"]]
m = max(t); g = math.exp(sum(math.log(max(x, m / 1000)) for x in t) / len(t))
bad = []
if not (p["complete"] and p["failed_steps"] == 0 and len(t) == 24): bad.append("complete")
if abs(p["geomean_s"] - g) > 1e-9 * g: bad.append("geomean %r %r" % (p["geomean_s"], g))
if abs(p["power_size"] - 3600 * 0.01 / g) > 1e-6 * p["power_size"]: bad.append("power")
if abs(f["tpch_power_size"]["value"] - p["power_size"]) > 1e-6 * p["power_size"]: bad.append("fig")
for s in p["steps"]:
    k = "tpch_power_%s_s" % ("q%02d" % s["query"] if s["query"] else s["name"].lower())
    if abs(f[k]["value"] - s["seconds"]) > 1e-9: bad.append(k)
if sum(1 for k in f if k.startswith("tpch_power_q")) != 22: bad.append("22 figures")
if d["summary"]["exit_code"] != 0 or not d["summary"]["completed"]: bad.append("summary")
print(" ".join(bad) or "ok")
PY
)"
  run_bmk tpch $O --scale=0.01 check
  assert_contains "$db: check after RF1 and RF2: all passed" "$OUT" "Checks: 18 PASSED, 0 FAILED"
  assert_contains "$db: check: set 1's orders" "$OUT" "PASS  orders of the 1 update set(s) applied (10)"
  run_bmk tpch $O --scale=0.01 --seed=101 --parallel-workers=3 --results-db="$RDB" run
  assert_eq "$db: second power test: exit 0, update set 2" "0 1" \
    "$RC $(printf '%s\n' "$OUT" | grep -c 'seed 101, update set 2:')"
  if [ $db = pgsql ]; then
    assert_contains "$db: --parallel-workers=3: the run's connection has it" "$OUT" \
      "PostgreSQL: max_parallel_workers_per_gather = 3"
  fi
  # --save: both runs in the results database; bmk compare has a row per
  # query of the power test, the RFs and the metrics
  run_bmk runs list --results-db="$RDB"
  assert_eq "$db: --save: two tpch runs saved" 2 "$(printf '%s\n' "$OUT" | grep -cE '^ +[12] .* tpch ')"
  # bmk runs show: the saved run's own table and Power@Size (the first
  # run's, as it printed it)
  p1=$got
  run_bmk runs show 1 --results-db="$RDB"
  assert_eq "$db: bmk runs show: 22 queries, RF1 and RF2 of set 1, the run's Power@Size" "22 2 1" \
    "$(printf '%s\n' "$OUT" | grep -cE '^  [0-9]+ +Q[0-9]+ .* ok$') $(printf '%s\n' "$OUT" | grep -cE '^ +RF[12] 1 .* ok$') $(printf '%s\n' "$OUT" | grep -c "^Power@Size: $p1$")"
  run_bmk compare --results-db="$RDB" 1 2
  assert_eq "$db: bmk compare: 22 query rows, 2 RF rows, Power@Size" "22 2 1" \
    "$(printf '%s\n' "$OUT" | grep -cE '^tpch_power_q[0-9]{2}_s ') $(printf '%s\n' "$OUT" | grep -cE '^tpch_power_rf[12]_s ') $(printf '%s\n' "$OUT" | grep -cE '^tpch_power_size ')"
  assert_eq "$db: after two runs: orders unchanged" 15000 "$(q $db "SELECT COUNT(*) FROM orders")"
  run_bmk tpch $O --scale=0.01 check
  assert_contains "$db: check after two runs: all passed" "$OUT" "Checks: 18 PASSED, 0 FAILED"
  run_bmk tpch $O --scale=0.01 --query-timeout=0.001 --results="$WORK/timeout-$db.json" run
  assert_eq "$db: --query-timeout=0.001: exit 1" 1 "$RC"
  assert_eq "$db: --query-timeout=0.001 --results: incomplete, no Power@Size, the failed queries counted, exit 1" \
    "False None $(printf '%s\n' "$OUT" | grep -cE '^  [0-9]+ +Q[0-9]+ .* failed$') 1" \
    "$(json_get "$WORK/timeout-$db.json" 'd["tpch"]["power"]["complete"], d["tpch"]["power"]["power_size"], d["tpch"]["power"]["failed_steps"], d["summary"]["exit_code"]' | tr -d '(),')"
  assert_match "$db: --query-timeout=0.001: queries fail" "$OUT" "^  [0-9]+ +Q[0-9]+ .* failed$"
  assert_contains "$db: --query-timeout=0.001: metrics incomplete" "$OUT" "Metrics incomplete:"
  assert_not_contains "$db: --query-timeout=0.001: no Power@Size" "$OUT" "Power@Size:"
  assert_eq "$db: --query-timeout=0.001: the refresh functions still ran (update set 4 next)" 4 \
    "$(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
  # throughput test: 2 query streams and the refresh stream (update sets
  # 4 and 5), then the full sequence (power test, update set 6, then
  # throughput, 7 and 8)
  run_bmk tpch $O --scale=0.01 --tpch-test=throughput run
  assert_eq "$db: throughput without --threads=3: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: throughput without --threads=3: message" "$OUT" \
    "runs 2 query streams and a refresh stream: give --threads=3"
  run_bmk tpch $O --scale=0.01 --tpch-test=throughput --threads=3 --seed=7 --results="$WORK/tput-$db.json" run
  assert_eq "$db: throughput test: exit 0" 0 "$RC"
  check "$db: throughput test --results: the document validates" json_ok "$WORK/tput-$db.json"
  assert_eq "$db: throughput test --results: 44 queries and 4 RFs ok; Ts the latest stream end; Throughput@Size from Ts" "ok" \
    "$(python3 - "$WORK/tput-$db.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = d["tpch"]["throughput"]; f = d["summary"]["figures"]
st = t["steps"]; bad = []
if [sum(1 for s in st if s["stream"] == k and s["status"] == "ok") for k in (1, 2, "RF")] != [22, 22, 4]: bad.append("steps")
if max(s["start_s"] + s["seconds"] for s in st) > t["ts_s"] + 1e-3: bad.append("ts")
if abs(t["throughput_size"] - 2 * 22 * 3600 / t["ts_s"] * 0.01) > 1e-6 * t["throughput_size"]: bad.append("size")
if abs(f["tpch_throughput_size"]["value"] - t["throughput_size"]) > 1e-6 * t["throughput_size"]: bad.append("fig")
print(" ".join(bad) or "ok")
PY
)"
  assert_contains "$db: throughput test: streams, seeds and update sets" "$OUT" \
    "Throughput test, SF 0.01, 2 query streams (seeds 8..9), update sets 4..5:"
  assert_eq "$db: throughput test: 44 queries and 4 refresh functions ok" "44 4" \
    "$(printf '%s\n' "$OUT" | grep -cE '^  [12] +[0-9]+ +Q[0-9]+ .* ok$') $(printf '%s\n' "$OUT" | grep -cE '^  RF +RF[12] [45] .* ok$')"
  assert_eq "$db: throughput test: stream 1's and 2's orders (Appendix A)" \
    "21 3 18 5 11 7 6 20 17 12 16 15 13 10 2 8 14 19 9 22 1 4 6 17 14 16 19 10 9 2 15 8 5 22 12 7 13 18 1 4 20 3 11 21" \
    "$(printf '%s\n' "$OUT" | awk '/^  [12] +[0-9]+ +Q/ {sub("Q", "", $3); printf "%s%s", s, $3; s=" "}')"
  ts=$(printf '%s\n' "$OUT" | sed -n 's/^Ts (the longest stream): \([0-9.]*\) s$/\1/p')
  want=$(awk -v t="${ts:-1}" 'BEGIN { printf "%.1f", 2 * 22 * 3600 / t * 0.01 }')
  got=$(printf '%s\n' "$OUT" | sed -n 's/^Throughput@Size: //p')
  assert_near "$db: throughput test: Throughput@Size is 2 x 22 x 3600 / Ts x SF" "$want" "${got:-0}" 2
  assert_eq "$db: throughput test: two update sets used" 6 "$(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
  # the full test with --metrics-listen: scraped while it runs, then
  # once more after its end (--metrics-linger keeps the endpoint until then)
  MPORT=$(free_port 19733)
  run_scraped "$WORK/full.out" "$MPORT" \
    "$BMK" tpch $O --scale=0.01 --tpch-test=full --threads=3 --results="$WORK/full-$db.json" \
    --metrics-listen=127.0.0.1:$MPORT --metrics-linger=60 run
  assert_eq "$db: full test: exit 0" 0 "$RC"
  # after the end: none in flight, 66 queries (22 of the power test, 2 x
  # 22 of the streams), none failed, the histogram's +Inf bucket is the
  # count, QphH@Size is the document's
  assert_eq "$db: --metrics-listen after the end: in flight, count, +Inf bucket, failed" "0 66 66 0" \
    "$(printf '%s\n' "$PAGE" | awk '/^bmk_tpch_queries_in_flight\{/ {a=$2} /^bmk_tpch_query_duration_seconds_count\{/ {b=$2}
      /^bmk_tpch_query_duration_seconds_bucket\{.*le="\+Inf"/ {c=$2} /^bmk_tpch_queries_failed_total\{/ {d=$2} END {print a, b, c, d}')"
  assert_eq "$db: --metrics-listen: bmk_tpch_qphh_size is the document's" "ok" \
    "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); q = d["tpch"]["qphh_size"]
v = [float(l.split()[1]) for l in sys.argv[2].splitlines() if l.startswith("bmk_tpch_qphh_size{")]
print("ok" if v and abs(v[0] - q) < 1e-6 * q else "differs: %r %r" % (v, q))' "$WORK/full-$db.json" "$PAGE")"
  assert_eq "$db: full test --results: QphH@Size is sqrt(Power@Size x Throughput@Size)" "ok" \
    "$(json_get "$WORK/full-$db.json" '"ok" if abs(d["tpch"]["qphh_size"] - (d["tpch"]["power"]["power_size"] * d["tpch"]["throughput"]["throughput_size"]) ** 0.5) < 1e-6 * d["tpch"]["qphh_size"] else d["tpch"]')"
  assert_match "$db: full test: the power test on set 6" "$OUT" "^Power test, SF 0.01, seed [0-9]+, update set 6:$"
  assert_match "$db: full test: the throughput test on sets 7 and 8" "$OUT" "update sets 7..8:$"
  p=$(printf '%s\n' "$OUT" | sed -n 's/^Power@Size: //p')
  t=$(printf '%s\n' "$OUT" | sed -n 's/^Throughput@Size: //p')
  want=$(awk -v p="${p:-0}" -v t="${t:-0}" 'BEGIN { printf "%.2f", sqrt(p * t) }')
  got=$(printf '%s\n' "$OUT" | sed -n 's/^QphH@Size: \([0-9.]*\) (Power@Size .*, Throughput@Size .*)$/\1/p')
  # the printed Power and Throughput are rounded to 0.1: sqrt moves by < 0.1
  assert_near "$db: full test: QphH@Size is sqrt(Power x Throughput)" "$want" "${got:-0}" 0.2
  # bmk report --html: the power test's bars and the streams' timeline
  run_bmk report --html="$WORK/full-$db.html" "$WORK/full-$db.json"
  assert_eq "$db: report --html of the full test: exit 0, 2 charts" "0 2" \
    "$RC $(grep -c '^<figure class="chart"' "$WORK/full-$db.html")"
  assert_eq "$db: after the full test: orders unchanged" 15000 "$(q $db "SELECT COUNT(*) FROM orders")"
  run_bmk tpch $O --scale=0.01 check
  assert_contains "$db: check after 8 update sets: all passed" "$OUT" "Checks: 18 PASSED, 0 FAILED"
  assert_contains "$db: check: the 8 sets' orders" "$OUT" "PASS  orders of the 8 update set(s) applied (80)"
  # bad answers directories: refused before anything runs
  mkdir -p "$WORK/ans-bad"
  run_bmk tpch $O --scale=0.01 --answers="$WORK/ans-bad" run
  assert_eq "$db: --answers without files: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: --answers without files: message" "$OUT" "no answer for Q1 in $WORK/ans-bad (q1.out or q01.csv)"
  if [ -d "$WORK/ans-$db" ]; then
    cp "$WORK/ans-$db"/q*.out "$WORK/ans-bad/"
    printf 'c1|c2\n1|2\n' > "$WORK/ans-bad/q6.out"
    run_bmk tpch $O --scale=0.01 --answers="$WORK/ans-bad" run
    assert_contains "$db: --answers with a malformed file: message" "$OUT" "q6.out: the header has 2 columns, Q6 has 1"
  else
    skip "$db: --answers with a malformed file" "needs the validation run's answers (normal pass)"
  fi
  assert_eq "$db: bad --answers: no update set used" 9 "$(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
  rm -rf "$WORK/ans-bad"
  run_bmk tpch $O --scale=0.01 --metrics-listen=bad run
  assert_eq "$db: --metrics-listen=bad: exit 1, one FATAL line, no update set used" "1 1 9" \
    "$RC $(fatal_lines) $(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
  run_bmk tpch $O --scale=0.01 --results="$WORK/no/such/dir.json" run
  assert_eq "$db: --results in a missing directory: refused first, exit 1, one FATAL line, no update set used" "1 1 9" \
    "$RC $(fatal_lines) $(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
  # Ctrl-C during the power test (sent once the run has begun: RF1 builds
  # its text first): the step in flight ends, RF2 undoes RF1, the table
  # so far is printed and in --results, marked interrupted; exit 130
  "$BMK" tpch $O --scale=0.01 --results="$WORK/int-$db.json" run > "$WORK/int.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q '^Power test: ' "$WORK/int.out" && break; sleep 0.1; done
  kill -INT $pid
  wait $pid
  RC=$?
  OUT=$(cat "$WORK/int.out")
  assert_eq "$db: Ctrl-C: exit 130, metrics incomplete" "130 1" "$RC $(printf '%s\n' "$OUT" | grep -c '^Metrics incomplete: interrupted after')"
  assert_eq "$db: Ctrl-C: the printed steps are the document's, RF2 ran, interrupted by SIGINT" \
    "$(printf '%s\n' "$OUT" | grep -cE '^  [0-9]+ +Q[0-9]+ .* ok$|^ +RF[12] .* ok$') ok SIGINT 130" \
    "$(json_get "$WORK/int-$db.json" '" ".join([str(len(d["tpch"]["power"]["steps"])), d["tpch"]["power"]["steps"][-1]["status"], d["summary"]["interrupted_reason"], str(d["summary"]["exit_code"])])')"
  run_bmk tpch $O --scale=0.01 check
  assert_contains "$db: check after Ctrl-C: all passed" "$OUT" "Checks: 18 PASSED, 0 FAILED"
  # the kit's TPCH names (docs/kit.md): the generated power script runs
  # `bmk tpch ... --tpch-test=power run` on the kit's server, on the next
  # update set
  K=$WORK/kit-$db
  kit_home $db "$K" TPCH_SF0.01-power
  next=$(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")
  OUT=$(BMK_HOME=$K timeout -k 5 120 bash "$K/sb_exec/sb11-TPCH_SF0.01-power.sh" 2>&1)
  RC=$?
  assert_eq "$db: kit TPCH_SF0.01-power: exit 0, 22 queries and 2 RFs ok, Power@Size, the next update set" \
    "0 24 1 $((next + 1))" \
    "$RC $(printf '%s\n' "$OUT" | grep -cE '^  [0-9]+ +Q[0-9]+ .* ok$|^ +RF[12] .* ok$') $(printf '%s\n' "$OUT" | grep -c '^Power@Size: ') $(q $db "SELECT v FROM tpch_meta WHERE k='rf_next'")"
  q $db "UPDATE tpch_meta SET v='rf1' WHERE k='rf_state'" >/dev/null
  run_bmk tpch $O --scale=0.01 run
  assert_contains "$db: run after an RF1 without its RF2: refused" "$OUT" "was inserted (RF1) but not deleted (RF2)"

  run_bmk tpch $O cleanup
  assert_eq "$db: cleanup: no tpch table left" 0 \
    "$(q $db "SELECT COUNT(*) FROM information_schema.tables WHERE table_name IN ('region','nation','part','supplier','partsupp','customer','orders','lineitem','tpch_meta') AND table_schema IN ('sbtest','public')")"
done

# the answers' tolerances (clause 2.1.3.5) on made-up rows
cat > "$WORK/answers_check.lua" <<'LUA'
local a = require("tpch_answers")
local function show(q, rows, ans) print(q, a.compare(q, rows, ans) or "PASS") end
sysbench.cmdline.commands = { t = { function()
  show(6, { { "1000.00" } }, { { "1099.00" } })              -- sum within 100
  show(6, { { "1000.00" } }, { { "1100.01" } })              -- sum off by 100.01
  show(14, { { "16.5" } }, { { "16.38" } })                   -- ratio within 1%
  show(14, { { "16.6" } }, { { "16.38" } })                   -- ratio off by 1.3%
  show(13, { { "9", "6641" } }, { { "9", "6642" } })          -- count exact
  show(21, { { "Supplier#000000001   ", "12" } }, { { "Supplier#000000001", "12" } })
  show(21, { { "Supplier#000000002", "12" } }, { { "Supplier#000000001", "12" } })
  show(4, { { "1-URGENT", "1" } }, {})                        -- row count
  return true
end } }
LUA
run_bmk "$WORK/answers_check.lua" t
assert_eq "answers: tolerances" "6 PASS
6 row 1 column 1: got '1000.00', want '1100.01'
14 PASS
14 row 1 column 1: got '16.6', want '16.38'
13 row 1 column 2: got '6641', want '6642'
21 PASS
21 row 1 column 1: got 'Supplier#000000002', want 'Supplier#000000001'
4 1 rows, the answer has 0" "$(printf '%s\n' "$OUT" | grep -E '^[0-9]+	' | tr '\t' ' ')"

# validation mode: each query's result (rows and a checksum of the values,
# numbers rounded to cents) is the same on both databases
if [ -n "${SUMS[mysql]:-}" ] && [ -n "${SUMS[pgsql]:-}" ]; then
  assert_eq "validation run: the 22 results equal on MariaDB and PostgreSQL" \
    "${SUMS[mysql]}" "${SUMS[pgsql]}"
fi

finish
