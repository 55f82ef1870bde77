#!/usr/bin/env bash
# Built-in tests cpu, memory, threads, mutex, fileio (sysbench-compat.md §8):
# help texts, run layouts, exact counts, fileio prepare/run/cleanup effects
# and errors.
set -u
source "$(dirname "$0")/lib.sh"
cd "$WORK"

run_bmk cpu help
assert_contains "cpu help" "$OUT" "cpu options:
  --cpu-max-prime=N upper limit for primes generator [10000]"
run_bmk cpu --events=100 --cpu-max-prime=2000 run
assert_eq "cpu run exit 0" 0 "$RC"
assert_contains "cpu mode text" "$OUT" "Prime numbers limit: 2000
"
assert_match "cpu speed block" "$OUT" '^    events per second: +[0-9]+\.[0-9]{2}$'
assert_contains "cpu exact events" "$OUT" "    total number of events:              100"
assert_contains "cpu generic report starts with a blank line" "$OUT" "

Throughput:"
assert_contains "cpu fairness block" "$OUT" "Threads fairness:"
run_bmk cpu --time=2 --report-interval=1 run
assert_match "cpu interval line" "$OUT" '^\[ 1s \] thds: 1 eps: [0-9]+\.[0-9]{2} lat \(ms,95%\): [0-9]+\.[0-9]{2}$'

run_bmk memory help
assert_contains "memory help" "$OUT" "  --memory-block-size=SIZE    size of memory block for test [1K]"
run_bmk memory --memory-total-size=100M --memory-block-size=1M run
assert_contains "memory mode text" "$OUT" "Running memory speed test with the following options:
  block size: 1024KiB
  total size: 100MiB
  operation: write
  scope: global"
assert_match "memory total operations" "$OUT" '^Total operations: 100 \( *[0-9]+\.[0-9]{2} per second\)$'
assert_match "memory transferred" "$OUT" '^100\.00 MiB transferred \([0-9]+\.[0-9]{2} MiB/sec\)$'
run_bmk memory --memory-total-size=10M --memory-block-size=1M --threads=3 run
assert_contains "memory shares round up (3 x 4 blocks)" "$OUT" "total number of events:              12"
run_bmk memory --memory-block-size=3K run
assert_eq "memory bad block size exit 1" 1 "$RC"
assert_contains "memory bad block size" "$OUT" "FATAL: Invalid value for memory-block-size: 3K"
run_bmk memory --memory-total-size=10M --memory-oper=none run
assert_not_contains "memory none prints no transfer line" "$OUT" "MiB transferred"

run_bmk threads --events=20 --threads=2 run
assert_contains "threads exact events" "$OUT" "total number of events:              20"
run_bmk mutex --threads=2 --mutex-locks=1000 run
assert_contains "mutex: one event per thread" "$OUT" "total number of events:              2"

# fileio
run_bmk fileio --file-num=4 --file-total-size=8M prepare
assert_eq "fileio prepare exit 0" 0 "$RC"
assert_contains "fileio prepare messages" "$OUT" "Creating file test_file.3"
assert_eq "fileio files created" 4 "$(ls test_file.* | wc -l)"
assert_eq "fileio total size" 8388608 "$(cat test_file.* | wc -c)"
run_bmk fileio --file-num=4 --file-total-size=8M --file-test-mode=rndrw --time=1 --report-interval=1 run
assert_eq "fileio run exit 0" 0 "$RC"
assert_match "fileio interval line" "$OUT" '^\[ 1s \] reads: [0-9.]+ MiB/s writes: [0-9.]+ MiB/s fsyncs: [0-9.]+/s latency \(ms,95%\): [0-9]+\.[0-9]{3}$'
assert_match "fileio read line" "$OUT" '^         read:  IOPS=[0-9.]+ [0-9.]+ MiB/s \([0-9.]+ MB/s\)$'
assert_match "fileio latency label column" "$OUT" '^         min: {28}[ 0-9]{6}[0-9]\.[0-9]{2}$'
assert_not_contains "fileio has no fairness block" "$OUT" "Threads fairness"
run_bmk fileio --file-num=4 --file-total-size=8M --file-test-mode=seqrd run
assert_match "fileio seqrd reads the files once (512 blocks)" "$OUT" 'read:  IOPS'
run_bmk fileio --file-num=4 --file-total-size=8M cleanup
assert_contains "fileio cleanup message" "$OUT" "Removing test files..."
assert_eq "fileio cleanup removes files" 0 "$(ls test_file.* 2>/dev/null | wc -l)"
run_bmk fileio --file-num=4 --file-total-size=8M --file-test-mode=rndrd run
assert_eq "fileio without prepare exit 1" 1 "$RC"
assert_contains "fileio without prepare message" "$OUT" "FATAL: Cannot open file 'test_file.0' errno = 2 (No such file or directory)
WARNING: Did you forget to run the prepare step?"
run_bmk fileio run
assert_eq "fileio without test mode exit 1" 1 "$RC"
assert_contains "fileio without test mode message" "$OUT" "FATAL: Missing required argument: --file-test-mode"

finish
