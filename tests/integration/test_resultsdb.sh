#!/usr/bin/env bash
# The results database (docs/results-db.md): --save stores a run in a
# SQLite file, `bmk runs` lists, shows, exports, imports and deletes,
# `bmk compare` compares. Checks:
#   - a saved run read back (export) is the --results JSON of the same
#     run, field for field, and validates against the schema; the listing
#     shows its columns and tags; tag and test filters select exactly;
#   - two runs saving into one file at the same moment are both saved;
#   - a database that cannot be written: the report is printed, --results
#     written, the failure named, exit 1;
#   - the repository's result fixtures import;
#   - bad input to `bmk runs`: a message, exit 1;
#   - the same on a PostgreSQL store (postgresql:// URL, a database and a
#     role the test creates): concurrent first saves create the schema
#     once and both land, list/export/show/compare/delete, an unreachable
#     server and a wrong password keep the run and exit 1, the URL's
#     password is in no output and nothing stored.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

export BMK_RESULTS_DB=$WORK/db/results.db
CPU="cpu --cpu-max-prime=2000 --threads=2"

run_bmk $CPU --time=1 --tag=build=1,env=ci --save --results=r1.json run
assert_eq "save: exit 0" 0 "$RC"
assert_match "save: says where" "$OUT" "^Saved as run 1 in $BMK_RESULTS_DB \(bmk runs show 1\)$"
"$BMK" runs export 1 > e1.json
assert_eq "export: the saved document is the --results JSON, field for field" True \
  "$(python3 -c 'import json,sys; print(json.load(open("r1.json")) == json.load(open("e1.json")))')"
check "export: valid against docs/results.schema.json" json_ok e1.json
assert_eq "the manifest holds the tags" "{'build': '1', 'env': 'ci'}" \
  "$(json_get e1.json "d['manifest']['tags']")"

# BMK_RESULTS_DB alone saves too
run_bmk $CPU --time=1 --tag=build=2,env=ci run
assert_match "BMK_RESULTS_DB alone: saved" "$OUT" "^Saved as run 2 in "
run_bmk $CPU --threads=1 --time=1 --tag=build=2 --results-db="$BMK_RESULTS_DB" run
assert_match "--results-db: saved" "$OUT" "^Saved as run 3 in "

run_bmk runs list
assert_eq "list: a header and three runs" 4 "$(printf '%s\n' "$OUT" | grep -c .)"
assert_match "list: run 1's line (id, start, test, VUs, tps, p95, p99, tags)" "$OUT" \
  "^ +1  [0-9T:-]+Z +cpu +2 +[0-9.]+ +[0-9.]+ +[0-9.]+  build=1,env=ci$"
tps1=$(json_get r1.json "d['summary']['tps']")
check "list: run 1's tps is the document's (to the 2 decimals shown)" awk -v a="$tps1" \
  -v b="$(printf '%s\n' "$OUT" | awk '$1 == 1 {print $5}')" 'BEGIN{d = a - b; exit !(d < 0.006 && d > -0.006)}'
run_bmk runs list --tag=build=2
assert_eq "list --tag=build=2: runs 2 and 3" "2 3" \
  "$(printf '%s\n' "$OUT" | awk 'NR > 1 {print $1}' | tr '\n' ' ' | sed 's/ $//')"
run_bmk runs list --tag=build=2 --tag=env=ci
assert_eq "list with two tags: run 2" "2" "$(printf '%s\n' "$OUT" | awk 'NR > 1 {print $1}')"
run_bmk runs list --last=1
assert_eq "list --last=1: run 3" "3" "$(printf '%s\n' "$OUT" | awk 'NR > 1 {print $1}')"
run_bmk runs list --test=oltp_read_write
assert_eq "list --test of another test: none" 1 "$(printf '%s\n' "$OUT" | grep -c .)"
run_bmk runs list --ids --tag=build=2
assert_eq "list --ids: the ids alone, one per line, oldest first" "2
3" "$OUT"
# reading never creates a database
run_bmk runs list --results-db="$WORK/none/r.db"
assert_eq "list of a database that is not there: exit 0" 0 "$RC"
assert_eq "... the header alone" 1 "$(printf '%s\n' "$OUT" | grep -c .)"
run_bmk runs export 1 --results-db="$WORK/none/r.db"
assert_eq "export from a database that is not there: exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "bmk runs: no run 1: there is no results database at $WORK/none/r.db"
check "... and neither made it (nor its directory)" test ! -e "$WORK/none"
run_bmk runs show 1
assert_eq "show: exit 0" 0 "$RC"
assert_contains "show: the report's events" "$OUT" \
  "total number of events:              $(json_get r1.json "d['summary']['events']")"

