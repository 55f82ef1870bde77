#!/usr/bin/env bash
# `bmk cluster run` across load hosts (docs/cluster.md): three network
# namespaces made here, each with its own address on a private bridge and
# Debian's openssh-server with a key generated for the test; the
# coordinator reaches them with the system's ssh (one multiplexed
# connection per host). The sandbox servers are reached from the
# namespaces over their Unix sockets (a network namespace shares the file
# system), so the servers keep listening on 127.0.0.1 only.
#  - 3 hosts x 2 processes of oltp_read_write (2 s): the merged transaction
#    count equals the server's Com_commit delta; every interval's merged
#    p95 equals the p95 of the union of the processes' histograms; every
#    interval line says thds: 6 and procs: 6/6 and is one of the JSON's
#    intervals, with the same process count.
#  - PostgreSQL, 3 hosts x 2 processes of oltp_read_write in a database of
#    the test's own: merged transactions = the xact_commit delta less what
#    each process commits besides its events (measured).
#  - TPC-C on both databases, 2 hosts x 1 process over 2 warehouses:
#    merged commits = the server's commit delta; every home warehouse in
#    exactly one process (the JSON's per-process notes); MariaDB's schema
#    loaded by `bmk cluster run -- tpcc ... prepare` (each process its
#    warehouse) has the rows PostgreSQL's one-process prepare has.
#  - one process SIGKILLed mid-run: the run finishes, the host is named,
#    later intervals say 5/6, exit code 5; one frozen (SIGSTOP) with
#    --cluster-timeout=1 and --cluster-on-failure=stop: named as lost, the
#    run stops early with the summary and exit code 5.
#  - --metrics-listen: the coordinator serves the merged numbers (every
#    scrape a prefix of the merged intervals, the last the summary); the
#    processes' own on PORT + slot.
#  - Ctrl-C on the coordinator: exit 130, the summary, nothing left; a
#    clock offset above --max-clock-offset refused naming the host and
#    chrony/NTP.
#  - --copy-bmk: the binary copied into the host's cache and run.
#  - --copy-script: a script and its module copied under a content name,
#    run through LUA_PATH; an edit makes a new copy.
#  - -- kit NAME USERS SECONDS: the kit plan's command, its Lua files
#    copied; an unknown name refused.
#  - a host running another bmk release: refused naming it and the ways
#    out (--copy-bmk, --remote-bmk), nothing left running.
#  - bad hosts files (unknown host, a host refusing the key, the same host
#    twice): a message naming the entry, non-zero exit, no bmk left
#    running.
# Needs root (namespaces, sshd); skipped otherwise with the reason.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib/lib.sh"
cd "$WORK" || exit 1
export TMPDIR=$WORK    # the coordinator's logs of failed runs

if [ "$(id -u)" != 0 ]; then
  skip "cluster over ssh in network namespaces" "needs root (ip netns, sshd)"
  finish
  exit
fi
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then
  not_ok "cluster: Debian's openssh-server and openssh-client are needed (apt-get install openssh-server openssh-client)"
  finish
  exit
fi

# Three load hosts (tests/integration/lib/netns_hosts.sh): names and a /24 of
# our own from the pid (two passes may run at once); the launcher keeps
# one master connection per host between the test's runs (a handshake per
# host and run would cost seconds on a small machine); the trap ends them.
NH_DIR=$WORK NH_ID=$$
source "$HERE/lib/netns_hosts.sh"

