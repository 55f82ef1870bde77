#!/usr/bin/env bash
# Numbers people can trust (docs/results.md): per-event-type statistics,
# reconciliation with the server's own counters, the --results JSON
# (validated against docs/results.schema.json) and the --hdr-log (decoded
# by the reference Java HdrHistogram library), interrupted runs keeping
# their numbers. What compares with the wall clock (rate accuracy,
# injected truth, coordinated omission) is test_latency.sh.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

HDRJAR=/usr/share/java/hdrhistogram.jar
HDRCHECK=$TOP/tests/integration/tools/HdrCheck.java

opts() { if [ "$1" = mysql ]; then echo "$MYSQL_OPTS"; else echo "$PGSQL_OPTS"; fi; }

# json_ok, json_get, within: lib.sh
# max_close REF BMK: the reference's max is the top of its 0.1 % bucket and
# both are printed with 2 decimals: equal within 0.1 % + one rounding step.
max_close() { awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d <= 0.0101 + b*0.001)}'; }
pct_line() {  # pct_line N "$OUT": the value of the "Nth percentile:" line
  printf '%s\n' "$2" | grep -E "^ *$1th percentile:" | head -1 | awk '{print $3}'
}

# ---- per-event-type statistics (no database) -------------------------------
cat > types.lua <<'EOF'
-- event n: n%4==0 "slow" (3 ms), n%4==1 "fast" (restarted once when
-- n%8==1), else untyped; a restart runs the same n again.
local n, retry, retried = 0, false, {}
function event()
  if retry then retry = false else n = n + 1 end
  if n % 4 == 0 then
    sysbench.event_type("slow")
    ffi.C.usleep(3000)
  elseif n % 4 == 1 then
    sysbench.event_type("fast")
    if n % 8 == 1 and not retried[n] then
      retried[n] = true
      retry = true
      error({ errcode = sysbench.error.RESTART_EVENT })
    end
  end
end
ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")
EOF
run_bmk types.lua --events=400 --threads=1 --results=types.json --hdr-log=types.hlog \
  --percentiles=50,99 run
assert_eq "types: exit 0" 0 "$RC"
assert_contains "types: table header" "$OUT" "Event types (latency in ms):"
assert_match "types: header columns" "$OUT" '^    type +events +errors +rollbacks +tps +min +avg +p50 +p95 +p99 +max$'
assert_match "types: slow row (100 events)" "$OUT" '^    slow +100 +0 +0 '
assert_match "types: fast row (100 events, 50 rollbacks)" "$OUT" '^    fast +100 +0 +50 '
assert_match "types: untyped row (200 events)" "$OUT" '^    event +200 +0 +0 '
slow_p50=$(printf '%s\n' "$OUT" | awk '$1=="slow"{print $8}')
check "types: slow p50 >= 3 ms" awk -v v="$slow_p50" 'BEGIN{exit !(v >= 3.0 && v < 20)}'
check "types: JSON valid" json_ok types.json
assert_eq "types: JSON type names" "['event', 'fast', 'slow']" \
  "$(json_get types.json "sorted(t['name'] for t in d['event_types'])")"
assert_eq "types: JSON counts sum to events" "400 400" \
  "$(json_get types.json "sum(t['events'] for t in d['event_types']), d['summary']['events']")"
assert_eq "types: JSON rollbacks" "50" \
  "$(json_get types.json "[t['rollbacks'] for t in d['event_types'] if t['name']=='fast'][0]")"
cat > onetype.lua <<'EOF'
function event() sysbench.event_type("only") end
EOF
run_bmk onetype.lua --events=50 --threads=1 --results=one.json run
assert_not_contains "one type only: no table" "$OUT" "Event types"
assert_eq "one type only: JSON row" "only 50" \
  "$(json_get one.json "' '.join(str(x) for t in d['event_types'] for x in (t['name'], t['events']))")"

