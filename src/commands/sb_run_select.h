/* Naming runs on the command line (bmk compare, bmk report): a run id of
   the results database, ids separated by commas, tag:KEY=VALUE (every
   saved run with that tag), series:ID (every saved run of that series id)
   or a --results file (docs/results-db.md). */
#ifndef SB_RUN_SELECT_H
#define SB_RUN_SELECT_H

#include <stdint.h>

#include <jansson.h>

#include "resultsdb/sb_resultsdb.h"

/* Receives one selected run's document (a new reference, taken over),
   its run id (0 for a file) and a name for messages ("run 17" or the
   file's path; valid during the call). Returns 0, or non-zero to stop
   (after printing why). */
typedef int (*sb_run_select_fn)(json_t *doc, int64_t id, const char *name, void *arg);

/*
 * Resolves `spec` and calls `fn` for each of its runs, in order (a tag:
 * or series: oldest first). A spec that is tag:..., series:..., or digits
 * and commas, is read
 * from the results database (`db`: --results-db or NULL for the default;
 * `*st` opened on first use and kept for the next call, closed by the
 * caller with sb_resultsdb_close); anything else is a result file, loaded
 * and checked with sb_results_file_load.
 * Returns 0, or 1 after a message on stderr prefixed with `prog` ("bmk
 * compare"): a file that is not a result document, a database that
 * cannot be opened, a run id that does not exist ("no run 99 in the
 * results database"), a selector that selects nothing, or `fn` failing.
 * Main thread.
 */
int sb_run_select(const char *prog, const char *spec, const char *db, sb_resultsdb_t **st,
                  sb_run_select_fn fn, void *arg);

#endif
