#!/usr/bin/env bash
# pgbench scripts as a bmk workload (docs/pgbench.md "pgbench scripts as
# a bmk workload"): two weighted script files on the sandbox PostgreSQL
# and MariaDB, run by bmk's command line. The report's transactions, its
# per-type rows and its per-statement counts are checked against what the
# server holds afterwards (the rows the scripts insert, the counters
# they increment) and the server's own counters over the run (rows
# inserted and updated, statements), the --results document against
# the schema and the same counts; --rand-seed against the persona's --random-seed (the
# values each client draws); pgbench's tables by prepare and the
# built-in scripts; bad input (an unknown built-in, a missing file, a
# syntax error, no script, \startpipeline on MariaDB, an SQL error
# during the run): the message and exit code 1; retries under --max-tries
# (a serialization failure on PostgreSQL, MariaDB's lock wait timeout
# 1205 with what the failed tries wrote rolled back); the built-in
# scripts in MySQL's dialect on MariaDB; jsonb's ?, ?| and ?& under
# --protocol=extended and prepared (pgbench's $n text) and a ? in a
# MariaDB string (its own placeholder), by the rows written; the same
# counts on event loops (--workers below --threads), where no SQL call
# blocks a worker. The per-statement figures per interval (--results'
# rows: they add up to the window's exactly; --hdr-log's Tag=stmt:S:C
# lines, read by the reference HdrHistogram library, to each command's
# count), on --metrics-listen (a scrape at the end: the report's counts
# and p95), merged by bmk report --merge and bmk cluster run (counts
# summed, the rows the server holds; the merged interval rows' too,
# adding up to the merged counts), on the cluster coordinator's
# --metrics-listen (a scrape after the run: the merged document's counts
# and p95). Counts only, no timing.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

cat > a.sql <<'EOF'
\set v random(1, 1000)
INSERT INTO pgbt_a (client, v) VALUES (:client_id, :v);
SELECT count(*) AS n FROM pgbt_a WHERE v = :v \gset
EOF
cat > b.sql <<'EOF'
\set v random(1, 1000)
\if :v > 500
UPDATE pgbt_b SET n = n + 1 WHERE id = 1;
\else
UPDATE pgbt_b SET n = n + 1 WHERE id = 2;
\endif
INSERT INTO pgbt_blog (client, v) VALUES (:client_id, :v);
EOF

# stmt TEXT: the count of the Statements block's line of that command
stmt() { printf '%s\n' "$OUT" | grep -F -- "$1" | grep -E '^ +[0-9]+ ' | head -1 | awk '{print $1}'; }
# evtype NAME: the events of that row of the per-type table
evtype() { printf '%s\n' "$OUT" | sed -n '/^Event types/,/^$/p' | awk -v n="$1" '$1 == n {print $2}'; }
# jstmt FILE SCRIPT COMMAND: count of that command in --results' statements
jstmt() { json_get "$1" "[s['count'] for s in d['statements'] if s['script'] == '$2' and s['command'] == $3][0]"; }

# same_counts DB Q: the report, the per-type table, the statements and
# the document against the rows (Q runs a query on that server)
same_counts() {
  local db=$1 q=$2 ra rb n1 n2
  assert_eq "$db: two weighted scripts run (exit 0)" "0" "$RC"
  ra=$($q "select count(*) from pgbt_a")
  rb=$($q "select count(*) from pgbt_blog")
  n1=$($q "select n from pgbt_b where id = 1")
  n2=$($q "select n from pgbt_b where id = 2")
  assert_eq "$db: transactions = the rows both scripts inserted" "$((ra + rb))" \
    "$(report_value "transactions:" "$OUT")"
  assert_eq "$db: a.sql's events (per-type table) = its rows" "$ra" "$(evtype a.sql)"
  assert_eq "$db: b.sql's events (per-type table) = its rows" "$rb" "$(evtype b.sql)"
  assert_eq "$db: a.sql's INSERT count = its rows" "$ra" "$(stmt 'INSERT INTO pgbt_a')"
  assert_eq "$db: a.sql's SELECT ... \\gset count = its rows" "$ra" "$(stmt 'SELECT count(*) AS n')"
  assert_eq "$db: b.sql's first UPDATE count = the counter it increments" "$n1" "$(stmt 'WHERE id = 1;')"
  assert_eq "$db: b.sql's second UPDATE count = the counter it increments" "$n2" "$(stmt 'WHERE id = 2;')"
  assert_eq "$db: b.sql's INSERT count = its rows = its UPDATEs" "$rb $rb" \
    "$(stmt 'INSERT INTO pgbt_blog') $((n1 + n2))"
  check "$db: --results validates against the schema" json_ok "$db.json"
  assert_eq "$db: --results has every command of both scripts" "10" \
    "$(json_get "$db.json" "len(d['statements'])")"
  assert_eq "$db: --results' counts of both INSERTs = the rows" "$ra $rb" \
    "$(jstmt "$db.json" a.sql 1) $(jstmt "$db.json" b.sql 6)"
  assert_eq "$db: --results' per-statement percentiles are ordered" "True" \
    "$(json_get "$db.json" "all(0 < s['latency_ms']['p50'] <= s['latency_ms']['p95'] <= s['latency_ms']['p99'] <= s['latency_ms']['max'] for s in d['statements'] if s['count'] > 0)")"
}

