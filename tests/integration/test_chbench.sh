#!/usr/bin/env bash
# bmk chbench (docs/chbench.md), 1 warehouse on each database, in a
# database / schema of its own (chbench): bad input (no tables, a TPC-C
# schema without the added tables, an unknown query number, --tables=2)
# with one FATAL line and exit 1; prepare with a fixed seed and the added
# tables' fixed facts; each query's rows on MariaDB against PostgreSQL's
# on the same data under TPC-H's tolerances (`answers`); a mixed run of 2
# TPC-C VUs and 1 stream that ends after the stream's pass of the 22
# queries (every query completed once, the seeded order as printed, the
# figures and --chbench-report agreeing, NOPM from both sources agreeing;
# on PostgreSQL the same run's queries on its --metrics-listen page, in
# --results' analytic_queries and drawn by bmk report --html in headless
# Chromium);
# --baseline (TPC-C alone, the streams alone, then mixed: each ratio of
# the report from the phases' own figures; bad combinations refused;
# Ctrl-C in a phase: exit 130, the mixed run not started); on PostgreSQL
# --baseline=tag:K=V (the phases saved by --baseline --save, the mixed
# run only, each ratio from the saved runs' figures; no such tag, one
# phase only, runs that do not match, a database that cannot be opened:
# one FATAL line and exit 1);
# check; cleanup. No timing is asserted.
set -u
source "$(dirname "$0")/lib/lib.sh"
source "$(dirname "$0")/lib/tpcc_lib.sh"
cd "$WORK" || exit 1

DBS=${BMK_TEST_DBS:-mysql pgsql}
where() { if [ "$1" = mysql ]; then echo "--mysql-db=chbench"; else echo "--pgsql-schema=chbench"; fi; }
fatal_lines() { printf '%s\n' "$OUT" | grep -c '^FATAL'; }
ntables() {
  if [ "$1" = mysql ]; then
    q mysql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='chbench'"
  else
    q pgsql "SELECT COUNT(*) FROM pg_tables WHERE schemaname='chbench'"
  fi
}

for db in $DBS; do
  O="$(opts $db) $(where $db) --scale=1"
  if [ $db = mysql ]; then q mysql "DROP DATABASE IF EXISTS chbench; CREATE DATABASE chbench" >/dev/null
  else q pgsql "DROP SCHEMA IF EXISTS chbench CASCADE; CREATE SCHEMA chbench" >/dev/null; fi

  # ---- bad input -----------------------------------------------------------
  run_bmk chbench $O --threads=2 --analytic-streams=1 --time=5 run
  assert_eq "$db: streams without TPC-C's tables: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: no tables: message" "$OUT" "no TPC-C tables in"
  run_bmk chbench $O --threads=2 check
  assert_eq "$db: check without tables: exit 1" 1 "$RC"
  run_bmk chbench $O --tables=2 --time=5 run
  assert_contains "$db: --tables=2 refused" "$OUT" "--tables must be 1 (got 2)"

  # ---- prepare: tpcc's tables, then the added ones --------------------------
  run_bmk tpcc $O --threads=2 --rand-seed=42 prepare
  assert_eq "$db: tpcc prepare" 0 "$RC"
  run_bmk chbench $O --threads=2 --analytic-streams=1 --time=5 run
  assert_eq "$db: a TPC-C schema without SUPPLIER: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: missing tables named" "$OUT" "the CH-benCHmark tables region, nation, supplier are missing"
  run_bmk chbench $O --threads=2 --rand-seed=42 prepare
  assert_eq "$db: chbench prepare over the TPC-C schema" 0 "$RC"
  assert_contains "$db: added tables loaded" "$OUT" "10000 suppliers, 62 nations, 5 regions loaded"
  assert_eq "$db: 9 TPC-C tables, 2 bookkeeping tables and 3 added ones" 14 "$(ntables $db)"
  run_bmk chbench $O --threads=2 prepare
  assert_contains "$db: prepare again: nothing to do" "$OUT" "already loaded; nothing to do"
  assert_eq "$db: region names" "Africa America Asia Australia Europe" \
    "$(q $db "SELECT r_name FROM region ORDER BY r_regionkey" chbench | tr '\n' ' ' | sed 's/ $//')"
  assert_eq "$db: nations per region" "14 13 9 4 22" \
    "$(q $db "SELECT COUNT(*) FROM nation GROUP BY n_regionkey ORDER BY n_regionkey" chbench | tr '\n' ' ' | sed 's/ $//')"

  run_bmk chbench $O --queries=1,23 --time=5 run
  assert_eq "$db: unknown query number: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: unknown query number: message" "$OUT" "--queries: unknown query number '23'"
  # --baseline with nothing to compare, or phases of different lengths
  run_bmk chbench $O --threads=2 --analytic-streams=0 --time=2 --baseline run
  assert_eq "$db: --baseline without streams: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: --baseline without streams: message" "$OUT" "--baseline compares the mixed run with the streams alone: it needs --analytic-streams of 1 or more"
  run_bmk chbench $O --threads=2 --analytic-passes=1 --time=2 --baseline run
  assert_eq "$db: --baseline with --analytic-passes: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "$db: --baseline with --analytic-passes: message" "$OUT" "--baseline runs each phase for the same --time: leave --analytic-passes out"

  # ---- each query's rows, the same data on both databases ------------------
  # (the ASan pass leaves it to the normal pass: the servers' work, run by
  # the same C as the mixed run's stream below)
  if asan_pass; then
    skip "$db: each query's rows against the other database's" "the servers' work, by the same C as the mixed run's stream; done in the normal pass"
  elif [ $db = mysql ]; then
    mkdir -p "$WORK/answers"
    run_bmk chbench $O answers --save-answers="$WORK/answers"
    assert_eq "$db: answers saved" "0 22" "$RC $(ls "$WORK/answers" | grep -c '^q[0-9]*\.out$')"
    # the nation joins find rows: a customer's nation from c_state (5, 7, 8)
    # and the region's and nations' names the queries name (Europe, Germany,
    # Cambodia)
    assert_eq "$db: queries 5, 7 and 8 return rows" "1 1 1" \
      "$(for q in 5 7 8; do [ -s "$WORK/answers/q$q.out" ] && echo 1 || echo 0; done | paste -sd' ')"
  elif [ -f "$WORK/answers/q22.out" ]; then
    run_bmk chbench $O answers --answers="$WORK/answers"
    assert_eq "$db: every query agrees with MariaDB's rows" "0" "$RC"
    assert_contains "$db: 22 of 22 agree" "$OUT" "22 of 22 queries agree"
    printf '%s\n' "$OUT" | grep DIFFERS
  fi
