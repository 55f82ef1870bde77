#!/usr/bin/env bash
# bmk tpcc's execution modes side by side (docs/tpcc.md "Modes"): ps,
# text and sp on MariaDB/MySQL, plus pipeline on PostgreSQL, on the same
# schema with the same scale, sessions and seed, one after the other in
# one invocation. Prints per mode: NOPM (schema), TPM (server), p95 per
# transaction type, and client CPU seconds (user+sys of the bmk process)
# per 1,000 committed New-Orders.
#
# Usage: bash bench/tpcc_modes.sh [seconds per run (60)] [scale (2)] [threads (4)] [warmup s (10)]
# Defaults reproduce HammerDB's reference setup (2 warehouses,
# 4 virtual users). Needs ./bmk built and the sandbox servers started
# (tools/sandbox.sh); BMK_MYSQL_PORT / BMK_PGSQL_PORT / BMK_SANDBOX_PASSWORD
# as for the sandbox; BENCH_DBS="mysql pgsql" selects the databases.
# Give MariaDB a buffer pool that holds the data (the sandbox's 128M does
# not hold 2 warehouses): BMK_MYSQL_EXTRA_OPTS=--innodb-buffer-pool-size=1G
# when starting the sandbox. The schema is prepared once (kept between
# invocations when the options match; `bmk tpcc ... cleanup` drops it).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
scale=${2:-2}
threads=${3:-4}
warmup=${4:-10}
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./bmk not found)" >&2; exit 1; }
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"

python3 - "$secs" "$scale" "$threads" "$warmup" "$BMK" "$mysql_opts" "$pgsql_opts" "${BENCH_DBS:-mysql pgsql}" <<'PY'
import os, re, subprocess, sys
sys.path.insert(0, "bench")
from bench_util import run_measured
secs, scale, threads, warmup, bmk, mysql_opts, pgsql_opts, dbs = sys.argv[1:]
TYPES = ["new_order", "payment", "order_status", "delivery", "stock_level"]


def parse(out):
    r = {}
    m = re.search(r"^NOPM \(schema, sum\(d_next_o_id\)\): (\d+)", out, re.M)
    r["nopm"] = int(m.group(1)) if m else None
    m = re.search(r"^NOPM \d+ from (\d+) \S+ TPM$", out, re.M)
    r["tpm"] = int(m.group(1)) if m else None
    for t in TYPES:
        m = re.search(r"^  %s +(\d+)( +[\d.]+){6} +([\d.]+)" % t, out, re.M)
        r[t] = float(m.group(3)) if m else None      # P95 column
    m = re.search(r"^  new_order +\d+ +(\d+) +\d+ +\d+ +\d+ +\d+ +\d+$", out, re.M)
    r["no_commits"] = int(m.group(1)) if m else 0
    return r


rows = []
for db in dbs.split():
    opts = (mysql_opts if db == "mysql" else pgsql_opts).split()
    base = [bmk, "tpcc"] + opts + ["--scale=%s" % scale]
    p = subprocess.run(base + ["--threads=4", "prepare"], capture_output=True, text=True)
    if p.returncode != 0 and "prepared with other options" in p.stdout + p.stderr:
        # another scale was left by an earlier invocation: start again
        subprocess.run(base + ["--force", "--threads=4", "prepare"], capture_output=True, text=True)
        p = subprocess.run(base + ["--threads=4", "prepare"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("prepare failed on %s:\n%s" % (db, (p.stdout + p.stderr)[-3000:]))
    modes = ["ps", "text", "sp"] + (["pipeline"] if db == "pgsql" else [])
    for mode in modes:
        out, cpu, _ = run_measured(base + ["--tpcc-mode=%s" % mode, "--threads=%s" % threads,
                                        "--time=%s" % secs, "--warmup-time=%s" % warmup,
                                        "--rand-seed=1", "--audit=off", "run"])
        r = parse(out)
        r["cpu_per_1k"] = cpu / r["no_commits"] * 1000 if r["no_commits"] else None
        rows.append((db, mode, r))
        print("%s %s done" % (db, mode), file=sys.stderr)

print()
print("bmk tpcc modes: scale %s, %s sessions, %s s (+%s s warmup) per run" % (scale, threads, secs, warmup))
print("%-6s %-9s %9s %9s | %s | %14s" % ("db", "mode", "NOPM", "TPM",
      " ".join("%9s" % ("p95 " + t[:6]) for t in TYPES), "cpu s/1k NO"))
f = lambda v, fmt: (fmt % v) if v is not None else "n/a"
for db, mode, r in rows:
    print("%-6s %-9s %9s %9s | %s | %14s" % (db, mode, f(r["nopm"], "%d"), f(r["tpm"], "%d"),
          " ".join("%9s" % f(r[t], "%.2f") for t in TYPES), f(r["cpu_per_1k"], "%.4f")))
print("(p95 in ms; NOPM from sum(d_next_o_id); TPM from the server's counters)")
PY
