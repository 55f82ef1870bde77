#!/usr/bin/env bash
# Many virtual users from one process: bmk's event loop vs
# Debian's sysbench 1.0.20 (one OS thread per user), on the MariaDB
# sandbox (thread pool), and bmk's client CPU per query in event mode vs
# thread mode.
#
# Usage: bash bench/vus_vs_sysbench.sh [VUs (20000)] [seconds (20)]
# Needs ./bmk built, `apt-get install sysbench`, and the sandbox server
# (bash tools/sandbox.sh start mysql; BMK_MYSQL_PORT etc. as for the tests).
#
# Prints, for bmk with VUs users and for sysbench with as many threads as
# it can start (it is retried with fewer when it cannot create them all):
#   - users connected and running, and the time until all were connected
#     (process start to "Threads started!");
#   - peak RSS (wait4's ru_maxrss) and RSS per user, over a 10-user run of
#     the same tool (so the per-user figure is what each user adds);
#   - client CPU (user+sys) per query;
#   - bmk only: the time from SIGINT to its exit with the report (it is
#     interrupted after running `seconds`; target: within 2 s).
# Each user runs `SELECT 1` then sleeps 1 s (bmk: sysbench.sleep, a timer;
# sysbench: usleep in its thread). Then bmk's RSS per user with the
# oltp_read_write script loaded (11 prepared statements per user; target
# <= 80 KB), and client CPU per query of oltp_point_select at 64 users:
# event mode on 2 workers vs thread mode (64 threads).
# The VUs are capped by the open-files hard limit (one connection each)
# and the server's max_connections. bmk's users log in 1 ms apart per
# worker (--login-delay=1): a server flooded with thousands of handshakes
# at once times some of them out.
set -euo pipefail
cd "$(dirname "$0")/.."
vus=${1:-20000}
secs=${2:-20}
command -v sysbench >/dev/null || { echo "sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
BMK=$(pwd)/bmk
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
opts="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=${BMK_MYSQL_PORT:-3306} --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/bmk_select1.lua" <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1"); sysbench.sleep(1) end
function thread_done() con:disconnect() end
LUA
cat > "$tmp/sb_select1.lua" <<'LUA'
local ffi = require("ffi")
ffi.cdef("int usleep(unsigned int usec);")
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1"); ffi.C.usleep(1000000) end
function thread_done() con:disconnect() end
LUA
cat > "$tmp/bmk_rw_think.lua" <<'LUA'
require("oltp_read_write")
local rw = event
function event(tid) rw(tid); sysbench.sleep(1) end
LUA

# the hard limits of this machine
hard=$(ulimit -Hn)
maxconn=$(MYSQL_PWD=$pass mariadb --protocol=tcp -h127.0.0.1 -P"${BMK_MYSQL_PORT:-3306}" -usbtest -N -B -e 'SELECT @@max_connections')
cap=$vus
[ "$hard" != unlimited ] && [ $((hard - 80)) -lt "$cap" ] && cap=$((hard - 80))
[ $((maxconn - 20)) -lt "$cap" ] && cap=$((maxconn - 20))
if [ "$cap" -lt "$vus" ]; then
  echo "note: $vus users asked; the open-files hard limit ($hard) and max_connections ($maxconn) allow $cap"
  vus=$cap
fi
ulimit -n "$hard" 2>/dev/null || true

"$BMK" oltp_read_write $opts --tables=4 --table-size=10000 cleanup >/dev/null 2>&1 || true
"$BMK" oltp_read_write $opts --tables=4 --table-size=10000 --threads=4 prepare >/dev/null

python3 - "$BMK" "$tmp" "$opts" "$vus" "$secs" <<'PY'
import os, re, subprocess, sys, time
bmk, tmp, opts, vus, secs = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4]), sys.argv[5]

last_interrupt = None

def run(cmd, interrupt_after=None):
    """Runs cmd; returns (output, seconds to 'Threads started!', cpu s, maxrss KB, rc).
    With interrupt_after, sends SIGINT that many seconds after the start
    line and records how long the process took to exit (last_interrupt)."""
    global last_interrupt
    import signal
    t0 = time.monotonic()
    sent = None
    out_path = os.path.join(tmp, "out")
    open(out_path, "w").close()   # before the fork: no stale "Threads started!"
    pid = os.fork()
    if pid == 0:
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.execvp(cmd[0], cmd)
    started = None
    while True:
        r, status, ru = os.wait4(pid, os.WNOHANG)
        if r == pid:
            break
        if started is None:
            try:
                if "Threads started!" in open(out_path, errors="replace").read():
                    started = time.monotonic() - t0
            except OSError:
                pass
        elif interrupt_after is not None and sent is None and \
                time.monotonic() - t0 - started >= interrupt_after:
            os.kill(pid, signal.SIGINT)
            sent = time.monotonic()
        time.sleep(0.05)
    if sent is not None:
        last_interrupt = time.monotonic() - sent
    out = open(out_path, errors="replace").read()
    return out, started, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)

