#!/usr/bin/env bash
# Gates and reports over saved runs (docs/results-db.md), on the built-in
# cpu test and a Lua script with two event types (no server needed):
#   - --threshold: met (exit 0, one "passed" line each, the verdicts in
#     --results), missed (exit 3; the report, --results and --save
#     complete), malformed (exit 1 with the grammar, nothing run);
#   - bmk compare --json: the document's fields, exactly, against the
#     saved runs; per-type rows; a violated gate (exit 3, passed false);
#   - bmk report / --merge / --html by run id and by tag; an id that does
#     not exist and a tag that selects nothing (exit 1, said).
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

export BMK_RESULTS_DB=$WORK/results.db
CPU="cpu --cpu-max-prime=2000 --threads=1 --time=1"

# ---- --threshold -------------------------------------------------------------
run_bmk $CPU --threshold='p95<=5s' --threshold='tps>=1' --threshold='errors<=0.1%' \
  --results=pass.json run
assert_eq "thresholds met: exit 0" 0 "$RC"
assert_match "p95 line" "$OUT" "^threshold p95<=5s: [0-9.e+-]+ s — passed$"
assert_match "tps line" "$OUT" "^threshold tps>=1: [0-9.]+/s — passed$"
assert_match "errors line" "$OUT" "^threshold errors<=0.1%: 0% — passed$"
assert_eq "--results: three verdicts, all passed" "[True, True, True]" \
  "$(json_get pass.json "[t['passed'] for t in d['thresholds']]")"
assert_eq "--results: the tps verdict's value is the summary's" True \
  "$(json_get pass.json "abs(d['thresholds'][1]['value'] - d['summary']['tps']) < 1e-6 * d['summary']['tps']")"
check "--results with thresholds: valid against the schema" json_ok pass.json

run_bmk $CPU --threshold='p99<=10s' --threshold='tps>=1e12' --results=fail.json --save \
  --tag=gate=missed run
assert_eq "a threshold missed: exit 3" 3 "$RC"
assert_match "the missed one says FAILED" "$OUT" "^threshold tps>=1e12: [0-9.]+/s — FAILED$"
assert_match "the met one still passes" "$OUT" "^threshold p99<=10s: [0-9.e+-]+ s — passed$"
assert_contains "missed: the report is complete" "$OUT" "total number of events:"
assert_eq "missed: --results has the verdicts and exit code 3" "[True, False] 3" \
  "$(json_get fail.json "[t['passed'] for t in d['thresholds']], d['summary']['exit_code']")"
assert_match "missed: the run is saved all the same" "$OUT" "^Saved as run 2 in "

for bad in 'p95<=fast' 'latency<5ms' 'tps>=5ms' 'p95=5' 'p101<1' 'errors<1h' 'errors_per_s<1%'; do
  run_bmk $CPU --threshold='tps>=1' "--threshold=$bad" --results=bad.json run
  assert_eq "--threshold='$bad': exit 1" 1 "$RC"
  assert_contains "--threshold='$bad': names it" "$OUT" "FATAL: --threshold='$bad': "
  assert_contains "--threshold='$bad': gives the grammar" "$OUT" "A threshold is METRIC OP VALUE[UNIT]"
  assert_not_contains "--threshold='$bad': nothing run" "$OUT" "total number of events:"
  check "--threshold='$bad': no result file" test ! -e bad.json
done

# ---- bmk compare --json -------------------------------------------------------
cat > types.lua <<'LUA'
local n = 0
function event()
  n = n + 1
  sysbench.event_type(n % 2 == 0 and "even" or "odd")
  local x = 0
  for i = 1, 300 do x = x + i end
end
LUA
for k in a b; do
  "$BMK" types.lua --threads=1 --time=3 --report-interval=1 --tag=k=$k --save run >/dev/null 2>&1
