#!/bin/sh
# Writes bmk's manual pages from the built binary's own help, so that the
# pages say what `--help` says and cannot drift from it (docs/building.md
# "Manual pages"):
#   bmk(1)          from `bmk --help`: every option group of the option
#                   tables, the commands (src/commands/sb_commands.c), the
#                   bundled workloads, the built-in tests and the drivers
#   bmk-COMMAND(1)  from `bmk COMMAND --help` (the command's own usage
#                   text), or for a workload run as a command (tpcc, dbl,
#                   dml_cost) from `bmk COMMAND help` (its option table)
# Only the fixed frame (NAME, SYNOPSIS, the short DESCRIPTION, FILES,
# ENVIRONMENT, SEE ALSO) is written here.
#
# Usage: mkman.sh BMK PAGE PKGDATADIR DOCDIR > PAGE.1
#   BMK     the built binary (./bmk)
#   PAGE    bmk, or a command name (kit, report, tpcc, ...)
#   PKGDATADIR, DOCDIR  where `make install` puts the data and the docs
#                       (named in FILES)
# Exit status: 0, or 1 with a message when the binary fails or PAGE is no
# command of its --help.
set -eu
BMK=$1 PAGE=$2 DATADIR=$3 DOCDIR=$4

help=$("$BMK" --help) || { echo "mkman.sh: $BMK --help failed" >&2; exit 1; }
release=$("$BMK" --version | sed -n 's/^bmk release //p')
[ -n "$release" ] || { echo "mkman.sh: no 'bmk release' line in $BMK --version" >&2; exit 1; }
# SOURCE_DATE_EPOCH (set by dpkg-buildpackage from debian/changelog) keeps
# the page's date reproducible; without it the page has no date.
date=
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
fi

# esc: text to roff (backslashes, every '-' a copy-pasteable \-, a line
# starting with . or ' made literal)
ESC='s/\\/\\e/g; s/-/\\-/g; s/^[.'"'"']/\\\&&/'

# The commands block of --help: "  bmk NAME USAGE   summary"
commands=$(printf '%s\n' "$help" | sed -n '/^bmk extensions (commands):$/,/^$/s/^  bmk //p')

# options_to_roff: option and list lines of --help's layout to roff, one
# .SS per group header; used for bmk(1) and the workload commands.
options_to_roff() {
  awk '
    function e(s,   t) { t = s; gsub(/\\/, "\\e", t); gsub(/-/, "\\-", t); return t }
    /^[A-Za-z].*:$/ { sub(/:$/, ""); print ".SS \"" e($0) "\""; next }
    /^  --/ {
      spec = $1; desc = $0; sub(/^  [^ ]+ */, "", desc)
      name = spec; rest = ""
      if (match(spec, /^--[A-Za-z0-9_-]+/)) { name = substr(spec, 1, RLENGTH); rest = substr(spec, RLENGTH + 1) }
      print ".TP"; print "\\fB" e(name) "\\fR" e(rest); print e(desc); next
    }
    /^  [^ ]+ - / { print ".TP"; l = $0; sub(/^  /, "", l); i = index(l, " - ")
                    print "\\fB" e(substr(l, 1, i - 1)) "\\fR"; print e(substr(l, i + 3)); next }
    /^  [^ ]/ { print ".TP"; l = $0; sub(/^  /, "", l); print "\\fB" e(l) "\\fR"; next }
  '
}

th() {  # th NAME: the title line
  printf '.TH %s 1 "%s" "bmk %s" "User Commands"\n' "$1" "$date" "$release"
}

if [ "$PAGE" = bmk ]; then
  th BMK
  cat <<EOF
.SH NAME
bmk \\- database load generator for MySQL/MariaDB and PostgreSQL, a drop\\-in successor to sysbench 1.1
.SH SYNOPSIS
.B bmk
[\\fIoptions\\fR]... [\\fItestname\\fR] [\\fIcommand\\fR]
.br
.B bmk
\\fIcommand\\fR [\\fIarguments\\fR]...
.SH DESCRIPTION
bmk runs LuaJIT workload scripts in many virtual users against MySQL/MariaDB
and PostgreSQL and reports throughput and latency live and at the end. It
takes sysbench 1.1's command line, Lua API and report layout; run under the
name \\fBsysbench\\fR (a symbolic link) it prints sysbench's output.
.PP
\\fItestname\\fR is a bundled workload (below), a built\\-in test, or a Lua
script file; \\fIcommand\\fR is one of prepare, run, cleanup, help or a
command of the script. \\fBbmk\\fR \\fItestname\\fR \\fBhelp\\fR lists a
test's own options. bmk's own commands (below) each have a page of their
own, \\fBbmk\\-\\fR\\fIcommand\\fR(1).
.SH OPTIONS
Every option is \\fB\\-\\-name=value\\fR; an on/off option given alone
means on. The value in brackets is the default.
EOF
  printf '%s\n' "$help" |
    sed -n '/^General options:$/,/^bmk extensions (commands):$/p' |
    sed '/^Compiled-in database drivers:$/,/^$/d; /^bmk extensions (commands):$/d' |
    options_to_roff
  echo '.SH COMMANDS'
  printf '%s\n' "$commands" | awk '
    function e(s,   t) { t = s; gsub(/\\/, "\\e", t); gsub(/-/, "\\-", t); return t }
    { i = index($0, "  "); head = substr($0, 1, i - 1); sum = substr($0, i); sub(/^ +/, "", sum)
      split(head, w, " "); args = substr(head, length(w[1]) + 2)
      print ".TP"; print "\\fBbmk " e(w[1]) "\\fR " e(args)
      print e(sum) "; \\fBbmk\\-" e(w[1]) "\\fR(1)." }'
  echo '.SH "BUNDLED WORKLOADS"'
  printf '%s\n' 'Run by name (\fBbmk\fR \fIname\fR \fBhelp\fR lists the options of each):'
  printf '%s\n' "$help" | sed -n '/^bmk extensions (bundled workloads):$/,/^$/s/^  \([a-z_]*\)$/\1/p' |
    sed "$ESC" | awk '{ printf "%s\\fB%s\\fR", (NR > 1 ? ",\n" : ""), $0 } END { print "." }'
  echo '.SH "BUILT-IN TESTS"'
  printf '%s\n' "$help" | sed -n '/^Compiled-in tests:$/,/^$/p' | sed '1d' | options_to_roff
  echo '.SH "DATABASE DRIVERS"'
  printf '%s\n' "$help" | sed -n '/^Compiled-in database drivers:$/,/^$/p' | sed '1d' | options_to_roff
  cat <<EOF
