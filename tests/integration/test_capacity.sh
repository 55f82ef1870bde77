#!/usr/bin/env bash
# bmk capacity (docs/capacity.md "bmk capacity") against MariaDB: a server
# whose capacity does not depend on the number of VUs (every event holds
# one row lock ~5 ms, so all events are serialised); the open-loop search
# (growth then bisection, answer against the measured capacity, every
# table row equal to its step's --results file, the search's JSON and
# --html page, the verdict "saturated" wherever the achieved rate falls
# short), a rate far above the capacity reported saturated, an SLO no rate
# can meet (exit 3), users mode (with the steps saved in a results
# database), bad input (exit 1, nothing run) and Ctrl-C (exit 130, the
# table so far); then PostgreSQL: users mode on the same lock (doubling
# then bisection), and users mode on oltp_point_select on both databases
# (every row equal to its step's file). About 60 s of wall time.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

cap() { OUT=$(timeout -k 5 150 "$BMK" capacity "$@" 2>&1); RC=$?; }

# ---- bad input: exit 1, nothing run ----------------------------------------------
cap --slo='p99<=20' --results-dir=bad -- bmk oltp_point_select run
assert_eq "SLO without a unit: exit 1 and why" \
  "1:bmk capacity: --slo='p99<=20': the bound needs a unit (us, ms or s), e.g. p99<=20ms" \
  "$RC:$(printf '%s\n' "$OUT" | head -1)"
cap --slo='p77<=20ms' --results-dir=bad -- bmk oltp_point_select run
assert_eq "unknown percentile: exit 1 and why" \
  "1:bmk capacity: --slo='p77<=20ms': unknown latency 'p77' (p50, p90, p95, p99, p999, max or avg)" \
  "$RC:$(printf '%s\n' "$OUT" | head -1)"
cap --slo='p99<=20ms' --start-rate=500 --max-rate=100 --results-dir=bad -- bmk oltp_point_select run
assert_eq "start rate above --max-rate: exit 1 and why" \
  "1:bmk capacity: --start-rate=500 is above --max-rate=100" "$RC:$(printf '%s\n' "$OUT" | head -1)"
cap --results-dir=bad -- bmk oltp_point_select run
assert_contains "no --slo: exit 1" "$RC:$OUT" "1:bmk capacity: at least one --slo is required"
check "bad input ran nothing (no results directory)" test ! -e bad

if ! mysql_q "SELECT 1" >/dev/null 2>&1; then
  skip "capacity searches" "no MariaDB sandbox on port $MYSQL_PORT"
  finish; exit
fi

# every event serialises on one row lock held ~5 ms (tools/cap_lock.lua)
cp "$TOP/tests/integration/fixtures/cap_lock.lua" lock.lua
run_bmk lock.lua $MYSQL_OPTS prepare
assert_eq "lock table prepared" 0 "$RC"

# rows_equal DIR OUT: every table row (step, VUs, tps, p50/p95/p99/max,
# errors/s) equals what its step's --results file DIR/NN-*.json says
# (percentiles from the file's HDR buckets, the reader's rule: the highest
# value of the bucket holding the ceil(p% x total)-th event).
cat > rows_equal.py <<'EOF'
import glob, json, math, re, sys
def pct(h, p):
    b = h["buckets"]; total = sum(x[2] for x in b)
    need, c = max(1, math.ceil(p / 100 * total)), 0
    for lo, hi, n in b:
        c += n
        if c >= need: return hi / 1e6
bad, n = [], 0
for line in sys.stdin:
    if not re.match(r"^\s+\d+ (growth|bisect|down) ", line): continue
    r = line.split(); n += 1
    d = json.load(open(glob.glob("%s/%02d-*.json" % (sys.argv[1], int(r[0])))[0]))
    s, h = d["summary"], d["histogram"]
    exp = ["%d" % s["threads"], "%.1f" % s["tps"]] + ["%.3f" % pct(h, p) for p in (50, 95, 99, 100)] \
        + ["%.2f" % (s["errors"] / s["time_s"])]
    if r[3:10] != exp: bad.append("step %s: table %s, file %s" % (r[0], r[3:10], exp))