# ---- PostgreSQL ----------------------------------------------------------------
pg_tables() {
  PGOPTIONS="-c client_min_messages=warning" pgsql_q "drop table if exists pgbt_a, pgbt_b, pgbt_blog;
    create table pgbt_a (id serial primary key, client int, v int);
    create table pgbt_b (id int primary key, n int); insert into pgbt_b values (1, 0), (2, 0);
    create table pgbt_blog (id serial primary key, client int, v int)" > /dev/null
}
pg_tables
run_bmk $PGSQL_OPTS --threads=2 --events=300 --rand-seed=7 --results=pg.json \
  pgbench_script --script=a.sql@3 --script=b.sql@1 run
same_counts pg pgsql_q
# the server's own counters over the same window (pg_stat_database, the
# report's server statistics): the rows inserted and updated = the
# statements' counts
srv() { printf '%s\n' "$OUT" | grep -F "$1" | head -1 | awk -F: '{print $2}' | awk '{print $1}'; }
assert_eq "pg: the server's rows inserted (tup_inserted) = the INSERTs' counts" \
  "$(srv 'rows inserted (tup_inserted)')" "$(( $(stmt 'INSERT INTO pgbt_a') + $(stmt 'INSERT INTO pgbt_blog') ))"
assert_eq "pg: the server's rows updated (tup_updated) = the UPDATEs' counts" \
  "$(srv 'rows updated (tup_updated)')" "$(( $(stmt 'WHERE id = 1;') + $(stmt 'WHERE id = 2;') ))"
assert_contains "pg: the server statistics are on by default" "$OUT" "Server-side statistics"
assert_eq "pg: 300 events (--events)" "300" "$(report_value "transactions:" "$OUT")"
# the same on event loops (8 VUs on 2 workers): the same counts, and no
# SQL call blocked a worker (simple protocol: nothing is prepared)
pg_tables
run_bmk $PGSQL_OPTS --threads=8 --workers=2 --events=300 --rand-seed=7 --results=pgev.json \
  pgbench_script --script=a.sql@3 --script=b.sql@1 run
same_counts pgev pgsql_q
assert_contains "pgev: 8 VUs on 2 workers" "$OUT" "Virtual users: 8 on 2 worker threads (event loop)"
assert_eq "pgev: the server's rows inserted and updated = the statements' counts" \
  "$(srv 'rows inserted (tup_inserted)') $(srv 'rows updated (tup_updated)')" \
  "$(( $(stmt 'INSERT INTO pgbt_a') + $(stmt 'INSERT INTO pgbt_blog') )) $(( $(stmt 'WHERE id = 1;') + $(stmt 'WHERE id = 2;') ))"
assert_eq "pgev: no SQL call blocked a worker" "0" \
  "$(json_get pgev.json "d['summary']['client']['loop_blocking_calls']")"

# per-statement figures per interval (--results' interval rows) and on
# --metrics-listen: the intervals' counts plus what came after the last
# interval are the window's, exactly; the final page's series are the
# report's Statements block (counts, failures, retries, quantiles)
pg_tables
port=$(free_port 19541)
run_scraped iv.out "$port" "$BMK" $PGSQL_OPTS --threads=2 --time=3 --report-interval=1 \
  --results=iv.json --hdr-log=iv.hlog --metrics-listen="127.0.0.1:$port" --metrics-linger=60 \
  pgbench_script --script=a.sql@3 --script=b.sql@1 run
assert_eq "intervals: the run exits 0" "0" "$RC"
check "intervals: --results validates against the schema" json_ok iv.json
assert_eq "intervals: every row has each command's figures (10 entries, in the statements' order)" \
  "True" "$(json_get iv.json "len(d['intervals']) >= 2 and all([(s['script_index'], s['command']) for s in i['statements']] == [(s['script_index'], s['command']) for s in d['statements']] for i in d['intervals'])")"
for f in count failures retries; do
  assert_eq "intervals: each command's $f over the rows + after_last_interval = the window's" \
    "$(json_get iv.json "[s['$f'] for s in d['statements']]")" \
    "$(json_get iv.json "[sum(i['statements'][k]['$f'] for i in d['intervals']) + s['after_last_interval']['$f'] for k, s in enumerate(d['statements'])]")"
done
assert_eq "intervals: the INSERTs ran in every row (per-interval counts are the interval's own)" \
  "True" "$(json_get iv.json "all(i['statements'][1]['count'] > 0 and i['statements'][1]['count'] < d['statements'][1]['count'] for i in d['intervals'])")"
assert_eq "intervals: each row's percentiles are ordered" "True" \
  "$(json_get iv.json "all(s['latency_ms']['p50'] <= s['latency_ms']['p95'] <= s['latency_ms']['p99'] <= s['latency_ms']['max'] for i in d['intervals'] for s in i['statements'])")"
