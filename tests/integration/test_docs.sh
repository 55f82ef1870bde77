#!/usr/bin/env bash
# The documentation against the tree, so its examples and lists cannot go
# stale:
# - the examples of README.md and docs/*.md marked `<!-- doc-test -->`
#   run against the sandbox servers (tools/doc_blocks.py says how a block
#   is marked, run and compared): each exits 0 and prints the lines the
#   doc shows, numbers aside. Their markers shrink tables and --time, so
#   this takes seconds;
# - docs/building.md's package list is BMK/packages.txt's build group;
# - docs/compatibility.md's table of bmk's extensions is what `bmk
#   --help` lists under "bmk extensions (...)";
# - exit codes have one table (docs/reliability.md), no other page a
#   table of its own;
# - every glossary link of README.md and docs/ names a term of
#   docs/glossary.md, and README.md links each term at its first use.
set -u
source "$(dirname "$0")/lib/lib.sh"
cd "$WORK" || exit 1
unset BMK_HOME BMK_KIT_WORKLOAD MYSQL_PWD PGPASSWORD BMK_RESULTS_DB XDG_DATA_HOME

# ---- the marked examples ----------------------------------------------------
# They run in a directory that looks like the source tree to them (./bmk,
# BMK/, tools/sandbox.sh), with `bmk` on the PATH and a HOME of their own
# (the results database, the kit's caches). tools/sandbox.sh there leaves
# the test's servers running: `start` and `env` of a server that runs are
# the real script's, `stop`, `restart` and `crash` do nothing.
T=$WORK/tree
mkdir -p "$T/tools" "$WORK/home" "$WORK/blocks"
ln -s "$BMK" "$T/bmk"
ln -s "$TOP/BMK" "$T/BMK"
cat > "$T/tools/sandbox.sh" <<EOF
#!/usr/bin/env bash
case \$1 in
  start) bash "$TOP/tools/sandbox.sh" status "\$2" >/dev/null ||
           { echo "doc-test: the example needs the sandbox's \$2, which this test does not run" >&2; exit 1; } ;;
  env|status) exec bash "$TOP/tools/sandbox.sh" "\$@" ;;
  *) echo "doc-test: 'sandbox.sh \$*' left out (the test's servers stay up)" ;;
esac
EOF
export BMK_SANDBOX_DIR=$SANDBOX_DIR BMK_MYSQL_PORT=$MYSQL_PORT BMK_PGSQL_PORT=$PGSQL_PORT \
  BMK_PGBOUNCER_PORT=$PGBOUNCER_PORT
export DOCTEST_MYSQL_PORT=$MYSQL_PORT DOCTEST_PGSQL_PORT=$PGSQL_PORT DOCTEST_WORK=$WORK \
  DOCTEST_SANDBOX_DIR=$SANDBOX_DIR

# oltp tables an example left behind (one that failed halfway) would fail
# the next one's prepare and the files after this one
drop_oltp() {
  "$BMK" oltp_read_write $MYSQL_OPTS --tables=16 cleanup >/dev/null 2>&1
  "$BMK" oltp_read_write $PGSQL_OPTS --tables=16 cleanup >/dev/null 2>&1
}
# the tpcc example works in a database of its own: test_tpcc.sh leaves its
# schema in sbtest for test_tpcc_run.sh
mysql_q "DROP DATABASE IF EXISTS bmkdoc; CREATE DATABASE bmkdoc"

