#!/usr/bin/env bash
# --endpoints (docs/endpoints.md) on real replication: the test starts its
# own replicated sandbox (tools/sandbox.sh start mysql-replica / pgsql-replica:
# a MariaDB GTID replica and a PostgreSQL streaming standby, each beside
# its own primary, on free loopback ports), then checks with the servers'
# own counters:
# - oltp_read_only takes the "read" route: every read statement runs on
#   the replica (MariaDB Com_select; PostgreSQL scans of sbtest1 on the
#   standby) and none on the primary; the replica's Questions /
#   xact_commit grow by exactly the client's statements / events between
#   a short and a longer run (the connections' fixed cost cancels out);
# - the same in the event loop (--workers=1: bmk.vu's connect);
# - oltp_read_write --read-routing=replicas: the primary's Com_commit is
#   the client's commits, its Com_select 0, the replica's Com_select the
#   client's reads; the per-endpoint block and --results agree;
# - the replica's lag in the interval lines and --results: MariaDB 0 once
#   applied and none ("-", null) while the replica is stopped, its
#   transactions behind the primary's GTID position growing (received or
#   not; without the primary, its own received-and-not-applied, 0); PostgreSQL with replay paused (pg_wal_replay_pause()) under a
#   write run rising from a second, back under a second once resumed, the
#   primary's WAL bytes not replayed and its replay_lag growing, its
#   pg_stat_replication row picked by "standby_name";
# - bad endpoint files: exit 1, the line and key named, nothing run.
# - least_lag over two real MariaDB replicas of one primary (a second one,
#   sandbox mysql-replica2, for that section only): connections a script
#   opens during its events go to the replica with the smaller lag sample
#   (one held back by MASTER_DELAY loses to one at 0), take turns at equal
#   lag, and go to one with a sample before one without (SQL thread
#   stopped); those opened before the first sample go round robin.
# bmk's own server-statistics and server-cost probes are off in the
# counted runs (--db-server-stats=off --server-cost=off): they query the
# primary.
source "$(dirname "$0")/lib/lib.sh"

source "$(dirname "$0")/lib/endpoints_lib.sh"
COUNTED="--db-server-stats=off --server-cost=off"

# ---------------------------------------------------------------- bad input

bad_file() {  # bad_file NAME JSON EXPECTED-MESSAGE
  printf '%s\n' "$2" >"$WORK/bad.json"
  run_bmk oltp_read_only --endpoints="$WORK/bad.json" --events=1 run
  assert_eq "bad file, $1: exit 1" 1 "$RC"
  assert_contains "bad file, $1: message" "$OUT" "FATAL: --endpoints $WORK/bad.json: $3"
  assert_not_contains "bad file, $1: nothing run" "$OUT" "Initializing worker threads"
}
bad_file "unknown key" '{
  "endpoints": [
    {"name": "p", "driver": "mysql", "password_env": "BMK_EP_PW",
     "rol": "replica"}
  ]
}' 'line 4: endpoints[0] ("p"): unknown key "rol"'
bad_file "duplicate name" '{
  "endpoints": [
    {"name": "p", "driver": "mysql"},
    {"name": "p", "driver": "mysql"}
  ]
}' 'line 4: endpoints[1]: duplicate name "p" (also endpoints[0])'
bad_file "route to a missing role" '{
  "endpoints": [{"name": "p", "driver": "mysql"}],
  "routing": {
    "read": {"to": "replicas", "choose": "round_robin"}
  }
}' 'line 4: routing.read: "replicas" names no endpoint and no role of the file'
bad_file "literal password" '{
  "endpoints": [
    {"name": "p", "driver": "mysql",
     "password": "secret"}
  ]
}' 'line 4: endpoints[0] ("p"): "password": a password may not be written in the endpoints file'
bad_file "standby_name on MariaDB" '{"endpoints": [{"name": "p", "driver": "mysql", "standby_name": "s"}]}' \
  'endpoints[0] ("p"): "standby_name" (the standby'"'"'s application_name) must be a non-empty string, and is for "driver": "pgsql" only'
bad_file "unset password_env" '{"endpoints": [{"name": "p", "driver": "mysql", "password_env": "BMK_EP_UNSET"}]}' \
  'endpoints[0] ("p"): "password_env": the environment variable BMK_EP_UNSET is not set'
