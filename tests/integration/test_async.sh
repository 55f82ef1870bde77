#!/usr/bin/env bash
# The drivers' asynchronous start / continue forms (src/drivers/db_driver.h) give
# the same results as the blocking forms, on both servers. The checks are in
# async_check.c, built by `make check` beside the bmk binary under test.
set -u
source "$(dirname "$0")/lib/lib.sh"

CHECK=$(dirname "$BMK")/tests/integration/tools/async_check
if [ ! -x "$CHECK" ]; then
  not_ok "async_check is built (run make check)"
  finish
  exit 1
fi
for db in ${BMK_TEST_DBS:-mysql pgsql}; do
  if [ $db = mysql ]; then O=$MYSQL_OPTS; else O=$PGSQL_OPTS; fi
  # shellcheck disable=SC2086
  out=$("$CHECK" $O 2>&1)
  while IFS= read -r line; do
    case $line in
      "ok - "*) ok "$db ${line#ok - }" ;;
      "not ok - "*) not_ok "$db ${line#not ok - }" ;;
    esac
  done <<< "$out"
  printf '%s\n' "$out" | grep -Eq "^[0-9]+ passed, 0 failed$" || not_ok "$db async_check summary: $(printf '%s\n' "$out" | tail -1)"
done
finish
