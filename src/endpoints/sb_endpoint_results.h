/*
 * --endpoints in the --results document (docs/endpoints.md,
 * docs/results.schema.json): the top-level "endpoints" array and each
 * interval's "replica_lag_s", "replica_behind" and
 * "replica_replay_lag_s".
 */
#ifndef SB_RESULTS_ENDPOINTS_H
#define SB_RESULTS_ENDPOINTS_H

#include <jansson.h>

/* [{name, driver, role, reads, writes, other, errors, reconnects,
   connects, latency_ms, lag_max_s, behind_max, behind_unit,
   replay_lag_max_s}] over the measured window, one per endpoint; NULL
   without --endpoints. Main thread, after the window's end. */
json_t *sb_endpoint_results_json(void);

/* Each replica's latest position sample ({"r1": 12} or null): what it
   has received and not applied, in the endpoints' behind unit
   (sb_endpoints_behind_unit); NULL without replicas. New reference. */
json_t *sb_endpoint_results_behind_json(void);

/* {replica name: seconds or null} of the last lag samples; NULL without
   replicas. Any thread (the samples are atomic). */
json_t *sb_endpoint_results_lag_json(void);

/* {replica name: seconds or null} of the primary's latest replay lag
   samples (PostgreSQL pg_stat_replication.replay_lag); NULL unless they
   are sampled (sb_endpoints_replay_lag_sampled). Any thread. */
json_t *sb_endpoint_results_replay_lag_json(void);

#endif