run_bmk oltp_read_write --read-routing=replicas --events=1 run
assert_eq "--read-routing=replicas without --endpoints: exit 1" 1 "$RC"
assert_contains "--read-routing=replicas without --endpoints: message" "$OUT" \
  "--read-routing=replicas needs --endpoints=FILE"

# ----------------------------------------------------------------- servers

start_replicated
# The primary's autovacuum off (the test's own server): an autovacuum
# worker commits in the database it visits, at any moment (every minute
# here, the tables' updates always over its thresholds), and the checks
# below count the server's transactions exactly against bmk's (a visit
# to the 1-table sbtest commits 5 times).
pg "$PG_P" "ALTER SYSTEM SET autovacuum = off" >/dev/null &&
  pg "$PG_P" "SELECT pg_reload_conf()" >/dev/null
autovac_off() { [ "$(pg "$PG_P" "SHOW autovacuum")" = off ]; }
check "pgsql: the primary's autovacuum is off" wait_for 30 autovac_off
endpoints "$WORK/my.json" mysql "$MY_P" "$MY_R"
endpoints "$WORK/pg.json" pgsql "$PG_P" "$PG_R"

# ------------------------------------------- MariaDB: least_lag, two replicas
# A second replica of the same primary (started here, before the data is
# loaded: it starts empty at the primary's position) and a route
# "read" = least_lag over both. The script (least_lag.lua) opens one
# connection per VU in thread_init, before the measured time: the lag
# sampler has no sample yet, so these go round robin (one each); each
# event then waits until the replicas named in LAG_WAIT have a sample
# (sb_endpoints_replica_lag through the FFI: what least_lag sees), opens a
# connection on "read", runs SELECT 1 and closes it. Checked with the
# replicas' own Com_select (thread_init's SELECT included: it runs before
# the window) and the window's reads/connects (the sampler's own
# connection counts as a connect of each replica, so the events' connects
# are checked as a difference).
cat >"$WORK/least_lag.lua" <<'EOS'
local ffi = require("ffi")
ffi.cdef [[
unsigned sb_endpoints_count(void);
const char *sb_endpoints_name(unsigned i);
double sb_endpoints_replica_lag(unsigned i);
]]
local C = ffi.C
local wait = {}
for name in (os.getenv("LAG_WAIT") or ""):gmatch("[^,]+") do wait[name] = true end

local function sampled()
  for i = 0, tonumber(C.sb_endpoints_count()) - 1 do
    if wait[ffi.string(C.sb_endpoints_name(i))] and C.sb_endpoints_replica_lag(i) < 0 then
      return false
    end
  end
  return true
end

local function one_select()
  local con = drv:connect{endpoint = "read"}
  con:query("SELECT 1")
  con:disconnect()
end

function thread_init()
  drv = sysbench.sql.driver()
  one_select()
end

function event()
  while not sampled() do
    if not sysbench.sleep(0.05) then return end
  end
  one_select()
end
EOS
ll_t0=$SECONDS
if own_replica2 start >"$WORK/own-my2.log" 2>&1; then
  ok "mysql: a second replica of the same primary starts (sandbox mysql-replica2)"
else
  not_ok "mysql: a second replica of the same primary starts (sandbox mysql-replica2)"
  sed 's/^/    | /' "$WORK/own-my2.log"
