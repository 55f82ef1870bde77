/*
 * What `bmk compare` compares (docs/results-db.md "Comparing"): the
 * metrics of two sets of runs (their --results documents), each side's
 * value and B's change against A with its 95% interval.
 *
 * A metric's samples are the runs' values when both sides have two runs
 * or more (repetitions, Welch's test over them), else the per-interval
 * values of each side's runs grouped into batch means (the interval rows
 * of the documents: throughput, errors, and any latency percentile from
 * each interval's own HDR histogram). Everything here works on the
 * caller's documents: no global state; reentrant.
 */
#ifndef SB_COMPARE_METRICS_H
#define SB_COMPARE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define SB_CMP_MAX_RUNS 64

/* One side of a comparison: its runs' documents. */
typedef struct {
  const char *spec;            /* as given: "tag:build=41", "17,18", a file */
  json_t *docs[SB_CMP_MAX_RUNS];
  int64_t ids[SB_CMP_MAX_RUNS]; /* 0 for a file */
  char *names[SB_CMP_MAX_RUNS]; /* "run 17" or the file */
  unsigned n;
} sb_cmp_side_t;

typedef enum { CM_TPS, CM_QPS, CM_ERRORS, CM_PCT, CM_FIGURE } sb_cmp_kind_t;

/* One metric. */
typedef struct {
  sb_cmp_kind_t kind;
  const char *type;            /* an event type (borrowed from a document), or
                                  NULL for the whole run */
  char figure[48];             /* CM_FIGURE: the figure's name (tpcc_nopm) */
  double pct;                  /* CM_PCT: the percentile, (0, 100] */
  char name[48];               /* its name in --json and gates: tps, qps,
                                  errors, p99, p99.9, tpcc_nopm */
  char label[96];              /* the table's: "tps", "p95 ms", "NOPM",
                                  "new_order p95 ms" */
} sb_cmp_metric_t;

/* One metric's comparison. */
typedef struct {
  double a, b;                 /* each side's value (mean over its runs) */
  bool have;                   /* a difference with its interval */
  double pct, lo, hi;          /* B against A, percent, and the 95% interval
                                  (+-INFINITY against a zero baseline) */
  bool significant;            /* the interval excludes 0 */
  bool by_runs;                /* samples: the runs' values (else batch
                                  means of intervals) */
  unsigned na, nb;             /* samples used per side: runs or batches */
  unsigned ia, ib;             /* intervals behind the batches, per side */
} sb_cmp_row_t;

/*
 * Parses a metric name (`n` bytes of `s`): tps, qps, errors, nopm, tpm
 * (TPC-C's figures tpcc_nopm, tpcc_tpm), a figure's name, or pN for any
 * percentile N in (0, 100] (p99.9). Returns 0 with *m filled (label and
 * name set), -1 when it is none of them.
 */
int sb_cmp_metric_parse(const char *s, size_t n, sb_cmp_metric_t *m);

/*
 * The rows to compare, into ms (room for `max`): tps, qps, p50, p95, p99,
 * errors; TPC-C's NOPM and TPM when every run of both sides has them;
 * each event type's tps and p95 when every run of both sides has the
 * same types; then each of the `nextra` metrics `extra` (a gate's) not
 * among them. Returns the number of rows.
 */
unsigned sb_cmp_build_metrics(const sb_cmp_side_t *A, const sb_cmp_side_t *B,
                              const sb_cmp_metric_t *extra, unsigned nextra,
                              sb_cmp_metric_t *ms, unsigned max);

/* True when a higher value of `m` is worse: a latency, the error rate,
   or a figure in seconds (its name ends in "_s": tpch_power_q01_s). */
bool sb_cmp_metric_worse_up(const sb_cmp_metric_t *m);

/* The index of the row of ms[0..n) that is metric m (the whole run's),
   or -1. */
int sb_cmp_metric_find(const sb_cmp_metric_t *ms, unsigned n, const sb_cmp_metric_t *m);

/*
 * Compares metric m of side B against side A: over the runs' values when
 * `by_runs` (both sides have two runs or more), else over batch means of
 * the runs' per-interval samples (the autocorrelation of consecutive
 * intervals taken into account). Fills *r; r->have false when a side has
 * too few samples for an interval (fewer than 2 runs, or too few
 * intervals) or the metric is absent.
 * Source: Welch's test and the batch means of commands/compare/sb_compare_stats.h.
 */
void sb_cmp_compare(const sb_cmp_side_t *A, const sb_cmp_side_t *B, const sb_cmp_metric_t *m,
                    bool by_runs, sb_cmp_row_t *r);

/* The run-level value of a metric in one document (tps, qps, errors per
   second, a percentile in ms from the run's histogram, a figure); NAN
   when absent. */
double sb_cmp_run_value(const json_t *doc, const sb_cmp_metric_t *m);

#endif
