#!/usr/bin/env bash
# Command line, test resolution, script options, lifecycle and bad input
# with sysbench 1.1's texts and exit codes; no database needed.
set -u
source "$(dirname "$0")/lib/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$WORK"

# --- version and header under two names -----------------------------------
run_bmk --version
assert_match "--version format" "$OUT" '^bmk 1\.1\.0(-[0-9a-f]+)?$'
assert_match "--version bmk release line" "$OUT" '^bmk release [0-9]+\.[0-9]+\.[0-9]+$'
ln -sf "$BMK" "$WORK/sysbench"
OUT=$("$WORK/sysbench" --version)
assert_match "sysbench symlink --version" "$OUT" '^sysbench 1\.1\.0(-[0-9a-f]+)?$'
assert_not_contains "no bmk release line as sysbench" "$OUT" "bmk release"
OUT=$("$WORK/sysbench" cpu --events=10 run | head -2)
assert_match "header names sysbench" "$(echo "$OUT" | head -1)" '^sysbench 1\.1\.0(-[0-9a-f]+)? \(using system LuaJIT 2\.1\.0-beta3\)$'
assert_eq "blank line after header" "" "$(echo "$OUT" | sed -n 2p)"

# --- help --------------------------------------------------------------------
run_bmk --help
assert_eq "--help exits 0" 0 "$RC"
assert_contains "--help usage" "$OUT" "Usage:
  bmk [options]... [testname] [command]

Commands implemented by most tests: prepare run cleanup help

General options:
  --threads=N                     number of threads to use [1]"
assert_contains "--help log block" "$OUT" "Log options:
  --verbosity=N verbosity level {5 - debug, 0 - only critical messages} [3]

  --percentile=N       percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations [95]
  --histogram[=on|off] print latency histogram in report [off]

General database options:
"
assert_contains "--help extension block" "$OUT" "bmk extensions (general):"
assert_contains "--help tests" "$OUT" "Compiled-in tests:
  fileio - File I/O test
  cpu - CPU performance test"
assert_contains "--help footer" "$OUT" "See 'bmk <testname> help' for a list of options for each test."
# every command of the table (commands/sb_commands.c) has its line
for c in kit series capacity report runs compare cluster sandbox pgbench tpcc tpch chbench dbl dml_cost; do
  assert_match "--help lists the command $c" "$OUT" '^  bmk '"$c"' [^ ].* \(docs/[a-z-]+\.md\)$'
done
# the bundled workloads run by name (Makefile.am's LUA_TESTS), each of
# which is then found by that name (its `help` prints its options, or,
# as sysbench's bulk_insert, says it has none)
WL=$(printf '%s\n' "$OUT" | sed -n '/^bmk extensions (bundled workloads):$/,/^$/s/^  \([a-z_]*\)$/\1/p')
assert_eq "--help lists the bundled workloads" \
  "oltp_read_write oltp_read_only oltp_write_only oltp_point_select oltp_update_index oltp_update_non_index oltp_delete oltp_insert bulk_insert select_random_points select_random_ranges tpcc tpch chbench dbl dml_cost" \
  "$(echo $WL)"
bad=""
for w in $WL; do
  "$BMK" "$w" help 2>&1 | grep -qE "^$w options:|^'$w' test does not implement the 'help' command" ||
    bad="$bad $w"
done
assert_eq "every listed workload is found by its name" "" "$bad"
run_bmk cpu --help
assert_eq "--help with a test exits 0" 0 "$RC"
# byte for byte (sysbench 1.1's help plus the bmk extension blocks)
"$BMK" --help > help.out
check "--help byte-identical to the golden text" cmp -s help.out "$HERE/fixtures/golden/help.txt"
OUT=$("$BMK" --help --verbosity=0)
assert_contains "--help ignores --verbosity" "$OUT" "Compiled-in tests:"