# --hdr-log: each command's interval histograms, tagged stmt:S:C, read by
# the reference HdrHistogram library: per tag, their counts add up to
# the command's count in --results; the untagged and per-type lines are
# the events' as before
HDRJAR=/usr/share/java/hdrhistogram.jar
if command -v java > /dev/null && [ -r "$HDRJAR" ]; then
  tags=$(java -cp "$HDRJAR" "$TOP/tests/integration/tools/HdrCheck.java" tags iv.hlog 2>&1)
  tagcount() { printf '%s\n' "$tags" | awk -v t="$1" '$1 == t {n = $3} END {print n + 0}'; }
  got=; want=
  for k in 0 1 2 3 4 5 6 7 8 9; do
    got+="$(tagcount "$(json_get iv.json "'stmt:%d:%d' % (d['statements'][$k]['script_index'], d['statements'][$k]['command'])")") "
    want+="$(json_get iv.json "d['statements'][$k]['count']") "
  done
  assert_eq "hdr log: per command (Tag=stmt:S:C), the intervals' counts add up to its count in --results" \
    "$want" "$got"
  assert_eq "hdr log: a tag per command that ran, one line per interval at most (+ the part after the last)" \
    "$(json_get iv.json "sum(s['count'] > 0 for s in d['statements'])") True" \
    "$(printf '%s\n' "$tags" | grep -c '^stmt:') $(printf '%s\n' "$tags" | \
    awk -v n="$(json_get iv.json "len(d['intervals'])")" '/^stmt:/ && $5 > n + 1 {bad = 1} END {print bad ? "False" : "True"}')"
  assert_eq "hdr log: the untagged lines hold every event, each script's tag its events" \
    "$(json_get iv.json "d['summary']['events']") $(json_get iv.json "' '.join(str(t['events']) for t in d['event_types'])")" \
    "$(tagcount -) $(tagcount a.sql) $(tagcount b.sql)"
else
  skip "hdr log: per-statement tags" "java or $HDRJAR missing (apt-get install default-jre-headless libhdrhistogram-java)"
fi
# the page: sample NAME S C [EXTRA]: the value of NAME{...script="S",command="C"...}
msample() { printf '%s\n' "$PAGE" | grep -F "$1{" | grep -F "script=\"$2\",command=\"$3\"" | \
  grep -F -- "${4:-}" | head -1 | awk '{print $NF}'; }
# page_vs_doc WHAT DOC: the page ($PAGE) against the document DOC, per
# command: the count, failures and retries, the 0.95 quantile = the p95
# (in ns), one bmk_statement_command series per command; promtool's check
page_vs_doc() {
  local what=$1 doc=$2 k s c counts= fails= p95=
  for k in 0 1 2 3 4 5 6 7 8 9; do
    s=$(json_get "$doc" "d['statements'][$k]['script_index']")
    c=$(json_get "$doc" "d['statements'][$k]['command']")
    counts+="$(msample bmk_statement_latency_seconds_count "$s" "$c") "
    fails+="$(msample bmk_statement_failures_total "$s" "$c")+$(msample bmk_statement_retries_total "$s" "$c") "
    p95+="$(msample bmk_statement_latency_seconds "$s" "$c" 'quantile="0.95"' | awk '{printf "%d", $1 * 1e9 + 0.5}') "
  done
  assert_eq "$what: bmk_statement_latency_seconds_count of each command = $doc's count" \
    "$(json_get "$doc" "' '.join(str(s['count']) for s in d['statements'])") " "$counts"
  assert_eq "$what: failures and retries of each command = $doc's" \
    "$(json_get "$doc" "' '.join('%d+%d' % (s['failures'], s['retries']) for s in d['statements'])") " "$fails"
  assert_eq "$what: the 0.95 quantile of each command = $doc's p95 (in ns)" \
    "$(json_get "$doc" "' '.join('%d' % round(s['latency_ms']['p95'] * 1e6) for s in d['statements'])") " "$p95"
  assert_eq "$what: one bmk_statement_command series per command, named by script and text" \
    "10 1" "$(printf '%s\n' "$PAGE" | grep -c '^bmk_statement_command{') $(printf '%s\n' "$PAGE" | \
    grep -c 'script="1",command="6",script_name="b.sql",text="INSERT INTO pgbt_blog')"
  if command -v promtool > /dev/null; then
    check "$what: promtool check metrics accepts the page (names, types, summary)" \
      promtool check metrics <<< "$PAGE"
  else
    skip "$what: promtool check metrics" "promtool is not installed (apt-get install prometheus)"
  fi
}
page_vs_doc metrics iv.json
# merged documents (bmk report --merge): counts summed, the percentiles
# from the added histograms
cp iv.json iv2.json
run_bmk report --merge --output=ivm.json iv.json iv2.json
assert_eq "merge: exit 0, the merged statements' counts are the sum" \
  "0 $(json_get iv.json "[2 * s['count'] for s in d['statements']]")" \
  "$RC $(json_get ivm.json "[s['count'] for s in d['statements']]")"
# the interval rows' statements are merged per row from their histograms:
# the same document twice doubles every row's counts and keeps its
# percentiles; the rows plus after_last_interval are the merged counts
for f in count failures retries; do
  assert_eq "merge: every interval row's statement ${f} doubled" \
    "$(json_get iv.json "[[2 * s['$f'] for s in i['statements']] for i in d['intervals']]")" \
    "$(json_get ivm.json "[[s['$f'] for s in i['statements']] for i in d['intervals']]")"
  assert_eq "merge: each command's $f over the merged rows + after_last_interval = the merged $f" \
    "$(json_get ivm.json "[s['$f'] for s in d['statements']]")" \
    "$(json_get ivm.json "[sum(i['statements'][k]['$f'] for i in d['intervals']) + s['after_last_interval']['$f'] for k, s in enumerate(d['statements'])]")"
