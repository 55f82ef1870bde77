#!/usr/bin/env bash
# Pipelines from a Lua script (con:pipeline(), docs/lua-api.md) on
# PostgreSQL, in the thread engine (--threads) and in the event loop
# (--workers=1, several VUs): each pipelined statement is counted as its
# own read/write/other in the report and in --results, exactly what the
# script sent, and the server's own counters agree (pg_stat_database over
# the run's window, pg_stat_user_tables, the rows the table holds); a
# duplicate key inside a batch (in an explicit transaction and in the
# batch's implicit one) raises as documented, the statements after it are
# not counted, the connection works after ROLLBACK; with --endpoints each
# batch is one transaction (server = bmk) and each statement one latency
# value; so for tpcc --tpcc-mode=pipeline. On MySQL: the documented
# refusal. Every check is a count.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

# Each event sends one batch: 2 SELECTs (a text query and a prepared
# statement), 1 prepared UPDATE and 1 text INSERT. With --dup=K every Kth
# event of a VU sends a batch whose INSERT is a duplicate key instead,
# alternately in an explicit transaction (BEGIN, INSERT, UPDATE, COMMIT:
# the UPDATE and COMMIT are skipped, then ROLLBACK) and in the batch's
# implicit one (SELECT, INSERT, UPDATE: the SELECT ran and is counted,
# the UPDATE is skipped). Each VU prints its tallies.
cat > pipe.lua <<'LUA'
sysbench.cmdline.options = {
  dup = { "a duplicate key every N events (0: never)", 0 },
}
function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS bmk_pipe")
  c:query("DROP TABLE IF EXISTS bmk_pipe_ins")
  c:query("CREATE TABLE bmk_pipe (id INTEGER PRIMARY KEY, k INTEGER NOT NULL) WITH (autovacuum_enabled = off)")
  c:query("CREATE TABLE bmk_pipe_ins (id INTEGER PRIMARY KEY) WITH (autovacuum_enabled = off)")
  c:query("INSERT INTO bmk_pipe SELECT g, 0 FROM generate_series(1, 10) g")
end
function cleanup()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS bmk_pipe")
  c:query("DROP TABLE IF EXISTS bmk_pipe_ins")
end
local n, good, explicit, implicit, bad, recovered, failed_last = 0, 0, 0, 0, 0, 0, false
function thread_init()
  con = sysbench.sql.driver():connect()
  sel = con:prepare("SELECT k FROM bmk_pipe WHERE id = ?")
  sp = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(sp)
  upd = con:prepare("UPDATE bmk_pipe SET k = k + 1 WHERE id = ?")
  up = upd:bind_create(sysbench.sql.type.INT)
  upd:bind_param(up)
  p = con:pipeline()
end
-- the error p:sync() raises for a duplicate key: 23505, which the
-- PostgreSQL driver ignores by default (an event restart descriptor)
local function expect_dup(ok, e)
  if ok or type(e) ~= "table" or e.sql_state ~= "23505"
     or e.errcode ~= sysbench.error.RESTART_EVENT then
    bad = bad + 1
    print("unexpected outcome of a failing batch: " .. tostring(ok) .. " " ..
          tostring(type(e) == "table" and e.sql_errmsg or e))
  end
end
function event()
  n = n + 1
  local id = sysbench.tid * 1000000 + n
  if sysbench.opt.dup > 0 and n % sysbench.opt.dup == 0 then
    failed_last = true
    if (n / sysbench.opt.dup) % 2 == 1 then
      p:query("BEGIN")
      p:query(string.format("INSERT INTO bmk_pipe_ins VALUES (%d)", id - 1))
      up:set(1); p:execute(upd)
      p:query("COMMIT")
      expect_dup(pcall(p.sync, p))
      con:query("ROLLBACK")
      explicit = explicit + 1
    else
      sp:set(3); p:execute(sel)
      p:query(string.format("INSERT INTO bmk_pipe_ins VALUES (%d)", id - 1))
      up:set(1); p:execute(upd)
      expect_dup(pcall(p.sync, p))
      implicit = implicit + 1
    end
    return
  end
  p:query("SELECT k FROM bmk_pipe WHERE id = 1")
  sp:set(2); p:execute(sel)
  up:set(1 + n % 10); p:execute(upd)
  p:query(string.format("INSERT INTO bmk_pipe_ins VALUES (%d)", id))
  local r = p:sync()
  if #r ~= 4 or #r[1].rows ~= 1 or #r[2].rows ~= 1 or r[3].nrows ~= 1 or r[4].nrows ~= 1
     or r[3].rows ~= nil or r[4].rows ~= nil then
    bad = bad + 1
  end
  if failed_last then recovered = recovered + 1 end
  failed_last = false
  good = good + 1
