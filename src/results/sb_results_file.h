/*
 * Reading --results documents back (bmk report, bmk series, merging):
 * loading and checking a file, typed access to its fields, and its
 * histograms decoded exactly.
 *
 * A document is the JSON object sb_results.c writes (docs/results.md);
 * loading checks that it is one ("format": "bmk-results", a
 * format_version this bmk reads) and caches the fields every user needs.
 * Fields added by later versions or by other parts of bmk (server.cost,
 * summary.metrics) are read where present: callers treat absence as "not
 * measured". Nothing here is shared between threads.
 */
#ifndef SB_RDOC_H
#define SB_RDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/sb_histogram.h"

/* One loaded result document. Strings point into `doc`. */
typedef struct {
  char *path;               /* file name as given (owned) */
  json_t *doc;              /* the whole document (owned reference) */
  const char *test;         /* manifest.test ("" when null) */
  const char *series_id;    /* manifest.series_id, NULL when absent */
  const char *driver;       /* manifest.server.driver, NULL when none */
  const char *host;         /* manifest.host ("" when absent) */
  double start_epoch_s;     /* measured start, seconds since the epoch
                               (microseconds kept when the file has them) */
  double time_s;            /* summary.time_s: measured seconds */
  unsigned threads;         /* summary.threads */
  uint64_t events;          /* summary.events */
  bool completed;           /* summary.completed */
  const char *interrupted;  /* summary.interrupted_reason, NULL if none */
  bool client_saturated;    /* summary.client.saturated: bmk itself limited
                               the run (false when absent) */
} sb_results_file_t;

/*
 * Loads `path` into `d`. Returns 0, or -1 with a message for the user in
 * `err` (`errlen` bytes) that names the file and what is wrong: cannot be
 * read, not JSON (with line and column), not a bmk results document, a
 * newer format_version, a required field missing.
 */
int sb_results_file_load(const char *path, sb_results_file_t *d, char *err, size_t errlen);

/* Like sb_results_file_load for a document already in memory (e.g. a merged
   one), called `name` in messages. Takes over the reference `doc` (it is
   released on failure too). */
int sb_results_file_adopt(sb_results_file_t *d, const char *name, json_t *doc, char *err, size_t errlen);

/* Releases what sb_results_file_load allocated (a zeroed `d` is fine). */
void sb_results_file_free(sb_results_file_t *d);

/* Follows object keys from `root` (a NULL-terminated list); NULL when a
   key is missing or a step is not an object. Keys may contain dots
   (percentile names such as "99.9"). */
const json_t *sb_json_at(const json_t *root, ...);

/* The number at the key path (integer or real), or NAN when absent,
   null or not a number. */
double sb_json_num(const json_t *root, ...);

/* The string at the key path, or NULL. */
const char *sb_json_str(const json_t *root, ...);

/*
 * Adds the histogram held by object `holder` to `h`: its
 * "hdr_v2_compressed_base64" string when present, else a "buckets" list
 * of [lowest ns, highest ns, count]. Returns 1 when one was added, 0 when
 * `holder` has neither (or null), -1 on a corrupt histogram with the
 * reason in `err` (then nothing was added).
 */
int sb_results_file_add_hist(const json_t *holder, sb_hdr_t *h, char *err, size_t errlen);

/* Percentile `pct` (0-100) of the document's run histogram ("histogram"),
   in milliseconds; NAN when the document has none, it is empty or
   corrupt. Thread-safe. */
double sb_results_file_percentile_ms(const json_t *doc, double pct);

#endif
