/*
 * Machine-readable results: the --results JSON document
 * and the --hdr-log HdrHistogram interval log.
 *
 * The JSON document (schema: docs/results.schema.json, described in
 * docs/results.md) holds a run manifest (sb_results_manifest.h), one row
 * per interval, per-event-type statistics, the final summary (marked
 * interrupted with the reason when the run did not complete), the
 * server-side reconciliation (sb_results_server.h) and the run's latency
 * histogram (non-empty HDR buckets and the V2-encoded histogram). It is
 * written with jansson once, at the end of the run (also after
 * SIGINT/SIGTERM, a fatal error or a forced shutdown), to a temporary
 * name renamed into place, so a reader never sees half a file.
 *
 * The HDR log gets one untagged line per interval plus one line per event
 * type (Tag=<type>) when several types ran; it is flushed after every
 * interval, and a last, shorter interval at the end makes the untagged
 * lines, and each type's lines, sum to the run's histograms.
 *
 * Rows are collected in memory (about 200 bytes per interval plus the
 * types). Interval calls come from the reporter thread, the others from
 * the main thread; a mutex orders them.
 */
#ifndef SB_RESULTS_H
#define SB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/sb_evtype.h"
#include "core/sb_histogram.h"
#include "results/sb_report.h"

/* The "format_version" of the documents this bmk writes. */
#define SB_RESULTS_FORMAT_VERSION 1

/*
 * Prepares the output files of this run: checks that the JSON file can be
 * created (it is written at the end) and creates the HDR log. Either path
 * may be NULL. Returns 0, or -1 after a FATAL message naming the file and
 * the reason. Main thread, before the workers start.
 */
int sb_results_open(const char *json_path, const char *hdrlog_path);

/* 0 when `path` can be written (an existing writable file, or a new one
   in a writable directory; nothing is created), else -1 after a FATAL
   line naming option `opt` ("--results"), the file and the reason. Any
   thread. */
int sb_results_check_writable(const char *opt, const char *path);

/* True when either file was requested (the engine then samples intervals
   even without --report-interval). */
bool sb_results_enabled(void);

/* The measured time origin, as wall-clock seconds since the epoch (the
   HDR log's StartTime and the manifest's start time). */
void sb_results_start(double start_epoch_s);

/* The origin given to sb_results_start (or, for a run that ended before
   its measured part, the time sb_results_finish ran), Unix seconds; 0
   before either. Any thread (read without the lock: set by the main
   thread before the manifest is built). */
double sb_results_start_epoch(void);

/* Per-interval numbers beyond sb_stat_t. */
typedef struct {
  double start_s, len_s;       /* interval start (since the measured
                                  origin) and length, seconds */
  double lag_ms;               /* rate mode: schedule lag at the end */
  uint64_t late;               /* events over --latency-limit */
} sb_interval_extra_t;

/*
 * Adds one interval: its statistics `st`, histogram `h` (interval only),
 * per-type interval numbers `types` (sb_evtype_count() entries) and
 * `extra`. Writes the HDR log lines. Reporter thread.
 */
void sb_results_interval(const sb_stat_t *st, const sb_hdr_t *h,
                         const sb_evtype_stat_t *types,
                         const sb_interval_extra_t *extra);

/*
 * Writes the JSON document: final statistics `st`, the run's histogram
 * `h`, the run's per-type sums `types` (NULL = none; their histograms
 * complete the HDR log's tagged lines), per-type rows (n rows), late events, and how the run ended
 * (`interrupted_reason` NULL = completed; exit code). Closes the HDR log.
 * Returns 0, or -1 after an ERROR message (the exit code should then be
 * non-zero). Main thread; at most once.
 */
int sb_results_finish(const sb_stat_t *st, const sb_hdr_t *h,
                      const sb_evtype_stat_t *types,
                      const sb_type_row_t *rows, unsigned n, uint64_t late,
                      const char *interrupted_reason, int exit_code);

/* Asks sb_results_finish to build the JSON document even without a
   --results file and to keep it (for --save). Main thread, before the
   run. */
void sb_results_keep_document(void);

/* The --threshold verdicts (an array; the reference is taken over) to
   write as the document's "thresholds" by sb_results_finish. Main
   thread, before sb_results_finish. */
void sb_results_set_thresholds(json_t *verdicts);

/* The document of the finished run when sb_results_keep_document was
   called (borrowed; valid until exit), else NULL. Thread-safe. */
const json_t *sb_results_document(void);

/* The document's "histogram" object for `h` (unit, range, total, the
   non-empty buckets, the V2 encoding); also used by merged documents.
   New reference; NULL-safe fields on OOM. Thread-safe. */
json_t *sb_results_histogram_json(const sb_hdr_t *h);

/* {name: {value, per_minute, count, help, scope}} of the run's figures
   (core/sb_figure.h) over a window of `window_s` seconds, or NULL when
   there are none. New reference. Any thread. */
json_t *sb_results_figures_json(double window_s);

/* Writes `doc` to `path`: a regular file through a temporary name
   renamed into place (a reader never sees half a document), anything
   else (/dev/stdout, a FIFO) in place. Returns 0, or -1 after an ERROR
   message naming the file. Any thread. */
int sb_results_write_json(const json_t *doc, const char *path);

#endif
