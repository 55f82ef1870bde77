/*
 * The "manifest" of a --results document (docs/results.md
 * "--results=FILE.json", docs/results.schema.json): what ran, where and
 * how: the bmk version, the command line (passwords masked), the test,
 * the host, the measured start time (sb_results_start), --series-id and
 * --tag, the random seed, every option's value (passwords masked, URLs
 * redacted) and the server seen by the statistics probe.
 *
 * Threads: the setters are called by the main thread before the run;
 * the rest read that state and may be called from any thread after it.
 * Nothing here fails but for lack of memory (jansson's NULL members).
 */
#ifndef SB_RESULTS_MANIFEST_H
#define SB_RESULTS_MANIFEST_H

#include <stddef.h>

#include <jansson.h>

/* Remembers the test's name (e.g. "oltp_read_write") for the manifest.
   Main thread, before the run. */
void sb_results_set_test(const char *name);

/* Remembers the command line for the manifest, every password given in
   an option (--x-password=...) or a URL masked. Main thread, before the
   run. */
void sb_results_set_cmdline(int argc, char **argv);

/* The document's "manifest" object (bmk version, command line, test,
   host, start time from sb_results_start, series, tags, random seed,
   every option's value with passwords masked, the server seen by the
   statistics probe, else null). New reference. Thread-safe (reads
   main-thread state set before the run). */
json_t *sb_results_manifest_json(void);

/* `epoch_s` (seconds since the epoch) as the manifest's start_time text,
   "YYYY-MM-DDThh:mm:ssZ" (UTC), into `buf` (`len` bytes). Thread-safe. */
void sb_results_iso_time(double epoch_s, char *buf, size_t len);

#endif