fi
endpoints3 "$WORK/my3.json" "$MY_P" "$MY_R" "$MY_R2" '{"read": {"to": "replica", "choose": "least_lag"}}'
# ll_run NAME LAG_WAIT: the script, 2 VUs, 6 events; sets S1/S2 (the
# replicas' Com_select deltas), R1/R2 (window reads), C1/C2 (connects)
ll_run() {
  local s1 s2
  s1=$(mystat "$MY_R" Com_select) s2=$(mystat "$MY_R2" Com_select)
  LAG_WAIT=$2 run_bmk "$WORK/least_lag.lua" --endpoints="$WORK/my3.json" $COUNTED --threads=2 \
    --events=6 --time=60 --results="$WORK/ll.json" run
  assert_eq "mysql least_lag, $1: exit 0" 0 "$RC"
  S1=$(($(mystat "$MY_R" Com_select) - s1)) S2=$(($(mystat "$MY_R2" Com_select) - s2))
  read -r R1 C1 R2 C2 <<<"$(json_get "$WORK/ll.json" "' '.join('%d %d' % (e['reads'], e['connects']) for e in d['endpoints'][1:])")"
  assert_eq "mysql least_lag, $1: the primary got nothing" "0 0" \
    "$(json_get "$WORK/ll.json" "'%d %d' % (d['endpoints'][0]['reads'], d['endpoints'][0]['connects'])")"
  check "mysql least_lag, $1: connects = reads + the lag sampler's own, alike on both replicas (connects $C1 $C2)" \
    test "$((C1 - R1))" = "$((C2 - R2))" -a "$((C2 - R2))" -le 1
}
# both caught up and idle: lag 0 on both, equal ones take turns
both_caught_up() {
  my_caught_up && [ "$(my "$MY_R2" "SELECT @@gtid_slave_pos")" = "$(my "$MY_P" "SELECT @@gtid_binlog_pos")" ]
}
r2_behind() {  # replica2 at least a second behind
  local b
  b=$(my_behind "$MY_R2") && [[ $b =~ ^[0-9]+$ ]] && [ "$b" -ge 1 ]
}
check "mysql least_lag: both replicas caught up" wait_for 60 both_caught_up
ll_run "equal lag (0, 0)" replica1,replica2
assert_eq "mysql least_lag, equal lag: the events in turn (reads 3 and 3), thread_init's one each" \
  "3 3 4 4" "$R1 $R2 $S1 $S2"
# replica2 held back: MASTER_DELAY on it and a write on the primary; its
# Seconds_Behind_Master grows from the write on (replica1 applies it: 0)
my "$MY_R2" "STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = 600; START SLAVE"
my "$MY_P" "CREATE TABLE lag_probe (id INT PRIMARY KEY); INSERT INTO lag_probe VALUES (1)"
check "mysql least_lag: replica1 applies the write" wait_for 60 my_caught_up
check "mysql least_lag: replica2 is behind by a second or more" wait_for 60 r2_behind
assert_eq "mysql least_lag: replica1 is not behind" 0 "$(my_behind "$MY_R")"
ll_run "replica2 behind" replica1,replica2
assert_eq "mysql least_lag, replica2 behind: every event on replica1 (reads 6 and 0), thread_init's one each" \
  "6 0 7 1" "$R1 $R2 $S1 $S2"
assert_match "mysql least_lag, replica2 behind: the Endpoints block, replica1 (lag 0)" "$OUT" \
  '^    replica1 +replica +6 +0 +0 +0 +0 +0 +[-0-9.]+ +0\.000$'
lag2=$(json_get "$WORK/ll.json" "d['endpoints'][2]['lag_max_s']")
check "mysql least_lag, replica2 behind: its lag in the window is a second or more ($lag2)" \
  awk -v v="$lag2" 'BEGIN { exit !(v + 0 >= 1) }'
# replica1's SQL thread stopped: no sample (NULL); one with a sample,
# however far behind, comes first
my "$MY_R" "STOP SLAVE SQL_THREAD"
ll_run "replica1 without a sample, replica2 behind" replica2
my "$MY_R" "START SLAVE SQL_THREAD"
assert_eq "mysql least_lag, replica1 without a sample: every event on replica2 (reads 0 and 6), thread_init's one each" \
  "0 6 1 7" "$R1 $R2 $S1 $S2"
assert_match "mysql least_lag, replica1 without a sample: the Endpoints block, replica1 (lag -)" "$OUT" \
  '^    replica1 +replica +0 +0 +0 +0 +0 +0 +- +-$'
own_replica2 stop >/dev/null 2>&1
my "$MY_P" "DROP TABLE lag_probe"
check "mysql least_lag: replica2 stopped, its data removed" test ! -d "$WORK/own/mysql-replica2"
echo "# the least_lag section took $((SECONDS - ll_t0)) s"

# ------------------------------------------------------------------ MariaDB

run_bmk oltp_read_write --endpoints="$WORK/my.json" --table-size=100 prepare
assert_eq "mysql: prepare through the default route (the primary): exit 0" 0 "$RC"
check "mysql: the replica catches up with the prepare" wait_for 60 my_caught_up
assert_eq "mysql: the replica has the rows" 100 "$(my "$MY_R" 'SELECT COUNT(*) FROM sbtest1')"