# --- argument errors -----------------------------------------------------------
run_bmk_split foo bar baz
assert_eq "third argument exit 1" 1 "$RC"
assert_eq "third argument message" "Unrecognized command line argument: baz" "$ERR"
run_bmk_split nonexistent_benchmark run
assert_eq "unknown benchmark exit 1" 1 "$RC"
assert_contains "unknown benchmark message" "$OUT" "FATAL: Cannot find benchmark 'nonexistent_benchmark': no such built-in test, file or module"
run_bmk_split run
assert_contains "bare run names benchmark 'run'" "$OUT" "Cannot find benchmark 'run'"
run_bmk_split cpu
assert_eq "built-in without command exit 1" 1 "$RC"
assert_eq "built-in without command message" "The 'cpu' test requires a command argument. See 'bmk cpu help'" "$ERR"
run_bmk_split --threads=0 cpu run
assert_eq "--threads=0 exit 1" 1 "$RC"
assert_contains "--threads=0 message" "$OUT" "FATAL: Invalid value for --threads: 0."
# ports and the database timeouts are judged with the other options, before
# the header and any driver: one FATAL line naming the option, exit 1 (not
# a connect failure about a socket among the thread-init failures)
for bad in "--mysql-port=99999|--mysql-port: '99999' (a TCP port from 1 to 65535)" \
           "--mysql-port=0|--mysql-port: '0' (a TCP port from 1 to 65535)" \
           "--mysql-port=3306,x|--mysql-port: 'x' (a TCP port from 1 to 65535, or a comma list of them)" \
           "--pgsql-port=65536|--pgsql-port: '65536' (a TCP port from 1 to 65535)" \
           "--pgsql-port=-1|--pgsql-port: '-1' (a TCP port from 1 to 65535)" \
           "--db-query-timeout=-1|--db-query-timeout: -1 (whole seconds from 0 to 86400; 0 = no limit)" \
           "--db-connect-timeout=-1|--db-connect-timeout: -1 (whole seconds from 0 to 86400; 0 = no limit)" \
           "--db-connect-timeout=86401|--db-connect-timeout: 86401 (whole seconds from 0 to 86400; 0 = no limit)"; do
  run_bmk oltp_point_select "${bad%%|*}" --mysql-host=127.0.0.1 --pgsql-host=127.0.0.1 --time=1 run
  assert_eq "${bad%%|*}: refused up front, exit 1" "1:FATAL: Invalid value for ${bad#*|}" "$RC:$OUT"
done
run_bmk oltp_point_select --db-driver=pgsql --pgsql-port=65535,1 --db-query-timeout=86400 --db-connect-timeout=0 --pgsql-host=127.0.0.1 --pgsql-user=nobody --time=1 run
assert_not_contains "the limits themselves are accepted" "$OUT" "Invalid value"

cat > s.lua <<'LUA'
sysbench.cmdline.options = {
  count = {"a number", 5},
  flag = {"a flag", false},
  name = {"a string", "abc"},
  items = {"a list", {"x", "y"}},
  nothing = {"no default"},
  typed = {"typed int", 3, sysbench.cmdline.ARG_INT},
  nilbool = {"bool without default", nil, sysbench.cmdline.ARG_BOOL},
}
assert(sysbench.opt == nil, "sysbench.opt must be nil at top level")
function event() end
LUA
run_bmk_split s.lua --bogus-opt=3 run
assert_eq "unknown option exit 1" 1 "$RC"
assert_eq "unknown option message" "invalid option: --bogus-opt=3" "$ERR"
run_bmk_split s.lua --flag=5 run
assert_eq "bad BOOL exit 1" 1 "$RC"
assert_eq "bad BOOL message" "invalid option: --flag=5" "$ERR"
run_bmk_split s.lua --typed=abc run
assert_eq "bad INT exit 1" 1 "$RC"
assert_eq "bad INT message" "Invalid value for the 'typed' option: 'abc'" "$ERR"
run_bmk_split s.lua prepare
assert_eq "missing prepare exit 1" 1 "$RC"
assert_eq "missing prepare message" "'s.lua' test does not implement the 'prepare' command." "$ERR"
run_bmk_split s.lua frobnicate
assert_eq "unknown command message" "Unknown command: frobnicate" "$ERR"

# help fallback: sorted options, aligned, defaults
run_bmk s.lua help
assert_contains "script help layout" "$OUT" "s.lua options:
  --count=N          a number [5]
  --flag[=on|off]    a flag [off]
  --items=[LIST,...] a list [x,y]
  --name=STRING      a string [abc]
  --nilbool[=on|off] bool without default
  --nothing=STRING   no default
  --typed=N          typed int [3]"