done
assert_eq "merge: every interval row's statement p95 and max kept (the same histograms twice)" \
  "$(json_get iv.json "[[(s['latency_ms']['p95'], s['latency_ms']['max']) for s in i['statements']] for i in d['intervals']]")" \
  "$(json_get ivm.json "[[(s['latency_ms']['p95'], s['latency_ms']['max']) for s in i['statements']] for i in d['intervals']]")"
assert_eq "merge: the same histogram twice keeps each command's p95" \
  "$(json_get iv.json "[s['latency_ms']['p95'] for s in d['statements']]")" \
  "$(json_get ivm.json "[s['latency_ms']['p95'] for s in d['statements']]")"
assert_contains "merge: the merged report has the Statements block" "$OUT" "Statements (latency in ms):"
check "merge: the merged document validates against the schema" json_ok ivm.json
# runs of other scripts are not merged: the same indexes, another text
python3 -c "import json; d = json.load(open('iv.json')); d['statements'][3]['text'] = 'SELECT 42;'
json.dump(d, open('ivx.json', 'w'))"
run_bmk report --merge --output=ivmx.json iv.json ivx.json
assert_eq "merge of runs of other scripts: exit 1, no document" "1 no" \
  "$RC $([ -e ivmx.json ] && echo yes || echo no)"
assert_contains "merge of runs of other scripts: the message names both files and the command" \
  "$OUT" "iv.json and ivx.json ran different scripts: script 1 command 0 is"
# a document without the statements' histograms (an older bmk's): the
# percentiles are the highest of the runs' (an upper bound), said so
python3 -c "import json; d = json.load(open('iv.json'))
for s in d['statements'] + [s for i in d['intervals'] for s in i['statements']]: s.pop('hdr_v2_compressed_base64', None)
json.dump(d, open('ivn.json', 'w'))"
run_bmk report --merge --output=ivmn.json iv.json ivn.json
assert_eq "merge without histograms: counts summed, p95 the runs' highest, histogram null" \
  "0 True True True" "$RC $(json_get ivmn.json "[s['count'] for s in d['statements']] == [2 * s['count'] for s in json.load(open('iv.json'))['statements']]") $(json_get ivmn.json "[s['latency_ms']['p95'] for s in d['statements']] == [s['latency_ms']['p95'] for s in json.load(open('iv.json'))['statements']]") $(json_get ivmn.json "all(s['hdr_v2_compressed_base64'] is None for s in d['statements'])")"
assert_eq "merge without histograms: the rows' statements: counts summed, p95 the runs' highest, histogram null" \
  "True True True" "$(json_get ivmn.json "[[s['count'] for s in i['statements']] for i in d['intervals']] == [[2 * s['count'] for s in i['statements']] for i in json.load(open('iv.json'))['intervals']]") $(json_get ivmn.json "[[s['latency_ms']['p95'] for s in i['statements']] for i in d['intervals']] == [[s['latency_ms']['p95'] for s in i['statements']] for i in json.load(open('iv.json'))['intervals']]") $(json_get ivmn.json "all(s['hdr_v2_compressed_base64'] is None for i in d['intervals'] for s in i['statements'])")"
assert_contains "merge without histograms: the NOTE names the statements" "$OUT" \
  "10 of 10 statements come from files without their histograms"

# the same seed draws what the persona's clients draw (-c 2 -j 2): each
# client's values under bmk are the start of the persona's
cat > s.sql <<'EOF'
\set v random(1, 1000000000)
INSERT INTO pgbt_a (client, v) VALUES (:client_id, :v);
EOF
seqs() { pgsql_q "select client, string_agg(v::text, ',' order by id) from pgbt_a group by client order by client"; }
# prefix_of_persona: "yes" when each client's values in $ours (lines
# CLIENT|v1,v2,...) begin the same client's values in $persona, else
# "no: ..." naming the first client that differs
prefix_of_persona() {
  local cl vals p out=yes
  while IFS='|' read -r cl vals; do
    p=$(printf '%s\n' "$persona" | awk -F'|' -v c="$cl" '$1 == c {print $2}')
    case "$p," in "$vals,"*) ;; *) out="no: client $cl drew $vals, the persona $p"; break ;; esac
  done <<< "$ours"
  echo "$out"
}
pgsql_q "truncate pgbt_a" > /dev/null
PGHOST=127.0.0.1 PGPORT=$PGSQL_PORT PGUSER=sbtest PGPASSWORD=$DBPASS PGDATABASE=sbtest \
  timeout -k 5 60 "$BMK" pgbench -n -c 2 -j 2 -t 10 --random-seed=11 -f s.sql > /dev/null 2>&1
persona=$(seqs)
pgsql_q "truncate pgbt_a" > /dev/null
run_bmk $PGSQL_OPTS --threads=2 --events=8 --rand-seed=11 s.sql run
ours=$(seqs)
prefix=$(prefix_of_persona)
assert_eq "--rand-seed=11: each client draws the persona's --random-seed=11 values" "yes" "$prefix"
assert_eq "FILE.sql as the test name: 8 transactions" "8" "$(pgsql_q "select count(*) from pgbt_a")"
# a cluster run of two processes of 2 VUs: clients 0-3 draw what the
# persona's -c 4 -j 4 clients draw
pgsql_q "truncate pgbt_a" > /dev/null
PGHOST=127.0.0.1 PGPORT=$PGSQL_PORT PGUSER=sbtest PGPASSWORD=$DBPASS PGDATABASE=sbtest \
  timeout -k 5 60 "$BMK" pgbench -n -c 4 -j 4 -t 10 --random-seed=11 -f s.sql > /dev/null 2>&1