# bad names: a clear error, the run fails like any script error
cat > badtype.lua <<'EOF'
function event() sysbench.event_type(nil) end
EOF
run_bmk badtype.lua --events=5 run
assert_eq "event_type(nil): exit 1" 1 "$RC"
assert_contains "event_type(nil): message" "$OUT" "sysbench.event_type: the name must be a string, got nil"
cat > manytypes.lua <<'EOF'
local n = 0
function event() n = n + 1; sysbench.event_type("t" .. n) end
EOF
run_bmk manytypes.lua --events=100 --threads=1 run
assert_eq "64th event type: exit 1" 1 "$RC"
assert_contains "64th event type: message" "$OUT" "FATAL: sysbench.event_type: cannot register 't64' (at most 63 types of at most 63 bytes)"
assert_contains "64th event type: report kept" "$OUT" "total number of events:              63"

# --latency-limit counts late events: every slow event (3 ms) is late at
# 2 ms, and a fast one only when the machine delayed it (a busy CI lane
# once made 4 of 300 late): at least 100 of 400, the share N / 400
run_bmk types.lua --events=400 --threads=1 --latency-limit=2 run
late=$(printf '%s\n' "$OUT" | sed -n 's/^Latency limit (2\.000 ms): \([0-9]*\) of 400 events late (\([0-9.]*\)%)$/\1 \2/p')
check "latency limit line: every slow event late, the share of 400 ($late)" \
  awk -v n="${late% *}" -v p="${late#* }" 'BEGIN { exit !(n != "" && n >= 100 && n <= 400 && sprintf("%.3f", n / 4) == p) }'
run_bmk types.lua --events=10 --latency-limit=-1 run
assert_eq "latency limit: negative rejected" 1 "$RC"
assert_contains "latency limit: message" "$OUT" "Invalid value for --latency-limit: -1"
run_bmk types.lua --events=10 --results=/nonexistent/dir/r.json run
assert_eq "results: unwritable path exit 1" 1 "$RC"
assert_contains "results: unwritable message" "$OUT" "FATAL: --results: cannot write '/nonexistent/dir/r.json'"

# ---- HDR log decoded by the reference implementation ------------------------
if command -v java >/dev/null && [ -r "$HDRJAR" ]; then
  run_bmk types.lua --events=400 --threads=1 --report-interval=0.1 --percentiles=50,99 \
    --results=t2.json --hdr-log=t2.hlog run
  ref=$(java -cp "$HDRJAR" "$HDRCHECK" log t2.hlog 2>&1)
  p50=$(pct_line 50 "$OUT"); p95=$(pct_line 95 "$OUT"); p99=$(pct_line 99 "$OUT")
  mx=$(printf '%s\n' "$OUT" | awk '$1=="max:"{print $2}')
  assert_match "hdr log: reference count = events" "$ref" "^count 400 intervals [0-9]+ "
  # percentiles exactly as printed; bmk's max is exact, the reference's is
  # the top of its bucket (0.1 %)
  assert_contains "hdr log: reference percentiles = bmk's" "$ref" "p50 $p50 p95 $p95 p99 $p99 max "
  check "hdr log: reference max $(echo "$ref" | awk '{print $NF}') = bmk's $mx (one bucket, 2 decimals)" \
    max_close "$(echo "$ref" | awk '{print $NF}')" "$mx"
  ref=$(java -cp "$HDRJAR" "$HDRCHECK" log t2.hlog slow 2>&1)
  assert_match "hdr log: tagged type histograms sum to the type (slow: 100)" "$ref" "^count 100 intervals [1-9]"
  b64=$(json_get t2.json "d['histogram']['hdr_v2_compressed_base64']")
  ref=$(java -cp "$HDRJAR" "$HDRCHECK" b64 "$b64" 2>&1)
  assert_contains "JSON histogram: reference percentiles = bmk's" "$ref" "count 400 intervals 1 p50 $p50 p95 $p95 p99 $p99 max "
  check "JSON histogram: reference max $(echo "$ref" | awk '{print $NF}') = bmk's $mx (one bucket, 2 decimals)" \
    max_close "$(echo "$ref" | awk '{print $NF}')" "$mx"
  assert_eq "JSON buckets total = events" 400 "$(json_get t2.json "sum(b[2] for b in d['histogram']['buckets'])")"
  # The reporter wakes on a schedule of 0.1 s from the start, never early
  # (a busy machine only wakes it late, and the next interval is shorter):
  # the first ends 0.1 s in or later, and each interval's length is its end
  # minus the previous one's.
  assert_eq "JSON intervals of 0.1 s: the first at 0.1 s or later, each length the time since the previous" ok \
    "$(json_get t2.json "'ok' if d['intervals'][0]['length_s'] >= 0.0999 and all(abs(b['time_s'] - a['time_s'] - b['length_s']) < 1e-6 for a, b in zip([{'time_s': 0}] + d['intervals'], d['intervals'])) else [(i['time_s'], i['length_s']) for i in d['intervals']]")"
