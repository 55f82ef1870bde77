/*
 * The numbers of one report (an interval, a checkpoint or the whole run)
 * and of one event type's row: what the engine hands to its outputs
 * (core/sb_output.h) and the report layouts format (results/sb_report.h).
 * Plain data, no functions.
 */
#ifndef SB_STAT_H
#define SB_STAT_H

#include <stdint.h>

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

#endif
