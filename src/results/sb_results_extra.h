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

#endif