end
function thread_done()
  print(string.format("pipe: good %d explicit %d implicit %d bad %d unrecovered %d last %d",
                      good, explicit, implicit, bad,
                      explicit + implicit - recovered, failed_last and 1 or 0))
end
LUA

# tally FIELD: the sum over the VUs' "pipe:" lines of the run's output
tally() { printf '%s\n' "$OUT" | awk -v f="$1" '$1 == "pipe:" { for (i = 2; i < NF; i += 2) if ($i == f) s += $(i + 1) } END { print s + 0 }'; }
tbl() { pgsql_q "SELECT $1 FROM pg_stat_user_tables WHERE relname = '$2'"; }
fresh() { "$BMK" pipe.lua $PGSQL_OPTS cleanup >/dev/null 2>&1; "$BMK" pipe.lua $PGSQL_OPTS prepare >/dev/null 2>&1; }

N=120
for eng in thread event; do
  if [ $eng = thread ]; then E="--threads=2"; else E="--threads=4 --workers=1"; fi
  for dup in 0 4; do
    L="pgsql $eng, --dup=$dup"
    fresh
    wait_pg_alone
    run_bmk pipe.lua $PGSQL_OPTS $E --events=$N --dup=$dup --results=r.json run
    assert_eq "$L: exit 0" 0 "$RC"
    G=$(tally good) X=$(tally explicit) I=$(tally implicit)
    assert_eq "$L: every batch's results as the script expects, every failure raised 23505" 0 "$(tally bad)"
    assert_eq "$L: good + failed batches = the events" "$N" "$((G + X + I))"
    [ "$dup" = 0 ] || check "$L: both kinds of failing batch ran ($X explicit, $I implicit)" test "$X" -gt 0 -a "$I" -gt 0
    # a good batch: 2 reads 2 writes; explicit failure: BEGIN and ROLLBACK
    # (other), the INSERT an ignored error, UPDATE and COMMIT not counted;
    # implicit failure: the SELECT (read), the INSERT an error, no UPDATE
    R=$((2 * G + I)) W=$((2 * G)) O=$((2 * X)) ERR=$((X + I))
    assert_eq "$L: report read/write/other/total = what the script sent" \
      "$R $W $O $((R + W + O))" "$(report_value "read:" "$OUT") $(report_value "write:" "$OUT") $(report_value "other:" "$OUT") $(report_value "total:" "$OUT")"
    assert_eq "$L: report transactions, queries, ignored errors" "$N $((R + W + O)) $ERR" \
      "$(report_value "transactions:" "$OUT") $(report_value "queries:" "$OUT") $(report_value "ignored errors:" "$OUT")"
    assert_eq "$L: --results per-statement counts, events, errors" "$R $W $O $((R + W + O)) $N $ERR" \
      "$(json_get r.json "'%d %d %d %d %d %d' % tuple([d['summary']['queries'][k] for k in ('read', 'write', 'other', 'total')] + [d['summary']['events'], d['summary']['errors']])")"
    assert_eq "$L: a good batch after every failed one on its connection (but a VU's last event)" \
      "$(tally last)" "$(tally unrecovered)"
    [ $eng = event ] && assert_eq "$L: no SQL call blocked the worker" 0 \
      "$(json_get r.json "d['summary']['client']['loop_blocking_calls']")"
    # the server over the run's window: a batch without BEGIN is one
    # implicit transaction; failed ones roll back (autovacuum is off on
    # these tables; its runs on others are subtracted)
    assert_eq "$L: server commits (less autovacuum's) = good batches, rollbacks = failed ones" "$G $ERR" \
      "$(json_get r.json "'%d %d' % (d['server']['commits'] - d['server']['counter_deltas']['autovacuum_runs'], d['server']['rollbacks'])")"
    assert_eq "$L: server rows inserted (failed INSERTs too) and updated in the window" "$N $G" \
      "$(json_get r.json "'%d %d' % (d['server']['counter_deltas']['tup_inserted'], d['server']['counter_deltas']['tup_updated'])")"
    wait_pg_alone
    assert_eq "$L: pg_stat_user_tables n_tup_ins, n_tup_upd; rows held, sum of k" "$N $G $G $G" \
      "$(tbl n_tup_ins bmk_pipe_ins) $(tbl n_tup_upd bmk_pipe) $(pgsql_q "SELECT count(*) FROM bmk_pipe_ins") $(pgsql_q "SELECT sum(k) FROM bmk_pipe")"
  done

  # --endpoints: per endpoint, a batch is one transaction (at its sync
  # point, or when drained after an error) and each statement that
  # succeeded one latency value (from the batch's send to its result)
  cat > ep.json <<EOF
{"endpoints": [{"name": "main", "driver": "pgsql", "host": "127.0.0.1", "port": $PGSQL_PORT,
  "user": "sbtest", "password_env": "BMK_PIPE_PW", "database": "sbtest", "role": "primary"}]}
