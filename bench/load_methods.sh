#!/usr/bin/env bash
# Table load speed: `prepare` of the OLTP tables (oltp_read_write, with its
# secondary index) by Debian's sysbench 1.0.20 and by bmk with each
# --load-method (multi = sysbench's bulk INSERT, insert = one row per
# INSERT, copy = COPY FROM STDIN / LOAD DATA LOCAL INFILE), on MariaDB and
# PostgreSQL (the sandbox servers of tools/sandbox.sh). Prints rows/s, wall
# and client CPU seconds, and each method's speed relative to sysbench.
#
# Usage: bash bench/load_methods.sh [tables (8)] [rows per table (1000000)] [threads (4)]
# Environment: METHODS (default "sysbench multi insert copy"; `insert`
#   sends one statement per row and takes by far the longest), REPS
#   (default 1: runs per method, alternating; the median is reported: on
#   a small shared machine single runs vary a lot),
#   DBS (default "mysql pgsql"), BMK_MYSQL_PORT, BMK_PGSQL_PORT,
#   BMK_SANDBOX_PASSWORD.
# Needs: ./bmk built, `apt-get install sysbench`, the sandbox servers
# started (bash tools/sandbox.sh start mysql; ... start pgsql; MariaDB with
# local_infile=1, which the sandbox sets). Every run starts from dropped
# tables; the same --rand-seed gives every method the same data.
# Try it small first: bash bench/load_methods.sh 2 20000 2
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:-8}
rows=${2:-1000000}
threads=${3:-4}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
[ -x ./bmk ] || { echo "build bmk first (./bmk not found)" >&2; exit 1; }
BMK=$(pwd)/bmk
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"

python3 - "$BMK" "$tables" "$rows" "$threads" "${METHODS:-sysbench multi insert copy}" \
  "${DBS:-mysql pgsql}" "$mysql_opts" "$pgsql_opts" "${REPS:-1}" <<'PY'
import os, statistics, subprocess, sys, time
bmk, tables, rows, threads, methods, dbs, mysql_opts, pgsql_opts, reps = sys.argv[1:]
tables, rows, threads, reps = int(tables), int(rows), int(threads), int(reps)
methods, dbs = methods.split(), dbs.split()
SB_LUA = "/usr/share/sysbench/oltp_read_write.lua"


def run(cmd):
    """Runs cmd; returns (wall seconds, client CPU seconds)."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open("/tmp/bmk-bench-load.out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), open("/tmp/bmk-bench-load.out").read()[-2000:]))
    return wall, ru.ru_utime + ru.ru_stime


results = []
for db in dbs:
    opts = (mysql_opts if db == "mysql" else pgsql_opts).split()
    base = opts + ["--tables=%d" % tables, "--table-size=%d" % rows,
                   "--threads=%d" % threads, "--rand-seed=1"]
    samples = {m: [] for m in methods}
    for rep in range(reps):
        for m in methods:
            if m == "sysbench":
                cmd = ["sysbench", SB_LUA] + base
            else:
                cmd = [bmk, "oltp_read_write"] + base + ["--load-method=" + m]
            subprocess.run(cmd + ["cleanup"], stdout=subprocess.DEVNULL, check=False)
            print("%s %s (%d/%d): %d x %d rows, %d threads ..." % (db, m, rep + 1, reps, tables,
                  rows, threads), flush=True)
            samples[m].append(run(cmd + ["prepare"]))
            subprocess.run(cmd + ["cleanup"], stdout=subprocess.DEVNULL, check=False)
    for m in methods:
        results.append((db, m, statistics.median(w for w, _ in samples[m]),
                        statistics.median(c for _, c in samples[m])))

print()
print("prepare of %d tables x %d rows (oltp_read_write, secondary index included), "
      "%d threads, median of %d run(s)" % (tables, rows, threads, reps))
print("%-6s %-9s %10s %12s %12s %10s" % ("db", "method", "seconds", "rows/s", "client cpu s",
                                       "vs sysbench"))
for db, m, wall, cpu in results:
    ref = [w for d, mm, w, _ in results if d == db and mm == "sysbench"]
    ratio = "%.2fx" % (ref[0] / wall) if ref else "-"
    print("%-6s %-9s %10.2f %12.0f %12.2f %10s" % (db, m, wall, tables * rows / wall, cpu, ratio))
PY
