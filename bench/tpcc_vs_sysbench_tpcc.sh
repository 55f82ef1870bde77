#!/usr/bin/env bash
# bmk tpcc (--tpcc-mode=ps) against Percona-Lab's sysbench-tpcc run by
# Debian's sysbench 1.0.20, on the same server, scale and threads:
#   1. prepare: wall time and rows/s per table of each tool's load
#      (target: bmk >= 2x);
#   2. run: runs of the two alternate; transactions/s and client CPU
#      seconds (user+sys of the load generator) per transaction, medians
#      (target: bmk's CPU per transaction <= 0.6x sysbench-tpcc's, although
#      bmk does more per transaction: exact remote draws, counters).
#
# Usage: SYSBENCH_TPCC_DIR=/path/to/sysbench-tpcc bash bench/tpcc_vs_sysbench_tpcc.sh \
#          [seconds per run (60)] [scale (10)] [threads (8)] [repetitions (3)]
# BMK_TPCC_OPTS adds bmk options to its prepare and runs (e.g.
# "--load-method=infile" on MariaDB). SYSBENCH_TPCC_DIR must hold sysbench-tpcc's tpcc.lua (and its modules);
# nothing is downloaded: without it the script says so and exits 0.
# Needs ./bmk, `apt-get install sysbench`, the sandbox servers (ports from
# BMK_MYSQL_PORT / BMK_PGSQL_PORT); BENCH_DBS="mysql pgsql" selects the
# databases. bmk uses the database sbtest, sysbench-tpcc a database of its
# own, sbtpcc (created here), so both schemas exist side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
scale=${2:-10}
threads=${3:-8}
reps=${4:-3}
if [ -z "${SYSBENCH_TPCC_DIR:-}" ] || [ ! -f "${SYSBENCH_TPCC_DIR}/tpcc.lua" ]; then
  echo "skipped: set SYSBENCH_TPCC_DIR to a directory holding sysbench-tpcc's tpcc.lua" \
       "(https://github.com/Percona-Lab/sysbench-tpcc; this script fetches nothing)"
  exit 0
fi
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=$(pwd)/bmk
[ -x "$BMK" ] || { echo "build bmk first (./bmk not found)" >&2; exit 1; }
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
myport=${BMK_MYSQL_PORT:-3306}
pgport=${BMK_PGSQL_PORT:-5432}
MYSQL_PWD=$pass mariadb --protocol=tcp -h127.0.0.1 -P"$myport" -usbtest -e "CREATE DATABASE IF NOT EXISTS sbtpcc" 2>/dev/null || true
PGPASSWORD=$pass psql -h 127.0.0.1 -p "$pgport" -U sbtest -d sbtest -qAt \
  -c "SELECT 1 FROM pg_database WHERE datname='sbtpcc'" | grep -q 1 ||
  PGPASSWORD=$pass psql -h 127.0.0.1 -p "$pgport" -U sbtest -d sbtest -qc "CREATE DATABASE sbtpcc" >/dev/null 2>&1 || true

python3 - "$secs" "$scale" "$threads" "$reps" "$BMK" "$SYSBENCH_TPCC_DIR" "$pass" "$myport" "$pgport" "${BENCH_DBS:-mysql pgsql}" <<'PY'
import os, re, statistics, subprocess, sys
sys.path.insert(0, "bench")
from bench_util import run_measured
secs, scale, threads, reps, bmk, sbdir, pw, myport, pgport, dbs = sys.argv[1:]
reps = int(reps)
TABLES = ["warehouse", "district", "customer", "history", "orders", "new_orders",
          "order_line", "stock", "item"]


def conn(db, name):
    if db == "mysql":
        return ["--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + myport,
                "--mysql-user=sbtest", "--mysql-password=" + pw, "--mysql-db=" + name]
    return ["--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=" + pgport,
            "--pgsql-user=sbtest", "--pgsql-password=" + pw, "--pgsql-db=" + name]


