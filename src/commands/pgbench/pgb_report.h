/*
 * The pgbench persona's final report, in pgbench 15's layout
 * (pgb_report.c), and the sums it is made of. See pgb.h.
 */
#ifndef PGB_REPORT_H
#define PGB_REPORT_H

#include "commands/pgbench/pgb_client.h"

/* Adds `b` to `a` (counts, latency sums, min and max). Thread-safe for
   distinct arguments. */
void pgb_stats_add(pgb_stats_t *a, const pgb_stats_t *b);

/* Adds the sums `y` to `x` (count, sum, sum of squares, min, max). The
   caller owns both (no locking). */
void pgb_sstats_add(pgb_sstats_t *x, const pgb_sstats_t *y);

/* Adds one latency `us` (microseconds) to `x`. The caller owns `x`. */
void pgb_sstats_add_value(pgb_sstats_t *x, double us);

/* The clients' counters summed into *out, and per script (nscripts
   entries) and per command (ncmds entries) when those are not NULL
   (zeroed by the caller). Each client is read under its lock: any
   thread, during or after the run (pgb_run.c). */
void pgb_sum_stats(pgb_stats_t *out, pgb_stats_t *per_script, pgb_cmdstat_t *per_cmd);

/* Adds each client's histogram of command k (bmk's face) to per_cmd[k]
   (ncmds entries, made by the caller) and, when per_cmd_stats is not
   NULL, its counters of command k to per_cmd_stats[k] (zeroed by the
   caller), both under the client's lock, where the client records them
   together: a histogram's total then equals the count taken with it,
   even while the clients run. Any thread. */
void pgb_sum_cmd_hist(sb_hdr_t **per_cmd, pgb_cmdstat_t *per_cmd_stats);

/*
 * Prints pgbench 15's final report to stdout: the run's parameters, the
 * transaction counts, latency, initial connection time and tps, and the
 * per-script (several scripts) and per-statement (-r) parts.
 * `total_us` is the benchmark's duration (from the clients' start to
 * their end) and `conn_us` the time the clients took to connect, both
 * in microseconds (with -C: the clients' connecting and disconnecting
 * time, summed). Main thread, after the run.
 */
void pgb_print_report(int64_t total_us, int64_t conn_us);

#endif