EOF
  L="pgsql $eng, --endpoints, --dup=4"
  fresh
  wait_pg_alone
  BMK_PIPE_PW=$DBPASS run_bmk pipe.lua --endpoints=ep.json $E --events=$N --dup=4 --results=ep_r.json run
  assert_eq "$L: exit 0" 0 "$RC"
  assert_eq "$L: the endpoint's transactions are the events (batches and ROLLBACKs)" "$N" \
    "$(json_get ep_r.json "d['endpoints'][0]['server']['bmk_transactions']")"
  assert_eq "$L: server transactions = bmk's (its statements' and own sampling's)" \
    "$(json_get ep_r.json "d['endpoints'][0]['server']['transactions']")" \
    "$(json_get ep_r.json "d['endpoints'][0]['server']['bmk_transactions'] + d['endpoints'][0]['server']['bmk_own_transactions']")"
  assert_eq "$L: one latency value per successful statement (reads + writes + other = the report's total)" \
    "$(report_value "total:" "$OUT") $(report_value "total:" "$OUT")" \
    "$(json_get ep_r.json "'%d %d' % (d['endpoints'][0]['latency_ms']['count'], sum(d['endpoints'][0][k] for k in ('reads', 'writes', 'other')))")"
done
"$BMK" pipe.lua $PGSQL_OPTS cleanup >/dev/null 2>&1

# tpcc --tpcc-mode=pipeline (the C calls through the FFI, transactions
# spread over batches, deadlocks in the event loop): the endpoint's
# transactions are the server's, each statement one latency value
T="tpcc --endpoints=ep.json --scale=1 --tables=1"
BMK_PIPE_PW=$DBPASS run_bmk $T --use-fk=0 --threads=2 prepare
assert_eq "pgsql tpcc prepare: exit 0" 0 "$RC"
for E in "--threads=1" "--threads=4 --workers=1"; do
  wait_pg_alone
  BMK_PIPE_PW=$DBPASS run_bmk $T --tpcc-mode=pipeline --server-cost=off $E --events=100 --results=tp.json run
  assert_eq "pgsql tpcc pipeline $E: exit 0" 0 "$RC"
  assert_eq "pgsql tpcc pipeline $E: server transactions = bmk's" \
    "$(json_get tp.json "d['endpoints'][0]['server']['transactions']")" \
    "$(json_get tp.json "d['endpoints'][0]['server']['bmk_transactions'] + d['endpoints'][0]['server']['bmk_own_transactions']")"
  assert_eq "pgsql tpcc pipeline $E: one latency value per counted statement" \
    "$(json_get tp.json "sum(d['endpoints'][0][k] for k in ('reads', 'writes', 'other'))")" \
    "$(json_get tp.json "d['endpoints'][0]['latency_ms']['count']")"
done
BMK_PIPE_PW=$DBPASS "$BMK" $T cleanup >/dev/null 2>&1

# MySQL: no pipeline mode, refused with the documented message at the
# first statement queued; the connection goes on
cat > my.lua <<'LUA'
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  local p = con:pipeline()
  local ok, e = pcall(p.query, p, "SELECT 1")
  print("query refused: " .. tostring(not ok) .. " " .. tostring(e))
  local st = con:prepare("SELECT 1")
  ok, e = pcall(p.execute, p, st)
  print("execute refused: " .. tostring(not ok) .. " " .. tostring(e))
  print("after: " .. con:query_row("SELECT 2"))
end
LUA
for E in "--threads=1" "--threads=2 --workers=1"; do
  run_bmk my.lua $MYSQL_OPTS $E --events=2 run
  assert_eq "mysql $E: exit 0" 0 "$RC"
  assert_eq "mysql $E: p:query and p:execute refused: this driver has no pipeline mode" 4 \
    "$(printf '%s\n' "$OUT" | grep -c -- "refused: true SQL error, errno = 0, state = '': this driver has no pipeline mode$")"
  assert_match "mysql $E: the FATAL line names the call" "$OUT" \
    '^FATAL: db_pipeline_begin[(][)] returned error 0 [(]this driver has no pipeline mode[)]$'
  assert_not_contains "mysql $E: the FATAL line names no statement" "$OUT" "no pipeline mode) for query"
  assert_eq "mysql $E: the connection goes on" 2 "$(printf '%s\n' "$OUT" | grep -c '^after: 2$')"
done

finish