persona=$(seqs)
pgsql_q "truncate pgbt_a" > /dev/null
printf 'localhost 2\n' > hosts
run_bmk cluster run --hosts=hosts --launcher=local --results=cl.json -- $PGSQL_OPTS --threads=2 \
  --events=16 --rand-seed=11 s.sql run
ours=$(seqs)
assert_eq "bmk cluster run: the merged document's INSERT count = the rows (16), its report's too" \
  "16 16" "$(json_get cl.json "d['statements'][1]['count']") $(stmt 'INSERT INTO pgbt_a')"
assert_eq "bmk cluster run: the merged statements' percentiles come from the processes' histograms" \
  "False" "$(json_get cl.json "d['statements'][1]['hdr_v2_compressed_base64'] is None")"
prefix=$(prefix_of_persona)
# (each process runs its 8 events, by one VU or both: the clients are
# 0-3, at least one of each process's)
assert_eq "bmk cluster run: 16 transactions by clients 0-3, each process's (global :client_id)" \
  "0 16 t t t" "$RC $(pgsql_q "select count(*), bool_and(client between 0 and 3),
    bool_or(client in (0, 1)), bool_or(client in (2, 3)) from pgbt_a" | tr '|' ' ')"
assert_eq "bmk cluster run: each client draws the persona's -c 4 -j 4 values" "yes" "$prefix"
# the coordinator's own --metrics-listen: once the processes' documents
# are merged, the page scraped after the run (--metrics-linger) has the
# per-statement series of the merged document (counts summed over the
# processes: the rows the server holds; quantiles of the added
# histograms); the merged interval rows' statements add up as a run's
pg_tables
port=$(free_port 19561)
run_scraped clm.out "$port" "$BMK" cluster run --hosts=hosts --launcher=local --results=clm.json \
  --metrics-listen="127.0.0.1:$port" --metrics-linger=60 -- $PGSQL_OPTS --threads=2 --time=3 \
  --report-interval=1 pgbench_script --script=a.sql@3 --script=b.sql@1 run
assert_eq "cluster metrics: the run exits 0, its INSERTs are the rows the server holds" \
  "0 $(pgsql_q "select count(*) from pgbt_a") $(pgsql_q "select count(*) from pgbt_blog")" \
  "$RC $(json_get clm.json "d['statements'][1]['count']") $(json_get clm.json "d['statements'][9]['count']")"
page_vs_doc "cluster metrics (the coordinator's page)" clm.json
check "cluster metrics: the merged document validates against the schema" json_ok clm.json
assert_eq "bmk cluster run: the merged rows have statements; per command, their counts + after_last_interval = the merged count" \
  "True $(json_get clm.json "[s['count'] for s in d['statements']]")" \
  "$(json_get clm.json "len(d['intervals']) >= 2 and all(len(i['statements']) == 10 for i in d['intervals'])") $(json_get clm.json "[sum(i['statements'][k]['count'] for i in d['intervals']) + s['after_last_interval']['count'] for k, s in enumerate(d['statements'])]")"

# pgbench's tables by prepare; the built-in scripts (scale from
# pgbench_branches); cleanup
run_bmk $PGSQL_OPTS pgbench_script prepare
assert_eq "prepare: pgbench -i's rows at scale 1" "0 100000|1|10|0" "$RC $(pgsql_q "select
  (select count(*) from pgbench_accounts), (select count(*) from pgbench_branches),
  (select count(*) from pgbench_tellers), (select count(*) from pgbench_history)")"
run_bmk $PGSQL_OPTS --threads=2 --events=100 pgbench_script --builtin=tpcb-like@1 --builtin=select-only@1 run
assert_eq "built-ins: tpcb-like's events = pgbench_history's rows" "0 $(pgsql_q "select count(*) from pgbench_history")" \
  "$RC $(evtype tpcb-like)"
assert_contains "built-ins: :scale from pgbench_branches" "$OUT" "pgbench scripts (protocol simple, scale 1)"
run_bmk $PGSQL_OPTS pgbench_script cleanup
assert_eq "cleanup: pgbench's tables dropped" "0 0" \
  "$RC $(pgsql_q "select count(*) from pg_class where relname like 'pgbench_%' and relkind = 'r'")"