else
  not_ok "java and $HDRJAR are required (apt-get install default-jdk-headless libhdrhistogram-java)"
fi

# ---- SIGINT at 3 s of a 30 s run keeps its numbers -----------------------------
cat > sleepy.lua <<'EOF'
ffi = require("ffi")
ffi.cdef("int usleep(unsigned int);")
function event() ffi.C.usleep(1000) end
EOF
"$BMK" sleepy.lua --time=30 --threads=2 --report-interval=1 --results=int.json --hdr-log=int.hlog run \
  > int.out 2>&1 &
pid=$!
# 3 s after the measured part began (however long the start took)
for _ in $(seq 1 3000); do grep -q '^Threads started!' int.out && break; sleep 0.1; done
sleep 3
kill -INT $pid
wait $pid
rc=$?
OUT=$(cat int.out)
assert_eq "SIGINT: exit 130" 130 "$rc"
assert_match "SIGINT: marked interrupted" "$OUT" '^Run interrupted: SIGINT; the report covers [0-9.]+s of measured time\.$'
assert_contains "SIGINT: report printed" "$OUT" "total number of events:"
check "SIGINT: JSON valid" json_ok int.json
assert_eq "SIGINT: JSON summary" "False SIGINT 130" \
  "$(json_get int.json "d['summary']['completed'], d['summary']['interrupted_reason'], d['summary']['exit_code']")"
t=$(json_get int.json "d['summary']['time_s']")
check "SIGINT: JSON covers the 3 s before the interrupt, not the 30 asked ($t)" awk -v t="$t" 'BEGIN{exit !(t >= 2.9 && t < 30)}'
assert_eq "SIGINT: JSON time = the report's time elapsed" "$(report_value "time elapsed:" "$OUT")" \
  "$(json_get int.json "'%.4f' % d['summary']['time_s']")"
ev=$(report_value "total number of events:" "$OUT")
assert_eq "SIGINT: JSON events = report" "$ev" "$(json_get int.json "d['summary']['events']")"
if command -v java >/dev/null && [ -r "$HDRJAR" ]; then
  ref=$(java -cp "$HDRJAR" "$HDRCHECK" log int.hlog 2>&1)
  assert_match "SIGINT: HDR log readable, all events" "$ref" "^count $ev "
fi

# SIGINT during warmup, before the measured part began: both files exist
# and are valid
"$BMK" sleepy.lua --time=10 --warmup-time=5 --results=wu.json --hdr-log=wu.hlog run > wu.out 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
assert_eq "SIGINT in warmup: exit 130" 130 "$?"
check "SIGINT in warmup: JSON valid" json_ok wu.json
assert_contains "SIGINT in warmup: HDR log written" "$(cat wu.hlog 2>/dev/null)" "#[Histogram log format version 1.3]"
if command -v java >/dev/null && [ -r "$HDRJAR" ]; then
  assert_match "SIGINT in warmup: HDR log readable" "$(java -cp "$HDRJAR" "$HDRCHECK" log wu.hlog 2>&1)" "^count [0-9]+ intervals 1 "
fi

# a fatal error in a thread: report and JSON kept, exit 1
cat > dies.lua <<'EOF'
local n = 0
function event()
  n = n + 1
  if n == 200 then error("boom") end
