/*
 * Lua states for scripts, as in sysbench 1.1's src/sb_lua.c.
 *
 * The script is loaded once into the global state (main thread), which
 * registers its options and commands. Every worker, parallel command thread
 * and reporter builds its own state by re-executing the same chunk. A state
 * must only be used by one thread at a time.
 *
 * Implemented in sb_lua.c (script loading, state creation), sb_lua_options.c
 * (script options, sysbench.opt), sb_lua_call.c (calls into the script),
 * sb_lua_report.c (report and measure hooks) and sb_lua_vu.c (event mode).
 */
#ifndef SB_LUA_H
#define SB_LUA_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include <lua.h>

#include "results/sb_report.h"

/* An embedded internal module (generated into lua_embed.c). */
typedef struct {
  const char *name;
  const char *src;
  size_t len;
} sb_lua_module_t;

extern const sb_lua_module_t sb_lua_embedded[];

/* package.preload loader for the embedded modules: loads and runs the
   module named by its first argument and returns its value; raises a Lua
   error for an unknown name or a load error. Lua C function. */
int sb_lua_load_embedded(lua_State *L);

/* Command-line facts the states expose as sysbench.cmdline.*. The argv
   array is borrowed and must outlive all states. */
void sb_lua_set_cmdline(int argc, char **argv, const char *command);

/*
 * Resolves `testname` (a file path, a module on the search path, or NULL /
 * "-" for stdin), creates the global state and runs the chunk in it, then
 * registers the script's options (sysbench.cmdline.options). Returns 0,
 * 1 when the test was not found (nothing printed), or -1 on error (message
 * printed).
 */
int sb_lua_load(const char *testname);

/* True if the script came from stdin. */
bool sb_lua_from_stdin(void);

/* The test's name in messages, as sysbench gives it: the basename of the
   name or path given, ".lua" kept ("oltp_read_write", "x.lua"), or
   "<stdin>". */
const char *sb_lua_test_name(void);

/* The same without a ".lua" suffix ("stdin" for stdin): the workload's
   name in result files. */
const char *sb_lua_workload_name(void);

/* The global state (NULL before sb_lua_load). */
lua_State *sb_lua_global(void);

/* Exports sysbench.opt into `L` (all registered options). */
void sb_lua_export_options(lua_State *L);

/* Creates a new state for thread `tid`: runs the chunk and exports
   sysbench.opt. NULL on failure (message printed). */
lua_State *sb_lua_new_state(int tid);

/* Closes a state (runs finalisers, e.g. the report_json closing bracket). */
void sb_lua_close_state(lua_State *L);

/* True if the global function `name` exists in `L`. */
bool sb_lua_has_function(lua_State *L, const char *name);

/*
 * Calls global function `name` in `L` with an optional integer argument
 * (tid >= 0) or none (tid < 0). Returns 0 on success; -1 if the call raised
 * an error (printed as "FATAL: `<name>' function failed: <msg>"); *ret_false
 * (may be NULL) is set when the function returned exactly false.
 */
int sb_lua_call(lua_State *L, const char *name, int tid, bool *ret_false);

/* Commands table helpers (global state). */
bool sb_lua_command_defined(const char *name);
bool sb_lua_command_parallel(const char *name);
/* Runs sysbench.cmdline.commands[name][1]() in `L`; same return as
   sb_lua_call. */
int sb_lua_call_command(lua_State *L, const char *name, bool *ret_false);

/* True if sysbench.hooks.<hook> is a function in `L`. */
bool sb_lua_hook_defined(lua_State *L, const char *hook);

/* Calls sysbench.hooks.<hook>(stat) with `st` as a Lua table (sysbench's stat;
   bmk adds stat.threads, stat.percentiles and stat.metrics, name -> sum of
   each workload metric over the report's time). Returns 0, or -1 on error
   (printed). Defined in sb_lua_report.c. */
int sb_lua_call_report_hook(lua_State *L, const char *hook,
                            const sb_stat_t *st, bool cumulative);

