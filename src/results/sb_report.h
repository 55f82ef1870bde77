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


#include "core/sb_stat.h"

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
