#!/usr/bin/env python3
"""tree_cpu.py PID: prints the CPU seconds of process PID and all its
descendants, read from /proc/*/stat independently of bmk: each process's
utime+stime plus cutime+cstime (children it has reaped), in clock ticks
converted to seconds (3 decimals). Used by tests/integration/test_cost.sh
and bench/cost_clocks.sh."""
import os
import sys

hz = os.sysconf("SC_CLK_TCK")
procs = {}
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        s = open("/proc/%s/stat" % d).read()
    except OSError:
        continue
    f = s[s.rindex(")") + 2:].split()
    procs[int(d)] = (int(f[1]), sum(int(x) for x in f[11:15]))
tree, changed = {int(sys.argv[1])}, True
while changed:
    changed = False
    for p, (pp, _) in procs.items():
        if p not in tree and pp in tree:
            tree.add(p)
            changed = True
print("%.3f" % (sum(procs[p][1] for p in tree if p in procs) / hz))