# two processes saving at the same moment
"$BMK" $CPU --time=2 --tag=pair=a run > a.out 2>&1 &
pa=$!
"$BMK" $CPU --time=2 --tag=pair=b run > b.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
assert_eq "two processes saving at once: both exit 0" "0 0" "$ra $rb"
run_bmk runs list --tag=pair=a
na=$(printf '%s\n' "$OUT" | awk 'NR > 1' | wc -l)
run_bmk runs list --tag=pair=b
nb=$(printf '%s\n' "$OUT" | awk 'NR > 1' | wc -l)
assert_eq "two processes saving at once: both saved" "1 1" "$na $nb"

# a database that cannot be written: the run and --results survive
touch notadir
run_bmk $CPU --time=1 --results-db="$WORK/notadir/results.db" --results=kept.json run
assert_eq "unwritable database: exit 1" 1 "$RC"
assert_contains "unwritable database: the report is printed" "$OUT" "total number of events:"
assert_contains "unwritable database: the failure is named" "$OUT" "--save: the run was not saved: results database '$WORK/notadir/results.db'"
check "unwritable database: --results is written" json_ok kept.json

# import: the repository's fixtures
n=0
for f in "$TOP"/tests/integration/fixtures/results/*.json; do n=$((n + 1)); done
run_bmk runs import --results-db=imp.db "$TOP"/tests/integration/fixtures/results/*.json
assert_eq "import of $n fixtures: exit 0" 0 "$RC"
assert_eq "import: one run per file" "$n" "$(printf '%s\n' "$OUT" | grep -c ': run [0-9]*$')"
run_bmk runs list --results-db=imp.db
assert_eq "import: listed" $((n + 1)) "$(printf '%s\n' "$OUT" | grep -c .)"
echo '{"not": "bmk"}' > bad.json
run_bmk runs import --results-db=imp.db bad.json
assert_eq "import of a non-bmk file: exit 1" 1 "$RC"
assert_contains "import of a non-bmk file: says so" "$OUT" "bad.json"

# a malformed --tag (checked for every run, not only with --metrics-listen):
# a message before the run, nothing saved
run_bmk $CPU --time=1 --tag=1a=b --save run
assert_eq "--tag=1a=b with --save: exit 1" 1 "$RC"
assert_contains "--tag=1a=b with --save: says so" "$OUT" "FATAL: --tag: '1a=b' is not key=value"
assert_not_contains "--tag=1a=b with --save: nothing saved" "$OUT" "Saved as run"

# delete and bad input
run_bmk runs delete 2
assert_eq "delete: exit 0" 0 "$RC"
run_bmk runs show 2
assert_eq "show a deleted run: exit 1" 1 "$RC"
assert_contains "show a deleted run: says so" "$OUT" "bmk runs: no run 2 in the results database"
run_bmk runs show abc
assert_eq "show abc: exit 1" 1 "$RC"
assert_contains "show abc: says so" "$OUT" "a run id is a positive number, not 'abc'"
run_bmk runs frobnicate
assert_eq "unknown command: exit 1" 1 "$RC"
assert_contains "unknown command: says so" "$OUT" "bmk runs: unknown command 'frobnicate'"

# ---- bmk compare ------------------------------------------------------------
run_bmk $CPU --time=4 --tag=self=1 run
run_bmk compare --results-db="$BMK_RESULTS_DB" tag:self=1 tag:self=1
assert_eq "compare a run with itself: exit 0" 0 "$RC"
assert_eq "compare a run with itself: every difference shown is +0.00%" "" \
  "$(printf '%s\n' "$OUT" | grep -E '^(tps|p[0-9]+ ms) ' | grep -v ' - ' | grep -v '+0.00% \[' )"
check "compare a run with itself: no significant difference" \
  test "$(printf '%s\n' "$OUT" | grep -c 'no significant difference')" -ge 2
assert_contains "compare: says which method" "$OUT" "method: batch means of the per-interval samples"

# 3 runs sleeping 10 ms per event against 3 sleeping 20 ms: p50 doubles
db=${BMK_TEST_DBS:-mysql}; db=${db%% *}
if [ "$db" = mysql ]; then D=$MYSQL_OPTS; S="SELECT SLEEP(%s)"; else D=$PGSQL_OPTS; S="SELECT pg_sleep(%s)"; fi
cat > sleep.lua <<LUA
sysbench.cmdline.options = { sleep_s = {"seconds", 0.01} }
function thread_init() drv = sysbench.sql.driver(); con = drv:connect() end
function thread_done() con:disconnect() end
function event() con:query(string.format("$S", sysbench.opt.sleep_s)) end
LUA
for i in 1 2 3; do
  "$BMK" sleep.lua $D --sleep-s=0.010 --threads=2 --time=2 --report-interval=1 --tag=sleep=10 --save run >/dev/null 2>&1
  "$BMK" sleep.lua $D --sleep-s=0.020 --threads=2 --time=2 --report-interval=1 --tag=sleep=20 --save run >/dev/null 2>&1
done
run_bmk compare tag:sleep=10 tag:sleep=20
assert_eq "compare 3 x 10 ms with 3 x 20 ms: exit 0" 0 "$RC"
assert_contains "compare: by repetitions" "$OUT" "method: the runs' values (repetitions)"
p50=$(printf '%s\n' "$OUT" | awk '$1 == "p50" { print }')
# What the sleeps fix whatever the machine's load: neither side faster than
# its sleep (10 and 20 ms), B slower, significantly, the change the printed
# values' (B - A) / A, inside its interval. (How far above +100 % it lands
# depends on the CPU share: 10.3 against 20.4 ms on a quiet machine, 10.3
# against 22.0 under three test passes and ASan.)
check "compare: p50 about doubles, significantly ($p50)" awk -v l="$p50" 'BEGIN {
  n = split(l, f, " "); a = f[3] + 0; b = f[4] + 0; pct = f[5] + 0
  sub(/^\[/, "", f[6]); lo = f[6] + 0; hi = f[7] + 0
  exit !(a >= 10 && b >= 20 && lo > 0 && lo <= pct && pct <= hi && l ~ /B slower/ &&
         (pct - 100 * (b - a) / a) ^ 2 < 1) }'
# gates on either side of the measured change: one holds, one is violated
pct=$(printf '%s\n' "$p50" | awk '{ printf "%d", $5 + 0 }')
run_bmk compare tag:sleep=10 tag:sleep=20 --fail-if="p50>+$((pct * 2))%"
assert_eq "a threshold that holds (p50>+$((pct * 2))%): exit 0" 0 "$RC"
run_bmk compare tag:sleep=10 tag:sleep=20 --fail-if="p50>+$((pct / 2))%"
assert_eq "a threshold violated (p50>+$((pct / 2))%): exit 3" 3 "$RC"
assert_match "a threshold violated: the failing line" "$OUT" "^FAILED: --fail-if='p50>\\+$((pct / 2))%': p50 changed by \\+[0-9.]+% \\(significant\\)$"
for bad in 'p99<=fast' 'speed<-5%'; do
  run_bmk compare tag:sleep=10 tag:sleep=20 "--fail-if=$bad"
  assert_eq "--fail-if='$bad': exit 1" 1 "$RC"
  assert_contains "--fail-if='$bad': says so" "$OUT" "bmk compare: --fail-if='$bad'"
  assert_not_contains "--fail-if='$bad': nothing compared" "$OUT" "method:"
done
run_bmk compare 1
assert_eq "compare with one side: exit 1" 1 "$RC"

# ---- bmk series saving its steps (the results database set) ----------------
run_bmk series --users=1,2 --results-dir="$WORK/ser" --id=ser-1 -- bmk $CPU --time=1 run
assert_eq "series: exit 0" 0 "$RC"
run_bmk runs list --series=ser-1
assert_eq "runs list --series: the two steps, 1 and 2 threads" "1 2" \
  "$(printf '%s\n' "$OUT" | awk 'NR > 1 {print $4}' | tr '\n' ' ' | sed 's/ $//')"
run_bmk report --series=ser-1
assert_eq "report --series without files: the series table from the database" 0 "$RC"
assert_match "report --series: two runs" "$OUT" "^Series table: series 'ser-1' \\(cpu\\), 2 runs$"
run_bmk compare series:ser-1 series:ser-1
assert_eq "compare series:ID series:ID: exit 0" 0 "$RC"
run_bmk report --series=no-such-series
assert_eq "report of a series with no saved run: exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "'series:no-such-series' selects no run in the results database"

# ---- a PostgreSQL store (--results-db=postgresql://...) ---------------------
# A database and a role of the test's own (the sandbox's sbtest is a
# superuser): the role owns the database and nothing else, as a team's
# store would be set up (docs/results-db.md), and its password, unlike
# sbtest's, is a string no other output holds.
PGDB=bmk_results_test PGROLE=bmk_results_test PGPW=bmkStorePw7q2x
if ! pgsql_q "SELECT 1" >/dev/null 2>&1; then
  skip_core "PostgreSQL store" "no PostgreSQL sandbox on 127.0.0.1:$PGSQL_PORT"
  finish
fi
pgsql_q "DROP DATABASE IF EXISTS $PGDB" >/dev/null 2>&1
pgsql_q "DROP ROLE IF EXISTS $PGROLE" >/dev/null 2>&1
pgsql_q "CREATE ROLE $PGROLE LOGIN PASSWORD '$PGPW'" >/dev/null
pgsql_q "CREATE DATABASE $PGDB OWNER $PGROLE" >/dev/null
URL="postgresql://$PGROLE:$PGPW@127.0.0.1:$PGSQL_PORT/$PGDB"
SHOWN="postgresql://$PGROLE:\*\*\*@127.0.0.1:$PGSQL_PORT/$PGDB"
pg_store_q() { PGPASSWORD=$PGPW psql -h 127.0.0.1 -p "$PGSQL_PORT" -U "$PGROLE" -d "$PGDB" -At -c "$1"; }
ALL=""

# the first two saves into the empty database, at the same moment: both
# create the schema (serialised), both runs land
"$BMK" $CPU --time=1 --tag=pair=a --results-db="$URL" run > pa.out 2>&1 &
pa=$!
"$BMK" $CPU --time=1 --tag=pair=b --results-db="$URL" run > pb.out 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
ALL="$(cat pa.out pb.out)"
assert_eq "pg: two processes creating the schema and saving at once: both exit 0" "0 0" "$ra $rb"
assert_eq "pg: both saved (runs 1 and 2)" "1 2" \
  "$(cat pa.out pb.out | sed -n 's/^Saved as run \([0-9]*\) in .*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')"
assert_eq "pg: schema version 1, two runs, two tags" "1 2 2" \
  "$(pg_store_q "SELECT (SELECT version FROM schema_version), (SELECT count(*) FROM runs), (SELECT count(*) FROM run_tags)" | tr '|' ' ')"

run_bmk $CPU --time=1 --tag=build=1,env=ci --results-db="$URL" --results=p1.json run
ALL="$ALL$OUT"
assert_eq "pg: save: exit 0" 0 "$RC"
assert_match "pg: save: says where, password masked" "$OUT" "^Saved as run 3 in $SHOWN \(bmk runs show 3\)$"
BMK_RESULTS_DB=$URL run_bmk $CPU --threads=1 --time=1 --tag=build=2 run
ALL="$ALL$OUT"
assert_match "pg: BMK_RESULTS_DB=postgresql://...: saved" "$OUT" "^Saved as run 4 in $SHOWN "

run_bmk runs list --results-db="$URL"
ALL="$ALL$OUT"
assert_eq "pg: list: a header and four runs" 5 "$(printf '%s\n' "$OUT" | grep -c .)"
assert_match "pg: list: run 3's line" "$OUT" \
  "^ +3  [0-9T:-]+Z +cpu +2 +[0-9.]+ +[0-9.]+ +[0-9.]+  build=1,env=ci$"
BMK_RESULTS_DB=$URL run_bmk runs list --tag=env=ci --tag=build=1
assert_eq "pg: list with two tags (BMK_RESULTS_DB): run 3" "3" "$(printf '%s\n' "$OUT" | awk 'NR > 1 {print $1}')"
run_bmk runs list --results-db="$URL" --last=2
assert_eq "pg: list --last=2: runs 3 and 4" "3 4" "$(printf '%s\n' "$OUT" | awk 'NR > 1 {print $1}' | tr '\n' ' ' | sed 's/ $//')"
"$BMK" runs export 3 --results-db="$URL" > pe3.json
assert_eq "pg: export: the saved document is the --results JSON, field for field" True \
  "$(python3 -c 'import json,sys; print(json.load(open("p1.json")) == json.load(open("pe3.json")))')"
assert_eq "pg: the document column is JSON SQL can query (test, events)" \
  "cpu|$(json_get p1.json "d['summary']['events']")" \
  "$(pg_store_q "SELECT document->'manifest'->>'test', document->'summary'->>'events' FROM runs WHERE id = 3")"
run_bmk runs show 3 --results-db="$URL"
ALL="$ALL$OUT"
assert_contains "pg: show: the report's events" "$OUT" \
  "total number of events:              $(json_get p1.json "d['summary']['events']")"
run_bmk compare --results-db="$URL" 1,2 3,4
ALL="$ALL$OUT"
assert_eq "pg: compare 1,2 with 3,4: exit 0" 0 "$RC"
assert_contains "pg: compare: both sides read" "$OUT" "A: 1,2: 2 run(s) of cpu"
assert_match "pg: compare: a tps line" "$OUT" "^tps +[0-9.]+ +[0-9.]+ "
run_bmk runs delete 4 --results-db="$URL"
assert_eq "pg: delete: exit 0, the run and its tag gone" "0 3 0" \
  "$RC $(pg_store_q "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_tags WHERE run_id = 4)" | tr '|' ' ')"

# the password: in no output, nor in anything stored
assert_not_contains "pg: the password is in no output" "$ALL" "$PGPW"
assert_not_contains "pg: nor in the exported document" "$(cat pe3.json)" "$PGPW"
assert_eq "pg: nor in any stored document" 0 "$(pg_store_q "SELECT count(*) FROM runs WHERE document::text LIKE '%$PGPW%'")"
assert_contains "pg: the stored command line masks it" "$(json_get pe3.json "d['manifest']['command_line']")" \
  "--results-db=$(printf '%s' "$SHOWN" | tr -d '\\')"

# unreachable (a closed local port) and a wrong password: the report and
# --results survive, the failure is named, exit 1
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run_bmk $CPU --time=1 --results-db="postgresql://$PGROLE:$PGPW@127.0.0.1:$port/$PGDB" --results=pk.json run
assert_eq "pg unreachable: exit 1" 1 "$RC"
assert_contains "pg unreachable: the report is printed" "$OUT" "total number of events:"
check "pg unreachable: --results is written" json_ok pk.json
assert_match "pg unreachable: the failure names host:port/db, password masked" "$OUT" \
  "^ALERT: --save: the run was not saved: results database 'postgresql://$PGROLE:\*\*\*@127.0.0.1:$port/$PGDB': cannot connect: .*Connection refused"
assert_not_contains "pg unreachable: no password printed" "$OUT" "$PGPW"
run_bmk runs list --results-db="postgresql://$PGROLE:wrong$PGPW@127.0.0.1:$PGSQL_PORT/$PGDB"
assert_eq "pg wrong password: bmk runs exits 1" 1 "$RC"
assert_contains "pg wrong password: says what to do" "$OUT" "password authentication failed for user \"$PGROLE\"; check the user and password"
assert_not_contains "pg wrong password: no password printed" "$OUT" "$PGPW"

pgsql_q "DROP DATABASE IF EXISTS $PGDB" >/dev/null
pgsql_q "DROP ROLE IF EXISTS $PGROLE" >/dev/null

finish