done

# mixed_run_scraped OPTS: the mixed run below (PostgreSQL) in the
# background with --metrics-listen (run_scraped); sets RC, OUT and PAGE
# (the page read after the run's end).
mixed_run_scraped() {
  local port
  port=$(free_port 19753)
  run_scraped "$WORK/mixed.out" "$port" \
    "$BMK" chbench $1 --threads=2 --analytic-streams=1 --analytic-passes=1 --seed=42 --time=300 \
    --results="$WORK/r-pgsql.json" --chbench-report="$WORK/ch-pgsql.json" \
    --metrics-listen=127.0.0.1:$port --metrics-linger=60 run
}

# check_analytic_views: the PostgreSQL mixed run's queries (22, every one
# completed) on its --metrics-listen page (scraped after the end), in
# --results' analytic_queries (one span per query, in the run) and drawn
# by bmk report --html.
check_analytic_views() {
  assert_eq "pgsql: --metrics-listen after the end: in flight, count, +Inf bucket, failed" "0 22 22 0" \
    "$(printf '%s\n' "$PAGE" | awk '/^bmk_chbench_queries_in_flight\{/ {a=$2} /^bmk_chbench_query_duration_seconds_count\{/ {b=$2}
      /^bmk_chbench_query_duration_seconds_bucket\{.*le="\+Inf"/ {c=$2} /^bmk_chbench_queries_failed_total\{/ {d=$2} END {print a, b, c, d}')"
  assert_contains "pgsql: --metrics-listen: the run's own families beside them" "$PAGE" "bmk_run_finished{"
  assert_eq "pgsql: --results: one span per completed query, each query once, start < end within the run" \
    "22 $(seq -s, 1 22) ok" "$(json_get "$WORK/r-pgsql.json" "'%d %s %s' % (len(d['analytic_queries']), ','.join(str(q) for q in sorted(x['query'] for x in d['analytic_queries'])), 'ok' if all(x['stream'] == 1 and 0 <= x['start_s'] < x['end_s'] <= d['summary']['time_s'] for x in d['analytic_queries']) else d['analytic_queries'])")"
  run_bmk report --html="$WORK/r-pgsql.html" "$WORK/r-pgsql.json"
  assert_eq "pgsql: --html: exit 0, a label Q<n> per query in the page" "0 22" \
    "$RC $(grep -oE '>Q[0-9]+</text>' "$WORK/r-pgsql.html" | wc -l)"
  assert_eq "pgsql: --html: no chart of the query times alone vs mixed without --baseline" 0 \
    "$(grep -c 'analytic query times alone vs mixed' "$WORK/r-pgsql.html")"
  if asan_pass; then
    skip "pgsql: --html: the analytic queries drawn in Chromium" "the page is written by the C above; Chromium's load is done in the normal pass"
    return
  fi
  if ! command -v chromium >/dev/null; then
    not_ok "chromium is not installed (apt-get install chromium; tests/run-all.sh does)"
    return
  fi
  # (probe_page: the charts, those drawn, and the drawn labels Q<n>)
  probe_page "$WORK/r-pgsql.html" \
    '[...document.querySelectorAll("svg text")].filter(t=>/^Q[0-9]+$/.test(t.textContent)&&t.getBoundingClientRect().width>0).length'
  # the series' 2 charts, the timeline, the analytic queries; a label per query
  assert_eq "pgsql: --html: every chart drawn, one label Q<n> per query" "4 4 22" "$PROBE"
  assert_eq "pgsql: --html: no console messages" 0 "$CONSOLE"
}

# check_alone_chart: the --baseline run's alone side in its --results
# (the phases' own figures) and bmk report --html's chart of the query
# times alone vs mixed, its bars labelled with the document's figures
# (tools/chbench_alone_chart_check.py), drawn in Chromium (PostgreSQL's).
check_alone_chart() {
  assert_eq "$db: --baseline: --results valid against docs/results.schema.json" ok \
    "$(json_ok "$WORK/b-$db.json" && echo ok)"
  run_bmk report --html="$WORK/b-$db.html" "$WORK/b-$db.json"
  assert_eq "$db: --baseline: bmk report --html exit" 0 "$RC"
  assert_eq "$db: --baseline: the alone figures are the phases' own; the chart alone vs mixed has a bar label per figure" \
    ok "$(python3 "$TOP/tests/integration/tools/chbench_alone_chart_check.py" "$WORK/b-$db.json" \
          "$WORK/b-$db.html")"
  if [ $db = mysql ] || asan_pass; then
    return  # (Chromium's load: PostgreSQL's page, in the normal pass)
  fi
  if ! command -v chromium >/dev/null; then
    not_ok "chromium is not installed (apt-get install chromium; tests/run-all.sh does)"
    return
  fi
  local charts labels
  charts=$(grep -c '<figure class="chart"' "$WORK/b-$db.html")
  labels=$(json_get "$WORK/b-$db.json" "sum(1 for k in d['summary']['figures'] if k.startswith(('chbench_mean_q', 'chbench_alone_mean_q')))")
  # (probe_page: the charts, those drawn, and the value labels drawn in
  # the chart alone vs mixed)
  probe_page "$WORK/b-$db.html" \
    '[...document.querySelectorAll("figure.chart")].filter(f=>f.querySelector("figcaption").textContent.includes("alone vs mixed")).map(f=>[...f.querySelectorAll("text")].filter(t=>t.parentNode.getAttribute("font-size")==="7.00"&&t.getBoundingClientRect().width>0).length).join(" ")'
  assert_eq "$db: --baseline: --html: every chart drawn, the value labels of the chart alone vs mixed too" \
    "$charts $charts $labels" "$PROBE"
  assert_eq "$db: --baseline: --html: no console messages" 0 "$CONSOLE"
}

# check_saved_baselines OPTS: --baseline=tag:K=V on PostgreSQL, from the
# phases the --baseline run below saved in $WORK/bl.db with chb=pgsql.
check_saved_baselines() {
  local O="$1 --threads=2 --analytic-streams=1 --seed=42 --time=2 --results-db=$WORK/bl.db"
  local Q=3,11,13,22 tid sid hid oid
  tid=$("$BMK" runs list --results-db="$WORK/bl.db" --tag=chb=pgsql --tag=chbench_phase=tpcc-alone | awk 'NR > 1 {print $1}')
  sid=$("$BMK" runs list --results-db="$WORK/bl.db" --tag=chb=pgsql --tag=chbench_phase=streams-alone | awk 'NR > 1 {print $1}')
  assert_eq "pgsql: --baseline --save: each phase saved once, tagged with its phase and the run's tags" \
    "1 1" "$(echo "$tid" | grep -c '^[0-9]') $(echo "$sid" | grep -c '^[0-9]')"
  "$BMK" runs export "$tid" --results-db="$WORK/bl.db" > "$WORK/saved-tpcc.json"
  "$BMK" runs export "$sid" --results-db="$WORK/bl.db" > "$WORK/saved-streams.json"
  # the saved streams' per-query means are the phase's own (its --chbench-report)
  assert_eq "pgsql: the saved streams-alone run's chbench_mean_qNN_seconds: its report's averages" ok \
    "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['summary']['figures']; c=json.load(open(sys.argv[2]))['queries']
bad=[q for q in c if abs(d['chbench_mean_q%02d_seconds' % int(q)]['value'] - c[q]['avg']) > 1.5e-6] + [k for k in d if k.startswith('chbench_mean_q') and str(int(k[14:16])) not in c]
print('ok' if c and not bad else bad or 'no query')" "$WORK/saved-streams.json" "$WORK/bch-pgsql.streams-alone.json")"

  run_bmk chbench $O --queries=$Q --baseline=tag:chb=pgsql --results="$WORK/s-pgsql.json" \
    --chbench-report="$WORK/sch-pgsql.json" run
  assert_eq "pgsql: --baseline=tag:K=V: exit 0, no baseline phase run" "0 0" \
    "$RC $(printf '%s\n' "$OUT" | grep -c '^chbench --baseline: phase')"
  assert_contains "pgsql: --baseline=tag:K=V: the saved runs named" "$OUT" \
    "chbench --baseline=tag:chb=pgsql: TPC-C alone from saved run $tid, the streams alone from saved run $sid; the mixed run only"
  assert_contains "pgsql: --baseline=tag:K=V: the report's heading names them" "$OUT" \
    "CH-benCHmark interference (alone: saved runs $tid, TPC-C alone 2 s, and $sid, the streams alone 2 s, tag chb=pgsql; mixed 2 s;"
  printf '%s\n' "$OUT" > "$WORK/s-pgsql.txt"
  assert_eq "pgsql: --baseline=tag:K=V: every figure alone is the saved run's, mixed this run's, each ratio theirs" \
    ok "$(python3 "$TOP/tests/integration/tools/chbench_baseline_check.py" "$WORK/s-pgsql.json" \
          "$WORK/sch-pgsql.json" "$WORK/s-pgsql.txt" $Q "$WORK/saved-tpcc.json" "$WORK/saved-streams.json" "$tid" "$sid")"

  # bad input: one FATAL line, exit 1, before anything runs
  run_bmk chbench $O --queries=$Q --baseline=tag:chb=nosuch run
  assert_eq "pgsql: --baseline=tag: no run with the tag: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "pgsql: ... says how to save one" "$OUT" "--baseline=tag:chb=nosuch: no saved run carries the tag chb=nosuch in the results database '$WORK/bl.db'; save the baselines with \`bmk chbench ... --baseline --save --tag=chb=nosuch run\`"
  # one phase only: the TPC-C-alone run imported again with another tag
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['manifest']['tags']['chb']='half'; json.dump(d, open(sys.argv[2], 'w'))" \
    "$WORK/saved-tpcc.json" "$WORK/half.json"
  hid=$("$BMK" runs import --results-db="$WORK/bl.db" "$WORK/half.json" | sed -n 's/.*: run \([0-9]*\)$/\1/p')
  run_bmk chbench $O --queries=$Q --baseline=tag:chb=half run
  assert_eq "pgsql: --baseline=tag: one phase saved: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "pgsql: ... names the phase that is missing" "$OUT" "--baseline=tag:chb=half: only the TPC-C-alone phase is saved with that tag (run $hid); the streams-alone phase is missing"
  # runs that do not match: the database kind and warehouses of the
  # TPC-C-alone run changed; this run's query list against the saved one
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['manifest']['tags']['chb']='other'; d['manifest']['options'].update(db_driver='mysql', scale='2'); json.dump(d, open(sys.argv[2], 'w'))
d=json.load(open(sys.argv[3])); d['manifest']['tags']['chb']='other'; json.dump(d, open(sys.argv[4], 'w'))" \
    "$WORK/saved-tpcc.json" "$WORK/other-t.json" "$WORK/saved-streams.json" "$WORK/other-s.json"
  oid=$("$BMK" runs import --results-db="$WORK/bl.db" "$WORK/other-t.json" "$WORK/other-s.json" | sed -n '1s/.*: run \([0-9]*\)$/\1/p')
  run_bmk chbench $O --queries=$Q --baseline=tag:chb=other run
  assert_eq "pgsql: --baseline=tag: another database kind and scale: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "pgsql: ... names both differences" "$OUT" "the newest saved TPC-C-alone run, run $oid, does not match this run: database kind (--db-driver): mysql there, pgsql here; warehouses (--scale): 2 there, 1 here;"
  run_bmk chbench $O --queries=3,11 --baseline=tag:chb=pgsql run
  assert_eq "pgsql: --baseline=tag: another query list: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "pgsql: ... names it" "$OUT" "the newest saved streams-alone run, run $sid, does not match this run: query list (--queries): 3,11,13,22 there, 3,11 here;"
  # a results database that cannot be opened
  echo "not a database" > "$WORK/notadb.db"
  run_bmk chbench $1 --threads=2 --analytic-streams=1 --time=2 --results-db="$WORK/notadb.db" \
    --baseline=tag:chb=pgsql run
  assert_eq "pgsql: --baseline=tag: a database that cannot be opened: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "pgsql: ... names it and why" "$OUT" "--baseline=tag:chb=pgsql: cannot read the saved baselines from the results database '$WORK/notadb.db': "
  run_bmk chbench $O --baseline=build42 run
  assert_eq "pgsql: --baseline=VALUE that is no tag: exit 1, one FATAL line" "1 1" "$RC $(fatal_lines)"
  assert_contains "pgsql: ... says what it takes" "$OUT" "--baseline takes on, off or tag:KEY=VALUE (the saved baselines of that tag), not 'build42'"
}

for db in $DBS; do
  O="$(opts $db) $(where $db) --scale=1"
  # ---- a mixed run: 2 VUs, 1 stream, ending after the stream's pass --------
  # (on PostgreSQL with --metrics-listen: scraped while it runs, then once
  # after its end, which --metrics-linger waits for)
  if [ $db = pgsql ]; then
    mixed_run_scraped "$O"
  else
    run_bmk chbench $O --threads=2 --analytic-streams=1 --analytic-passes=1 --seed=42 \
      --time=300 --results="$WORK/r-$db.json" --chbench-report="$WORK/ch-$db.json" run
  fi
  assert_eq "$db: mixed run exit" 0 "$RC"
  assert_contains "$db: seed printed" "$OUT" "seed 42;"
  assert_contains "$db: one full pass" "$OUT" "stream 1: 22 queries completed, 1 full pass(es), 0 cut"
  assert_contains "$db: NOPM from both sources agree" "$OUT" "; agree (difference"
  order=$(printf '%s\n' "$OUT" | sed -n 's/^chbench: stream 1 pass 1 order: //p')
  assert_eq "$db: the order is a permutation of 1..22" "$(seq 1 22 | tr '\n' ' ')" \
    "$(echo "$order" | tr ',' '\n' | sort -n | tr '\n' ' ')"
  assert_eq "$db: --chbench-report: the printed order, every query once" "$order 22 22" \
    "$(json_get "$WORK/ch-$db.json" "'%s %d %d' % (','.join(map(str, d['streams'][0]['order'])), len(d['streams'][0]['queries']), sum(q['runs'] for q in d['queries'].values()))")"
  assert_eq "$db: --results: chbench_queries and 22 per-query figures" "22.0 22" \
    "$(json_get "$WORK/r-$db.json" "'%s %d' % (d['summary']['figures']['chbench_queries']['value'], len([k for k in d['summary']['figures'] if k.startswith('chbench_q') and k.endswith('_seconds')]))")"
  assert_eq "$db: the geometric mean is the report's" \
    "$(json_get "$WORK/ch-$db.json" "'%.3f' % d['geomean']")" \
    "$(printf '%s\n' "$OUT" | sed -n 's/^Analytic queries completed: 22; geometric mean of their times: \([0-9.]*\) s$/\1/p')"
  # (run last: it runs bmk report, which sets OUT)
  [ $db = pgsql ] && check_analytic_views

  # ---- --baseline: TPC-C alone, the streams alone, then the mixed run -------
  # Each figure's alone and mixed values are the phases' own (their
  # --results and --chbench-report files), each ratio mixed / alone of
  # them, and the printed table the same (tools/chbench_baseline_check.py).
  # On MariaDB --analytic-delay=10 outlasts the 2 s phases: only the
  # stream's first query runs in each, the others show '-' and no ratio.
  # (the ASan pass runs PostgreSQL's only: the same Lua, half the time)
  if [ $db = mysql ] && asan_pass; then
    skip "$db: --baseline" "the same Lua as PostgreSQL's run; done in the normal pass"
  else
    delay=0
    [ $db = mysql ] && delay=10
    run_bmk chbench $O --threads=2 --analytic-streams=1 --queries=3,11,13,22 --seed=42 \
      --analytic-delay=$delay --time=2 --baseline --results="$WORK/b-$db.json" \
      --chbench-report="$WORK/bch-$db.json" --save --tag=chb=$db --results-db="$WORK/bl.db" run
    assert_eq "$db: --baseline run exit" 0 "$RC"
    assert_eq "$db: --baseline: three phases announced" 3 \
      "$(printf '%s\n' "$OUT" | grep -c '^chbench --baseline: phase [123] of 3: ')"
    assert_contains "$db: --baseline: the interference report" "$OUT" "CH-benCHmark interference (each phase 2 s; ratio = mixed / alone"
    printf '%s\n' "$OUT" > "$WORK/b-$db.txt"
    assert_eq "$db: --baseline: every figure alone and mixed is the phase's own, each ratio theirs" \
      ok "$(python3 "$TOP/tests/integration/tools/chbench_baseline_check.py" "$WORK/b-$db.json" \
            "$WORK/bch-$db.json" "$WORK/b-$db.txt" 3,11,13,22)"
    check_alone_chart
    if [ $db = pgsql ]; then
      # Ctrl-C (SIGINT to the process group, as a terminal sends it) in
      # phase 1: its run prints its report so far, the command stops with
      # 130 and says so, and the mixed run does not start
      setsid "$BMK" chbench $O --threads=2 --analytic-streams=1 --queries=3 --time=60 \
        --report-interval=1 --baseline run > "$WORK/bint.out" 2>&1 &
      pid=$!
      for _ in $(seq 600); do grep -q '^\[ 1s \]' "$WORK/bint.out" && break; sleep 0.1; done  # hang guard 60 s
      kill -INT -- -"$pid"
      wait "$pid"; rc=$?
      assert_eq "$db: Ctrl-C in a --baseline phase: exit 130" 130 "$rc"
      assert_contains "$db: ... the phase's report so far" "$(cat "$WORK/bint.out")" "total number of events:"
      assert_contains "$db: ... says where it stopped" "$(cat "$WORK/bint.out")" \
        "chbench --baseline: interrupted in phase 1 of 3 (TPC-C alone (--analytic-streams=0)); its report so far is above, the mixed run did not start"
      assert_eq "$db: ... the mixed run did not start" 0 "$(grep -c '^chbench --baseline: phase 3 of 3' "$WORK/bint.out")"
      check_saved_baselines "$O"
    fi
    if [ $db = mysql ]; then
      first=$(json_get "$WORK/bch-$db.json" "d['streams'][0]['order'][0]")
      assert_eq "$db: --baseline: only the first query ran; the others have no side and no ratio" \
        "$first" "$(json_get "$WORK/bch-$db.json" "' '.join(q for q, r in d['interference']['queries'].items() if r['alone'] is not None or r['mixed'] is not None or r['ratio'] is not None)")"
    fi
  fi

  # ---- check, cleanup -------------------------------------------------------
  run_bmk chbench $O --threads=2 check
  assert_eq "$db: check passes" 0 "$RC"
  assert_contains "$db: check: TPC-C conditions" "$OUT" "0 FAILED"
  assert_contains "$db: check: the added tables' facts" "$OUT" "CH-benCHmark tables: PASSED (5 regions, 62 nations, 10000 suppliers, keys match)"
  run_bmk chbench $O cleanup
  assert_eq "$db: cleanup leaves no table" "0 0" "$RC $(ntables $db)"
  if [ $db = mysql ]; then q mysql "DROP DATABASE IF EXISTS chbench" >/dev/null
  else q pgsql "DROP SCHEMA IF EXISTS chbench CASCADE" >/dev/null; fi
done

finish