# option values as Lua sees them
cat > v.lua <<'LUA'
sysbench.cmdline.options = {
  count = {"a number", 5}, flag = {"a flag", false}, items = {"a list", {"x"}},
  nilbool = {"b", nil, sysbench.cmdline.ARG_BOOL}, table_size = {"t", 10},
}
function prepare()
  local o = sysbench.opt
  print(string.format("count=%s flag=%s items=%s nilbool=%s table_size=%s threads=%s tid=%s",
    tostring(o.count), tostring(o.flag), table.concat(o.items, "+"),
    tostring(o.nilbool), tostring(o.table_size), tostring(o.threads), tostring(sysbench.tid)))
end
LUA
run_bmk v.lua --count=7 --flag --items=a,b,,c --table-size=3 --table_size=4 prepare
assert_contains "option types, dash/underscore, last wins" "$OUT" "count=7 flag=true items=a+b+c nilbool=true table_size=4 threads=1 tid=0"
run_bmk v.lua --flag=OFF prepare
assert_contains "BOOL case-insensitive" "$OUT" "flag=false"
printf 'count = 11 # comment\nthreads=3\nflag=on\nunknown_opt=1\n' > conf.txt
run_bmk v.lua --config-file=conf.txt --count=12 prepare
assert_contains "config file sets general and script options; cmdline wins" "$OUT" "count=12 flag=true items=x nilbool=true table_size=10 threads=3"
assert_contains "config unknown option warns" "$OUT" "WARNING: unknown option 'unknown_opt' in config file conf.txt line 4"

# deprecated aliases and --test
run_bmk v.lua --num-threads=4 prepare
assert_contains "--num-threads copied" "$OUT" "threads=4"
assert_contains "--num-threads warning" "$OUT" "WARNING: --num-threads is deprecated, use --threads instead"
run_bmk_split --test=v.lua prepare
assert_contains "--test= works" "$OUT" "count=5"
assert_eq "--test warning on stderr" "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options." "$ERR"

# resolution: module on LUA_PATH, stdin
mkdir -p mods && cp v.lua mods/mymod.lua
OUT=$(cd / && LUA_PATH="$WORK/mods/?.lua;;" "$BMK" mymod prepare 2>&1)
assert_contains "module via LUA_PATH" "$OUT" "count=5"
OUT=$(echo 'print("from stdin " .. sysbench.cmdline.argv[0])' | "$BMK" - 2>&1)
assert_contains "script from stdin with -" "$OUT" "from stdin"
OUT=$(echo 'print("stdin no name")' | "$BMK" 2>&1)
assert_contains "script from stdin without a name" "$OUT" "stdin no name"
OUT=$(echo 'print("ignored cmd")' | "$BMK" --whatever=1 2>&1)
assert_contains "stdin without command ignores unknown options" "$OUT" "ignored cmd"
printf 'print("chunk ran")\n' > nocmd.lua
run_bmk nocmd.lua
assert_eq "script without command exits 0" 0 "$RC"
assert_contains "script without command runs the chunk" "$OUT" "chunk ran"

# custom commands, parallel commands
cat > c.lua <<'LUA'
function cmd_one() print("one tid=" .. sysbench.tid) end
function cmd_par() print("par tid=" .. sysbench.tid) end
function cmd_fail() return false end
function my_prepare() print("overridden prepare") end
sysbench.cmdline.commands = {
  one = {cmd_one}, par = {cmd_par, sysbench.cmdline.PARALLEL_COMMAND},
  fail = {cmd_fail}, prepare = {my_prepare}, bad = "not a table", bad2 = {"nofunc"},
}
function event() end
LUA
run_bmk c.lua one
assert_contains "custom command tid 0" "$OUT" "one tid=0"
run_bmk c.lua --threads=3 par
assert_eq "parallel command: 3 tids" "par tid=0 par tid=1 par tid=2" "$(echo "$OUT" | grep '^par tid' | sort | tr '\n' ' ' | sed 's/ $//')"
assert_contains "parallel command prints init line" "$OUT" "Initializing worker threads..."
run_bmk c.lua fail
assert_eq "command returning false exits 1" 1 "$RC"
run_bmk c.lua prepare
assert_contains "command overrides built-in prepare" "$OUT" "overridden prepare"
run_bmk_split c.lua bad
assert_eq "malformed command entry ignored" "Unknown command: bad" "$ERR"

