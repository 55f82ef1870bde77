/*
 * Prints a --results document (typically a merged one) in the layout of
 * bmk's own report: the interval lines
 * when the run had --report-interval, the final report (SQL statistics
 * when it used a database, throughput, latency with the --percentile and
 * --percentiles lines, thread fairness), the per-type table when several
 * event types ran, the --latency-limit line and the figures (NOPM, TPM,
 * ...); for a `bmk tpch run` document, its per-step tables and metrics
 * instead of the event report. The numbers are the
 * document's; the layout functions are those of src/results/sb_report.c.
 */
#ifndef SB_DOC_REPORT_H
#define SB_DOC_REPORT_H

#include <stdio.h>

#include <jansson.h>

/* Prints `doc` to `out`. Thread-safe (no state). */
void sb_report_file_print(FILE *out, const json_t *doc);

/* Prints a `bmk tpch run` document's own report (its "tpch" section:
   each test's steps, its metrics or "Metrics incomplete", QphH@Size, how
   it ended; sb_report_tpch.c) in the layout `run` prints. Thread-safe
   (no state). */
void sb_report_file_tpch(FILE *out, const json_t *doc);

/* Prints only the per-type table of `doc` (its "event_types"), when it has
   more than one type. Thread-safe (no state). */
void sb_report_file_types(FILE *out, const json_t *doc);

/* Prints the pgbench scripts' "Statements (latency in ms):" block of
   `doc` (its "statements": per script, a line per command with its
   count, failed, retried, avg, p50, p95 and p99, in the layout of the
   run's own block); nothing when it has none. Thread-safe (no state). */
void sb_report_file_statements(FILE *out, const json_t *doc);

/* Prints the document's figures (summary.figures: TPC-C's NOPM and TPM,
   the server's counters, a script's), one line each with how merged runs
   combined it, under "Figures:"; nothing when it has none. Thread-safe
   (no state). */
void sb_report_file_figures(FILE *out, const json_t *doc);

#endif
