#!/usr/bin/env bash
# --max-tries for Lua workloads (docs/usage.md "Retries"): serialization
# failures (PostgreSQL 40001) and deadlocks (PostgreSQL 40P01, MariaDB
# 1213) provoked by fixtures/retry_serialize.lua and retry_deadlock.lua,
# in threads and on the event loop. The serialization counts are exact
# against what the fixture provoked (its k0..k3 metrics); the deadlock
# counts by relations that hold whatever the interleaving (committed
# events = --events, rows = committed, retries = MariaDB's
# Innodb_deadlocks). The final report's block, the interval field,
# --results and the metrics agree; without the option the report is
# sysbench's; bad values are refused.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"
BMK_TIMEOUT=60
FIX=$TOP/tests/integration/fixtures
QUIET="--db-server-stats=off --server-cost=off"
want() { [ -z "${BMK_TEST_DBS:-}" ] || [[ " $BMK_TEST_DBS " == *" $1 "* ]]; }

# metric NAME: the count of workload metric NAME in $OUT's final report
metric() { printf '%s\n' "$OUT" | awk -v n="$1:" '$1 == n { print $2; exit }'; }
# code_line CODE: "retried R, retries N, failed F" of CODE's report line
code_line() { printf '%s\n' "$OUT" | grep -E "^        $1 \(" | sed 's/.*): *//'; }

# bad input: no server needed
run_bmk "$FIX/retry_serialize.lua" --max-tries=-1 --events=1 run
assert_eq "--max-tries=-1: exit 1" 1 "$RC"
assert_contains "--max-tries=-1: message" "$OUT" \
  "FATAL: Invalid value for --max-tries: -1 (tries of a transaction, >= 1, or 0 for unlimited)"
run_bmk "$FIX/retry_serialize.lua" --max-tries=0 --events=10 run
assert_eq "--max-tries=0 without --time: exit 1" 1 "$RC"
assert_contains "--max-tries=0 without --time: message" "$OUT" \
  "FATAL: --max-tries=0 (unlimited tries) needs a time limit: give --time=N or --latency-limit"

# tpcc retries itself: refused before it looks at the database
run_bmk tpcc --max-tries=3 $PGSQL_OPTS --time=1 run
assert_eq "tpcc --max-tries: exit 1" 1 "$RC"
assert_contains "tpcc --max-tries: message" "$OUT" \
  "FATAL: \`init' function failed: --max-tries does not apply to tpcc, which retries its transactions itself: give --trx-retry=on and --trx-retry-max=N instead (docs/tpcc.md)"

# ser_check NAME VUS ARGS...: a serialization run of 40 events at
# --max-tries=3 on VUS virtual users (one row each); its counts against
# the fixture's k0..k3 (a transaction of k conflicts makes min(k, 2)
# retries and fails when k = 3), the rows, the other outputs.
ser_check() {
  local name=$1 vus=$2
  shift 2
  pgsql_q "DROP TABLE IF EXISTS retry_t; CREATE TABLE retry_t (id int PRIMARY KEY, v int);
    INSERT INTO retry_t SELECT g, 0 FROM generate_series(1, $vus) g" >/dev/null
  run_bmk "$FIX/retry_serialize.lua" $PGSQL_OPTS $QUIET --threads="$vus" --events=40 \
    --max-tries=3 "$@" run
  assert_eq "$name: exit 0" 0 "$RC"
  local k0 k1 k2 k3 tx=0
  k0=$(metric k0) k1=$(metric k1) k2=$(metric k2) k3=$(metric k3)
  [[ " $* " == *" --tx=on "* ]] && tx=1
  assert_eq "$name: one k per transaction" 40 "$((k0 + k1 + k2 + k3))"
  assert_contains "$name: block" "$OUT" "Transaction retries (max tries: 3):"
  assert_eq "$name: retried = k1 + k2 + k3" "$((k1 + k2 + k3))" "$(report_value "retried transactions:" "$OUT")"
  assert_eq "$name: retries = k1 + 2 k2 + 2 k3" "$((k1 + 2 * k2 + 2 * k3))" "$(report_value "retries:" "$OUT")"
  assert_eq "$name: failed = k3" "$k3" "$(report_value "failed transactions:" "$OUT")"
  assert_eq "$name: 40001's line" "retried $((k1 + k2 + k3)), retries $((k1 + 2 * k2 + 2 * k3)), failed $k3" "$(code_line 40001)"
  assert_match "$name: the serialization kind" "$OUT" \
    "^        serialization: +retried $((k1 + k2 + k3)), retries $((k1 + 2 * k2 + 2 * k3)), failed $k3$"
  assert_match "$name: no deadlock" "$OUT" "^        deadlock: +retried 0, retries 0, failed 0$"
  if [ $tx = 1 ]; then
    # the event goes on after its transaction failed: every event counts
    assert_eq "$name: transactions = events" 40 "$(report_value "transactions:" "$OUT")"
    assert_eq "$name: sysbench.transaction() returned false k3 times" "$k3" "$(metric tx_failed)"
  else
    assert_eq "$name: transactions = k0 + k1 + k2" "$((k0 + k1 + k2))" "$(report_value "transactions:" "$OUT")"
  fi
  # each committed try adds 1, each conflict (min(k, 3) per transaction)
  # 1; a failed try's update was rolled back
  assert_eq "$name: rows" "$((40 - k3 + k1 + 2 * k2 + 3 * k3))" "$(pgsql_q "SELECT sum(v) FROM retry_t")"
}

