/*
 * The numbers bmk exports to Prometheus (docs/metrics.md) and their text
 * exposition: the Prometheus text format 0.0.4 and OpenMetrics 1.0.
 *
 * A sb_prom_t accumulates the engine's interval snapshots into counters
 * and cumulative latency histograms (one per event type), so that a
 * scrape between two intervals sees the last complete interval, never
 * half of one, and the counters only grow. Rendering writes the whole
 * exposition into a buffer; the HTTP side (sb_metrics.c) swaps buffers
 * under its lock.
 *
 * Latency buckets (seconds, `le`): 1, 1.5, 2, 3, 5 and 7 times each power
 * of ten from 100 us to 100 s (37 bounds) and +Inf. An event is counted in
 * the first bucket whose bound is at or above the upper end of its HDR
 * histogram bucket (3 significant digits: at most 0.1 % above its
 * latency), so a bucket's count never includes an event slower than its
 * bound. Cumulative, so histogram_quantile() works and the series of
 * several processes add up.
 *
 * sb_prom_render_statements renders the pgbench scripts' per-statement
 * families from figures its callers sample (a run's live figures, a
 * cluster's merged document).
 *
 * Not thread-safe: one owner (the reporter thread, then the main thread
 * at the end; the engine never calls both at once).
 */
#ifndef SB_PROM_H
#define SB_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sb_output.h"

#define SB_PROM_NBUCKETS 37

/* The bucket bounds, seconds (SB_PROM_NBUCKETS of them, ascending). */
extern const double sb_prom_bounds[SB_PROM_NBUCKETS];

typedef struct sb_prom sb_prom_t;

/* A new, empty state. `labels` is the label text every sample carries,
   already formatted and escaped ('test="x",run_id="y"'; copied). NULL on
   allocation failure. */
sb_prom_t *sb_prom_new(const char *labels);
void sb_prom_free(sb_prom_t *p);

/* The run's configuration gauges: VUs (--threads) and the target rate
   (events/s, 0 = none). */
void sb_prom_set_config(sb_prom_t *p, unsigned vus, double rate);

/* Adds one interval's counts and latencies; sets the gauges (VUs running,
   backlog, in flight). */
void sb_prom_add_interval(sb_prom_t *p, const sb_out_interval_t *iv);

/* The end of the run: counters become the final report's totals where
   those are higher (they are, by the partial last interval, unless
   --report-checkpoints restarted the report's baseline), the latency
   histograms the run's, bmk_run_finished 1, and the run's figures
   (core/sb_figure.h) as gauges bmk_<name>. */
void sb_prom_set_end(sb_prom_t *p, const sb_out_end_t *e);

/* Renders the exposition into a malloc'ed, NUL-terminated buffer (*len
   bytes without the NUL): OpenMetrics 1.0 when `openmetrics`, else the
   text format 0.0.4. NULL on allocation failure. */
char *sb_prom_render(const sb_prom_t *p, bool openmetrics, size_t *len);

/* One command's figures for the per-statement series of pgbench
   scripts (docs/metrics.md "pgbench scripts"). */
typedef struct {
  unsigned script, command;     /* 0-based indexes, as the Statements block's */
  const char *script_name;      /* the script's file or built-in name */
  const char *text;             /* the command's first line (the first 120
                                   bytes become the label) */
  uint64_t count, failures, retries;
  double sum_s;                 /* latencies' sum, seconds */
  double p50_s, p95_s, p99_s;   /* latency quantiles, seconds */
} sb_prom_stmt_t;

/* Renders the per-statement families of the `n` commands `s` (the
   bmk_statement_command info series, the bmk_statement_latency_seconds
   summary, bmk_statement_failures_total and bmk_statement_retries_total),
   each sample with `labels` (as sb_prom_new's, not empty) and the
   command's script and command labels, into a malloc'ed, NUL-terminated
   buffer (*len bytes without the NUL); OpenMetrics names when
   `openmetrics`, no "# EOF". `merged`: the figures are several
   processes' merged (bmk cluster run), said in the summary's help. NULL
   on allocation failure. Thread-safe (reads only its arguments). */
char *sb_prom_render_statements(const sb_prom_stmt_t *s, size_t n, const char *labels,
                                bool openmetrics, bool merged, size_t *len);

/* Appends `v` to `dst` (cap bytes, NUL-terminated) escaped for a label
   value (backslash, double quote, newline). Returns false when it does
   not fit. */
bool sb_prom_escape(char *dst, size_t cap, const char *v);

#endif
