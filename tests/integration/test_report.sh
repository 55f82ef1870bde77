#!/usr/bin/env bash
# Capacity runs (docs/report.md): `bmk series` (steps, series id, one
# table, --reset=checkpoint, Ctrl-C), `bmk report` (the same table from
# the files; server cost and DBL columns from fixtures), `--merge` of a
# 2-process split (counts equal the single-process totals, p95 equals the
# p95 of the union of the two histograms, intervals summed on the wall
# clock), `--html` opened in headless Chromium (no console errors, every
# chart drawn), and bad input.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

FIX=$TOP/tests/integration/fixtures/results
opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }
report() { OUT=$(timeout -k 5 60 "$BMK" report "$@" 2>&1); RC=$?; }
series() { OUT=$(timeout -k 5 120 "$BMK" series "$@" 2>&1); RC=$?; }
# The "Series table" blocks of a text (up to their blank line).
tables() { printf '%s\n' "$1" | sed -n '/^Series table:/,/^$/p'; }

# ---- bad input (no database) ------------------------------------------------
report
assert_eq "no file: exit 1" 1 "$RC"
assert_contains "no file: message and usage" "$OUT" "bmk report: no result files given"
echo '{"hello": 1}' > other.json
report other.json
assert_eq "non-bmk JSON: exit 1" 1 "$RC"
assert_eq "non-bmk JSON: message" "bmk report: other.json: not a bmk results file (no \"format\": \"bmk-results\"; write one with --results=FILE.json)" "$OUT"
printf '{"format": "bmk-results",' > cut.json
report cut.json
assert_eq "not JSON: exit 1" 1 "$RC"
assert_match "not JSON: line and column" "$OUT" "^bmk report: cut.json: not a JSON document \(line 1, column [0-9]+: "
report missing.json
assert_eq "missing file: exit 1 and message" "1:bmk report: missing.json: cannot read: No such file or directory" "$RC:$OUT"
# --merge of the server cost: the server's totals once (one server), the
# client's CPU, transactions and queries summed, every per-transaction and
# per-query figure recomputed from those totals
python3 - "$FIX/dbl-pg-tx1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["server"]["cost"]
c.update(queries=30000, transactions=10000, client_cpu_s={"user": 1.0, "system": 0.5, "total": 1.5},
         per_query={"server_cpu_us": 83.5, "client_cpu_us": 50.0})
c["per_transaction"]["client_cpu_us"] = 150.0
for n in ("cost1.json", "cost2.json"):
    json.dump(d, open(n, "w"))
EOF
report --merge --output=costm.json cost1.json cost2.json
assert_eq "merge of the cost: exit 0" 0 "$RC"
assert_eq "merge of the cost: totals and per-unit figures" \
  "20000 60000 3.0 125.25 150.0 41.75 50.0" \
  "$(python3 -c 'import json; c = json.load(open("costm.json"))["server"]["cost"]; pt, pq = c["per_transaction"], c["per_query"]; print(c["transactions"], c["queries"], c["client_cpu_s"]["total"], pt["server_cpu_us"], pt["client_cpu_us"], pq["server_cpu_us"], pq["client_cpu_us"])')"
mkdir -p adir
report adir
assert_eq "a directory: exit 1 and what to give" "1:bmk report: adir is a directory: give its result files (adir/*.json)" "$RC:$OUT"
report --output=x.json "$FIX/dbl-pg-tx1.json"
assert_eq "--output without --merge: exit 1" 1 "$RC"
assert_contains "--output without --merge: message" "$OUT" "--output writes the merged file: it needs --merge"
report --bogus "$FIX/dbl-pg-tx1.json"
assert_contains "unknown option" "$RC:$OUT" "1:bmk report: unknown option or missing value: '--bogus'"
python3 - "$FIX/dbl-pg-tx1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["histogram"]["hdr_v2_compressed_base64"] = "HISTAAAAAAA="
json.dump(d, open("badhist.json", "w"))
EOF
report badhist.json
assert_eq "corrupt histogram: exit 1 and message" \
  "1:bmk report: badhist.json: not a compressed HdrHistogram V2 encoding" "$RC:$OUT"