# my_ro EVENTS: one oltp_read_only run; sets RO_Q (client statements),
# RO_READS, P_Q/R_Q (Questions), P_SEL/R_SEL (Com_select) deltas, P_OWN
# (the lag sampler's statements on the primary: Com_show_variables)
my_ro() {
  local pq rq ps rs pv
  pv=$(mystat "$MY_P" Com_show_variables)
  pq=$(mystat "$MY_P" Questions) ps=$(mystat "$MY_P" Com_select)
  rq=$(mystat "$MY_R" Questions) rs=$(mystat "$MY_R" Com_select)
  run_bmk oltp_read_only --endpoints="$WORK/my.json" $COUNTED --threads=1 --events="$1" \
    --results="$WORK/ro.json" run
  RO_Q=$(report_value "queries:" "$OUT")
  RO_READS=$(report_value "read:" "$OUT")
  # the probes after the first: the Com_select one and the last
  P_Q=$(($(mystat "$MY_P" Questions) - pq - 2 * PROBE_Q)) P_SEL=$(($(mystat "$MY_P" Com_select) - ps))
  R_Q=$(($(mystat "$MY_R" Questions) - rq - 2 * PROBE_Q)) R_SEL=$(($(mystat "$MY_R" Com_select) - rs))
  # the lag sampler's session on the primary: one SHOW GLOBAL VARIABLES a
  # second (none when the run ended before its first), and its quit; bmk
  # counts them as its own statements on the endpoint (--results), those of
  # the measured window only (a round may straddle its end)
  P_OWN=$(($(mystat "$MY_P" Com_show_variables) - pv))
  P_Q=$((P_Q - P_OWN - (P_OWN > 0)))
  OWN=$(json_get "$WORK/ro.json" "d['endpoints'][0]['own_statements']")
}
# what one probe session adds to Questions (its statement and its quit),
# measured: two probes in a row differ by one probe's cost
q0=$(mystat "$MY_P" Questions)
PROBE_Q=$(($(mystat "$MY_P" Questions) - q0))
echo "# a probe session counts $PROBE_Q in Questions"

my_ro 5
assert_eq "mysql read-only: exit 0" 0 "$RC"
q1=$RO_Q r1=$R_Q
assert_eq "mysql read-only: the primary ran no statement but the lag sampler's ($P_OWN)" 0 "$P_Q"
check "mysql read-only: the primary's own_statements ($OWN) are the lag sampler's ($P_OWN) of the window" \
  test "$OWN" -le "$P_OWN"
assert_eq "mysql read-only: the primary ran no SELECT" 0 "$P_SEL"
assert_eq "mysql read-only: the replica's Com_select is the client's reads" "$RO_READS" "$R_SEL"
assert_eq "mysql read-only: --results endpoints" "main 0 0 replica1 $RO_READS $RO_Q" \
  "$(json_get "$WORK/ro.json" "' '.join('%s %d %d' % (e['name'], e['reads'], e['reads'] + e['writes'] + e['other']) for e in d['endpoints'])")"
check "mysql read-only: the --results document validates" json_ok "$WORK/ro.json"
my_ro 15
assert_eq "mysql read-only, 15 vs 5 events: the replica's Questions grow by the client's statements" \
  "$((RO_Q - q1))" "$((R_Q - r1))"
assert_eq "mysql read-only, 15 events: the primary ran no statement but the lag sampler's ($P_OWN)" 0 "$P_Q"
check "mysql read-only, 15 events: the primary's own_statements ($OWN) are the lag sampler's ($P_OWN) of the window" \
  test "$OWN" -le "$P_OWN"

# the event loop's connect (bmk.vu): 4 VUs on one worker
ps=$(mystat "$MY_P" Com_select) rs=$(mystat "$MY_R" Com_select)
run_bmk oltp_read_only --endpoints="$WORK/my.json" $COUNTED --threads=4 --workers=1 --events=20 run
assert_eq "mysql read-only, event loop: exit 0" 0 "$RC"
assert_eq "mysql read-only, event loop: the primary ran no SELECT" 0 "$(($(mystat "$MY_P" Com_select) - ps))"
assert_eq "mysql read-only, event loop: the replica's Com_select is the client's reads" \
  "$(report_value "read:" "$OUT")" "$(($(mystat "$MY_R" Com_select) - rs))"

pc=$(mystat "$MY_P" Com_commit) ps=$(mystat "$MY_P" Com_select) rs=$(mystat "$MY_R" Com_select)
run_bmk oltp_read_write --read-routing=replicas --endpoints="$WORK/my.json" $COUNTED --threads=1 \
  --events=20 run