def queries(out):
    m = re.search(r"^\s+queries:\s+(\d+)", out, re.M)
    return int(m.group(1)) if m else 0

rows = []
def many(tool, n, extra=(), interrupt_after=None):
    script = os.path.join(tmp, "bmk_select1.lua" if tool == "bmk" else "sb_select1.lua")
    exe = bmk if tool == "bmk" else "sysbench"
    cmd = [exe, script] + opts + ["--threads=%d" % n, "--time=%s" % secs] + list(extra) + ["run"]
    return run(cmd, interrupt_after)

base = {"bmk": many("bmk", 10, ["--workers=%d" % min(10, os.cpu_count() or 1)])[3],
        "sysbench": many("sysbench", 10)[3]}
# event mode even below 1,024 users (the default above): one worker per CPU
workers = "--workers=%d" % min(vus, os.cpu_count() or 1)
out, started, cpu, rss, rc = many("bmk", vus, [workers, "--db-server-stats=off", "--login-delay=1",
                                              "--thread-init-timeout=600",
                                              "--time=%d" % (int(secs) * 10)],
                                   interrupt_after=float(secs))
if rc != 130:
    sys.exit("bmk failed:\n" + out[-3000:])
rows.append(("bmk (event loop)", vus, started, rss, (rss - base["bmk"]) / vus, cpu / max(queries(out), 1) * 1e6))
n = vus
while n >= 10:
    out, started, cpu, rss, rc = many("sysbench", n)
    if rc == 0 and queries(out) > 0:
        rows.append(("sysbench 1.0.20", n, started, rss, (rss - base["sysbench"]) / n, cpu / queries(out) * 1e6))
        break
    m = re.search(r"thread #?(\d+)", out) or re.search(r"(\d+)\s*threads", out)
    print("sysbench could not run %d threads: %s" % (n, (out.strip().splitlines() or ["?"])[-1]))
    n = int(int(m.group(1)) * 0.9) if m and int(m.group(1)) < n else n // 2

print()
print("%d users, SELECT 1 then 1 s sleep, %s s; RSS per user over a 10-user run" % (vus, secs))
print("%-18s %7s %12s %12s %13s %13s" % ("tool", "users", "connect (s)", "peak RSS MB", "RSS/user KB", "CPU/query us"))
for name, n, started, rss, per, cpuq in rows:
    print("%-18s %7d %12s %12.0f %13.1f %13.1f" % (name, n, "%.1f" % started if started else "-", rss / 1024, per, cpuq))
print("bmk: SIGINT after %s s of run to exit with the report: %.2f s (target <= 2)" % (secs, last_interrupt or -1))

# RSS per VU with the OLTP read-write script loaded
rw_users = min(vus, 2000)
base_rw = run([bmk, os.path.join(tmp, "bmk_rw_think.lua")] + opts +
              ["--tables=1", "--table-size=10000", "--threads=10", "--workers=2", "--time=5", "--db-server-stats=off", "run"])[3]
out, started, cpu, rss, rc = run([bmk, os.path.join(tmp, "bmk_rw_think.lua")] + opts +
              ["--tables=1", "--table-size=10000", "--threads=%d" % rw_users, "--workers=2",
               "--time=%s" % secs, "--db-server-stats=off", "--login-delay=1",
               "--thread-init-timeout=600", "run"])
print()
print("bmk oltp_read_write (--tables=1: 11 prepared statements per user, 1 s think time), %d users:\n"
      "  peak RSS %.0f MB, %.1f KB per user (target <= 80)%s"
      % (rw_users, rss / 1024, (rss - base_rw) / rw_users, "" if rc == 0 else " [run failed]"))

# client CPU per query at 64 users: event mode vs thread mode
print()
print("oltp_point_select at 64 users, %s s: client CPU (user+sys) per query" % secs)
for label, extra in (("thread mode, 64 threads", []), ("event mode, 2 workers", ["--workers=2"])):
    out, started, cpu, rss, rc = run([bmk, "oltp_point_select"] + opts +
                                     ["--tables=4", "--table-size=10000", "--threads=64", "--time=%s" % secs,
                                      "--db-server-stats=off"] + extra + ["run"])
    q = queries(out)
    print("  %-26s %9.1f us/query  (%d queries/s)" % (label, cpu / max(q, 1) * 1e6, q / float(secs)))
PY
"$BMK" oltp_read_write $opts --tables=4 --table-size=10000 cleanup >/dev/null 2>&1 || true
