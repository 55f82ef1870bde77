#!/usr/bin/env bash
# The pgbench persona (docs/pgbench.md): bmk under the name pgbench
# against real pgbench 15 (Debian's postgresql-15, which the test command
# installs) on the sandbox PostgreSQL. Each run is made by both; their
# outputs are compared line for line with every number masked (stdout
# exactly, the progress lines as a set) and without masking where pgbench
# 15 is deterministic (the values its random functions draw for a
# --random-seed, the error messages, the exit codes). Counts are checked
# against the tables (-t N with c clients: N*c rows in pgbench_history)
# and the server's own counters (pg_stat_user_tables). No check depends
# on timing.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

REAL=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1)
if [ -z "$REAL" ] || ! "$REAL" --version | grep -q 'PostgreSQL) 15\.'; then
  skip_core "pgbench persona" "pgbench 15 is not installed (Debian's postgresql-15)"
  finish
  exit $?
fi
ln -s "$BMK" pgbench
OURS=$WORK/pgbench
export PGHOST=127.0.0.1 PGPORT=$PGSQL_PORT PGUSER=sbtest PGPASSWORD=$DBPASS PGDATABASE=sbtest
unset PGBENCH_RANDOM_SEED

# run BIN ARGS...: stdout to out.BIN, stderr to err.BIN, exit code to RC_BIN
run() {
  local who=$1
  shift
  local bin=$REAL
  [ "$who" = ours ] && bin=$OURS
  timeout -k 5 120 "$bin" "$@" > "out.$who" 2> "err.$who"
  eval "RC_$who=\$?"
}
# both ARGS...: the same command line run by real pgbench, then by ours
both() { run real "$@"; run ours "$@"; }
# mask FILE: numbers become N, the version line and paths go
mask() {
  sed -E -e '/^pgbench \(/d' -e 's#^[^ ]*/pgbench:#pgbench:#' -e 's/[0-9]+(\.[0-9]+)?/N/g' \
    -e '/^ +N /s/ +N/ N/g' "$1"
}
# columns OUT: -r's statement lines are pgbench's fixed-width columns
columns() {
  grep -E '^ +[0-9]+\.[0-9]{3} ' "$1" | grep -vE '^   [ 0-9.]{11}  [ 0-9]{10}(  [ 0-9]{10})?  [^ ]' || true
}
# same NAME: ours and real pgbench print the same lines, numbers masked
# (stdout in order; stderr's progress lines as a set, the others in order)
same() {
  local d
  d=$(diff <(mask out.real) <(mask out.ours))
  if [ -z "$d" ]; then ok "$1: stdout layout as pgbench 15's"; else not_ok "$1: stdout differs: $d"; fi
  d=$(diff <(mask err.real | grep -v '^progress:') <(mask err.ours | grep -v '^progress:'))
  [ -z "$d" ] || { not_ok "$1: stderr differs: $d"; return; }
  d=$(diff <(mask err.real | grep '^progress:' | sort -u) <(mask err.ours | grep '^progress:' | sort -u))
  if [ -z "$d" ]; then ok "$1: stderr layout as pgbench 15's"; else not_ok "$1: progress lines differ: $d"; fi
  assert_eq "$1: exit code as pgbench 15's" "$RC_real" "$RC_ours"
  assert_eq "$1: the statement lines' columns are pgbench's widths" "" "$(columns out.ours)"
}
drop() { pgsql_q "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers" >/dev/null 2>&1; }

# --help: pgbench 15's option lines, in its order (bmk's additions come
# after them)
"$REAL" --help | grep -E '^  ' > help.real
"$OURS" --help | sed "/^bmk's additions/,\$d" | grep -E '^  ' > help.ours
assert_eq "--help: pgbench 15's option lines, in its order" "" "$(diff help.real help.ours)"
counts() { pgsql_q "select (select count(*) from pgbench_accounts), (select count(*) from pgbench_branches), (select count(*) from pgbench_tellers), (select count(*) from pgbench_history)"; }

