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
 * PostgreSQL now() - pg_last_xact_replay_timestamp() on the standby; and
 * in the same statement how far what the replica has applied is behind
 * what it has received (MariaDB: GTIDs, SHOW ALL SLAVES STATUS's
 * Gtid_IO_Pos against Gtid_Slave_Pos; PostgreSQL: WAL bytes,
 * pg_last_wal_receive_lsn() - pg_last_wal_replay_lsn()). The interval
 * lines and the --results intervals show the latest samples.
 */
#ifndef SB_ENDPOINT_PROBE_H
#define SB_ENDPOINT_PROBE_H

#include <stdbool.h>

#include "core/sb_output.h"
#include "drivers/db_driver.h"

/* With endpoints loaded: registers the probe and fills *out with the lag
   sampler's output (register it before the outputs that show the lag)
   and returns 1; without endpoints returns 0 (nothing registered).
   Returns -1 when the probe table is full. Main thread, before the run. */
int sb_endpoint_register(sb_output_t *out);

/* on: waits (up to 2 s) until the replica lag sampler is between two
   rounds of samples and holds it there; true when held (false: a replica
   holds the sampler in a statement; nothing is held then). off: releases
   it (only after a true). Lets the server-statistics sampler read the
   servers' counters with no sampler statement in flight. Main thread. */
bool sb_endpoint_probe_hold(bool on);

/* Runs fn on each of the lag sampler's open connections (to publish
   their statistics); only while held. Main thread. */
void sb_endpoint_probe_each_con(void (*fn)(db_conn_t *con, void *arg), void *arg);

/* How many transactions the GTID position `applied` lacks of `received`
   (MariaDB GTID lists "DOMAIN-SERVER-SEQ,..."): for each domain of
   `received`, its sequence number less `applied`'s in that domain (0 when
   `applied` has none there), summed, never below 0 per domain. -1 when
   either list is not in that form (an empty list is a valid, empty one).
   Pure function. */
long long sb_gtid_behind(const char *received, const char *applied);

#endif
