"""The measuring part of bench/engine_vs_sysbench.sh (see there): one
server configuration, every user count, bmk's default (and variants)
against sysbench 1.0.20 in alternating pairs."""
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import conn_args, run_measured  # noqa: E402

cfg, db, bmk, vus_list, pairs, secs, variants, strace_vus = sys.argv[1:]
vus_list = [int(v) for v in vus_list.split()]
pairs, secs = int(pairs), int(secs)
strace_vus = [int(v) for v in strace_vus.split()]
conn = conn_args(db)
data = ["--tables=4", "--table-size=20000"]
SB_LUA = "/usr/share/sysbench/oltp_point_select.lua"
tools = [("bmk", [])] + [("bmk " + v.strip(), v.split()) for v in variants.split(";") if v.strip()]


def parse(out):
    """(transactions per second, queries) of a report."""
    t = re.search(r"^\s+transactions:\s+\d+\s+\(([\d.]+) per sec", out, re.M)
    q = re.search(r"^\s+queries:\s+(\d+)", out, re.M)
    if not t or not q or int(q.group(1)) == 0:
        sys.exit("no figures in the output:\n" + out[-2000:])
    return float(t.group(1)), int(q.group(1))


def engine(out):
    m = re.search(r"Virtual users: \d+ on (\d+) worker", out)
    return "event/%s" % m.group(1) if m else "threads"


def cmd_of(tool, extra, vus):
    common = data + ["--threads=%d" % vus, "--time=%d" % secs]
    if tool == "sysbench":
        return ["sysbench", SB_LUA] + conn + common + ["run"]
    return [bmk, "oltp_point_select"] + conn + common + extra + ["run"]


def syscalls_per_query(cmd):
    """System calls per query of one run under strace -c -f."""
    fd, path = tempfile.mkstemp()
    os.close(fd)
    out, _, _ = run_measured(["strace", "-c", "-f", "-o", path] + cmd)
    _, q = parse(out)
    total = 0
    with open(path) as f:
        for line in f:
            m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?total$", line)
            if m:
                total = int(m.group(1))
    os.unlink(path)
    return total / q


subprocess.run([bmk, "oltp_point_select"] + conn + data + ["cleanup"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
subprocess.run([bmk, "oltp_point_select"] + conn + data + ["--threads=4", "prepare"],
               stdout=subprocess.DEVNULL, check=True)
# one unmeasured run of each tool warms the server's buffers
for tool in ("sysbench", "bmk"):
    run_measured(cmd_of(tool, [], 8))

rows = []
for vus in vus_list:
    for label, extra in tools:
        tps = {"sb": [], "bmk": []}
        cpu = {"sb": [], "bmk": []}
        ratios, eng = [], "?"
        for i in range(pairs):
            order = [("bmk", extra), ("sb", None)] if i % 2 == 0 else [("sb", None), ("bmk", extra)]
            res = {}
            for who, ex in order:
                out, c, _ = run_measured(cmd_of("sysbench" if who == "sb" else "bmk", ex, vus))
                t, q = parse(out)
                tps[who].append(t)
                cpu[who].append(c / q * 1e6)
                res[who] = c / q
                if who == "bmk":
                    eng = engine(out)
                print("%s %5d %-20s %-8s %9.0f tps %6.1f us/q" %
                      (cfg, vus, label if who == "bmk" else "sysbench",
                       eng if who == "bmk" else "threads", t, c / q * 1e6), flush=True)
            ratios.append(res["bmk"] / res["sb"])
        sc = ""
        if vus in strace_vus and label == "bmk":
            sc = "%.2f / %.2f" % (syscalls_per_query(cmd_of("bmk", extra, vus)),
                                  syscalls_per_query(cmd_of("sysbench", None, vus)))
        rows.append((vus, label, eng, tps, cpu, ratios, sc))

med = statistics.median
print()
print("| config | VUs | bmk | engine | sysbench tps | bmk tps | tps ratio | sysbench us/q | "
      "bmk us/q | CPU ratio (range) | syscalls/q bmk / sysbench |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
for vus, label, eng, tps, cpu, ratios, sc in rows:
    print("| %s | %d | %s | %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.2f | %.1f | %.1f | "
          "%.2f (%.2f-%.2f) | %s |" %
          (cfg, vus, label, eng, med(tps["sb"]), min(tps["sb"]), max(tps["sb"]),
           med(tps["bmk"]), min(tps["bmk"]), max(tps["bmk"]), med(tps["bmk"]) / med(tps["sb"]),
           med(cpu["sb"]), med(cpu["bmk"]), med(ratios), min(ratios), max(ratios), sc),
          flush=True)
subprocess.run([bmk, "oltp_point_select"] + conn + data + ["cleanup"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
