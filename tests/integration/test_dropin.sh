#!/usr/bin/env bash
# sysbench 1.1 drop-in details (issue 10): each check compares bmk's exact
# output with what sysbench 1.1 prints for the same command. The sysbench
# source each expectation comes from is named beside it (files of
# akopytov/sysbench: src/lua/internal/*.lua, src/sb_*.c, src/db_driver.c,
# src/drivers/*/drv_*.c, tests/t/*.t).
set -u
source "$(dirname "$0")/lib.sh"
cd "$WORK"
ln -sf "$BMK" "$WORK/sysbench"
SB="$WORK/sysbench"

# Output of a command without the header line and its blank line.
body() { printf '%s\n' "$1" | sed '1,2d'; }

# --- item 3: ffi is a global (sysbench.lua: ffi = require("ffi")) -----------
OUT=$(echo 'print(type(ffi))' | "$SB")
assert_eq "ffi is a global" "table" "$(body "$OUT")"
cat > cdef.lua <<'LUA'
ffi.cdef "unsigned int sleep(unsigned int);"
print(ffi.C.sleep(0))
LUA
run_bmk cdef.lua
assert_eq "ffi.cdef without require" "0" "$(body "$OUT")"

finish
