#!/usr/bin/env bash
# DBL load tests and what they are built from (docs/capacity.md): workload
# metrics (sysbench.metric, no database), the fast load API (COPY FROM
# STDIN / LOAD DATA LOCAL INFILE: escaping, NULL, errors, counting),
# `bmk dbl` on MariaDB and PostgreSQL (rows/transactions in the exact ratio
# of --tx-size, rows in the table = rows reported, byte-identical data for
# every --load-method, redo/WAL bytes against the server's counters read
# here, bad input), and --load-method for prepare of the OLTP scripts and
# the kit loader (byte-identical tables).
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

SCHEMA=$TOP/docs/results.schema.json
KIT="$TOP/BMK/sb_exec/lua/kit_oltp.lua"
opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }
q() { if [ "$1" = mysql ]; then mysql_q "$2"; else pgsql_q "$2"; fi; }
json_ok() {
  python3 - "$1" "$SCHEMA" <<'EOF'
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
EOF
}
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# within A B PCT: |A-B| <= PCT% of B
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(b>0 && d<=b*p/100)}'; }
# checksum DB TABLE COLUMNS: row count and md5 of every row in id order
# (NULL spelled <NULL>, so NULL and the string '\N' differ)
checksum() {
  local c cols=() parts=() expr
  IFS=', ' read -r -a cols <<< "$3"
  if [ "$1" = mysql ]; then
    for c in "${cols[@]}"; do parts+=("COALESCE($c, '<NULL>')"); done
    expr=$(IFS=,; echo "${parts[*]}")
    mysql_q "SET SESSION group_concat_max_len = 1 << 30; SELECT COUNT(*), MD5(GROUP_CONCAT(CONCAT_WS(':', $expr) ORDER BY id SEPARATOR ',')) FROM $2" | tr '\t' ' '
  else
    for c in "${cols[@]}"; do parts+=("COALESCE($c::text, '<NULL>')"); done
    expr=$(printf "%s || ':' || " "${parts[@]}"); expr=${expr% || \':\' || }
    pgsql_q "SELECT COUNT(*), md5(string_agg($expr, ',' ORDER BY id)) FROM $2" | tr '|' ' '
  fi
}
# mval NAME: a metric's total from the "Workload metrics:" block of $OUT
mval() { printf '%s\n' "$OUT" | sed -n '/^Workload metrics:/,/^$/p' | awk -v n="$1:" '$1==n{print $2}'; }
# dval LABEL: a value of the "DBL load" block of $OUT
dval() { printf '%s\n' "$OUT" | sed -n '/^DBL load/,/^$/p' | grep -F "    $1:" | awk -F: '{print $2}' | awk '{print $1}'; }

# ---- workload metrics (no database) -------------------------------------------
cat > metrics.lua <<'EOF'
local ev = sysbench.metric("ev")
local twice = sysbench.metric("twice")
function event() ev:add() twice:add(2) end
function sysbench.hooks.report_intermediate(stat)
  print(string.format("interval metrics: ev=%d twice=%d events=%d", stat.metrics.ev,
                      stat.metrics.twice, stat.events))
end
function sysbench.hooks.report_final(stat)
  print(string.format("final metrics: ev=%d events=%d", stat.metrics.ev, stat.events))
end
EOF
run_bmk metrics.lua --threads=1 --rate=300 --warmup-time=1 --time=2 --report-interval=1 \
  --results=metrics.json run
assert_eq "metrics: exit 0" 0 "$RC"
assert_contains "metrics: block" "$OUT" "Workload metrics:"
assert_match "metrics: block line layout" "$OUT" '^    ev: +[0-9]+  \([0-9.]+ per sec\.\)$'
events=$(report_value "total number of events:" "$OUT")
ev=$(mval ev)
check "metrics: warmup excluded like the events (ev $ev, events $events)" \
  awk -v a="$ev" -v b="$events" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(b > 100 && d <= 1)}'
assert_eq "metrics: twice = 2 x ev" "$((2 * ev))" "$(mval twice)"
assert_match "metrics: report_final gets stat.metrics" "$OUT" "^final metrics: ev=$ev events=$events\$"
check "metrics: interval hook lines" test "$(printf '%s\n' "$OUT" | grep -c '^interval metrics: ev=[0-9]* twice=[0-9]* events=')" -ge 1
check "metrics: interval stat.metrics = events" bash -c "printf '%s\n' \"\$1\" | awk '/^interval metrics/{split(\$3,a,\"=\"); split(\$5,b,\"=\"); d=a[2]-b[2]; if (d<-1||d>1) bad=1} END{exit bad}'" _ "$OUT"
check "metrics: JSON valid" json_ok metrics.json
assert_eq "metrics: JSON summary" "$ev True" \
  "$(json_get metrics.json "d['summary']['metrics']['ev']['total'], d['summary']['metrics']['ev']['per_sec'] > 0")"
