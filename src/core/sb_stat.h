/*
 * The numbers of one report (an interval, a checkpoint or the whole run)
 * and of one event type's row: what the engine hands to its outputs
 * (core/sb_output.h) and the report layouts format (results/sb_report.h).
 * Plain data, no functions.
 */
#ifndef SB_STAT_H
#define SB_STAT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sb_metric.h"
#include "core/sb_retry.h"

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

/* The load generator's own CPU over a report's time (bmk; measured by the
   engine, docs/results.md "The client's own CPU"). An interval is
   saturated when, for at least SB_CLIENT_SATURATED of it, an event-loop
   worker thread was runnable (on a CPU or queued for one: its virtual
   users waited for it, not for the server), or the process used every
   CPU it may use: the client, not the server, then set the pace. A run is
   saturated when more than a tenth of its intervals were. */
#define SB_CLIENT_SATURATED 0.90
typedef struct {
  bool measured;               /* false: not measured (built-in tests) */
  bool event_mode;             /* VUs on event-loop workers */
  bool saturated;              /* interval: this one; run: any interval */
  unsigned workers;            /* worker threads (one per VU in thread mode) */
  unsigned cpus;               /* CPUs the process may use (affinity, cgroup quota) */
  double cpu;                  /* the process's CPU over the time, in CPUs */
  double busiest;              /* event mode: the busiest worker thread's share of
                                  the time runnable (on a CPU or queued for
                                  one; run: the highest of the intervals) */
  double busiest_cpu;          /* that worker's share of the time on a CPU */
  unsigned intervals;          /* intervals sampled so far (1 s, or
                                  --report-interval) */
  unsigned saturated_intervals; /* of which saturated */
  uint64_t blocking_calls;     /* SQL calls that blocked an event-loop worker
                                  since the process started (db_loop_thread) */
} sb_client_t;

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
  /* --max-tries (core/sb_retry.h): retries_on when it was given
     (max_tries 0 = unlimited); tries run again and transactions failed
     after their last try, over the report's time; `retry`: the counts per
     error code of a cumulative report since its baseline (borrowed, valid
     during the report; NULL in intervals and reports read back) */
  bool retries_on;
  unsigned max_tries;
  uint64_t tx_retries, tx_failures;
  const sb_retry_snap_t *retry;
  /* the load generator's own CPU over the report's time (bmk) */
  sb_client_t client;
} sb_stat_t;

#endif