assert_eq "mysql read-write, reads on the replica: exit 0" 0 "$RC"
assert_eq "mysql read-write: the primary's Com_commit is the client's commits" \
  "$(report_value "transactions:" "$OUT")" "$(($(mystat "$MY_P" Com_commit) - pc))"
assert_eq "mysql read-write: the primary ran no SELECT" 0 "$(($(mystat "$MY_P" Com_select) - ps))"
assert_eq "mysql read-write: the replica's Com_select is the client's reads" \
  "$(report_value "read:" "$OUT")" "$(($(mystat "$MY_R" Com_select) - rs))"
assert_match "mysql read-write: the Endpoints block, primary" "$OUT" \
  "^    main +primary +0 +$(report_value "write:" "$OUT") +[0-9]+ +0 +0 +0 +[-0-9.]+ *$"
assert_match "mysql read-write: the Endpoints block, replica" "$OUT" \
  "^    replica1 +replica +$(report_value "read:" "$OUT") +0 +0 +0 +0 +0 +[-0-9.]+ +[-0-9.]+$"

# lag: sampled once per interval on the replica (Seconds_Behind_Master):
# 0 once applied; none ("-", null) while it does not replicate
check "mysql: caught up before the lag check" wait_for 60 my_caught_up
run_bmk oltp_read_only --endpoints="$WORK/my.json" --threads=1 --time=1 --report-interval=1 \
  --results="$WORK/lag.json" run
assert_match "mysql lag: 0 in the interval line once applied" "$OUT" '^\[ 1s \] replica lag \(s\): replica1 0\.000$'
assert_eq "mysql lag: 0 in --results" "0.0" "$(json_get "$WORK/lag.json" "d['intervals'][0]['replica_lag_s']['replica1']")"
assert_match "mysql behind: 0 transactions once applied" "$OUT" '^\[ 1s \] replica behind \(trx\): replica1 0$'
# writes with the replica stopped (its IO thread too: it receives nothing):
# no lag in seconds, but the primary's GTIDs it did not apply grow, up to
# the transactions of the run
my "$MY_R" "STOP SLAVE"
run_bmk oltp_write_only --endpoints="$WORK/my.json" --threads=1 --time=2 --report-interval=1 \
  --results="$WORK/lag.json" run
OUT0=$OUT
# the primary out of reach (a port nothing listens on): the replica's own
# view, received and not applied, sees nothing behind
sed 's/"port": '"$MY_P"',/"port": 1,/' "$WORK/my.json" >"$WORK/my-noprimary.json"
run_bmk oltp_read_only --endpoints="$WORK/my-noprimary.json" $COUNTED --threads=1 --time=1 \
  --report-interval=1 run
assert_match "mysql behind without the primary: what the stopped replica received and did not apply" \
  "$OUT" '^\[ 1s \] replica behind \(trx\): replica1 0$'
OUT=$OUT0
my "$MY_R" "START SLAVE"
assert_match "mysql lag: none while the replica is stopped" "$OUT" '^\[ 1s \] replica lag \(s\): replica1 -$'
assert_eq "mysql lag: null in --results" "None" "$(json_get "$WORK/lag.json" "d['intervals'][0]['replica_lag_s']['replica1']")"
behind=$(printf '%s\n' "$OUT" | sed -n 's/^\[ [0-9]*s \] replica behind (trx): replica1 //p' | tr '\n' ' ')
trx=$(report_value "transactions:" "$OUT")
check "mysql behind: growing, above 0, at most the run's $trx transactions ($behind)" \
  awk -v s="$behind" -v t="$trx" 'BEGIN { n = split(s, a, " "); ok = n == 2 && a[2] + 0 > 0 && a[2] + 0 <= t + 0 && a[2] + 0 >= a[1] + 0; exit !ok }'
assert_eq "mysql behind: the last line's in --results" "$(printf '%s' "$behind" | awk '{print $NF}')" \
  "$(json_get "$WORK/lag.json" "d['intervals'][-1]['replica_behind']['replica1']")"
assert_eq "mysql behind: the window's largest in the endpoints (trx)" True \
  "$(json_get "$WORK/lag.json" "[e for e in d['endpoints'] if e['name'] == 'replica1'][0]['behind_max'] >= $(printf '%s' "$behind" | awk '{print $NF + 0}') and d['endpoints'][0]['behind_unit'] == 'trx'")"
