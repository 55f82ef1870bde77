#!/usr/bin/env bash
# bmk's additions on the pgbench persona's command line (docs/pgbench.md
# "bmk's additions"): a script run under the name pgbench on the sandbox
# PostgreSQL with --db-server-stats=on prints pgbench's report, then the
# Server-side statistics block, whose server commits are the run's
# transactions exactly (pgbench's processed count, the rows the script
# inserted); --results validates against the schema with the same counts;
# --save --results-db=F --tag stores the run (bmk runs list, export);
# --metrics-listen serves the same count; --statement-percentiles=on
# adds bmk's Statements block (each command's count per transaction, the
# report unchanged above it); without the options stdout is
# the report alone, line for line what it is with them up to the block;
# bad input: bmk's message for a bad value, pgbench's for -i with them
# and for an option neither has, exit 1. Counts only, no timing (a
# \sleep stretches the metrics run so that a scrape can see it running).
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

ln -s "$BMK" pgbench
export PGHOST=127.0.0.1 PGPORT=$PGSQL_PORT PGUSER=sbtest PGPASSWORD=$DBPASS PGDATABASE=sbtest
unset PGBENCH_RANDOM_SEED BMK_RESULTS_DB

# pgb ARGS...: the persona; stdout to out, stderr to err, exit code RC
pgb() { timeout -k 5 120 ./pgbench "$@" > out 2> err; RC=$?; }
# line_no REGEX: the number of out's first line matching it (0: none)
line_no() { grep -nE -m1 -- "$1" out | cut -d: -f1 | grep . || echo 0; }
# processed: the report's "number of transactions actually processed: N/M"
processed() { sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' out; }
# srv LABEL: the server's figure on the block's line LABEL
srv() { grep -F -- "$1" out | head -1 | awk -F: '{print $2}' | awk '{print $1}'; }
# client LABEL: the client's figure on the block's line LABEL
client() { grep -F -- "$1" out | head -1 | sed -n 's/.*client events: \([0-9]*\).*/\1/p'; }

# the script's tables, autovacuum off on them (a worker's commits would
# fall in the run's window); one transaction block per transaction
PGOPTIONS="-c client_min_messages=warning" pgsql_q "drop table if exists pgbx, pgbx_log;
  create table pgbx (id int primary key, n int) with (autovacuum_enabled = off);
  insert into pgbx values (1, 0);
  create table pgbx_log (id serial primary key, v int) with (autovacuum_enabled = off)" > /dev/null
cat > x.sql <<'EOF'
\set v random(1, 1000)
BEGIN;
UPDATE pgbx SET n = n + 1 WHERE id = 1;
INSERT INTO pgbx_log (v) VALUES (:v);
END;
EOF

# ---- without bmk's options: pgbench's report alone ----------------------------
pgb -n -c 2 -j 2 -t 50 -f x.sql
assert_eq "plain: exit 0" "0" "$RC"
assert_eq "plain: 100 transactions processed" "100" "$(processed)"
assert_not_contains "plain: no Server-side statistics block" "$(cat out)" "Server-side statistics"
mask() { sed -E -e '/^pgbench \(/d' -e 's/[0-9]+(\.[0-9]+)?/N/g' "$1"; }
mask out > plain.masked
assert_eq "plain: stdout ends with pgbench's tps line" "tps = N (without initial connection time)" \
  "$(tail -1 plain.masked)"

# ---- --db-server-stats=on, --results ----------------------------------------------
pgsql_q "truncate pgbx_log; update pgbx set n = 0" > /dev/null
wait_pg_alone
pgb -n -c 2 -j 2 -t 50 -f x.sql --db-server-stats=on --results=r.json
assert_eq "stats: exit 0" "0" "$RC"
assert_eq "stats: 100 transactions processed" "100" "$(processed)"
rows=$(pgsql_q "select count(*) from pgbx_log")
assert_eq "stats: the rows the script inserted = the transactions" "100" "$rows"
tps=$(line_no '^tps = ') blk=$(line_no '^Server-side statistics')
assert_eq "stats: the Server-side statistics block follows pgbench's report after a blank line (tps line $tps)" \
  "$((tps + 2))" "$blk"
assert_eq "stats: stdout up to the block is the plain run's report, line for line" "" \
  "$(diff <(mask out | sed '/^Server-side statistics/,$d' | sed '$d') plain.masked)"
assert_eq "stats: the server's commits (xact_commit) = the run's transactions" "100" \
  "$(srv 'commits (xact_commit)')"
assert_eq "stats: the block's client events = the run's transactions" "100" \
  "$(client 'commits (xact_commit)')"
assert_eq "stats: the server's rows inserted (tup_inserted) = the INSERTs" "100" \
  "$(srv 'rows inserted (tup_inserted)')"
check "stats: --results validates against the schema" json_ok r.json
assert_eq "stats: --results' events, server commits and client events = the report's transactions" \
  "100 100 100" "$(json_get r.json "'%d %d %d' % (d['summary']['events'], d['server']['commits'], d['server']['client_events'])")"
assert_eq "stats: --results names the test pgbench and keeps the persona's command line" \
  "pgbench True" "$(json_get r.json "'%s %s' % (d['manifest']['test'], '--db-server-stats=on' in d['manifest']['command_line'])")"
assert_eq "stats: no bmk notice on stderr" "" "$(grep -v '^pgbench' err || true)"

# --results alone: the same counts, no block
pgb -n -c 2 -j 2 -t 30 -f x.sql --results=r2.json
assert_eq "results alone: exit 0" "0" "$RC"
check "results alone: validates against the schema" json_ok r2.json
assert_eq "results alone: events = the report's transactions (60)" "60 60" \
  "$(processed) $(json_get r2.json "d['summary']['events']")"
assert_eq "results alone: no server statistics (off unless asked for)" "None" \
  "$(json_get r2.json "d.get('server')")"
assert_not_contains "results alone: no Server-side statistics block" "$(cat out)" "Server-side statistics"

# "--name value", as pgbench's own long options: the same document, the
# percentile and the switch's value taken (not the database's name)
pgb -n -c 2 -j 2 -t 20 -f x.sql --results r4.json --percentile 99 --db-server-stats on
assert_eq "space form: exit 0" "0" "$RC"
assert_eq "space form: --results FILE writes the document, events = the report's (40)" "40 40" \
  "$(processed) $(json_get r4.json "d['summary']['events']")"
assert_eq "space form: --percentile 99 names the 99th percentile" "['99']" \
  "$(json_get r4.json "sorted(d['summary']['latency_ms']['percentiles'])")"
assert_contains "space form: --db-server-stats on prints the block" "$(cat out)" "Server-side statistics"
pgb -n -t 1 -f x.sql --results
assert_eq "--results without its value: exit 1" "1" "$RC"
assert_eq "--results without its value: getopt's message and pgbench's hint" \
  "./pgbench: option '--results' requires an argument|pgbench: hint: Try \"pgbench --help\" for more information." \
  "$(paste -sd'|' err)"
assert_eq "--results without its value: nothing on stdout" "" "$(cat out)"

# -T: the same relation
pgb -n -c 2 -j 2 -T 1 -f x.sql --results=r3.json
assert_eq "-T 1 with --results: exit 0" "0" "$RC"
assert_eq "-T 1: the document's events = the report's transactions" "$(processed)" \
  "$(json_get r3.json "d['summary']['events']")"

# failed transactions (a serialization failure the script raises for
# some of its random values, no retry) are not events: the document's
# events and the server's commits are the processed ones, its rollbacks
# the failed ones
cat > f.sql <<'EOF2'
\set v random(1, 10)
BEGIN;
INSERT INTO pgbx_log (v) VALUES (:v);
\if :v <= 3
DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$;
\endif
END;
EOF2
wait_pg_alone
pgb -n -c 2 -j 2 -t 50 -f f.sql --random-seed=5 --db-server-stats=on --results=f.json
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' out)
check "failures: some transactions failed ($failed), the others were processed ($(processed))" \
  test "${failed:-0}" -gt 0 -a "$(( ${failed:-0} + $(processed) ))" = 100
assert_eq "failures: the document's events, server commits and rollbacks = processed, processed, failed" \
  "$(processed) $(processed) $failed" \
  "$(json_get f.json "'%d %d %d' % (d['summary']['events'], d['server']['commits'], d['server']['rollbacks'])")"

# ---- the results database ---------------------------------------------------------
pgb -n -c 2 -j 2 -t 40 -f x.sql --save --results-db="$WORK/runs.db" --tag=suite=pgbx
assert_eq "save: exit 0" "0" "$RC"
assert_match "save: the run's id after the report" "$(cat out)" '^Saved as run [0-9]+ in '
run_bmk runs list --results-db="$WORK/runs.db"
assert_match "save: bmk runs list lists the run (test pgbench, its tag)" "$OUT" ' pgbench .*suite=pgbx'
run_bmk runs list --results-db="$WORK/runs.db" --tag=suite=pgbx --ids
ids=$OUT
assert_eq "save: one run with the tag" "1" "$(printf '%s\n' "$ids" | grep -c .)"
run_bmk runs export "$ids" --results-db="$WORK/runs.db"
printf '%s\n' "$OUT" > exported.json
assert_eq "save: the saved run's events = the report's transactions (80)" "80" \
  "$(json_get exported.json "d['summary']['events']")"

# ---- --statement-percentiles=on: bmk's Statements block ----------------------------
# x.sql's commands each ran once per transaction; the block follows the
# report after a blank line, the report being the plain run's line for
# line; pgbench's own -r lines only with -r; --results has the statements
pgsql_q "truncate pgbx_log; update pgbx set n = 0" > /dev/null
pgb -n -c 2 -j 2 -t 50 -f x.sql --statement-percentiles=on --results=st.json
assert_eq "statements: exit 0, 100 transactions" "0 100" "$RC $(processed)"
tps=$(line_no '^tps = ') blk=$(line_no '^Statements \(latency in ms\):')
assert_eq "statements: the Statements block follows pgbench's report after a blank line (tps line $tps)" \
  "$((tps + 2))" "$blk"
assert_eq "statements: stdout up to the block is the plain run's report, line for line" "" \
  "$(diff <(mask out | sed '/^Statements (latency in ms):/,$d' | sed '$d') plain.masked)"
assert_eq "statements: each of x.sql's 5 commands counted once per transaction, none failed" \
  "100 0 0|100 0 0|100 0 0|100 0 0|100 0 0|" \
  "$(sed -n '/^Statements/,$p' out | awk '$1 ~ /^[0-9]+$/ && NF >= 8 {printf "%s %s %s|", $1, $2, $3}')"
assert_eq "statements: the counts = the rows and the counter the script changed" "100 100" \
  "$(pgsql_q "select count(*) from pgbx_log") $(pgsql_q "select n from pgbx where id = 1")"
assert_eq "statements: each line has ordered percentiles (p50 <= p95 <= p99)" "5" \
  "$(sed -n '/^Statements/,$p' out | awk '$1 ~ /^[0-9]+$/ && NF >= 8 && $6 <= $7 && $7 <= $8' | wc -l)"
assert_not_contains "statements: no pgbench -r lines without -r" "$(cat out)" \
  "statement latencies in milliseconds"
check "statements: --results validates against the schema" json_ok st.json
assert_eq "statements: --results' statements have the same counts" "[100, 100, 100, 100, 100]" \
  "$(json_get st.json "[s['count'] for s in d['statements']]")"
pgb -n -c 2 -j 2 -t 50 -f x.sql -r --statement-percentiles=on
assert_eq "statements with -r: pgbench's -r lines, then the block" "0 1 1" \
  "$RC $(grep -c '^statement latencies in milliseconds and failures:' out) $(grep -c \
  '^Statements (latency in ms):' out)"
pgb -n -c 2 -j 2 -t 50 -f x.sql -r
assert_not_contains "-r alone: no Statements block (pgbench's report only)" "$(cat out)" \
  "Statements (latency in ms)"
pgb -n -t 1 -f x.sql --statement-percentiles=maybe
assert_eq "--statement-percentiles=maybe: exit 1" "1" "$RC"
assert_contains "--statement-percentiles=maybe: bmk's message names it" "$(cat out err)" \
  "statement-percentiles"

# ---- --metrics-listen ---------------------------------------------------------------
cat > slow.sql <<'EOF'
INSERT INTO pgbx_log (v) VALUES (0);
\sleep 20 ms
EOF
port=$(free_port 19520)
run_scraped m.out "$port" ./pgbench -n -c 2 -j 2 -t 60 -f slow.sql --metrics-listen="127.0.0.1:$port"
assert_eq "metrics: exit 0" "0" "$RC"
m=$(printf '%s\n' "$PAGE" | awk '/^bmk_transactions_total[{ ]/ && /test="pgbench"/ {print $NF}' | head -1)
assert_eq "metrics: bmk_transactions_total{test=\"pgbench\"} = the report's transactions (120)" \
  "120" "$(printf '%.0f' "${m:-0}")"

# ---- bad input ------------------------------------------------------------------------
pgb -n -t 1 -f x.sql --db-server-stats=maybe
assert_eq "a bad value of bmk's option: exit 1" "1" "$RC"
assert_contains "a bad value of bmk's option: bmk's message names it" "$(cat out err)" "db-server-stats"
pgb -i --results=i.json
assert_eq "-i with bmk's option: exit 1" "1" "$RC"
assert_contains "-i with bmk's option: pgbench's message" "$(cat err)" \
  "some of the specified options cannot be used in initialization (-i) mode"
pgb -n -t 1 -f x.sql --server-cost=on
assert_eq "an option neither has: exit 1" "1" "$RC"
assert_contains "an option neither has: pgbench's message" "$(cat err)" "unrecognized option"
assert_contains "an option neither has: pgbench's hint" "$(cat err)" 'Try "pgbench --help"'
./pgbench --help > help.out
assert_contains "--help lists bmk's additions after pgbench's options" "$(cat help.out)" \
  "bmk's additions (benchmarking mode"

pgsql_q "drop table if exists pgbx, pgbx_log" > /dev/null
finish
