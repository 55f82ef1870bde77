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
#
# Each file's line ends with its wall time, the CPU its own processes used
# (bmk, clients, helpers: the children run.sh waited for) and the CPU of
# the sandbox's servers (BMK_SANDBOX_DIR's MariaDB, PostgreSQL with its
# ended backends, PgBouncer; not a file's own servers, and only roughly
# when the file restarts one) while it ran: what tests/run-all.sh's lanes
# share.
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
TICK=$(getconf CLK_TCK)
# stat_cpu PID: the clock ticks PID and its waited-for children have used
# (/proc/PID/stat fields 14-17: utime stime cutime cstime, counted after
# the ")" that ends the command name)
stat_cpu() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }'; }
# servers_cpu: clock ticks used so far by the sandbox's servers (0 for a
# server that is not running)
servers_cpu() {
  local sb=${BMK_SANDBOX_DIR:-} pids="" f
  [ -n "$sb" ] || { echo 0; return; }
  for f in "$sb/mysql/mysqld.pid" "$sb/pgbouncer/pgbouncer.pid"; do [ -s "$f" ] && pids="$pids $(cat "$f")"; done
  [ -s "$sb/pgsql/data/postmaster.pid" ] && pids="$pids $(head -1 "$sb/pgsql/data/postmaster.pid")"
  local p c sum=0
  for p in $pids; do
    c=$(stat_cpu "$p")
    sum=$((sum + ${c:-0}))
  done
  echo "$sum"
}
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
  start=$(date +%s) cpu0=$(stat_cpu $$) srv0=$(servers_cpu)
  out=$(bash "$t" "$BMK" 2>&1)
  rc=$?
  cpu=$(awk -v a="$cpu0" -v b="$(stat_cpu $$)" -v t="$TICK" 'BEGIN { printf "%.0f", (b - a) / t }')
  srv=$(awk -v a="$srv0" -v b="$(servers_cpu)" -v t="$TICK" 'BEGIN { d = b - a; printf "%.0f", (d > 0 ? d : 0) / t }')
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
  echo "    ($name: $p passed, $f failed, $s skipped, $(( $(date +%s) - start ))s; cpu ${cpu}s, servers ${srv}s)"
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
