/*
 * --endpoints in the --results document (docs/endpoints.md,
 * docs/results.schema.json): the top-level "endpoints" array and each
 * interval's "replica_lag_s".
 */
#ifndef SB_RESULTS_ENDPOINTS_H
#define SB_RESULTS_ENDPOINTS_H

#include <jansson.h>

/* [{name, driver, role, reads, writes, other, errors, reconnects,
   connects, lag_max_s}] over the measured window, one per endpoint; NULL
   without --endpoints. Main thread, after the window's end. */
json_t *sb_results_endpoints_json(void);

/* {replica name: seconds or null} of the last lag samples; NULL without
   replicas. Any thread (the samples are atomic). */
json_t *sb_results_lag_json(void);

#endif