# --- lifecycle order and event() return values ------------------------------------
cat > life.lua <<'LUA'
local ffi = require("ffi")
function init() print("init") end
function thread_init(tid) print("thread_init " .. tid) end
function thread_done(tid) print("thread_done " .. tid) end
function done() print("done") end
local n = 0
function event(tid)
  n = n + 1
  if sysbench.opt.stop_at > 0 and n == sysbench.opt.stop_at then return sysbench.opt.stop_value == "zero" and 0 or true end
  if sysbench.opt.stop_value == "false" and n > 1000000 then return true end
  return sysbench.opt.stop_value == "false" and false or nil
end
sysbench.cmdline.options = { stop_at = {"s", 0}, stop_value = {"v", "true"} }
LUA
run_bmk life.lua --events=50 --threads=2 run
assert_eq "lifecycle order" "init thread_init thread_done done" "$(echo "$OUT" | grep -E '^(init|thread_init|thread_done|done)' | sed 's/ [0-9]*$//' | uniq | tr '\n' ' ' | sed 's/ $//')"
assert_contains "exact --events count" "$OUT" "    total number of events:              50"
run_bmk life.lua --events=100 --stop-at=10 run
assert_contains "event() returning true stops without counting" "$OUT" "    total number of events:              9"
run_bmk life.lua --events=100 --stop-at=10 --stop-value=zero run
assert_contains "event() returning 0 stops too" "$OUT" "    total number of events:              9"
run_bmk life.lua --events=30 --stop-value=false run
assert_contains "event() returning false continues" "$OUT" "    total number of events:              30"

# --events alone is not capped at 10 s; --time + --events stop at the first
cat > slow.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(100000) end
LUA
start=$(date +%s)
run_bmk slow.lua --events=3 run
assert_contains "--events with slow events" "$OUT" "total number of events:              3"
run_bmk slow.lua --events=1000 --time=1 run
t=$(report_value "time elapsed:" "$OUT")
check "--time stops before --events" awk -v t="$t" 'BEGIN{exit !(t >= 0.9 && t < 1.5)}'

# thread_run override and FFI
cat > tr.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[
struct timeval { long tv_sec; long tv_usec; };
int gettimeofday(struct timeval *tv, void *tz);
int usleep(unsigned int);
int usleep(unsigned int);
]]
function event() end
function thread_run(tid)
  for i = 1, 5 do
    ffi.C.sb_event_start(tid)
    ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_READ)
    ffi.C.sb_event_stop(tid)
  end
end
LUA
run_bmk tr.lua --threads=2 run
assert_eq "thread_run override exit 0" 0 "$RC"
assert_contains "thread_run override counts events" "$OUT" "total number of events:              10"

# errors in scripts
printf 'function event(\n' > syntax.lua
run_bmk syntax.lua run
assert_eq "syntax error exit 1" 1 "$RC"
assert_match "syntax error message names the file" "$OUT" "^FATAL: syntax.lua:[0-9]+:"
printf 'function thread_init() end\n' > noevent.lua
run_bmk noevent.lua run
assert_eq "script without event() exit 1" 1 "$RC"
assert_contains "script without event() message" "$OUT" "FATAL: cannot find the event() function in noevent.lua"
printf 'function thread_init() error("boom") end\nfunction event() end\n' > tinit.lua
run_bmk tinit.lua run
assert_eq "thread_init failure exit 1" 1 "$RC"
assert_contains "thread_init failure message" "$OUT" "FATAL: Threads initialization failed!"
printf 'local n=0\nfunction event() n=n+1 if n==20 then error("kaboom") end end\n' > evfail.lua
run_bmk evfail.lua --events=1000 run
assert_eq "event error exit 1" 1 "$RC"
assert_contains "event error message" "$OUT" "kaboom"
assert_match "event error keeps the report" "$OUT" "^Run interrupted: fatal error in thread 0; the report covers [0-9.]+s of measured time\.$"
assert_contains "event error report printed" "$OUT" "total number of events:              19"