end
EOF
run_bmk dies.lua --threads=1 --time=10 --results=dies.json run
assert_eq "fatal error: exit 1" 1 "$RC"
check "fatal error: JSON valid" json_ok dies.json
assert_eq "fatal error: JSON reason" "fatal error in thread 0" \
  "$(json_get dies.json "d['summary']['interrupted_reason']")"

# ---- against the servers -------------------------------------------------------
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  O=$(opts $db)
  # Reconciliation with the server's counters.
  "$BMK" oltp_write_only $O --tables=2 --table-size=1000 cleanup >/dev/null 2>&1
  "$BMK" oltp_write_only $O --tables=2 --table-size=1000 prepare >/dev/null 2>&1
  # The server's own background commits: MariaDB has none in Com_commit;
  # PostgreSQL's autovacuum/autoanalyze workers commit in this database,
  # so they are kept off these tables for the comparison.
  if [ $db = pgsql ]; then
    pgsql_q "ALTER TABLE sbtest1 SET (autovacuum_enabled = off); ALTER TABLE sbtest2 SET (autovacuum_enabled = off)" >/dev/null
  fi
  run_bmk oltp_write_only $O --tables=2 --table-size=1000 --threads=4 --time=3 \
    --results=rec_$db.json run
  ev=$(report_value "total number of events:" "$OUT")
  commits=$(printf '%s\n' "$OUT" | grep -E '^    commits \(' | awk '{print $3}')
  assert_contains "$db: server-side block" "$OUT" "Server-side statistics ("
  # (autovacuum/autoanalyze of the database's other tables, which other
  # test files leave behind, commit too: the block counts their runs)
  av=$(printf '%s\n' "$OUT" | sed -n 's/^    (autovacuum\/autoanalyze ran \([0-9]*\) time(s) in the window.*/\1/p')
  check "$db: server commits $commits (less autovacuum's ${av:-0}) vs client events $ev within 0.1%" \
    within "$((commits - ${av:-0}))" "$ev" 0.1
  check "$db: reconciliation JSON valid" json_ok rec_$db.json
  assert_eq "$db: JSON server commits = report" "$commits" "$(json_get rec_$db.json "d['server']['commits']")"
  assert_eq "$db: manifest server driver" "$db" "$(json_get rec_$db.json "d['manifest']['server']['driver']")"
  assert_eq "$db: manifest has server settings" "True" \
    "$(json_get rec_$db.json "len(d['manifest']['server']['settings']) >= 3")"
  if [ $db = mysql ]; then
    queries=$(printf '%s\n' "$OUT" | grep -E '^    queries \(Questions\)' | awk '{print $3}')
    q=$(report_value "queries:" "$OUT")
    e=$(report_value "ignored errors:" "$OUT")
    assert_eq "$db: Questions = client queries + ignored errors" "$((q + e))" "$queries"
  fi
  # A sampler that cannot connect is a warning, never a FATAL or a failed
  # run (this script makes a driver but never connects itself).
  cat > noconn.lua <<'EOF'
function thread_init() drv = sysbench.sql.driver() end
function event() end
EOF
  run_bmk noconn.lua $O --$db-port=1 --events=20 --results=noconn.json run
  assert_eq "$db: sampler cannot connect: exit 0" 0 "$RC"
  assert_match "$db: sampler cannot connect: warning" "$OUT" '^WARNING: server statistics: cannot connect: .+; the run goes on'
  assert_not_contains "$db: sampler cannot connect: no FATAL" "$OUT" "FATAL"
  # (`server` then holds only the server cost, which says it found no server)
  assert_eq "$db: sampler cannot connect: events kept, no reconciliation" "20 ['cost'] None" \
    "$(json_get noconn.json "d['summary']['events'], sorted(d['server']), d['server']['cost']['target']")"
  run_bmk oltp_write_only $O --tables=2 --table-size=1000 --threads=2 --time=1 --db-server-stats=off run
  assert_not_contains "$db: --db-server-stats=off" "$OUT" "Server-side statistics"
  "$BMK" oltp_write_only $O --tables=2 --table-size=1000 cleanup >/dev/null 2>&1
done

finish
