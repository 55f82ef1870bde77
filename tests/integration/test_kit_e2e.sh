#!/usr/bin/env bash
# The kit end to end (docs/kit.md) on MariaDB and PostgreSQL:
# `bmk kit generate --sizes=10K` into a temporary BMK_HOME whose .bench
# points at the sandbox, then the generated sb_exec scripts themselves
# (`bash <script> <users> <seconds> [options]`) with the real kit_oltp.lua
# and kit_dbstress.lua: prepare (rows, ids), the per-transaction query mix
# each name promises, the `=> kit: qps excluding BEGIN/COMMIT` line,
# reconnect (reconnects == transactions, ignorable connect failures),
# socket connections seen by the server, the create refusal and cleanup,
# extension options reaching the SQL, MySQL-only options on PostgreSQL.
# Every user works on its own table (2 users, 2 tables), so no run
# restarts an event and the counts are exact.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK" || exit 1
unset BMK_HOME BMK_KIT_WORKLOAD BMK_BENCH_SOURCED BMK_PASS BMK_PG_PASS PGPASSWORD MYSQL_PWD sb11 socket pg_socket

# sc NAME ARGS...: runs the generated script sb_exec/sb11-NAME.sh.
sc() { OUT=$(timeout -k 5 60 bash "$S/sb11-$1.sh" "${@:2}" 2>&1); RC=$?; }
val() { report_value "$1" "$OUT"; }
# rate "queries:" -> the per-second figure of that report line
rate() { printf '%s\n' "$OUT" | grep -E "^ *$1" | head -1 | sed -n 's/.*(\([0-9.]*\) per sec\.).*/\1/p'; }

# mix LABEL R W O: the report's read/write/other totals are R/W/O per
# transaction, with no error and exit 0.
mix() {
  local t r w o e
  t=$(val "transactions:"); r=$(val "read:"); w=$(val "write:"); o=$(val "other:")
  e=$(val "ignored errors:")
  assert_eq "$1: exit 0, no errors" "0:0" "$RC:$e"
  assert_eq "$1: r/w/o per transaction" "$2/$3/$4" \
    "$(awk -v t="${t:-0}" -v r="${r:-0}" -v w="${w:-0}" -v o="${o:-0}" \
       'BEGIN { if (t < 1) print "no transactions"; else printf "%g/%g/%g", r/t, w/t, o/t }')"
}

# qps_line LABEL: `=> kit: qps excluding BEGIN/COMMIT` = qps - 2 tps.
qps_line() {
  local want
  want=$(awk -v q="$(rate 'queries:')" -v t="$(rate 'transactions:')" 'BEGIN { printf "%.2f", q - 2 * t }')
  assert_contains "$1: qps excluding BEGIN/COMMIT" "$OUT" "=> kit: qps excluding BEGIN/COMMIT: $want"
}