# --merge of figures (results/sb_merge_figures.h): a client's own figure
# (no scope: an older file) summed; the database's (scope server: TPC-C's
# NOPM and TPM) averaged over runs on one database, summed over runs on a
# database each (a loopback address on two load hosts is two databases),
# left out for a mix; a figure not every run has, left out and named.
python3 - "$FIX/dbl-pg-tx1.json" <<'EOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
def doc(name, nopm, host, load_host, extra=False):
    x = copy.deepcopy(d)
    x["manifest"]["host"] = load_host
    x["manifest"]["options"].update({"pgsql-host": host, "pgsql-port": "5432", "pgsql-db": "sbtest"})
    t = x["summary"]["time_s"] / 60
    f = {"tpcc_nopm": {"value": nopm / t, "count": nopm, "per_minute": True, "help": "h", "scope": "server"},
         "rows": {"value": nopm + 1, "per_minute": False, "help": "h"}}
    if extra:
        f["only_here"] = {"value": 1, "per_minute": False, "help": "h", "scope": "client"}
    x["summary"]["figures"] = f
    json.dump(x, open(name, "w"))
doc("one1.json", 100, "db1", "lg1", extra=True); doc("one2.json", 120, "db1", "lg2")
doc("own1.json", 100, "127.0.0.1", "lg1"); doc("own2.json", 120, "127.0.0.1", "lg2")
doc("mix3.json", 140, "db2", "lg3")
EOF
report --merge --output=one.json one1.json one2.json
assert_eq "figures, one database: exit 0" 0 "$RC"
assert_eq "... NOPM the mean (count, per minute), rows summed, only_here left out" \
  "110.0 660.0 mean 2 | 222.0 sum | False" \
  "$(json_get one.json "'%.1f %.1f %s %d | %.1f %s | %s' % (d['summary']['figures']['tpcc_nopm']['count'], d['summary']['figures']['tpcc_nopm']['value'], d['summary']['figures']['tpcc_nopm']['merge'], d['summary']['figures']['tpcc_nopm']['runs'], d['summary']['figures']['rows']['value'], d['summary']['figures']['rows']['merge'], 'only_here' in d['summary']['figures'])")"
assert_contains "... the report's Figures block: NOPM" "$OUT" \
  "    NOPM                 660.00 per minute (the database's: the mean of 2 runs on it)"
assert_contains "... the figure left out, named" "$OUT" "figures not merged: only_here (not in every run)"
report --merge --output=own.json own1.json own2.json
assert_eq "figures, a loopback database on each load host: NOPM summed" "220.0 1320.0 sum" \
  "$(json_get own.json "'%.1f %.1f %s' % tuple(d['summary']['figures']['tpcc_nopm'][k] for k in ('count', 'value', 'merge'))")"
report --merge --output=mix.json one1.json one2.json mix3.json
assert_eq "figures, two runs on one database and one on another: NOPM left out" "False" \
  "$(json_get mix.json "'tpcc_nopm' in d['summary']['figures']")"
assert_contains "... and said" "$OUT" "tpcc_nopm (the database's own figure, from runs on more than one database but not one each)"

cat > quick.lua <<'EOF'
function event() end
EOF
run_bmk quick.lua --events=200 --results=q1.json run
run_bmk quick.lua --events=200 --results=q2.json run
run_bmk cpu --events=20 --cpu-max-prime=100 --results=cpu.json run
report --merge q1.json
assert_eq "merge of one file: exit 1 and message" \
  "1:bmk report --merge: --merge needs the result files of at least two runs" "$RC:$OUT"