# ---- retries and failures in bmk's counts (report, --results) -------------------
# A sequence decides each try: an odd value raises a serialization failure
# (SQLSTATE 40001), an even one commits; nextval is not rolled back, so
# with one client the tries alternate from the sequence's restart.
PGOPTIONS="-c client_min_messages=warning" pgsql_q "drop sequence if exists pgbt_seq; create sequence pgbt_seq" > /dev/null
cat > rt.sql <<'EOF'
DO $$BEGIN IF nextval('pgbt_seq') % 2 = 1 THEN RAISE EXCEPTION USING ERRCODE = '40001'; END IF; END$$;
EOF
# thread mode: one client, exact counts
pgsql_q "alter sequence pgbt_seq restart" > /dev/null
run_bmk $PGSQL_OPTS --threads=1 --events=5 --time=0 --max-tries=2 --results=rt.json rt.sql run
assert_eq "retries: 5 transactions, each retried once: retried 5, retries 5, failed 0" "0 5 5 5 0" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retried transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT")"
assert_match "retries: under their SQLSTATE" "$OUT" '^        40001 \(serialization\): +retried 5, retries 5, failed 0$'
assert_eq "retries: --results summary.retries (max_tries retried retries failures, 40001's retries)" "2 5 5 0 5" \
  "$(json_get rt.json "'%s %s %s %s %s' % (tuple(d['summary']['retries'][k] for k in ('max_tries', 'retried', 'retries', 'failures')) + (d['summary']['retries']['by_code']['40001']['retries'],))")"
# the event loop, 2 clients sharing the sequence: every event ends with
# an even value and every odd one drawn before the last even was a retry,
# so 10 transactions make exactly 10 retries, however the tries interleave
pgsql_q "alter sequence pgbt_seq restart" > /dev/null
run_bmk $PGSQL_OPTS --threads=2 --workers=1 --events=10 --time=0 --max-tries=100 rt.sql run
assert_eq "retries on the loop: 10 transactions, 10 retries, none failed, the sequence at 20" "0 10 10 0 20" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT") $(pgsql_q "select last_value from pgbt_seq")"
pgsql_q "alter sequence pgbt_seq restart" > /dev/null
run_bmk $PGSQL_OPTS --threads=1 --events=5 --time=0 --max-tries=1 rt.sql run
assert_eq "no retry (--max-tries=1): of 5 tries 3 failed, 2 transactions" "0 2 0 3" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT")"
# the persona's --results (a bmk addition) has them too
pgsql_q "alter sequence pgbt_seq restart" > /dev/null
PGHOST=127.0.0.1 PGPORT=$PGSQL_PORT PGUSER=sbtest PGPASSWORD=$DBPASS PGDATABASE=sbtest \
  timeout -k 5 60 "$BMK" pgbench -n -c 1 -t 5 --max-tries=2 -f rt.sql --results=prt.json > prt.out 2>&1
assert_eq "persona --max-tries=2 -t 5: pgbench's retries line and --results' counts agree" "5 2 5 5 0" \
  "$(sed -n 's/^total number of retries: \([0-9]*\).*/\1/p' prt.out) $(json_get prt.json "'%s %s %s %s' % tuple(d['summary']['retries'][k] for k in ('max_tries', 'retried', 'retries', 'failures'))")"

# --protocol=extended and prepared send pgbench's text ($1, $2... for the
# :variables): jsonb's ?, ?| and ?& stay operators, on threads and on the
# event loop; the rows the server holds
pgsql_q "drop table if exists pgbt_j; create table pgbt_j (client int, p text, x bool, y bool, z bool, s text)" > /dev/null 2>&1
cat > j.sql <<'EOF'
\set a 5
INSERT INTO pgbt_j VALUES (:client_id, :p, '{"a":1}'::jsonb ? 'a', '{"b":2}'::jsonb ?| array['b','c'], '{"a":1}'::jsonb ?& array['a','c'], 'a?' || :a::text);
EOF
for p in extended prepared; do
  for w in 2 1; do
    pgsql_q "truncate pgbt_j" > /dev/null
    run_bmk $PGSQL_OPTS --threads=2 --workers=$w --events=10 --protocol=$p --define=p=$p j.sql run
    assert_eq "--protocol=$p --workers=$w, jsonb's ?, ?| and ?&: exit 0, 10 transactions, 10 rows (true, true, false, 'a?5')" \
      "0 10 10" "$RC $(report_value "transactions:" "$OUT") $(pgsql_q "select count(*) from pgbt_j where p = '$p' and x and y and not z and s = 'a?5'")"
  done
done
pgsql_q "drop table pgbt_j" > /dev/null

# ---- MariaDB -----------------------------------------------------------------
mysql_q "drop table if exists pgbt_a, pgbt_b, pgbt_blog;
  create table pgbt_a (id int auto_increment primary key, client int, v int);
  create table pgbt_b (id int primary key, n int); insert into pgbt_b values (1, 0), (2, 0);
  create table pgbt_blog (id int auto_increment primary key, client int, v int)"
run_bmk $MYSQL_OPTS --threads=2 --events=200 --rand-seed=7 --results=my.json \
  pgbench_script --script=a.sql@3 --script=b.sql@1 run
same_counts my mysql_q
assert_eq "MariaDB: the server's statements (Questions) = the SQL commands' counts" \
  "$(srv 'queries (Questions)')" "$(( 2 * $(stmt 'INSERT INTO pgbt_a') + 2 * $(stmt 'INSERT INTO pgbt_blog') ))"
# the same on event loops (6 VUs on 2 workers)
mysql_q "truncate pgbt_a; truncate pgbt_blog; update pgbt_b set n = 0"
run_bmk $MYSQL_OPTS --threads=6 --workers=2 --events=200 --rand-seed=7 --results=myev.json \
  pgbench_script --script=a.sql@3 --script=b.sql@1 run
same_counts myev mysql_q
assert_eq "MariaDB event loop: the server's statements (Questions) = the SQL commands' counts" \
  "$(srv 'queries (Questions)')" "$(( 2 * $(stmt 'INSERT INTO pgbt_a') + 2 * $(stmt 'INSERT INTO pgbt_blog') ))"
