#!/usr/bin/env bash
# pgbench scripts under bmk's command line on MariaDB, two bmk builds side
# by side (pgbench itself does not run against MariaDB, so the peer is
# an earlier build): the built-in select-only script at the given user
# count on one event-loop worker, on both MariaDB configurations
# (bench/server_configs.sh: one thread per connection, thread pool),
# the builds alternating, medians of the repetitions' tps and client
# CPU per transaction (user+system time of the bmk process, wait4).
#
# Usage: bash bench/pgbench_script_builds.sh OLD_BMK [users (16)] [repetitions (3)] [seconds (5)]
# OLD_BMK is the other build's binary (e.g. a `git worktree` of an
# earlier commit, built); ./bmk is this tree's. The servers are started
# and stopped here, on ports 3466 and up.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${1:?usage: bench/pgbench_script_builds.sh OLD_BMK [users] [repetitions] [seconds]}
USERS=${2:-16} REPS=${3:-3} SECS=${4:-5}
source bench/server_configs.sh
bench_servers_init 3466
for cfg in mysql-threads mysql-pool; do
  bench_config_start "$cfg" > /dev/null
  O="--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$BMK_MYSQL_PORT --mysql-user=sbtest"
  O+=" --mysql-password=${BMK_SANDBOX_PASSWORD:-sbtest} --mysql-db=sbtest"
  ./bmk $O --scale=1 pgbench_script prepare > /dev/null
  CFG=$cfg O="$O" OLD=$OLD USERS=$USERS REPS=$REPS SECS=$SECS python3 - <<'PY'
import os, re, statistics, sys
sys.path.insert(0, "bench")
from bench_util import run_measured
env = os.environ
opts = env["O"].split()
builds = (("old", env["OLD"]), ("new", "./bmk"))
res = {"old": [], "new": []}
for rep in range(int(env["REPS"])):
    for tool, binary in (builds if rep % 2 == 0 else builds[::-1]):
        out, cpu, _ = run_measured([binary] + opts + ["--threads=" + env["USERS"], "--workers=1",
                                   "--time=" + env["SECS"], "pgbench_script",
                                   "--builtin=select-only", "run"])
        n = int(re.search(r"transactions:\s+(\d+)", out).group(1))
        res[tool].append((n / float(env["SECS"]), 1e6 * cpu / max(n, 1)))
for tool in ("old", "new"):
    print("%-13s select-only %s VUs --workers=1 %s: tps %.0f, CPU %.1f us/tx" % (
        env["CFG"], env["USERS"], tool, statistics.median(r[0] for r in res[tool]),
        statistics.median(r[1] for r in res[tool])))
PY
  bench_config_stop
done