report --merge q1.json cpu.json
assert_eq "merge of different tests: exit 1" 1 "$RC"
assert_eq "merge of different tests: message" "bmk report --merge: q1.json is a run of 'quick' and cpu.json of 'cpu': --merge combines runs of one test that ran at the same time" "$OUT"
report --merge q1.json q2.json
assert_eq "merge of runs one after the other: exit 1" 1 "$RC"
assert_match "merge of runs one after the other: message" "$OUT" \
  "^bmk report --merge: q1.json \(measured [0-9:.]+-[0-9:.]+ UTC\) and q2.json \(from [0-9:.]+ UTC\) did not run at the same time: --merge combines concurrent runs"
report --merge q1.json q1.json
assert_eq "same file twice" "1:bmk report --merge: q1.json is given twice" "$RC:$OUT"
OUT=$(BMK_GNUPLOT=/nonexistent/gnuplot "$BMK" report --html=x.html q1.json 2>&1); RC=$?
assert_eq "no gnuplot: exit 1" 1 "$RC"
assert_contains "no gnuplot: names the package" "$OUT" "bmk report: --html: gnuplot not found (/nonexistent/gnuplot): the charts are drawn with gnuplot; install it with 'apt-get install gnuplot-nox'"
check "no gnuplot: no page written" test ! -e x.html

# ---- the table from fixtures: server cost and DBL columns -------------------------
# (server.cost and summary.metrics come from other parts of bmk; the
# fixtures hold the documented fields, docs/results.md "Series table")
report "$FIX/dbl-pg-bulk-2jobs.json" "$FIX/dbl-pg-tx10.json" "$FIX/dbl-pg-tx1.json" "$FIX/dbl-my-tx1.json"
assert_eq "fixtures: exit 0" 0 "$RC"
assert_eq "fixtures: the table, byte for byte" "Series table: series 'dbl-fixture' (dbl, pgsql), 3 runs
   users          tps          qps   p95 (ms)   p99 (ms)   errors/s   reconn/s   CPU us/trx    instr/trx
      1       1000.00      1000.00      5.001      5.001       0.00       0.00        250.5      1234567
      1        200.00       200.00      5.001      5.001       0.00       0.00        900.0      4000000
      2          0.20         0.20      5.001      5.001       0.00       0.00            -            -
  DBL (rows per commit = tx size, 0 = one commit at the end; MB = 10^6 bytes):
    jobs  tx size       rows/s      trx/s  stmt (ms)  commit (ms) CPU busy %   wr IO/s   wr MB/s  redo MB/s  redo wr/s  redo (ms)  elapsed s
      1         1       1000.0    1000.00      0.500        0.200       42.5     100.0      0.82       5.00     2000.0      0.050      10.00
      1        10       2000.0     200.00      1.500        0.500       55.0     200.0      1.64       8.00      400.0      0.100      10.00
      2         0       4000.0       0.20     20.000      250.000          -     400.0      3.28      16.00      800.0          -      10.00

Series table: series 'dbl-fixture-mysql' (dbl, mysql), 1 run
   users          tps          qps   p95 (ms)   p99 (ms)   errors/s   reconn/s   CPU us/trx    instr/trx
      1       1000.00      1000.00      5.001      5.001       0.00       0.00            -            -
  DBL (rows per commit = tx size, 0 = one commit at the end; MB = 10^6 bytes):
    jobs  tx size       rows/s      trx/s  stmt (ms)  commit (ms) CPU busy %   wr IO/s   wr MB/s  redo MB/s  redo wr/s  redo (ms)  elapsed s
      1         1       1000.0    1000.00      0.500        0.200          -     300.0     12.00       3.00     1000.0          -      10.00" "$OUT"
report --series=dbl-fixture-mysql "$FIX"/dbl-*.json
assert_eq "--series: only that series" "Series table: series 'dbl-fixture-mysql' (dbl, mysql), 1 run" \
  "$(printf '%s\n' "$OUT" | grep '^Series table')"
