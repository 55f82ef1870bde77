/*
 * pgbench scripts as a bmk workload (docs/pgbench.md "Under bmk's own
 * command line"): `bmk [options] FILE.sql run` or `bmk [options]
 * pgbench_script --script=FILE[@W] --builtin=NAME[@W] run`. The scripts
 * are parsed and run by the persona's code (pgb_script.c, pgb_client.c,
 * pgb_run.c) on bmk's engine, with bmk's options, report and outputs;
 * each script command's latencies are kept in HDR histograms and shown
 * after the report and in --results ("statements").
 */
#ifndef PGB_BMK_H
#define PGB_BMK_H

#include <stdbool.h>

#include "core/sb_options.h"
#include "engine/sb_engine.h"

/* The test's name, "pgbench_script". */
#define PGB_BMK_NAME "pgbench_script"

/* True when `test` names the pgbench scripts' test: "pgbench_script",
   or a name ending in ".sql" (remembered: that file is the first
   script). main.c then runs it as it runs a built-in test (help,
   prepare, run, cleanup) with the functions below. Main thread. */
bool pgb_bmk_match(const char *test);

/* The test's options (--script, --builtin, --protocol, --define,
   --scale), registered when it is selected. */
extern const sb_option_t pgb_bmk_options[];

/* The engine's callbacks of a run (uses_db set). */
extern const sb_c_test_t pgb_bmk_test;

/* `run`'s setup after the options were parsed: the scripts (pgbench's
   message and exit 1 on a script that cannot be read or parsed, an
   unknown built-in, a bad weight), the clients and their seeds, the
   per-statement sampling. Returns 0, or 1 after a FATAL line. Main
   thread, before sb_engine_run. */
int pgb_bmk_init(sb_run_config_t *cfg);

/* After the run's final report: frees the clients. Main thread. */
void pgb_bmk_done(void);

/* `prepare`: pgbench -i's tables at --scale (PostgreSQL); `cleanup`:
   drops them. Return the exit code (1 after a message). Main thread. */
int pgb_bmk_prepare(const sb_run_config_t *cfg);
int pgb_bmk_cleanup(const sb_run_config_t *cfg);

#endif
