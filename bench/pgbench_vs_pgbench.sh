#!/usr/bin/env bash
# Client CPU per transaction and tps of bmk's pgbench persona against
# pgbench 15 itself (Debian's postgresql-15), the same server, the same
# command lines: the built-in TPC-B-like and select-only scripts at the
# given client counts (-j 1 each: one pgbench thread; the persona then
# runs its clients on one event loop too).
#
# Usage: bash bench/pgbench_vs_pgbench.sh [seconds per run (10)] [repetitions (3)] [clients (1 16)]
#                                         [rates ("")]
# Each configuration runs the persona and pgbench alternately
# `repetitions` times and reports medians. `rates` (e.g.
# "tpcb-like:3000 select-only:20000") adds runs of both tools at that
# offered rate (-R, transactions per second over all clients) for the
# script, at each client count: the same work for both, so their CPU per
# transaction and latencies compare at equal load; the latency average
# and the schedule lag are pgbench's own lines (ms). Needs ./bmk built, pgbench 15
# (/usr/lib/postgresql/15/bin/pgbench) and the sandbox's PostgreSQL
# (bash tools/sandbox.sh start pgsql); it initialises pgbench's tables
# at scale 10 in the sandbox's database.
# Client CPU is user+system time of the load generator process (wait4's
# rusage): the server's CPU is not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
reps=${2:-3}
clients=${3:-1 16}
rates=${4:-}
REAL=/usr/lib/postgresql/15/bin/pgbench
[ -x "$REAL" ] || { echo "pgbench 15 is not installed: apt-get install postgresql-15" >&2; exit 1; }
WORK=$(mktemp -d /tmp/bmk-bench-pgbench-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ln -s "$(pwd)/bmk" "$WORK/pgbench"
export PGHOST=127.0.0.1 PGPORT=${BMK_PGSQL_PORT:-5432} PGUSER=sbtest \
  PGPASSWORD=${BMK_SANDBOX_PASSWORD:-sbtest} PGDATABASE=sbtest
"$REAL" -i -s 10 -q >/dev/null 2>&1

python3 - "$secs" "$reps" "$clients" "$REAL" "$WORK/pgbench" "$rates" <<'PY'
import os, re, statistics, sys
secs, reps, clients, real, ours, rates = sys.argv[1:]
sys.path.insert(0, "bench")
from bench_util import run_measured

def processed(out):
    return int(re.search(r"^number of transactions actually processed: (\d+)", out, re.M).group(1))

def ms(pattern, out):
    m = re.search(pattern, out, re.M)
    return float(m.group(1)) if m else float("nan")

print("%-12s %7s  %-8s %10s %10s %14s" % ("script", "clients", "tool", "tps", "CPU(s)", "CPU us/tx"))
for script in ("tpcb-like", "select-only"):
    for c in clients.split():
        samples = {"bmk": [], "pgbench": []}
        for _ in range(int(reps)):
            for tool, binary in (("bmk", ours), ("pgbench", real)):
                out, cpu, _ = run_measured([binary, "-b", script, "-c", c, "-j", "1",
                                            "-T", secs, "-M", "prepared"])
                n = processed(out)
                samples[tool].append((n / float(secs), cpu, 1e6 * cpu / max(n, 1)))
        for tool in ("bmk", "pgbench"):
            tps = statistics.median(s[0] for s in samples[tool])
            cpu = statistics.median(s[1] for s in samples[tool])
            per = statistics.median(s[2] for s in samples[tool])
            print("%-12s %7s  %-8s %10.0f %10.2f %14.1f" % (script, c, tool, tps, cpu, per))

if rates.split():
    print()
    print("%-12s %7s %7s  %-8s %10s %14s %12s %10s" % ("script", "clients", "rate", "tool", "tps",
                                                     "CPU us/tx", "latency ms", "lag ms"))
for item in rates.split():
    script, rate = item.split(":")
    for c in clients.split():
        samples = {"bmk": [], "pgbench": []}
        for _ in range(int(reps)):
            for tool, binary in (("bmk", ours), ("pgbench", real)):
                out, cpu, _ = run_measured([binary, "-b", script, "-c", c, "-j", "1",
                                            "-T", secs, "-M", "prepared", "-R", rate])
                n = processed(out)
                samples[tool].append((n / float(secs), 1e6 * cpu / max(n, 1),
                                      ms(r"^latency average = ([0-9.]+) ms", out),
                                      ms(r"^rate limit schedule lag: avg ([0-9.]+)", out)))
        for tool in ("bmk", "pgbench"):
            med = [statistics.median(s[i] for s in samples[tool]) for i in range(4)]
            print("%-12s %7s %7s  %-8s %10.0f %14.1f %12.3f %10.3f" % (script, c, rate, tool, *med))
PY
