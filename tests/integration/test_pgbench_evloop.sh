#!/usr/bin/env bash
# pgbench scripts on bmk's event loop (docs/pgbench.md): the persona with
# fewer threads (-j) than clients (-c) runs each thread's clients on one
# loop, as pgbench does; bmk's command line with --workers below
# --threads likewise. Transactions and per-command counts are checked
# against the rows the scripts leave and the server's own counters
# (pg_stat_user_tables, after the sessions left); a pipeline script;
# serialization failures retried; -t per client; -R; -C; -l; a \sleep that lets the
# loop's other clients run (one client sleeps for the whole run, the
# other commits); the persona's output layout against pgbench 15's with
# -c 8 -j 2; no SQL call blocks a worker (--results' loop_blocking_calls)
# but the first use of each prepared statement (-M prepared: one each;
# -M extended and simple: none); --workers=auto takes the
# loop at 16 VUs, as for a Lua workload. No check depends on
# timing.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

ln -s "$BMK" pgbench
export PGHOST=127.0.0.1 PGPORT=$PGSQL_PORT PGUSER=sbtest PGPASSWORD=$DBPASS PGDATABASE=sbtest
unset PGBENCH_RANDOM_SEED
# pers ARGS...: the persona; OUT (stdout and stderr), RC
pers() { OUT=$(timeout -k 5 120 ./pgbench "$@" 2>&1); RC=$?; }
val() { printf '%s\n' "$OUT" | sed -n "s/^$1: \([0-9]*\).*/\1/p"; }
# scans TABLE: the server's scans of a table so far (sequential and by
# index), once every earlier session has left (a backend flushes its
# statistics as it exits)
scans() { wait_pg_alone; pgsql_q "select seq_scan + coalesce(idx_scan, 0) from pg_stat_user_tables where relname = '$1'"; }

./pgbench -i -s 1 -q > /dev/null 2>&1
# ---- the persona's tpcb-like: -c 8 -j 2 -t 25 -------------------------------------
pers -n -c 8 -j 2 -t 25 -r
assert_eq "-c 8 -j 2 -t 25: exit 0, 200 of 200 processed, two threads" "0 200/200 2" \
  "$RC $(printf '%s\n' "$OUT" | sed -n 's/^number of transactions actually processed: //p') $(val 'number of threads')"
assert_eq "-c 8 -j 2: pgbench_history's rows = the transactions" "200" \
  "$(pgsql_q "select count(*) from pgbench_history")"
assert_eq "-c 8 -j 2: accounts, tellers, branches and history's deltas sum alike" "t" "$(pgsql_q "select
  (select sum(abalance) from pgbench_accounts) = (select sum(delta) from pgbench_history) and
  (select sum(tbalance) from pgbench_tellers) = (select sum(delta) from pgbench_history) and
  (select sum(bbalance) from pgbench_branches) = (select sum(delta) from pgbench_history)")"

# -l: a file per thread, each with its clients as pgbench deals them
# (5 clients on 2 threads: 0-2 and 3-4), one line per transaction
pers -n -c 5 -j 2 -t 4 -S -l --log-prefix=evl
assert_eq "-l -c 5 -j 2 -t 4: thread 0's file has clients 0-2 (12 lines), thread 1's 3-4 (8)" \
  "0 0,1,2 12 3,4 8" "$RC $(for f in $(ls evl.* | sort); do printf '%s %s ' \
    "$(awk '{print $1}' "$f" | sort -u | paste -sd,)" "$(wc -l < "$f")"; done | sed 's/ $//')"

REAL=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1)
if [ -n "$REAL" ] && "$REAL" --version | grep -q 'PostgreSQL) 15\.'; then
  mask() { sed -E -e '/^pgbench \(/d' -e 's/[0-9]+(\.[0-9]+)?/N/g' -e '/^ +N /s/ +N/ N/g'; }
  timeout -k 5 120 ./pgbench -n -c 8 -j 2 -t 10 -r -M prepared > out.ours 2> err.ours
  timeout -k 5 120 "$REAL" -n -c 8 -j 2 -t 10 -r -M prepared > out.real 2> err.real
  assert_eq "-c 8 -j 2 -r -M prepared: stdout's layout is pgbench 15's" "" \
    "$(diff <(mask < out.real) <(mask < out.ours))"
  assert_eq "-c 8 -j 2 -r -M prepared: stderr's layout is pgbench 15's" "" \
    "$(diff <(mask < err.real) <(mask < err.ours))"
else
  skip_core "the persona's layout against pgbench 15" "pgbench 15 is not installed"
fi