assert_eq "MariaDB event loop: no SQL call blocked a worker" "0" \
  "$(json_get myev.json "d['summary']['client']['loop_blocking_calls']")"
# prepared statements: \gset reads the column names of their results
mysql_q "truncate pgbt_a"
run_bmk $MYSQL_OPTS --threads=2 --events=20 --protocol=prepared --script=a.sql pgbench_script run
assert_eq "MariaDB --protocol=prepared: a.sql runs (\\gset of a prepared statement's row)" \
  "0 20 20" "$RC $(report_value "transactions:" "$OUT") $(mysql_q "select count(*) from pgbt_a")"
# MySQL's placeholder stays ?: a ? in a string is the string's, on threads
# and on the event loop
mysql_q "drop table if exists pgbt_q; create table pgbt_q (client int, p varchar(20), s varchar(20), v int)"
cat > q.sql <<'EOF'
\set a 5
INSERT INTO pgbt_q VALUES (:client_id, :p, concat('a?b', :a), :a + 1);
EOF
for p in extended prepared; do
  for w in 2 1; do
    run_bmk $MYSQL_OPTS --threads=2 --workers=$w --events=10 --protocol=$p --define=p=$p$w q.sql run
    assert_eq "MariaDB --protocol=$p --workers=$w, a ? in a string: exit 0, 10 rows ('a?b5', 6)" \
      "0 10" "$RC $(mysql_q "select count(*) from pgbt_q where p = '$p$w' and s = 'a?b5' and v = 6")"
  done
done
mysql_q "drop table pgbt_q"
printf '\\startpipeline\nSELECT 1;\n\\endpipeline\n' > pipe.sql
run_bmk $MYSQL_OPTS --protocol=extended pipe.sql run
assert_eq "MariaDB: \\startpipeline refused (exit 1)" "1" "$RC"
assert_contains "MariaDB: \\startpipeline's message" "$OUT" "\\startpipeline: this driver (mysql) has no pipeline mode"
mysql_q "drop table pgbt_a, pgbt_b, pgbt_blog"
# a lock wait timeout (1205) is retried and counted under its code as a
# deadlock; the client rolls back what the failed try did (InnoDB keeps
# the transaction open). A second connection holds row 1's lock for the
# whole block; a sequence (not rolled back) makes every odd try ask for
# that lock with NOWAIT (MariaDB's 1205 at once), every even one commit.
mysql_q "drop table if exists pgbt_lk, pgbt_lklog; drop sequence if exists pgbt_lkseq;
  create table pgbt_lk (id int primary key, n int); insert into pgbt_lk values (1, 0);
  create table pgbt_lklog (id int auto_increment primary key, v int); create sequence pgbt_lkseq"
cat > lk.sql <<'EOF'
BEGIN;
INSERT INTO pgbt_lklog (v) VALUES (:client_id);
SELECT nextval(pgbt_lkseq) % 2 AS odd \gset
\if :odd
SELECT n FROM pgbt_lk WHERE id = 1 FOR UPDATE NOWAIT;
\endif
COMMIT;
EOF
HOLDING="select count(*) from information_schema.processlist where info like 'select sleep(300) as pgbt_holder%'"
mysql_q "begin; select n from pgbt_lk where id = 1 for update; select sleep(300) as pgbt_holder; rollback" > /dev/null 2>&1 &
HOLDER=$!
for _ in $(seq 1 300); do
  [ "$(mysql_q "$HOLDING")" = 1 ] && break
  sleep 0.1
done
assert_eq "MariaDB 1205: the second connection holds the row lock" "1" "$(mysql_q "$HOLDING")"
run_bmk $MYSQL_OPTS --threads=1 --events=5 --time=0 --max-tries=2 --results=lk.json lk.sql run
assert_eq "MariaDB 1205: 5 transactions, each retried once: retried 5, retries 5, failed 0" "0 5 5 5 0" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retried transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT")"
assert_match "MariaDB 1205: under its error number, as a deadlock" "$OUT" '^        1205 \(deadlock\): +retried 5, retries 5, failed 0$'
assert_eq "MariaDB 1205: --results by_code (retried retries failures kind)" "5 5 0 deadlock" \
  "$(json_get lk.json "' '.join(str(d['summary']['retries']['by_code']['1205'][k]) for k in ('retried', 'retries', 'failures', 'kind'))")"
assert_eq "MariaDB 1205: the failed tries' rows rolled back (one per transaction)" "5" \
  "$(mysql_q "select count(*) from pgbt_lklog")"