done
# runs 1 and 2 are the thresholds' runs (BMK_RESULTS_DB saves), 3 and 4 these
"$BMK" runs export 3 > r3.json
"$BMK" runs export 4 > r4.json
run_bmk_split compare --json tag:k=a 4
assert_eq "compare --json: exit 0" 0 "$RC"
cat > check_compare.py <<'PY'
import json, sys
c = json.loads(sys.argv[1]); a = json.load(open("r3.json")); b = json.load(open("r4.json"))
def et(d, name): return [t for t in d["event_types"] if t["name"] == name][0]
ok = c["format"] == "bmk-compare" and c["format_version"] == 2
ok &= c["a"]["spec"] == "tag:k=a" and c["a"]["run_count"] == 1 and c["a"]["runs"] == [{"id": 3, "file": None}]
ok &= c["b"]["spec"] == "4" and c["b"]["runs"] == [{"id": 4, "file": None}] and c["b"]["test"] == "types"
ok &= c["method"] == "batch_means" and c["confidence"] == 0.95
rows = [(m["metric"], m["event_type"]) for m in c["metrics"]]
ok &= rows == [("tps", None), ("qps", None), ("p50", None), ("p95", None), ("p99", None),
               ("errors", None), ("tps", "odd"), ("p95", "odd"), ("tps", "even"), ("p95", "even")]
m = c["metrics"]
ok &= m[0]["a"] == a["summary"]["tps"] and m[0]["b"] == b["summary"]["tps"] and m[0]["unit"] == "events/s"
ok &= m[6]["a"] == et(a, "odd")["tps"] and m[9]["b"] == et(b, "even")["latency_ms"]["p95"]
ok &= m[3]["unit"] == "ms"
for r in m:
    ok &= r["verdict"] in ("faster", "slower", "within noise", "not enough samples")
    if r["change_pct"] is not None:
        ok &= r["ci95_low_pct"] <= r["change_pct"] <= r["ci95_high_pct"]
        ok &= r["significant"] == (r["ci95_low_pct"] > 0 or r["ci95_high_pct"] < 0)
ok &= c["gates"] == [] and c["verdict"] == "pass" and c["passed"] is True
print(ok)
PY
assert_eq "compare --json: every field as the saved runs have it" True \
  "$(python3 check_compare.py "$OUT")"

run_bmk_split compare --json 3 3 --ignore-noise --fail-if='tps<+1%'
assert_eq "compare --json with a violated gate: exit 3" 3 "$RC"
assert_eq "the gate in the document" \
  "[{'gate': 'tps<+1%', 'metric': 'tps', 'limit_pct': 1.0, 'change_pct': 0.0, 'verdict': 'fail', 'violated': True, 'needed': None}] fail False 0.0" \
  "$(python3 -c 'import json,sys; c=json.loads(sys.argv[1]); print(c["gates"], c["verdict"], c["passed"], c["metrics"][0]["change_pct"])' "$OUT")"
assert_eq "compare --json: nothing but the document on stdout" True \
  "$(python3 -c 'import json,sys; json.loads(sys.argv[1]); print(True)' "$OUT")"
run_bmk_split compare --json 1 3
assert_eq "cpu against types: no per-type rows" 6 \
  "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["metrics"]))' "$OUT")"

# ---- bmk report by run id and tag ---------------------------------------------
run_bmk report 3 tag:k=b
assert_eq "report by id and tag: exit 0" 0 "$RC"
assert_match "report by id and tag: both runs in the table" "$OUT" "^Series table: runs of types, 2 runs$"
run_bmk report --html=ids.html 3,4
assert_eq "report --html by ids: exit 0" 0 "$RC"
# bmk compare --html: the report's page for both sides, headed by one
# chart of their runs overlaid (a line per run, named A 1 and B 1)
run_bmk compare --html=cmp.html tag:k=a 4
assert_eq "compare --html: exit 0, says where" "0 1" "$RC $(printf '%s\n' "$OUT" | grep -c '^Charts written to cmp.html$')"
assert_eq "compare --html: the report's charts and the overlay" \
  "$(( $(grep -c '<figure class="chart"' ids.html) + 1 ))" "$(grep -c '<figure class="chart"' cmp.html)"
assert_match "compare --html: the overlay first, naming both sides" \
  "$(grep -o '<figcaption>[^<]*' cmp.html | head -1)" '^<figcaption>A \(tag:k=a, blue\) against B \(4, red\)'
