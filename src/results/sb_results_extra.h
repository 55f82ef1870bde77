/*
 * Members a workload adds to the --results document beside bmk's own
 * (the pgbench scripts' per-statement latencies, "statements":
 * docs/results.md). Set before the document is written; sb_results_finish
 * adds them. Each name must be one the schema (docs/results.schema.json)
 * describes.
 */
#ifndef SB_RESULTS_EXTRA_H
#define SB_RESULTS_EXTRA_H

#include <stdbool.h>

#include <jansson.h>

#include "core/sb_histogram.h"

/* Sets member `name` to `value` (the reference is taken over; a later
   call with the same name replaces it). Any thread (a mutex). */
void sb_results_extra_set(const char *name, json_t *value);

/* Adds the members set so far to `doc` (copies of the references).
   Any thread. */
void sb_results_extra_add(json_t *doc);

/* A workload's own member of each interval row: `fn(ctx, start_s,
   len_s)` is called for the row of the interval that started `start_s`
   seconds after the measured start and lasted `len_s` seconds, and
   returns a new reference, set as member `name` of the row, or NULL
   (none for that row). One source at a time (a later call replaces it;
   fn NULL removes it). `name` must be one the schema describes for an
   interval row ("statements"). Main thread, before the run; fn is then
   called by the reporter thread, with sb_results' lock held (fn may take
   its own locks, never sb_results'). Remove it only once the reporter has
   stopped: a call under way is not waited for. */
void sb_results_extra_interval_source(const char *name,
                                      json_t *(*fn)(void *ctx, double start_s, double len_s),
                                      void *ctx);

/* Adds the interval source's member to `row` (sb_results' interval
   rows). The reporter thread, sb_results' lock held. */
void sb_results_extra_interval_add(json_t *row, double start_s, double len_s);

/* Called by a histogram source for each of its tagged histograms:
   `tag` (no ',' and no whitespace: HdrHistogram log tags), `h` (ns). */
typedef void (*sb_results_hdr_emit_t)(void *ectx, const char *tag, const sb_hdr_t *h);

/*
 * A workload's own tagged histograms in the --hdr-log (the pgbench
 * scripts' statements: docs/results.md "--hdr-log"): `fn(ctx, start_s,
 * final, emit, ectx)` calls `emit` once per histogram to log. With
 * `final` false it is called for the interval that started `start_s`
 * seconds after the measured start, right after the interval source
 * (sb_results_extra_interval_source) gave that interval's row, and emits
 * that interval's histograms; with `final` true, once when the log ends,
 * it emits what its interval lines do not hold (the time after the last
 * interval), so each tag's lines add up to the window's histogram. One
 * source at a time (fn NULL removes it). Main thread, before the run;
 * fn is then called by the reporter thread (intervals) and the main
 * thread (final), with sb_results' lock held. Remove it only once the
 * reporter has stopped, as the interval source.
 */
void sb_results_extra_hdr_source(void (*fn)(void *ctx, double start_s, bool final,
                                            sb_results_hdr_emit_t emit, void *ectx),
                                 void *ctx);

/* Runs the histogram source, if any, with these arguments (see
   sb_results_extra_hdr_source). sb_results (--hdr-log). */
void sb_results_extra_hdr_each(double start_s, bool final, sb_results_hdr_emit_t emit,
                               void *ectx);

#endif
