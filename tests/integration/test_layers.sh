#!/usr/bin/env bash
# The source tree's layering (docs/design.md "Source layout"): each folder
# of src/ may include only the folders listed for it, so the drivers never
# call up into the engine and no include cycle appears between layers.
# Static check; needs no server.
source "$(dirname "$0")/lib.sh"

declare -A ALLOWED=(
  [core]="core"
  [drivers]="core drivers"
  [metrics]="core metrics"
  [server]="core drivers server"
  [results]="core drivers server results"
  [lua]="core drivers server results lua"
  [engine]="core drivers results lua engine"
  [builtin]="core engine builtin"
  [store]="core drivers server results store"
  [cli]="core drivers server results lua engine builtin metrics store cli"
)

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

# Every C file under src/ lives in one of the layer folders (main.c too).
flat=$(find "$TOP/src" -maxdepth 1 -name '*.[ch]' | wc -l)
assert_eq "no C files directly in src/" 0 "$flat"

# Includes are written with their folder ("core/sb_logger.h"), except a
# driver's own header beside it.
loose=$(grep -rnE '#include "[^/"]+\.h"' "$TOP/src" --include=*.c --include=*.h |
  grep -vE '"config\.h"|drivers/(mysql|pgsql)/[^:]+:[0-9]+:#include "drv_' | grep -v lua_embed.c || true)
assert_eq "includes name their folder" "" "$loose"

finish
