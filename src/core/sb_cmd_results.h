/*
 * The results of a command that is not the engine's run (`bmk tpch run`:
 * a Lua command whose threads time their own steps). The command sets
 * its figures (core/sb_figure.h) and hands one JSON section of its own to
 * sb_cmd_results; while it runs, its live numbers (core/sb_cmd_gauge.h)
 * are served between sb_cmd_live_start and sb_cmd_live_end. The outputs
 * that turn them into --results, --save and --metrics-listen live above
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

/* What the installed live output does: start serving `name`'s numbers
   (0, or -1 after a FATAL message), and end (after the results). */
typedef int (*sb_cmd_live_start_fn)(const char *name);
typedef void (*sb_cmd_live_end_fn)(void);

/* Installs them (NULL: none). Main thread, before any command runs. */
void sb_cmd_live_install(sb_cmd_live_start_fn start, sb_cmd_live_end_fn end);

/* Starts the live output for command `name` ("tpch": the metrics'
   prefix) when one is installed and asked for (--metrics-listen).
   Returns 0, or -1 after a FATAL message (the command should stop, exit
   1). The command's first thread, once. Exported for LuaJIT FFI. */
int sb_cmd_live_start(const char *name);

/* Ends it (waits, at most --metrics-linger, for a last scrape). The
   thread that started it. Exported for LuaJIT FFI. */
void sb_cmd_live_end(void);

#endif
