#!/usr/bin/env bash
# The test command (README "Tests"; .ci/run calls exactly this).
#
# On a fresh Debian 12 machine, as root: installs the build and server
# packages, builds bmk once (also the static bmk-x64), an ASan+UBSan build
# and a ThreadSanitizer build, runs the cmocka unit tests in the first two,
# starts throwaway MariaDB and PostgreSQL servers (tools/sandbox.sh:
# temporary data dirs, loopback and unix sockets only), runs the
# integration tests of the first two builds against them and the files
# that exercise threads (TSAN_FILES) with the third, and stops the
# servers. tests/README.md says how to run a part of it.
#
# The three integration passes run side by side, in five lanes (the
# normal and the ASan pass each on two), each lane against its own
# servers (started in the background beside the builds): no check depends on the machine's speed or CPU share (checks
# wait for conditions and assert counts, order and exact relations;
# figures against the wall clock are bench/ scripts' work).
# LeakSanitizer is on in the ASan pass (suppressions: tests/lsan.supp);
# every sanitizer report of the ASan and TSan passes is a failure
# (suppressions: tests/tsan.supp).
#
# The last line is "N passed, M failed, K skipped" (unit test cases and
# integration checks of both builds); the exit code is non-zero on any
# failure. As root (CI) a core check that cannot run is a failure, not a
# skip (tests/integration/lib/lib.sh, skip_core).
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$(pwd)
T0=$(date +%s)

log() { printf '\n==> %s (%ds)\n' "$*" "$(( $(date +%s) - T0 ))"; }

BMK_NO_BUILD=1 bash BMK/setup.sh
if [ "${BMK_SKIP_APT:-0}" != 1 ]; then
  # Debian's sysbench 1.0.20: its scripts are run by bmk in test_compat.sh;
  # reference checkers for the result files (test_results.sh): a JSON
  # Schema validator and the Java HdrHistogram library with a JDK;
  # test_metrics.sh: a real Prometheus scrapes --metrics-listen;
  # test_report.sh: gnuplot draws `bmk report --html` charts, headless
  # Chromium opens the page; test_cluster.sh: an sshd in each network
  # namespace host, reached with the ssh client; test_k8s.sh: the
  # Kubernetes client's API object schema for the docs' manifest;
  # test_package.sh: the Debian package is built (debhelper), checked
  # (lintian), its man pages read (man-db) and its completion loaded
  # (bash-completion).
  apt-get install -y -qq --no-install-recommends sysbench python3-jsonschema prometheus \
    libhdrhistogram-java default-jdk-headless gnuplot-nox chromium \
    openssh-server openssh-client python3-kubernetes python3-yaml \
    debhelper lintian man-db bash-completion >/dev/null
fi

