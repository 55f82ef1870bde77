#!/usr/bin/env bash
# Runs every tests/integration/test_*.sh with the bmk binary given as $1
# and prints the total as "N passed, M failed" (non-zero exit on failure).
set -u
BMK=$(cd "$(dirname "${1:-./bmk}")" && pwd)/$(basename "${1:-./bmk}")
export BMK
DIR=$(cd "$(dirname "$0")" && pwd)
total_pass=0
total_fail=0
for t in "$DIR"/test_*.sh; do
  name=$(basename "$t")
  echo "=== $name"
  start=$(date +%s)
  out=$(bash "$t" "$BMK" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -v '^ok - ' || true
  summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  p=$(echo "$summary" | awk '{print $1}')
  f=$(echo "$summary" | awk '{print $3}')
  if [ -z "$summary" ]; then p=0; f=1; echo "not ok - $name ended without a summary (rc=$rc)"; fi
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then f=1; echo "not ok - $name exited $rc"; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  echo "    ($name: $p passed, $f failed, $(( $(date +%s) - start ))s)"
done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