/* Calls sysbench.hooks.<hook>() without arguments in `L` when it is
   defined (bmk's measure_start / measure_end). Returns 0 (also when not
   defined), or -1 when it raised an error (printed as
   "FATAL: `<hook>' hook failed: ..."). */
int sb_lua_call_hook(lua_State *L, const char *hook);

/* The number sysbench.hooks.<hook>() returns in `L` (called without
   arguments, sysbench.opt exported first): bmk's async_sessions, the
   session count of --async-sessions=auto. 0 when the hook is not defined
   or returns no positive number; -1 when it raised an error (printed).
   Main thread. */
long sb_lua_hook_count(lua_State *L, const char *hook);

/* Prints "<test> options:" and the script's options (help fallback). Returns
   false when the script declares no options. */
bool sb_lua_print_test_options(void);

/* Applies --luajit-cmd to `L` (every state gets it before the script's
   chunk runs); 0 ok, -1 with the FATAL message. */
int sb_lua_apply_jit_cmd(lua_State *L);

/* A fresh state with bmk's sysbench.* API loaded (sysbench.tid = `tid`)
   but no script run in it. NULL on failure (printed). */
lua_State *sb_lua_base_state(int tid);

/* Reads `f` to its end into a malloc'd buffer (the caller frees it) and
   stores its length in bytes in *len. NULL on a read error or when out
   of memory (errno from the failing call). Thread-safe (no shared
   state); used for the script from stdin or a file and for modules in
   event mode. */
char *sb_lua_read_stream(FILE *f, size_t *len);

/* The script every state runs: its text (*buf, *len: the script file read
   once at load, the stdin contents, or a bundled workload embedded in the
   binary) and the chunk name to load it under (*chunkname: "@<path>",
   "=stdin" or "@<name>.lua"). *path is set only when the file could not
   be read (the caller then reports it). False before sb_lua_load. */
bool sb_lua_script_source(const char **path, const char **buf, size_t *len,
                          const char **chunkname);

/* Prints the error object on top of L's stack as a FATAL line: "`name'
   function failed: <msg>", or only the message when name is NULL (a
   failing chunk). An error table of sysbench.sql (an ignorable SQL error
   raised outside an event) is shown with its errno, SQLSTATE and
   message. Leaves the stack unchanged. */
void sb_lua_log_error(lua_State *L, const char *name);

/* ---- event mode (sb_lua_vu.c) ------------------------------------------
 * One Lua state per worker thread; each virtual user (VU) is a coroutine
 * of it with its own global environment (docs/design.md). All functions
 * are called by the worker's own thread. */

/* Creates an event-mode worker state: the sysbench.* API with bmk.vu's
   event-mode methods, the script compiled once (not run), --luajit-cmd
   applied and sysbench.opt exported. NULL on failure (printed). */
lua_State *sb_lua_worker_state(void);

/* Creates VU `tid`'s coroutine in worker state `L`: its environment, and
   a fresh closure of the script chunk with that environment, ready to be
   resumed with no arguments (running the chunk). Returns the coroutine
   and stores its registry reference in *ref; NULL on failure (printed). */
lua_State *sb_lua_vu_new(lua_State *L, int tid, int *ref);

/* After VU `tid`'s chunk ran: gives it its sysbench.opt. */
void sb_lua_vu_chunk_done(lua_State *L, int tid);

/* Pushes onto coroutine `co` the VU's global function `name`
   ("thread_init", "thread_run", "thread_done") and its tid, ready to be
   resumed with 1 argument; thread_run is bmk.vu's default event loop
   unless the script defines its own. Returns false (nothing pushed) when
   the VU has no such function. */
bool sb_lua_vu_push(lua_State *L, lua_State *co, const char *name, int tid);

/* Drops the coroutine's registry reference (its env and connections are
   then garbage). */
void sb_lua_vu_free(lua_State *L, int ref);

/* Closes the global state. */
void sb_lua_done(void);

#endif
