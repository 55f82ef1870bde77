/*
 * The load generator's own CPU in the --results document
 * (docs/results.md "The client's own CPU", docs/results.schema.json):
 * each interval's "client" object and the summary's.
 */
#ifndef SB_RESULTS_CLIENT_H
#define SB_RESULTS_CLIENT_H

#include <jansson.h>

#include "core/sb_stat.h"

/* An interval's {cpu, busiest_worker, busiest_worker_on_cpu, saturated},
   or NULL when the client was not measured (built-in tests). New
   reference. Any thread. */
json_t *sb_results_client_interval_json(const sb_client_t *c);

/* The run's {engine, workers, cpus, cpu, busiest_worker,
   busiest_worker_on_cpu, intervals, saturated_intervals, saturated,
   loop_blocking_calls} (the first six null when the client was not
   measured). New reference. */
json_t *sb_results_client_json(const sb_client_t *c);

#endif
