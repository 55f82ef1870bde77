/* bmk's additions on the pgbench persona's command line: the installer
   the entry point hands to the persona (commands/pgbench/pgb_additions.h;
   docs/pgbench.md "bmk's additions"). */
#ifndef SB_PGB_ADDITIONS_H
#define SB_PGB_ADDITIONS_H

#include "commands/pgbench/pgb_additions.h"

/*
 * Reads bmk's options the persona took out of its command line (a->opts)
 * with bmk's option table, values and messages, fills in a->cfg's
 * results_path, hdrlog_path, server_stats (on only when
 * --db-server-stats=on is given) and percentile, sets *a->statements
 * (--statement-percentiles=on: bmk's Statements block), names the run
 * "pgbench" with the persona's command line in the --results manifest,
 * and registers the outputs and probes bmk's run gets
 * (cli/sb_outputs.h), with a->report in the text report's place.
 * Returns 0, or 1 after a message (a bad value, a port in use). Main
 * thread, before the run.
 */
int sb_cli_pgbench_additions(const pgb_additions_t *a);

#endif
