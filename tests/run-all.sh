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
# The three integration passes run side by side, in five lanes, each lane
# against its own servers (started in the background beside the builds)
# and taking the next file of any pass from one queue, longest first: no
# check depends on the machine's speed or CPU share (checks
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
# unix sockets only), side by side (most of a file's time is waiting for
# a server, a timeout or --time, not CPU); the names say whose servers
# they were before the queue, not what runs on them. A lane's ports
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
  for lane in $LANES; do
    for db in mysql pgsql pgbouncer; do sandbox $lane start $db; done
  done ) > "$LOGS/servers.log" 2>&1 &
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

# The TSan pass: many threads and workers, reconnect storms, Ctrl-C, runs
# that end while VUs are stuck, the metrics server's thread
# (ThreadSanitizer slows a run 5-15 times, so it runs these only; every
# file runs in the normal pass, and all but the ASan exclusions below in
# the ASan pass). test_capacity.sh (a minute of searching) runs here
# instead of in the ASan pass.
# test_endpoints.sh: the replica lag sampler's thread beside the workers
# and the probes (about 20 s, its own servers).
# test_pgbench_bmk.sh, test_pgbench_evloop.sh: pgbench scripts' clients
# connect and run side by side, in VU threads and on workers' loops (they
# once raced on a lazily created driver).
TSAN_FILES="test_threads.sh test_faults.sh test_metrics.sh test_capacity.sh test_endpoints.sh
  test_pgbench_bmk.sh test_pgbench_evloop.sh"
# test_metrics.sh's event-mode case runs 2,000 VUs in the normal pass and
# 300 under the sanitizers, test_evloop.sh's think-time runs 1,000 and 400
# under ASan (each VU's work costs them 2-15 times as much).
# The ASan pass leaves to the normal pass what does not run its binary,
# and what runs bmk only to drive C paths other files check under ASan.
# The Debian package (test_package.sh) is built from a fresh clone and
# installed: it runs the installed bmk, not a build of this tree, so it
# is in the normal pass only (no skip line).
ASAN_EXCLUDE="test_static.sh: bmk-x64 is built once, with normal flags, and checked in the normal pass
test_layers.sh: reads the source tree only (no binary), done in the normal pass
test_k8s.sh: reads the docs only (no binary), done in the normal pass
test_capacity.sh: runs in the ThreadSanitizer pass instead
test_kit_e2e.sh: the kit's generated scripts drive bmk runs whose C paths the other files check under ASan; done in the normal pass
test_kit_cli.sh: the kit's Lua catalogue and shell launcher around runs of a probe script, C paths the other files check under ASan; done in the normal pass
test_kit_oltp.sh: the kit's OLTP scripts run the OLTP workloads, whose C paths test_oltp.sh and test_threads.sh check under ASan; done in the normal pass
test_kit_dbstress.sh: the kit's dbstress scripts run Lua workloads whose C paths the other files check under ASan; done in the normal pass
test_tpcc_run.sh: TPC-C's transactions are Lua; the C of each mode (statements, procedures' results, the pipeline) runs under ASan in test_tpcc.sh, retries in test_retries.sh; its figures are checked in the normal pass
test_docs.sh: the docs' examples and lists against the tree; their runs' C paths are the other files' under ASan; done in the normal pass"
# A file's time in seconds in its pass on this machine, with the five
# lanes busy side by side (a fresh-clone run of the whole command): the
# order in which the lanes take the files, longest first. An unlisted
# file counts 20; an ASan or TSan time not listed counts its WEIGHT.
declare -A WEIGHT=([test_faults.sh]=130 [test_tpcc_run.sh]=121
  [test_evloop.sh]=114 [test_cluster.sh]=89 [test_kit_e2e.sh]=78
  [test_capacity.sh]=72 [test_pgbench.sh]=83 [test_tpcc.sh]=59
  [test_chbench.sh]=108 [test_cost.sh]=44 [test_endpoints.sh]=48
  [test_endpoints_routes.sh]=47 [test_kit_oltp.sh]=46 [test_metrics.sh]=46
  [test_results.sh]=43 [test_resultsdb.sh]=36 [test_cli.sh]=38
  [test_tpch_endpoints.sh]=47 [test_report.sh]=35 [test_dbl.sh]=33
  [test_kit_cli.sh]=28 [test_errors.sh]=24 [test_oltp.sh]=23
  [test_docs.sh]=22 [test_gates.sh]=22 [test_kit_dbstress.sh]=20
  [test_threshold.sh]=18 [test_client.sh]=17 [test_dropin.sh]=16
  [test_threads.sh]=15 [test_builtin.sh]=8 [test_tls.sh]=7
  [test_static.sh]=4 [test_layers.sh]=4 [test_compat.sh]=2 [test_k8s.sh]=2
  [test_sql_api.sh]=1 [test_async.sh]=1 [test_retries.sh]=10
  [test_pgbench_bmk.sh]=34 [test_pipeline.sh]=12 [test_pgbench_additions.sh]=8
  [test_tpch.sh]=124 [test_package.sh]=107 [test_latency.sh]=21
  [test_pgbench_evloop.sh]=10)