# Five lanes, each with its own servers (temporary data dirs, loopback and
# unix sockets only): the normal and the ASan pass each on two lanes that
# run side by side (most of a file's time is waiting for a server, a
# timeout or --time, not CPU), and the TSan pass on one. A lane's ports
# are BMK_MYSQL_PORT / BMK_PGSQL_PORT / BMK_PGBOUNCER_PORT (defaults 3306,
# 5432, 6432) plus its offset; the files' own servers (endpoints' replicas,
# the TLS pair) start above them.
MY_PORT=${BMK_MYSQL_PORT:-3306} PG_PORT=${BMK_PGSQL_PORT:-5432} PGB_PORT=${BMK_PGBOUNCER_PORT:-6432}
LANES="main main2 asan asan2 tsan"
declare -A OFFSET=([main]=0 [asan]=10 [tsan]=20 [main2]=30 [asan2]=40)
declare -A SBDIR=()
for lane in $LANES; do SBDIR[$lane]=$(mktemp -d "/tmp/bmk-test-$lane-XXXXXX"); done
ports() {  # ports LANE: the environment assignments of that lane's servers
  local d=${OFFSET[$1]}
  echo "BMK_MYSQL_PORT=$((MY_PORT + d)) BMK_PGSQL_PORT=$((PG_PORT + d)) BMK_PGBOUNCER_PORT=$((PGB_PORT + d))"
}
sandbox() {  # sandbox LANE ACTION DB
  env BMK_SANDBOX_DIR="${SBDIR[$1]}" $(ports "$1") bash "$TOP/tools/sandbox.sh" "$2" "$3"
}
LOGS=$(mktemp -d /tmp/bmk-test-logs-XXXXXX)
SANLOG=$(mktemp -d /tmp/bmk-test-sanitizers-XXXXXX)
pids=() servers_pid=
cleanup() {
  # a build failed while the servers were starting: that start ends first
  if [ -n "$servers_pid" ]; then
    pkill -P "$servers_pid" 2>/dev/null || true
    kill "$servers_pid" 2>/dev/null || true
    wait "$servers_pid" 2>/dev/null || true
  fi
  for lane in $LANES; do
    for db in pgbouncer mysql pgsql; do sandbox $lane stop $db >/dev/null 2>&1 || true; done
    rm -rf "${SBDIR[$lane]}"
  done
  rm -rf "$LOGS" "$SANLOG" ${PGDEV:+"$PGDEV"}
}
trap cleanup EXIT
log "starting throwaway database servers, in the background beside the builds"
# (their start is mostly waiting for initdb and the data files, which the
# compiler does not)
( set -e
  for lane in main main2 asan asan2; do
    for db in mysql pgsql pgbouncer; do sandbox $lane start $db; done
  done
  for db in mysql pgsql; do sandbox tsan start $db; done ) > "$LOGS/servers.log" 2>&1 &
servers_pid=$!

log "build (one configure for ./bmk and make static)"
# libpq.a needs libpgcommon_shlib.a and libpgport_shlib.a, which Debian
# ships in postgresql-server-dev-15; installing that package would pull in
# clang and LLVM, so its files are unpacked aside instead (dpkg-deb -x).
PGSTATIC=/usr/lib/postgresql/15/lib
PGDEV=
if [ ! -f "$PGSTATIC/libpgcommon_shlib.a" ]; then
  PGDEV=$(mktemp -d /tmp/bmk-pgdev-XXXXXX)
  ( cd "$PGDEV" && apt-get download -qq postgresql-server-dev-15 >/dev/null &&
    dpkg-deb -x postgresql-server-dev-15_*.deb root )
  PGSTATIC=$PGDEV/root/usr/lib/postgresql/15/lib
fi
rm -f bmk-x64      # a stale one must not pass the check below
./autogen.sh >/dev/null 2>&1
./configure -q --with-pg-static-libdir="$PGSTATIC" && make -s -j"$(nproc)" ||
  { echo "configure/make failed"; exit 1; }
# (glibc's warnings about static getaddrinfo etc. are expected: README)
make -s static 2>&1 | grep -vE 'statically linked applications|: in function' || true
test -x bmk-x64 || { echo "make static failed"; exit 1; }

# unit_counts DIR: "passed failed" of the cmocka cases in DIR's logs
unit_counts() {
  cat "$1"/tests/unit/test_*.log 2>/dev/null | awk '
    /^\[  PASSED  \] [0-9]+ test/ { p += $4 }
    /^\[  FAILED  \] [0-9]+ test/ { f += $4 }
    END { print p + 0, f + 0 }'
}