def count_rows(db, name):
    out = {}
    for t in TABLES:
        sql = "SELECT COUNT(*) FROM %s1" % t
        if db == "mysql":
            cmd = ["mariadb", "--protocol=tcp", "-h127.0.0.1", "-P" + myport, "-usbtest", "-N", "-B", name, "-e", sql]
            env = dict(os.environ, MYSQL_PWD=pw)
        else:
            cmd = ["psql", "-h", "127.0.0.1", "-p", pgport, "-U", "sbtest", "-d", name, "-At", "-c", sql]
            env = dict(os.environ, PGPASSWORD=pw)
        out[t] = int(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout.strip())
    return out


def tps(out):
    m = re.search(r"^\s+transactions:\s+(\d+)\s+\(([\d.]+) per sec\.\)", out, re.M)
    return int(m.group(1)), float(m.group(2))


size = ["--scale=" + scale, "--tables=1"]
results = []
for db in dbs.split():
    bmk_cmd = [bmk, "tpcc"] + conn(db, "sbtest") + size + os.environ.get("BMK_TPCC_OPTS", "").split()
    sb_cmd = ["sysbench", "./tpcc.lua"] + conn(db, "sbtpcc") + size
    subprocess.run(bmk_cmd + ["cleanup"], capture_output=True)
    subprocess.run(sb_cmd + ["cleanup"], cwd=sbdir, capture_output=True)
    _, _, bmk_load = run_measured(bmk_cmd + ["--threads=" + threads, "prepare"])
    bmk_rows = count_rows(db, "sbtest")
    _, _, sb_load = run_measured(sb_cmd + ["--threads=" + threads, "prepare"], cwd=sbdir)
    sb_rows = count_rows(db, "sbtpcc")
    samples = {"bmk": [], "sysbench-tpcc": []}
    for _ in range(reps):
        for tool, cmd, cwd in (("bmk", bmk_cmd + ["--tpcc-mode=ps", "--audit=off"], None),
                               ("sysbench-tpcc", sb_cmd, sbdir)):
            out, cpu, _ = run_measured(cmd + ["--threads=" + threads, "--time=" + secs, "run"], cwd)
            n, rate = tps(out)
            samples[tool].append((cpu / n, rate))
    results.append((db, bmk_load, bmk_rows, sb_load, sb_rows, samples))
    print("%s done" % db, file=sys.stderr)

print()
print("prepare, scale %s, %s threads: rows/s per table (rows / the tool's prepare wall time)" % (scale, threads))
for db, bl, br, sl, sr, _ in results:
    print("%s: bmk %.1fs, sysbench-tpcc %.1fs, ratio %.2fx" % (db, bl, sl, sl / bl))
    print("  %-12s %12s %12s %12s %12s %7s" % ("table", "bmk rows", "bmk rows/s", "sb rows", "sb rows/s", "ratio"))
    for t in TABLES:
        a, b = br[t] / bl, sr[t] / sl
        print("  %-12s %12d %12.0f %12d %12.0f %7.2f" % (t, br[t], a, sr[t], b, a / b if b else 0))
print()
print("run, %s s, %s threads, median of %d alternating runs" % (secs, threads, reps))
print("%-6s | %10s %14s | %10s %14s | %9s" % ("db", "bmk tps", "bmk cpu/trx", "sb tps", "sb cpu/trx", "cpu ratio"))
for db, _, _, _, _, s in results:
    b = (statistics.median(x[0] for x in s["bmk"]), statistics.median(x[1] for x in s["bmk"]))
    t = (statistics.median(x[0] for x in s["sysbench-tpcc"]), statistics.median(x[1] for x in s["sysbench-tpcc"]))
    print("%-6s | %10.1f %14.6f | %10.1f %14.6f | %9.3f" % (db, b[1], b[0], t[1], t[0], b[0] / t[0]))
print("(client CPU seconds per transaction; target: cpu ratio <= 0.6)")
PY
