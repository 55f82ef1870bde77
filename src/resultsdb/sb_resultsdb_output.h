/* --save: the results database as an output of the engine
   (core/sb_output.h); docs/results-db.md. */
#ifndef SB_STORE_OUTPUT_H
#define SB_STORE_OUTPUT_H

#include <stdbool.h>

#include <jansson.h>

#include "core/sb_output.h"

/* Registers --save and --results-db (bmk extension options). 0 or -1. */
int sb_resultsdb_register_options(void);

/* True when this run is to be saved: --save, --results-db or
   $BMK_RESULTS_DB given. */
bool sb_resultsdb_save_requested(void);

/*
 * Fills `out` with the output that saves the run: it asks the result
 * files' module to keep the run's JSON document, opens the database at
 * the start (a failure is a WARNING: the run goes on) and at the end
 * stores the document (a failure is the output's failure: named, exit
 * code 1; the report and --results are complete). Register it after the
 * result files' output. Main thread.
 */
void sb_resultsdb_output(sb_output_t *out);

/* Saves `doc` (a bmk-results document: a command's, not the engine's
   run) into the results database of --results-db / $BMK_RESULTS_DB and
   prints "Saved as run N in ...". Returns 0, or -1 after an ERROR
   message. Any one thread at a time (it opens and closes a store of its
   own). */
int sb_resultsdb_save_document(const json_t *doc);

#endif
