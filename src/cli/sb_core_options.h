/*
 * The core's own options (general, random numbers, log, report, bmk
 * extensions, deprecated 1.0.20 aliases) and their conversion into a run
 * configuration. Names, defaults and FATAL texts are sysbench 1.1's.
 */
#ifndef SB_CORE_OPTIONS_H
#define SB_CORE_OPTIONS_H

#include "engine/sb_engine.h"

/* Registers every core option. Returns 0, or -1 if a given value is
   invalid (message printed). */
int sb_core_register_options(void);

/* Applies the deprecated aliases (--num-threads, --max-requests,
   --max-time, --tx-rate), printing their warnings. */
void sb_core_apply_aliases(void);

/*
 * Validates the general options and fills `cfg`. Prints the sysbench FATAL
 * message (e.g. "FATAL: Invalid value for --threads: 0." and a blank line)
 * and returns -1 on a bad value.
 */
int sb_core_read_config(sb_run_config_t *cfg);

/* Resolves --threads, --workers and --async-sessions into cfg->threads
   (virtual users), cfg->workers and cfg->event_mode (sb_vuplan.h);
   `terminals` is --terminals-per-warehouse for --async-sessions=auto (0
   when the workload has none). Sets the "threads" option to the number of
   VUs when it differs. Returns 0, or -1 with a FATAL message. */
int sb_core_resolve_vus(sb_run_config_t *cfg, unsigned terminals);

/* Declares, before sb_core_read_config, that the test is a built-in one
   whose events are work of their own (cpu, memory, ...), not waits on a
   server: --workers=auto then keeps one thread per virtual user up to
   SB_PLAN_OWN_WORK_THREADS_MAX (sb_vuplan.h). Not thread-safe (main
   thread, option parsing). */
void sb_core_set_own_work(bool own_work);

/* True when --async-sessions=auto (resolved after the script loaded). */
bool sb_core_async_auto(void);

/* Initialises the random generators from the --rand-* options. Returns 0,
   or -1 with a FATAL message. */
int sb_core_init_rand(void);

#endif
