#!/usr/bin/env bash
# Runs the integration tests with the bmk binary given as $1 and prints the
# total as "N passed, M failed, K skipped" (non-zero exit on any failure).
#
#   run.sh BMK                 every tests/integration/test_*.sh
#   run.sh BMK test_cli.sh ... only the files named
#   BMK_TEST_EXCLUDE           lines "test_x.sh: reason": files left out of
#                              this pass, each counted as one skip with its
#                              reason (tests/run-all.sh: what the ASan pass
#                              leaves to the normal pass)
#   BMK_SANITIZER_LOGS=DIR     the directory that ASAN_OPTIONS/UBSAN_OPTIONS
#                              log_path point into: every report written
#                              there while a file runs (a leak, a memory or
#                              undefined-behaviour error in any bmk process,
#                              whether or not a check looked at its exit
#                              code) is one failure of that file
set -u
BMK=$(cd "$(dirname "${1:-./bmk}")" && pwd)/$(basename "${1:-./bmk}")
export BMK
shift || true
DIR=$(cd "$(dirname "$0")" && pwd)
total_pass=0
total_fail=0
total_skip=0
if [ $# -gt 0 ]; then
  files=()
  for f in "$@"; do files+=("$DIR/$(basename "$f")"); done
else
  files=("$DIR"/test_*.sh)
fi
# excluded NAME: the reason given for NAME in BMK_TEST_EXCLUDE, if any
excluded() {
  local e
  while IFS= read -r e; do
    [ "${e%%:*}" = "$1" ] && { echo "${e#*: }"; return 0; }
  done <<< "${BMK_TEST_EXCLUDE:-}"
  return 1
}
for t in "${files[@]}"; do
  name=$(basename "$t")
  echo "=== $name"
  if why=$(excluded "$name"); then
    echo "skip - $name in this pass: $why"
    total_skip=$((total_skip + 1))
    continue
  fi
  start=$(date +%s)
  out=$(bash "$t" "$BMK" 2>&1)
  rc=$?
  if [ -n "${BMK_SANITIZER_LOGS:-}" ]; then
    for r in "$BMK_SANITIZER_LOGS"/*; do
      [ -f "$r" ] || continue
      case $r in *.seen) continue ;; esac
      out+=$'\n'"not ok - sanitizer report $(basename "$r") while $name ran:"$'\n'"$(head -40 "$r" | sed 's/^/    | /')"
      mv "$r" "$r.$name.seen"
    done
  fi
  printf '%s\n' "$out" | grep -Ev '^ok - |^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' || true
  summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -1)
  read -r p f s <<< "$(echo "$summary" | awk '{print $1, $3, $5}')"
  if [ -z "$summary" ]; then p=0; f=1; s=0; echo "not ok - $name ended without a summary (rc=$rc)"; fi
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then f=1; echo "not ok - $name exited $rc"; fi
  f=$(( f + $(printf '%s\n' "$out" | grep -c '^not ok - sanitizer report ') ))
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  total_skip=$((total_skip + s))
  echo "    ($name: $p passed, $f failed, $s skipped, $(( $(date +%s) - start ))s)"
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
