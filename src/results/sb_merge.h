/*
 * Merging the result documents of runs that ran at the same time
 * (`bmk report --merge`, docs/report.md): the kit's sb11_MAX split, or one
 * test driven from several load hosts started on one SYNC file or at one
 * time.
 *
 * The merged document has the --results layout (docs/results.md):
 *  - summary: counts summed; time = the longest run's measured time, so
 *    rates are total counts over it (for runs released together with the
 *    same --time this is the sum of their rates); latency min/max/sum
 *    exact, percentiles from the merged histogram; thread fairness pooled
 *    exactly from each run's mean and standard deviation;
 *  - histogram: the runs' HDR histograms added counter by counter
 *    (decoded from hdr_v2_compressed_base64, else the bucket list): no
 *    percentile is ever averaged;
 *  - intervals: rows placed on one wall-clock grid (each run's start time
 *    plus the row's end time, rounded to the interval length), counts
 *    summed per grid slot, interval percentiles from the merged interval
 *    histograms;
 *  - event_types: per type name, counts summed, percentiles from the
 *    merged per-type histograms;
 *  - server: the block of the run with the longest server window (the
 *    server's counters are global, every run saw the same server), with
 *    the client counts replaced by the sums; server.cost per-transaction
 *    figures recomputed from its totals over the merged transactions, or
 *    dropped when the totals are not there;
 *  - summary.figures: by whose measure each is (results/sb_merge_figures.h):
 *    a client's own summed, the database's averaged over runs on it;
 *  - statements (pgbench scripts, results/sb_merge_stmt.c): per script
 *    command, counts summed, percentiles from the merged histograms, in
 *    the summary and in each merged interval row;
 *  - manifest: the first run's, with the earliest start time and
 *    merged_from listing every run.
 * Runs must be of the same test and driver, with the same
 * --report-interval, and their measured windows must overlap.
 */
#ifndef SB_MERGE_H
#define SB_MERGE_H

#include <stddef.h>

#include <jansson.h>

#include "results/sb_results_file.h"

/*
 * Merges `n` (>= 2) loaded documents. Returns a new document (caller
 * decrefs), or NULL with a message in `err` naming the files and what
 * keeps them from being merged. `note` (may be NULL) receives warnings
 * for the reader, one per line ("" when none): the runs' starts differ by
 * more than a second; some interval or per-type rows were merged from
 * files without their histograms, so their percentiles are an upper
 * bound (the count of such rows is given); figures that could not be
 * merged (results/sb_merge_figures.h). 1024 bytes hold them all.
 */
json_t *sb_merge_docs(const sb_results_file_t *docs, unsigned n, char *note, size_t notelen,
                      char *err, size_t errlen);

/* What the kit launcher's "=> Combined" line shows, from a merged
   document. Rates per second, latencies in ms. */
typedef struct {
  unsigned runs;            /* documents merged */
  unsigned threads;         /* sum of their threads */
  double time_s;            /* merged measured time */
  double events, tps, qps, reads_s, writes_s, other_s, errors_s, reconnects_s;
  double avg_ms;            /* latency average over every event */
  unsigned percentile;      /* --percentile of the runs (0 = off) */
  double pct_ms;            /* that percentile of the merged histogram */
  char error[512];          /* why it failed, when the call returns -1 */
} sb_merge_totals_t;

/*
 * Loads the `n` files `paths`, merges them, writes the merged document to
 * `out_path` when not NULL/"" (through a temporary name, like --results)
 * and fills `t`. Returns 0, or -1 with t->error set. For the kit launcher
 * (LuaJIT FFI), so the signature stays plain C types. Not thread-safe.
 */
int sb_merge_files(const char *const *paths, unsigned n, const char *out_path,
                   sb_merge_totals_t *t);

/* Writes `doc` to `path` (JSON, via path.tmp renamed into place). 0, or
   -1 with the reason in `err`. */
int sb_merge_write(const json_t *doc, const char *path, char *err, size_t errlen);

#endif