declare -A ASAN_WEIGHT=([test_evloop.sh]=121 [test_faults.sh]=145
  [test_tpcc_run.sh]=164 [test_cluster.sh]=94 [test_pgbench.sh]=107
  [test_tpcc.sh]=50 [test_cost.sh]=57 [test_endpoints_routes.sh]=41
  [test_endpoints.sh]=62 [test_results.sh]=42
  [test_resultsdb.sh]=43 [test_metrics.sh]=45 [test_cli.sh]=40
  [test_report.sh]=48 [test_tpch_endpoints.sh]=62 [test_dbl.sh]=27
  [test_chbench.sh]=54 [test_errors.sh]=26
  [test_gates.sh]=16 [test_threads.sh]=22 [test_threshold.sh]=21
  [test_client.sh]=16 [test_dropin.sh]=19 [test_oltp.sh]=24 [test_tls.sh]=13
  [test_builtin.sh]=12 [test_compat.sh]=3 [test_sql_api.sh]=2
  [test_async.sh]=1 [test_latency.sh]=23 [test_retries.sh]=5
  [test_pgbench_bmk.sh]=44 [test_pipeline.sh]=20 [test_pgbench_additions.sh]=15
  [test_tpch.sh]=75 [test_pgbench_evloop.sh]=23)
declare -A TSAN_WEIGHT=([test_faults.sh]=168 [test_capacity.sh]=83
  [test_endpoints.sh]=53 [test_metrics.sh]=49 [test_threads.sh]=33
  [test_pgbench_bmk.sh]=56 [test_pgbench_evloop.sh]=33)

# The queue: one line "SECONDS PASS FILE" per file of each pass, longest
# first. Five lanes (one per set of servers) take the next line as they
# become free, so the passes' files fill whichever lane has room: a
# lane's time no longer depends on guessing each file's time right. A
# file's servers are its lane's; a file does not depend on which files
# ran before it on them (each prepares what it needs).
QUEUE=$LOGS/queue
for t in tests/integration/test_*.sh; do
  t=$(basename "$t")
  echo "${WEIGHT[$t]:-20} normal $t"
  # an excluded file costs nothing: run.sh prints its skip line
  if grep -q "^$t:" <<< "$ASAN_EXCLUDE"; then echo "0 asan $t"
  elif [ "$t" != test_package.sh ]; then echo "${ASAN_WEIGHT[$t]:-${WEIGHT[$t]:-20}} asan $t"
  fi
done > "$QUEUE.all"
for t in $TSAN_FILES; do echo "${TSAN_WEIGHT[$t]:-${WEIGHT[$t]:-20}} tsan $t"; done >> "$QUEUE.all"
sort -k1,1nr -k2,2 -k3,3 "$QUEUE.all" > "$QUEUE"
echo 0 > "$QUEUE.next"
mkdir -p "$LOGS/items"

