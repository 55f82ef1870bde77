#!/usr/bin/env bash
# The DBL table of Benchware's "Database Load (DBL) Performance Tests"
# reproduced with `bmk dbl` (docs/capacity.md "DBL load tests") on MariaDB
# and PostgreSQL (the sandbox servers of tools/sandbox.sh):
#   - insert load at 1 job, transaction sizes 1, 2, 4, 5, 10, 20, 50, 100
#     rows per commit (--load-method=$INSERT_METHOD, default insert);
#   - bulk load (--tx-size=0: one commit per job) at 1, 2 and 4 jobs, with
#     each method of $BULK_METHODS (default "multi copy").
# One row per run: rows/s, transactions/s, SQL service time per statement
# and per commit, host CPU busy % (all CPUs, from /proc/stat around the
# run), data-file writes (IO/s, MiB/s), redo/WAL rate (MiB/s), redo writes
# per second and their service time (PostgreSQL with track_wal_io_timing
# on), elapsed seconds. Each run starts from a freshly prepared table.
#
# Usage: bash bench/dbl_table.sh [rows per job, insert load (20000)] [rows per job, bulk load (200000)]
# Environment: DBS (default "mysql pgsql"), TX_SIZES, JOBS, INSERT_METHOD,
#   BULK_METHODS, ROW_BYTES (100), OUT_DIR (result files and charts,
#   default /tmp/bmk-dbl-table), BMK_MYSQL_PORT, BMK_PGSQL_PORT,
#   BMK_SANDBOX_PASSWORD.
# With gnuplot installed (apt-get install gnuplot-nox) it also writes
# $OUT_DIR/dbl-<db>.svg: rows/s vs transaction size and vs jobs.
# Try it small first: bash bench/dbl_table.sh 500 2000
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./bmk ] || { echo "build bmk first (./bmk not found)" >&2; exit 1; }
BMK=$(pwd)/bmk
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"
out_dir=${OUT_DIR:-/tmp/bmk-dbl-table}
mkdir -p "$out_dir"

python3 - "$BMK" "${1:-20000}" "${2:-200000}" "${DBS:-mysql pgsql}" "${TX_SIZES:-1 2 4 5 10 20 50 100}" \
  "${JOBS:-1 2 4}" "${INSERT_METHOD:-insert}" "${BULK_METHODS:-multi copy}" "${ROW_BYTES:-100}" \
  "$out_dir" "$mysql_opts" "$pgsql_opts" <<'PY'
import json, os, shutil, subprocess, sys
(bmk, ins_rows, bulk_rows, dbs, tx_sizes, jobs, ins_method, bulk_methods, row_bytes,
 out_dir, mysql_opts, pgsql_opts) = sys.argv[1:]


def cpu_times():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]                      # idle + iowait
    return sum(v) - idle, sum(v)