check "mysql behind: the --results document validates" json_ok "$WORK/lag.json"
# the report page has the Endpoints table, from the document
run_bmk report --html="$WORK/lag.html" "$WORK/lag.json"
assert_eq "mysql: bmk report --html of an --endpoints run: exit 0" 0 "$RC"
assert_eq "mysql: the page's Endpoints table, replica row (writes 0, its backlog)" 1 \
  "$(grep -c "^<tr><td>replica1</td><td>replica</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td>-</td><td>-</td><td>-</td><td>$(json_get "$WORK/lag.json" "[e for e in d['endpoints'] if e['name'] == 'replica1'][0]['behind_max']") trx</td><td>[0-9]* ([0-9]*)</td><td>[0-9]* ([0-9]*)</td></tr>$" "$WORK/lag.html")"
assert_eq "mysql: the page's Endpoints table, primary row (the run's writes)" 1 \
  "$(grep -c "^<tr><td>main</td><td>primary</td><td>[0-9]*</td><td>$(report_value "write:" "$OUT0")</td>" "$WORK/lag.html")"
check "mysql: the replica catches up once it runs again" wait_for 60 my_caught_up

# --------------------------------------------------------------- PostgreSQL

run_bmk oltp_read_write --endpoints="$WORK/pg.json" --table-size=100 prepare
assert_eq "pgsql: prepare through the default route (the primary): exit 0" 0 "$RC"
check "pgsql: the standby catches up with the prepare" wait_for 60 pg_caught_up
assert_eq "pgsql: the standby has the rows" 100 "$(pg "$PG_R" 'SELECT COUNT(*) FROM sbtest1')"

scans() {  # scans PORT: sequential + index scans of sbtest1 (the stats as flushed)
  pg "$1" "SELECT seq_scan + COALESCE(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'sbtest1'"
}
xacts() {  # xacts PORT: xact_commit of sbtest
  pg "$1" "SELECT xact_commit FROM pg_stat_database WHERE datname = 'sbtest'"
}
# pg_ro EVENTS: sets RO_Q, RO_EV, and the deltas P_SC, R_SC (scans), R_X
# (xact_commit, less the probes' own: one per probe session after the first)
pg_ro() {
  local ps rs rx want
  ps=$(scans "$PG_P") rs=$(scans "$PG_R") rx=$(xacts "$PG_R")
  run_bmk oltp_read_only --endpoints="$WORK/pg.json" $COUNTED --threads=1 --events="$1" run
  RO_Q=$(report_value "queries:" "$OUT") RO_EV=$(report_value "transactions:" "$OUT")
  # each statement of oltp_read_only scans sbtest1 once; the sessions'
  # statistics reach the shared counters when they end
  want=$((rs + RO_Q - 2 * RO_EV))
  wait_for 20 test "$(scans "$PG_R")" -ge "$want"
  R_SC=$(($(scans "$PG_R") - rs)) P_SC=$(($(scans "$PG_P") - ps))
  R_X=$(($(xacts "$PG_R") - rx))
}
pg_ro 5
assert_eq "pgsql read-only: exit 0" 0 "$RC"
assert_eq "pgsql read-only: the standby scanned sbtest1 once per read statement" \
  "$((RO_Q - 2 * RO_EV))" "$R_SC"
assert_eq "pgsql read-only: the primary scanned nothing" 0 "$P_SC"
x1=$R_X e1=$RO_EV
pg_ro 15
assert_eq "pgsql read-only, 15 vs 5 events: the standby's xact_commit grows by the client's transactions" \
  "$((RO_EV - e1))" "$((R_X - x1))"
assert_eq "pgsql read-only, 15 events: the primary scanned nothing" 0 "$P_SC"

# lag: replay paused on the standby under a write run (the lag, now() -
# the last replayed commit's time, grows by the second), then resumed
pg "$PG_R" "SELECT pg_wal_replay_pause()" >/dev/null
run_bmk oltp_write_only --endpoints="$WORK/pg.json" --threads=1 --time=2 --report-interval=1 \
  --results="$WORK/lag.json" run
held=$(printf '%s\n' "$OUT" | sed -n 's/^\[ [0-9]*s \] replica lag (s): replica1 //p' | tr '\n' ' ')
# (the lines show the sampler's latest sample, taken once a second by a
# thread of its own: two lines may show the same one)
# (the first sample can be 0: the standby had replayed all it had
# received before the run's first write reached it)
check "pgsql lag: rising to 1 s and more while replay is paused ($held)" \
  awk -v s="$held" 'BEGIN { n = split(s, a, " "); exit !(n == 2 && a[1] != "-" && a[2] + 0 >= 1 && a[2] + 0 >= a[1] + 0) }'
