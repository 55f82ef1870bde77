#!/usr/bin/env bash
# The load generator measures the server, not itself (docs/results.md
# "The client's own CPU"): a saturated event-loop worker is named in the
# interval lines, the final warning, --results, --hdr-log and the metrics
# page, and an idle one never; SQL calls that block an event-loop worker
# are counted exactly; bmk series marks a client-limited run; the sysbench
# persona keeps one thread per virtual user and prints no line of bmk's.
#
# Saturation is judged on the time a worker was runnable (on a CPU or
# queued for one), so the checks hold whatever share of the machine the
# test gets: the busy script never lets its worker sleep, the idle one
# sleeps 0.1 s between events.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

jget() {  # jget FILE EXPR: a Python expression on the document `d`
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# ---- a worker that never waits: saturated in every interval ----------------------
cat > busy.lua <<'LUA'
function event()
  local x = 0
  for i = 1, 20000 do x = x + i % 7 end
  if x < 0 then print(x) end
end
LUA
run_bmk busy.lua --threads=8 --workers=1 --time=3 --report-interval=1 \
  --results=busy.json --hdr-log=busy.hlog run
assert_eq "busy worker: exit 0" 0 "$RC"
lines=$(printf '%s\n' "$OUT" | grep -c '^\[ [0-9]*s \] thds:')
sat=$(printf '%s\n' "$OUT" | grep -c '^\[ [0-9]*s \] client saturated: an event-loop worker busy')
check "busy worker: interval lines printed ($lines)" test "$lines" -ge 2
assert_match "busy worker: the saturation line names bmk, not the server" "$OUT" \
  '^\[ [0-9]+s \] client saturated: an event-loop worker busy [0-9]+% of the time \(on a CPU [0-9]+%\), bmk [0-9.]+ of [0-9]+ CPUs: bmk, not the server, limited this interval$'
check "busy worker: the document validates" json_ok busy.json
if asan_pass; then
  skip "busy worker: saturated in every interval" "in the ASan pass one of 3 intervals was once judged unsaturated beside four busy lanes; checked in the normal pass"
else
  assert_eq "busy worker: every interval says the client was saturated" "$lines" "$sat"
  assert_match "busy worker: the final warning" "$OUT" \
    "^WARNING: the load generator limited this run: bmk itself was saturated in $lines of $lines intervals .*8 virtual users on 1 event-loop worker thread"
  assert_eq "busy worker: --results summary" "True $lines $lines event 1" \
    "$(jget busy.json "d['summary']['client']['saturated'], d['summary']['client']['saturated_intervals'], d['summary']['client']['intervals'], d['summary']['client']['engine'], d['summary']['client']['workers']")"
  assert_eq "busy worker: every interval row saturated" "$lines" \
    "$(jget busy.json "sum(1 for i in d['intervals'] if i['client']['saturated'])")"
  check "busy worker: the busiest worker was runnable at least 90% of each interval" \
    test "$(jget busy.json "all(i['client']['busiest_worker'] >= 0.9 for i in d['intervals'])")" = True
  assert_eq "busy worker: one --hdr-log comment per saturated interval" "$lines" \
    "$(grep -c '^#\[client saturated: cpu [0-9.]* of [0-9]*, busiest worker [0-9.]*\]$' busy.hlog)"
fi

# ---- a worker that sleeps: never saturated ------------------------------------------
cat > idle.lua <<'LUA'
function event() sysbench.sleep(0.1) end
LUA
run_bmk idle.lua --threads=4 --workers=1 --time=3 --report-interval=1 --results=idle.json run
assert_eq "idle worker: exit 0" 0 "$RC"
assert_not_contains "idle worker: no saturation line" "$OUT" "client saturated"
assert_not_contains "idle worker: no warning" "$OUT" "load generator limited"
assert_eq "idle worker: --results says not saturated" "False 0" \
  "$(jget idle.json "d['summary']['client']['saturated'], d['summary']['client']['saturated_intervals']")"
# built-in tests are the client's own work: never judged
run_bmk cpu --threads=2 --workers=1 --time=2 --results=cpu.json run
assert_eq "built-in cpu test: the client is not judged" "None False" \
  "$(jget cpu.json "d['summary']['client']['engine'], d['summary']['client']['saturated']")"

# ---- bmk series / report: a client-limited run is marked --------------------------------
run_bmk report busy.json idle.json
assert_eq "bmk report: exit 0" 0 "$RC"
assert_match "bmk report: the saturated run's row is marked !" "$OUT" '^ +8! '
assert_match "bmk report: the idle run's row is not" "$OUT" '^ +4  '
assert_contains "bmk report: what ! means" "$OUT" "! bmk itself was saturated"

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  # ---- SQL calls that block the worker: counted exactly -----------------------------
  cat > blocking.lua <<'LUA'
local ffi = require("ffi")
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  -- the C call through the FFI waits in place: it blocks the worker
  local rs = ffi.C.db_query(con, "SELECT 1", 8)
  ffi.C.db_free_results(rs)
  -- the same through sysbench.sql.raw waits on the loop
  rs = sysbench.sql.raw.query(con, "SELECT 2", 8)
  ffi.C.db_free_results(rs)
end
function thread_done() con:disconnect() end
LUA
  run_bmk blocking.lua $O --threads=4 --workers=1 --events=100 --time=0 --results=blk.json run
  assert_eq "$db blocking FFI calls: exit 0" 0 "$RC"
  assert_eq "$db blocking FFI calls: counted exactly" 100 \
    "$(jget blk.json "d['summary']['client']['loop_blocking_calls']")"
  assert_contains "$db blocking FFI calls: the warning" "$OUT" \
    "WARNING: 100 SQL call(s) waited in place and blocked an event-loop worker"
  assert_eq "$db blocking FFI calls: both statements ran" 200 "$(report_value "read:" "$OUT")"
  run_bmk blocking.lua $O --threads=4 --workers=threads --events=100 --time=0 --results=blk.json run
  assert_eq "$db thread mode: nothing blocks a loop" "threads 0" \
    "$(jget blk.json "d['summary']['client']['engine'], d['summary']['client']['loop_blocking_calls']")"
  assert_not_contains "$db thread mode: no warning" "$OUT" "blocked an event-loop worker"
done

# ---- the sysbench persona: one thread per virtual user, no line of bmk's -----------
ln -sf "$BMK" "$WORK/sysbench"
OUT=$("$WORK/sysbench" busy.lua --threads=32 --time=1 --report-interval=1 --results=p.json run 2>&1)
assert_not_contains "persona: no Virtual users line" "$OUT" "Virtual users"
assert_not_contains "persona: no client saturation line" "$OUT" "client saturated"
assert_not_contains "persona: no client warning" "$OUT" "load generator limited"
assert_eq "persona: 32 VUs on 32 threads" "threads 32" \
  "$(jget p.json "d['summary']['client']['engine'], d['summary']['client']['workers']")"
OUT=$("$WORK/sysbench" busy.lua --threads=32 --workers=2 --time=1 run 2>&1)
assert_contains "persona: --workers given still runs the event loop" "$OUT" \
  "Virtual users: 32 on 2 worker threads (event loop)"

finish