# signals keep the report
cat > sleepy.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(10000) end
LUA
"$BMK" sleepy.lua --time=30 --threads=2 run > sig.out 2>&1 &
pid=$!
for _ in $(seq 3000); do grep -q '^Threads started!' sig.out && break; sleep 0.1; done
sleep 2
kill -INT $pid
wait $pid
rc=$?
OUT=$(cat sig.out)
assert_eq "SIGINT exit 130" 130 "$rc"
assert_contains "SIGINT message" "$OUT" "FATAL: interrupted by SIGINT"
assert_match "SIGINT marker" "$OUT" "^Run interrupted: SIGINT; the report covers [0-9.]+s of measured time\.$"
t=$(report_value "time elapsed:" "$OUT")
check "SIGINT report covers the 2 s before the interrupt, not the 30 asked ($t)" awk -v t="$t" 'BEGIN{exit !(t >= 1.9 && t < 30)}'
"$BMK" sleepy.lua --time=30 run > sig.out 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
assert_eq "SIGTERM exit 143" 143 "$?"

# a signal before the run (here while the script loads) gives a FATAL line
# and the shell's exit code, not a silent death
cat > slowload.lua <<'LUA'
ffi.cdef "int usleep(unsigned int);"
ffi.C.usleep(20000000)
function event() end
LUA
"$BMK" slowload.lua run > load.out 2>&1 &
pid=$!
for _ in $(seq 3000); do grep -q '^bmk 1' load.out && break; sleep 0.05; done
kill -TERM $pid
wait $pid
assert_eq "SIGTERM while loading: exit 143 and a FATAL line" "143:FATAL: interrupted by SIGTERM" "$?:$(tail -1 load.out)"

# forced shutdown
cat > stuck.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
local n = 0
function event() n = n + 1 if n == 3 then ffi.C.usleep(20000000) end ffi.C.usleep(100000) end
LUA
run_bmk stuck.lua --time=1 --forced-shutdown=1 run
assert_eq "forced shutdown exit 2" 2 "$RC"
assert_contains "forced shutdown message" "$OUT" "FATAL: The --max-time limit has expired, forcing shutdown..."
assert_contains "forced shutdown unfinished count" "$OUT" "Number of unfinished transactions on forced shutdown: 1"
assert_contains "forced shutdown report" "$OUT" "Throughput:"
assert_contains "run-mode block shows forced shutdown" "$OUT" "Forcing shutdown in 2 seconds"

# thread-init timeout
cat > slowinit.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function thread_init() ffi.C.usleep(3000000) end
function event() end
LUA
run_bmk slowinit.lua --thread-init-timeout=1 --events=1 run
assert_eq "thread-init timeout exit 2" 2 "$RC"
assert_contains "thread-init timeout message" "$OUT" "FATAL: Worker threads failed to initialize within 1 seconds!"

# warmup
run_bmk sleepy.lua --time=1 --warmup-time=1 run
assert_contains "warmup message" "$OUT" "Warming up for 1 seconds..."
t=$(report_value "time elapsed:" "$OUT")
# (with the warmup second counted, time elapsed would be 2 s or more)
check "warmup excluded from time elapsed ($t)" awk -v t="$t" 'BEGIN{exit !(t >= 0.95 && t < 1.95)}'
ev=$(report_value "total number of events:" "$OUT")
# one thread, each event sleeps 10 ms: at most t / 10 ms events (+1 at the edge)
check "warmup events not counted ($ev events in $t s)" awk -v e="$ev" -v t="$t" 'BEGIN{exit !(e <= t * 100 + 1)}'

# interval lines on the grid, generic reporter
# (the tick at the run's last second races with its end: it may or may not
# be printed; every earlier one is, on the grid, in order)
run_bmk sleepy.lua --time=3 --report-interval=1 run
grid=$(echo "$OUT" | sed -nE 's/^\[ ([0-9]+)s \] thds: 1 eps: [0-9]+\.[0-9]{2} lat \(ms,95%\): [0-9]+\.[0-9]{2}$/\1/p' | paste -sd' ')
check "interval lines at 1s, 2s (and 3s) in order ('$grid')" test "$grid" = "1 2" -o "$grid" = "1 2 3"
assert_eq "no other interval line" "$(echo "$OUT" | grep -c '^\[ ')" "$(echo "$OUT" | grep -cE '^\[ [0-9]+s \] thds: 1 eps')"
run_bmk sleepy.lua --time=2 --report-interval=0.5 run
n=$(echo "$OUT" | grep -cE '^\[ [0-9]+s \] thds')
check "sub-second intervals: 3 or 4 lines in 2 s ($n)" test "$n" -ge 3 -a "$n" -le 4
run_bmk sleepy.lua --time=2 --rate=20 --report-interval=1 run
assert_match "rate queue line (generic)" "$OUT" '^\[ 1s \] queue length: [0-9]+ concurrency: [0-9]+ lag \(ms\): [0-9.]+$'
assert_contains "rate mode block" "$OUT" "Target transaction rate: 20/sec"

