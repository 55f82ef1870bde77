#!/usr/bin/env bash
# Client CPU per query of bmk against Debian's sysbench 1.0.20:
# oltp_point_select with the same fixed work for both tools
# (--events=N --time=0 on 4 tables x 20,000 rows, prepared once per
# database), per VU count and database, runs of the tools alternating.
#
# Usage: bash bench/client_cpu.sh [VU counts ("1 4 16 64 256")] [pairs (5)] [events (120000)]
# Environment:
#   BENCH_DBS="mysql pgsql"   databases (the sandbox servers of tools/sandbox.sh,
#                             ports from BMK_MYSQL_PORT / BMK_PGSQL_PORT)
#   BENCH_WORKERS="2"         extra bmk variants run with --workers=N (space
#                             separated; "" = only bmk's default); a variant
#                             with N >= the VU count is skipped (thread mode);
#                             "threads" runs one thread per VU at any count
#   BENCH_BMK_OPTS=""         options added to every bmk run
#   BENCH_BMK=path            the bmk binary (default ./bmk), e.g. a build of
#                             an earlier commit for before/after figures
#   SYSBENCH_TPCC_DIR=dir     also runs bench/tpcc_vs_sysbench_tpcc.sh (ps
#                             mode, scale 2) when dir holds sysbench-tpcc's
#                             tpcc.lua; otherwise the tpcc row is skipped
#                             with the reason printed (nothing is fetched)
# Needs ./bmk built, `apt-get install sysbench`, the sandbox servers started.
#
# Client CPU is user+system time of the load generator process and its
# threads (wait4's rusage of the child), so the server's CPU is not counted.
# Each pair is one bmk run and one sysbench run back to back (their order
# alternates between pairs, so a drift of the shared machine hits both);
# the ratio is bmk's CPU per query over sysbench's in the same pair, and the
# table prints per VU count the median and the range (min-max) over the
# pairs, with each tool's median microseconds of CPU per query and the
# engine bmk's default chose (threads, or the event loop on W workers).
set -euo pipefail
cd "$(dirname "$0")/.."
vus_list=${1:-"1 4 16 64 256"}
pairs=${2:-5}
events=${3:-120000}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=${BENCH_BMK:-$(pwd)/bmk}
[ -x "$BMK" ] || { echo "$BMK is not built: see README (make -j2)" >&2; exit 1; }
SB_LUA=/usr/share/sysbench/oltp_point_select.lua
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
mysql_opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
pgsql_opts="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$BMK" "$SB_LUA" "$tmp" "$vus_list" "$pairs" "$events" "${BENCH_DBS:-mysql pgsql}" \
          "${BENCH_WORKERS-2}" "${BENCH_BMK_OPTS:-}" "$mysql_opts" "$pgsql_opts" <<'PY'
import os, re, statistics, subprocess, sys
(bmk, sb_lua, tmp, vus_list, pairs, events, dbs, workers, bmk_extra,
 mysql_opts, pgsql_opts) = sys.argv[1:]
vus_list = [int(v) for v in vus_list.split()]
pairs, events = int(pairs), int(events)
workers = workers.split()
data = ["--tables=4", "--table-size=20000"]


def run(cmd):
    """Runs cmd with stdout/stderr to a file; returns (output, CPU s of the child)."""
    out_path = os.path.join(tmp, "out")
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execvp(cmd[0], cmd)
    _, status, ru = os.wait4(pid, 0)
    out = open(out_path, errors="replace").read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), out[-2000:]))
    return out, ru.ru_utime + ru.ru_stime


def queries(out):
    m = re.search(r"^\s+queries:\s+(\d+)", out, re.M)
    if not m or int(m.group(1)) == 0:
        sys.exit("no query count in the output:\n" + out[-2000:])
    return int(m.group(1))


def engine(out):
    m = re.search(r"Virtual users: \d+ on (\d+) worker", out)
    return "event/%s" % m.group(1) if m else "threads"


rows = []
for db in dbs.split():
    opts = (mysql_opts if db == "mysql" else pgsql_opts).split()
    base = opts + data
    subprocess.run([bmk, "oltp_point_select"] + base + ["cleanup"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    subprocess.run([bmk, "oltp_point_select"] + base + ["--threads=4", "prepare"],
                   stdout=subprocess.DEVNULL, check=True)
    for vus in vus_list:
        common = base + ["--threads=%d" % vus, "--events=%d" % events, "--time=0"]
        variants = [("default", bmk_extra.split())]
        variants += [("--workers=%s" % w, ["--workers=%s" % w] + bmk_extra.split())
                     for w in workers if not w.isdigit() or int(w) < vus]
        for label, extra in variants:
            ratios, b_us, s_us, eng = [], [], [], "?"
            for i in range(pairs):
                bcmd = [bmk, "oltp_point_select"] + common + extra + ["run"]
                scmd = ["sysbench", sb_lua] + common + ["run"]
                res = {}
                for tool, cmd in ((("bmk", bcmd), ("sb", scmd)) if i % 2 == 0
                                  else (("sb", scmd), ("bmk", bcmd))):
                    out, cpu = run(cmd)
                    res[tool] = cpu / queries(out) * 1e6
                    if tool == "bmk":
                        eng = engine(out)
                b_us.append(res["bmk"]); s_us.append(res["sb"])
                ratios.append(res["bmk"] / res["sb"])
            rows.append((db, vus, label, eng, statistics.median(b_us), statistics.median(s_us),
                         statistics.median(ratios), min(ratios), max(ratios)))
            r = rows[-1]
            print("%-6s %5d %-12s %-9s bmk %6.1f us  sb %6.1f us  ratio %.2f (%.2f-%.2f)" % r,
                  flush=True)
    subprocess.run([bmk, "oltp_point_select"] + base + ["cleanup"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

print()
print("oltp_point_select, --events=%d --time=0, 4 tables x 20,000 rows, %d alternating pairs;"
      % (events, pairs))
print("client CPU (user+sys) per query, bmk / sysbench 1.0.20: median (min-max) over the pairs")
print("%-6s %5s %-12s %-9s %11s %11s %7s %13s" % ("db", "VUs", "bmk", "engine", "bmk us/q",
                                                  "sb us/q", "ratio", "range"))
for db, vus, label, eng, b, s, med, lo, hi in rows:
    print("%-6s %5d %-12s %-9s %11.1f %11.1f %7.2f %13s" % (db, vus, label, eng, b, s, med,
                                                            "%.2f-%.2f" % (lo, hi)))
PY

# the TPC-C row: ps mode, scale 2, vs sysbench-tpcc (its own bench script)
echo
if [ -n "${SYSBENCH_TPCC_DIR:-}" ] && [ -f "${SYSBENCH_TPCC_DIR}/tpcc.lua" ]; then
  bash bench/tpcc_vs_sysbench_tpcc.sh 30 2 8 "$pairs"   # its bmk runs use --tpcc-mode=ps
else
  echo "tpcc: skipped: SYSBENCH_TPCC_DIR does not name a directory holding sysbench-tpcc's" \
       "tpcc.lua (https://github.com/Percona-Lab/sysbench-tpcc; nothing is fetched)"
fi