# ---- -t per client, -M extended, five clients on two threads ------------------------
PGOPTIONS="-c client_min_messages=warning" pgsql_q "drop table if exists pgev_t; create table pgev_t (id serial primary key, client int)" > /dev/null
printf 'INSERT INTO pgev_t (client) VALUES (:client_id);\n' > t.sql
pers -n -c 5 -j 2 -t 7 -M extended -f t.sql
assert_eq "-c 5 -j 2 -t 7: each of the 5 clients ran 7 transactions" "0 5 7 7" \
  "$RC $(pgsql_q "select count(*), min(n), max(n) from (select count(*) n from pgev_t group by client) x" | tr '|' ' ')"

# -R's slots are timers of the loop, -C connects before each transaction
pgsql_q "truncate pgev_t" > /dev/null
pers -n -c 4 -j 1 -t 10 -R 2000 -f t.sql
assert_eq "-R 2000 -c 4 -j 1 -t 10: exit 0, 40 processed, 40 rows" "0 40/40 40" \
  "$RC $(printf '%s\n' "$OUT" | sed -n 's/^number of transactions actually processed: //p') $(pgsql_q "select count(*) from pgev_t")"
pgsql_q "truncate pgev_t" > /dev/null
pers -n -c 4 -j 2 -t 5 -C -f t.sql
assert_eq "-C -c 4 -j 2 -t 5: exit 0, 20 processed, 20 rows" "0 20/20 20" \
  "$RC $(printf '%s\n' "$OUT" | sed -n 's/^number of transactions actually processed: //p') $(pgsql_q "select count(*) from pgev_t")"

# ---- a pipeline: four statements, one round trip -----------------------------------
PGOPTIONS="-c client_min_messages=warning" pgsql_q "drop table if exists pgev_p; create table pgev_p (id serial primary key, client int, v int);
  drop table if exists pgev_c; create table pgev_c (id int primary key, n int); insert into pgev_c values (1, 0)" > /dev/null
cat > p.sql <<'EOF'
\set v random(1, 1000)
\startpipeline
BEGIN;
INSERT INTO pgev_p (client, v) VALUES (:client_id, :v);
UPDATE pgev_c SET n = n + 1 WHERE id = 1;
END;
\endpipeline
EOF
pers -n -c 6 -j 2 -t 20 -M prepared -f p.sql -r
assert_eq "pipeline -c 6 -j 2 -t 20: exit 0, 120 processed, 120 rows, the counter at 120" "0 120/120 120 120" \
  "$RC $(printf '%s\n' "$OUT" | sed -n 's/^number of transactions actually processed: //p') $(pgsql_q "select count(*) from pgev_p") $(pgsql_q "select n from pgev_c")"

# a serialization failure inside a pipeline (raised on purpose): each
# client's transaction fails after its two tries
ser='DO $$BEGIN RAISE EXCEPTION USING ERRCODE = $e$40001$e$; END$$;'
printf '\\startpipeline\nBEGIN;\n%s\nEND;\n\\endpipeline\n' "$ser" > serpipe.sql
pers -n -c 3 -j 1 -t 2 -M extended --max-tries=2 -f serpipe.sql
assert_eq "40001 in a pipeline, -c 3 -j 1 -t 2 --max-tries=2: 6 failed, 6 retries" "0 6 6" \
  "$RC $(val 'number of failed transactions') $(val 'total number of retries')"

# ---- serialization failures, retried -----------------------------------------------
PGOPTIONS="-c client_min_messages=warning" pgsql_q "drop table if exists pgev_r; create table pgev_r (id int primary key, n int); insert into pgev_r values (1, 0)" > /dev/null
# each transaction's snapshot (its SELECT) is held over a \sleep
printf '%s\n' 'BEGIN ISOLATION LEVEL REPEATABLE READ;' 'SELECT n FROM pgev_r WHERE id = 1;' \
  '\sleep 2 ms' 'UPDATE pgev_r SET n = n + 1 WHERE id = 1;' 'END;' > ser.sql
before=$(scans pgev_r)
pers -n -c 4 -j 1 -t 10 -f ser.sql --max-tries=1000 -r
after=$(scans pgev_r)
retries=$(val "total number of retries")
assert_eq "retries -c 4 -j 1: all 40 commit, each adding 1" "0 40/40 40" \
  "$RC $(printf '%s\n' "$OUT" | sed -n 's/^number of transactions actually processed: //p') $(pgsql_q "select n from pgev_r")"
assert_eq "retries: the report's retries are the UPDATE's (-r)" "$retries" \
  "$(printf '%s\n' "$OUT" | awk '$4 == "UPDATE" { print $3 }')"
assert_eq "retries: the server scanned the row twice per try (40 commits + $retries retries)" \
  "$((2 * (40 + retries)))" "$((after - before))"
check "retries: the four clients' snapshots conflicted ($retries retries)" [ "${retries:-0}" -ge 1 ]

