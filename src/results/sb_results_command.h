/*
 * The --results document of a command that is not the engine's run
 * (`bmk tpch run`: a command whose threads time their own steps). It has
 * the run document's shape (docs/results.md: format, manifest, an empty
 * "intervals", a "summary" with how the run ended, its time and the
 * figures set with sb_figure_set) plus one section of the command's own
 * (e.g. "tpch": its per-query table). Readers of result files (`bmk
 * runs`, `bmk compare`, the results database) take it as any run's
 * document: no events, no histogram, its figures compared by name.
 */
#ifndef SB_RESULTS_COMMAND_H
#define SB_RESULTS_COMMAND_H

#include <jansson.h>

/*
 * Builds the document: the manifest with start time `start_epoch_s`
 * (seconds since the epoch), a summary of `time_s` seconds with `threads`
 * threads, `interrupted` (NULL: completed) and `exit_code`, the figures
 * set so far, and `section` (a name, e.g. "tpch") holding `body` (taken
 * over; may be NULL). Returns a new reference, or NULL when out of
 * memory. Main thread or the command's reporting thread, once per run.
 */
json_t *sb_results_command_doc(const char *section, json_t *body, double start_epoch_s,
                               double time_s, unsigned threads, const char *interrupted,
                               int exit_code);

#endif
