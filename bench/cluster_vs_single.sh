#!/usr/bin/env bash
# `bmk cluster run` over 3 load hosts x 2 processes against one process
# with the same total VUs, on the same server: the
# throughput of each (same within noise is the aim: the split must not
# cost the server anything) and the client CPU per transaction, for the
# single process and for each load host (the processes' own CPU, not the
# coordinator's or ssh's). The load hosts are network namespaces on this
# machine with their own sshd (tests/integration/lib/netns_hosts.sh), so every
# "host" shares these CPUs with the server: the figures compare the two
# ways of driving the load, not what separate machines would reach.
#
# Usage (root): bash bench/cluster_vs_single.sh [VUs (24)] [seconds (15)] [pairs (3)]
# BENCH_OPTS adds bmk run options to both kinds (e.g. --workers=threads:
# by default each process picks its engine by its own VU count, so the
# single process of 24 VUs runs the event loop and the cluster's
# processes of 4 VUs run threads).
# BENCH_DBS="mysql pgsql" (default mysql) selects the databases; the
# sandbox servers must be running (tools/sandbox.sh start mysql|pgsql, same
# BMK_SANDBOX_DIR / ports). Runs of the two kinds alternate; medians.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$(pwd)
vus=${1:-24}
secs=${2:-15}
pairs=${3:-3}
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces, sshd)" >&2; exit 1; }
[ -x /usr/sbin/sshd ] || { echo "apt-get install openssh-server openssh-client" >&2; exit 1; }
BMK=$TOP/bmk
[ -x "$BMK" ] || { echo "build bmk first (./bmk not found)" >&2; exit 1; }
[ $((vus % 6)) = 0 ] || { echo "VUs must be a multiple of 6 (3 hosts x 2 processes)" >&2; exit 1; }
sandbox=${BMK_SANDBOX_DIR:-$TOP/.sandbox}
pass=${BMK_SANDBOX_PASSWORD:-sbtest}
dir=$(mktemp -d /tmp/bmk-bench-cvs-XXXXXX)
NH_DIR=$dir NH_ID=$$
source "$TOP/tests/integration/lib/netns_hosts.sh"
trap 'nh_cleanup; rm -rf "$dir"' EXIT
nh_setup 3
printf 'lg1 2\nlg2 2\nlg3 2\n' > "$dir/hosts"

# The processes run through a wrapper that records their CPU (bash's
# `times`: the children's user and system seconds) under the address of
# the host they ran on (SSH_CONNECTION's third field; "local" without ssh).
cat > "$dir/bmk-cpu" <<EOF
#!/bin/bash
"$BMK" "\$@"
rc=\$?
set -- \${SSH_CONNECTION:-- - local}
times > "$dir/times.\$\$"     # in this shell: a pipe would run it in a subshell
tail -1 "$dir/times.\$\$" > "$dir/cpu.\$3.\$\$"
exit \$rc
EOF
chmod 755 "$dir/bmk-cpu"
# seconds of "XmY.ZZZs" words, summed
cpu_of() { awk '{ for (i = 1; i <= NF; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } } END { printf "%.3f", s }' "$@"; }

for db in ${BENCH_DBS:-mysql}; do
  if [ "$db" = mysql ]; then
    O="--db-driver=mysql --mysql-socket=$sandbox/mysql/mysqld.sock --mysql-user=sbtest --mysql-password=$pass --mysql-db=sbtest"
  else
    O="--db-driver=pgsql --pgsql-host=$sandbox/pgsql --pgsql-port=${BMK_PGSQL_PORT:-5432} --pgsql-user=sbtest --pgsql-password=$pass --pgsql-db=sbtest"
  fi
  W="oltp_read_write $O --tables=4 --table-size=10000 --db-server-stats=off --server-cost=off ${BENCH_OPTS:-}"
  "$BMK" $W cleanup >/dev/null 2>&1 || true
  "$BMK" $W --threads=4 prepare >/dev/null
  : > "$dir/rows"
  for p in $(seq "$pairs"); do
    rm -f "$dir"/cpu.*
    "$dir/bmk-cpu" $W --threads="$vus" --time="$secs" --results="$dir/one.json" run > "$dir/one.out" 2>&1
    tps1=$(python3 -c "import json; print(json.load(open('$dir/one.json'))['summary']['tps'])")
    cpu1=$(cpu_of "$dir"/cpu.local.*)
    ev1=$(python3 -c "import json; print(json.load(open('$dir/one.json'))['summary']['events'])")
    rm -f "$dir"/cpu.*
    "$BMK" cluster run --hosts="$dir/hosts" --launcher="$NH_LAUNCHER" --remote-bmk="$dir/bmk-cpu" \
      --results="$dir/cl.json" -- $W --threads=$((vus / 6)) --time="$secs" run > "$dir/cl.out" 2>&1
    read -r tpsc evc <<< "$(python3 -c "import json; s = json.load(open('$dir/cl.json'))['summary']; print(s['events'] / s['time_s'], s['events'])")"
    # per host: its processes' CPU over its processes' transactions
    per=$(for i in 1 2 3; do
      a="$NH_PFX.$((10 + i))"
      c=$(cpu_of "$dir"/cpu."$a".*)
      e=$(python3 -c "import json; print(sum(p['events'] for p in json.load(open('$dir/cl.json'))['per_process'] if p['name'].startswith('lg$i#')))")
      awk -v c="$c" -v e="$e" 'BEGIN { printf "%.1f ", e ? c / e * 1e6 : 0 }'
    done)
    cpuc=$(cpu_of "$dir"/cpu."$NH_PFX".*)
    echo "$tps1 $(awk -v c="$cpu1" -v e="$ev1" 'BEGIN { print c / e * 1e6 }') $tpsc $(awk -v c="$cpuc" -v e="$evc" 'BEGIN { print c / e * 1e6 }') $per" >> "$dir/rows"
    if [ -n "${BENCH_VERBOSE:-}" ]; then echo "pair $p: $(tail -1 "$dir/rows")"; fi
  done
  "$BMK" $W cleanup >/dev/null 2>&1 || true
  echo "$db, oltp_read_write ${BENCH_OPTS:-}, $vus VUs, $secs s, medians of $pairs alternating pairs ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)):"
  python3 - "$dir/rows" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
col = lambda i: statistics.median(r[i] for r in rows)
print("  one process:              %9.1f tps, client CPU %6.1f us per transaction" % (col(0), col(1)))
print("  3 hosts x 2 processes:    %9.1f tps, client CPU %6.1f us per transaction (all hosts)" % (col(2), col(3)))
for h in range(3):
    print("    lg%d:                                  %6.1f us per transaction of its own" % (h + 1, col(4 + h)))
print("  throughput ratio cluster / one process: %.3f (range %.3f-%.3f)" % (
    col(2) / col(0), min(r[2] / r[0] for r in rows), max(r[2] / r[0] for r in rows)))
EOF
done
