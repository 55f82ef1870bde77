/*
 * The parts of pgbench scripts under bmk's command line (pgb_bmk.h):
 * pgb_bmk.c (options, scripts, prepare, cleanup, the run) and
 * pgb_bmk_stmt.c (each script command's latencies over the measured
 * window: the report's block and --results' "statements").
 */
#ifndef PGB_BMK_PRIV_H
#define PGB_BMK_PRIV_H

/* Registers what samples the commands' counters at the measured
   window's edges (an output's start; a probe's end, the workers parked
   at the end line) and prints the "Statements" block after the report
   (the probe's block) and sets --results' "statements". After the
   clients exist (pgb_run_init_clients). Returns 0, or 1 when memory is
   short or the registries are full (FATAL printed). Main thread. */
int pgb_bmk_stmt_register(void);

/* Frees the samples (after the run). Main thread. */
void pgb_bmk_stmt_free(void);

#endif
