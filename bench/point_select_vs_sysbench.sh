#!/usr/bin/env bash
# Client CPU per 1,000 queries and QPS of bmk vs Debian's sysbench 1.0.20,
# running oltp_point_select side by side in one run, at 1, 4 and 16 threads,
# on MariaDB and PostgreSQL (the sandbox servers of tools/sandbox.sh).
#
# Usage: bash bench/point_select_vs_sysbench.sh [seconds per run (10)] [repetitions (3)]
# Each configuration runs bmk and sysbench alternately `repetitions` times
# and reports medians: on a small shared machine single runs vary by 15 %.
# Needs: ./bmk built, `apt-get install sysbench`, and the sandbox servers
# started (bash tools/sandbox.sh start mysql; ... start pgsql).
# Client CPU is user+system time of the load generator process (from
# wait4's rusage), so the server's CPU is not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
reps=${2:-3}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=$(pwd)/bmk
SB_LUA=/usr/share/sysbench/oltp_point_select.lua
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"
data="--tables=4 --table-size=10000"

python3 - "$secs" "$reps" "$BMK" "$SB_LUA" "$mysql_opts" "$pgsql_opts" "$data" <<'PY'
import os, re, subprocess, sys
import statistics
secs, reps, bmk, sb_lua, mysql_opts, pgsql_opts, data = sys.argv[1:]
reps = int(reps)


def run_measured(cmd):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        fd = os.open("/tmp/bmk-bench.out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    out = open("/tmp/bmk-bench.out").read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out[-2000:]))
    return out, ru.ru_utime + ru.ru_stime

def queries(out):
    m = re.search(r"^\s+queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)", out, re.M)
    return int(m.group(1)), float(m.group(2))

rows = []
for db, opts in (("mysql", mysql_opts.split()), ("pgsql", pgsql_opts.split())):
    base = opts + data.split()
    subprocess.run([bmk, "oltp_point_select"] + base + ["cleanup"], stdout=subprocess.DEVNULL, check=False)
    subprocess.run([bmk, "oltp_point_select"] + base + ["--threads=4", "prepare"], stdout=subprocess.DEVNULL, check=True)
    for threads in (1, 4, 16):
        common = base + ["--threads=%d" % threads, "--time=%s" % secs]
        samples = {"bmk": [], "sysbench": []}
        for _ in range(reps):
            for tool, cmd in (("bmk", [bmk, "oltp_point_select"] + common + ["run"]),
                              ("sysbench", ["sysbench", sb_lua] + common + ["run"])):
                out, cpu = run_measured(cmd)
                n, qps = queries(out)
                samples[tool].append((cpu / n * 1000.0, qps))
        r = {t: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
             for t, v in samples.items()}
        rows.append((db, threads, r))
    subprocess.run([bmk, "oltp_point_select"] + base + ["cleanup"], stdout=subprocess.DEVNULL, check=False)

print()
print("oltp_point_select, %s s per run, median of %d alternating runs;" % (secs, reps))
print("client CPU seconds (user+sys) per 1,000 queries (lower is better)")
print("%-6s %7s | %12s %12s | %12s %12s | %9s" % ("db", "threads", "bmk cpu/1k", "bmk qps",
      "sb cpu/1k", "sb qps", "cpu ratio"))
for db, threads, r in rows:
    b, s = r["bmk"], r["sysbench"]
    print("%-6s %7d | %12.4f %12.0f | %12.4f %12.0f | %9.3f" % (db, threads, b[0], b[1], s[0], s[1], b[0] / s[0]))
PY