# checkpoints
run_bmk sleepy.lua --time=3 --report-checkpoints=1,2 run
assert_eq "two checkpoint reports" 2 "$(echo "$OUT" | grep -cE '^\[ [12]s \] Checkpoint report:$')"
assert_eq "three Throughput blocks" 3 "$(echo "$OUT" | grep -c '^Throughput:$')"

# histogram and percentiles
run_bmk sleepy.lua --events=20 --histogram run
assert_contains "histogram header" "$OUT" "Latency histogram (values are in milliseconds)
       value  ------------- distribution ------------- count"
assert_match "histogram row" "$OUT" '^ +[0-9]+\.[0-9]{3} \|\*+ +[0-9]+$'
run_bmk sleepy.lua --events=20 --percentiles=50,99.9,99 run
assert_contains "percentiles lines" "$OUT" "         95th percentile:"
assert_match "99.9 line 53 wide" "$OUT" '^       99\.9th percentile: {16,}[0-9]+\.[0-9]{2}$'
run_bmk sleepy.lua --events=5 --percentile=0 run
assert_contains "percentile disabled line" "$OUT" "         percentile stats:               disabled"
run_bmk sleepy.lua --events=5 --percentile=0 --histogram run
assert_contains "histogram needs a percentile" "$OUT" "FATAL: --histogram cannot be used with --percentile=0"

# Lua reporters
cat > rep.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(10000) end
sysbench.hooks.report_intermediate = sysbench.report_csv
LUA
run_bmk rep.lua --time=2 --report-interval=1 run
assert_match "report_csv line" "$OUT" '^1,1,[0-9]+\.[0-9]{2},0\.00,0\.00,0\.00,0\.00,[0-9]+\.[0-9]{2},0\.00,0\.00$'
sed -i 's/report_csv/report_json/' rep.lua
printf 'sysbench.hooks.report_cumulative = sysbench.report_json\n' >> rep.lua
run_bmk rep.lua --time=2 --report-interval=1 run
assert_eq "report_json: two arrays" 2 "$(echo "$OUT" | grep -c '^\[$')"
assert_contains "report_json final threads 0" "$OUT" '"threads": 0,'
echo "$OUT" | awk '/^\[$/{f=1} f{print} /^\]$/{f=0}' > json.txt
check "report_json arrays are valid JSON" python3 -c '
import json,sys
text=open("json.txt").read()
parts=text.split("\n]\n")
n=0
for p in parts:
    if p.strip():
        json.loads(p+"\n]"); n+=1
sys.exit(0 if n==2 else 1)'

# sysbench.figure: a figure of the run, set at the end of the window, in
# summary.figures of --results (per_minute: count / window minutes); a bad
# name is an error of the script
cat > fig.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(1000) end
function sysbench.hooks.measure_end()
  sysbench.figure("orders", 90, { per_minute = true, help = "orders a minute" })
  sysbench.figure("answer", 42)
  sysbench.figure("commits", 7, { scope = "server" })
  local ok, err = pcall(sysbench.figure, "Bad-Name", 1)
  print("bad name: " .. tostring(ok) .. " " .. tostring(err))
  ok, err = pcall(sysbench.figure, "x", 1, { scope = "db" })
  print("bad scope: " .. tostring(ok) .. " " .. tostring(err))
