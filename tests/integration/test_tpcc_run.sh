#!/usr/bin/env bash
# bmk tpcc, runs (docs/tpcc.md): the kit's run scripts and the variant
# refusal, every mode (ps, text, sp; pipeline on PostgreSQL) under
# contention followed by `check`, one round trip per transaction in sp
# mode, statement captures (--splittable, --for-update, --force-primary,
# OS3 reading OS2's order), the intended rollback, Delivery on an empty
# district, --trx-debug, the deck, keying/thinking, the warehouse models,
# NOPM agreement and disagreement, warmup exclusion, errors and retries
# per code, the audit, the by-name position (procedures), stock and
# customer counters, purge, report files, the disclaimer, no "tpmC".
#
# Uses the DEFAULT-variant --scale=2 schema test_tpcc.sh prepares (and
# prepares it when run alone); drops it at the end. Runs are a few
# seconds: every figure is checked for exact agreement or against
# widened bands, never for speed.
set -u
source "$(dirname "$0")/lib/lib.sh"
source "$(dirname "$0")/lib/tpcc_lib.sh"
cd "$WORK" || exit 1
unset BMK_HOME BMK_KIT_WORKLOAD MYSQL_PWD PGPASSWORD

ALL_OUT=$WORK/all.out
tpcc() { run_bmk tpcc $O $T "$@"; printf '%s\n' "$OUT" >> "$ALL_OUT"; }
# calls TYPE: CALLS of the xtprof-style table
calls() { printf '%s\n' "$OUT" | awk -v t="$1" '$1 == t && NF == 13 {print $2}' | head -1; }
# pertype TYPE COLUMN: a column of "Transactions per type" (2 attempts,
# 3 commits, 4 rollbacks, 5 retries, 6 ignored, 7 gave up)
pertype() { printf '%s\n' "$OUT" | awk -v t="$1" -v c="$2" '$1 == t && NF == 8 {print $c}' | head -1; }
next_o_sum() { q $db "SELECT SUM(d_next_o_id) FROM district1 WHERE d_w_id=$1"; }

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)
  T="--scale=2 --force-null=0"
  run_bmk tpcc $O $T --threads=4 prepare
  # a schema of other options left by something else: start again
  [ $RC -ne 0 ] && run_bmk tpcc $O $T --threads=4 --force prepare
  assert_eq "$db: schema ready" 0 "$RC"

  # ---- the kit's run scripts (TPCC_<n>W names) --------------------------------
  K=$WORK/kit-$db
  kit_home $db "$K" TPCC_100W TPCC_100W-NULL
  OUT=$(BMK_HOME=$K timeout -k 5 60 bash "$K/sb_exec/sb11-TPCC_100W.sh" 4 2 --scale=2 --report-interval=1 2>&1)
  RC=$?
  assert_eq "$db: kit TPCC_100W run exit 0" 0 "$RC"
  assert_match "$db: kit run: tpcc interval line" "$OUT" '^\[ 1s \] tpcc NOPM\(client\) [0-9]+ TPM\(server\) [0-9]+ rbk/s'
  assert_match "$db: kit run: per-type interval line" "$OUT" '^\[ 1s \]   new_order +n=[0-9]+ min=[0-9.]+ p50=[0-9.]+ p95=[0-9.]+ p99=[0-9.]+ max=[0-9.]+ ms$'
  assert_match "$db: kit run: NOPM from TPM" "$OUT" '^NOPM [0-9]+ from [0-9]+ (MariaDB|MySQL|PostgreSQL) TPM$'
  OUT=$(BMK_HOME=$K timeout -k 5 60 bash "$K/sb_exec/sb11-TPCC_100W-NULL.sh" 4 2 --scale=2 2>&1)
  RC=$?
  assert_eq "$db: TPCC_100W-NULL on a DEFAULT schema: exit 1" 1 "$RC"
  assert_contains "$db: variant mismatch message" "$OUT" "variant mismatch: the schema is the DEFAULT variant"

  # ---- every mode under contention, then check ---------------------------------
  modes="ps text sp"
  [ $db = pgsql ] && modes="$modes pipeline"
  for m in $modes; do
    # retries on, except text mode on PostgreSQL: 40001 then ignored
    retry=on
    [ $db = pgsql ] && [ $m = text ] && retry=off
    tpcc --tpcc-mode=$m --threads=8 --time=2 --trx-retry=$retry --audit-min-neworders=0 --rand-seed=11 \
      --results="$WORK/fig.json" --threshold='tpcc_nopm>0' --threshold='nopm>0' run
    assert_eq "$db $m: exit 0, no FATAL" "0 0" "$RC $(printf '%s\n' "$OUT" | grep -c '^FATAL')"
    for t in new_order payment order_status delivery stock_level; do
      check "$db $m: $t ran" test "$(calls $t)" -gt 0
    done
    assert_match "$db $m: schema and client NOPM agree" "$OUT" '^NOPM \(schema, sum\(d_next_o_id\)\): [0-9]+; NOPM \(client, committed New-Orders\): [0-9]+; agree'
    assert_contains "$db $m: audit passes" "$OUT" "Audit verdict: PASS"
    # NOPM and TPM as figures of the run: the numbers the report prints
    nt=$(printf '%s\n' "$OUT" | sed -nE 's/^NOPM ([0-9]+) from ([0-9]+) (MariaDB|MySQL|PostgreSQL) TPM$/\1 \2/p')
    assert_eq "$db $m: summary.figures tpcc_nopm, tpcc_tpm = the report's NOPM and TPM" "$nt" \
      "$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["summary"]["figures"]; print("%.0f %.0f" % (f["tpcc_nopm"]["value"], f["tpcc_tpm"]["value"]))' "$WORK/fig.json")"
    assert_match "$db $m: --threshold on a figure (tpcc_nopm)" "$OUT" '^threshold tpcc_nopm>0: [0-9]+\.[0-9]{2} — passed$'
    assert_eq "$db $m: --threshold nopm is tpcc_nopm" \
      "$(printf '%s\n' "$OUT" | sed -n 's/^threshold tpcc_nopm>0: \([0-9.]*\) .*/\1/p')" \
      "$(printf '%s\n' "$OUT" | sed -n 's/^threshold nopm>0: \([0-9.]*\) .*/\1/p')"
    assert_contains "$db $m: disclaimer" "$OUT" "TPROC-C-style workload derived from TPC-C; results are not TPC-C results"
    if [ $m = sp ]; then
      tr=$(report_value "transactions:" "$OUT")
      tq=$(printf '%s\n' "$OUT" | grep -E '^ +total:' | head -1 | awk '{print $2}')
      # MySQL's CALL ends with a status result the driver reads too (no round trip)
      per=$([ $db = mysql ] && echo 2 || echo 1)
      assert_eq "$db sp: one statement per transaction" "$((tr * per))" "$tq"
    fi
    if [ $db = pgsql ] && [ $retry = on ]; then
      check "$db $m: RR serialization failures retried" test "$(printf '%s\n' "$OUT" | awk '$1 == "40001" {s += $4} END {print s + 0}')" -gt 0
    fi
    if [ $db = pgsql ] && [ $retry = off ]; then
      assert_match "$db $m: retries off: 40001 ignored, under its code" "$OUT" '^  40001 +(new_order|payment) +[0-9]+ +0 +[0-9]+$'
      assert_contains "$db $m: PostgreSQL RR without retries warns" "$OUT" "serialization failures (40001) will be counted as ignored errors"
    fi
    assert_not_contains "$db $m: no 'no transaction in progress'" "$OUT" "no transaction in progress"
    cp "$WORK/fig.json" "$WORK/fig-$m.json"
    # the same mode on the event loop: every statement waits on the loop
    # (sysbench.sql.raw), none blocks the worker
    tpcc --tpcc-mode=$m --threads=8 --workers=2 --time=1 --trx-retry=$retry --audit-min-neworders=0 \
      --rand-seed=15 --results="$WORK/ev.json" run
    assert_eq "$db $m, event loop: exit 0, no FATAL" "0 0" "$RC $(printf '%s\n' "$OUT" | grep -c '^FATAL')"
    assert_contains "$db $m, event loop: 8 sessions on 2 workers" "$OUT" "Virtual users: 8 on 2 worker threads (event loop)"
    assert_eq "$db $m, event loop: no SQL call blocked a worker" 0 \
      "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["client"]["loop_blocking_calls"])' "$WORK/ev.json")"
    assert_match "$db $m, event loop: schema and client NOPM agree" "$OUT" '^NOPM \(schema, sum\(d_next_o_id\)\): [0-9]+; NOPM \(client, committed New-Orders\): [0-9]+; agree'
  done
  # bmk compare of two tpcc runs: NOPM and TPM rows, each side's value the
  # run's figure (one run a side: no interval for the difference)
  OUT=$("$BMK" compare --json "$WORK/fig-ps.json" "$WORK/fig-text.json" 2>&1)
  assert_eq "$db: compare --json: NOPM and TPM rows with the runs' figures" "True True" \
    "$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = {m["metric"]: m for m in d["metrics"]}