report --series=nope "$FIX"/dbl-*.json
assert_eq "--series of no file" "1:bmk report: no run of series 'nope' among the files" "$RC:$OUT"

# ---- servers: a table to use, a role without the checkpoint privilege --------------
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  "$BMK" oltp_read_only $(opts $db) --tables=1 --table-size=1000 cleanup >/dev/null 2>&1
  "$BMK" oltp_read_only $(opts $db) --tables=1 --table-size=1000 prepare >/dev/null 2>&1
done

# split DB NAME OPTS1 OPTS2: two processes of oltp_read_only released
# together by one SYNC file, as several load hosts would be (docs/report.md);
# each writes NAME.p1.json / NAME.p2.json.
split() {
  local db=$1 name=$2 sync=$WORK/$2.sync
  touch "$sync"
  # shellcheck disable=SC2086
  timeout -k 5 60 "$BMK" oltp_read_only $(opts $db) --tables=1 --table-size=1000 \
    --sync-file="$sync" $3 --results="$name.p1.json" run > "$name.p1.out" 2>&1 &
  local p1=$!
  # shellcheck disable=SC2086
  timeout -k 5 60 "$BMK" oltp_read_only $(opts $db) --tables=1 --table-size=1000 \
    --sync-file="$sync" $4 --results="$name.p2.json" run > "$name.p2.out" 2>&1 &
  local p2=$!
  for _ in $(seq 600); do
    [ "$(ls "$sync".ready.* 2>/dev/null | wc -l)" -eq 2 ] && break
    sleep 0.05
  done
  rm -f "$sync"
  wait $p1
  wait $p2
}

# union_p95 A B: the p95 (ms) of the two files' histogram buckets added,
# computed here as HdrHistogram does (highest value of the bucket holding
# the ceil(0.95 n)-th value).
union_p95() {
  python3 - "$1" "$2" <<'EOF'
import json, math, sys
cnt = {}
for f in sys.argv[1:]:
    for lo, hi, c in json.load(open(f))["histogram"]["buckets"]:
        cnt[(lo, hi)] = cnt.get((lo, hi), 0) + c
want, seen = math.ceil(0.95 * sum(cnt.values())), 0
for lo, hi in sorted(cnt):
    seen += cnt[(lo, hi)]
    if seen >= want:
        print("%.6f" % (hi / 1e6))
        break
EOF
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  # ---- --merge: a 2-process split against one process -----------------------
  run_bmk oltp_read_only $(opts $db) --tables=1 --table-size=1000 --threads=3 --events=300 \
    --results=one-$db.json run
  split $db ev-$db "--threads=2 --events=200" "--threads=1 --events=100"
  report --merge ev-$db.p1.json ev-$db.p2.json --output=ev-$db.json
  assert_eq "$db merge: exit 0" 0 "$RC"
  assert_eq "$db merge: header" "Merged report: 2 runs of oltp_read_only on $db, 3 threads in all" \
    "$(printf '%s\n' "$OUT" | head -1)"
  assert_eq "$db merge: counts = the single process's (events, r/w/o, total)" \
    "$(json_get one-$db.json "d['summary']['events'], d['summary']['queries']")" \
    "$(json_get ev-$db.json "d['summary']['events'], d['summary']['queries']")"
  assert_eq "$db merge: report's read count" "4200" "$(report_value "read:" "$OUT")"
  assert_eq "$db merge: report's transactions" "300" "$(report_value "transactions:" "$OUT")"
  assert_eq "$db merge: histogram total = events" "300 300" \
    "$(json_get ev-$db.json "d['histogram']['total_count'], d['summary']['events']")"
  check "$db merge: merged file valid" json_ok ev-$db.json
  assert_eq "$db merge: merged_from lists both runs" "['ev-$db.p1.json', 'ev-$db.p2.json']" \
    "$(json_get ev-$db.json "[r['file'] for r in d['manifest']['merged_from']]")"

  # time-based: intervals on the wall clock, p95 of the union
  split $db t-$db "--threads=2 --time=2 --report-interval=1" "--threads=1 --time=2 --report-interval=1"
  report --merge t-$db.p1.json t-$db.p2.json --output=t-$db.json
  assert_eq "$db merge (time): exit 0" 0 "$RC"
  want=$(union_p95 t-$db.p1.json t-$db.p2.json)
  assert_eq "$db merge: p95 = p95 of the union of the two histograms" "$want" \
    "$(json_get t-$db.json "'%.6f' % d['summary']['latency_ms']['percentiles']['95']")"
  assert_eq "$db merge: report's 95th percentile line" "$(printf '%.2f' "$want")" \
    "$(printf '%s\n' "$OUT" | awk '/95th percentile:/{print $3}')"
  assert_eq "$db merge: buckets = the union's, exactly" "True" "$(python3 - t-$db.p1.json t-$db.p2.json t-$db.json <<'EOF'
import json, sys
cnt = {}
for f in sys.argv[1:3]:
    for lo, hi, c in json.load(open(f))["histogram"]["buckets"]:
        cnt[(lo, hi)] = cnt.get((lo, hi), 0) + c
m = {(lo, hi): c for lo, hi, c in json.load(open(sys.argv[3]))["histogram"]["buckets"]}
print(m == cnt)
EOF
)"
  assert_eq "$db merge: interval events = the runs' rows summed slot by slot" \
    "$(python3 - t-$db.p1.json t-$db.p2.json <<'EOF'