# run_item PASS LANE FILE LOG: one integration file of PASS (main, asan,
# tsan: the binary and its environment) on LANE's servers, output to LOG
run_item() {
  local pass=$1 lane=$2 file=$3 log=$4
  # every sanitizer report goes to a file of its own, in a directory of
  # this file's run: each is a failure of this file (run.sh), even where
  # no check looked at that bmk's exit code
  local d="$SANLOG/$pass-$file.d"
  echo "--- $file ($pass pass, on the $lane lane's servers)" > "$log"
  case $pass in
    normal)
      ( export BMK_SANDBOX_DIR=${SBDIR[$lane]} $(ports $lane)
        bash tests/integration/run.sh "$TOP/bmk" "$file" >> "$log" 2>&1 ) ;;
    tsan)
      # halt_on_error=0: the run goes on and every report is found
      mkdir -p "$d"
      ( export BMK_SANDBOX_DIR=${SBDIR[$lane]} $(ports $lane) BMK_METRICS_VUS=300 \
          BMK_SANITIZER_LOGS="$d" \
          TSAN_OPTIONS="halt_on_error=0:suppressions=$TOP/tests/tsan.supp:log_path=$d/tsan"
        bash tests/integration/run.sh "$TOP/build-tsan/bmk" "$file" >> "$log" 2>&1 ) ;;
    asan)
      mkdir -p "$d"
      ( export BMK_SANDBOX_DIR=${SBDIR[$lane]} $(ports $lane) BMK_TEST_EXCLUDE="$ASAN_EXCLUDE" \
          BMK_METRICS_VUS=300 BMK_EVLOOP_MANY=400 BMK_SANITIZER_LOGS="$d" \
          ASAN_OPTIONS="$ASAN_ENV:log_path=$d/asan" \
          UBSAN_OPTIONS="print_stacktrace=1:log_path=$d/ubsan"
        bash tests/integration/run.sh "$TOP/build-asan/bmk" "$file" >> "$log" 2>&1 ) ;;
  esac
}
# lane LANE: takes the queue's next line until none is left (the counter
# in $QUEUE.next is read and advanced under a lock); line N's output goes
# to items/N-PASS-FILE.log
item_log() { echo "$LOGS/items/$(printf %03d "$1")-$2-$3.log"; }
lane() {
  local name=$1 n line
  while :; do
    { flock 9; n=$(cat "$QUEUE.next"); echo $((n + 1)) > "$QUEUE.next"; } 9> "$QUEUE.lock"
    line=$(sed -n "$((n + 1))p" "$QUEUE")
    [ -n "$line" ] || return 0
    set -- $line
    run_item "$2" "$name" "$3" "$(item_log "$n" "$2" "$3")"
  done
}

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
# files of its pass would wait for it.
log "integration tests: the normal, ASan+UBSan and ThreadSanitizer passes, five lanes taking their files from one queue"
# (errexit off first: a lane goes on after a failed file)
set +e
for l in $LANES; do lane "$l" & pids+=($!); done
for pid in "${pids[@]}"; do wait "$pid"; done
set -e
# every line of the queue has its log; one without (a lane died) is a
# failure of that file
n=0
while read -r _ pass file; do
  f=$(item_log "$n" "$pass" "$file")
  [ -s "$f" ] || { echo "--- $file ($pass pass)"; echo "not ok - $file did not run in the $pass pass (no log)"; echo "0 passed, 1 failed, 0 skipped"; } > "$f"
  n=$((n + 1))
done < "$QUEUE"
for pass in normal asan tsan; do
  log "integration tests: $pass pass"
  cat "$LOGS"/items/*-"$pass"-*.log
done

# passed/failed/skipped of a file's last line; a file whose run died
# without its summary counts as one failure
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
for l in "$LOGS"/items/*.log; do
  read -r p f s < <(counts "$l")
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
log "done: unit tests $up1 + $up2 (ASan) cases passed"
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