assert_eq "metrics: JSON intervals" "True True" \
  "$(json_get metrics.json "len(d['intervals']) >= 1, all(i['metrics']['twice'] == 2 * i['metrics']['ev'] for i in d['intervals'])")"
ln -s "$BMK" sysbench
OUT=$(./sysbench metrics.lua --events=10 run 2>&1)
assert_not_contains "metrics: no block as sysbench" "$OUT" "Workload metrics:"
assert_contains "metrics: report_final still called as sysbench" "$OUT" "final metrics: ev=10 events=10"
cat > many.lua <<'EOF'
for i = 1, 17 do sysbench.metric("m" .. i) end
function event() end
EOF
run_bmk many.lua --events=1 run
assert_eq "metrics: 17th name: exit 1" 1 "$RC"
assert_contains "metrics: 17th name: message" "$OUT" "sysbench.metric: cannot declare 'm17' (at most 16 metrics"
cat > badadd.lua <<'EOF'
local m = sysbench.metric("m")
function event() m:add(-1) end
EOF
run_bmk badadd.lua --events=1 run
assert_eq "metrics: negative add: exit 1" 1 "$RC"
assert_contains "metrics: negative add: message" "$OUT" "metric 'm': add() needs a number >= 0, got -1"

# ---- per database ----------------------------------------------------------------
cat > load.lua <<'EOF'
-- The same rows loaded with the fast path (ld:row and ld:rows) and
-- inserted with prepared statements; the test compares the two tables.
local vals = {
  {1, "plain", 1.5, 7}, {2, "tab\there", 0.1, nil}, {3, "new\nline", -2, 0},
  {4, "back\\slash \\N", 1e300, nil}, {5, "cr\rx", 3, 1}, {6, "\\N", 3, 0},
  {7, "", 0, 1}, {8, nil, 2.5, 9}, {9, "naïve ünïcode", 1/3, -5},
  {10, "\\t literal", 123456789012, 2147483647},
}
function prepare()
  local con = sysbench.sql.driver():connect()
  for _, t in ipairs({"ld_load", "ld_ins"}) do
    con:query("DROP TABLE IF EXISTS " .. t)
    con:query("CREATE TABLE " .. t .. " (id INTEGER PRIMARY KEY, s VARCHAR(100), " ..
              "d DOUBLE PRECISION, n INTEGER)")
  end
  local ld = con:load_start("ld_load", {"id", "s", "d", "n"})
  for i = 1, 9 do
    local v = vals[i]
    ld:row(v[1], v[2], v[3], v[4])
  end
  ld:rows("10\t\\\\t literal\t123456789012\t2147483647\n")
  local rows, stmts = ld:finish()
  print(string.format("loaded %d rows in %d statement(s)", rows, stmts))
  local T = sysbench.sql.type
  local st = con:prepare("INSERT INTO ld_ins (id, s, d, n) VALUES (?, ?, ?, ?)")
  local p = {st:bind_create(T.INT), st:bind_create(T.VARCHAR, 100),
             st:bind_create(T.DOUBLE), st:bind_create(T.INT)}
  st:bind_param(unpack(p))
  for _, v in ipairs(vals) do
    for i = 1, 4 do p[i]:set(v[i]) end
    st:execute()
  end
  local e = con:load_start("ld_load", {"id"})
  print(string.format("empty load: %d rows, %d statement(s)", e:finish()))
  -- misuse: wrong value count, and a query in the middle of a load
  local ld2 = con:load_start("ld_load", {"id", "s", "d", "n"})
  print("wrong count: " .. tostring(select(2, pcall(ld2.row, ld2, 1, 2))))
  con:query("SELECT 1")
  print("after cancel: " .. tostring(select(2, pcall(ld2.finish, ld2))))
