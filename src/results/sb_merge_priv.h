/*
 * What the two halves of `bmk report --merge` share (src/results/ only):
 * sb_merge.c checks the documents and merges their summary, server block
 * and manifest; sb_merge_rows.c merges their rows, the intervals on one
 * wall-clock grid and the per-type rows, each row's percentiles from its
 * runs' histograms added counter by counter.
 * Units as in the documents (docs/results.md): seconds, counts, latencies
 * in ms, histograms in ns. Errors: a function that can fail returns NULL
 * or -1 with the reason in `err` (`errlen` bytes) naming the file.
 * Reentrant: works on the caller's documents only.
 */
#ifndef SB_MERGE_PRIV_H
#define SB_MERGE_PRIV_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "results/sb_results_file.h"

/* A non-negative count at `key` of object `o` (0 when absent). */
static inline uint64_t count(const json_t *o, const char *key)
{
  double v = sb_json_num(o, key, NULL);
  return v > 0 ? (uint64_t) llround(v) : 0;
}

/* `n` per second over `s` seconds (0 when `s` is not positive). */
static inline double rate(double n, double s)
{
  return s > 0 ? n / s : 0.0;
}

static inline json_t *jcount(uint64_t v)
{
  return json_integer((json_int_t) v);
}

/* Percentile from a key such as "95", "p99.9". */
static inline double key_pct(const char *key)
{
  return strtod(key[0] == 'p' ? key + 1 : key, NULL);
}

/* manifest.options.<name> of a document as a string, or "". */
static inline const char *opt(const sb_results_file_t *d, const char *name)
{
  const char *v = sb_json_str(d->doc, "manifest", "options", name, NULL);
  return v ? v : "";
}

/* Adds the histogram of `holder` (a document's "histogram", an interval
   row, a type row) of document `d` to `h`; sets *missing when the holder
   has none. 0, or -1 with the reason in `err` (a histogram that does not
   decode). */
int sb_merge_add_hist(const sb_results_file_t *d, const json_t *holder, sb_hdr_t *h,
                      bool *missing, char *err, size_t errlen);

/* The merged "intervals" array of `n` documents: each run's rows placed
   on one grid of the runs' --report-interval, starting at `base` (the
   earliest start, Unix seconds), counts summed per slot. A row whose
   inputs lack histograms has a null one and the highest of its runs'
   percentiles. New reference, or NULL with `err` set. */
json_t *sb_merge_intervals(const sb_results_file_t *d, unsigned n, double base, char *err,
                           size_t errlen);

/* The merged "event_types" array: a row per type name, in the order the
   documents name them, counts summed, rates over the merged time `t`
   (seconds), percentiles as for the intervals. New reference, or NULL
   with `err` set. */
json_t *sb_merge_types(const sb_results_file_t *d, unsigned n, double t, char *err,
                       size_t errlen);

/* The merged "statements" (the pgbench scripts' commands, docs/results.md)
   of the documents that have them: an entry per (script_index, command)
   in the order the documents name them, counts summed (after_last_interval
   too, when every input entry has one: with the merged interval rows'
   statements they add up to the merged counts), avg over every command,
   percentiles
   from the added histograms, or the highest of the inputs' when one has
   none (its histogram null; *approx counts such entries). New reference;
   NULL with err "" when no document has statements, NULL with `err` set
   on an error (a histogram that does not decode). */
json_t *sb_merge_statements(const sb_results_file_t *d, unsigned n, size_t *approx, char *err,
                            size_t errlen);

/* The statements of one merged interval row: per (script_index,
   command), the counts of the inputs' rows in that slot summed,
   percentiles from their added histograms (sb_merge_stmt.c). */
typedef struct sb_merge_stmt_rows sb_merge_stmt_rows_t;

/* Adds an input row's "statements" (`stmts`, of document `d`; not an
   array: nothing) to *acc (allocated when NULL). 0, or -1 with `err` set
   (a histogram that does not decode, OOM). Not thread-safe per acc. */
int sb_merge_stmt_rows_add(sb_merge_stmt_rows_t **acc, const sb_results_file_t *d,
                           const json_t *stmts, char *err, size_t errlen);

/* The merged row's "statements": {script_index, command, count, failures,
   retries, latency_ms: {avg, p50, p95, p99, max}, hdr_v2_compressed_base64}
   per command in the order first seen; percentiles from the added
   histograms, or the highest of the inputs' with a null histogram when
   an input row had none. New reference (an empty array for NULL). */
json_t *sb_merge_stmt_rows_json(const sb_merge_stmt_rows_t *acc);

/* Frees acc (NULL is fine). */
void sb_merge_stmt_rows_free(sb_merge_stmt_rows_t *acc);

#endif
