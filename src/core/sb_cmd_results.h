/*
 * The results of a command that is not the engine's run (`bmk tpch run`:
 * a Lua command whose threads time their own steps). The command sets
 * its figures (core/sb_figure.h) and hands one JSON section of its own to
 * sb_cmd_results; its outputs are opened first (sb_cmd_open: --results
 * checked, the live numbers of core/sb_cmd_gauge.h served) and closed
 * last (sb_cmd_close). The outputs that turn them into --results, --save
 * and --metrics-listen live above
 * core, so the command line installs them at start (cli/sb_cmd_outputs.h)
 * and core only forwards the calls.
 */
#ifndef SB_CMD_RESULTS_H
#define SB_CMD_RESULTS_H

/* What the installed outputs do with a command's results: see
   sb_cmd_results. Returns 0, or -1 after an ERROR message. */
typedef int (*sb_cmd_results_fn)(const char *section, const char *json, double start_epoch_s,
                                 double time_s, unsigned threads, const char *interrupted,
                                 int exit_code);

/* Installs `fn` (NULL: none). Main thread, before any command runs. */
void sb_cmd_results_install(sb_cmd_results_fn fn);

/*
 * Hands a command's results to the installed outputs: `section` (a name,
 * e.g. "tpch") holding `json` (a JSON object's text), the start as
 * seconds since the epoch, the time taken in seconds, the threads,
 * `interrupted` (NULL or "": completed; else the reason) and the exit
 * code the command will return. Returns 0 (also when nothing is
 * installed or neither --results nor --save was asked for), or -1 when
 * an output failed (named in an ERROR line; the command should exit 1).
 * Any one thread, once per run. Exported for LuaJIT FFI.
 */
int sb_cmd_results(const char *section, const char *json, double start_epoch_s, double time_s,
                   unsigned threads, const char *interrupted, int exit_code);

/* What the installed outputs do when a command opens them (0, or -1
   after a FATAL message) and closes them (after its results). */
typedef int (*sb_cmd_open_fn)(const char *name);
typedef void (*sb_cmd_close_fn)(void);

/* Installs them (NULL: none). Main thread, before any command runs. */
void sb_cmd_outputs_install(sb_cmd_open_fn on_open, sb_cmd_close_fn on_close);

/* Opens the installed outputs for command `name` ("tpch": the metrics'
   prefix): checks that --results can be written and starts serving
   --metrics-listen, when given. Returns 0, or -1 after a FATAL message
   (the command should stop: exit 1). The command's first thread, once,
   before its work. Exported for LuaJIT FFI. */
int sb_cmd_open(const char *name);

/* Closes them (--metrics-listen: waits, at most --metrics-linger, for a
   last scrape). The thread that opened them, after sb_cmd_results.
   Exported for LuaJIT FFI. */
void sb_cmd_close(void);

#endif
