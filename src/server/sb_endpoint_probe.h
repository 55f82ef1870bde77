/*
 * --endpoints (docs/endpoints.md): the per-endpoint block of the final
 * report and the replicas' lag sampled once a second.
 *
 * A probe takes every endpoint's counters at the window's edges
 * (core/sb_endpoints.h: ep->window) and prints the block after the final
 * report (not under the sysbench persona). An output starts a sampler
 * thread with the measured time that samples each replica's lag once a
 * second on a connection of its own per replica that counts nowhere
 * (a replica that hangs holds that thread, not the reporter's lines): MariaDB/MySQL
 * SHOW REPLICA STATUS's Seconds_Behind_Master (Seconds_Behind_Source),
 * PostgreSQL now() - pg_last_xact_replay_timestamp() on the standby. The
 * interval lines and the --results intervals show the latest sample.
 */
#ifndef SB_ENDPOINT_PROBE_H
#define SB_ENDPOINT_PROBE_H

#include "core/sb_output.h"

/* With endpoints loaded: registers the probe and fills *out with the lag
   sampler's output (register it before the outputs that show the lag)
   and returns 1; without endpoints returns 0 (nothing registered).
   Returns -1 when the probe table is full. Main thread, before the run. */
int sb_endpoint_register(sb_output_t *out);

#endif