paused_lag=$(printf '%s' "$held" | awk '{print $NF + 0}')
held=$(printf '%s\n' "$OUT" | sed -n 's/^\[ [0-9]*s \] replica behind (bytes): replica1 //p' | tr '\n' ' ')
check "pgsql behind: the primary's WAL not replayed grows above 0 while paused ($held)" \
  awk -v s="$held" 'BEGIN { n = split(s, a, " "); exit !(n == 2 && a[2] + 0 > 0 && a[2] + 0 >= a[1] + 0) }'
# the primary's replay_lag for the standby (its only pg_stat_replication
# row, the file's only replica) grows too
held=$(printf '%s\n' "$OUT" | sed -n 's/^\[ [0-9]*s \] replica replay lag (s): replica1 //p' | tr '\n' ' ')
check "pgsql replay lag: the primary's replay_lag above 0 and growing while paused ($held)" \
  awk -v s="$held" 'BEGIN { n = split(s, a, " "); exit !(n == 2 && a[2] != "-" && a[2] + 0 > 0 && a[2] + 0 >= a[1] + 0) }'
# (the text line and the document's interval each read the latest sample
# when written, and the sampler may take one between the two: while
# paused the lag only grows, so the document's is the line's or later)
assert_eq "pgsql replay lag: the last line's (or a later sample) in --results, at most the window's largest per endpoint" True \
  "$(json_get "$WORK/lag.json" "round(d['intervals'][-1]['replica_replay_lag_s']['replica1'], 3) >= $(printf '%s' "$held" | awk '{print $NF + 0}') and [e for e in d['endpoints'] if e['name'] == 'replica1'][0]['replay_lag_max_s'] >= d['intervals'][-1]['replica_replay_lag_s']['replica1']")"
check "pgsql replay lag: the --results document validates" json_ok "$WORK/lag.json"
# still paused, the standby twice: "standby_name" picks the primary's row
# by application_name; a name no row has gets none (no replay lag, the
# standby's own received-and-not-replayed bytes)
app=$(pg "$PG_P" "SELECT application_name FROM pg_stat_replication")
python3 - "$WORK/pg.json" "$WORK/pg2.json" "$app" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d['endpoints'][1]
d['endpoints'][1] = dict(r, standby_name=sys.argv[3])
d['endpoints'].append(dict(r, name='replica2', standby_name='nosuch'))
open(sys.argv[2], 'w').write(json.dumps(d))
PY
# (3 s: an interval line shows "-" for an endpoint the sampler has not
# read yet, which a TSan run beside four busy lanes once left replica2 at
# 1 s; some line has both)
run_bmk oltp_read_only --endpoints="$WORK/pg2.json" --threads=1 --time=3 --report-interval=1 run
assert_match "pgsql standby_name: the named one's replay lag, none for a name no row has" "$OUT" \
  '^\[ [0-9]+s \] replica replay lag \(s\): replica1 [0-9.]+ replica2 -$'
assert_match "pgsql standby_name: both behind while paused" "$OUT" \
  '^\[ [0-9]+s \] replica behind \(bytes\): replica1 [1-9][0-9]* replica2 [1-9][0-9]*$'
pg "$PG_R" "SELECT pg_wal_replay_resume()" >/dev/null
check "pgsql: the standby catches up after the resume" wait_for 60 pg_caught_up

# read-write with its reads on the standby (two seconds: the last line
# shows a sample taken with replay running for a second; the first one
# of a run may find the burst's first WAL not yet replayed, and its lag
# is then capped only after a second look 50 ms later)
run_bmk oltp_read_write --read-routing=replicas --endpoints="$WORK/pg.json" $COUNTED --threads=1 \
  --time=2 --report-interval=1 run
assert_eq "pgsql read-write, reads on the standby: exit 0" 0 "$RC"
assert_match "pgsql read-write: the Endpoints block, primary" "$OUT" \
  "^    main +primary +0 +$(report_value "write:" "$OUT") +[0-9]+ +0 +0 +0 +[-0-9.]+ *$"