def run_dbl(opts, method, tx, threads, rows, path):
    base = [bmk, "dbl"] + opts + ["--row-bytes=" + row_bytes]
    subprocess.run(base + ["cleanup"], stdout=subprocess.DEVNULL, check=False)
    subprocess.run(base + ["prepare"], stdout=subprocess.DEVNULL, check=True)
    b0, t0 = cpu_times()
    p = subprocess.run(base + ["--threads=%d" % threads, "--rows=%d" % rows, "--tx-size=%d" % tx,
                              "--load-method=" + method, "--time=0", "--results=" + path, "run"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    b1, t1 = cpu_times()
    subprocess.run(base + ["cleanup"], stdout=subprocess.DEVNULL, check=False)
    if p.returncode != 0:
        sys.exit("failed: dbl %s tx %d jobs %d\n%s" % (method, tx, threads, p.stdout[-2000:]))
    d = json.load(open(path))
    busy = 100.0 * (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
    return d, busy


def row(d, busy):
    m, s = d["summary"]["metrics"], d["summary"]
    srv = d.get("server") or {}
    redo, data = srv.get("redo") or {}, srv.get("data_writes") or {}
    per = lambda a, b: a / b if b else 0.0
    mib = lambda v: (v or 0) / 1048576.0
    return {
        "rows_s": m["rows"]["per_sec"], "trx_s": m["commits"]["per_sec"],
        "stmt_ms": per(m["statement_time_us"]["total"], m["statements"]["total"]) / 1000,
        "commit_ms": per(m["commit_time_us"]["total"], m["commits"]["total"]) / 1000,
        "cpu": busy, "io_s": data.get("writes_per_s") or 0.0, "io_mib": mib(data.get("bytes_per_s")),
        "redo_mib": mib(redo.get("bytes_per_s")), "redo_w": redo.get("writes_per_s") or 0.0,
        "redo_ms": redo.get("avg_write_ms"), "elapsed": s["time_s"],
    }


HEAD = ("| load | method | jobs | rows/commit | rows/s | trx/s | stmt ms | commit ms | CPU busy % "
        "| data IO/s | data MiB/s | redo MiB/s | redo writes/s | redo write ms | elapsed s |")
for db in dbs.split():
    opts = (mysql_opts if db == "mysql" else pgsql_opts).split()
    lines, ins_pts, bulk_pts = [], [], {}
    for tx in [int(x) for x in tx_sizes.split()]:
        print("%s: insert load, %d row(s) per commit, 1 job ..." % (db, tx), flush=True)
        d, busy = run_dbl(opts, ins_method, tx, 1, int(ins_rows),
                          os.path.join(out_dir, "%s-insert-tx%d.json" % (db, tx)))
        lines.append(("insert", ins_method, 1, str(tx), row(d, busy)))
        ins_pts.append((tx, lines[-1][4]["rows_s"]))
    for method in bulk_methods.split():
        for j in [int(x) for x in jobs.split()]:
            print("%s: bulk load (%s), %d job(s) ..." % (db, method, j), flush=True)
            d, busy = run_dbl(opts, method, 0, j, int(bulk_rows),
                              os.path.join(out_dir, "%s-bulk-%s-j%d.json" % (db, method, j)))
            lines.append(("bulk", method, j, "all", row(d, busy)))
            bulk_pts.setdefault(method, []).append((j, lines[-1][4]["rows_s"]))
    print()
    print("DBL table, %s (insert load: %s rows per job; bulk load: %s rows per job; %s bytes per row)"
          % (db, ins_rows, bulk_rows, row_bytes))
    print(HEAD)
    print("|" + "---|" * (HEAD.count("|") - 1))
    for load, method, j, tx, r in lines:
        print("| %s | %s | %d | %s | %.0f | %.1f | %.3f | %.3f | %.0f | %.0f | %.2f | %.2f | %.0f | %s | %.2f |"
              % (load, method, j, tx, r["rows_s"], r["trx_s"], r["stmt_ms"], r["commit_ms"], r["cpu"],
                 r["io_s"], r["io_mib"], r["redo_mib"], r["redo_w"],
                 "%.3f" % r["redo_ms"] if r["redo_ms"] is not None else "-", r["elapsed"]))
    print(flush=True)
    if shutil.which("gnuplot"):
        dat = os.path.join(out_dir, "dbl-%s.dat" % db)
        with open(dat, "w") as f:
            for tx, v in ins_pts:
                f.write("%d %.1f\n" % (tx, v))
            for method, pts in bulk_pts.items():
                f.write("\n\n")
                for j, v in pts:
                    f.write("%d %.1f\n" % (j, v))
        svg = os.path.join(out_dir, "dbl-%s.svg" % db)
        bulk_plot = ", ".join("'%s' index %d using 1:2 with linespoints title 'bulk load, %s'"
                              % (dat, i + 1, m) for i, m in enumerate(bulk_pts))
        script = """set terminal svg size 900,380 dynamic
set output '%s'
set multiplot layout 1,2 title 'bmk dbl on %s'
set grid
set logscale x 2
set yrange [0:*]
set xlabel 'rows per commit (1 job)'
set ylabel 'rows/s'
set key bottom right
plot '%s' index 0 using 1:2 with linespoints title 'insert load (%s)'
set key top left
set xlabel 'jobs (one commit per job)'
plot %s
unset multiplot
""" % (svg, db, dat, ins_method, bulk_plot or "NaN notitle")
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        print("chart: %s" % svg)
PY
