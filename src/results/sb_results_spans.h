/*
 * The run's spans (core/sb_spans.h) in the results document: the
 * member "analytic_queries", one object per query the workload's streams
 * completed in the measured run ({"stream", "query", "start_s", "end_s"},
 * seconds since the run's start; docs/results.md).
 */
#ifndef SB_RESULTS_SPANS_H
#define SB_RESULTS_SPANS_H

#include <jansson.h>

/* Sets doc's "analytic_queries" when any span was recorded (nothing
   otherwise, nor when out of memory). Any thread, once the workload's
   streams have ended. */
void sb_results_spans_add(json_t *doc);

#endif