end
EOF

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)

  # ---- the fast load API ------------------------------------------------------
  run_bmk load.lua $O prepare
  assert_eq "$db load API: exit 0" 0 "$RC"
  assert_contains "$db load API: one statement" "$OUT" "loaded 10 rows in 1 statement(s)"
  assert_contains "$db load API: an empty load is one statement" "$OUT" "empty load: 0 rows, 1 statement(s)"
  assert_eq "$db load API: loaded = inserted (escapes, NULL, numbers)" \
    "$(checksum $db ld_ins "id, s, d, n")" "$(checksum $db ld_load "id, s, d, n")"
  assert_eq "$db load API: NULLs and the string \\N" "2 1 1" \
    "$(q $db "SELECT (SELECT COUNT(*) FROM ld_load WHERE n IS NULL), (SELECT COUNT(*) FROM ld_load WHERE s IS NULL), (SELECT COUNT(*) FROM ld_load WHERE LENGTH(s) = 2 AND RIGHT(s, 1) = 'N')" | tr '\t|' '  ')"
  assert_eq "$db load API: tab kept" 1 "$(q $db "SELECT COUNT(*) FROM ld_load WHERE s LIKE 'tab_here' AND s <> 'tab here'")"
  assert_contains "$db load API: wrong value count" "$OUT" "wrong count: ld:row(): 2 values for 4 columns"
  assert_contains "$db load API: query cancels the load" "$OUT" \
    "ALERT: query() while loading into ld_load: the unfinished load was cancelled"
  assert_contains "$db load API: finish after cancel" "$OUT" "after cancel: <load into ld_load>: ld:finish() failed"
  q $db "DROP TABLE ld_load" >/dev/null; q $db "DROP TABLE ld_ins" >/dev/null

  # ---- DBL: transactions in the exact ratio of --tx-size ------------------------
  "$BMK" dbl $O cleanup >/dev/null 2>&1
  CTO=""
  [ $db = pgsql ] && CTO="WITH (autovacuum_enabled = off)"
  for tx in 1 10 100 0; do
    "$BMK" dbl $O --create-table-options="$CTO" prepare >/dev/null 2>&1
    # (the server's commits are checked below: earlier sessions gone first)
    [ $db = pgsql ] && wait_pg_alone
    run_bmk dbl $O --threads=2 --rows=600 --tx-size=$tx --time=0 --results=dbl_$tx.json run
    assert_eq "$db dbl tx $tx: exit 0" 0 "$RC"
    trx=$(( tx > 0 ? 2 * 600 / tx : 2 ))
    assert_eq "$db dbl tx $tx: transactions" "$trx" "$(report_value "transactions:" "$OUT")"
    assert_eq "$db dbl tx $tx: rows and commits metrics" "1200 $trx 1200" "$(mval rows) $(mval commits) $(mval statements)"
    assert_eq "$db dbl tx $tx: rows in the table = rows reported" "1200" "$(q $db 'SELECT COUNT(*) FROM dbl')"
    assert_eq "$db dbl tx $tx: DBL block rows" 1200 "$(dval rows)"
    # PostgreSQL's autovacuum/autoanalyze workers commit in this database
    # too (the catalog after the DDL of each prepare/cleanup: the dbl
    # table's own is off); the block says how many ran in the window
    av=$(printf '%s\n' "$OUT" | sed -n 's/^    (autovacuum\/autoanalyze ran \([0-9]*\) time(s) in the window.*/\1/p')
    assert_eq "$db dbl tx $tx: server commits = transactions (+ autovacuum's ${av:-0})" \
      "$((trx + ${av:-0}))" "$(printf '%s\n' "$OUT" | grep -E '^    commits \(' | awk '{print $3}')"
    check "$db dbl tx $tx: JSON valid" json_ok dbl_$tx.json
    assert_eq "$db dbl tx $tx: JSON metrics" "1200 $trx" \
      "$(json_get dbl_$tx.json "d['summary']['metrics']['rows']['total'], d['summary']['metrics']['commits']['total']")"
    [ $tx = 10 ] && ref=$(checksum $db dbl "id, job, n, filler")
    "$BMK" dbl $O cleanup >/dev/null 2>&1
  done
  assert_eq "$db dbl: reference checksum over 1200 rows" 1200 "$(echo "$ref" | awk '{print $1}')"

  # ---- DBL: every load method loads the same bytes ------------------------------
  for m in multi copy; do
    "$BMK" dbl $O --create-table-options="$CTO" prepare >/dev/null 2>&1
    run_bmk dbl $O --threads=2 --rows=600 --tx-size=10 --load-method=$m --batch-rows=4 --time=0 run
    assert_eq "$db dbl $m: exit 0" 0 "$RC"
    # 10-row transactions in statements of at most 4 rows: 4 + 4 + 2
    assert_eq "$db dbl $m: rows, statements, commits" "1200 360 120" "$(mval rows) $(mval statements) $(mval commits)"
    assert_eq "$db dbl $m: same data as insert" "$ref" "$(checksum $db dbl "id, job, n, filler")"
    if [ $db = mysql ]; then
      assert_match "$db dbl $m: Questions = client statements" "$OUT" 'queries \(Questions\): .*diff: \+0\.000%'
    fi
    "$BMK" dbl $O cleanup >/dev/null 2>&1
  done

  # ---- DBL: redo/WAL bytes against the server's counters ------------------------
  "$BMK" dbl $O --create-table-options="$CTO" prepare >/dev/null 2>&1
  if [ $db = mysql ]; then
    redo_q="SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='INNODB_OS_LOG_WRITTEN'"
  else
    redo_q="SELECT wal_bytes FROM pg_stat_wal"
  fi
  before=$(q $db "$redo_q")
  run_bmk dbl $O --threads=2 --rows=5000 --tx-size=0 --load-method=copy --time=0 --results=redo.json run
  # the workers' backends publish their last statistics as they exit
  after=$(q $db "$redo_q"); sleep 0.3; after=$(q $db "$redo_q")
  server=$((after - before))
  bmk=$(json_get redo.json "d['server']['redo']['bytes']")
  check "$db redo: $bmk bytes reported, > 0" test "$bmk" -gt 0
  check "$db redo: reported $bmk within 10% of the server's $server" within "$bmk" "$server" 10
  assert_match "$db redo: block line" "$OUT" \
    "^    $([ $db = mysql ] && echo 'redo written \(Innodb_os_log_written\)' || echo 'WAL written \(wal_bytes\)'): +$bmk  \([0-9.]+ MiB/s\)\$"
  assert_match "$db redo: writes line" "$OUT" '^    (redo|WAL) writes \((Innodb_log_writes|wal_write)\): +[0-9]+  \('
  assert_match "$db data writes line" "$OUT" '^    data writes \([a-zA-Z_]+\): +[0-9]+  \('
  check "$db redo: JSON valid" json_ok redo.json
  if [ $db = pgsql ]; then
    assert_contains "$db redo: says when track_wal_io_timing is off" "$OUT" \
      "(track_wal_io_timing is off: no WAL write/sync times;"
    assert_eq "$db redo: JSON io_timing off, no times" "False None" \
      "$(json_get redo.json "d['server']['redo']['io_timing'], d['server']['redo']['write_time_ms']")"
    "$BMK" dbl $O cleanup >/dev/null 2>&1
    "$BMK" dbl $O --create-table-options="$CTO" prepare >/dev/null 2>&1
    pgsql_q "ALTER SYSTEM SET track_wal_io_timing = on" >/dev/null; pgsql_q "SELECT pg_reload_conf()" >/dev/null
    sleep 0.3
    run_bmk dbl $O --rows=2000 --tx-size=1 --time=0 --results=walt.json run
    pgsql_q "ALTER SYSTEM RESET track_wal_io_timing" >/dev/null; pgsql_q "SELECT pg_reload_conf()" >/dev/null
    assert_match "$db redo: WAL write service time" "$OUT" \
      '^    WAL writes \(wal_write\): +[0-9]+  \([0-9.]+ per sec\.\)  avg [0-9.]+ ms \(wal_write_time_us\)$'
    assert_eq "$db redo: JSON io_timing on, times" "True True" \
      "$(json_get walt.json "d['server']['redo']['io_timing'], d['server']['redo']['write_time_ms'] is not None")"
  else
    assert_eq "$db redo: JSON io_timing n/a" "None" "$(json_get redo.json "d['server']['redo']['io_timing']")"
  fi

  # ---- DBL: bad input and wrong table state: one FATAL line, exit 1 ------------
  run_bmk dbl $O --rows=10 --time=0 run
  assert_eq "$db dbl non-empty table: exit 1" 1 "$RC"
  assert_contains "$db dbl non-empty table: message" "$OUT" \
    "FATAL: dbl: table 'dbl' already holds rows (an earlier run?): run 'bmk dbl cleanup' and 'bmk dbl prepare' before each run"
  run_bmk dbl $O prepare
  assert_eq "$db dbl prepare twice: exit 1" 1 "$RC"
  assert_contains "$db dbl prepare twice: message" "$OUT" "FATAL: dbl: table 'dbl' already exists: run 'bmk dbl cleanup' first"
  "$BMK" dbl $O cleanup >/dev/null 2>&1
  run_bmk dbl $O --rows=10 run
  assert_eq "$db dbl without table: exit 1" 1 "$RC"
  assert_contains "$db dbl without table: message" "$OUT" "FATAL: dbl: table 'dbl' does not exist: run 'bmk dbl prepare' first"
  "$BMK" dbl $O --row-bytes=50 prepare >/dev/null 2>&1
  run_bmk dbl $O --rows=10 run
  assert_contains "$db dbl --row-bytes mismatch" "$OUT" "FATAL: dbl: table 'dbl' was prepared for --row-bytes=50"
  for bad in "--tx-size=-1|--tx-size must be an integer >= 0 (rows per transaction; 0 = one commit after the whole load), got '-1'" \
             "--rows=0|--rows must be an integer >= 1" "--row-bytes=8|--row-bytes must be an integer >= 16" \
             "--batch-rows=2.5|--batch-rows must be an integer >= 1" \
             "--load-method=bulk|--load-method must be insert, multi or copy, got 'bulk'"; do
    run_bmk dbl $O "${bad%%|*}" run
    assert_eq "$db dbl ${bad%%|*}: exit 1" 1 "$RC"
    assert_contains "$db dbl ${bad%%|*}: message" "$OUT" "FATAL: dbl: ${bad#*|}"
    assert_eq "$db dbl ${bad%%|*}: one FATAL line, no Lua position" "1 0" \
      "$(printf '%s\n' "$OUT" | grep -c '^FATAL') $(printf '%s\n' "$OUT" | grep -c 'dbl.lua:')"
  done
  "$BMK" dbl $O cleanup >/dev/null 2>&1
  if [ $db = mysql ]; then
    "$BMK" dbl $O prepare >/dev/null 2>&1
    mysql_q "SET GLOBAL local_infile = 0"
    run_bmk dbl $O --rows=10 --load-method=copy --time=0 run
    mysql_q "SET GLOBAL local_infile = 1"
    assert_eq "$db local_infile=0: exit 1" 1 "$RC"
    assert_contains "$db local_infile=0: names the setting" "$OUT" \
      "(LOAD DATA LOCAL INFILE is refused: the server needs local_infile=1"
    "$BMK" dbl $O cleanup >/dev/null 2>&1
  fi

  # ---- --load-method for prepare: OLTP scripts and the kit loader ----------------
  ref=""
  for m in multi insert copy; do
    run_bmk oltp_read_write $O --tables=2 --threads=2 --table-size=700 --rand-seed=3 --load-method=$m prepare
    assert_eq "$db oltp prepare $m: exit 0" 0 "$RC"
    sum="$(checksum $db sbtest1 "id, k, c, pad") $(checksum $db sbtest2 "id, k, c, pad")"
    [ -z "$ref" ] && ref=$sum
    assert_eq "$db oltp prepare $m: same tables as multi" "$ref" "$sum"
    "$BMK" oltp_read_write $O --tables=2 cleanup >/dev/null 2>&1
  done
  assert_eq "$db oltp prepare: 700 rows" 700 "$(echo "$ref" | awk '{print $1}')"
  run_bmk oltp_read_write $O --load-method=fast prepare
  assert_eq "$db oltp prepare bad method: exit 1" 1 "$RC"
  assert_contains "$db oltp prepare bad method: message" "$OUT" "--load-method must be multi, insert or copy, got 'fast'"
  ref=""
  for m in multi copy; do
    "$BMK" "$KIT" $O --tables=1 --table-name=dblk cleanup >/dev/null 2>&1
    "$BMK" "$KIT" $O --tables=1 --table-size=900 --table-name=dblk --extra-cols=1 create >/dev/null 2>&1
    run_bmk "$KIT" $O --tables=1 --table-size=900 --table-name=dblk --extra-cols=1 --threads=2 \
      --load-bulk-size=200 --rand-seed=4 --load-method=$m prepare
    assert_eq "$db kit prepare $m: exit 0" 0 "$RC"
    sum=$(checksum $db dblk1 "id, k, c, pad, col1")
    [ -z "$ref" ] && ref=$sum
    assert_eq "$db kit prepare $m: same table as multi" "$ref" "$sum"
  done
  assert_eq "$db kit prepare: 900 rows" 900 "$(echo "$ref" | awk '{print $1}')"
  "$BMK" "$KIT" $O --tables=1 --table-name=dblk cleanup >/dev/null 2>&1
done

finish