cleanup() {
  # no bmk of this test may survive it, nor its ssh master connections
  pkill -KILL -f -- "($BMK|$WORK/cache/bmk-[^ ]*) .*--cluster-stream" 2>/dev/null
  nh_cleanup
  [ -n "${PGREADY:-}" ] && autovac on
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! nh_setup 3; then
  not_ok "cluster: could not set up the namespaces and sshd"
  finish
  exit
fi
HOSTS=("${NH_HOSTS[@]}")
PFX=$NH_PFX
LAUNCHER=$NH_LAUNCHER
for h in "${HOSTS[@]}"; do
  check "ssh reaches $h" ssh -F "$WORK/ssh_config" -o BatchMode=yes "$h" true
done

SOCK="$SANDBOX_DIR/mysql/mysqld.sock"
DB="--db-driver=mysql --mysql-socket=$SOCK --mysql-user=sbtest --mysql-password=$DBPASS --mysql-db=sbtest"
OLTP="oltp_read_write $DB --tables=2 --table-size=200 --threads=1 --db-server-stats=off --server-cost=off"
com_commit() {
  mysql -h127.0.0.1 -P"$MYSQL_PORT" -usbtest -p"$DBPASS" -N -e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{print $2}'
}
# bmk processes of this test still running
leftover() { pgrep -f -- "($BMK|$WORK/cache/bmk-[^ ]*) .*--cluster-stream" | wc -l; }
wait_no_leftover() {
  local t
  for t in $(seq 300); do [ "$(leftover)" = 0 ] && return 0; sleep 0.1; done
  return 1
}
printf 'lg1 2\nlg2 2  # two processes\nlg3 2\n' > hosts

"$BMK" $OLTP cleanup >/dev/null 2>&1
if ! "$BMK" $OLTP prepare > prep.out 2>&1; then
  not_ok "cluster: prepare failed: $(tail -3 prep.out)"
  finish
  exit
fi

# ---- 3 hosts x 2 processes: exact counts and exact merged percentiles
c0=$(com_commit)
"$BMK" cluster run --hosts=hosts --launcher="$LAUNCHER" --results=cl.json --cluster-verbose -- \
  $OLTP --time=2 --report-interval=1 run > run.out 2>&1
RC=$?
c1=$(com_commit)
assert_eq "cluster run exits 0" 0 "$RC"
[ "$RC" = 0 ] || sed 's/^/    | /' run.out | tail -20
assert_eq "6 ready lines, each with its clock offset" 6 "$(grep -c 'ready (pid [0-9]*), clock offset' run.out)"
tx=$(awk '/transactions:/ {print $2}' run.out)
assert_eq "merged transactions = the server's Com_commit delta" "$((c1 - c0))" "$tx"
assert_contains "the summary counts 6 of 6 processes" "$(cat run.out)" "Cluster: 6 of 6 processes in the summary"
assert_eq "per-process section: 6 processes that ended" 6 "$(grep -cE '^    lg[123]#[01] +events: [0-9]+ .*exit: 0' run.out)"
# every merged line of a fault-free run has all 6 processes and their 6
# VUs (the one at the end of --time too: a VU that ran to the end counts,
# however late its reporter sampled), and the lines are the JSON's
# intervals (checked below)
nl=$(grep -c '^\[ [0-9]*s \] ' run.out)
n6=$(grep -c '^\[ [0-9]*s \] thds: 6 .* procs: 6/6$' run.out)
check "merged interval lines ($nl) all say thds: 6 and procs: 6/6 ($n6)" test "$nl" -ge 2 -a "$nl" = "$n6"
[ "$nl" -ge 2 ] && [ "$nl" = "$n6" ] || grep -E '^\[|procs|ready' run.out | sed 's/^/    | /'
# --cluster-verbose: one process line per process a merged line counts
np=$(sed -n 's|^\[ [0-9]*s \] .* procs: \([0-9]*\)/6$|\1|p' run.out | awk '{s += $1} END {print s + 0}')
nv=$(grep -cE '^    \[ [0-9]+s \] lg[123]#[01]: thds: [0-9]+ ' run.out)
assert_eq "--cluster-verbose: a process line per process of each merged line" "$np" "$nv"
cat > p95.py <<'EOF'
# p95 of the union of per-process histograms (HdrHistogram V2, deflated,
# base64: 3 significant digits, unit 1 ns) against the merged p95
import base64, json, math, struct, sys, zlib
def counts(b64):
    raw = base64.b64decode(b64)
    cookie, n = struct.unpack(">ii", raw[:8])
    v2 = zlib.decompress(raw[8:8 + n])
    plen = struct.unpack(">i", v2[4:8])[0]
    data, i, idx, out = v2[40:40 + plen], 0, 0, {}
    while i < len(data):
        shift = val = 0
        while True:
            b = data[i]; i += 1
            val |= (b & 0x7f) << shift; shift += 7
            if not b & 0x80: break
        val = (val >> 1) ^ -(val & 1)
        if val < 0: idx += -val
        else:
            if val: out[idx] = out.get(idx, 0) + val
            idx += 1
    return out
def highest(i):  # the highest value equivalent to counter i (1024 half-count)
    b, s = (i >> 10) - 1, (i & 1023) + 1024
    if b < 0: b, s = 0, s - 1024
    return (s << b) + (1 << b) - 1
def pct(c, p):
    total = sum(c.values()); want = max(1, math.ceil(p / 100 * total)); run = 0
    for i in sorted(c):
        run += c[i]
        if run >= want: return highest(i)
    return 0
d = json.load(open(sys.argv[1]))["cluster"]; bad = 0
for iv in d["intervals"]:
    u = {}
    for h in iv["hist_by_process"].values():
        for i, n in counts(h).items(): u[i] = u.get(i, 0) + n
    # (the events of an interval are not compared with its histograms'
    # total: a process reads its event counter and its histogram a moment
    # apart, and an event that ends in between is in one interval's
    # histogram and the next one's count; they agree over the run)
    if pct(u, 95) != iv["pct_ns"]:
        bad += 1; print("interval", iv["t"], pct(u, 95), iv["pct_ns"], sum(u.values()), iv["events"])
print(len(d["intervals"]), bad, min(len(iv["hist_by_process"]) for iv in d["intervals"]))
EOF
read -r niv nbad minp <<< "$(python3 p95.py cl.json | tail -1)"
check "the JSON has the merged intervals ($niv)" test "${niv:-0}" -ge 2
assert_eq "every interval's merged p95 = the p95 of the union of the 6 histograms" 0 "$nbad"
[ "$nbad" = 0 ] || python3 p95.py cl.json | sed 's/^/    | /' 
assert_eq "every interval has all 6 processes' histograms" 6 "$minp"
# the printed lines and the JSON's intervals: the same intervals, each
# with the same process count
lines=$(sed -n 's|^\[ \([0-9]*\)s \] .* procs: \([0-9]*\)/6$|\1 \2|p' run.out | tr '\n' ' ')
jivs=$(python3 -c "import json
for iv in json.load(open('cl.json'))['cluster']['intervals']: print('%d %d' % (round(iv['t']), iv['processes']))" | tr '\n' ' ')
assert_eq "the printed interval lines are the JSON's intervals (t, processes)" "$jivs" "$lines"
assert_eq "JSON summary events = the report's" "$tx" "$(python3 -c "import json; print(json.load(open('cl.json'))['summary']['events'])")"
# the document is the processes' documents merged as bmk report --merge
# merges runs: a --results document like any other, whose interval rows
# are the live merge's, count for count
check "cl.json is a valid --results document (schema)" json_ok cl.json
assert_eq "the merged document's interval events = the live merge's" \
  "$(python3 -c "import json; print([iv['events'] for iv in json.load(open('cl.json'))['cluster']['intervals']])")" \
  "$(python3 -c "import json; print([r['events'] for r in json.load(open('cl.json'))['intervals']])")"
assert_eq "the merged document names the 6 processes' documents" 6 \
  "$(python3 -c "import json; print(len(json.load(open('cl.json'))['manifest']['merged_from']))")"
check "no bmk left running after the run" wait_no_leftover

# ---- one scrape target: the coordinator's --metrics-listen serves the
# merged numbers (2 hosts, 3 processes); the run arguments'
# --metrics-listen puts lg1's two processes on PORT and PORT+1 (the same
# port would stop the second with "port in use"). Every page scraped
# during the run holds the events and queries of the merged intervals
# printed so far (a prefix of the document's cluster.intervals), and the
# one after the end the merged summary's.
printf 'lg1 2\nlg2\n' > hosts.m
# Ports below the kernel's ephemeral range (32768 up), where an outgoing
# connection of another lane cannot hold them, and free now.
MP=$(free_port $((20000 + ($$ % 4000) * 2)))
PP=$(free_port $((MP + 1)))
while [ "$(free_port $((PP + 1)))" != $((PP + 1)) ]; do PP=$(free_port $((PP + 2))); done
"$BMK" cluster run --hosts=hosts.m --launcher="$LAUNCHER" --results=m.json \
  --metrics-listen=127.0.0.1:$MP --metrics-linger=20 -- \
  $OLTP --time=3 --report-interval=1 --metrics-listen=127.0.0.1:$PP run > m.out 2>&1 &
mpid=$!
i=0
while kill -0 "$mpid" 2>/dev/null; do
  curl -s --max-time 2 "http://127.0.0.1:$MP/metrics" > "scrape.$i" 2>/dev/null && i=$((i + 1))
  sleep 0.2
done
wait "$mpid"; RC=$?
assert_eq "cluster run with --metrics-listen: exit 0 (lg1's two processes on ports $PP and $((PP + 1)))" 0 "$RC"
[ "$RC" = 0 ] || sed 's/^/    | /' m.out | tail -20
assert_contains "the coordinator names its endpoint" "$(cat m.out)" \
  "cluster: the merged metrics of the 3 processes at http://127.0.0.1:$MP/metrics"
cat > scrapes.py <<'EOF'
import glob, json, re, sys
d = json.load(open("m.json"))
ivs = d["cluster"]["intervals"]
ev, q = [0], [0]
for iv in ivs:
    ev.append(ev[-1] + iv["events"]); q.append(q[-1] + iv["reads"] + iv["writes"] + iv["other"])
def val(page, name):
    return sum(float(m.group(1)) for m in re.finditer(r"^" + name + r"\{[^}]*\} (\S+)$", page, re.M))
mid = bad = 0; last = None
for f in sorted(glob.glob("scrape.*"), key=lambda f: int(f.split(".")[1])):
    page = open(f).read()
    if "bmk_events_total" not in page: continue
    e, qq, fin = val(page, "bmk_events_total"), val(page, "bmk_queries_total"), val(page, "bmk_run_finished")
    last = (e, qq, fin)
    if fin: continue
    if (e, qq) not in set(zip(ev, q)): bad += 1; print("page", f, e, qq, list(zip(ev, q)))
    elif e > 0: mid += 1
s = d["summary"]
print(mid > 0, bad, last == (s["events"], s["queries"]["total"], 1.0))
EOF
assert_eq "scrapes: some during the run, each a prefix of the merged intervals; the last the merged summary" \
  "True 0 True" "$(python3 scrapes.py | tail -1)"
[ "$(python3 scrapes.py | tail -1)" = "True 0 True" ] || python3 scrapes.py | sed 's/^/    | /'

# A process still tearing down after its end line (here its `done` hook
# takes 1 s) sees the coordinator close its stdin: that end of input is
# no interruption, with the processes' own --metrics-listen too (a
# signal taken by its server thread would end the process with 143 after
# a report that says 0).
# (Launched locally: ssh's own end of input arrives too late to show it.)
printf 'function event() end\nfunction done() os.execute("sleep 1") end\n' > slowdone.lua
printf 'lg1 2\n' > hosts.slow
"$BMK" cluster run --hosts=hosts.slow --launcher=local -- "$WORK/slowdone.lua" \
  --time=1 --rate=20 --metrics-listen=127.0.0.1:$PP run > slow.out 2>&1
RC=$?
assert_eq "processes whose done hook outlasts their end line: exit 0" 0 "$RC"
[ "$RC" = 0 ] || sed 's/^/    | /' slow.out | tail -20
run_bmk cluster run --hosts=hosts.m --launcher=local --metrics-listen=127.0.0.1 -- cpu --time=1 run
assert_eq "cluster --metrics-listen without a port: exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "--metrics-listen=127.0.0.1: give ADDRESS:PORT"
run_bmk cluster run --hosts=hosts.m --launcher=local -- cpu --time=1 --metrics-listen=x run
assert_eq "a process --metrics-listen without a port: exit 1" 1 "$RC"
assert_contains "... says so" "$OUT" "--metrics-listen=x (a run argument): give ADDRESS:PORT"


# ---- PostgreSQL (over its Unix socket too), in a database of the test's
# own so nothing else commits in it (and the server's autovacuum off
# meanwhile): oltp_read_write's merged
# transactions = the server's xact_commit delta less what the sessions
# commit besides their events (each statement a session prepares is a
# transaction of its own: measured by a one-event run of one process).
# The server publishes a backend's counts when it exits: waited for.
PGDB="--db-driver=pgsql --pgsql-host=$SANDBOX_DIR/pgsql --pgsql-port=$PGSQL_PORT --pgsql-user=sbtest --pgsql-password=$DBPASS --pgsql-db=bmkcl"
# bmkcl's committed transactions, read from another database
xc() { pgsql_q "SELECT xact_commit FROM pg_stat_database WHERE datname = 'bmkcl'"; }
bmkcl_q() { PGPASSWORD=$DBPASS psql -h 127.0.0.1 -p "$PGSQL_PORT" -U sbtest -d bmkcl -At -c "$1"; }
# autovac on|off: the sandbox server's autovacuum. Off while the test
# counts (the test's own server: nothing else uses it meanwhile), since an
# autovacuum worker commits in every database it visits, even one with
# nothing to do, at any moment; back on at the end and by the trap.
autovac() {
  if [ "$1" = off ]; then pgsql_q "ALTER SYSTEM SET autovacuum = off" >/dev/null
  else pgsql_q "ALTER SYSTEM RESET autovacuum" >/dev/null; fi
  pgsql_q "SELECT pg_reload_conf()" >/dev/null
}
PGREADY=
if [[ " ${BMK_TEST_DBS:-mysql pgsql} " == *" pgsql "* ]]; then
  pgsql_q "DROP DATABASE IF EXISTS bmkcl" >/dev/null 2>&1
  pgsql_q "CREATE DATABASE bmkcl" >/dev/null && PGREADY=1 && autovac off
  [ -n "$PGREADY" ] || not_ok "PostgreSQL: cannot create the test's database bmkcl"
fi
# xc_settled: bmkcl's count once no backend is in it and it stays the same
# for 0.3 s (30 s at most)
xc_settled() {
  local t a b
  for t in $(seq 150); do
    if [ "$(pgsql_q "SELECT count(*) FROM pg_stat_activity WHERE datname = 'bmkcl'")" = 0 ]; then
      a=$(xc); sleep 0.3; b=$(xc)
      [ "$a" = "$b" ] && { echo "$b"; return; }
    fi
    sleep 0.2
  done
  xc
}
# events FILE: the transactions of a report (an OLTP event that met an
# error is restarted, counted once: one commit each)
events() { awk '/transactions:/ {print $2}' "$1"; }
# committed FILE: TPC-C's events - ignored errors (the intended New-Order rollbacks
# are errors with --rollback-as-error=on) of a report in file $1
committed() { awk '/transactions:/ {e = $2} /ignored errors:/ {r = $3} END {print e - r}' "$1"; }
if [ -n "$PGREADY" ]; then
  PGRW="oltp_read_write $PGDB --tables=2 --table-size=200 --threads=1 --db-server-stats=off --server-cost=off"
  "$BMK" $PGRW prepare > pgprep.out 2>&1
  check "PostgreSQL: prepare" test "$?" = 0
  x0=$(xc_settled)
  "$BMK" $PGRW --events=1 run > pg1.out 2>&1
  x1=$(xc_settled)
  extra=$((x1 - x0 - $(events pg1.out)))
  "$BMK" cluster run --hosts=hosts --launcher="$LAUNCHER" -- $PGRW --time=1 run > pg.out 2>&1
  assert_eq "PostgreSQL oltp_read_write: cluster run exits 0" 0 "$?"
  x2=$(xc_settled)
  assert_contains "PostgreSQL: 6 of 6 in the summary" "$(cat pg.out)" "Cluster: 6 of 6 processes in the summary"
  assert_eq "PostgreSQL: merged transactions = the server's xact_commit delta less 6 x $extra (the statements each process prepares)" \
    "$((x2 - x1 - 6 * extra))" "$(events pg.out)"
  [ "$((x2 - x1 - 6 * extra))" = "$(events pg.out)" ] ||
    grep -E 'transactions:|errors:|reconnects:|^    [a-z0-9#]+ +events' pg.out | sed 's/^/    | /'
fi

# ---- TPC-C on both databases, 2 hosts x 1 process with one session each
# over 2 warehouses (the smallest scale that gives each process its own):
# merged commits (events less the intended rollbacks, errors with
# --rollback-as-error=on) = the server's Com_commit / xact_commit delta,
# and the processes' home warehouses (their "tpcc_home_warehouses"
# notes in the JSON) are all 3, each in exactly one process. PostgreSQL
# in text mode: a session prepares nothing, so what it commits besides
# its transactions is the same in every run (measured as above).
printf 'lg1\nlg3\n' > hosts.tp
# tpcounts DB: the row counts of the 9 tpcc tables of set 1
tpcounts() {
  local t sql=""
  for t in item warehouse district customer history orders new_orders order_line stock; do
    sql="$sql${sql:+ UNION ALL }SELECT '$t', COUNT(*) FROM ${t}1"
  done
  if [ "$1" = mysql ]; then
    mysql -h127.0.0.1 -P"$MYSQL_PORT" -usbtest -p"$DBPASS" sbtest -N -e "$sql" | tr '\t' ' ' | sort
  else
    bmkcl_q "$sql" | tr '|' ' ' | sort
  fi
}
cat > homes.py <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); seen = {}; dup = 0
for p in d["cluster"]["per_process"]:
    hs = p.get("notes", {}).get("tpcc_home_warehouses", [])
    if not hs: dup += 1
    for h in hs:
        dup += h in seen
        seen[h] = p["name"]
print(" ".join(sorted(seen)), dup)
PY
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then
    TP="tpcc $DB"
  else
    [ -n "$PGREADY" ] || continue
    TP="tpcc $PGDB --tpcc-mode=text"
  fi
  TP="$TP --scale=2 --threads=1 --db-server-stats=off --server-cost=off --audit=off --rollback-as-error=on"
  "$BMK" $TP cleanup >/dev/null 2>&1
  # MariaDB's schema is loaded by the 2 processes (each its warehouse,
  # process 0 the items too), PostgreSQL's by one process: the same seed
  # gives the same rows, compared below
  if [ $db = mysql ]; then
    "$BMK" cluster run --hosts=hosts.tp --launcher="$LAUNCHER" -- $TP --rand-seed=7 prepare > tpprep.out 2>&1
  else
    "$BMK" $TP --rand-seed=7 --threads=2 prepare > tpprep.out 2>&1
  fi
  if [ $? != 0 ]; then
    not_ok "$db: tpcc prepare failed: $(tail -3 tpprep.out)"
    continue
  fi
  tpcounts $db > "counts.$db"
  if [ $db = mysql ]; then
    assert_contains "cluster prepare: 2 of 2 processes ended normally" "$(cat tpprep.out)" \
      "cluster: prepare: 2 of 2 processes ended normally"
    assert_eq "cluster prepare: lg3#0 loaded warehouse 2 alone (1 warehouse, no item)" "1 0" \
      "$(awk '$1 == "[lg3#0]" && $2 == "warehouse" {w = $3} $1 == "[lg3#0]" && $2 == "item" {i = $3} END {print w, i}' tpprep.out)"
    assert_eq "cluster prepare: the schema is complete" complete \
      "$(mysql -h127.0.0.1 -P"$MYSQL_PORT" -usbtest -p"$DBPASS" sbtest -N -e "SELECT v FROM tpcc_meta WHERE k = 'state'")"
  fi
  # a run records in tpcc_meta that a Delivery and a purge ran, once
  # (one commit per process of the first run after a prepare): recorded
  meta="DELETE FROM tpcc_meta WHERE k IN ('delivery_executed', 'purged'); INSERT INTO tpcc_meta (k, v) VALUES ('delivery_executed', '1'), ('purged', '1')"
  extra=0
  if [ $db = mysql ]; then
    mysql -h127.0.0.1 -P"$MYSQL_PORT" -usbtest -p"$DBPASS" sbtest -e "$meta"
    x1=$(com_commit)
  else
    bmkcl_q "$meta" >/dev/null
    x0=$(xc_settled)
    "$BMK" $TP --events=1 run > tp1.out 2>&1
    x1=$(xc_settled)
    extra=$((x1 - x0 - $(committed tp1.out)))
  fi
  "$BMK" cluster run --hosts=hosts.tp --launcher="$LAUNCHER" --results=tp.json --html=tp.html \
    --results-db="$WORK/runs.db" -- $TP --time=1 run > tp.out 2>&1
  assert_eq "$db tpcc: cluster run exits 0" 0 "$?"
  if [ $db = mysql ]; then x2=$(com_commit); else x2=$(xc_settled); fi
  assert_contains "$db tpcc: 2 of 2 in the summary" "$(cat tp.out)" "Cluster: 2 of 2 processes in the summary"
  if [ $db = mysql ]; then
    assert_eq "$db tpcc: merged commits = the server's commit delta" \
      "$((x2 - x1))" "$(committed tp.out)"
  else
    # On PostgreSQL every autocommit SELECT is a transaction too: a
    # process's own statements ($extra, measured on a one-event run) are
    # taken off. Under the ASan build the server has once counted one
    # commit more than that (a statement of a process's own whose count
    # varies with timing, not found yet): up to one per process is
    # allowed, never fewer commits than the client reports.
    d=$((x2 - x1 - 2 * extra - $(committed tp.out)))
    check "$db tpcc: merged commits = the server's commit delta less 2 x $extra, less at most one sample per process (left: $d)" \
      test "$d" -ge 0 -a "$d" -le 2
  fi
  # per-type rows: the processes' documents merged exactly
  assert_contains "$db tpcc: the merged per-type table" "$(cat tp.out)" "Event types (latency in ms):"
  assert_eq "$db tpcc: the per-type events add up to the merged events" \
    "$(python3 -c "import json; d = json.load(open('tp.json')); print(d['summary']['events'], d['cluster']['summary']['events'])")" \
    "$(python3 -c "import json; d = json.load(open('tp.json')); s = sum(t['events'] for t in d['event_types']); print(s, s)")"
  assert_eq "$db tpcc: the five transaction types merged" "delivery new_order order_status payment stock_level" \
    "$(python3 -c "import json; print(' '.join(sorted(t['name'] for t in json.load(open('tp.json'))['event_types'] if t['name'] != 'event')))")"
  # NOPM merged: each process counted the database's New-Orders over its
  # window (scope server), all on one database, so the mean of the two;
  # every New-Order committed in any process's window is one of the merged
  # new_order events, so the count is at most those. (No TPM: the
  # processes run with --db-server-stats=off, and TPM is the server's.)
  assert_eq "$db tpcc: NOPM merged as the database's (mean of 2), its count within the new_order events; no TPM" \
    "mean 2 True False" "$(python3 -c "
import json; d = json.load(open('tp.json')); f = d['summary']['figures']
no = [t['events'] for t in d['event_types'] if t['name'] == 'new_order'][0]
n = f['tpcc_nopm']
print(n['merge'], n['runs'], 0 < n['count'] <= no, 'tpcc_tpm' in f)")"
  assert_match "$db tpcc: the report's NOPM line" "$(cat tp.out)" \
    "^    NOPM +[0-9]+\\.[0-9]{2} per minute \\(the database's: the mean of 2 runs on it\\)$"
  check "$db tpcc: --html wrote the merged run's charts" grep -q '<svg' tp.html
  assert_match "$db tpcc: --results-db saved the merged run" "$(cat tp.out)" \
    "^cluster: saved as run [0-9]+ in $WORK/runs.db"
  assert_eq "$db tpcc: home warehouses 1 and 2, each in exactly one process" "1:1 1:2 0" \
    "$(python3 homes.py tp.json)"
  "$BMK" $TP cleanup >/dev/null 2>&1
done
if [ -f counts.mysql ] && [ -f counts.pgsql ]; then
  assert_eq "tpcc prepare split over 2 processes (MariaDB) = one process's (PostgreSQL): rows per table" \
    "$(cat counts.pgsql)" "$(cat counts.mysql)"
fi
if [ -n "$PGREADY" ]; then
  autovac on
  pgsql_q "DROP DATABASE IF EXISTS bmkcl" >/dev/null 2>&1
fi

# ---- one process SIGKILLed mid-run
kill_run() {  # kill_run OUT HOSTS SIGNAL [coordinator options]: signals lg2#1 0.3 s into the run
  local out=$1 hosts=$2 sig=$3
  shift 3
  "$BMK" cluster run --hosts="$hosts" --launcher="$LAUNCHER" "$@" -- \
    $OLTP --time=2 --report-interval=1 run > "$out" 2>&1 &
  local cpid=$! t pid=
  for t in $(seq 300); do
    grep -q 'processes start together' "$out" && break
    sleep 0.1
  done
  sleep 0.3
  pid=$(sed -n 's/.*lg2#1 ready (pid \([0-9]*\)).*/\1/p' "$out")
  [ -n "$pid" ] && kill -"$sig" "$pid"
  wait "$cpid"
  local rc=$?
  # a stopped bmk finds its input closed once it runs again, and ends
  [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
  return $rc
}
kill_run kill.out hosts KILL
RC=$?
assert_eq "a lost process: the run finishes with exit code 5" 5 "$RC"
assert_contains "the lost host is named with the time" "$(cat kill.out)" "cluster: host lg2 (lg2#1): connection lost at"
after=$(sed -n '/connection lost at/,$p' kill.out | grep -c 'procs: 5/6$')
check "intervals after the loss report 5/6 processes ($after)" test "$after" -ge 2
assert_contains "the summary counts 5 of 6" "$(cat kill.out)" "Cluster: 5 of 6 processes in the summary"
check "no bmk left running after a lost process" wait_no_leftover

# (fewer processes where the count does not matter: the machine has 2 CPUs)
printf 'lg1\nlg2 2\n' > hosts.3
# lg2#1 is frozen (SIGSTOP), as a dead network would leave it: silent
kill_run stop.out hosts.3 STOP --cluster-on-failure=stop --cluster-timeout=1
RC=$?
assert_eq "--cluster-on-failure=stop: exit code 5" 5 "$RC"
assert_contains "a silent process is lost after --cluster-timeout" "$(cat stop.out)" "cluster: host lg2 (lg2#1): connection lost at"
assert_contains "the silence is the reason" "$(cat stop.out)" "s (--cluster-timeout)"
assert_contains "--cluster-on-failure=stop stops every process" "$(cat stop.out)" "cluster: --cluster-on-failure=stop: stopping every process"
assert_contains "--cluster-on-failure=stop prints the merged summary" "$(cat stop.out)" "processes in the summary"
check "--cluster-on-failure=stop ends before the 2 s" bash -c "! grep -q '^\[ 2s \]' stop.out"
check "no bmk left running after a stop" wait_no_leftover

# ---- Ctrl-C on the coordinator: every process stops, the summary prints
printf 'lg1\nlg3\n' > hosts.2
"$BMK" cluster run --hosts=hosts.2 --launcher="$LAUNCHER" -- \
  $OLTP --time=60 --report-interval=1 run > int.out 2>&1 &
cpid=$!
for t in $(seq 300); do grep -q 'processes start together' int.out && break; sleep 0.1; done
sleep 0.5
kill -INT "$cpid"
wait "$cpid"
RC=$?
assert_eq "Ctrl-C: exit code 130" 130 "$RC"
assert_contains "Ctrl-C: every process is stopped" "$(cat int.out)" "cluster: interrupted: stopping every process"
assert_contains "Ctrl-C: the merged summary of both" "$(cat int.out)" "Cluster: 2 of 2 processes in the summary"
check "no bmk left running after Ctrl-C" wait_no_leftover

# ---- clocks too far apart (a negative limit: every offset is above it; a limit
# of 0 let a run start once, with an offset measured as 0)
printf 'lg1\n' > hosts.1
"$BMK" cluster run --hosts=hosts.1 --launcher="$LAUNCHER" --max-clock-offset=-1 -- $OLTP --time=2 run > clock.out 2>&1
RC=$?
assert_eq "a clock offset above the limit: exit code 1" 1 "$RC"
assert_contains "the host and chrony/NTP are named" "$(cat clock.out)" "cluster: host lg1: its clock is"
assert_contains "the fix is named" "$(cat clock.out)" "synchronise the clocks (chrony or NTP)"
check "no bmk left running after a refused start" wait_no_leftover

# ---- --copy-bmk: the binary copied to the host's cache once, and run
"$BMK" cluster run --hosts=hosts.1 --launcher="$LAUNCHER" --copy-bmk="$BMK" \
  --remote-cache="$WORK/cache" -- $OLTP --time=1 run > copy.out 2>&1
assert_eq "--copy-bmk: exit 0" 0 "$?"
copies=("$WORK"/cache/bmk-*)
assert_eq "--copy-bmk: one copy, named by the release" 1 "${#copies[@]}"
check "--copy-bmk: the copy is the binary" cmp -s "$BMK" "${copies[0]}"
assert_contains "--copy-bmk: the copy ran" "$(cat copy.out)" "Cluster: 1 of 1 processes in the summary"

# ---- --copy-script: a script of one's own and the module beside it, copied
# to each host's cache under a name made of their content; the processes
# find the module through the LUA_PATH they are given. Without the copy
# the relative path means nothing on a host (ssh starts in the login's
# home).
mkdir -p own
cat > own/own_events.lua <<'EOF'
local helper = require("own_helper")
function event() helper.work() end
EOF
printf 'local M = {}\nfunction M.work() sysbench.sleep(0.001) end\nreturn M\n' > own/own_helper.lua
printf 'lg1\nlg2\n' > hosts.2
"$BMK" cluster run --hosts=hosts.2 --launcher="$LAUNCHER" --copy-script \
  --remote-cache="$WORK/cache" -- own/own_events.lua --threads=2 --events=40 --time=0 run > script.out 2>&1
assert_eq "--copy-script: exit 0" 0 "$?"
assert_match "--copy-script: the copy named" "$(cat script.out)" \
  "^cluster: own_events.lua and the 1 other .lua file beside it copied to each host: the processes run $WORK/cache/scripts/[0-9a-f]{16}/own_events.lua$"
assert_match "--copy-script: every event ran" "$(cat script.out)" "total number of events: +40$"
dirs=("$WORK"/cache/scripts/*)
assert_eq "--copy-script: one copy of the files" 1 "${#dirs[@]}"
check "--copy-script: the script copied as it is" cmp -s own/own_events.lua "${dirs[0]}/own_events.lua"
check "--copy-script: its module copied as it is" cmp -s own/own_helper.lua "${dirs[0]}/own_helper.lua"
printf -- '-- edited\n' >> own/own_helper.lua
"$BMK" cluster run --hosts=hosts.2 --launcher="$LAUNCHER" --copy-script \
  --remote-cache="$WORK/cache" -- own/own_events.lua --threads=2 --events=40 --time=0 run > script2.out 2>&1
assert_eq "--copy-script after an edit: exit 0" 0 "$?"
dirs=("$WORK"/cache/scripts/*)
assert_eq "--copy-script: an edited module is a new copy (never a stale one)" 2 "${#dirs[@]}"
"$BMK" cluster run --hosts=hosts.2 --launcher="$LAUNCHER" -- own/own_events.lua --threads=2 \
  --events=40 --time=0 run > script3.out 2>&1
check "without --copy-script the script is not there: non-zero exit" test $? -ne 0
assert_match "without --copy-script: a host named, with the reason" "$(cat script3.out)" \
  "^FATAL: cluster: host lg[12] \(lg[12]#0\) failed before it was ready: exit 1: FATAL: Cannot find benchmark 'own/own_events.lua'"
check "no bmk left running after the script runs" wait_no_leftover

# ---- a kit name after --: the kit plan's bmk command line (bmk kit
# explain), its Lua files copied by --copy-script, the password given with
# the kit arguments (the plan keeps it in MYSQL_PWD, which ssh does not
# carry)
"$BMK" cluster run --hosts=hosts.2 --launcher="$LAUNCHER" --copy-script --remote-cache="$WORK/cache" \
  --results=kit.json -- kit OLTP_RW_10M_8tab-uniform-ps-trx 1 2 --tables=2 --table-size=200 \
  --mysql-socket="$SOCK" --mysql-password="$DBPASS" > kit.out 2>&1
assert_eq "-- kit NAME USERS SECONDS: exit 0" 0 "$?"
assert_match "-- kit: its Lua file copied with the kit's modules" "$(cat kit.out)" \
  "^cluster: kit_oltp.lua and the [0-9]+ other .lua files beside it copied to each host"
assert_contains "-- kit: both processes in the summary" "$(cat kit.out)" "Cluster: 2 of 2 processes in the summary"
assert_eq "-- kit: the merged document is the kit workload's, 1 VU per process" "kit_oltp 2" \
  "$(python3 -c "import json; d = json.load(open('kit.json')); print(d['manifest']['test'], d['summary']['threads'])")"
"$BMK" cluster run --hosts=hosts.2 --launcher="$LAUNCHER" -- kit No_Such_Kit_Name 1 2 > kit2.out 2>&1
assert_eq "-- kit with an unknown name: exit 1" 1 "$?"
assert_contains "-- kit with an unknown name: said so" "$(cat kit2.out)" \
  "cluster: -- kit No_Such_Kit_Name: 'bmk kit explain' found no plan for it"

# ---- a host whose bmk is another release: refused, naming the host and
# the ways out (the stand-in answers the ready line as another bmk would)
cat > other-bmk <<'EOF'
#!/bin/sh
echo "bmkc ready 0 $$ 0.0.1-other sql"
while read -r line; do :; done    # until the coordinator's end of input, as bmk
EOF
chmod 755 other-bmk
"$BMK" cluster run --hosts=hosts.1 --launcher="$LAUNCHER" --remote-bmk="$WORK/other-bmk" \
  -- $OLTP --time=2 run > other.out 2>&1
RC=$?
assert_eq "another bmk release on a host: exit code 1" 1 "$RC"
assert_contains "another bmk release: the host, both releases and the ways out" "$(cat other.out)" \
  "cluster: host lg1 (lg1#0) runs bmk 0.0.1-other, this is bmk $("$BMK" --version | awk '/release/ {print $3}'): copy this release's static binary there with --copy-bmk=bmk-x64, install the same version there, or give its path with --remote-bmk"
gone() { local t; for t in $(seq 300); do pgrep -f -- "$1" >/dev/null || return 0; sleep 0.1; done; return 1; }
check "another bmk release: nothing left running" gone "$WORK/other-bmk"

# ---- bad hosts files
printf 'lg1\nnosuchhost.invalid\n' > hosts.unknown
"$BMK" cluster run --hosts=hosts.unknown --launcher="$LAUNCHER" -- $OLTP --time=2 run > unknown.out 2>&1
RC=$?
check "an unknown host: non-zero exit ($RC)" test "$RC" -ne 0
assert_contains "an unknown host is named" "$(cat unknown.out)" "host nosuchhost.invalid (nosuchhost.invalid#0) failed before it was ready"
check "no bmk left running after an unknown host" wait_no_leftover
printf 'lg1\nlgbad\n' > hosts.key
"$BMK" cluster run --hosts=hosts.key --launcher="$LAUNCHER" -- $OLTP --time=2 run > key.out 2>&1
RC=$?
assert_eq "a host refusing the key: exit code 1" 1 "$RC"
assert_contains "the host refusing the key is named with ssh's reason" "$(cat key.out)" "host lgbad (lgbad#0) failed before it was ready: exit 255: nobody@$PFX.11: Permission denied (publickey)"
check "no bmk left running after a refused key" wait_no_leftover
printf 'lg1\nlg2 2\nlg1 1\n' > hosts.dup
"$BMK" cluster run --hosts=hosts.dup --launcher="$LAUNCHER" -- $OLTP --time=2 run > dup.out 2>&1
RC=$?
assert_eq "the same host twice: exit code 1" 1 "$RC"
assert_contains "the duplicate entry is named" "$(cat dup.out)" "hosts.dup line 3: host 'lg1' is already listed on line 1"
check "nothing started for a bad hosts file" wait_no_leftover

"$BMK" $OLTP cleanup >/dev/null 2>&1
finish
