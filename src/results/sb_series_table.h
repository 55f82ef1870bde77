/*
 * The series table (docs/report.md): one row per run, one table per
 * series, built from --results documents (bmk series prints it at its
 * end, bmk report FILE.json... from any set of files, the HTML report
 * charts it).
 *
 * Runs are grouped by manifest.series_id; runs without one by test and
 * driver. Rows are sorted by users (summary.threads), then by the DBL
 * transaction size, then by start time. Columns (docs/results.md says
 * which field each comes from; an absent field prints "-"): users, tps,
 * qps, p95 and p99 (ms, from the run's HDR histogram), errors/s,
 * reconnects/s, server CPU us and instructions per transaction
 * (server.cost). Runs with DBL metrics (summary.metrics.rows) get a second
 * table with the Benchware DBL columns.
 */
#ifndef SB_SERIES_TABLE_H
#define SB_SERIES_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "results/sb_results_file.h"

/* One run's numbers; NAN = not in the file. */
typedef struct {
  const sb_results_file_t *doc;
  unsigned users;
  double tps, qps, p95_ms, p99_ms, errors_s, reconnects_s;
  double cpu_us_trx, instr_trx;          /* server.cost.per_transaction */
  bool dbl;                              /* summary.metrics.rows present */
  double tx_size;                        /* --tx-size (0 = bulk) */
  char load_method[16];                  /* --load-method ("" unknown) */
  double rows_s, trx_s, stmt_ms, commit_ms, cpu_busy_pct;
  double wr_iops, wr_mbs, redo_mbs, redo_wr_s, redo_ms, elapsed_s;
} sb_series_row_t;

/* One series: its rows in table order. */
typedef struct {
  char *label;              /* "series 'ID'" or "test (driver)" (owned) */
  const char *series_id;    /* NULL for runs grouped by test */
  sb_series_row_t *rows;    /* owned */
  unsigned n;
  bool any_dbl;
} sb_series_t;

/*
 * Groups the `n` documents into series and computes every row. On success
 * stores a malloc'd array in *out (*nseries entries) and returns 0; -1
 * with the reason in `err` (a corrupt histogram names its file; OOM).
 * The rows point into `docs`, which must outlive the series.
 */
int sb_series_build(const sb_results_file_t *docs, unsigned n, sb_series_t **out,
                    unsigned *nseries, char *err, size_t errlen);

/* Prints one series' table (and its DBL table when any row has DBL
   metrics) to `out`. */
void sb_series_print(FILE *out, const sb_series_t *s);

/* Frees what sb_series_build returned. */
void sb_series_free(sb_series_t *s, unsigned nseries);

#endif