# ---- \sleep on the loop: one client sleeps through the run, the other commits --------
pgsql_q "truncate pgev_t" > /dev/null
cat > sl.sql <<'EOF'
\if :client_id = 0
\sleep 1000 s
\endif
INSERT INTO pgev_t (client) VALUES (:client_id);
EOF
pers -n -c 2 -j 1 -T 2 -f sl.sql
assert_eq "\\sleep 1000 s on the loop: client 1 commits meanwhile, client 0's sleep ends with -T (one row)" \
  "0 1 t" "$RC $(pgsql_q "select count(*) filter (where client = 0), count(*) filter (where client = 1) > 0 from pgev_t" | tr '|' ' ')"

# ---- bmk's command line: --workers below --threads, blocking calls ---------------------
pgsql_q "truncate pgev_p; update pgev_c set n = 0" > /dev/null
run_bmk $PGSQL_OPTS --threads=6 --workers=2 --events=90 --protocol=extended --results=pipe.json p.sql run
assert_eq "bmk p.sql (6 VUs, 2 workers): 90 events, 90 rows, the counter at 90" "0 90 90 90" \
  "$RC $(report_value "transactions:" "$OUT") $(pgsql_q "select count(*) from pgev_p") $(pgsql_q "select n from pgev_c")"
# -M extended: the unnamed statements go with each execution, in the
# pipeline; nothing is sent before it, so nothing blocks a worker
assert_eq "bmk p.sql --protocol=extended: no blocking call (nothing sent at a statement's first use)" "0" \
  "$(json_get pipe.json "d['summary']['client']['loop_blocking_calls']")"
# -M prepared: each VU prepares its four statements once, with a
# blocking call each, before its first pipeline: 4 per VU that ran one
# (its :client_id in the rows; on a loaded machine some of the 6 may have
# run none of the 90, once only 3 had)
pgsql_q "truncate pgev_p; update pgev_c set n = 0" > /dev/null
run_bmk $PGSQL_OPTS --threads=6 --workers=2 --events=90 --protocol=prepared --results=pipep.json p.sql run
vus=$(pgsql_q "select count(distinct client) from pgev_p")
assert_eq "bmk p.sql --protocol=prepared: 90 events; blocking calls = the 4 prepares of each of the $vus VUs that ran" \
  "0 90 $((4 * vus))" "$RC $(report_value "transactions:" "$OUT") $(json_get pipep.json "d['summary']['client']['loop_blocking_calls']")"
pgsql_q "truncate pgev_t" > /dev/null
before=$(scans pgev_t)
cat > s2.sql <<'EOF'
\set n random(1, 3)
\sleep 1 ms
INSERT INTO pgev_t (client) VALUES (:client_id);
SELECT count(*) AS c FROM pgev_t WHERE client = :client_id \gset
EOF
run_bmk $PGSQL_OPTS --threads=8 --workers=2 --events=200 --results=s2.json s2.sql run
after=$(scans pgev_t)
assert_eq "bmk s2.sql (8 VUs, 2 workers): 200 events, 200 rows, 200 scans of the table" "0 200 200 200" \
  "$RC $(report_value "transactions:" "$OUT") $(pgsql_q "select count(*) from pgev_t") $((after - before))"
assert_eq "bmk s2.sql: --results' per-statement counts" "200 200 200" \
  "$(json_get s2.json "' '.join(str(s['count']) for s in d['statements'] if s['command'] in (1, 2, 3))")"
assert_eq "bmk s2.sql -M simple: no SQL call blocked a worker" "0" \
  "$(json_get s2.json "d['summary']['client']['loop_blocking_calls']")"
run_bmk $PGSQL_OPTS --threads=8 --workers=2 --events=200 --protocol=extended --results=s2x.json s2.sql run
assert_eq "bmk s2.sql -M extended: 200 events, no SQL call blocked a worker (the unnamed statements send nothing at their first use)" \
  "0 200 0" "$RC $(report_value "transactions:" "$OUT") $(json_get s2x.json "d['summary']['client']['loop_blocking_calls']")"

# no server: every client's connection fails in thread_init; the summary
# names the first one, as in thread mode
printf 'SELECT 1;\n' > one.sql
run_bmk --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$(free_port 20000)" --pgsql-user=sbtest \
  --pgsql-password=$DBPASS --threads=4 --workers=2 --events=10 --db-server-stats=off one.sql run
assert_eq "no server, 4 VUs on 2 workers: exit 1, the first failed client named" "1 1" \
  "$RC $(printf '%s\n' "$OUT" | grep -c 'FATAL: 0 of 4 virtual users initialized, 4 failed (the first failure, of thread [0-3], is shown above)')"

# --workers=auto: 16 VUs on pgsql take the event loop, as a Lua workload's
run_bmk $PGSQL_OPTS --threads=16 --events=32 t.sql run
assert_eq "bmk t.sql --threads=16 (--workers=auto): exit 0, the event loop" "0 1" \
  "$RC $(printf '%s\n' "$OUT" | grep -c '^Virtual users: 16 on [0-9]* worker threads* (event loop)$')"

pgsql_q "drop table if exists pgev_t, pgev_p, pgev_c, pgev_r, pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers" > /dev/null
finish
