/*
 * The spans of a run: timed pieces of work a workload runs beside the
 * engine's events (`bmk chbench run`'s analytic queries), each with its
 * lane (a stream, 1-based), its label (a query number) and its start and
 * end. The workload records them on the monotonic clock; the engine sets
 * the origin (the measured run's start, moved at the end of --warmup-time);
 * the results document (--results "analytic_queries") reads them back as
 * seconds since that origin, leaving out the ones that started before it.
 * Thread-safe (one mutex; a span is a query, seconds long).
 */
#ifndef SB_SPANS_H
#define SB_SPANS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int lane, label;
  double start_s, end_s;       /* seconds since the origin */
} sb_span_t;

/* A span from `start_ms` to `end_ms` (CLOCK_MONOTONIC, milliseconds, as
   LuaJIT's clock_gettime(1) read gives them) on `lane` with `label`. Any
   thread; a span that cannot be stored (out of memory) is dropped.
   Exported for LuaJIT FFI. */
void sb_span_add(int lane, int label, double start_ms, double end_ms);

/* The measured run starts at `t0_ns` (CLOCK_MONOTONIC, ns). Engine, at
   the run's start and at the end of warmup. */
void sb_spans_origin(uint64_t t0_ns);

/* The spans that started at or after the origin, in the order recorded,
   relative to it: a malloc'd array (the caller frees; NULL when none or
   out of memory) and its length in *n. Any thread. */
sb_span_t *sb_spans_list(size_t *n);

#endif
