#!/usr/bin/env bash
# Built-in tests cpu, memory, threads, mutex, fileio (sysbench's src/tests/):
# help texts, whole outputs compared with sysbench 1.1's
# layout apart from numbers (norm), exact counts from --results, fileio
# prepare/run/cleanup effects, errors, async I/O through Linux AIO.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK"

# Output without the version line, every decimal number (and the padding
# before it) replaced by '#'; column widths are checked separately.
norm() { printf '%s\n' "$1" | tail -n +2 | sed -E 's/ *[0-9]+\.[0-9]+/#/g'; }
# True when the file ends with a blank line (command substitution drops it).
ends_blank() { [ "$(tail -c 2 "$1" | od -An -c | tr -d ' ')" = '\n\n' ]; }
# A number from the --results JSON file: json_value r.json summary.queries.other
json_value() {
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(d)' "$1" "$2"
}
RUN_HEAD="
Running the test with following options:
Number of threads: 1
Initializing random number generator from current time

"
GENERIC_TAIL="
Throughput:
    events/s (eps):#
    time elapsed:#s
    total number of events:              100

Latency (ms):
         min:#
         avg:#
         max:#
         95th percentile:#
         sum:#

Threads fairness:
    events (avg/stddev):#/#
    execution time (avg/stddev):#/#"

# ---- cpu
run_bmk cpu help
assert_contains "cpu help" "$OUT" "cpu options:
  --cpu-max-prime=N upper limit for primes generator [10000]"
run_bmk cpu --events=100 --cpu-max-prime=2000 run
assert_eq "cpu run exit 0" 0 "$RC"
assert_eq "cpu run output: one blank line before Throughput" "$RUN_HEAD
Prime numbers limit: 2000

Initializing worker threads...

Threads started!

CPU speed:
    events per second:#
$GENERIC_TAIL" "$(norm "$OUT")"
run_bmk cpu --events=10 --verbosity=2 run
assert_not_contains "cpu block follows --verbosity" "$OUT" "CPU speed"
run_bmk cpu --time=2 --report-interval=1 run
assert_match "cpu interval line" "$OUT" '^\[ 1s \] thds: 1 eps: [0-9]+\.[0-9]{2} lat \(ms,95%\): [0-9]+\.[0-9]{2}$'

# ---- memory
run_bmk memory help
assert_contains "memory help" "$OUT" "  --memory-block-size=SIZE    size of memory block for test [1K]"
run_bmk memory --memory-total-size=100M --memory-block-size=1M --events=3 run
assert_eq "memory run exit 0" 0 "$RC"
assert_eq "memory run output; --events ignored (runs to the total size)" "$RUN_HEAD
Running memory speed test with the following options:
  block size: 1024KiB
  total size: 100MiB
  operation: write
  scope: global

Initializing worker threads...

Threads started!

