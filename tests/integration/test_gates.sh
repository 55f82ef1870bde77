#!/usr/bin/env bash
# Gates that decide (docs/results-db.md "Gates"), on Lua scripts that
# sleep or publish figures (no server needed):
#   - one run a side: a 5x latency regression (20 ms against 100 ms
#     sleeps) fails --fail-if='p99>+10%' from the runs' per-interval
#     histograms (exit 3), and any other percentile (p99.9) as well;
#   - a run compared with itself passes tps and p50 gates (exit 0): no
#     change, within an interval of the run's own interval-to-interval
#     spread (two runs of one command differ by the machine's steadiness
#     between them, which a busy machine does not keep);
#   - runs without intervals: a gate cannot decide (exit 4), its line says
#     what would; --inconclusive=pass and =fail;
#   - every metric compare prints can be gated: tps, qps, errors, pN, and
#     nopm/tpm (figures, repetitions a side from --repeat=2);
#   - --repeat: N processes, files .K, tags repeat=K, the exit-code line,
#     Ctrl-C (SIGINT to the process group) stops after the summary;
#     --repeat on prepare or out of range: exit 1.
# The sleeps set the latencies whatever the machine's load: the checks
# are on order and significance, not on timings.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

export BMK_RESULTS_DB=$WORK/results.db
cat > sleep.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int usec);]]
sysbench.cmdline.options = { sleep_ms = {"milliseconds each event sleeps", 20} }
function event() ffi.C.usleep(sysbench.opt.sleep_ms * 1000) end
LUA
SL="sleep.lua --threads=2 --time=5 --report-interval=1 --save"

# ---- one run a side ------------------------------------------------------------
"$BMK" $SL --sleep-ms=20 --tag=gate=a run > a.out 2>&1
"$BMK" $SL --sleep-ms=100 --tag=gate=b run > b.out 2>&1
assert_eq "two saved runs" "Saved as run 1 Saved as run 2" \
  "$(cat a.out b.out | grep -o '^Saved as run [0-9]*' | tr '\n' ' ' | sed 's/ $//')"
run_bmk compare tag:gate=a tag:gate=b --fail-if='p99>+10%' --fail-if='p99.9>+10%'
assert_eq "p99 x5, one run a side: exit 3" 3 "$RC"
assert_contains "... by the intervals' batch means" "$OUT" "method: batch means of the per-interval samples"
assert_match "... the p99 gate FAILED, significantly" "$OUT" \
  "^FAILED: --fail-if='p99>\\+10%': p99 changed by \\+[0-9.]+% \\(significant\\)$"
assert_match "... p99.9 too (any percentile, from the interval histograms)" "$OUT" \
  "^FAILED: --fail-if='p99.9>\\+10%': p99.9 changed by \\+[0-9.]+% \\(significant\\)$"
assert_match "... a p99.9 row in the table" "$OUT" "^p99.9 ms "

# (limits of 50%: a run's own interval samples decide them even when a
# loaded machine stalled one of its five intervals; at 20% such a run
# was once inconclusive, exit 4)
run_bmk compare tag:gate=a tag:gate=a --fail-if='tps<-50%' --fail-if='p50>+50%'
assert_eq "a run against itself: exit 0" 0 "$RC"
[ "$RC" = 0 ] || printf '%s\n' "$OUT" | grep -E '^(INCONCLUSIVE|FAILED|tps|p50)' | sed 's/^/#   /'
assert_eq "... both gates passed" 2 "$(printf '%s\n' "$OUT" | grep -c '^passed: --fail-if=')"

# ---- too few samples --------------------------------------------------------------
for k in a b; do
  "$BMK" sleep.lua --threads=2 --time=1 --tag=few=$k --save run >/dev/null 2>&1
done
run_bmk compare tag:few=a tag:few=b --fail-if='p99>+10%'
assert_eq "no intervals, one run a side: exit 4 (inconclusive)" 4 "$RC"
assert_match "... the INCONCLUSIVE line says what would decide" "$OUT" \
  "^INCONCLUSIVE: --fail-if='p99>\\+10%': not enough samples to tell: .*(--repeat|intervals)"
assert_not_contains "... no pass said" "$OUT" "passed: --fail-if="
run_bmk compare tag:few=a tag:few=b --fail-if='p99>+10%' --inconclusive=pass
assert_eq "--inconclusive=pass: exit 0" 0 "$RC"
run_bmk compare tag:few=a tag:few=b --fail-if='p99>+10%' --inconclusive=fail
assert_eq "--inconclusive=fail: exit 3" 3 "$RC"
run_bmk compare tag:few=a tag:few=b --fail-if='p99>+10%' --inconclusive=maybe
assert_eq "--inconclusive=maybe: exit 1" 1 "$RC"
run_bmk_split compare --json tag:few=a tag:few=b --fail-if='p99>+10%'
assert_eq "--json: verdicts inconclusive, passed false, what is needed" "inconclusive inconclusive False True" \
  "$(python3 -c 'import json,sys; c=json.loads(sys.argv[1]); g=c["gates"][0]
