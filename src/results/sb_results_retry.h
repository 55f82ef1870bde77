/*
 * Transaction retries (--max-tries) in the --results document
 * (docs/results.md "Retries", docs/results.schema.json): an interval's
 * counts and the summary's "retries" object.
 */
#ifndef SB_RESULTS_RETRY_H
#define SB_RESULTS_RETRY_H

#include <jansson.h>

#include "core/sb_stat.h"

/* Adds "retries" and "failures" (counts over the interval) to the
   interval `row` when --max-tries was given; nothing otherwise. Any
   thread. */
void sb_results_retry_interval(json_t *row, const sb_stat_t *st);

/* The summary's {max_tries, retried, retries, failures, by_kind: {KIND:
   {retried, retries, failures}}, by_code: {CODE: {kind, retried, retries,
   failures}}} (max_tries null = unlimited), or NULL when --max-tries was
   not given. New reference. */
json_t *sb_results_retry_json(const sb_stat_t *st);

#endif