if want pgsql; then
  ser_check "pgsql threads" 1
  ser_check "pgsql event loop" 2 --workers=1
  ser_check "pgsql sysbench.transaction" 1 --tx=on

  # --results, the interval field and the metrics of one run: a --rate
  # stretches it over intervals; the sync file holds the start until bmk
  # waits on it (its ready marker) and the metrics endpoint has been
  # scraped once (then it serves the final page)
  P=$(free_port 19742)
  pgsql_q "UPDATE retry_t SET v = 0" >/dev/null
  touch sync
  timeout -k 5 60 "$BMK" "$FIX/retry_serialize.lua" $PGSQL_OPTS $QUIET --events=40 --rate=200 \
    --report-interval=0.1 --max-tries=3 --sync-file=sync --results=r.json \
    --metrics-listen=127.0.0.1:$P run > run.out 2>&1 &
  pid=$!
  for _ in $(seq 400); do
    compgen -G "sync.ready.*" >/dev/null && curl -sf "http://127.0.0.1:$P/metrics" >/dev/null 2>&1 && break
    sleep 0.05
  done
  rm -f sync
  for _ in $(seq 200); do
    curl -sf "http://127.0.0.1:$P/metrics" > page 2>/dev/null && grep -q '^bmk_run_finished{.*} 1$' page && break
    sleep 0.05
  done
  wait $pid
  assert_eq "outputs run: exit 0" 0 "$?"
  OUT=$(cat run.out)
  retried=$(report_value "retried transactions:" "$OUT") retries=$(report_value "retries:" "$OUT")
  failed=$(report_value "failed transactions:" "$OUT")
  assert_match "interval field" "$OUT" "^\[ [0-9]+s \] thds: .* reconn/s: [0-9.]+ retry/s: [0-9.]+ fail/s: [0-9.]+$"
  check "--results validates against the schema" json_ok r.json
  assert_eq "--results summary.retries" "3 $retried $retries $failed" \
    "$(json_get r.json "'%s %s %s %s' % tuple(d['summary']['retries'][k] for k in ('max_tries', 'retried', 'retries', 'failures'))")"
  assert_eq "--results by_code 40001" "serialization $retried $retries $failed" \
    "$(json_get r.json "' '.join(str(d['summary']['retries']['by_code']['40001'][k]) for k in ('kind', 'retried', 'retries', 'failures'))")"
  # every failed try is one ignored error, retried or failed (the
  # intervals' first baseline may differ from the summary's by an event
  # already running: their own sums are compared)
  assert_eq "--results summary: errors = retries + failures" "$(json_get r.json "d['summary']['errors']")" "$((retries + failed))"
  assert_eq "--results intervals: errors = retries + failures" \
    "$(json_get r.json "sum(i['errors'] for i in d['intervals'])")" \
    "$(json_get r.json "sum(i['retries'] + i['failures'] for i in d['intervals'])")"
  for f in "transactions_retried:$retried" "transaction_retries:$retries" "transactions_failed:$failed"; do
    assert_match "metric bmk_${f%%:*}_total" "$(cat page)" \
      "^bmk_${f%%:*}_total\{.*kind=\"serialization\",code=\"40001\"\} ${f#*:}$"
  done

  # a document read back: bmk report --merge of the run with itself
  # doubles every count, in its document and its printed report
  cp r.json r2.json
  run_bmk report --merge r.json r2.json --output=m.json
  assert_eq "merge: exit 0" 0 "$RC"
  check "merge: the document validates" json_ok m.json
  assert_eq "merge: summary.retries doubled" "3 $((2 * retried)) $((2 * retries)) $((2 * failed))" \
    "$(json_get m.json "'%s %s %s %s' % tuple(d['summary']['retries'][k] for k in ('max_tries', 'retried', 'retries', 'failures'))")"
  assert_eq "merge: by_code doubled" "$((2 * retries))" "$(json_get m.json "d['summary']['retries']['by_code']['40001']['retries']")"
  assert_eq "merge: intervals' failures doubled" "$(json_get r.json "2 * sum(i['failures'] for i in d['intervals'])")" \
    "$(json_get m.json "sum(i['failures'] for i in d['intervals'])")"
  assert_match "merge: the printed block" "$OUT" "^        40001 \(serialization\): +retried $((2 * retried)), retries $((2 * retries)), failed $((2 * failed))$"

  # without --max-tries: sysbench's report and interval line
  run_bmk "$FIX/retry_serialize.lua" $PGSQL_OPTS $QUIET --events=20 --rate=200 \
    --report-interval=0.1 --results=plain.json run
  assert_eq "no --max-tries: exit 0" 0 "$RC"
  assert_not_contains "no --max-tries: no retry block" "$OUT" "Transaction retries"
  assert_not_contains "no --max-tries: no interval field" "$OUT" "retry/s"
  assert_eq "no --max-tries: no summary.retries" False "$(json_get plain.json "'retries' in d['summary']")"

  # deadlocks (40P01), unlimited tries: every event commits in the end
  pgsql_q "DROP TABLE IF EXISTS retry_d, retry_b; CREATE TABLE retry_d (id int PRIMARY KEY, v int);
    INSERT INTO retry_d VALUES (1, 0), (2, 0); CREATE TABLE retry_b (n int); INSERT INTO retry_b VALUES (0)" >/dev/null
  run_bmk "$FIX/retry_deadlock.lua" $PGSQL_OPTS $QUIET --threads=2 --events=30 --max-tries=0 --time=60 run
  assert_eq "pgsql deadlock: exit 0" 0 "$RC"
  assert_contains "pgsql deadlock: unlimited" "$OUT" "Transaction retries (max tries: unlimited):"
  assert_eq "pgsql deadlock: all committed" 30 "$(report_value "transactions:" "$OUT")"
  assert_eq "pgsql deadlock: no failure" 0 "$(report_value "failed transactions:" "$OUT")"
  r=$(report_value "retries:" "$OUT")
  check "pgsql deadlock: the first events deadlocked" [ "$r" -ge 1 ]
  assert_match "pgsql deadlock: 40P01 has them all" "$OUT" "^        40P01 \(deadlock\): +retried [0-9]+, retries $r, failed 0$"
  assert_eq "pgsql deadlock: rows = committed" "30 30" "$(pgsql_q "SELECT string_agg(v::text, ' ' ORDER BY id) FROM retry_d")"
  pgsql_q "DROP TABLE IF EXISTS retry_t, retry_d, retry_b" >/dev/null
