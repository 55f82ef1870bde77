#!/usr/bin/env python3
"""Checks a `bmk capacity --mode=users` search against its own table.

usage: capacity_users_rules.py P50_BOUND_MS MAX_STEPS < capacity-output

The rules (docs/capacity.md, users mode), each from the printed rows:
- each row's verdict is "pass" exactly when its p50 is within the bound;
- growth runs 1, 2, 4, ... users while each step passes, and stops at the
  first step that does not;
- each bisection step runs halfway (rounded half up) between the highest
  passing and the lowest failing user count known before it;
- the search stops when those two are 1 apart, or after MAX_STEPS steps;
  a search whose first failure came at 4 users or more has bisected;
- the answer ("max sustainable: N users") is the highest passing count.
Prints "rules kept: ..." or each broken rule, "; "-separated.
"""
import re
import sys

bound, max_steps = float(sys.argv[1]), int(sys.argv[2])
out = sys.stdin.read()
rows = [l.split() for l in out.splitlines()
        if re.match(r"^\s+\d+ (growth|bisect|down) ", l)]
bad, lo, hi, want = [], None, None, 1
for r in rows:
    step, phase, users, p50, verdict = int(r[0]), r[1], int(r[2]), float(r[5]), r[-1]
    if (verdict == "pass") != (p50 <= bound):
        bad.append("step %d: p50 %.3f ms judged %s" % (step, p50, verdict))
    if phase == "growth":
        if hi is not None or users != want:
            bad.append("step %d: growth to %d users" % (step, users))
        want = users * 2
    elif phase == "bisect":
        mid = int((lo + hi) / 2 + 0.5) if lo and hi else None
        if users != mid:
            bad.append("step %d: bisect to %d users, halfway is %s" % (step, users, mid))
    else:
        bad.append("step %d: phase %s in users mode" % (step, phase))
    if verdict == "pass":
        lo = users if lo is None or users > lo else lo
    elif hi is None or users < hi:
        hi = users
bisected = any(r[1] == "bisect" for r in rows)
if not rows:
    bad.append("no rows")
elif len(rows) > max_steps:
    bad.append("%d steps, --max-steps=%d" % (len(rows), max_steps))
elif lo and hi and hi - lo > 1 and len(rows) < max_steps:
    bad.append("stopped at %d..%d users" % (lo, hi))
if lo and hi and hi >= 4 and not bisected:
    bad.append("no bisection between %d and %d" % (lo, hi))
m = re.search(r"^max sustainable: (\d+) users", out, re.M)
if (int(m.group(1)) if m else None) != lo:
    bad.append("answer %s, highest pass %s" % (m and m.group(1), lo))
print("; ".join(bad) or "rules kept: %d steps, passes up to %s, fails from %s users%s"
      % (len(rows), lo, hi, ", bisected" if bisected else ""))