end
LUA
run_bmk fig.lua --time=1 --events=0 --results=fig.json run
assert_eq "sysbench.figure: exit 0" 0 "$RC"
assert_contains "sysbench.figure: a bad name raises an error" "$OUT" "bad name: false"
assert_eq "sysbench.figure: summary.figures, per minute of the window" "42 90 orders a minute" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["summary"]["figures"]; print("%g %g %s" % (f["answer"]["value"], round(f["orders"]["value"] * d["summary"]["time_s"] / 60, 6), f["orders"]["help"]))' fig.json)"
assert_contains "sysbench.figure: a bad scope raises an error" "$OUT" \
  'bad scope: false sysbench.figure: opts.scope must be "client" or "server", got db'
assert_eq "sysbench.figure: scope client by default, server when said" "client client server" \
  "$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["summary"]["figures"]; print(f["orders"]["scope"], f["answer"]["scope"], f["commits"]["scope"])' fig.json)"
check "sysbench.figure: the document validates" json_ok fig.json

# report_default keeps sysbench's missing colon after err/s
cat > rdef.lua <<'LUA'
local ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int);]]
function event() ffi.C.usleep(10000) end
sysbench.hooks.report_intermediate = sysbench.report_default
LUA
run_bmk rdef.lua --time=2 --report-interval=1 run
assert_match "report_default line" "$OUT" '^\[ 1s \] thds: 1 tps: [0-9]+\.[0-9]{2} qps: 0\.00 \(r/w/o: 0\.00/0\.00/0\.00\) lat \(ms,95%\): [0-9]+\.[0-9]{2} err/s 0\.00 reconn/s: 0\.00$'

# --luajit-cmd, --debug
printf 'function prepare() print("jit=" .. tostring((jit.status()))) end\n' > jit.lua
run_bmk jit.lua --luajit-cmd=off prepare
assert_contains "--luajit-cmd=off turns the JIT off" "$OUT" "jit=false"
run_bmk jit.lua --luajit-cmd=bogus prepare
assert_contains "bad --luajit-cmd" "$OUT" "FATAL: unknown luaJIT command or jit.* modules not installed"
run_bmk sleepy.lua --events=5 --threads=2 --debug run
assert_contains "--debug announces itself" "$OUT" "Debug mode enabled."
assert_contains "--debug per-thread statistics" "$OUT" "DEBUG: Verbose per-thread statistics:"
assert_match "--debug thread line" "$OUT" '^    thread #  1: min: [0-9.]+s  avg: [0-9.]+s  max: [0-9.]+s  events: [0-9]+$'