fi

# my_deadlock NAME EVENTS TRIES ARGS...: a MariaDB deadlock run; its
# retries against the server's Innodb_deadlocks, its rows against the
# committed events
my_deadlock() {
  local name=$1 events=$2 tries=$3
  shift 3
  mysql_q "DROP TABLE IF EXISTS retry_d, retry_b; CREATE TABLE retry_d (id int PRIMARY KEY, v int) ENGINE=InnoDB;
    INSERT INTO retry_d VALUES (1, 0), (2, 0); CREATE TABLE retry_b (n int) ENGINE=InnoDB; INSERT INTO retry_b VALUES (0)"
  local d0 d1
  d0=$(mysql_q "SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'" | cut -f2)
  run_bmk "$FIX/retry_deadlock.lua" $MYSQL_OPTS $QUIET --threads=2 --events="$events" \
    --max-tries="$tries" "$@" run
  d1=$(mysql_q "SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'" | cut -f2)
  assert_eq "$name: exit 0" 0 "$RC"
  C=$(report_value "transactions:" "$OUT") R=$(report_value "retries:" "$OUT")
  F=$(report_value "failed transactions:" "$OUT")
  assert_eq "$name: committed + failed = events" "$events" "$((C + F))"
  assert_eq "$name: each try that deadlocked was retried or failed (Innodb_deadlocks)" \
    "$((d1 - d0))" "$((R + F))"
  check "$name: the first events deadlocked" [ "$((R + F))" -ge 1 ]
  assert_match "$name: 1213 has them all" "$OUT" "^        1213 \(deadlock\): +retried [0-9]+, retries $R, failed $F$"
  assert_eq "$name: rows = committed" "$C $C" "$(mysql_q "SELECT GROUP_CONCAT(v ORDER BY id SEPARATOR ' ') FROM retry_d")"
}

if want mysql; then
  my_deadlock "mysql threads" 30 0 --time=60
  assert_eq "mysql threads: no failure" 0 "$F"
  my_deadlock "mysql event loop" 30 0 --time=60 --workers=1
  assert_eq "mysql event loop: no failure" 0 "$F"
  my_deadlock "mysql --max-tries=1" 30 1
  assert_eq "mysql --max-tries=1: no retry" 0 "$R"
  mysql_q "DROP TABLE IF EXISTS retry_d, retry_b"
fi

finish