def fig(f, k): return json.load(open(sys.argv[1] % f))["summary"]["figures"][k]["value"]
print(all(abs(rows[k]["a"] - fig("ps", k)) < 1e-6 * fig("ps", k) + 1e-9 and abs(rows[k]["b"] - fig("text", k)) < 1e-6 * fig("text", k) + 1e-9 for k in ("tpcc_nopm", "tpcc_tpm")),
      rows["tpcc_nopm"]["verdict"] == "not enough samples")' "$WORK/fig-%s.json")"
  for fu in 0 2; do
    tpcc --for-update=$fu --threads=8 --time=1 --trx-retry=on --rand-seed=12 run
    assert_eq "$db: --for-update=$fu contended run exit 0" 0 "$RC"
  done
  tpcc --threads=2 check
  assert_eq "$db: after all modes and lock levels: check exit 0, no FAILED" "0 0" \
    "$RC $(printf '%s\n' "$OUT" | grep -c 'FAILED!!!')"
  assert_contains "$db: check 11 N/A after Deliveries" "$OUT" "Check 11, warehouse: 1 N/A (a Delivery has run)"
  # stock and customer counters follow the committed work (New-Order and Payment, TPC-C clauses 2.4, 2.5)
  assert_eq "$db: sum(s_ytd) = quantities of the new lines, s_order_cnt and s_remote_cnt agree" "0 0 0" \
    "$(q $db "SELECT (SELECT SUM(s_ytd) FROM stock1) - (SELECT COALESCE(SUM(ol_quantity),0) FROM order_line1 WHERE ol_o_id > 3000), (SELECT SUM(s_order_cnt) FROM stock1) - (SELECT COUNT(*) FROM order_line1 WHERE ol_o_id > 3000), (SELECT SUM(s_remote_cnt) FROM stock1) - (SELECT COUNT(*) FROM order_line1 WHERE ol_supply_w_id <> ol_w_id)" | tr '\t' ' ')"
  assert_eq "$db: c_payment_cnt = the customer's history rows" 0 \
    "$(q $db "SELECT COUNT(*) FROM customer1 c WHERE c_payment_cnt <> (SELECT COUNT(*) FROM history1 h WHERE h_c_w_id=c.c_w_id AND h_c_d_id=c.c_d_id AND h_c_id=c.c_id)")"
  check "$db: remote order lines and payments happened (scale 2)" test \
    "$(q $db "SELECT (SELECT COUNT(*) FROM order_line1 WHERE ol_supply_w_id <> ol_w_id) * (SELECT COUNT(*) FROM history1 WHERE h_c_w_id <> h_w_id)")" -gt 0

  # ---- statement captures (text mode, --db-debug) ---------------------------------
  tpcc --tpcc-mode=text --db-debug=on --verbosity=5 --splittable=yes --events=100 --rand-seed=13 run
  ro=$(printf '%s\n' "$OUT" | grep -c 'query: START TRANSACTION READ ONLY')
  rw=$(printf '%s\n' "$OUT" | grep -c 'query: START TRANSACTION READ WRITE')
  assert_eq "$db: --splittable: READ ONLY = Order-Status + Stock-Level, READ WRITE = the rest" \
    "$(( $(calls order_status) + $(calls stock_level) )) $(( $(calls new_order) + $(calls payment) + $(calls delivery) ))" "$ro $rw"
  # OS3 reads the order OS2 found (sysbench-tpcc passes the district id)
  tpcc --tpcc-mode=text --db-debug=on --verbosity=5 --trx-debug=3 --events=15 --rand-seed=14 run
  pairs=$(printf '%s\n' "$OUT" | sed -n -e 's/.*FROM orders1 WHERE o_w_id=\([0-9]*\) AND o_d_id=\([0-9]*\) AND o_c_id=\([0-9]*\) ORDER BY o_id DESC.*/os2 \1 \2 \3/p' \
           -e 's/.*FROM order_line1 WHERE ol_w_id=\([0-9]*\) AND ol_d_id=\([0-9]*\) AND ol_o_id=\([0-9]*\).*/os3 \1 \2 \3/p')
  bad=0; n=0
  while read -r k1 w d c && read -r k2 w2 d2 o; do
    n=$((n + 1))
    want=$(q $db "SELECT MAX(o_id) FROM orders1 WHERE o_w_id=$w AND o_d_id=$d AND o_c_id=$c")
    [ "$k1 $k2 $w $d" = "os2 os3 $w2 $d2" ] && [ "$o" = "$want" ] || bad=$((bad + 1))
  done <<< "$pairs"
  assert_eq "$db: OS3 reads the customer's last order, 15 of 15" "15 0" "$n $bad"
  assert_eq "$db: without --splittable: BEGIN, no START TRANSACTION" 0 \
    "$(printf '%s\n' "$OUT" | grep -c 'query: START TRANSACTION')"
  tpcc --tpcc-mode=text --db-debug=on --verbosity=5 --trx-debug=1 --for-update=0 --events=3 run
  assert_eq "$db: --for-update=0: no FOR UPDATE" 0 "$(printf '%s\n' "$OUT" | grep -c 'FOR UPDATE')"
  assert_match "$db: --for-update=0: NO3 before NO2" "$(printf '%s\n' "$OUT" | grep -E 'query: (UPDATE district1 SET d_next_o_id|SELECT d_next_o_id)' | head -2 | tr '\n' '|')" 'query: UPDATE district1.*\|.*SELECT d_next_o_id'
  tpcc --tpcc-mode=text --db-debug=on --verbosity=5 --trx-debug=4 --for-update=2 --force-primary=1 --events=1 run
  assert_contains "$db: --for-update=2: Delivery's orders select locks" "$OUT" "FROM orders1 WHERE o_id="
  assert_match "$db: --for-update=2: ... FOR UPDATE" "$OUT" 'SELECT o_c_id FROM orders1 WHERE .* FOR UPDATE'
  if [ $db = mysql ]; then
    assert_eq "$db: --force-primary=1: D5 and D6 hinted in all 10 districts" 20 "$(printf '%s\n' "$OUT" | grep -c 'order_line1 FORCE INDEX (PRIMARY)')"
  else
    assert_contains "$db: --force-primary on PostgreSQL: notice" "$OUT" "NOTICE: --force-primary is a MySQL index hint; ignored on PostgreSQL"
    assert_not_contains "$db: no hint on PostgreSQL" "$OUT" "FORCE INDEX"
  fi
  tpcc --tpcc-mode=text --db-debug=on --verbosity=5 --trx-debug=4 --events=1 run
  assert_not_contains "$db: --for-update=1: Delivery's orders select does not lock" "$OUT" "SELECT o_c_id FROM orders1 WHERE o_id=1 AND o_d_id=1 AND o_w_id=1 FOR UPDATE"

  # ---- the intended rollback (1% of New-Orders) -----------------------------------------
  tpcc --trx-debug=1 --threads=1 --events=600 --trx-retry=on --rollback-as-error=on --rand-seed=3 run
  rb=$(pertype new_order 4)
  check "$db: New-Orders rolled back ($rb)" test "${rb:-0}" -gt 0
  assert_eq "$db: rollbacks not retried, not errors in the code table" "0 none" \
    "$(pertype new_order 5) $(printf '%s\n' "$OUT" | grep -A1 '^Errors by code' | tail -1 | awk '{print $1}')"
  assert_eq "$db: --rollback-as-error=on: rollbacks in err/s (ignored errors)" "$rb" "$(report_value "ignored errors:" "$OUT")"
  assert_match "$db: rolled-back orders leave d_next_o_id alone (NOPM agree)" "$OUT" 'agree \(difference 0 '
  only=$(printf '%s\n' "$OUT" | awk 'NF == 13 && $2 ~ /^[0-9]+$/ {print $1}' | tr '\n' ' ')
  assert_eq "$db: --trx-debug=1 runs New-Order only" "new_order " "$only"
  tpcc --trx-debug=2 --events=5 run
  assert_eq "$db: --trx-debug=2 runs Payment only" "payment " "$(printf '%s\n' "$OUT" | awk 'NF == 13 && $2 ~ /^[0-9]+$/ {print $1}' | tr '\n' ' ')"
  tpcc --trx-debug=5 --events=5 run
  assert_eq "$db: --trx-debug=5 runs Stock-Level only" "stock_level " "$(printf '%s\n' "$OUT" | awk 'NF == 13 && $2 ~ /^[0-9]+$/ {print $1}' | tr '\n' ' ')"

  # ---- the deck (45/43/4/4/4 per session) -----------------------------------------------------------
  tpcc --events=100 --rand-seed=16 run
  assert_eq "$db: one full deck = 45/43/4/4/4" "45 43 4 4 4" \
    "$(calls new_order) $(calls payment) $(calls order_status) $(calls delivery) $(calls stock_level)"

  assert_contains "$db: short runs: INSUFFICIENT SAMPLE" "$OUT" "Audit verdict: INSUFFICIENT SAMPLE"
  tpcc --events=100 --mix=50,40,4,3,3 --audit-min-neworders=0 run
  assert_eq "$db: --mix=50,40,4,3,3 fails the Payment, Delivery (and Stock-Level, 3 %) minimums" \
    "mix: Payment share|mix: Delivery share|mix: Stock-Level share" \
    "$(printf '%s\n' "$OUT" | grep -E '^  mix: .* FAIL$' | sed 's/ share .*/ share/; s/^  //' | tr '\n' '|' | sed 's/|$//')"
  assert_contains "$db: the audit fails" "$OUT" "Audit verdict: FAIL"

  # ---- NURand constants fixed per run, recorded, delta rule (TPC-C 2.1.6.1) ----------------
  b=$(printf '%s\n' "$OUT" | sed -n 's/^tpcc: NURand constants C_LOAD \([0-9]*\), C_RUN (C_LAST) \([0-9]*\), C_ID \([0-9]*\), C_OL_I_ID \([0-9]*\).*/\1 \2 \3 \4/p')
  m=$(printf '%s\n' "$OUT" | sed -n 's/.*NURand C_LOAD \([0-9]*\) C_RUN \([0-9]*\) C_ID \([0-9]*\) C_OL_I_ID \([0-9]*\)$/\1 \2 \3 \4/p')
  assert_eq "$db: banner and manifest show the same constants" "$b" "$m"
  assert_eq "$db: C_LOAD is the recorded one" "$(q $db "SELECT v FROM tpcc_meta WHERE k='c_load'")" "${b%% *}"
  check "$db: C_RUN obeys the delta rule ($b)" awk -v s="$b" 'BEGIN { split(s, a, " "); d = a[2] - a[1]; if (d < 0) d = -d; exit !(d >= 65 && d <= 119 && d != 96 && d != 112) }'
  cl=${b%% *}
  tpcc --events=10 --nurand-c=$cl,2,3 run
  assert_contains "$db: --nurand-c overrides" "$OUT" "C_RUN (C_LAST) $cl, C_ID 2, C_OL_I_ID 3"
  assert_contains "$db: --nurand-c delta breach warns" "$OUT" "breaks the delta rule"

  # ---- keying and thinking (TPC-C 5.2.5.7) ---------------------------------------------------
  # (a fixed count: 1 s under ASan once made 11 transactions and no
  # new_order p90 line)
  tpcc --keying-thinking=on --kt-scale=0.01 --threads=2 --events=24 --time=0 --audit-min-neworders=0 run
  assert_eq "$db: keying/thinking run exit 0" 0 "$RC"
  assert_match "$db: keying/thinking means shown, flagged for --kt-scale" "$OUT" 'keying/thinking means +[0-9.]+% \(x0.01\) .* FAIL$'
  assert_match "$db: p90 judged with keying/thinking" "$OUT" 'p90 response time new_order +[0-9.]+s +<= 5s +<= 5s  PASS$'
  assert_contains "$db: efficiency" "$OUT" "Efficiency: "
  tpcc --keying-thinking=on --rate=10 --time=1 run
  assert_contains "$db: keying/thinking excludes --rate" "$OUT" "exclude each other"

  # ---- warehouse models (home, all, random) ----------------------------------------------------------
  w2=$(next_o_sum 2)
  tpcc --trx-debug=1 --events=30 run
  assert_eq "$db: home: one session (home warehouse 1) leaves warehouse 2's districts alone" "$w2" "$(next_o_sum 2)"
  tpcc --trx-debug=1 --events=60 --all-warehouses run
  check "$db: --all-warehouses: one session reaches warehouse 2" test "$(next_o_sum 2)" -gt "$w2"
  assert_match "$db: the audit flags a model other than home" "$OUT" 'warehouse model +all +home +home  (FAIL|INSUFFICIENT SAMPLE)$'

  # ---- event mode: 16 sessions on 2 workers (--async-sessions) -----------------------------
  # the workload's modules run once per VU in each worker's Lua state and
  # the client counters are per worker: every count exact
  tpcc --threads=2 --async-sessions=8 --time=2 --audit-min-neworders=0 run
  assert_eq "$db async sessions: exit 0, no FATAL" "0 0" "$RC $(printf '%s\n' "$OUT" | grep -c '^FATAL')"
  assert_contains "$db async sessions: event mode" "$OUT" "Virtual users: 16 on 2 worker threads (event loop)"
  assert_contains "$db async sessions: schema and client NOPM agree exactly" "$OUT" "agree (difference 0 New-Orders"
  tr=$(report_value "transactions:" "$OUT")
  sum=$(printf '%s\n' "$OUT" | awk 'NF == 13 && $2 ~ /^[0-9]+$/ {s += $2} END {print s}')
  check "$db async sessions: per-type CALLS add up to the transactions ($sum, $tr)" \
    test "${tr:-0}" -gt 0 -a "${sum:-x}" = "$tr"

  # --async-sessions=auto: one session per terminal, 10 x 2 warehouses
  tpcc --threads=2 --async-sessions=auto --time=1 --audit-min-neworders=0 run
  assert_contains "$db --async-sessions=auto: a session per terminal" "$OUT" \
    "Virtual users: 20 on 2 worker threads (event loop)"

  # ---- NOPM disagreement with another writer (agree within 2 x sessions) ----------------------------------
  "$BMK" tpcc $O $T --trx-debug=1 --time=3 run > "$WORK/dis.out" 2>&1 &
  pid=$!
  sleep 1.5
  q $db "UPDATE district1 SET d_next_o_id = d_next_o_id + 100 WHERE d_w_id=2 AND d_id=1" >/dev/null
  wait $pid
  q $db "UPDATE district1 SET d_next_o_id = d_next_o_id - 100 WHERE d_w_id=2 AND d_id=1" >/dev/null
  assert_contains "$db: an external writer: NOPM DISAGREE" "$(cat "$WORK/dis.out")" "NOPM DISAGREE (difference 100 New-Orders"

  # ---- Ctrl-C: the tpcc report of what was measured, exit 130 ----------------------
  "$BMK" tpcc $O $T --threads=2 --time=60 run > "$WORK/int.out" 2>&1 &
  pid=$!
  sleep 2
  kill -INT $pid
  wait $pid
  rc=$?
  int=$(cat "$WORK/int.out")
  assert_eq "$db: SIGINT: exit 130" 130 "$rc"
  assert_contains "$db: SIGINT: interrupted report" "$int" "Run interrupted: SIGINT"
  assert_match "$db: SIGINT: NOPM and the audit still printed" "$int" '^Audit verdict: '
  assert_match "$db: SIGINT: schema and client NOPM agree" "$int" '; agree \('

  # ---- warmup excluded ------------------------------------------------------------------
  tpcc --threads=2 --warmup-time=1 --time=2 --tpcc-report=$WORK/r.csv --report-interval=1 run
  tr=$(report_value "transactions:" "$OUT")
  sum=$(printf '%s\n' "$OUT" | awk 'NF == 13 && $2 ~ /^[0-9]+$/ {s += $2} END {print s}')
  # (the engine's baseline reads the event counter and the per-type
  # numbers one after the other: an event ending in between may sit on
  # either side, so up to one per session)
  check "$db: warmup: per-type CALLS add up to the measured transactions ($sum, $tr)" \
    awk -v a="$sum" -v b="$tr" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 2) }' 
  assert_match "$db: warmup: schema NOPM from the end of warmup agrees" "$OUT" '; agree \('
  # (its output's first 40 lines are shown then; these are the NOPM lines)
  printf '%s\n' "$OUT" | grep -q '; agree (' ||
    printf '%s\n' "$OUT" | grep -E '^NOPM|DISAGREE|^FATAL|ERROR' | head -5 | sed 's/^/    | /'
  assert_eq "$db: --tpcc-report CSV header" "time,type,count,tpm,commits,rollbacks,errors,retries,min,p25,p50,p75,p95,p99,max,avg" "$(head -1 $WORK/r.csv)"
  assert_match "$db: --tpcc-report CSV rows" "$(cat $WORK/r.csv)" '^1,new_order,[0-9]+,[0-9.]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+(,[0-9.]+){8}$'
  tpcc --threads=1 --time=1 --report-interval=1 --report_csv=yes run
  assert_match "$db: --report_csv=yes: sysbench CSV lines" "$OUT" '^1,1,[0-9.]+,[0-9.]+,'
  assert_not_contains "$db: --report_csv=yes: no tpcc interval line" "$OUT" "] tpcc NOPM"

  # ---- by-name: row ceil(n/2) of the rows ordered by c_first (TPC-C 2.5.2.2), via PAYMENT ---------
  for n in 1 2 3 4 5 6; do
    for k in $(seq 1 $n); do
      q $db "UPDATE customer1 SET c_last='ZZFIX$n', c_first='F$((10 - k))' WHERE c_w_id=1 AND c_d_id=1 AND c_id=$((2000 + 10 * n + k))" >/dev/null
    done
    want=$((2000 + 10 * n + n + 1 - (n + 1) / 2))
    if [ $db = mysql ]; then
      got=$(q mysql "CALL PAYMENT1(1,1,1,1,0,1,'ZZFIX$n',100)" | awk '{print $2}')
    else
      got=$(q pgsql "CALL payment1(1,1,1,1,0,1,'ZZFIX$n',100,NULL,NULL)" | awk '{print $2}')
    fi
    assert_eq "$db: by-name with $n customer(s) takes row $(( (n + 1) / 2 ))" "$want" "$got"
  done

  # ---- purge: checks 8, 9, 10, 12 N/A afterwards (TPC-C 3.3.2) ------------------------------
  tpcc --enable_purge=yes --mix=0,0,0,0,1 --purge-weight=9 --events=10 run
  check "$db: purge ran" test "$(calls purge)" -gt 0
  tpcc --threads=2 check
  assert_eq "$db: after purge: 8, 9, 10, 12 N/A, the rest pass" "0 4 0" \
    "$RC $(printf '%s\n' "$OUT" | grep -E -c 'Check (8|9|10|12), warehouse: 1 N/A \(purge has run\)') $(printf '%s\n' "$OUT" | grep -c 'FAILED!!!')"

  # ---- Delivery skips an empty district and goes on (TPC-C 2.7); last: deleting
  # new orders breaks check 5 ---------------------------------------------------
  q $db "DELETE FROM new_orders1 WHERE no_w_id=1 AND no_d_id=1" >/dev/null
  before=$(q $db "SELECT COUNT(*) FROM new_orders1 WHERE no_w_id=1")
  tpcc --trx-debug=4 --events=3 run
  assert_contains "$db: 3 Deliveries skip district 1 three times" "$OUT" "Delivery skipped 3 empty district(s)"
  assert_eq "$db: the other 9 districts were delivered each time" 27 \
    "$((before - $(q $db "SELECT COUNT(*) FROM new_orders1 WHERE no_w_id=1")))"

  run_bmk tpcc $O $T cleanup
  assert_eq "$db: cleanup" 0 "$RC"