for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  K=$WORK/kit-$db
  S=$K/sb_exec
  mkdir -p "$S"
  ln -s "$TOP/BMK/sb_exec/lua" "$S/lua"
  if [ "$db" = mysql ]; then
    SOCK=$SANDBOX_DIR/mysql/mysqld.sock
    # socket/port may be overridden from the environment (tests below)
    printf 'driver=mysql\nhost=127.0.0.1\nport=%s\nsocket=${socket:-%s}\nuser=sbtest\npass=%s\ndb=sbtest\n' \
      "$MYSQL_PORT" "$SOCK" "$DBPASS" > "$K/.bench"
    q() { mysql_q "$1" 2>&1; }
    IGN=--mysql-ignore-errors=2002
    SEQ="CREATE SEQUENCE kit_seq NOCACHE"; NEXTVAL="nextval(kit_seq)"; SEQVAL="SELECT nextval(kit_seq) - 1"
    WHO="USER()"
  else
    SOCK=$SANDBOX_DIR/pgsql/.s.PGSQL.$PGSQL_PORT
    printf 'driver=pgsql\npg_host=127.0.0.1\npg_port=%s\npg_socket=${pg_socket:-%s}\npg_user=sbtest\npg_pass=%s\npg_db=sbtest\n' \
      "$PGSQL_PORT" "$SANDBOX_DIR/pgsql" "$DBPASS" > "$K/.bench"
    q() { pgsql_q "$1" 2>&1; }
    IGN=--pgsql-ignore-errors=08001
    SEQ="CREATE SEQUENCE kit_seq"; NEXTVAL="nextval('kit_seq')"; SEQVAL="SELECT last_value FROM kit_seq"
    WHO="coalesce(host(inet_client_addr()), 'socket')"
  fi
  printf 'sb11=%s\nTMP_DIR=%s\n' "$BMK" "$WORK" >> "$K/.bench"
  export BMK_HOME=$K
  OUT=$("$BMK" kit generate --home="$K" --sizes=10K --tables=2 2>&1)
  assert_contains "$db: generate" "$OUT" "generated 423 scripts in $S"
  for p in Prepare_10K_2tab-InnoDB Prepare_dbSTRESS_10K-InnoDB; do "$BMK" kit cleanup "$p" >/dev/null 2>&1; done
  q "DROP TABLE IF EXISTS kit_conn" >/dev/null
  q "DROP SEQUENCE IF EXISTS kit_seq" >/dev/null

  # ---- OLTP prepare: 4 connections over 2 tables ------------------------------
  sc Prepare_10K_2tab-InnoDB 4
  assert_eq "$db: prepare exit 0" 0 "$RC"
  for n in 1 2; do
    assert_eq "$db: sbtest$n rows, ids 1..10000" "10000 1 10000 10000" \
      "$(q "SELECT COUNT(*), MIN(id), MAX(id), COUNT(DISTINCT id) FROM sbtest$n" | tr '\t|' '  ')"
  done
  sc Prepare_10K_2tab-InnoDB 4
  assert_eq "$db: second prepare exit 1" 1 "$RC"
  assert_eq "$db: refusal line" 1 "$(printf '%s\n' "$OUT" | grep -cxF "bmk kit: table sbtest1 already exists; run 'bmk kit cleanup Prepare_10K_2tab-InnoDB' first")"
  assert_not_contains "$db: no load after the refusal" "$OUT" "Loading DATA"
  assert_eq "$db: rows untouched" 10000 "$(q "SELECT COUNT(*) FROM sbtest2")"

  # ---- OLTP runs: statements per transaction -----------------------------------
  sc OLTP_RW_10K_2tab-uniform-ps-trx 2 1
  mix "$db OLTP_RW ps-trx" 14 4 2; qps_line "$db OLTP_RW ps-trx"
  assert_eq "$db OLTP_RW: 20 queries per transaction" 20 \
    "$(awk -v q="$(val 'queries:')" -v t="$(val 'transactions:')" 'BEGIN { print q / t }')"
  sc OLTP_RW_10K_2tab-uniform-notrx 2 1
  mix "$db OLTP_RW notrx" 14 4 0
  assert_not_contains "$db OLTP_RW notrx: no qps line" "$OUT" "=> kit: qps"
  sc OLTP_RO_10K_2tab-uniform-trx 2 1
  mix "$db OLTP_RO trx (16)" 14 0 2; qps_line "$db OLTP_RO trx"
  sc OLTP_RO_10K_2tab-uniform-ps-notrx 2 1
  mix "$db OLTP_RO ps-notrx (14)" 14 0 0
  sc OLTP_RO_10K_2tab-uniform-ps-p_sel1-notrx 2 1
  mix "$db p_sel1 ps-notrx" 1 0 0
  sc OLTP_RW_10K_2tab-uniform-upd_noidx1-notrx 2 1
  mix "$db upd_noidx1-notrx" 0 1 0
  sc OLTP_RW_10K_2tab-uniform-ps-upd_idx1-notrx 2 1
  mix "$db upd_idx1 ps-notrx" 0 1 0
  sc OLTP_RW_10K_2tab-uniform-upd_insdel1-trx 2 1
  mix "$db upd_insdel1-trx" 0 4 2; qps_line "$db upd_insdel1-trx"
  assert_eq "$db: delete/insert keeps the rows" "10000 10000" "$({ q "SELECT COUNT(*) FROM sbtest1"; q "SELECT COUNT(*) FROM sbtest2"; } | tr '\n' ' ' | sed 's/ $//')"
  sc OLTP_RO_10K_2tab-uniform-p_sel1-reconnect-notrx 2 1
  mix "$db reconnect" 1 0 0
  assert_eq "$db reconnect: reconnects == transactions" "$(val 'transactions:')" "$(val 'reconnects:')"
  sc OLTP_RO_10K_2tab-uniform-ps-p_sel1-reconnect-trx 2 1
  mix "$db reconnect ps-trx" 1 0 2
  assert_contains "$db reconnect ps: notice" "$OUT" "=> reconnect workload: prepared statements are not used"

  # sb11_MAX=1: two processes released together, one Combined line
  sb11_MAX=1 sc OLTP_RO_10K_2tab-uniform-p_sel1-trx 2 1
  assert_eq "$db split: exit 0, two reports with p_sel1-trx's mix (1/0/2)" "0:1/0/2 1/0/2" \
    "$RC:$(printf '%s\n' "$OUT" | awk '/^ +read:/{r=$2} /^ +write:/{w=$2} /^ +other:/{o=$2}
      /^ +transactions:/{printf "%s%g/%g/%g", s, r/$2, w/$2, o/$2; s=" "}')"
  assert_eq "$db split: users on their own tables in both processes" 2 \
    "$(printf '%s\n' "$OUT" | grep -c '^=> users-to-tables: fixed (2 users, 2 tables)$')"
  assert_match "$db split: Combined line" "$OUT" '^=> Combined \(2 processes, 2 threads\): tps: [0-9.]+ qps: '
  c_qps=$(printf '%s\n' "$OUT" | sed -n 's/^=> Combined .* tps: \([0-9.]*\) qps: \([0-9.]*\) .*/\2 \1/p')
  # from the unrounded combined rates: within the printed rounding
  assert_near "$db split: qps excluding BEGIN/COMMIT from the combined rates" \
    "$(echo "$c_qps" | awk '{ printf "%.2f", $1 - 2 * $2 }')" \
    "$(printf '%s\n' "$OUT" | sed -n 's/^=> kit: qps excluding BEGIN\/COMMIT: //p')" 0.03

  # a saved split run (results database set): each process saves its part,
  # tagged with the kit name, the launch and part i/n; merged again by tag
  export BMK_RESULTS_DB=$WORK/kit-$db.db
  sb11_MAX=1 sc OLTP_RO_10K_2tab-uniform-p_sel1-trx 2 1 --tag=who=ci
  unset BMK_RESULTS_DB
  assert_eq "$db saved split: exit 0" 0 "$RC"
  L=$("$BMK" runs list --results-db="$WORK/kit-$db.db" --tag=kit=OLTP_RO_10K_2tab-uniform-p_sel1-trx --tag=who=ci)
  assert_eq "$db saved split: two runs with the kit tag and the user's" 2 "$(printf '%s\n' "$L" | grep -c 'kit_run=')"
  assert_eq "$db saved split: parts 1/2 and 2/2" "part=1/2 part=2/2" \
    "$(printf '%s\n' "$L" | grep -o 'part=[0-9]/2' | sort | tr '\n' ' ' | sed 's/ $//')"
  kr=$(printf '%s\n' "$L" | grep -o 'kit_run=[0-9-]*' | sort -u)
  assert_eq "$db saved split: one launch" 1 "$(printf '%s\n' "$kr" | wc -l)"
  M=$("$BMK" report --merge --results-db="$WORK/kit-$db.db" --output="$WORK/kit-merged.json" "tag:$kr" 2>&1)
  assert_eq "$db saved split: merged by tag, the events of both parts" \
    "$(printf '%s\n' "$OUT" | awk '/^ +transactions:/{s += $2} END{print s}')" \
    "$(json_get "$WORK/kit-merged.json" "d['summary']['events']")"

  # socket: the server sees a UNIX-socket client
  q "CREATE TABLE kit_conn (who VARCHAR(64))" >/dev/null
  sc OLTP_RO_10K_2tab-uniform-p_sel1-notrx-socket 2 1 "--extra-query-before=INSERT INTO kit_conn SELECT $WHO"
  mix "$db socket (p_sel1 + 1 INSERT)" 1 1 0
  if [ "$db" = mysql ]; then want=sbtest@localhost; else want=socket; fi
  assert_eq "$db socket: server-side client" "$want" "$(q "SELECT DISTINCT who FROM kit_conn")"
  q "DROP TABLE kit_conn" >/dev/null

  # reconnect: a connect failure listed as ignorable counts an error and
  # restarts the event (db_last_connect_error). The socket is a symlink that
  # disappears for 0.4 s once the threads have started.
  L=$WORK/sock-$db
  mkdir -p "$L"
  ln -s "$SOCK" "$L/$(basename "$SOCK")"
  if [ "$db" = mysql ]; then export socket=$L/mysqld.sock; else export pg_socket=$L; fi
  # bg_run GAP ARGS...: runs the reconnect socket script; once it prints
  # `Threads started!` the socket goes away for GAP seconds (forever if 0).
  bg_run() {
    local gap=$1 pid
    shift
    timeout -k 5 60 bash "$S/sb11-OLTP_RO_10K_2tab-uniform-p_sel1-reconnect-notrx-socket.sh" 2 2 "$@" > "$WORK/bg.out" 2>&1 &
    pid=$!
    for _ in $(seq 6000); do grep -q '^Threads started!' "$WORK/bg.out" && break; sleep 0.05; done
    sleep 0.2
    mv "$L/$(basename "$SOCK")" "$L/gone"
    if [ "$gap" != 0 ]; then sleep "$gap"; mv "$L/gone" "$L/$(basename "$SOCK")"; fi
    wait "$pid"
    RC=$?
    OUT=$(cat "$WORK/bg.out")
  }
  bg_run 0.4 "$IGN"
  e=$(val "ignored errors:")
  assert_eq "$db reconnect, ignorable connect failure: exit 0" 0 "$RC"
  check "$db reconnect, ignorable connect failure: errors counted (${e:-none})" test "${e:-0}" -gt 0
  assert_eq "$db reconnect, ignorable connect failure: reads == reconnects == transactions" \
    "$(val 'transactions:') $(val 'transactions:')" "$(val 'read:') $(val 'reconnects:')"
  assert_not_contains "$db reconnect, ignorable connect failure: no FATAL line" "$OUT" "FATAL"
  # listed, and the server stays away: the run still ends at --time, clean
  bg_run 0 "$IGN"
  e=$(val "ignored errors:")
  assert_eq "$db reconnect, socket gone for good, listed: exit 0, no FATAL, reconnects == transactions" \
    "0::$(val 'transactions:')" "$RC:$(printf '%s\n' "$OUT" | grep -m1 FATAL):$(val 'reconnects:')"
  check "$db reconnect, socket gone for good, listed: errors counted (${e:-none})" test "${e:-0}" -gt 0
  mv "$L/gone" "$L/$(basename "$SOCK")"
  bg_run 0
  check "$db reconnect, connect failure not listed: fails (exit $RC)" test "$RC" -ne 0
  assert_match "$db reconnect, connect failure not listed: FATAL with its code" "$OUT" \
    "^FATAL: .*reconnect workload: connect failed: error [0-9]+, SQLSTATE '[0-9A-Z]*': "
  unset socket pg_socket

  # extension options through a run script: the select list the server evaluates
  q "$SEQ" >/dev/null
  sc OLTP_RO_10K_2tab-uniform-p_sel1-notrx 2 1 "--select-cols=id,k,$NEXTVAL" "--mysql-session-options=SET @kit_e2e=1"
  mix "$db --select-cols" 1 0 0
  if [ "$db" = pgsql ]; then
    assert_contains "$db: MySQL-only run option: notice" "$OUT" "=> --mysql-session-options ignored on PostgreSQL"
  fi
  assert_contains "$db --select-cols: startup line" "$OUT" "=> select-cols: id,k,$NEXTVAL"
  assert_eq "$db --select-cols: evaluated once per point select" "$(val 'read:')" "$(q "$SEQVAL")"
  q "DROP SEQUENCE kit_seq" >/dev/null

  # ---- cleanup, then prepare with extension options ----------------------------
  OUT=$("$BMK" kit cleanup sb11-Prepare_10K_2tab-InnoDB.sh 2>&1); RC=$?
  assert_eq "$db: kit cleanup exit 0" 0 "$RC"
  if [ "$db" = mysql ]; then
    left=$(q "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name LIKE 'sbtest%'")
  else
    left=$(q "SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'")
  fi
  assert_eq "$db: kit cleanup dropped the tables" 0 "$left"
  sc Prepare_10K_2tab-InnoDB 2 --extra-cols=2 "--mysql-table-options=COMMENT='kitD'" --mysql-table-compression=lz4 --rnd-data=50
  if [ "$db" = mysql ]; then
    # MariaDB has no COMPRESSION= table option: the clause reaching the
    # server is what fails here
    assert_eq "$db: --mysql-table-compression reaches the DDL (MariaDB refuses it)" 1 "$RC"
    assert_match "$db: compression error from the server" "$OUT" "COMPRESSION|compression"
    "$BMK" kit cleanup Prepare_10K_2tab-InnoDB >/dev/null 2>&1
    sc Prepare_10K_2tab-InnoDB 2 --extra-cols=2 "--mysql-table-options=COMMENT='kitD'" --rnd-data=50
    assert_eq "$db: prepare with extension options exit 0" 0 "$RC"
    ddl=$(q "SHOW CREATE TABLE sbtest2")
    assert_contains "$db: extra column col2 in the schema" "$ddl" '`col2` varchar(32)'
    assert_contains "$db: table options in the schema" "$ddl" "COMMENT='kitD'"
  else
    assert_eq "$db: prepare with MySQL-only options exit 0" 0 "$RC"
    assert_contains "$db: notice for --mysql-table-options" "$OUT" "=> --mysql-table-options ignored on PostgreSQL"
    assert_contains "$db: notice for --mysql-table-compression" "$OUT" "=> --mysql-table-compression ignored on PostgreSQL"
    assert_eq "$db: extra columns in the schema" "col1 col2" \
      "$(q "SELECT column_name FROM information_schema.columns WHERE table_name='sbtest2' AND column_name LIKE 'col%' ORDER BY 1" | tr '\n' ' ' | sed 's/ $//')"
  fi
  assert_eq "$db: extra columns filled" 10000 "$(q "SELECT COUNT(*) FROM sbtest1 WHERE col2 IS NOT NULL")"
  "$BMK" kit cleanup Prepare_10K_2tab-InnoDB >/dev/null 2>&1

  # ---- dbSTRESS ----------------------------------------------------------------
  sc Prepare_dbSTRESS_10K-InnoDB 4
  assert_eq "$db dbSTRESS prepare: exit 0" 0 "$RC"
  assert_eq "$db dbSTRESS: OBJECT rows, HISTORY = 20 x OBJECT" "10000 200000" \
    "$({ q "SELECT COUNT(*) FROM OBJECT1"; q "SELECT COUNT(*) FROM HISTORY1"; } | tr '\n' ' ' | sed 's/ $//')"
  sc Prepare_dbSTRESS_10K-InnoDB 4
  assert_eq "$db dbSTRESS: refusal line, exit 1" "1:1" \
    "$RC:$(printf '%s\n' "$OUT" | grep -cE "^bmk kit: table [A-Z]+1 already exists; run 'bmk kit cleanup Prepare_dbSTRESS_10K-InnoDB' first$")"
  sc dbSTRESS_10K-RO-notrx 2 1
  mix "$db dbSTRESS RO-notrx" 2 0 0
  sc dbSTRESS_10K-RW1-trx 2 1
  # an UPDATE that happens to rewrite identical values counts as other
  t=$(val transactions:); w=$(val write:); o=$(val other:)
  assert_eq "$db dbSTRESS RW1-trx: reads, writes+other per transaction, errors" \
    "0:2:5:0" "$RC:$(awk -v t="$t" -v r="$(val read:)" 'BEGIN{print r/t}'):$(( (w + o) / t )):$(val 'ignored errors:')"
  check "$db dbSTRESS RW1-trx: 3 writes per transaction ($w / $t)" test $((3 * t - w)) -le $((t / 100))
  qps_line "$db dbSTRESS RW1-trx"
  sc dbSTRESS_10K-RW10-UPD-trx 2 1
  t=$(val transactions:); w=$(val write:); o=$(val other:)
  assert_eq "$db dbSTRESS RW10-UPD-trx: 2 reads per transaction" "0:2" "$RC:$(awk -v t="$t" -v r="$(val read:)" 'BEGIN{print r/t}')"
  # every 10th event of each thread writes one UPDATE
  check "$db dbSTRESS RW10-UPD-trx: 1 UPDATE per 10 transactions ($w+$o-2x$t of $t)" \
    test $((w + o - 2 * t)) -le $((t / 10)) -a $((w + o - 2 * t)) -ge $((t / 10 - 2))
  sc dbSTRESS_10K-RW1-xDEAD-trx 2 1
  t=$(val transactions:); w=$(val write:); o=$(val other:); e=$(val 'ignored errors:')
  if [ "${e:-1}" = 0 ]; then
    assert_eq "$db dbSTRESS RW1-xDEAD-trx: exit 0, 2 reads, 5 writes+other per transaction" "0:2:5" \
      "$RC:$(awk -v t="$t" -v r="$(val read:)" 'BEGIN{print r/t}'):$(( (w + o) / t ))"
  else
    # without anti-dead two users may deadlock; restarted events repeat statements
    assert_eq "$db dbSTRESS RW1-xDEAD-trx: exit 0 ($e deadlocks restarted)" 0 "$RC"
  fi
  "$BMK" kit cleanup Prepare_dbSTRESS_10K-InnoDB >/dev/null 2>&1
  assert_eq "$db dbSTRESS: kit cleanup dropped OBJECT1" "" "$(q "SELECT COUNT(*) FROM OBJECT1" 2>/dev/null | grep -E '^[0-9]+$')"
done
unset BMK_HOME

finish