import json, sys
a, b = (json.load(open(f))["intervals"] for f in sys.argv[1:])
print([x["events"] + y["events"] for x, y in zip(a, b)])
EOF
)" "$(json_get t-$db.json "[r['events'] for r in d['intervals']]")"
  assert_not_contains "$db merge: no approximate-rows NOTE when every row has its histogram" \
    "$OUT" "without their histograms"
  assert_eq "$db merge: the one type row's p95 is the merged run's (its histogram is stored)" \
    "$(json_get t-$db.json "'%.6f' % d['summary']['latency_ms']['percentiles']['95']")" \
    "$(json_get t-$db.json "'%.6f' % d['event_types'][0]['latency_ms']['p95']")"
  # A file from before interval and per-type histograms were stored: the
  # rows it takes part in are an upper bound, and the report counts them.
  python3 - t-$db.p2.json old-$db.p2.json <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["intervals"] + d["event_types"]:
    r.pop("hdr_v2_compressed_base64", None)
json.dump(d, open(sys.argv[2], "w"))
EOF2
  report --merge t-$db.p1.json old-$db.p2.json --output=old-$db.json
  assert_eq "$db merge with an old file: exit 0" 0 "$RC"
  want=$(json_get old-$db.json "'%d of %d interval rows and %d of %d per-type rows' % (sum(r['hdr_v2_compressed_base64'] is None for r in d['intervals']), len(d['intervals']), sum(r['hdr_v2_compressed_base64'] is None for r in d['event_types']), len(d['event_types']))")
  assert_match "$db merge with an old file: the approximate rows are counted" "$want" \
    '^[1-9][0-9]* of [0-9]+ interval rows and [1-9][0-9]* of [0-9]+ per-type rows$'
  assert_contains "$db merge with an old file: NOTE counting them" "$OUT" \
    "NOTE: $want come from files without their histograms (written before bmk stored them): their percentiles are the highest of the runs' (an upper bound), not exact"
  assert_match "$db merge: interval lines with both runs' threads" "$OUT" \
    '^\[ 1s \] thds: 3 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/0\.00/[0-9.]+\) lat \(ms,95%\): [0-9.]+ err/s: 0\.00 reconn/s: 0\.00$'
  assert_match "$db merge: report layout" "$(printf '%s\n' "$OUT" | tr '\n' '|')" \
    'SQL statistics:\|    queries performed:\|.*Throughput:\|.*Latency \(ms\):\|.*Threads fairness:\|'

  # ---- series: 1, 2, 4 users, checkpoint before each step ---------------------
  if [ $db = pgsql ]; then
    ck0=$(pgsql_q "SELECT checkpoints_req FROM pg_stat_bgwriter")
  else
    pct0=$(mysql_q "SELECT @@GLOBAL.innodb_max_dirty_pages_pct")
  fi
  series --users=1,2,4 --results-dir=ser-$db --id=ser-$db --reset=checkpoint -- \
    bmk oltp_read_only $(opts $db) --tables=1 --table-size=1000 --time=1 --threads=9 run
  assert_eq "$db series: exit 0" 0 "$RC"
  assert_eq "$db series: one file per step" "01-u1.json 02-u2.json 03-u4.json" "$(ls ser-$db | tr '\n' ' ' | sed 's/ $//')"
  assert_eq "$db series: series id and threads in each file" \
    "ser-$db 1 ser-$db 2 ser-$db 4" \
    "$(for f in ser-$db/*.json; do json_get $f "d['manifest']['series_id'], d['summary']['threads']"; done | tr -d "(),'" | tr '\n' ' ' | sed 's/ $//')"
  assert_eq "$db series: steps announced" 3 "$(printf '%s\n' "$OUT" | grep -c "^=> series ser-$db: step [1-3]/3, [124] users: ")"
  assert_eq "$db series: a checkpoint before each step" 3 "$(printf '%s\n' "$OUT" | grep -c '^=> checkpoint: .* done in ')"
  if [ $db = pgsql ]; then
    ck1=$(pgsql_q "SELECT checkpoints_req FROM pg_stat_bgwriter")
    check "$db series: the server counted the CHECKPOINTs ($ck0 -> $ck1)" test $((ck1 - ck0)) -ge 3
  else
    assert_eq "$db series: innodb_max_dirty_pages_pct put back" "$pct0" \
      "$(mysql_q "SELECT @@GLOBAL.innodb_max_dirty_pages_pct")"
  fi
  assert_eq "$db series: table rows for 1, 2, 4 users" "1 2 4" \
    "$(tables "$OUT" | awk 'NR>2 && $1 ~ /^[0-9]+$/ {print $1}' | tr '\n' ' ' | sed 's/ $//')"
  series_table=$(tables "$OUT")
  report ser-$db/*.json
  assert_eq "$db series: bmk report over the files prints the same table" "$series_table" "$(tables "$OUT")"
done

# ---- series: bad input ---------------------------------------------------------------
series -- bmk quick.lua run
assert_contains "series without --users" "$RC:$OUT" "1:bmk series: --users=LIST is required"
series --users=1,0 -- bmk quick.lua run
assert_contains "series --users=1,0" "$RC:$OUT" "1:bmk series: --users: invalid user count '0' (integers >= 1)"
series --users=1 --id=nowhere -- bmk nosuchtest run
assert_eq "series whose step writes nothing: exit 1, no empty directory left" "1 no" \
  "$RC $([ -d nowhere ] && echo yes || echo no)"
series --users=1,,2 -- cpu run
assert_contains "series --users=1,,2" "$RC:$OUT" "1:bmk series: --users: an empty user count in '1,,2'"
series --users=1,2,...,5 --results-dir=prog -- bmk quick.lua --events=1 run
assert_eq "series 1,2,...,5 = 1 2 4 5" "01-u1.json 02-u2.json 03-u4.json 04-u5.json" "$(ls prog | tr '\n' ' ' | sed 's/ $//')"
series --users=1 -- bmk quick.lua --results=x.json run
assert_contains "series with --results in the command" "$RC:$OUT" "1:bmk series: --results is set by bmk series for every step; remove it from the command"
series --users=1 -- bmk quick.lua prepare
assert_contains "series of a command that is not run" "$RC:$OUT" "1:bmk series: the bmk command line must end with the 'run' command (got 'prepare')"

# ---- series: Ctrl-C stops it and still prints the steps done ---------------------------
db=${BMK_TEST_DBS:-pgsql}; db=${db##* }
# a terminal's Ctrl-C once the first step's threads started
python3 "$TOP/tests/integration/tools/interrupt.py" "$WORK/int.out" "Threads started!" \
  "$BMK" series --users=1,2 --results-dir=int --id=int -- bmk oltp_read_only $(opts $db) \
  --tables=1 --table-size=1000 --time=30 run > int.rc
OUT=$(cat int.out)
assert_eq "Ctrl-C: series exit 130" 130 "$(cat int.rc)"
assert_contains "Ctrl-C: says so" "$OUT" "=> series int: interrupted (SIGINT); the table holds the steps done"
assert_not_contains "Ctrl-C: no further step" "$OUT" "step 2/2"
assert_match "Ctrl-C: the table with the interrupted step" "$OUT" '^      1\* +[0-9.]+ +[0-9.]+ '
assert_contains "Ctrl-C: footnote" "$OUT" "  * interrupted run: int/01-u1.json (SIGINT); its row covers the measured part only"

# ---- --db-checkpoint without the privilege ------------------------------------------------
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = pgsql ]; then
    pgsql_q "DROP ROLE IF EXISTS bmk_nockpt" >/dev/null 2>&1
    pgsql_q "CREATE ROLE bmk_nockpt LOGIN PASSWORD 'nockpt'" >/dev/null
    pgsql_q "GRANT SELECT ON sbtest1 TO bmk_nockpt" >/dev/null
    user="--pgsql-user=bmk_nockpt --pgsql-password=nockpt"
    want="FATAL: --db-checkpoint: CHECKPOINT: "
    why="(needs a superuser or, on PostgreSQL 15+, the pg_checkpoint role)"
  else
    for h in localhost 127.0.0.1; do
      mysql_q "DROP USER IF EXISTS 'bmk_nockpt'@'$h'; CREATE USER 'bmk_nockpt'@'$h' IDENTIFIED BY 'nockpt'; GRANT SELECT ON sbtest.* TO 'bmk_nockpt'@'$h'"
    done
    user="--mysql-user=bmk_nockpt --mysql-password=nockpt"
    want="FATAL: --db-checkpoint: FLUSH TABLES: "
    why="(needs the RELOAD and SUPER privileges and InnoDB)"
  fi
  run_bmk oltp_read_only $(opts $db) $user --tables=1 --table-size=1000 --time=1 --db-checkpoint=on run
  assert_eq "$db --db-checkpoint without privilege: exit 1" 1 "$RC"
  assert_contains "$db --db-checkpoint without privilege: FATAL line" "$OUT" "$want"
  assert_contains "$db --db-checkpoint without privilege: says what it needs" "$OUT" "$why"
  assert_not_contains "$db --db-checkpoint without privilege: no run" "$OUT" "Threads started!"
  if [ $db = pgsql ]; then
    pgsql_q "DROP OWNED BY bmk_nockpt; DROP ROLE bmk_nockpt" >/dev/null
  else
    mysql_q "DROP USER 'bmk_nockpt'@'localhost', 'bmk_nockpt'@'127.0.0.1'"
  fi
done

# ---- --html in headless Chromium -----------------------------------------------------------
# (probe_page in lib.sh: PROBE = "charts drawn", CONSOLE)
if ! command -v chromium >/dev/null; then
  not_ok "chromium is not installed (apt-get install chromium; tests/run-all.sh does)"
else
  db=${BMK_TEST_DBS:-pgsql}; db=${db##* }
  report --html=charts.html ser-$db/*.json "$FIX"/dbl-pg-*.json t-$db.json
  assert_eq "html: exit 0" 0 "$RC"
  assert_contains "html: says where" "$OUT" "Charts written to charts.html"
  # 3 series (the series, the DBL fixtures, the merged run) x 2 charts,
  # 7 run timelines, 2 DBL charts
  assert_eq "html: chart figures in the page" 15 "$(grep -c '^<figure class="chart"' charts.html)"
  assert_eq "html: self-contained (no src=, no link, no http fetch)" 0 \
    "$(grep -Eic '<link|src=|url\(http|@import' charts.html)"
  probe_page charts.html
  assert_eq "html: every chart drawn in Chromium" "15 15" "$PROBE"
  assert_eq "html: no console messages" 0 "$CONSOLE"
  # the probe can fail: a console error and a chart without its drawing
  printf '<!DOCTYPE html><html><body><figure class="chart"></figure><script>console.error("x")</script></body></html>\n' > bad.html
  probe_page bad.html
  assert_eq "html probe: a chart without svg is not drawn" "1 0" "$PROBE"
  check "html probe: a console error is seen" test "$CONSOLE" -ge 1
  # runs too short for an interval, or with intervals but no latency
  # (a DBL bulk load of one commit): an empty "no data" panel, the page
  # still made (gnuplot stops on a plot without any valid point)
  python3 - t-$db.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
e = dict(d); e["intervals"] = []
json.dump(e, open("no-intervals.json", "w"))
n = dict(d); n["intervals"] = [dict(r, latency_ms={}) for r in d["intervals"]]
for r in n["intervals"]:
    r.pop("hdr_v2_compressed_base64", None)
json.dump(n, open("no-latency.json", "w"))
EOF
  report --html=short.html no-intervals.json no-latency.json
  assert_eq "html of runs without intervals or latency: exit 0" 0 "$RC"
  assert_eq "html of runs without intervals or latency: empty panels say so" 4 "$(grep -o '>no data<' short.html | wc -l)"
  # DBL charts: one line per load method (bulk loads by COPY and by
  # multi-row INSERT are not one curve)
  python3 - "$FIX/dbl-pg-bulk-2jobs.json" <<'EOF'
import json, sys
for m in ("copy", "multi"):
    d = json.load(open(sys.argv[1]))
    d["manifest"]["options"]["load_method"] = m
    json.dump(d, open("dbl-%s.json" % m, "w"))
EOF
  report --html=methods.html dbl-copy.json dbl-multi.json
  assert_eq "html DBL by load method: exit 0" 0 "$RC"
  assert_eq "html DBL: a line per method in the jobs chart" "tx size 0, copy|tx size 0, multi" \
    "$(grep -o 'tx size 0, [a-z]*' methods.html | sort -u | paste -sd'|')"
  # --svg-dir: a directory it creates, one standalone file per chart
  report --html=charts2.html --svg-dir=svgs ser-$db/*.json "$FIX"/dbl-pg-*.json t-$db.json
  assert_eq "--svg-dir: exit 0" 0 "$RC"
  assert_eq "--svg-dir: every chart listed" 15 "$(grep -c '^chart-[0-9]*\.svg: ' svgs/charts.txt 2>/dev/null)"
  assert_eq "--svg-dir: every chart written" 15 "$(ls svgs/chart-*.svg 2>/dev/null | wc -l)"
  report --html=charts3.html --svg-dir=no/such/parent t-$db.json
  assert_eq "--svg-dir under a missing parent: exit 1" 1 "$RC"
  assert_contains "--svg-dir under a missing parent: says so" "$OUT" "--svg-dir: cannot create no/such/parent"
  report --merge t-$db.p1.json t-$db.p2.json --html=merged.html
  assert_eq "html of a merge: one timeline and the series charts" 3 "$(grep -c '^<figure class="chart"' merged.html)"
fi

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  "$BMK" oltp_read_only $(opts $db) --tables=1 cleanup >/dev/null 2>&1
done
finish