done

# ---- Percona's sysbench-tpcc scripts, unmodified ---------------------------
# Only when SYSBENCH_TPCC_DIR holds them (nothing is fetched): run from
# their directory, in a database of their own.
if [ -f "${SYSBENCH_TPCC_DIR:-}/tpcc.lua" ]; then
  for db in ${BMK_TEST_DBS:-mysql pgsql}; do
    if [ $db = mysql ]; then
      q mysql "DROP DATABASE IF EXISTS sbtpcc; CREATE DATABASE sbtpcc" >/dev/null
      SO=${MYSQL_OPTS/--mysql-db=sbtest/--mysql-db=sbtpcc}
    else
      q pgsql "DROP DATABASE IF EXISTS sbtpcc" >/dev/null
      q pgsql "CREATE DATABASE sbtpcc" >/dev/null
      SO=${PGSQL_OPTS/--pgsql-db=sbtest/--pgsql-db=sbtpcc}
    fi
    for cmd in prepare run check cleanup; do
      OUT=$(cd "$SYSBENCH_TPCC_DIR" && timeout -k 5 300 "$BMK" ./tpcc.lua $SO --scale=1 --threads=2 --time=3 $cmd 2>&1)
      RC=$?
      assert_eq "$db: sysbench-tpcc's tpcc.lua $cmd: exit 0" 0 "$RC"
    done
    if [ $db = mysql ]; then q mysql "DROP DATABASE sbtpcc" >/dev/null; else q pgsql "DROP DATABASE sbtpcc" >/dev/null; fi
  done
else
  skip "sysbench-tpcc's own scripts run unmodified" "SYSBENCH_TPCC_DIR is not set (Percona's sysbench-tpcc is no Debian package: clone it and point SYSBENCH_TPCC_DIR at it)"
fi

# bmk's own words only: --db-debug's "DEBUG: query:" lines carry the
# data's random strings (24 alphanumerics per order line), which can hold
# any four letters. On failure the lines are shown.
OWN=$(grep -v '^DEBUG: ' "$ALL_OUT")
assert_not_contains "no output says tpmC" "$OWN" "tpmC"
[[ "$OWN" == *tpmC* ]] && printf '%s\n' "$OWN" | grep -n tpmC | head -5 | cut -c1-300 | sed 's/^/    | /'
finish
