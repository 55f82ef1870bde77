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

/* The reverse, for a document printed as a report (bmk report): fills
   `st`'s retry fields and `snap` from the summary's "retries" object `o`
   (st->retry points to `snap`); leaves them off when `o` is not an
   object. Any thread. */
void sb_results_retry_read(sb_stat_t *st, sb_retry_snap_t *snap, const json_t *o);

/* An interval row's "retries" and "failures" into `st` (on when the row
   has them). Any thread. */
void sb_results_retry_read_interval(sb_stat_t *st, const json_t *row);

/* Merging documents (bmk report --merge): adds the counts of `o` (a
   summary's "retries" object, or an interval row with "retries" and
   "failures") to `acc`, creating it when NULL; returns `acc` unchanged
   when `o` has none. max_tries: the highest, null (unlimited) when any
   is. New reference (owned by the caller). */
json_t *sb_results_retry_merge(json_t *acc, const json_t *o);

/* Sets an interval row's "retries" and "failures" from a merged `acc`. */
void sb_results_retry_interval_from(json_t *row, const json_t *acc);

#endif