print("%d rows" % n if not bad and n else "; ".join(bad) or "no rows")
EOF
rows_equal() { printf '%s\n' "$2" > rows.txt; python3 rows_equal.py "$1" < rows.txt; }
# phases OUT: the phase column of the table, one word per row.
phases() { printf '%s\n' "$1" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^(growth|bisect|down)$/ { printf "%s ", $2 }'; }

# ---- the capacity, measured closed-loop with 8 VUs -----------------------------------
run_bmk lock.lua $MYSQL_OPTS --threads=8 --time=2 run
CAPTPS=$(printf '%s\n' "$OUT" | sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p')
check "closed-loop capacity measured ($CAPTPS tps)" awk -v c="$CAPTPS" 'BEGIN { exit !(c > 20) }'
START=$(awk -v c="$CAPTPS" 'BEGIN { printf "%d", c / 4 }')

# ---- the open-loop search ---------------------------------------------------------------
# --precision=15 and --max-repeats=1 keep it to ~7 steps of 3 s.
cap --slo='p99<=250ms' --step-time=2 --step-warmup=1 --start-rate="$START" --precision=15 \
  --max-repeats=1 --max-steps=9 --id=cap1 --results-dir=cap1 --results=cap1.json \
  --html=cap1.html -- bmk lock.lua $MYSQL_OPTS --threads=8 run
assert_eq "search: exit 0" 0 "$RC"
ANS=$(printf '%s\n' "$OUT" | sed -n 's/^max sustainable: \([0-9.]*\) tps (achieved [0-9.]*) at p99 [0-9.]* ms (SLO p99<=250ms).*/\1/p')
# The answer's distance to the measured capacity depends on the machine's
# CPU share during each 2 s step (a shared 2-core machine running three
# test passes moves it by tens of percent), so CI asserts the search's
# logic exactly instead (bench/capacity_search.sh prints the distance):
# every "pass" row meets the SLO and every "fail" row misses it, by the
# table's numbers (equal to the files, checked below; a repeated step is
# decided by its pooled runs); the answer is the
# highest passing rate; the range line names it and the lowest rate above
# it that did not pass.
check "search: verdicts follow the SLO, the answer is the highest pass ($ANS tps)" \
  python3 - "$ANS" <<EOF
import re, sys
rows = [l.split() for l in '''$OUT'''.splitlines() if re.match(r"^\s+\d+ (growth|bisect|down) ", l)]
# step phase rate VUs tps p50 p95 p99 max err/s backlog cpu/tx verdict...
# (a verdict "(repeated n)" is the pooled runs', not this row's alone)
ok = all((float(r[7]) <= 250) == (r[12] == "pass") for r in rows
         if r[12] in ("pass", "fail") and len(r) == 13)
passes = [float(r[2]) for r in rows if r[12] == "pass"]
# (noise and all-VUs-busy rows are runs repeated, not verdicts; the last
# one may be cut short by --max-steps)
above = [float(r[2]) for r in rows if r[12] not in ("pass", "noise", "all-VUs-busy") and passes and float(r[2]) > max(passes)]
rng = re.search(r"^range: passes at ([0-9.]+), fails at ([0-9.]+) tps", '''$OUT''', re.M)
ok = ok and passes and float(sys.argv[1]) == max(passes) and rng is not None
ok = ok and float(rng.group(1)) == max(passes) and (not above or float(rng.group(2)) == min(above))
if not ok: print("\n".join(" ".join(r) for r in rows), file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
# (a stalled machine can fail the start rate itself: then steps go down
# before the bisection, as the search is meant to)
assert_match "search: growth steps then bisection" "$(phases "$OUT")" '^(growth )+(down )*(bisect )+$'
assert_match "search: the first step at the start rate" "$OUT" "^   1 growth +$START "
assert_match "search: the range line" "$OUT" '^range: passes at [0-9.]+, fails at [0-9.]+ tps; [0-9]+ steps, [0-9]+ repeats'
assert_not_contains "search: the client is not blamed" "$OUT" "client-limited"
ROWS=$(rows_equal cap1 "$OUT")
assert_match "search: every row equals its --results file" "$ROWS" '^[0-9]+ rows$'
check "search: --results JSON with every step and the answer" python3 - cap1.json "$ANS" "$(phases "$OUT" | wc -w)" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "bmk-capacity" and d["answer"]["found"] is True
assert "%g" % d["answer"]["max_sustainable"] == sys.argv[2], d["answer"]
assert len(d["steps"]) == int(sys.argv[3]) and d["slos"][0]["text"] == "p99<=250ms"
EOF
# "saturated" exactly where the rule says (docs/capacity.md): a row's
# achieved rate short of its target by more than max(5%, 3 Poisson
# standard deviations of target x 2 s) is saturated whatever its latency
# (the backlog rule can add more saturated rows, never fewer). A short
# step in which bmk's own CPU was the limit says so instead
# (`client-cpu`: the TSan build, 5-15 times slower, once was at 168/s).
check "search: every step short of its rate is reported saturated" python3 - <<EOF
import math, re, sys
rows = [l.split() for l in '''$OUT'''.splitlines() if re.match(r"^\s+\d+ (growth|bisect|down) ", l)]
bad = [r for r in rows if len(r) == 13 and float(r[4]) < float(r[2]) * (1 - max(0.05, 3 / math.sqrt(float(r[2]) * 2)))
       and r[12] not in ("saturated", "noise", "all-VUs-busy", "client-cpu")]
if bad: print(bad, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
# a failing step whose smaller pool was all busy is run again at the same
# rate with 4 times the VUs (docs/capacity.md "Enough users")
check "search: an all-VUs-busy step is run again with more VUs" python3 - <<EOF
import re, sys
rows = [l.split() for l in '''$OUT'''.splitlines() if re.match(r"^\s+\d+ (growth|bisect|down) ", l)]
maxed = re.search(r"^range: .*; --max-steps reached$", '''$OUT''', re.M) is not None
bad = [r for i, r in enumerate(rows) if r[12] == "all-VUs-busy"
       and not (i + 1 < len(rows) and rows[i + 1][2] == r[2] and int(rows[i + 1][3]) > int(r[3]))
       and not (i + 1 == len(rows) and maxed)]
bad += [r for r in rows if r[12] == "all-VUs-busy" and float(r[3]) / max(float(r[4]), 1e-9) >= 0.25]
if bad:
    # the whole search, to tell why (a step that failed to run, the last step)
    print(bad, file=sys.stderr)
    print('\n'.join('    | ' + l for l in '''$OUT'''.splitlines()[-40:]), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
cmp -s cap1.json cap1/capacity.json
check "search: the document also in the steps' directory" test $? = 0
check "search: --html page: the search's chart, one per step, the answer" python3 - cap1.html "$(phases "$OUT" | wc -w)" <<'EOF'
import re, sys
h = open(sys.argv[1]).read()
figs = re.findall(r'<figure class="chart"', h)
assert len(figs) == 1 + int(sys.argv[2]), (len(figs), sys.argv[2])
assert "<h1>bmk capacity</h1>" in h and "against offered rate" in h
assert re.search(r"<pre[^>]*>max sustainable: [0-9.]+ tps", h)
assert h.count("<svg") == len(figs)
EOF
check "search: steps carry the series id" python3 -c "
import json,glob; assert all(json.load(open(f))['manifest']['series_id']=='cap1' for f in glob.glob('cap1/[0-9]*.json'))"

# ---- a rate three times the measured capacity: saturated, not the client ----------
# (1 step; the server completes at most the capacity whatever the VUs, so
# the achieved rate is about a third of the target)
cap --slo='p99<=250ms' --step-time=1 --step-warmup=0 --start-rate="$(awk -v c="$CAPTPS" 'BEGIN { printf "%d", 3 * c }')" \
  --max-steps=1 --max-repeats=0 --results-dir=sat -- bmk lock.lua $MYSQL_OPTS --threads=8 run
assert_eq "3x the capacity: no rate met (exit 3)" 3 "$RC"
# (saturated, or client-cpu when bmk's own share of a machine running five
# test lanes was the limit, as the rule says: a CI lane once had its 504
# VUs judged so; the client is blamed only then)
assert_match "3x the capacity: reported saturated (or bmk's own CPU the limit)" "$OUT" \
  '^   1 growth +[0-9]+ .* (saturated|client-cpu)$'
if printf '%s\n' "$OUT" | grep -qE '^   1 growth .* client-cpu$'; then
  assert_contains "3x the capacity: bmk's own CPU named as the limit" "$OUT" "note: bmk itself was saturated"
else
  assert_not_contains "3x the capacity: the client is not blamed" "$OUT" "client"
fi

# ---- an SLO no rate can meet: exit 3 (the trial run chooses the start rate) -------------
cap --slo='p99<=0.01ms' --step-time=2 --step-warmup=1 --results-dir=imp -- bmk lock.lua $MYSQL_OPTS --threads=8 run
assert_eq "impossible SLO: exit 3" 3 "$RC"
assert_match "impossible SLO: the trial run ran" "$OUT" 'trial run: [0-9.]+ tps, p99 [0-9.]+ ms; start rate [0-9.]+ \(25%\)'
assert_match "impossible SLO: says so" "$OUT" "^no rate met the SLO \(p99<=0.01ms\); lowest tried: .*no lower load can meet it$"

# ---- users mode: doubling then bisection ---------------------------------------------------
# k users in a closed loop on the one lock each wait about k event times.
# Here each event holds the lock 50 ms (the server's sleep), then sleeps
# 20 ms outside it (--after-ms: a VU cannot take the row again before the
# waiter PostgreSQL woke; see fixtures/cap_lock.lua). Once the lock is
# always busy (2 users or more) an event lasts k holds, so 3 and 4 users
# take at least 150 and 200 ms, above the median bound of 145 ms. That is
# a lower bound made of the server's sleeps: a slower machine only
# lengthens the events, so "no step of 3 users passes" holds whatever its
# speed. 1 and 2 users (70 and 100 ms) pass unless the client and the
# round trips add more than 45 ms per event, a margin no loaded machine
# has come near. tools/capacity_users_rules.py checks the search against
# its own table, whatever the machine's speed: each verdict from its
# row's p50, doubling while passing, bisection between the highest pass
# and the lowest fail, where it stops, and the answer.
USLO="p50<=145ms"
users_rules() { printf '%s\n' "$1" | python3 "$TOP/tests/integration/tools/capacity_users_rules.py" 145 6; }
no_pass_from_3() {  # on failure prints the table, the figures to explain it
  printf '%s\n' "$1" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^(growth|bisect)$/ && $3 >= 3 && $NF == "pass" { f = 1 } END { exit f }' \
    && return 0
  printf '%s\n' "$1" | grep -E '^ +[0-9]+ (growth|bisect) ' | sed 's/^/# /'
  return 1
}
BMK_RESULTS_DB=$WORK/cap.db cap --mode=users --slo="$USLO" --step-time=1 --step-warmup=0 \
  --max-steps=6 --max-repeats=0 --id=users --results-dir=users -- bmk lock.lua $MYSQL_OPTS --hold-ms=50 --after-ms=20 run
assert_eq "users: exit 0" 0 "$RC"
NSTEPS=$(phases "$OUT" | wc -w)
assert_contains "users: says where the steps are saved" "$OUT" \
  "=> capacity users: its steps are saved in the results database as series users"
assert_eq "users: every step saved in the results database as the series" "$NSTEPS" \
  "$(BMK_RESULTS_DB=$WORK/cap.db "$BMK" runs list --series=users 2>&1 | grep -c ' lock ')"
assert_match "users: the search's rules against its own table" "$(users_rules "$OUT")" '^rules kept: '
check "users: no step of 3 users or more passes (each waits at least 150 ms)" no_pass_from_3 "$OUT"
ROWS=$(rows_equal users "$OUT")
assert_match "users: every row equals its --results file" "$ROWS" '^[0-9]+ rows$'
assert_match "users: the answer" "$OUT" "^max sustainable: [0-9]+ users \\([0-9.]+ tps\\) at p50 [0-9.]+ ms \\(SLO $USLO\\)"

# ---- Ctrl-C: the table so far, exit 130 --------------------------------------------------
# Step 1's verdict depends on the machine's share (the TSan pass saw p99
# 279 ms at a quarter of the capacity beside other jobs, and once 520
# VUs starting too slowly for the rate: saturated); what is checked is
# that the table holds step 1 with a verdict and the answer follows it.
python3 "$TOP/tests/integration/tools/interrupt.py" "$WORK/int.out" "step 1 (growth)" \
  "$BMK" capacity --slo='p99<=5s' --step-time=2 --step-warmup=0 --start-rate="$START" \
  --results-dir=int --id=int -- bmk lock.lua $MYSQL_OPTS run > int.rc
OUT=$(cat int.out)
assert_eq "Ctrl-C: exit 130" 130 "$(cat int.rc)"
assert_contains "Ctrl-C: says so" "$OUT" "=> capacity int: interrupted; the table holds the steps done"
assert_match "Ctrl-C: the table with step 1" "$OUT" "^   1 growth +$START .* (pass|fail|saturated)$"
v1=$(printf '%s\n' "$OUT" | awk -v r="$START" '$1 == 1 && $2 == "growth" && $3 == r { print $NF; exit }')
if [ "$v1" = pass ]; then
  assert_match "Ctrl-C: the best answer known (step 1 passed)" "$OUT" "^max sustainable: $START tps \(achieved [0-9.]+\) at p99 "
else
  assert_match "Ctrl-C: the best answer known (step 1: $v1)" "$OUT" "^no rate met the SLO \(p99<=5s\); lowest tried: $START tps"
fi

# ---- PostgreSQL and oltp_point_select ------------------------------------------------
if ! pgsql_q "SELECT 1" >/dev/null 2>&1; then
  skip "capacity searches on PostgreSQL" "no PostgreSQL sandbox on port $PGSQL_PORT"
  finish; exit
fi
run_bmk lock.lua $PGSQL_OPTS prepare
assert_eq "PostgreSQL: lock table prepared" 0 "$RC"
run_bmk lock.lua $PGSQL_OPTS --threads=8 --time=2 run
PGCAP=$(printf '%s\n' "$OUT" | sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p')
check "PostgreSQL: closed-loop capacity measured ($PGCAP tps)" awk -v c="$PGCAP" 'BEGIN { exit !(c > 20) }'
cap --mode=users --slo="$USLO" --step-time=1 --step-warmup=0 --max-steps=6 \
  --max-repeats=0 --results-dir=pgusers -- bmk lock.lua $PGSQL_OPTS --hold-ms=50 --after-ms=20 run
assert_eq "PostgreSQL users: exit 0" 0 "$RC"
assert_match "PostgreSQL users: the search's rules against its own table" "$(users_rules "$OUT")" '^rules kept: '
check "PostgreSQL users: no step of 3 users or more passes" no_pass_from_3 "$OUT"
ROWS=$(rows_equal pgusers "$OUT")
assert_match "PostgreSQL users: every row equals its --results file" "$ROWS" '^[0-9]+ rows$'

# oltp_point_select: 1 then 2 users under a bound no step misses (the
# doubling, then --max-users reached), each row equal to its file
for db in mysql pgsql; do
  [ $db = mysql ] && O=$MYSQL_OPTS || O=$PGSQL_OPTS
  run_bmk oltp_point_select $O --tables=1 --table-size=1000 prepare
  cap --mode=users --slo='p99<=5s' --step-time=1 --step-warmup=0 --max-users=2 \
    --results-dir=ps-$db -- bmk oltp_point_select $O --tables=1 --table-size=1000 run
  assert_eq "$db oltp_point_select users: exit 0" 0 "$RC"
  assert_eq "$db oltp_point_select users: 1 then 2 users" "growth growth " "$(phases "$OUT")"
  ROWS=$(rows_equal ps-$db "$OUT")
  assert_eq "$db oltp_point_select users: every row equals its --results file" "2 rows" "$ROWS"
  assert_match "$db oltp_point_select users: the answer at --max-users" "$OUT" \
    '^range: passes at 2, fails at - \(none failed\) users; 2 steps, 0 repeats; --max-rate/--max-users reached$'
  run_bmk oltp_point_select $O --tables=1 cleanup
done

finish
