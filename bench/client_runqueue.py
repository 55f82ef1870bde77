"""The measuring part of bench/client_runqueue.sh (see there): where the
two CPUs go while bmk or sysbench drives a server on the same machine.

For each run it samples, every 0.1 s, /proc/PID/task/*/schedstat of the
client (per thread: nanoseconds run on a CPU, nanoseconds waited on a run
queue while runnable; the kernel's scheduler statistics, Documentation/
scheduler/sched-stats.rst) and the server's process CPU from
/proc/PID/stat, and prints per second of the run: transactions, the
client's CPU, the client's run-queue wait (summed over its threads), the
server's CPU and the machine's idle time (/proc/stat)."""
import glob
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_util import conn_args  # noqa: E402

cfg, db, bmk, server_pid, vus_list, runs, secs, variants = sys.argv[1:]
vus_list = [int(v) for v in vus_list.split()]
runs, secs = int(runs), int(secs)
conn = conn_args(db)
data = ["--tables=4", "--table-size=20000"]
SB_LUA = "/usr/share/sysbench/oltp_point_select.lua"
tools = [("sysbench", None), ("bmk", [])] + \
    [("bmk " + v.strip(), v.split()) for v in variants.split(";") if v.strip()]
TICK = os.sysconf("SC_CLK_TCK")


def cmd_of(extra, vus):
    common = data + ["--threads=%d" % vus, "--time=%d" % secs]
    if extra is None:
        return ["sysbench", SB_LUA] + conn + common + ["run"]
    return [bmk, "oltp_point_select"] + conn + common + extra + ["run"]


def proc_cpu(pid):
    """CPU seconds (user+system) of a process, all its threads, and of
    its children that have exited and been waited for (PostgreSQL's
    backends end with their connections and the postmaster reaps them)."""
    with open("/proc/%s/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def idle_seconds():
    """The machine's idle+iowait seconds, all CPUs (/proc/stat)."""
    with open("/proc/stat") as f:
        v = f.readline().split()[1:]
    return (int(v[3]) + int(v[4])) / TICK


def sample(pid, seen):
    """Updates seen[tid] = (run ns, wait ns) from the client's threads."""
    for path in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(path) as f:
                run, wait = f.read().split()[:2]
        except OSError:
            continue
        seen[path] = (int(run), int(wait))


def one_run(extra, vus):
    seen = {}
    out_path = "/tmp/bmk-bench-runqueue.out"
    s0, i0, t0 = proc_cpu(server_pid), idle_seconds(), time.time()
    with open(out_path, "w") as out:
        p = subprocess.Popen(cmd_of(extra, vus), stdin=subprocess.DEVNULL,
                             stdout=out, stderr=subprocess.STDOUT)
        while p.poll() is None:
            sample(p.pid, seen)
            time.sleep(0.1)
    wall = time.time() - t0
    i1 = idle_seconds()
    time.sleep(0.5)     # the backends of the run exit and are reaped
    s1 = proc_cpu(server_pid)
    text = open(out_path).read()
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd_of(extra, vus)), text[-3000:]))
    t = re.search(r"^\s+transactions:\s+\d+\s+\(([\d.]+) per sec", text, re.M)
    threads = [v for v in seen.values() if v[0] > 0.02 * wall * 1e9]
    run = sum(v[0] for v in seen.values()) / 1e9 / wall
    wait = sum(v[1] for v in seen.values()) / 1e9 / wall
    return {"tps": float(t.group(1)), "client": run, "wait": wait,
            "busy_threads": len(threads), "server": (s1 - s0) / wall,
            "idle": (i1 - i0) / wall}


subprocess.run([bmk, "oltp_point_select"] + conn + data + ["cleanup"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
subprocess.run([bmk, "oltp_point_select"] + conn + data + ["--threads=4", "prepare"],
               stdout=subprocess.DEVNULL, check=True)
one_run(None, 8)
one_run([], 8)

med = statistics.median
rows = []
for vus in vus_list:
    res = {label: [] for label, _ in tools}
    for i in range(runs):
        order = tools if i % 2 == 0 else list(reversed(tools))
        for label, extra in order:
            r = one_run(extra, vus)
            res[label].append(r)
            print("%s %5d %-22s %8.0f tps  client %.2f CPUs, run-queue wait %.2f s/s "
                  "(%d busy threads)  server %.2f CPUs  idle %.2f" %
                  (cfg, vus, label, r["tps"], r["client"], r["wait"], r["busy_threads"],
                   r["server"], r["idle"]), flush=True)
    for label, _ in tools:
        rs = res[label]
        rows.append((vus, label, med([r["tps"] for r in rs]), med([r["client"] for r in rs]),
                     med([r["wait"] for r in rs]), med([r["server"] for r in rs]),
                     med([r["idle"] for r in rs])))
print()
print("| config | VUs | tool | tps | client CPUs | client run-queue wait (s/s) | "
      "wait per client CPU second | server CPUs | idle CPUs |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
for vus, label, tps, client, wait, server, idle in rows:
    print("| %s | %d | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f |" %
          (cfg, vus, label, tps, client, wait, wait / client if client else 0, server, idle))
subprocess.run([bmk, "oltp_point_select"] + conn + data + ["cleanup"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
