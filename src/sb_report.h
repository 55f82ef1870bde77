/*
 * Statistics snapshots and the sysbench report layouts
 * (sysbench-compat.md §6.3 interval lines, §6.4 final report).
 * Pure formatting: functions write to a FILE and keep no state, so they are
 * thread-safe and unit-testable.
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SB_MAX_PERCENTILES 32

/* One report's numbers. Times are seconds. */
typedef struct {
  unsigned threads;            /* configured --threads */
  unsigned threads_running;    /* workers still running (0 in the final) */
  double time_interval;        /* seconds covered by this report */
  double time_total;           /* seconds since start (or checkpoint) */
  unsigned percentile;         /* --percentile (0 = disabled) */
  double latency_pct;          /* latency at --percentile, seconds */
  uint64_t events, reads, writes, other, errors, reconnects;
  uint64_t queue_length, concurrency;     /* intermediate, rate mode */
  double latency_min, latency_max, latency_avg, latency_sum; /* cumulative */
  unsigned npct;               /* --percentiles extra lines */
  double pct[SB_MAX_PERCENTILES];
  double pct_val[SB_MAX_PERCENTILES];    /* seconds */
  /* fairness (cumulative) */
  double events_avg, events_stddev;
  double exec_avg, exec_stddev;           /* seconds */
} sb_stat_t;

/* "[ 1s ] thds: ... reconn/s: ..." (DB) and, with `rate`, the queue line. */
void sb_report_interval_db(FILE *out, const sb_stat_t *s, bool rate);

/* "[ 1s ] thds: %u eps: %4.2f lat (ms,%u%%): %4.2f" and the queue line. */
void sb_report_interval_generic(FILE *out, const sb_stat_t *s, bool rate);

/* The full cumulative report: SQL statistics (when `db`), Throughput,
   Latency (ms) with the percentile lines, Threads fairness. */
void sb_report_cumulative(FILE *out, const sb_stat_t *s, bool db);

/* Formats the latency-percentile lines only (used by the above and the
   built-in tests). */
void sb_report_latency_block(FILE *out, const sb_stat_t *s);

/* Debug per-thread line (--debug). */
void sb_report_thread_debug(FILE *out, unsigned tid, double min, double avg,
                            double max, uint64_t events, double total);

#endif