mysql_q "truncate pgbt_lklog; alter sequence pgbt_lkseq restart"
run_bmk $MYSQL_OPTS --threads=1 --events=5 --time=0 --max-tries=1 lk.sql run
assert_eq "MariaDB 1205, no retry (--max-tries=1): of 5 tries 3 failed, 2 transactions, 2 rows" "0 2 0 3 2" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT") $(mysql_q "select count(*) from pgbt_lklog")"
# on the loop, 2 clients sharing the sequence (as rt.sql's above): 10
# transactions make exactly 10 retries; the ROLLBACK waits on the loop
mysql_q "truncate pgbt_lklog; alter sequence pgbt_lkseq restart"
run_bmk $MYSQL_OPTS --threads=2 --workers=1 --events=10 --time=0 --max-tries=100 --results=lkev.json lk.sql run
assert_eq "MariaDB 1205 on the loop: 10 transactions, 10 retries, 0 failed, 10 rows, no blocking call" "0 10 10 0 10 0" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT") $(mysql_q "select count(*) from pgbt_lklog") $(json_get lkev.json "d['summary']['client']['loop_blocking_calls']")"
# a real lock wait (innodb_lock_wait_timeout = 1 s): both tries time out
cat > lt.sql <<'EOF'
SET SESSION innodb_lock_wait_timeout = 1;
BEGIN;
INSERT INTO pgbt_lklog (v) VALUES (:client_id);
UPDATE pgbt_lk SET n = n + 1 WHERE id = 1;
COMMIT;
EOF
mysql_q "truncate pgbt_lklog"
run_bmk $MYSQL_OPTS --threads=1 --events=1 --time=0 --max-tries=2 lt.sql run
assert_eq "MariaDB 1205 after a wait: 1 retry, 1 failed transaction, no row left" "0 0 1 1 0" \
  "$RC $(report_value "transactions:" "$OUT") $(report_value "retries:" "$OUT") $(report_value "failed transactions:" "$OUT") $(mysql_q "select count(*) from pgbt_lklog")"
mysql_q "kill $(mysql_q "select id from information_schema.processlist where info like 'select sleep(300) as pgbt_holder%'")" > /dev/null 2>&1
wait "$HOLDER" 2> /dev/null
mysql_q "drop table pgbt_lk, pgbt_lklog; drop sequence pgbt_lkseq"
# the built-in scripts in MySQL's dialect on the tables prepare makes:
# TPC-B's balances add up (every account, teller and branch change is a
# history row's delta) and tpcb-like's events are the history's rows
run_bmk $MYSQL_OPTS --scale=2 pgbench_script prepare
assert_eq "MariaDB: prepare makes pgbench's rows at --scale=2" "0 200000	2	20	0" "$RC $(mysql_q "select
  (select count(*) from pgbench_accounts), (select count(*) from pgbench_branches),
  (select count(*) from pgbench_tellers), (select count(*) from pgbench_history)")"
run_bmk $MYSQL_OPTS --threads=2 --events=100 pgbench_script --builtin=tpcb-like@1 --builtin=select-only@1 run
assert_eq "MariaDB: built-ins run, tpcb-like's events = pgbench_history's rows" \
  "0 $(mysql_q "select count(*) from pgbench_history")" "$RC $(evtype tpcb-like)"
assert_contains "MariaDB: :scale from pgbench_branches" "$OUT" "pgbench scripts (protocol simple, scale 2)"
assert_eq "MariaDB: accounts, tellers, branches and history's deltas sum alike" "1" "$(mysql_q "select
  (select sum(abalance) from pgbench_accounts) = (select sum(delta) from pgbench_history) and
  (select sum(tbalance) from pgbench_tellers) = (select sum(delta) from pgbench_history) and
  (select sum(bbalance) from pgbench_branches) = (select sum(delta) from pgbench_history)")"
assert_contains "MariaDB: the built-ins' MySQL dialect (COMMIT for END)" "$OUT" "  COMMIT;"
run_bmk $MYSQL_OPTS pgbench_script cleanup
assert_eq "MariaDB: cleanup drops pgbench's tables" "0 0" \
  "$RC $(mysql_q "select count(*) from information_schema.tables where table_schema = 'sbtest' and table_name like 'pgbench%'")"

# ---- bad input -------------------------------------------------------------------
run_bmk $PGSQL_OPTS pgbench_script --builtin=nope run
assert_eq "an unknown built-in: exit 1" "1" "$RC"
assert_contains "an unknown built-in: pgbench's message" "$OUT" 'no builtin script found for name "nope"'
run_bmk $PGSQL_OPTS missing.sql run
assert_eq "a missing file: exit 1" "1" "$RC"
assert_contains "a missing file: pgbench's message" "$OUT" 'could not open file "missing.sql": No such file or directory'
printf 'SELECT 1;\n\\set x 1 +\n' > bad.sql
run_bmk $PGSQL_OPTS pgbench_script --script=bad.sql run
assert_eq "a syntax error: exit 1" "1" "$RC"
assert_contains "a syntax error: pgbench's message with the file and line" "$OUT" "pgbench: error: bad.sql:2: "
run_bmk $PGSQL_OPTS pgbench_script run
assert_eq "no script: exit 1" "1" "$RC"
assert_contains "no script: the message" "$OUT" "no pgbench script to run"
printf 'SELECT * FROM pgbt_none;\n' > err.sql
for w in threads 1; do
  run_bmk $PGSQL_OPTS --threads=2 --workers=$w --events=5 err.sql run
  assert_eq "an SQL error during the run (--workers=$w): exit 1" "1" "$RC"
  assert_contains "an SQL error during the run (--workers=$w): pgbench's message" "$OUT" \
    'script 0 aborted in command 0 query 0: ERROR:  relation "pgbt_none" does not exist'
  assert_contains "an SQL error during the run (--workers=$w): bmk's FATAL line" "$OUT" "FATAL: pgbench script: client "
done

pgsql_q "drop table if exists pgbt_a, pgbt_b, pgbt_blog" > /dev/null
finish
