#!/usr/bin/env bash
# The source tree's layering (docs/design.md "Source layout"): each folder
# of src/ may include only the folders listed for it, so the drivers never
# call up into the engine and no include cycle appears between layers;
# and the Lua folders (src/lua/internal/, src/workloads/) reach through
# LuaJIT's FFI only the layers listed for them. Static check; needs no
# server.
source "$(dirname "$0")/lib/lib.sh"

declare -A ALLOWED=(
  [core]="core"
  [datagen]="core datagen"
  [pgscript]="pgscript"
  [drivers]="core drivers"
  [metrics]="core metrics"
  [endpoints]="core drivers endpoints"
  [server]="core drivers endpoints server"
  [results]="core drivers endpoints server results"
  [lua]="core drivers endpoints server results lua"
  [engine]="core drivers lua engine"
  [builtin]="core engine builtin"
  [resultsdb]="core drivers server results resultsdb"
  [commands]="core drivers endpoints server results lua engine metrics resultsdb pgscript commands"
  [cli]="core drivers endpoints server results lua engine builtin metrics resultsdb pgscript commands cli"
)

# Every folder of src/ is a layer of the table above (a new folder must be
# placed in it, or its includes would go unchecked).
for d in "$TOP"/src/*/; do
  d=$(basename "$d")
  check "src/$d is a layer of the include rule (workloads: Lua only)" \
    eval '[ -n "${ALLOWED[$d]:-}" ] || [ "$d" = workloads ]'
done

for layer in "${!ALLOWED[@]}"; do
  bad=""
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(printf '%s' "$line" | sed -E 's/.*#include "([a-z]+)\/.*/\1/')
    case " ${ALLOWED[$layer]} " in
      *" $inc "*) ;;
      *) bad="$bad $file->$inc" ;;
    esac
  done < <(grep -rnE '#include "[a-z]+/' "$TOP/src/$layer" --include=*.c --include=*.h)
  assert_eq "src/$layer includes only: ${ALLOWED[$layer]}" "" "$bad"
done

# FFI reach: Lua calls C through LuaJIT's FFI, which the include check
# cannot see. For each folder of Lua, the C functions its files name (the
# ffi.cdef blocks, and ffi.C.x / C.x calls, which may rely on another
# module's declaration) must be defined in the layers listed for it.
# Names no C file of src/ defines (libc: fork, clock_gettime, ...) are not
# bmk's and are skipped. docs/design.md "Source layout" draws these edges.
declare -A FFI_ALLOWED=(
  # the sysbench.* API, event mode, the kit, series, bmk.cost: the SQL
  # API (drivers), the run's engine (events, stop flag, VUs), server
  # cost, merging result files
  [lua/internal]="core drivers server results engine"
  # the bundled workloads: random and shared state (core), the data
  # generators (datagen), the SQL layer beyond sysbench.sql (drivers), the
  # server's transaction counters for tpcc's NOPM (server), the stop flag
  # in long loops (engine)
  [workloads]="core datagen drivers server engine"
  # the commands written in Lua: reading result files back (results:
  # merging, step summaries, the capacity page)
  [commands/kit]="core results"
  [commands/series]="core results"
  [commands/capacity]="core results"
)

# "name layer" for every non-static function defined in a C file of src/
# (definitions start at column 0: return type and name on one line);
# generated files are left out (static_symtab.c declares libc names).
ffi_defs=$(grep -rnE '^[A-Za-z_][A-Za-z0-9_ *]*[ *][A-Za-z_][A-Za-z0-9_]*\(' "$TOP/src" --include=*.c |
  grep -vE '/(lua_embed|lua_workloads|static_symtab)\.c:' |
  grep -vE ':[0-9]+:(static|extern|typedef) ' | grep -vE '[;=][[:space:]]*$' |
  sed -E 's#^'"$TOP"'/src/([a-z]+)/[^:]*:[0-9]+:[^(]*[ *]([A-Za-z_][A-Za-z0-9_]*)\(.*#\2 \1#' | sort -u)

# The C names one Lua file reaches: identifiers followed by "(" in its
# ffi.cdef [[ ... ]] blocks, and ffi.C.name / C.name (local C = ffi.C).
ffi_names() {
  awk '/ffi\.cdef *\[\[/ { on = 1; sub(/.*ffi\.cdef *\[\[/, "") }
       on { i = index($0, "]]"); if (i) { print substr($0, 1, i - 1); on = 0 } else print }' "$1" |
    grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' | tr -d '( \t' || true
  grep -oE 'ffi\.C\.[A-Za-z_][A-Za-z0-9_]*' "$1" | sed 's/^ffi\.C\.//' || true
  if grep -qE 'local C *= *ffi\.C' "$1"; then
    grep -oE '(^|[^A-Za-z0-9_.])C\.[A-Za-z_][A-Za-z0-9_]*' "$1" | sed -E 's/.*C\.//' || true
  fi
}

ffi_checked=0
for dir in "${!FFI_ALLOWED[@]}"; do
  bad=""
  for f in "$TOP/src/$dir"/*.lua; do
    for name in $(ffi_names "$f" | sort -u); do
      for layer in $(printf '%s\n' "$ffi_defs" | awk -v n="$name" '$1 == n { print $2 }'); do
        ffi_checked=$((ffi_checked + 1))
        case " ${FFI_ALLOWED[$dir]} " in
          *" $layer "*) ;;
          *) bad="$bad ${f#"$TOP/"}:$name->$layer" ;;
        esac
      done
    done
  done
  assert_eq "src/$dir reaches through FFI only: ${FFI_ALLOWED[$dir]}" "" "$bad"
done
# The extraction found the calls (a broken pattern would pass vacuously).
check "FFI names resolved to layers (found $ffi_checked)" test "$ffi_checked" -ge 100

# The Lua lives in two folders: the runtime modules (src/lua/internal/,
# beside the C glue) and the workloads (src/workloads/, Lua only).
loose_lua=$(find "$TOP/src/lua" -maxdepth 1 -name '*.lua' | wc -l)
assert_eq "no workload Lua directly in src/lua (they are in src/workloads)" 0 "$loose_lua"
wl_c=$(find "$TOP/src/workloads" -name '*.[ch]' | wc -l)
assert_eq "no C in src/workloads" 0 "$wl_c"

# Every C file under src/ lives in one of the layer folders (main.c too).
flat=$(find "$TOP/src" -maxdepth 1 -name '*.[ch]' | wc -l)
assert_eq "no C files directly in src/" 0 "$flat"

# Includes are written with their folder ("core/sb_logger.h"), except a
# driver's own header beside it.
loose=$(grep -rnE '#include "[^/"]+\.h"' "$TOP/src" --include=*.c --include=*.h |
  grep -vE '"config\.h"|drivers/(mysql|pgsql)/[^:]+:[0-9]+:#include "drv_' | grep -v lua_embed.c || true)
assert_eq "includes name their folder" "" "$loose"

finish
