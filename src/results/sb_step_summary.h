/*
 * The numbers of one --results document that `bmk capacity` judges a
 * step by (docs/capacity.md "bmk capacity"), in a plain struct that the
 * Lua side reads through LuaJIT's FFI (no JSON parsing in Lua). Nothing
 * here is shared between threads: every call works on its own arguments.
 */
#ifndef SB_STEP_SUMMARY_H
#define SB_STEP_SUMMARY_H

#include <stddef.h>

/* Most per-interval samples kept (a step of 1,024 intervals or more keeps
   its first ones). */
#define SB_STEP_MAX_SAMPLES 1024

/* One run's figures. Latencies in milliseconds, NAN when the document has
   no histogram; rates per second of the measured window. */
typedef struct {
  double tps;              /* summary.tps: achieved events per second */
  double events;           /* summary.events */
  double time_s;           /* summary.time_s: measured seconds */
  double errors;           /* summary.errors */
  double errors_per_s;     /* errors / time_s (0 when time_s is 0) */
  double min_ms, avg_ms;   /* summary.latency_ms.min / avg */
  double p50_ms, p90_ms, p95_ms, p99_ms, p999_ms, max_ms; /* run histogram */
  double rate;             /* manifest.options.rate (0 = closed loop) */
  double vus;              /* summary.threads: virtual users */
  double backlog_first;    /* queue_length of the first interval (NAN: none) */
  double backlog_last;     /* queue_length of the last interval (NAN: none) */
  double running_last;     /* threads_running of the last interval (NAN: none) */
  double server_cpu_us_per_tx; /* server.cost CPU per transaction, NAN unknown */
  double server_cpus;      /* server CPUs busy over the cost window, NAN unknown */
  int completed;           /* summary.completed (1/0) */
  int client_saturated;    /* summary.client.saturated (1/0): bmk itself
                              limited the run */
  int nsamples;            /* entries used in `samples` */
  double samples[SB_STEP_MAX_SAMPLES]; /* per-interval latency (ms) at `pct` */
} sb_step_summary_t;

/*
 * Reads the --results document `path` into `out`. `pct` chooses the
 * per-interval samples: a percentile in (0, 100] taken from each
 * interval's histogram, or -1 for each interval's mean latency (from its
 * histogram too); intervals without a histogram or without events give
 * no sample. Returns 0, or -1 with a message for the user in `err`
 * (`errlen` bytes): unreadable file, not a bmk results document, corrupt
 * histogram.
 */
int sb_step_summary_read(const char *path, double pct, sb_step_summary_t *out, char *err,
                         size_t errlen);

/*
 * The latency (ms) at percentile `pct` ((0, 100]; -1 for the mean) of
 * the run histograms of `n` documents `paths` added together: the pooled
 * figure of a repeated step. Returns NAN when a file cannot be read or
 * has no histogram (the reason in `err`).
 */
double sb_step_pooled_ms(const char *const *paths, int n, double pct, char *err, size_t errlen);

#endif