.SH FILES
.TP
.I $(printf '%s' "$DATADIR" | sed "$ESC")
the bundled workloads as Lua files (found by name before the copies built
into the binary), the kit (\\fIBMK/\\fR: \\fI.bench\\fR and the kit's Lua,
see \\fBbmk\\-kit\\fR(1)) and the sandbox script (\\fBbmk\\-sandbox\\fR(1))
.TP
.I $(printf '%s' "$DOCDIR" | sed "$ESC")
README.md and \\fIdocs/\\fR, the documentation the (docs/...) references of
this page name, with the Grafana dashboard (\\fIdocs/grafana/\\fR), the
Kubernetes manifest (\\fIdocs/kubernetes/\\fR) and the result file schema
.SH ENVIRONMENT
.TP
.B BMK_HOME
the kit's home directory (\\fBbmk\\-kit\\fR(1))
.TP
.B BMK_RESULTS_DB
the results database of \\fB\\-\\-save\\fR and \\fBbmk runs\\fR
.TP
.B BMK_GNUPLOT
the gnuplot that draws \\fBbmk report \\-\\-html\\fR's charts (default: gnuplot on PATH)
.TP
.B LUA_PATH
where test names and \\fBrequire\\fR look for Lua files first
.TP
.B BMK_SANDBOX_DIR
the sandbox servers' directory (\\fBbmk\\-sandbox\\fR(1))
.SH "SEE ALSO"
EOF
  printf '%s\n' "$commands" | awk '{ printf "%s\\fBbmk\\-%s\\fR(1)", (NR > 1 ? ",\n" : ""), $1 } END { print "" }'
  exit 0
fi

# bmk-COMMAND(1)
line=$(printf '%s\n' "$commands" | awk -v c="$PAGE" '$1 == c')
[ -n "$line" ] || { echo "mkman.sh: '$PAGE' is not a command of $BMK --help" >&2; exit 1; }
summary=$(printf '%s\n' "$line" | awk '{ i = index($0, "  "); s = substr($0, i); sub(/^ +/, "", s); print s }')
upper=$(printf 'BMK-%s' "$PAGE" | tr 'a-z' 'A-Z')
th "$(printf '%s' "$upper" | sed "$ESC")"
echo '.SH NAME'
printf 'bmk\\-%s \\- %s\n' "$(printf '%s' "$PAGE" | sed "$ESC")" "$(printf '%s' "$summary" | sed "$ESC")"
own=$("$BMK" "$PAGE" --help 2>&1) || true
[ -n "$own" ] || { echo "mkman.sh: $BMK $PAGE --help printed nothing" >&2; exit 1; }
# A workload run as a command (tpcc) answers --help with bmk's general help.
if ! printf '%s\n' "$own" | grep -qx '  bmk \[options\]\.\.\. \[testname\] \[command\]'; then
  # the command's own usage text, as it prints it
  echo '.SH DESCRIPTION'
  echo '.nf'
  printf '%s\n' "$own" | sed "$ESC"
  echo '.fi'
else
  # a workload run as a command: the sysbench command line and its options
  opts=$("$BMK" "$PAGE" help 2>&1 | sed -n "/^$PAGE options:\$/,\$p")
  [ -n "$opts" ] || { echo "mkman.sh: $BMK $PAGE help printed no options" >&2; exit 1; }
  cat <<EOF
.SH SYNOPSIS
.B bmk
[\\fIoptions\\fR]... \\fB$PAGE\\fR \\fIcommand\\fR
.SH DESCRIPTION
The bundled workload $PAGE, run through bmk's command line: the general,
database and driver options of \\fBbmk\\fR(1), then its own below.
.SH OPTIONS
EOF
  printf '%s\n' "$opts" | options_to_roff
fi
echo '.SH "SEE ALSO"'
printf '%s\n' '\fBbmk\fR(1)'
