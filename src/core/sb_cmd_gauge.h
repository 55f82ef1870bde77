/*
 * The live numbers of a command that times its own steps (`bmk tpch
 * run`), or of the queries a workload runs beside the engine's events
 * (`bmk chbench run`'s analytic streams): queries in flight, and the durations of the finished ones as a
 * histogram with fixed bounds (Prometheus style: cumulative buckets,
 * sum, count) and a count of failures. The command's threads record;
 * --metrics-listen (metrics/sb_metrics_cmd.h) reads them at each scrape.
 * Thread-safe (one mutex; a query is seconds long, so the lock is cold).
 */
#ifndef SB_CMD_GAUGE_H
#define SB_CMD_GAUGE_H

#include <stdbool.h>
#include <stdint.h>

/* The histogram's upper bounds, seconds (+Inf is implicit after them). */
#define SB_CMD_BUCKETS 14
extern const double sb_cmd_bucket_le[SB_CMD_BUCKETS];

typedef struct {
  int64_t in_flight;                 /* started, not yet done */
  uint64_t done, failed;             /* finished (failed ones included) */
  double sum_s;                      /* seconds of the finished */
  uint64_t le[SB_CMD_BUCKETS];       /* finished within each bound, cumulative */
} sb_cmd_gauges_t;

/* A query starts. Any thread. Exported for LuaJIT FFI. */
void sb_cmd_query_start(void);

/* A query ends after `seconds` (ok: it succeeded). Any thread. Exported
   for LuaJIT FFI. */
void sb_cmd_query_done(double seconds, bool ok);

/* A copy of the numbers so far. Any thread. */
void sb_cmd_gauges(sb_cmd_gauges_t *out);

/* An engine run's workload times queries here too: the run's own
   --metrics-listen page (metrics/sb_metrics.h) adds these numbers named
   bmk_<prefix>_... (`prefix`: up to 31 characters, e.g. "chbench";
   longer is cut). Any thread, before the queries start. Exported for
   LuaJIT FFI. */
void sb_cmd_gauge_publish(const char *prefix);

/* The prefix given to sb_cmd_gauge_publish, or NULL when nothing
   publishes. Any thread; the string lives until the process ends. */
const char *sb_cmd_gauge_prefix(void);

#endif
