/*
 * Statistics snapshots and the sysbench report layouts
 * (sysbench 1.1's interval lines and final report).
 * Pure formatting: functions write to a FILE and keep no state, so they are
 * thread-safe and unit-testable.
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/sb_metric.h"

#define SB_MAX_PERCENTILES 32

/* One event type's numbers for the per-type table and the
   report hooks' stat.types. Latencies in seconds; `sum` is the total
   latency of the type's events, `stddev` from its histogram. */
typedef struct {
  const char *name;
  uint64_t events, errors, rollbacks, late;
  double tps;
  double min, avg, p50, p95, p99, max;
  double p25, p75, p90, stddev, sum;
} sb_type_row_t;

/* One report's numbers. Times are seconds. */
typedef struct {
  unsigned threads;            /* configured --threads */
  unsigned threads_running;    /* workers still running (0 in the final) */
  double time_interval;        /* seconds covered by this report */
  double time_total;           /* seconds since start (or checkpoint) */
  unsigned percentile;         /* --percentile (0 = disabled) */
  double latency_pct;          /* latency at --percentile, seconds */
  uint64_t events, reads, writes, other, errors, reconnects;
  uint64_t bytes_read, bytes_written;     /* built-in tests (fileio) */
  uint64_t queue_length, concurrency;     /* intermediate, rate mode */
  double schedule_lag;         /* rate mode: how far the schedule is behind, s */
  double latency_min, latency_max, latency_avg, latency_sum; /* cumulative */
  unsigned npct;               /* --percentiles extra lines */
  double pct[SB_MAX_PERCENTILES];
  double pct_val[SB_MAX_PERCENTILES];    /* seconds */
  /* fairness (cumulative) */
  double events_avg, events_stddev;
  double exec_avg, exec_stddev;           /* seconds */
  /* workload metrics (sb_metric.h) over the report's time: metrics[i] is
     the sum of metric i; nmetrics = registered metrics */
  unsigned nmetrics;
  uint64_t metrics[SB_METRIC_MAX];
  /* Per-type rows of this report (interval or cumulative), for the Lua
     report hooks (stat.types); NULL/0 when the script names no types.
     Borrowed: valid during the report only. */
  const sb_type_row_t *types;
  unsigned ntypes;
  /* intermediate (bmk): events in flight for longer than the interval and
     the oldest one's age in seconds (docs/reliability.md) */
  unsigned stalled;
  double stalled_oldest_s;
  /* statements that got no answer within --db-query-timeout (bmk) */
  uint64_t timeouts;
} sb_stat_t;

/* "[ 1s ] thds: ... reconn/s: ..." (DB) and, with `rate`, sysbench's queue
   line "[ 1s ] queue length: N, concurrency: N", to which `lag` appends
   bmk's ", lag (ms): X" (s->schedule_lag). */
void sb_report_interval_db(FILE *out, const sb_stat_t *s, bool rate, bool lag);

/* "[ 1s ] thds: %u eps: %4.2f lat (ms,%u%%): %4.2f" and, with `rate`, the
   queue line "[ 1s ] queue length: N concurrency: N" (no comma, as
   sysbench's), to which `lag` appends " lag (ms): X". */
void sb_report_interval_generic(FILE *out, const sb_stat_t *s, bool rate, bool lag);

/* The full cumulative report: SQL statistics (when `db`), Throughput,
   Latency (ms) with the percentile lines, Threads fairness. */
void sb_report_cumulative(FILE *out, const sb_stat_t *s, bool db);

/* Formats the latency-percentile lines only (used by the above and the
   built-in tests). */
void sb_report_latency_block(FILE *out, const sb_stat_t *s);

/* "Event types (latency in ms):" table, one row per type; printed by the
   final report when more than one type ran. */
void sb_report_types(FILE *out, const sb_type_row_t *rows, unsigned n);

/* "Latency limit: ..." line (--latency-limit): `late` of `events` took
   longer than `limit_ms`. */
void sb_report_latency_limit(FILE *out, double limit_ms, uint64_t late, uint64_t events);

/* "Workload metrics:" block (bmk): one line per metric of `s` (name from
   sb_metric_name) with its total and the rate over s->time_total
   seconds, then a blank line. Prints nothing when no metric exists. */
void sb_report_metrics(FILE *out, const sb_stat_t *s);

/* Debug per-thread line (--debug). */
void sb_report_thread_debug(FILE *out, unsigned tid, double min, double avg,
                            double max, uint64_t events, double total);

#endif