Total operations: 100 (# per second)

# MiB transferred (# MiB/sec)

$GENERIC_TAIL" "$(norm "$OUT")"
run_bmk memory --memory-total-size=10M --memory-block-size=1M --threads=3 run
assert_contains "memory shares round up (3 x 4 blocks)" "$OUT" "total number of events:              12"
for bad in -1 3K 4 abc; do
  run_bmk memory --memory-block-size=$bad run
  assert_eq "memory block size $bad: exit 1" 1 "$RC"
  assert_eq "memory block size $bad: message" "
FATAL: Invalid value for memory-block-size: $bad" "$(printf '%s\n' "$OUT" | tail -n +2)"
done
run_bmk memory --memory-scope=Global run
assert_contains "memory scope is case-sensitive as sysbench" "$OUT" "FATAL: Invalid value for memory-scope: Global"
run_bmk memory --memory-total-size=10M --memory-oper=none run
assert_not_contains "memory none prints no transfer line" "$OUT" "MiB transferred"
run_bmk memory --memory-total-size=0 --time=1 run
assert_eq "memory --memory-total-size=0 runs to --time" 0 "$RC"
assert_not_contains "memory unlimited size ran events" "$OUT" "total number of events:              0"

run_bmk threads --events=20 --threads=2 run
assert_contains "threads exact events" "$OUT" "total number of events:              20"
run_bmk mutex --threads=2 --mutex-locks=1000 run
assert_contains "mutex: one event per thread" "$OUT" "total number of events:              2"

# ---- fileio prepare / reuse / cleanup
F="fileio --file-num=4 --file-total-size=8M"
run_bmk $F prepare
assert_eq "fileio prepare exit 0" 0 "$RC"
assert_eq "fileio prepare output" "
4 files, 2048Kb each, 8Mb total
Creating files for the test...
Extra file open flags: (none)
Creating file test_file.0
Creating file test_file.1
Creating file test_file.2
Creating file test_file.3
8388608 bytes written in# seconds (# MiB/sec)." "$(norm "$OUT")"
assert_eq "fileio files created" 4 "$(ls test_file.* | wc -l)"
assert_eq "fileio total size" 8388608 "$(cat test_file.* | wc -c)"
run_bmk $F --file-extra-flags=dsync,sync prepare
assert_eq "fileio prepare reuses files; extra flags as sysbench" "
4 files, 2048Kb each, 8Mb total
Creating files for the test...
Extra file open flags: sync dsync 
Reusing existing file test_file.0
Reusing existing file test_file.1
Reusing existing file test_file.2
Reusing existing file test_file.3
No bytes written." "$(norm "$OUT")"
truncate -s 1M test_file.2
run_bmk $F prepare
assert_contains "fileio prepare extends a short file" "$OUT" "Reusing existing file test_file.1
Extending existing file test_file.2
Reusing existing file test_file.3
1048576 bytes written in"

# ---- fileio run
MODE_HEAD="$RUN_HEAD
Extra file open flags: (none)
4 files, 2MiB each
8MiB total file size
Block size 16KiB"
FILEIO_TAIL="Initializing worker threads...

Threads started!


Throughput:
         read:  IOPS=## MiB/s (# MB/s)
         write: IOPS=## MiB/s (# MB/s)
         fsync: IOPS=#

Latency (ms):
         min:#
         avg:#
         max:#
         95th percentile:#
         sum:#"
run_bmk $F --file-test-mode=rndwr --events=150 --results=r.json run
assert_eq "fileio rndwr exit 0" 0 "$RC"
assert_eq "fileio rndwr output" "$MODE_HEAD
Number of IO requests: 150
Read/Write ratio for combined random IO test:#
Periodic FSYNC enabled, calling fsync() each 100 requests.
Calling fsync() at the end of test, Enabled.
Using synchronous I/O mode
Doing random write test
$FILEIO_TAIL" "$(norm "$OUT")"
# 100 writes, one fsync event per file, 46 writes; then 4 end-of-test fsyncs.
assert_match "fileio latency lines: 41-character label, %10.2f" "$OUT" '^         max: {28}[ 0-9]{6}[0-9]\.[0-9]{2}$'
timeout 60 "$BMK" $F --file-test-mode=rndwr --events=10 run >out.txt 2>&1
check "fileio report ends with a blank line" ends_blank out.txt
assert_eq "fileio rndwr: writes" 146 "$(json_value r.json summary.queries.write)"
assert_eq "fileio rndwr: fsyncs include the end-of-test ones" 8 "$(json_value r.json summary.queries.other)"
run_bmk $F --file-test-mode=seqrd --events=150 --results=r.json run
assert_eq "fileio seqrd output (no IO-requests lines)" "$MODE_HEAD
Periodic FSYNC enabled, calling fsync() each 100 requests.
Calling fsync() at the end of test, Enabled.
Using synchronous I/O mode
Doing sequential read test
$FILEIO_TAIL" "$(norm "$OUT")"
assert_eq "fileio seqrd: 150 reads" 150 "$(json_value r.json summary.queries.read)"
assert_eq "fileio seqrd: no fsync" 0 "$(json_value r.json summary.queries.other)"
# 8 MiB = 512 blocks: sequential modes start over after the last file.
run_bmk $F --file-test-mode=seqrd --events=1000 --results=r.json run
assert_eq "fileio seqrd cycles over the files" 1000 "$(json_value r.json summary.queries.read)"
run_bmk $F --file-test-mode=seqrewr --events=10 --threads=2 --file-fsync-freq=0 --results=r.json run
assert_eq "fileio end-of-test fsync: every thread, every file" 8 "$(json_value r.json summary.queries.other)"
run_bmk $F --file-test-mode=seqrewr --events=10 --file-fsync-end=off --file-fsync-freq=0 --results=r.json run
assert_eq "fileio --file-fsync-end=off: no fsync" 0 "$(json_value r.json summary.queries.other)"
assert_not_contains "fileio --file-fsync-end=off: no mode line" "$OUT" "Calling fsync() at the end"
run_bmk $F --file-test-mode=rndrw --time=1 --report-interval=1 run
assert_match "fileio interval line" "$OUT" '^\[ 1s \] reads: [0-9.]+ MiB/s writes: [0-9.]+ MiB/s fsyncs: [0-9.]+/s latency \(ms,95%\): [0-9]+\.[0-9]{3}$'
run_bmk $F --file-test-mode=rndrd --events=10 --file-io-mode=mmap --file-block-size=4K --file-merged-requests=2 run
assert_contains "fileio mmap, SIZE block size, merged requests" "$OUT" "Block size 4KiB
Merging requests up to 8KiB for sequential IO."
assert_contains "fileio mmap mode text" "$OUT" "Using fast mmaped I/O mode"
run_bmk $F --file-test-mode=rndrd --percentile=0 --events=10 run
assert_contains "fileio --percentile=0" "$OUT" "         percentile stats:               disabled"

# ---- async: Linux AIO, counted on completion
if command -v strace >/dev/null; then
  # (LeakSanitizer cannot run under ptrace: off for this one traced process)
  OUT=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        timeout 60 strace -f -qq -c -e trace=io_submit,io_getevents,pwrite64 -o strace.txt \
        "$BMK" $F --file-test-mode=rndwr --file-io-mode=async --events=50 --file-fsync-freq=0 \
        --file-async-backlog=8 --results=r.json run 2>&1)
  assert_contains "fileio async mode text" "$OUT" "Using asynchronous I/O mode"
  assert_eq "fileio async: 50 io_submit calls" 50 "$(awk '$NF == "io_submit" {print $4}' strace.txt)"
  assert_eq "fileio async: no pwrite" "" "$(awk '$NF == "pwrite64" {print $4}' strace.txt)"
  assert_eq "fileio async: 50 completed writes counted" 50 "$(json_value r.json summary.queries.write)"