print(g["verdict"], c["verdict"], c["passed"], bool(g["needed"]))' "$OUT")"

# ---- every metric --------------------------------------------------------------------
# tps and the percentiles change (fail), qps and errors are 0 on both
# sides: no change, known exactly (pass)
run_bmk_split compare --json tag:gate=a tag:gate=b --fail-if='tps<-10%' --fail-if='qps<-10%' \
  --fail-if='errors>+10%' --fail-if='p50>+10%' --fail-if='p95>+10%' --fail-if='p99>+10%' \
  --fail-if='p99.9>+10%'
assert_eq "every metric of a run gated: exit 3" 3 "$RC"
assert_eq "... each decided" "tps:fail qps:pass errors:pass p50:fail p95:fail p99:fail p99.9:fail" \
  "$(python3 -c 'import json,sys; print(" ".join(g["metric"] + ":" + g["verdict"] for g in json.loads(sys.argv[1])["gates"]))' "$OUT")"

# figures: NOPM and TPM of a script that publishes them (one value per
# run: they need repetitions, --repeat=2 a side; each repetition's value
# differs by its number, BMK_REPETITION=K/N)
cat > fig.lua <<'LUA'
sysbench.cmdline.options = { nopm = {"the NOPM figure", 1000} }
function event() end
function sysbench.hooks.measure_end()
  local k = tonumber((os.getenv("BMK_REPETITION") or "1/1"):match("^(%d+)"))
  sysbench.figure("tpcc_nopm", sysbench.opt.nopm + k)
  sysbench.figure("tpcc_tpm", 5000 + k)
end
LUA
run_bmk fig.lua --events=10 --nopm=1000 --repeat=2 --tag=fig=a --save --results=fa.json run
assert_eq "--repeat=2: exit 0" 0 "$RC"
assert_eq "--repeat=2: announced, then the exit codes" \
  "Repetition 1 of 2|Repetition 2 of 2|Repetitions: 2 of 2 ran; exit codes 0 0" \
  "$(printf '%s\n' "$OUT" | grep -E '^Repetition' | tr '\n' '|' | sed 's/|$//')"
assert_eq "--repeat=2: two runs saved" 2 "$(printf '%s\n' "$OUT" | grep -c '^Saved as run ')"
assert_eq "--repeat=2: a results file each, tagged repeat=K, its own figure" \
  "1 1001.0 2 1002.0" \
  "$(for k in 1 2; do json_get fa.$k.json "d['manifest']['tags']['repeat'], d['summary']['figures']['tpcc_nopm']['value']"; done | tr -d "(),'" | tr '\n' ' ' | sed 's/ $//')"
check "--repeat=2: no unsuffixed file" test ! -e fa.json
"$BMK" fig.lua --events=10 --nopm=800 --repeat=2 --tag=fig=b --save run >/dev/null 2>&1
run_bmk_split compare --json tag:fig=a tag:fig=b --fail-if='nopm<-10%' --fail-if='tpm<-10%'
assert_eq "nopm -20%, tpm unchanged: exit 3" 3 "$RC"
assert_eq "... by repetitions; nopm fails, tpm passes" "welch_over_runs tpcc_nopm:fail tpcc_tpm:pass" \
  "$(python3 -c 'import json,sys; c=json.loads(sys.argv[1]); print(c["method"], " ".join(g["metric"] + ":" + g["verdict"] for g in c["gates"]))' "$OUT")"
run_bmk compare tag:fig=a tag:fig=b --fail-if='nopn<-10%'
assert_eq "a gate on a figure no run has (a typo): exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "bmk compare: --fail-if='nopn<-10%': no run of either side has a metric or figure 'nopn'"

# ---- --repeat's edges -----------------------------------------------------------------
run_bmk fig.lua --events=10 --repeat=2 prepare
assert_eq "--repeat with prepare: exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "FATAL: --repeat repeats the 'run' command, not 'prepare'"
run_bmk fig.lua --events=10 --repeat=0 run
assert_eq "--repeat=0: exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "FATAL: --repeat=0: give 1 to 1000 repetitions"
# SIGINT to the process group (a terminal's Ctrl-C) during repetition 1:
# the repetition prints its summary, exits 130, and no other starts
setsid "$BMK" sleep.lua --threads=2 --time=60 --report-interval=1 --repeat=3 run > int.out 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q '^\[ 1s \]' int.out && break; sleep 0.1; done  # hang guard 30 s
kill -INT -- -"$pid"
wait "$pid"; rc=$?
assert_eq "Ctrl-C during --repeat=3: exit 130" 130 "$rc"
assert_contains "... the repetition's summary" "$(cat int.out)" "total number of events:"
assert_contains "... no other repetition" "$(cat int.out)" "Repetitions: 1 of 3 ran; exit codes 130"

finish
