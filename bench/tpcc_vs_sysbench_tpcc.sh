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
#          [seconds per run (60)] [scale (10)] [threads ("8"; a list: "8 16 32 64")]
#          [repetitions (3)]
# BMK_TPCC_OPTS adds bmk options to its prepare and runs (e.g.
# "--load-method=infile" on MariaDB); BENCH_VARIANTS adds bmk variants to
# the runs, ';'-separated option lists ("--workers=threads;--workers=2"),
# each run beside bmk's default; BENCH_PREPARE_THREADS the loads' threads
# (default the first of the list). BMK_TPCC_OPTS adds bmk options (e.g.
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

python3 - "$secs" "$scale" "$threads" "$reps" "$BMK" "$SYSBENCH_TPCC_DIR" "$pass" "$myport" "$pgport" "${BENCH_DBS:-mysql pgsql}" "${BENCH_VARIANTS:-}" <<'PY'
import os, re, statistics, subprocess, sys
sys.path.insert(0, "bench")
from bench_util import run_measured
secs, scale, threads_list, reps, bmk, sbdir, pw, myport, pgport, dbs, variants = sys.argv[1:]
reps = int(reps)
threads_list = threads_list.split()
threads = os.environ.get("BENCH_PREPARE_THREADS", threads_list[0])
variants = [("bmk", [])] + [("bmk " + v.strip(), v.split()) for v in variants.split(";") if v.strip()]
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
    runs = []
    for th in threads_list:
        for label, extra in variants:
            samples = {"bmk": [], "sysbench-tpcc": []}
            for i in range(reps):
                pair = (("bmk", bmk_cmd + ["--tpcc-mode=ps", "--audit=off"] + extra, None),
                        ("sysbench-tpcc", sb_cmd, sbdir))
                for tool, cmd, cwd in (pair if i % 2 == 0 else pair[::-1]):
                    out, cpu, _ = run_measured(cmd + ["--threads=" + th, "--time=" + secs, "run"], cwd)
                    n, rate = tps(out)
                    samples[tool].append((cpu / n, rate))
                    print("%s %s %s: %.1f tps %.6f s/trx" % (db, th, label if tool == "bmk" else tool,
                                                             rate, cpu / n), file=sys.stderr)
            runs.append((th, label, samples))
    results.append((db, bmk_load, bmk_rows, sb_load, sb_rows, runs))
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
print("run, %s s, median of %d alternating runs" % (secs, reps))
print("| db | threads | bmk | bmk tps | bmk cpu/trx | sb tps | sb cpu/trx | tps ratio | cpu ratio |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
for db, _, _, _, _, runs in results:
    for th, label, s in runs:
        b = (statistics.median(x[0] for x in s["bmk"]), statistics.median(x[1] for x in s["bmk"]))
        t = (statistics.median(x[0] for x in s["sysbench-tpcc"]),
             statistics.median(x[1] for x in s["sysbench-tpcc"]))
        print("| %s | %s | %s | %.1f | %.6f | %.1f | %.6f | %.2f | %.3f |" %
              (db, th, label, b[1], b[0], t[1], t[0], b[1] / t[1], b[0] / t[0]))
print("(client CPU seconds per transaction; targets: tps ratio >= 1, cpu ratio <= 0.6)")
PY