cd "$TOP" || exit 1
sessions=$(python3 "$TOP/tests/integration/tools/doc_blocks.py" extract "$WORK/blocks" \
             README.md docs/*.md) || { not_ok "doc-test: reading the marked examples"; finish; exit 1; }
cd "$T" || exit 1
while read -r n where; do
  [ -n "$n" ] || continue
  drop_oltp
  t0=$(date +%s)
  ( set -a   # BMK_MYSQL_OPTS, BMK_PGSQL_OPTS, ...: examples use them as after `eval "$(... env mysql)"`
    eval "$(bash "$TOP/tools/sandbox.sh" env mysql)"; eval "$(bash "$TOP/tools/sandbox.sh" env pgsql)"
    set +a
    export HOME=$WORK/home PATH="$T:$PATH"
    timeout -k 5 300 bash "$WORK/blocks/session-$n.sh" ) > "$WORK/blocks/session-$n.log" 2>&1
  rc=$?
  [ -n "${BMK_TEST_TIMING:-}" ] && echo "$(( $(date +%s) - t0 )) test_docs.sh: $where" >> "$BMK_TEST_TIMING"
  while IFS= read -r line; do
    case $line in
      "ok - "*) ok "${line#ok - }" ;;
      "not ok - "*) not_ok "${line#not ok - }" ;;
      *) echo "$line" ;;
    esac
  done < <(python3 "$TOP/tests/integration/tools/doc_blocks.py" check "$WORK/blocks" "$n" "$rc")
done <<< "$sessions"
check "doc-test: the docs mark examples (README.md among them)" grep -q "README.md" <<< "$sessions"
drop_oltp
mysql_q "DROP DATABASE IF EXISTS bmkdoc"
cd "$TOP" || exit 1

# ---- the package list -------------------------------------------------------
# docs/building.md "Building by hand": the words of its apt-get install
# command, against BMK/packages.txt's build group (the list setup.sh reads)
doc_pkgs=$(awk '/^## Building by hand/ { on = 1; next } /^## / { on = 0 }
  on && /apt-get install/ { grab = 1 } grab { print; if ($0 !~ /\\$/) grab = 0 }' docs/building.md |
  tr ' \\' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vxE 'apt-get|install' | sort)
list_pkgs=$(awk '!/^#/ && $1 == "build" { print $2 }' BMK/packages.txt | sort)
check "packages: BMK/packages.txt has a build group" test -n "$list_pkgs"
assert_eq "packages: docs/building.md's apt-get list is BMK/packages.txt's build group" \
  "$(echo $list_pkgs)" "$(echo $doc_pkgs)"
check "packages: BMK/setup.sh installs from BMK/packages.txt" grep -q 'BMK/packages.txt' BMK/setup.sh
# every library configure requires is in the build group (configure.ac
# names the package to install when one is missing)
need=$(grep -o 'not found: apt-get install [a-z0-9.+-]*' configure.ac | awk '{print $5}' | sort -u)
miss=""
for p in $need; do grep -qx "$p" <<< "$list_pkgs" || miss="$miss $p"; done
assert_eq "packages: every package configure.ac asks for is in the build group" "" "$miss"

# ---- bmk's extensions: docs/compatibility.md against --help -----------------
run_bmk --help
HELP=$OUT
help_names() {  # help_names GROUP: the options (or commands) --help lists under "bmk extensions (GROUP)"
  printf '%s\n' "$HELP" | awk -v g="bmk extensions ($1):" '
    $0 == g { on = 1; next } on && /^$/ { on = 0 } on && /^  --/ { sub(/^  /, ""); sub(/[=[ ].*/, ""); print }
    on && /^  bmk / { print "bmk " $2 }' | sort -u
}
doc_names() {  # doc_names GROUP: what docs/compatibility.md's table lists for that --help group
  awk -v g="$1" -F'|' '/^## bmk extensions/ { on = 1; next } /^## / { on = 0 }
    on { gsub(/^ +| +$/, "", $2); if ($2 == g) print $3 }' docs/compatibility.md |
    grep -oE '`(--[a-z0-9-]+|bmk [a-z_]+)`' | tr -d '`' | sort -u
}
groups=$(printf '%s\n' "$HELP" | sed -n 's/^bmk extensions (\(.*\)):$/\1/p')
check "compatibility: --help has extension groups" test -n "$groups"
for g in $groups; do
  h=$(help_names "$g")
  d=$(doc_names "$g")
  assert_eq "compatibility: docs/compatibility.md lists what --help lists under 'bmk extensions ($g)' (missing: $(comm -23 <(echo "$h") <(echo "$d") | tr '\n' ' ')extra: $(comm -13 <(echo "$h") <(echo "$d") | tr '\n' ' '))" \
    "$(echo $h)" "$(echo $d)"
done
assert_eq "compatibility: no group in the table that --help does not have" "" \
  "$(awk -F'|' '/^## bmk extensions/ { on = 1; next } /^## / { on = 0 }
      on && /^\| [a-z]/ { gsub(/^ +| +$/, "", $2); print $2 }' docs/compatibility.md |
     sort -u | grep -vxF -e "--help\` group" $(for g in $groups; do printf -- '-e %s ' "$g"; done) | tr '\n' ' ')"

# ---- exit codes: one table --------------------------------------------------
table=$(awk '/^## Exit codes/ { on = 1; next } /^## / { on = 0 } on && /^\| *[0-9]/' docs/reliability.md)
codes=$(printf '%s\n' "$table" | grep -oE '^\| *[0-9]+( / [0-9]+)?' | grep -oE '[0-9]+' | sort -n | tr '\n' ' ')
assert_eq "exit codes: docs/reliability.md's table has 0-5, 130 and 143" "0 1 2 3 4 5 130 143 " "$codes"
# the other pages link to it instead of a list of their own
own=""
for f in README.md docs/*.md; do
  [ "$f" = docs/reliability.md ] && continue
  grep -qE '^\| *(exit|code) *\| *meaning' "$f" && own="$own $f"
done
assert_eq "exit codes: no other page has an exit-code table" "" "$own"

# ---- the glossary -----------------------------------------------------------
# anchors as GitHub makes them: lower case, punctuation but - and _ dropped,
# blanks to -
anchors=$(sed -n 's/^### //p' docs/glossary.md | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g')
bad=""
while IFS=: read -r file link; do
  a=${link#*#}
  grep -qx -- "$a" <<< "$anchors" || bad="$bad $file:$link"
done < <(grep -oE '(docs/)?glossary\.md#[a-z0-9_-]+' README.md docs/*.md)
assert_eq "glossary: every link names a term of docs/glossary.md" "" "$bad"
check "glossary: README.md links it" grep -q 'docs/glossary.md#' README.md
# README.md: the first use of each term (TERM|regex of its spellings)
# carries the link to it
for t in "vu|[Vv]irtual users?|VUs?" "open-loop|[Oo]pen[- ]loop" "slo|SLOs?" "hdr-histogram|HDR" \
         "coordinated-omission|coordinated omission" "event-loop|[Ee]vent[- ]loops?" \
         "sb11_max|sb11_MAX" "dbstress|dbSTRESS" "dbl|DBL" "results-database|[Rr]esults database" \
         "client-saturation|[Cc]lient saturat(ed|ion)" "nopm-and-tpm|NOPM"; do
  anchor=${t%%|*} re=${t#*|}
  first=$(grep -nE "(^|[^a-zA-Z_])($re)([^a-zA-Z_]|$)" README.md | grep -v '^[0-9]*:    ' | head -1)
  # (a term README.md does not use needs no link)
  [ -n "$first" ] && assert_contains "glossary: README.md's first use of '$anchor' (line ${first%%:*}) links it" \
    "$first" "glossary.md#$anchor"
done

finish