log "unit tests"
make -s check || { cat test-suite.log tests/unit/*.log 2>/dev/null | tail -50; exit 1; }
read -r up1 uf1 < <(unit_counts .)

# Files that run after the TSan files on the TSan lane's servers, the
# lane with room (the TSan pass runs five files): of the normal pass
# test_tpch.sh (about two minutes), the Debian package (built from a
# fresh clone, installed, purged: it runs the installed bmk, not a build
# of this tree, so it runs once) and test_latency.sh; of the ASan pass
# test_tpch.sh (its PostgreSQL half).
TSAN_LANE_NORMAL="test_tpch.sh test_package.sh test_latency.sh"
TSAN_LANE_ASAN="test_tpch.sh"
# The TSan pass: many threads and workers, reconnect storms, Ctrl-C, runs
# that end while VUs are stuck, the metrics server's thread
# (ThreadSanitizer slows a run 5-15 times, so it runs these only; every
# file runs in the normal pass, and all but the ASan exclusions below in
# the ASan pass). test_capacity.sh (a minute of searching) runs here
# instead of in the ASan pass.
# test_endpoints.sh: the replica lag sampler's thread beside the workers
# and the probes (about 20 s, its own servers).
TSAN_FILES="test_threads.sh test_faults.sh test_metrics.sh test_capacity.sh test_endpoints.sh"
# test_metrics.sh's event-mode case runs 2,000 VUs in the normal pass and
# 300 under the sanitizers, test_evloop.sh's think-time runs 1,000 and 400
# under ASan (each VU's work costs them 2-15 times as much).
# The ASan pass leaves to the normal pass what does not run its binary.
ASAN_EXCLUDE="test_static.sh: bmk-x64 is built once, with normal flags, and checked in the normal pass
test_layers.sh: reads the source tree only (no binary), done in the normal pass
test_k8s.sh: reads the docs only (no binary), done in the normal pass
test_capacity.sh: runs in the ThreadSanitizer pass instead
test_kit_e2e.sh: the kit's generated scripts drive bmk runs whose C paths the other files check under ASan; done in the normal pass
test_kit_cli.sh: the kit's Lua catalogue and shell launcher around runs of a probe script, C paths the other files check under ASan; done in the normal pass
test_docs.sh: the docs' examples and lists against the tree; their runs' C paths are the other files' under ASan; done in the normal pass"
# A file's time in seconds in its lane on this machine, the five lanes
# side by side (a fresh-clone run of the whole command; WEIGHT for the
# normal pass, ASAN_WEIGHT for the ASan pass, which slows some files far
# more than others): the two lanes of a pass get the files longest first,
# each to the lane with less so far. An unlisted file counts 20.
declare -A WEIGHT=([test_faults.sh]=136 [test_tpcc_run.sh]=131
  [test_evloop.sh]=116 [test_cluster.sh]=90 [test_kit_e2e.sh]=72
  [test_capacity.sh]=72 [test_pgbench.sh]=74 [test_tpcc.sh]=59
  [test_chbench.sh]=78 [test_cost.sh]=56 [test_endpoints.sh]=48
  [test_endpoints_routes.sh]=47 [test_kit_oltp.sh]=46 [test_metrics.sh]=45
  [test_results.sh]=43 [test_resultsdb.sh]=39 [test_cli.sh]=38
  [test_tpch_endpoints.sh]=47 [test_report.sh]=35 [test_dbl.sh]=33
  [test_kit_cli.sh]=28 [test_errors.sh]=24 [test_oltp.sh]=23
  [test_docs.sh]=22 [test_gates.sh]=22 [test_kit_dbstress.sh]=20
  [test_threshold.sh]=18 [test_client.sh]=17 [test_dropin.sh]=16
  [test_threads.sh]=15 [test_builtin.sh]=8 [test_tls.sh]=7
  [test_static.sh]=4 [test_layers.sh]=4 [test_compat.sh]=2 [test_k8s.sh]=2
  [test_sql_api.sh]=1 [test_async.sh]=1 [test_retries.sh]=10
  [test_pgbench_bmk.sh]=8 [test_pipeline.sh]=12 [test_pgbench_additions.sh]=6)
declare -A ASAN_WEIGHT=([test_evloop.sh]=157 [test_faults.sh]=146
  [test_tpcc_run.sh]=137 [test_cluster.sh]=97 [test_pgbench.sh]=113
  [test_tpcc.sh]=64 [test_cost.sh]=61 [test_endpoints_routes.sh]=56
  [test_endpoints.sh]=53 [test_kit_oltp.sh]=53 [test_results.sh]=49
  [test_resultsdb.sh]=46 [test_metrics.sh]=46 [test_cli.sh]=47
  [test_report.sh]=45 [test_tpch_endpoints.sh]=43 [test_dbl.sh]=38
  [test_chbench.sh]=46 [test_kit_dbstress.sh]=30 [test_errors.sh]=26
  [test_gates.sh]=24 [test_threads.sh]=22 [test_threshold.sh]=18
  [test_client.sh]=18 [test_dropin.sh]=16 [test_oltp.sh]=13 [test_tls.sh]=12
  [test_builtin.sh]=8 [test_compat.sh]=3 [test_sql_api.sh]=2
  [test_async.sh]=1 [test_latency.sh]=21 [test_retries.sh]=12
  [test_pgbench_bmk.sh]=20 [test_pipeline.sh]=20 [test_pgbench_additions.sh]=15)
# the files the two lanes of a pass share: the normal pass's all but
# TSAN_LANE_NORMAL, the ASan pass's all but TSAN_LANE_ASAN and the package
files=() asan_files=()
for t in tests/integration/test_*.sh; do
  t=$(basename "$t")
  [[ " $TSAN_LANE_NORMAL " == *" $t "* ]] || files+=("$t")
  [[ " $TSAN_LANE_ASAN test_package.sh " == *" $t "* ]] || asan_files+=("$t")
done
# split_lanes PASS: prints the files of PASS's first lane on line 1, the
# second's on line 2 (ASan: excluded files cost nothing; a file without an
# ASAN_WEIGHT counts its WEIGHT)
split_lanes() {
  local a=0 b=0 la="" lb="" f w
  local fs=("${files[@]}")
  [ "$1" = asan ] && fs=("${asan_files[@]}")
  local tab=WEIGHT
  [ "$1" = asan ] && tab=ASAN_WEIGHT
  local -n wt=$tab
  for f in $(for f in "${fs[@]}"; do echo "${wt[$f]:-${WEIGHT[$f]:-20}} $f"; done | sort -rn | awk '{print $2}'); do
    w=${wt[$f]:-${WEIGHT[$f]:-20}}
    [ "$1" = asan ] && grep -q "^$f:" <<< "$ASAN_EXCLUDE" && w=0
    if [ $a -le $b ]; then la="$la $f"; a=$((a + w)); else lb="$lb $f"; b=$((b + w)); fi
  done
  printf '%s\n%s\n' "$la" "$lb"
}
run_lane() {  # run_lane LANE LOG FILES...: one lane of integration files, output to LOG
  local lane=$1 log=$2 d srv=$1
  shift 2
  # main3 and asan3: a pass's files on the TSan lane's servers
  case $lane in main3|asan3) srv=tsan ;; esac
  d="$SANLOG/$(basename "$log").d"
  case $lane in
    main*)
      ( export BMK_SANDBOX_DIR=${SBDIR[$srv]} $(ports $srv)
        bash tests/integration/run.sh "$TOP/bmk" "$@" > "$log" 2>&1 ) ;;
    tsan)
      # report files as in the ASan pass; halt_on_error=0: the run goes on
      # and every report is found
      mkdir -p "$d"
      ( export BMK_SANDBOX_DIR=${SBDIR[$lane]} $(ports $lane) BMK_METRICS_VUS=300 \
          BMK_SANITIZER_LOGS="$d" \
          TSAN_OPTIONS="halt_on_error=0:suppressions=$TOP/tests/tsan.supp:log_path=$d/tsan"
        bash tests/integration/run.sh "$TOP/build-tsan/bmk" "$@" > "$log" 2>&1 ) ;;
    asan*)
      # every ASan/LSan/UBSan report goes to a file of its own: each is a
      # failure of the test file that was running (run.sh), even where no
      # check looked at that bmk's exit code
      mkdir -p "$d"
      ( export BMK_SANDBOX_DIR=${SBDIR[$srv]} $(ports $srv) BMK_TEST_EXCLUDE="$ASAN_EXCLUDE" \
          BMK_METRICS_VUS=300 BMK_EVLOOP_MANY=400 BMK_SANITIZER_LOGS="$d" \
          ASAN_OPTIONS="$ASAN_ENV:log_path=$d/asan" \
          UBSAN_OPTIONS="print_stacktrace=1:log_path=$d/ubsan"
        bash tests/integration/run.sh "$TOP/build-asan/bmk" "$@" > "$log" 2>&1 ) ;;
  esac
}

{ read -r MAIN_A; read -r MAIN_B; } < <(split_lanes main)
{ read -r ASAN_A; read -r ASAN_B; } < <(split_lanes asan)
log "ASan+UBSan build and its unit tests (LeakSanitizer on)"
# A separate copy of the sources: automake does not allow a second build
# directory beside an in-tree build.
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0"
ASAN_ENV="detect_leaks=1:abort_on_error=0"
rm -rf build-asan && mkdir build-asan
git ls-files -z | xargs -0 tar cf - | tar xf - -C build-asan
( cd build-asan && ./autogen.sh >/dev/null 2>&1 && ./configure -q --enable-sanitizers &&
  make -s -j"$(nproc)" && ASAN_OPTIONS=$ASAN_ENV make -s check ) ||
  { cat build-asan/tests/unit/*.log 2>/dev/null | tail -50; exit 1; }
read -r up2 uf2 < <(unit_counts build-asan)

log "ThreadSanitizer build"
rm -rf build-tsan && mkdir build-tsan
git ls-files -z | xargs -0 tar cf - | tar xf - -C build-tsan
( cd build-tsan && ./autogen.sh >/dev/null 2>&1 && ./configure -q --enable-sanitizers=thread &&
  make -s -j"$(nproc)" ) || { echo "ThreadSanitizer build failed"; exit 1; }

rc=0; wait "$servers_pid" || rc=$?
servers_pid=
cat "$LOGS/servers.log"
[ "$rc" = 0 ] || { echo "starting the servers failed"; exit 1; }
# The lanes start when the three builds are done: beside the lanes, which
# keep both cores busy, a build takes two to three times as long, and the
# TSan lane, the longest chain, would start minutes late.
log "integration tests: normal, ASan+UBSan (two lanes each) and ThreadSanitizer builds side by side"
# (errexit off first: the TSan lane's chain goes on after a failed file)
set +e
# shellcheck disable=SC2086
run_lane main "$LOGS/main.log" $MAIN_A & pids+=($!)
# shellcheck disable=SC2086
run_lane main2 "$LOGS/main2.log" $MAIN_B & pids+=($!)
# shellcheck disable=SC2086
run_lane asan "$LOGS/asan.log" $ASAN_A & pids+=($!)
# shellcheck disable=SC2086
run_lane asan2 "$LOGS/asan2.log" $ASAN_B & pids+=($!)
# shellcheck disable=SC2086
{ run_lane tsan "$LOGS/tsan.log" $TSAN_FILES; run_lane main3 "$LOGS/main3.log" $TSAN_LANE_NORMAL
  run_lane asan3 "$LOGS/asan3.log" $TSAN_LANE_ASAN; } & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid"; done
set -e
ALL_LOGS="main main2 main3 asan asan2 asan3 tsan"
for l in $ALL_LOGS; do
  log "integration tests: $l"
  cat "$LOGS/$l.log" 2>/dev/null || echo "not ok - lane $l did not run (no log)"
done

# passed/failed/skipped of a pass's last line; a pass that died without
# its summary counts as one failure
counts() {
  local last
  last=$(tail -1 "$1" 2>/dev/null) || true
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
  else
    echo "0 1 0"
  fi
}
pass=$((up1 + up2)) fail=$((uf1 + uf2)) skip=0
for l in $ALL_LOGS; do
  read -r p f s < <(counts "$LOGS/$l.log")
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
log "done: unit tests $up1 + $up2 (ASan) cases passed"
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
