/*
 * Members a workload adds to the --results document beside bmk's own
 * (the pgbench scripts' per-statement latencies, "statements":
 * docs/results.md). Set before the document is written; sb_results_finish
 * adds them. Each name must be one the schema (docs/results.schema.json)
 * describes.
 */
#ifndef SB_RESULTS_EXTRA_H
#define SB_RESULTS_EXTRA_H

#include <jansson.h>

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
   called by the reporter thread. */
void sb_results_extra_interval_source(const char *name,
                                      json_t *(*fn)(void *ctx, double start_s, double len_s),
                                      void *ctx);

/* Adds the interval source's member to `row` (sb_results' interval
   rows). The reporter thread. */
void sb_results_extra_interval_add(json_t *row, double start_s, double len_s);

#endif