assert_eq "compare --html: a line for each run" "A 1 B 1" \
  "$(grep -o '>[AB] 1<' cmp.html | sort -u | tr -d '<>' | tr '\n' ' ' | sed 's/ $//')"
check "report --html by ids: the page" grep -q "<svg" ids.html
# two runs at the same time (one --sync-file barrier): runs 5 and 6
touch sync
for i in 1 2; do
  "$BMK" $CPU --sync-file=sync --tag=k=m run >/dev/null 2>&1 &
done
sleep 0.5; rm -f sync; wait
"$BMK" runs export 5 > r5.json
"$BMK" runs export 6 > r6.json
run_bmk report --merge --output=m.json tag:k=m
assert_eq "report --merge by tag: exit 0" 0 "$RC"
assert_contains "report --merge: the runs named by their ids" "$OUT" "run 6: host "
assert_eq "the merged file holds both runs' events" \
  "$(python3 -c 'import json; print(sum(json.load(open(f))["summary"]["events"] for f in ("r5.json", "r6.json")))')" \
  "$(json_get m.json "d['summary']['events']")"
run_bmk report 3 99
assert_eq "report of a run that does not exist: exit 1" 1 "$RC"
assert_contains "report of a run that does not exist: says so" "$OUT" \
  "bmk report: no run 99 in the results database"
run_bmk report tag:k=zzz
assert_eq "report of a tag that selects nothing: exit 1" 1 "$RC"
assert_contains "report of a tag that selects nothing: says so" "$OUT" \
  "bmk report: 'tag:k=zzz' selects no run in the results database"

# a figure of the run by its name: the cpu test publishes none, so one
# named is not measured: the gate cannot decide (exit 4, not a pass)
run_bmk $CPU --threshold='no_such_figure>=1' run
assert_eq "a figure the run does not have: exit 4" 4 "$RC"
assert_match "... not measured, INCONCLUSIVE" "$OUT" \
  "^threshold no_such_figure>=1: not measured — INCONCLUSIVE \\(the run did not measure it\\)$"

# A percentile from too few events: the distribution-free 95% interval of
# the 99th percentile of 5 events runs past the slowest, so however fast
# they were, 'p99<=10s' cannot be told (exit 4); --inconclusive says what
# that means instead. From 2,000 events the same gate decides (passed).
run_bmk $CPU --events=5 --threshold='p99<=10s' run
assert_eq "p99 of 5 events: exit 4" 4 "$RC"
assert_match "p99 of 5 events: INCONCLUSIVE, why and what decides" "$OUT" \
  "^threshold p99<=10s: [0-9.e+-]+ s — INCONCLUSIVE \\(its 95% interval from 5 events, [0-9.e+-]+ s to past the slowest event, holds the limit: a longer run would decide\\)$"
for how in pass:0 fail:3 exit:4; do
  run_bmk $CPU --events=5 --threshold='p99<=10s' --inconclusive=${how%%:*} run
  assert_eq "p99 of 5 events, --inconclusive=${how%%:*}: exit ${how##*:}" "${how##*:}" "$RC"
done
run_bmk $CPU --events=5 --threshold='p99<=10s' --inconclusive=maybe run
assert_eq "--inconclusive=maybe: exit 1" 1 "$RC"
assert_contains "--inconclusive=maybe: says so" "$OUT" "FATAL: --inconclusive='maybe': give exit, pass or fail"
run_bmk $CPU --time=0 --events=2000 --threshold='p99<=10s' --results=inc.json run
assert_eq "p99 of 2,000 events: exit 0" 0 "$RC"
assert_match "p99 of 2,000 events: passed" "$OUT" "^threshold p99<=10s: [0-9.e+-]+ s — passed$"
assert_eq "p99 of 2,000 events: the verdict in --results" pass \
  "$(json_get inc.json "d['thresholds'][0]['verdict']")"

# errors_per_s: errors per second under the field's name
run_bmk $CPU --threshold='errors_per_s<=1' run
assert_eq "errors_per_s: exit 0" 0 "$RC"
assert_match "errors_per_s: its line" "$OUT" "^threshold errors_per_s<=1: 0.00/s — passed$"

finish