else
  not_ok "strace missing (apt-get install strace)"
fi
run_bmk $F --file-test-mode=rndrw --file-io-mode=async --threads=3 --events=300 --results=r.json run
assert_eq "fileio async threads exit 0" 0 "$RC"
assert_eq "fileio async threads: every request completed" 300 \
  "$(( $(json_value r.json summary.queries.read) + $(json_value r.json summary.queries.write) + $(json_value r.json summary.queries.other) - 12 ))"
run_bmk $F --file-test-mode=rndrd --file-io-mode=async --file-async-backlog=0 run
assert_contains "fileio bad backlog" "$OUT" "FATAL: Invalid value of file-async-backlog: 0"

# ---- --validate: checksummed blocks
run_bmk $F cleanup
run_bmk $F --validate prepare
run_bmk $F --validate --file-test-mode=rndrw --threads=2 --events=400 run
assert_eq "fileio --validate on checksummed files exit 0" 0 "$RC"
assert_contains "fileio validation mode text" "$OUT" "Using checksums validation."
assert_not_contains "fileio validation passes" "$OUT" "FATAL"
dd if=/dev/zero of=test_file.0 bs=16384 count=1 conv=notrunc status=none
run_bmk $F --validate --file-test-mode=seqrd --events=1 run
assert_eq "fileio --validate detects a damaged block: exit 1" 1 "$RC"
assert_contains "fileio --validate message" "$OUT" "FATAL: Checksum mismatch in block with offset: 0"

# ---- fileio errors
run_bmk $F cleanup
assert_eq "fileio cleanup output" "
Removing test files..." "$(norm "$OUT")"
assert_eq "fileio cleanup removes files" 0 "$(ls test_file.* 2>/dev/null | wc -l)"
run_bmk $F --file-test-mode=rndrd --verbosity=2 run
assert_eq "fileio without prepare exit 1" 1 "$RC"
assert_eq "fileio without prepare message" "FATAL: Cannot open file 'test_file.0' errno = 2 (No such file or directory)
WARNING: Did you forget to run the prepare step?" "$OUT"
run_bmk fileio --file-num=4 --file-total-size=1M prepare
run_bmk $F --file-test-mode=rndwr --events=1 --verbosity=2 run
assert_eq "fileio file size check exit 1" 1 "$RC"
assert_eq "fileio file size check message" "FATAL: Size of file 'test_file.0' is 256KiB, but at least 2MiB is expected.
WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?" "$OUT"
run_bmk $F --file-test-mode=seqwr --events=1 --verbosity=2 run
assert_eq "fileio seqwr recreates the files" "0:" "$RC:$OUT"
run_bmk fileio --file-num=10 --file-total-size=160K --file-test-mode=seqwr --events=1 run
assert_contains "fileio sizes in KiB" "$OUT" "10 files, 16KiB each
160KiB total file size"
run_bmk fileio --file-num=10 --file-total-size=160K cleanup
run_bmk $F run
assert_eq "fileio without test mode exit 1" 1 "$RC"
assert_contains "fileio without test mode: message and option list" "$OUT" "FATAL: Missing required argument: --file-test-mode

fileio options:
  --file-num=N                  number of files to create [128]"
timeout 60 "$BMK" $F run >out.txt 2>&1
check "fileio option list ends with a blank line" ends_blank out.txt
run_bmk $F --file-test-mode=foo run
assert_eq "fileio invalid mode" "1:
FATAL: Invalid IO operations mode: foo." "$RC:$(norm "$OUT")"
run_bmk $F --file-test-mode=rndrd --file-io-mode=foo run
assert_contains "fileio unknown I/O mode" "$OUT" "FATAL: unknown I/O mode: foo"
run_bmk $F --file-extra-flags=sync,foo prepare
assert_contains "fileio bad extra flag" "$OUT" "FATAL: Invalid value for file-extra-flags: foo"

finish