# ---- initialisation --------------------------------------------------------------
# --tablespace and --index-tablespace: two tablespaces in directories of
# the server's OS user, named so that only pgbench's quoting finds them
# (the case kept, a space); the four tables in the first, the three
# primary keys' indexes in the second (pg_tables, pg_indexes)
ts_where() { pgsql_q "select tablename, tablespace from pg_tables where tablename like 'pgbench%' union all
  select indexname, tablespace from pg_indexes where tablename like 'pgbench%' order by 1" | tr '\n' ' '; }
ts_drop() { drop; pgsql_q 'drop tablespace if exists "PgbData"' > /dev/null 2>&1; pgsql_q 'drop tablespace if exists "pgb idx"' > /dev/null 2>&1; }
ts_drop
mkdir -p "$WORK/ts_data" "$WORK/ts_idx"
chmod 755 "$WORK"
[ "$(id -u)" = 0 ] && chown "$(stat -c %U "$SANDBOX_DIR/pgsql/data")": "$WORK/ts_data" "$WORK/ts_idx"
pgsql_q "create tablespace \"PgbData\" location '$WORK/ts_data'" > /dev/null
pgsql_q "create tablespace \"pgb idx\" location '$WORK/ts_idx'" > /dev/null
run ours -i -s 1 --tablespace=PgbData "--index-tablespace=pgb idx"
assert_eq "-i --tablespace --index-tablespace: exit 0, the tables and the primary keys' indexes in theirs" \
  "0 pgbench_accounts|PgbData pgbench_accounts_pkey|pgb idx pgbench_branches|PgbData pgbench_branches_pkey|pgb idx pgbench_history|PgbData pgbench_tellers|PgbData pgbench_tellers_pkey|pgb idx " \
  "$RC_ours $(ts_where)"
drop; run ours -i -s 1 --partitions=2 --tablespace=PgbData "--index-tablespace=pgb idx"
assert_eq "-i --partitions=2 with both: the parts where their table is, their keys with the others" \
  "0 pgbench_accounts|PgbData pgbench_accounts_1|PgbData pgbench_accounts_1_pkey|pgb idx pgbench_accounts_2|PgbData pgbench_accounts_2_pkey|pgb idx pgbench_accounts_pkey|pgb idx pgbench_branches|PgbData pgbench_branches_pkey|pgb idx pgbench_history|PgbData pgbench_tellers|PgbData pgbench_tellers_pkey|pgb idx " \
  "$RC_ours $(ts_where)"
# the statements as pgbench 15 writes them, seen in its "Query was" line
# when the server refuses a name with a double quote; benchmarking mode
# refuses both options
drop; run real -i -s 1 '--tablespace=no"such'; drop; run ours -i -s 1 '--tablespace=no"such'
assert_eq "--tablespace: the failed statement's text, the messages and exit code as pgbench 15's" \
  "$RC_real $(cat err.real)" "$RC_ours $(cat err.ours)"
drop; run real -i -s 1 -I dtp --tablespace=PgbData '--index-tablespace=No"Idx'
drop; run ours -i -s 1 -I dtp --tablespace=PgbData '--index-tablespace=No"Idx'
assert_eq "--index-tablespace: the failed statement's text, the messages and exit code as pgbench 15's" \
  "$RC_real $(cat err.real)" "$RC_ours $(cat err.ours)"
assert_contains "--index-tablespace: the name quoted as pgbench quotes it" "$(cat err.ours)" \
  'Query was: alter table pgbench_branches add primary key (bid) using index tablespace "No""Idx"'
both -n -t 1 --tablespace=PgbData
assert_eq "--tablespace in benchmarking mode: pgbench 15's message and exit code" \
  "$RC_real $(cat err.real)" "$RC_ours $(cat err.ours)"
ts_drop
drop; run real -i -s 2
drop; run ours -i -s 2
same "-i -s 2 (tables absent)"
assert_eq "-i -s 2: rows of accounts, branches, tellers, history" "200000|2|20|0" "$(counts)"
assert_eq "-i: primary keys" "3" "$(pgsql_q "select count(*) from pg_constraint where contype = 'p' and conrelid::regclass::text like 'pgbench_%'")"
both -i -s 2 -q
same "-i -s 2 -q (tables present)"
both -i -s 1 -I dtGvpf -F 90 --unlogged-tables --foreign-keys
same "-i -I dtGvpf --foreign-keys --unlogged-tables -F 90"
assert_eq "-i -s 1 -I dtGvpf: rows" "100000|1|10|0" "$(counts)"
assert_eq "--foreign-keys: five foreign keys" "5" "$(pgsql_q "select count(*) from pg_constraint where contype = 'f' and conrelid::regclass::text like 'pgbench_%'")"
assert_eq "--unlogged-tables, -F 90: the tables' persistence and fill factor" \
  "u {fillfactor=90}" "$(pgsql_q "select relpersistence, reloptions from pg_class where relname = 'pgbench_accounts'" | tr '|' ' ')"
assert_eq "-I dtGvpf: pgbench 15 and bmk fill accounts alike" "0|100000" \
  "$(pgsql_q "select sum(abalance), count(distinct aid) from pgbench_accounts where bid = 1")"
# --partitions: the parts pgbench 15 makes, and the report's lines
parts() { pgsql_q "select relname, pg_get_expr(relpartbound, oid), reloptions from pg_class where relname like 'pgbench_accounts_%' and relkind = 'r' order by 1"; }
for method in range hash; do
  drop; run real -i -s 2 -q --partitions=3 --partition-method=$method
  want=$(parts)
  drop; run ours -i -s 2 -q --partitions=3 --partition-method=$method
  same "-i --partitions=3 --partition-method=$method"
  assert_eq "--partitions=3 --partition-method=$method: pgbench 15's parts" "$want" "$(parts)"
  assert_eq "--partitions=$method: every account in a part" "200000" "$(pgsql_q 'select count(*) from pgbench_accounts')"
  both -n -t 2 -S
  same "a run on $method partitions: the report's partition lines"
done
drop; run ours -i -s 2 -q
run ours -i -I dtx
assert_eq "-I with an unknown step: exit 1" "1" "$RC_ours"
assert_contains "-I with an unknown step: pgbench's message" "$(cat err.ours)" 'unrecognized initialization step "x"'
drop; run ours -i -s 2 -n -q
assert_eq "-i -s 2 -n: exit 0" "0" "$RC_ours"

# ---- the built-in scripts ------------------------------------------------------------
both -c 2 -j 2 -t 20 -r
same "tpcb-like -c 2 -j 2 -t 20 -r"
assert_contains "-t 20 -c 2: every transaction processed" "$(cat out.ours)" "number of transactions actually processed: 40/40"
assert_eq "-t 20 -c 2: 40 rows in pgbench_history (the vacuum step empties it first)" "40" \
  "$(pgsql_q "select count(*) from pgbench_history")"

both -c 4 -j 2 -T 2 -P 1 -S -M prepared
same "select-only -c 4 -j 2 -T 2 -P 1 -M prepared"
n=$(grep -c '^progress: ' err.ours)
check "-T 2 -P 1: a progress line a second, 1 or 2 ($n)" [ "$n" -ge 1 -a "$n" -le 2 ]

both -c 2 -t 10 -N -M extended -n
same "simple-update -c 2 -t 10 -M extended -n"
assert_eq "-N -t 10 -c 2 -n, run by both: 20 history rows each" "40" "$(pgsql_q "select count(*) from pgbench_history")"

both -c 3 -j 1 -t 30 -b simple-update@2 -b select-only@8 -r --random-seed=7
same "-b simple-update@2 -b select-only@8 -r"
# two scripts, one transaction: the script that ran none has its failure
# and retry lines, 0 of 0 printed "NaN%", as in pgbench
both -n -c 1 -t 1 -S -S --random-seed=1 --failures-detailed --max-tries=2
same "a script with no transaction, --failures-detailed --max-tries=2"
assert_eq "a script with no transaction: its failure and retry lines (NaN%)" "4" \
  "$(grep -c '^ - .*(NaN%)$' out.ours)"

# -R (Poisson schedule per thread) and -L (late transactions skipped)
both -n -c 2 -j 2 -T 2 -R 200 -P 1 -S
same "-R 200 -P 1 -T 2"
both -n -c 1 -T 2 -P 1 --progress-timestamp -S
same "-P 1 --progress-timestamp"
check "--progress-timestamp: the progress lines start with Unix epoch seconds" \
  grep -qE '^progress: [0-9]{10}\.[0-9]{3} s, ' err.ours
both -n -c 2 -j 2 -T 2 -R 20000 -L 0.05 -S
same "-R 20000 -L 0.05: skipped and late transactions"
# -C: a connection per transaction (the server counts the sessions: 20
# and the setup's, once they have ended; each psql that reads the counter
# is one more, counted when it ends)
both -n -c 2 -t 10 -C -S -M prepared
same "-C -M prepared"

# libpq's connection options: the database as a connection string or a
# URI (what it names wins over -p), and PGSSLMODE
both -n -t 2 -S -p 1 "host=127.0.0.1 port=$PGSQL_PORT dbname=sbtest"
same "a connection string as the database"
assert_eq "a connection string as the database: exit 0" "0 0" "$RC_real $RC_ours"
both -n -t 2 -S "postgresql://sbtest@127.0.0.1:$PGSQL_PORT/sbtest"
same "a URI as the database"
assert_eq "a URI as the database: exit 0" "0 0" "$RC_real $RC_ours"
# the server's application_name: pgbench (libpq's fallback), PGAPPNAME's
printf "SELECT current_setting('application_name') AS a \\\\gset\n\\\\shell echo app :a\n" > app.sql
both -n -t 1 -f app.sql
same "application_name"
assert_eq "application_name: pgbench's, as pgbench 15 sets it" "app pgbench app pgbench" \
  "$(grep '^app ' out.real) $(grep '^app ' out.ours)"
PGAPPNAME=mine both -n -t 1 -f app.sql
assert_eq "PGAPPNAME=mine: the server's application_name" "app mine app mine" \
  "$(grep '^app ' out.real) $(grep '^app ' out.ours)"
if [ "$(pgsql_q "show ssl")" = off ]; then
  PGSSLMODE=require both -n -t 1 -S
  assert_eq "PGSSLMODE=require, a server without SSL: pgbench 15's messages and exit code" \
    "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
  assert_contains "PGSSLMODE=require: libpq's refusal" "$(cat err.ours)" "SSL was required"
fi
sessions() { pgsql_q "select sessions from pg_stat_database where datname = 'sbtest'"; }
before=$(sessions)
run ours -n -c 2 -t 10 -C -S
want=$((before + 1 + 21)) got=$(sessions) k=0
for _ in $(seq 300); do [ "$((got - k))" -ge "$want" ] && break; sleep 0.1; got=$(sessions); k=$((k + 1)); done
assert_eq "-C -c 2 -t 10: pg_stat_database counts 21 sessions (20 and the setup's)" "$want" "$((got - k))"
run ours -n -c 2 -j 2 -t 20 -R 500 -S
assert_eq "-R 500 -t 20 -c 2: every transaction processed" "40/40" \
  "$(sed -n 's/^number of transactions actually processed: //p' out.ours)"

# server counters: -S -t 50 -c 2 makes exactly 100 index scans of accounts
# (read once the clients' backends have flushed their statistics at exit)
scans() { pgsql_q "select idx_scan from pg_stat_user_tables where relname = 'pgbench_accounts'"; }
before=$(scans)
run ours -S -t 50 -c 2 -n -M prepared
want=$((before + 100)) got=$(scans)
for _ in $(seq 300); do [ "$got" = "$want" ] && break; sleep 0.1; got=$(scans); done
assert_eq "-S -t 50 -c 2: pg_stat_user_tables counts 100 index scans of pgbench_accounts" "$want" "$got"

# ---- scripts and the expression language -----------------------------------------
cat > rand.sql <<'EOF'
\set a debug(random(1, 1000))
\set b debug(random(-5000, 5000) * 3 + :client_id)
\set c debug(random_exponential(1, 1000, 2.5))
\set d debug(random_gaussian(1, 1000, 3.0))
\set e debug(random_zipfian(1, 1000, 1.07))
\set f debug(permute(:a, 1000))
\set g debug(hash(:a) % 1000)
\set h debug(case when :a > 500 then :a / 2.0 else -:a end)
\set i debug(greatest(:a, 10) + least(:b, 3) + abs(-7) + int(5.5) + double(2) + pi())
\set j debug(sqrt(16) + pow(2, 3) + ln(exp(1.5)) + mod(17, 5))
\set k debug(:a >= 500 and not (:b < 0) or :c isnull)
\set l debug(5 & 3 | 8 # 1 << 2 >> 1)
SELECT :a, :b;
EOF
both -n -c 1 -t 6 --random-seed=12345 -f rand.sql
assert_eq "--random-seed=12345: bmk draws pgbench 15's values (debug() lines, byte for byte)" \
  "$(grep '^debug' err.real)" "$(grep '^debug' err.ours)"
check "the debug() lines are there" [ "$(grep -c '^debug' err.ours)" = 72 ]
# two clients run side by side: each draws its own sequence, so the lines
# are pgbench's, in another interleaving (-j 1: pgbench writes a debug line
# in two pieces, which two of its threads can interleave)
both -n -c 2 -j 1 -t 3 --random-seed=12345 -f rand.sql
assert_eq "--random-seed=12345 -c 2: the clients' values are pgbench 15's" \
  "$(grep '^debug' err.real | sort)" "$(grep '^debug' err.ours | sort)"

cat > a.sql <<'EOF'
-- a custom script with a conditional and a sleep
\set aid random(1, 100000 * :scale)
\if :aid % 2 = 0
  \set delta 1
\elif :aid % 3 = 0
  \set delta 2
\else
  \set delta 3
\endif
\sleep 0 ms
UPDATE pgbench_accounts
   SET abalance = abalance + :delta
 WHERE aid = :aid;
EOF
printf 'SELECT count(*) FROM pgbench_branches;\n' > b.sql
both -n -c 2 -t 20 -f a.sql@1 -f b.sql@3 -r -D scale=2
same "-f a.sql@1 -f b.sql@3 -r -D scale=2"
pgsql_q "update pgbench_accounts set abalance = 0 where abalance <> 0" >/dev/null
run ours -n -c 2 -t 25 -f a.sql -D scale=2
assert_eq "-f a.sql -t 25 -c 2: 50 updates, each adding 1, 2 or 3" "t" \
  "$(pgsql_q "select sum(abalance) between 50 and 150 and count(*) filter (where abalance <> 0) between 1 and 50 from pgbench_accounts")"

# ---- failures and retries --------------------------------------------------------
# serialization failures: four clients add 1 to the same row under
# REPEATABLE READ; every transaction that commits adds exactly 1
cat > ser.sql <<'EOF'
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT abalance FROM pgbench_accounts WHERE aid = 1;
\sleep 2 ms
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;
END;
EOF
row() { pgsql_q "select sum(abalance) from pgbench_accounts where aid in (1, 2)"; }
zero() { pgsql_q "update pgbench_accounts set abalance = 0 where aid in (1, 2)" >/dev/null; }
val() { sed -n "s/^$1: \([0-9]*\).*/\1/p" out.ours; }
zero; run real -n -c 4 -t 10 -f ser.sql --max-tries=1000 -r --failures-detailed
zero; run ours -n -c 4 -t 10 -f ser.sql --max-tries=1000 -r --failures-detailed
same "serialization failures, --max-tries=1000 -r --failures-detailed"
assert_eq "--max-tries=1000: all 40 transactions commit, each adding 1" "40/40 40" \
  "$(sed -n 's/^number of transactions actually processed: //p' out.ours) $(row)"
retries=$(val "total number of retries")
assert_eq "the retries of the report are those of the statements (-r)" "$retries" \
  "$(awk '$4 == "UPDATE" { print $3 }' out.ours)"
check "retried transactions <= retries ($(val 'number of transactions retried') <= $retries)" \
  [ "$(val 'number of transactions retried')" -le "$retries" ]
zero; run ours -n -c 4 -t 10 -f ser.sql -r --failures-detailed
ok_tx=$(sed -n 's|^number of transactions actually processed: \([0-9]*\)/40|\1|p' out.ours)
failed=$(val "number of failed transactions")
assert_eq "--max-tries=1: processed + failed = 40, the row = processed, failed = serialization failures = the UPDATE's failures" \
  "40 $ok_tx $failed $failed" \
  "$((ok_tx + failed)) $(row) $(val 'number of serialization failures') $(awk '$3 == "UPDATE" { print $2 }' out.ours)"

# deadlocks: two clients update rows 1 and 2 in opposite orders, 200 ms
# apart (the server finds a deadlock after its deadlock_timeout, 1 s)
cat > dl.sql <<'EOF'
BEGIN;
\if :client_id % 2 = 0
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;
\sleep 200 ms
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2;
\else
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2;
\sleep 200 ms
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;
\endif
END;
EOF
zero; run ours -n -c 2 -t 2 -f dl.sql -r --failures-detailed --verbose-errors
ok_tx=$(sed -n 's|^number of transactions actually processed: \([0-9]*\)/4|\1|p' out.ours)
failed=$(val "number of failed transactions")
assert_eq "deadlocks: processed + failed = 4, 2 per commit in the rows, failed = deadlock failures" \
  "4 $((2 * ok_tx)) $failed" "$((ok_tx + failed)) $(row) $(val 'number of deadlock failures')"
check "deadlocks: some were provoked ($failed)" [ "$failed" -ge 1 ]
assert_eq "--verbose-errors: one 'ends the failed transaction' line per failure" "$failed" \
  "$(grep -c '^pgbench: client [01] ends the failed transaction (try 1/1)$' err.ours)"
assert_eq "--verbose-errors: pgbench's error line" "$failed" \
  "$(grep -c '^pgbench: client [01] got an error in command [48] (SQL) of script 0; ERROR:  deadlock detected$' err.ours)"
assert_eq "--verbose-errors: libpq's DETAIL (two lines), HINT and CONTEXT lines after each" \
  "$failed $failed $failed $failed" "$(grep -c '^DETAIL:  Process [0-9]* waits for ShareLock' err.ours) \
$(grep -c '^Process [0-9]* waits for ShareLock' err.ours) $(grep -c '^HINT:  See server log for query details.$' err.ours) \
$(grep -c '^CONTEXT:  while updating tuple' err.ours)"
zero; run ours -n -c 2 -t 2 -f dl.sql --max-tries=5 -l --log-prefix=dl
assert_eq "deadlocks retried (--max-tries=5): all 4 commit, 8 in the rows" "4/4 8" \
  "$(sed -n 's/^number of transactions actually processed: //p' out.ours) $(row)"
assert_eq "-l --max-tries: the retries column sums to the report's retries" "$(val 'total number of retries')" \
  "$(cat dl.[0-9]* | awk '{ s += $7 } END { print s + 0 }')"
rm -f dl.[0-9]*

# ---- pipelines ----------------------------------------------------------------------
cat > pipe.sql <<'EOF'
\set aid :client_id + 1
\startpipeline
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
\endpipeline
EOF
both -n -c 2 -t 5 -M prepared -r -f pipe.sql
same "\\startpipeline ... \\endpipeline -M prepared -r"
zero; run ours -n -c 2 -t 5 -M extended -f pipe.sql
assert_eq "a pipelined UPDATE per transaction, -c 2 -t 5: 10 in the rows" "10" "$(row)"
printf '\\endpipeline\n' > ep.sql
printf '\\startpipeline\nSELECT 1;\n' > sp.sql
printf '\\startpipeline x\n' > sp2.sql
for args in "-f pipe.sql" "-M extended -f ep.sql" "-M extended -f sp.sql" "-M extended -f sp2.sql"; do
  # shellcheck disable=SC2086
  both -n -c 1 -t 1 $args
  same "pipeline misuse ($args)"
  assert_eq "pipeline misuse ($args): pgbench 15's messages" "$(cat err.real)" "$(cat err.ours)"
done

# ---- transaction logs (-l) ---------------------------------------------------------
mkdir -p logs.real logs.ours
( cd logs.real && timeout 60 "$REAL" -n -c 3 -j 2 -t 5 -S -l --random-seed=3 >/dev/null 2>&1 )
( cd logs.ours && timeout 60 "$OURS" -n -c 3 -j 2 -t 5 -S -l --random-seed=3 >/dev/null 2>&1 )
assert_eq "-l -j 2: one file per thread, named as pgbench names them" \
  "$(cd logs.real && ls | sed -E 's/[0-9]+/PID/' | sort)" "$(cd logs.ours && ls | sed -E 's/[0-9]+/PID/' | sort)"
# client, transaction number and script exact; latency and time masked
logcols() { cat "$1"/pgbench_log.* | awk '{ print $1, $2, ($3 ~ /^[0-9]+$/ ? "N" : $3), $4, NF }' | sort; }
assert_eq "-l -c 3 -t 5: the log lines (client, transaction, script, columns) as pgbench 15's" \
  "$(logcols logs.real)" "$(logcols logs.ours)"
check "-l: 15 lines" [ "$(cat logs.ours/pgbench_log.* | wc -l)" = 15 ]
rm -f logs.real/* logs.ours/*
( cd logs.real && timeout 60 "$REAL" -n -c 2 -j 2 -T 2 -S -l --aggregate-interval=1 --log-prefix=agg >/dev/null 2>&1 )
( cd logs.ours && timeout 60 "$OURS" -n -c 2 -j 2 -T 2 -S -l --aggregate-interval=1 --log-prefix=agg > out 2>&1 )
aggcols() { cat "$1"/agg.* | awk '{ printf "%d", NF; for (i = 7; i <= NF; i++) printf " %s", $i; print "" }' | sort -u; }
assert_eq "--aggregate-interval=1: the interval lines' columns as pgbench 15's" "$(aggcols logs.real)" "$(aggcols logs.ours)"
logged=$(cat logs.ours/agg.* | awk '{ s += $2 } END { print s + 0 }')
done_tx=$(sed -n 's/^number of transactions actually processed: //p' logs.ours/out)
check "--aggregate-interval: the intervals count at most the transactions processed ($logged <= $done_tx), and some" \
  [ "$logged" -gt 0 -a "$logged" -le "$done_tx" ]
rm -rf logs.real logs.ours

# ---- bad input: pgbench's messages and exit codes --------------------------------------
printf 'SELECT 1;\n\\set x 1 +\n' > bad1.sql
printf '\\nosuch 1\n' > bad2.sql
printf '\\set x :nosuch + 1\nSELECT :x;\n' > bad3.sql
printf '\\set x nosuch(1)\n' > bad4.sql
printf '\\sleep abc\n' > bad5.sql
printf -- '-- only a comment\n' > bad6.sql
printf '\\set x 1 / 0\n' > bad7.sql
printf '\\if true\nSELECT 1;\n' > bad8.sql
printf '\\set\n' > bad9.sql
for args in "-c 0" "-T 2 -t 3" "-b nosuch" "-M foo" "-c abc" "-x" "-i -c 3" "one two" \
            "-n -t 1 -f bad1.sql" "-n -t 1 -f bad2.sql" "-n -t 1 -f bad3.sql" \
            "-n -t 1 -f bad5.sql" "-n -t 1 -f bad6.sql" "-n -t 1 -f bad7.sql" \
            "-n -t 1 -f bad8.sql" "-n -t 1 -f bad9.sql" "-n -t 1 -f nosuch.sql" \
            "-b list" "--random-seed=abc" "--sampling-rate=0.5 -t 1" "-l --sampling-rate=0.5 --aggregate-interval=1 -t 1" \
            "--aggregate-interval=1 -t 1" "--log-prefix=x -t 1" "-l --aggregate-interval=3 -T 2" \
            "-l --aggregate-interval=2 -T 3" "-l --sampling-rate=2 -t 1" \
            "-i --partition-method=hash" "-i --partition-method=foo" "-i --partitions=-1" \
            "--dbname=sbtest -t 1" "-n -t 1 -S nosuchdb" "--show-script=tpcb-like" \
            "--show-script=simple-update" "--show-script=select-only" "--show-script=nosuch"; do
  # shellcheck disable=SC2086
  both $args
  assert_eq "pgbench $args: exit code $RC_real as pgbench 15's" "$RC_real" "$RC_ours"
  assert_eq "pgbench $args: pgbench 15's messages" \
    "$(sed -E 's#^[^ ]*/pgbench:#pgbench:#' err.real)" "$(sed -E 's#^[^ ]*/pgbench:#pgbench:#' err.ours)"
done
printf '\\set x debug(5) -- five\n' > bad10.sql
for f in bad4.sql bad10.sql; do
  both -n -t 1 -f $f
  assert_eq "unknown function ($f): exit 1" "1" "$RC_ours"
  assert_eq "unknown function ($f): pgbench's message, line and caret" "$(cat err.real)" "$(cat err.ours)"
done

# a meta-command's trailing blanks: kept in -r's lines and in an error's
# line, the caret after them, as pgbench shows them
printf '\\set x 1   \nSELECT :x;\n' > trail.sql
both -n -t 1 -r -f trail.sql
same "-r, a meta-command with trailing blanks"
printf '\\set x 1 <=  \n' > trail2.sql
both -n -t 1 -f trail2.sql
assert_eq "a syntax error at the end of a line with trailing blanks: pgbench 15's messages" \
  "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"

# a compound command (\;) with \aset: -r's statement line and layout as pgbench's
printf 'SELECT 1 AS a \\; SELECT 2 AS b \\aset\nSELECT :a + :b;\n' > compound.sql
both -n -t 3 -r -f compound.sql
same "-r, a compound command with \\aset"

# \gset and \aset with parameters in the other query modes
printf 'SELECT 1 AS a, :client_id + 2 AS b \\gset p_\n\\set x debug(:p_a + :p_b)\nSELECT 3 AS c \\aset\n\\set x debug(:c)\n' > gsetm.sql
for m in extended prepared; do
  both -n -t 1 -M $m -f gsetm.sql
  assert_eq "-M $m, \\gset and \\aset: pgbench 15's debug lines and exit code" "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
done

# vs_real NAME FORMAT [ARGS...]: each line of stdin put into a script
# with printf FORMAT and run by both (-n -t 1 ARGS): pgbench 15's stderr
# (messages, debug() lines) and exit code, byte for byte
vs_real() {
  local i=0 e name=$1 fmt=$2
  shift 2
  while IFS= read -r e; do
    i=$((i + 1))
    printf "$fmt" "$e" > "$name$i.sql"
    both -n -t 1 "$@" -f "$name$i.sql"
    assert_eq "$name $* '$e': pgbench 15's messages and exit code" "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
  done
}

# -M extended sends unnamed statements (none stays prepared on the
# server), -M prepared prepares each on first use under pgbench's names
# (P_0, P_1, ...): pg_prepared_statements
printf 'SELECT count(*) AS n FROM pg_prepared_statements \\gset\n\\set x debug(:n)\nSELECT :x + 1 AS y \\gset\n\\set z debug(:y)\n' > prep.sql
printf "SELECT count(*) AS p FROM pg_prepared_statements WHERE name IN ('P_0', 'P_1', 'P_2') \\\\gset\n\\\\set w debug(:p)\n" >> prep.sql
for m in extended prepared; do
  both -n -t 2 -M $m -f prep.sql
  assert_eq "-M $m: the server's prepared statements as under pgbench 15" "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
done
# a statement the server cannot prepare (-M prepared): its error, then
# the execution of pgbench's statement name that the server does not know
# (in a transaction block too)
vs_real preperr '%b\n' -M prepared <<'EOF'
SELECT 1;\n\\set x 1\nSELECT nosuchfunc(1);
BEGIN;\nSELECT nosuchfunc(1);\nEND;
SELECT 1 AS a \\; SELECT 2 \\gset
EOF
# \gset and \aset in a pipeline: pgbench's error
vs_real pipegset '%b\n' -M extended <<'EOF'
\\startpipeline\nSELECT 1;\nSELECT 2 AS n \\aset\n\\endpipeline
\\startpipeline\nSELECT 1 AS n \\gset\nSELECT 2;\n\\endpipeline
EOF

# -M extended and prepared send pgbench's text: $1, $2... for the
# :variables in order of appearance, the rest as written: jsonb's ?, ?|
# and ?& stay operators (bmk's driver no longer takes them for
# parameters), :: casts stay casts; -r shows the script's line
cat > jsonb.sql <<'EOF'
\set a 5
SELECT '{"a":1}'::jsonb ? 'a' AS x, '{"a":1,"b":2}'::jsonb ?| array['b','c'] AS y, '{"a":1}'::jsonb ?& array['a','c'] AS z, :a::int + 1 AS w \gset
\set d debug(:x)
\set d debug(:y)
\set d debug(:z)
\set d debug(:w)
EOF
for m in extended prepared; do
  for cj in "-c 1 -j 1" "-c 2 -j 1"; do
    both -n -t 1 $cj -M $m -f jsonb.sql
    assert_eq "-M $m $cj, jsonb's ?, ?| and ?& and a ::int cast: pgbench 15's values and exit code" \
      "$(sort err.real) $RC_real" "$(sort err.ours) $RC_ours"
    assert_eq "-M $m $cj, jsonb's operators: the values (true, true, false, 6) per client" \
      "$(for c in $(seq ${cj:3:1}); do printf 'boolean true\nboolean true\nboolean false\nint 6\n'; done | sort | tr '\n' ' ')" \
      "$(sed 's/^debug([^)]*): //' err.ours | sort | tr '\n' ' ')"
  done
  both -n -t 2 -r -M $m -f jsonb.sql
  same "-r -M $m, jsonb's operators"
  assert_contains "-r -M $m: the statement line is the script's text" "$(cat out.ours)" \
    "SELECT '{\"a\":1}'::jsonb ? 'a' AS x"
done
# the same in a pipeline, on a table read back (thread mode and event loop)
pgsql_q "drop table if exists pgb_jq; create table pgb_jq (who text, c int, m text, x bool, y bool, z bool, w int)" > /dev/null 2>&1
cat > jsonbp.sql <<'EOF'
\set a 5
\startpipeline
INSERT INTO pgb_jq VALUES (:who, :client_id, :m, '{"a":1}'::jsonb ? 'a', '{"b":2}'::jsonb ?| array['b','c'], '{"a":1}'::jsonb ?& array['a','c'], :a::int + 1);
SELECT '{"a":1}'::jsonb ? 'b';
\endpipeline
EOF
for m in extended prepared; do
  for cj in "-c 2 -j 2" "-c 2 -j 1"; do
    pgsql_q "truncate pgb_jq" > /dev/null
    run real -n -t 2 $cj -M $m -D who=real -D m=$m -f jsonbp.sql
    run ours -n -t 2 $cj -M $m -D who=ours -D m=$m -f jsonbp.sql
    assert_eq "-M $m $cj, jsonb's operators in a pipeline: exit codes 0 0" "0 0" "$RC_real $RC_ours"
    assert_eq "-M $m $cj, jsonb's operators in a pipeline: the rows pgbench 15 writes" \
      "$(pgsql_q "select c, m, x, y, z, w from pgb_jq where who = 'real' order by 1")" \
      "$(pgsql_q "select c, m, x, y, z, w from pgb_jq where who = 'ours' order by 1")"
    assert_eq "-M $m $cj, jsonb's operators in a pipeline: 4 rows (true, true, false, 6)" "4" \
      "$(pgsql_q "select count(*) from pgb_jq where who = 'ours' and m = '$m' and x and y and not z and w = 6")"
  done
done
pgsql_q "drop table pgb_jq" > /dev/null
# a :name in a quoted part: pgbench's $n there too, and a parameter for
# it, which the server refuses (exit 2); a : not before a name and ::
# stay as written
vs_real quoted '%b\n' -M extended <<'EOF'
\\set a 5\nSELECT ':a' AS s \\gset\n\\set z debug(:s)
\\set a 5\nSELECT ':a', :a AS s;
\\set a 5\nSELECT $$:a$$, :a::int AS s;
\\set a 5\nSELECT 1 AS ":a";
\\set a 5\nSELECT 1 /* :a */;
\\set a 5\nSELECT '1:2' AS t, :a:::text AS s, ':' || ':' AS u \\gset\n\\set z debug(:s)\n\\set z debug(:t)\n\\set z debug(:u)
EOF
vs_real quoted-prep '%b\n' -M prepared <<'EOF'
\\set a 5\nSELECT ':a' AS s \\gset\n\\set z debug(:s)
\\set a 5\nSELECT ':a', :a AS s;
EOF
# pgbench's limit: 255 parameters in a statement under -M extended and
# prepared (its message and exit 1, before connecting), none under -M simple
{ printf '\\set a 1\n-- leading comment\nSELECT 1 AS q \\; SELECT 0'; for i in $(seq 256); do printf ' + :a'; done; printf ' AS s \\gset\n\\set z debug(:s)\n'; } > many256.sql
{ printf '\\set a 1\nSELECT 0'; for i in $(seq 255); do printf ' + :a'; done; printf ' AS s \\gset\n\\set z debug(:s)\n'; } > many255.sql
{ printf '\\set a 1\nSELECT 0'; for i in $(seq 300); do printf ' + :a'; done; printf ' AS s \\gset\n\\set z debug(:s)\n'; } > many300.sql
for m in extended prepared; do
  for f in many255 many256; do
    both -n -t 1 -M $m -f $f.sql
    assert_eq "-M $m, $f.sql: pgbench 15's messages and exit code" "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
  done
  assert_contains "-M $m, 256 parameters: pgbench's limit" "$(cat err.ours)" "statement has too many arguments (maximum is 255): SELECT 1 AS q ; SELECT 0 + :a"
done
both -n -t 1 -f many300.sql
assert_eq "-M simple, 300 :variables: all substituted as pgbench 15 does" \
  "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
assert_eq "-M simple, 300 :variables: their sum" "debug(script=0,command=3): int 300 0" "$(cat err.ours) $RC_ours"

# server errors: libpq's whole message (DETAIL, HINT, LINE and caret,
# CONTEXT lines) after pgbench's line; a compound command in -M extended
for m in simple extended; do
  vs_real sqlerr-$m '%b\n' -M $m <<'EOF'
CREATE TEMP TABLE u34 (a int PRIMARY KEY);\nINSERT INTO u34 VALUES (1);\nINSERT INTO u34 VALUES (1);
SELECT nosuchfunc(1);
SELECT 1 AS a \\; UPDATE pgbench_nosuch SET a = 1
DO $$BEGIN RAISE EXCEPTION 'boom' USING DETAIL = 'the detail', HINT = 'the hint'; END$$;
EOF
done

# expression errors: pgbench's message, the line and the caret
vs_real expr '\\set x %s\n' <<'EOF'
1 + $ + 2
1 + 'b' + 2
1 +  99999999999999999999 + 3
random(1) + 2
least()
hash(1,2,3)
permute(1)
(1
1 2
1 < 2 < 3
case when true then 1
case 1 end
:x +* 2
pi
1 is 2
debug(1
-
1 abc
1 2.5e3
1 :foo
case when true then 1 els 2 end
1 2 @
1 2 99999999999999999999
1 2 1e999
debug(case 1 when 1 then 'a' end)
debug(0x10)
abs(1, 2) @
9223372036854775808
1 - 9223372036854775808
1e400
1e-400
nosuch(1) 1e999
5 -- five 1e999
'a' 'b'
1 2 @ 99999999999999999999
case when 1e-308 then 1e-308 else ln(mod(1e-308, false)) end
EOF
# values at the edges: 2^63 after a unary minus, overflows, what is not
# a number (NaN, Infinity) in debug() lines, messages and SQL text
vs_real edge '\\set x debug(%s)\nSELECT :x::text;\n' <<'EOF'
-9223372036854775808
- 9223372036854775808 + 1
(- 9223372036854775808)
--9223372036854775808
-9223372036854775808 - 1
-9223372036854775808 / -1
-9223372036854775808 % -1
mod(-9223372036854775808, -1)
abs(-9223372036854775808)
random(-9223372036854775808, 9223372036854775807)
5.0 / 0
-5.0 / 0
sqrt(-1)
ln(0)
exp(1000)
int(0.0 / 0)
random_gaussian(1, 10, -1.0 / 0)
random_exponential(1, 10, 0.0 / 0)
hash_fnv1a(42, 7)
hash_murmur2(-1, 99)
EOF

# a variable's text read as a value (-D): pgbench 15's types and errors
# (a trailing blank is malformed, an integer out of range is refused as
# such)
printf '\\set x debug(:v)\n' > dval.sql
for v in "  12" "12 " "1.5 " "9223372036854775808" "-9223372036854775809" "-9223372036854775808" \
         "1e400" "+5" ".5" "y" "off" "NULL" "-Infinity" "abc"; do
  both -n -t 1 -D "v=$v" -f dval.sql
  assert_eq "-D v='$v': pgbench 15's value or message and exit code" \
    "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
done

# meta-commands: pgbench's checks when the script is read and when it runs
vs_real meta '%b\n' <<'EOF'
\\sleep
\\sleep 1 2 3
\\sleep 10 xs
\\sleep :nosuch
\\sleep 1x ms
\\setshell x
\\shell
\\else 1
\\endif
\\elif true
\\if true\n\\else\n\\elif false\n\\endif
\\if true\n\\else\n\\else\n\\endif
\\gset
SELECT 1, 2 \\gset
SELECT 1 AS a UNION SELECT 2 \\gset
SELECT 1 AS a \\gset p_\nSELECT :p_a;
\\aset
SELECT 1 \\gset\n\\aset
SELECT 1 AS a \\aset x y
SELECT NULL AS a \\gset\n\\set x debug(:a)
SELECT 1 AS a \\; SELECT 2 AS b \\gset\n\\set x debug(:a)
SELECT 1 AS a \\; SELECT 1 WHERE false \\gset
CREATE TEMP TABLE t34 (a int) \\; INSERT INTO t34 VALUES (1) \\gset
SELECT 1 AS a WHERE false \\aset\n\\set x debug(:a)
SELECT 1 AS a, 2 AS a \\gset\n\\set x debug(:a)\nSELECT 1 AS a \\; SELECT 2 AS b \\gset\n\\set x debug(:b)\nSELECT 1 AS c WHERE false \\; SELECT 3 AS c \\gset\n\\set x debug(:c)\nSELECT 1 AS d \\; SELECT 2 AS e \\aset\n\\set x debug(:d + :e)\nSELECT g AS f FROM generate_series(1, 3) g \\aset\n\\set x debug(:f)\nSELECT 1 AS a \\; SELECT 5 AS a \\aset q_\n\\set x debug(:q_a)
\\setshell x echo abc
\\setshell x echo 42\nSELECT :x;
\\shell false
\\shell echo :nosuch
\\set 1x 3
\\set x true\n\\set y :x + 1
\\set x int(1e300)
EOF

# -d is pgbench 15's --debug (no argument): its setup line
both -d -n -t 1 -S
assert_eq "-d: pgbench 15's debug line of the setup" "$(head -1 err.real) $RC_real" "$(head -1 err.ours) $RC_ours"

# -d: pgbench 15's trace of a run, on stderr after its logger's
# "pgbench: " (pgbench.c, REL_15_STABLE): main() prints the setup line;
# advanceConnectionState() "executing script" when a client picks its
# script (CSTATE_CHOOSE_SCRIPT) and "receiving" each time it looks for a
# result (CSTATE_WAIT_RESULT); executeMetaCommand() "executing \NAME" and
# its arguments; sendCommand() "sending" (-M simple the text with the
# values, -M prepared the statement's name); prepareCommand() "preparing
# P_N" before a statement's first use on a connection. pgbench looks for
# a result right after sending it, before it has come, and again when it
# has: "receiving" twice, once when the server was quicker, so real
# pgbench is compared with runs of "receiving" taken as one, and bmk's
# own trace exactly (it always prints two).
dmask() { perl -pe 's/(?<!client )(?<!P_)(?<![0-9])-?[0-9]+/N/g' "$1"; }
dtrace() { dmask "$1" | uniq; }
# dtx DESC LINES...: one transaction's trace of client 0 (`recv` stands
# for the two "receiving" lines)
dtx() {
  echo "pgbench: client 0 executing script \"$1\""
  shift
  local l
  for l in "$@"; do
    if [ "$l" = recv ]; then
      printf 'pgbench: client 0 receiving\npgbench: client 0 receiving\n'
    else
      echo "pgbench: client 0 $l"
    fi
  done
}
dsetup="pgbench: pghost: N.N.N.N pgport: N nclients: N nxacts: N dbName: sbtest"
tpcb_tx() {
  dtx "<builtin: TPC-B (sort of)>" 'executing \set aid' 'executing \set bid' \
    'executing \set tid' 'executing \set delta' 'sending BEGIN;' recv \
    'sending UPDATE pgbench_accounts SET abalance = abalance + N WHERE aid = N;' recv \
    'sending SELECT abalance FROM pgbench_accounts WHERE aid = N;' recv \
    'sending UPDATE pgbench_tellers SET tbalance = tbalance + N WHERE tid = N;' recv \
    'sending UPDATE pgbench_branches SET bbalance = bbalance + N WHERE bid = N;' recv \
    'sending INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (N, N, N, N, CURRENT_TIMESTAMP);' recv \
    'sending END;' recv
}
both -d -n -c 1 -t 2
assert_eq "-d, tpcb-like -t 2: bmk's trace, line by line" \
  "$(echo "$dsetup"; tpcb_tx; tpcb_tx)" "$(dmask err.ours)"
assert_eq "-d, tpcb-like -t 2: pgbench 15's trace (runs of receiving as one)" \
  "$(dtrace err.real)" "$(dtrace err.ours)"
printf '\\set a random(1, 1000)\n\\sleep 1 ms\nSELECT :a AS x, abalance FROM pgbench_accounts WHERE aid = :a;\n' > dbg.sql
dbg_tx() {
  dtx dbg.sql 'executing \set a' 'executing \sleep N ms' "$@" recv
}
both -d -n -c 1 -t 2 -M simple -f dbg.sql
q='SELECT N AS x, abalance FROM pgbench_accounts WHERE aid = N;'
assert_eq "-d -M simple, \\set \\sleep and SQL: bmk's trace, line by line" \
  "$(echo "$dsetup"; dbg_tx "sending $q"; dbg_tx "sending $q")" "$(dmask err.ours)"
assert_eq "-d -M simple: pgbench 15's trace" "$(dtrace err.real)" "$(dtrace err.ours)"
both -d -n -c 1 -t 2 -M prepared -f dbg.sql
assert_eq "-d -M prepared: bmk's trace (P_0 prepared on first use), line by line" \
  "$(echo "$dsetup"; dbg_tx 'preparing P_0' 'sending P_0'; dbg_tx 'sending P_0')" "$(dmask err.ours)"
assert_eq "-d -M prepared: pgbench 15's trace" "$(dtrace err.real)" "$(dtrace err.ours)"
# the rest as pgbench 15 prints it: -M extended's $1, \setshell's value
# (runShellCommand(), the output's newline within the quotes), \shell,
# which branches of \if show (the skipped \else and \endif do not), a
# pipeline (readCommandResponse(): "pipeline ending" at its sync)
printf '%s\n' '\set a 5' 'SELECT :a, :a + 1;' '\setshell s echo 7' '\Shell true' \
  '\if :a > 100' 'SELECT 1;' '\elif :a > 3' 'SELECT 2;' '\else' 'SELECT 3;' '\endif' \
  '\if 1' 'SELECT 4;' '\else' 'SELECT 5;' '\endif' \
  '\startpipeline' 'SELECT :s;' 'SELECT 8;' '\endpipeline' > dbg2.sql
for m in extended prepared; do
  both -d -n -c 1 -t 1 -M $m -f dbg2.sql
  assert_eq "-d -M $m, conditionals, shell commands, a pipeline: pgbench 15's trace" \
    "$(dtrace err.real) $RC_real" "$(dtrace err.ours) $RC_ours"
  [ $m = extended ] && assert_contains "-d -M extended: the statement with \$1, \$2" \
    "$(cat err.ours)" 'pgbench: client 0 sending SELECT $1, $2 + 1;'
done
# a serialization failure (SQLSTATE 40001 raised on purpose) inside a
# transaction block: pgbench rolls the block back and logs "receiving"
# while it waits for the ROLLBACK (advanceConnectionState(),
# CSTATE_WAIT_ROLLBACK_RESULT); one outside a block needs no rollback.
# -t 1 --max-tries=2: two tries, each failing
ser='DO $$BEGIN RAISE EXCEPTION USING ERRCODE = $e$40001$e$; END$$;'
printf 'BEGIN;\n%s\nEND;\n' "$ser" > serblk.sql
printf '%s\n' "$ser" > serone.sql
for f in serblk:12 serone:4; do
  both -d -n -t 1 --max-tries=2 --verbose-errors -f ${f%:*}.sql
  assert_eq "-d, 40001 in ${f%:*}.sql: pgbench 15's trace" "$(dtrace err.real) $RC_real" "$(dtrace err.ours) $RC_ours"
  assert_eq "-d, 40001 in ${f%:*}.sql: bmk's receiving lines" "${f#*:}" "$(grep -c 'client 0 receiving' err.ours)"
done
# in a pipeline (-M extended): the results are read up to the failed
# one, the rest discarded (no "pipeline ending"), then the ROLLBACK's wait:
# receiving before the results, for BEGIN's, for the failed one, twice
# for the ROLLBACK
printf '\\startpipeline\nBEGIN;\n%s\nEND;\n\\endpipeline\n' "$ser" > serpipe.sql
both -d -n -t 1 -M extended -f serpipe.sql
assert_eq "-d, 40001 in a pipeline: pgbench 15's trace" "$(dtrace err.real) $RC_real" "$(dtrace err.ours) $RC_ours"
assert_eq "-d, 40001 in a pipeline: bmk's receiving lines, no pipeline ending" "5 0" \
  "$(grep -c 'client 0 receiving' err.ours) $(grep -c 'pipeline ending' err.ours)"
# the failed pipeline is a failed transaction, retried as pgbench 15
# retries it (--max-tries=2: both tries fail), with its --verbose-errors
# lines (the error names the \endpipeline)
failures() { grep -E '^(number of failed transactions|number of transactions retried|total number of retries)' "$1"; }
for mt in 1 2; do
  both -n -t 1 -M extended --max-tries=$mt --verbose-errors -f serpipe.sql
  assert_eq "40001 in a pipeline, --max-tries=$mt --verbose-errors: pgbench 15's messages and exit code" \
    "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
  assert_eq "40001 in a pipeline, --max-tries=$mt: failed and retried as pgbench 15" \
    "$(failures out.real)" "$(failures out.ours)"
done
# four clients in threads of their own: their lines interleave, each
# whole (one write per line)
run ours -d -n -c 4 -t 3 -S
assert_eq "-d -c 4: every stderr line is a whole trace line" "" \
  "$(grep -vE '^pgbench: (pghost: .* dbName: sbtest|client [0-3] (executing script "<builtin: select only>"|executing \\set aid|sending SELECT abalance FROM pgbench_accounts WHERE aid = [0-9]+;|receiving))$' err.ours)"
assert_eq "-d -c 4 -t 3: 3 scripts, 6 receiving lines per client" "3 6 3 6 3 6 3 6" \
  "$(for k in 0 1 2 3; do printf '%s %s ' "$(grep -c "client $k executing script" err.ours)" "$(grep -c "client $k receiving" err.ours)"; done | sed 's/ $//')"
# without -d: no trace
both -n -c 1 -t 2 -M prepared -f dbg.sql
assert_eq "without -d: no trace line (as pgbench 15)" "0 0" \
  "$(grep -c '^pgbench: \(client\|pghost\)' err.real) $(grep -c '^pgbench: \(client\|pghost\)' err.ours)"

# SIGINT during a run: exit 130, as a shell reports pgbench's death
"$OURS" -n -c 2 -T 60 -P 1 -S > out.sig 2> err.sig &
sigpid=$!
for _ in $(seq 100); do grep -qs '^progress:' err.sig && break; sleep 0.1; done
kill -INT "$sigpid"
wait "$sigpid"
assert_eq "SIGINT during -T 60: exit 130" "130" "$?"

# `bmk pgbench` is the same persona
run_bmk pgbench -n -t 2 -c 1
assert_eq "bmk pgbench -t 2: exit 0" "0" "$RC"
assert_contains "bmk pgbench: pgbench's report" "$OUT" "number of transactions actually processed: 2/2"

drop
# no tables: pgbench's error with libpq's LINE and caret lines, its hint
both -n -t 1 -S
assert_eq "-S without pgbench's tables: pgbench 15's messages and exit code" "$(cat err.real) $RC_real" "$(cat err.ours) $RC_ours"
finish