assert_match "pgsql read-write: the Endpoints block, standby" "$OUT" \
  "^    replica1 +replica +$(report_value "read:" "$OUT") +0 +0 +0 +0 +0 +[-0-9.]+ +[-0-9.]+$"
last=$(printf '%s\n' "$OUT" | sed -n 's/^\[ [0-9]*s \] replica lag (s): replica1 //p' | tail -1)
check "pgsql lag: falling after the resume: under 1 s, or under the paused lag ($paused_lag), once replay runs ($last)" \
  awk -v v="$last" -v p="$paused_lag" 'BEGIN { exit !(v != "-" && (v + 0 < 1 || v + 0 < p + 0)) }'

# Server-side statistics per endpoint (--db-server-stats, on by default):
# each server's own counters equal what bmk sent it, exactly: statements
# (MySQL Questions) and transactions (Com_commit + Com_rollback less a
# replica's applied ones; xact_commit + xact_rollback), bmk's own
# samplers' statements included; on a MariaDB replica that applied
# transactions in the window, its transactions within 1 (a commit its
# applier makes while the counters are read may show in Com_commit and
# not yet in gtid_slave_pos). srv_check LABEL FILE: one check per
# endpoint, "NAME server=bmk server=bmk applied", from --results
srv_check() {
  local line
  while read -r line; do
    check "$1: $line" awk -v l="$line" 'BEGIN { n = split(l, a, " "); split(a[2], s, "="); split(a[3], x, "=")
      d = x[1] - x[2]; if (d < 0) d = -d
      exit !(n == 4 && s[1] == s[2] && (d == 0 || (d == 1 && a[4] + 0 > 0))) }'
  done < <(json_get "$2" "'\\n'.join('%s %s=%s %d=%d %s' % (e['name'], e['server']['statements'], (e['server']['bmk_statements'] + e['server']['bmk_own_statements']) if e['server']['statements'] is not None else None, e['server']['transactions'], e['server']['bmk_transactions'] + e['server']['bmk_own_transactions'], e['server']['replicated'] or 0) for e in d['endpoints'])")
}
# A PostgreSQL backend flushes its statistics as it exits, after its
# client has gone: the sessions of the runs before must have left both
# servers, or their last transactions land in this run's window.
pg_sessions_gone() {
  local port
  for port in "$PG_P" "$PG_R"; do
    [ "$(pg "$port" "SELECT count(*) FROM pg_stat_activity WHERE datname = 'sbtest' AND pid <> pg_backend_pid()")" = 0 ] || return 1
  done
}
for db in my pg; do
  [ "$db" = pg ] && { wait_for 60 pg_sessions_gone || echo "# sessions of earlier runs still on the PostgreSQL servers"; }
  run_bmk oltp_read_write --read-routing=replicas --endpoints="$WORK/$db.json" --threads=2 \
    --time=2 --results="$WORK/srv.json" run
  srv_check "$db read-write, reads on the replica: server = bmk" "$WORK/srv.json"
  check "$db read-write: the --results document with server figures validates" json_ok "$WORK/srv.json"
  # (an event that failed on an ignored error, a deadlock, was rolled
  # back and restarted: one transaction more than the events, unless the
  # failure came as the run ended, whose rollback is after the window)
  ev=$(report_value "transactions:" "$OUT") er=$(report_value "ignored errors:" "$OUT")
  bt=$(json_get "$WORK/srv.json" "d['endpoints'][0]['server']['bmk_transactions']")
  check "$db read-write: the transactions routed to the primary ($bt) are the client's events ($ev) and at most its rolled-back attempts ($er)" \
    test "$bt" -ge "$ev" -a "$bt" -le $((ev + er))
  assert_eq "$db read-write: the replica's routed statements are the client's reads" \
    "$(report_value "read:" "$OUT")" "$(json_get "$WORK/srv.json" "d['endpoints'][1]['server']['bmk_statements']")"
  assert_match "$db read-write: the per-endpoint block" "$OUT" "^    replica1 +replica .* [+]0[.]000% *$"
  [ "$db" = pg ] && { wait_for 60 pg_sessions_gone || echo "# sessions of earlier runs still on the PostgreSQL servers"; }
  run_bmk oltp_read_only --endpoints="$WORK/$db.json" --threads=4 --workers=1 --events=40 \
    --results="$WORK/srv.json" run
  srv_check "$db read-only, event loop: server = bmk" "$WORK/srv.json"
done

finish