# rand API
cat > rnd.lua <<'LUA'
function prepare()
  local seen = {}
  local n = 0
  for i = 1, 100000 do
    local u = sysbench.rand.unique()
    if not seen[u] then seen[u] = true; n = n + 1 end
  end
  print("unique=" .. n)
  local s = sysbench.rand.string("###-@@@")
  print("string=" .. (s:match("^%d%d%d%-%l%l%l$") and "ok" or s))
  local v = sysbench.rand.varstring(5, 10)
  print("varstring=" .. ((#v >= 5 and #v <= 10) and "ok" or v))
  local ok = true
  for _, f in ipairs({"uniform", "default", "gaussian", "special", "pareto", "zipfian"}) do
    for i = 1, 2000 do
      local x = sysbench.rand[f](10, 20)
      if x < 10 or x > 20 then ok = false end
    end
  end
  print("ranges=" .. tostring(ok))
  print("u64=" .. tostring(type(sysbench.rand.uniform_uint64()) == "cdata"))
  print("seq=" .. sysbench.rand.uniform(1, 1000000) .. "," .. sysbench.rand.uniform(1, 1000000))
end
LUA
run_bmk rnd.lua prepare
assert_contains "unique() gives 100000 distinct" "$OUT" "unique=100000"
assert_contains "rand.string pattern" "$OUT" "string=ok"
assert_contains "rand.varstring length" "$OUT" "varstring=ok"
assert_contains "all distributions in range" "$OUT" "ranges=true"
assert_contains "uniform_uint64 is cdata" "$OUT" "u64=true"
a=$("$BMK" rnd.lua --rand-seed=42 prepare | grep '^seq=')
b=$("$BMK" rnd.lua --rand-seed=42 prepare | grep '^seq=')
c=$("$BMK" rnd.lua --rand-seed=43 prepare | grep '^seq=')
assert_eq "seeded streams reproduce" "$a" "$b"
check "different seeds differ" test "$a" != "$c"
run_bmk rnd.lua --rand-type=bogus prepare
assert_contains "bad --rand-type" "$OUT" "FATAL: Invalid random numbers distribution: bogus."

# sysbench.histogram
cat > hist.lua <<'LUA'
function prepare()
  local h = sysbench.histogram.new(100, 1, 1000)
  h:print()
  print("empty printed nothing")
  for i = 1, 10 do h:update(5) end
  h:update(500)
  h:print()
  h:print()
end
LUA
run_bmk hist.lua prepare
assert_eq "sysbench.histogram prints twice" 2 "$(echo "$OUT" | grep -c '|\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\* 10$')"

# sysbench.sleep (bmk): the engine's one wait
cat > sleep.lua <<'LUA'
function event()
  local ok = sysbench.sleep(30)     -- far beyond --time: woken by the stop
  print("slept=" .. tostring(ok))
end
function prepare()
  print("short=" .. tostring(sysbench.sleep(0.01)))
  print("zero=" .. tostring(sysbench.sleep(0)))
  print("neg=" .. tostring((pcall(sysbench.sleep, -1))))
  print("inf=" .. tostring((pcall(sysbench.sleep, math.huge))))
  local ok, err = pcall(sysbench.sleep, "x")
  print("str=" .. tostring(err))
end
LUA
run_bmk sleep.lua prepare
assert_contains "sysbench.sleep completes outside a run" "$OUT" "short=true"
assert_contains "sysbench.sleep(0)" "$OUT" "zero=true"
assert_contains "sysbench.sleep rejects a negative time" "$OUT" "neg=false"
assert_contains "sysbench.sleep rejects an infinite time" "$OUT" "inf=false"
assert_contains "sysbench.sleep rejects a string" "$OUT" "sysbench.sleep: seconds must be a finite number >= 0, got x"
run_bmk sleep.lua --time=1 --threads=3 run
assert_eq "a long sysbench.sleep ends with the run" 0 "$RC"
assert_eq "each thread was woken by the stop" 3 "$(echo "$OUT" | grep -c '^slept=false$')"
assert_eq "the woken events count" 3 "$(report_value "total number of events:" "$OUT")"

# A script given as a pipe (read once) runs in every thread and worker,
# and a shebang line keeps error line numbers.
run_bmk --threads=3 --events=30 <(echo 'function event() end') run
assert_eq "script from a pipe: exit 0" 0 "$RC"
assert_eq "script from a pipe: every event" 30 "$(report_value "total number of events:" "$OUT")"
run_bmk --threads=64 --workers=2 --events=300 <(echo 'function event() end') run
assert_eq "script from a pipe in event mode: every event" 300 "$(report_value "total number of events:" "$OUT")"
# a script declaring a struct with ffi.cdef at its top level: in event
# mode the top level runs once per VU in one Lua state
printf 'ffi.cdef[[struct cli_pt { int x; };]]\nlocal p = ffi.new("struct cli_pt")\nfunction event() p.x = p.x + 1 end\n' > "$WORK/cdef.lua"
run_bmk "$WORK/cdef.lua" --threads=4 --workers=2 --events=40 run
assert_eq "ffi.cdef of a struct in event mode: every event" 40 "$(report_value "total number of events:" "$OUT")"
# a precompiled (bytecode) script, in thread and event mode
echo 'local f = io.open(arg and arg[1] or os.getenv("BC"), "wb"); f:write(string.dump(loadstring("function event() end"))); f:close()' |
  BC="$WORK/t.bc" "$BMK" >/dev/null 2>&1
run_bmk "$WORK/t.bc" --threads=4 --events=40 run
assert_eq "bytecode script: every event" 40 "$(report_value "total number of events:" "$OUT")"
run_bmk "$WORK/t.bc" --threads=4 --workers=2 --events=40 run
assert_eq "bytecode script in event mode: every event" 40 "$(report_value "total number of events:" "$OUT")"
printf '#!/usr/bin/env sysbench\nfunction event()\n  error("boom")\nend\n' > "$WORK/shebang.lua"
run_bmk --events=1 "$WORK/shebang.lua" run
assert_contains "shebang script: error names file and line" "$OUT" "$WORK/shebang.lua:3: boom"

finish
