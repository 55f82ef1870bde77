/*
 * --endpoints (docs/endpoints.md): the per-endpoint block of the final
 * report and the replicas' lag sampled once a second.
 *
 * A probe takes every endpoint's counters at the window's edges
 * (core/sb_endpoints.h: ep->window) and prints the block after the final
 * report (not under the sysbench persona). An output starts a sampler
 * thread with the measured time that samples, once a second, each replica
 * and the primary (the default route's endpoint), each on a connection of
 * its own that counts nowhere (a server that hangs holds that thread, not
 * the reporter's lines).
 * On each replica its lag in seconds: MariaDB/MySQL SHOW SLAVE STATUS's
 * Seconds_Behind_Master (Seconds_Behind_Source), PostgreSQL
 * now() - pg_last_xact_replay_timestamp() on the standby. How far it is
 * behind, against the primary's position: MariaDB the GTIDs of the
 * primary's gtid_binlog_pos (SHOW GLOBAL VARIABLES) the replica has not
 * applied (Gtid_Slave_Pos); PostgreSQL the WAL bytes the primary has
 * written that the standby has not replayed (pg_stat_replication, its row
 * matched by "standby_name"), with the primary's replay_lag. Without the
 * primary's answer: what the replica received and has not applied
 * (Gtid_IO_Pos against Gtid_Slave_Pos; pg_last_wal_receive_lsn() -
 * pg_last_wal_replay_lsn()). The interval lines and the --results
 * intervals show the latest samples.
 */
#ifndef SB_ENDPOINT_PROBE_H
#define SB_ENDPOINT_PROBE_H

#include <stdbool.h>

#include "core/sb_endpoints.h"
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

/* Which row of the primary's pg_stat_replication belongs to a replica
   endpoint: the first row whose application_name (names[0..nrows-1],
   NULL entries never match) is `standby_name` (the endpoint's
   "standby_name"); with standby_name NULL, row 0 when there is exactly
   one row and `nreplicas` (the file's replica endpoints) is 1. Returns
   the row's index, or -1 for none. Pure function. */
int sb_standby_row(const char *standby_name, const char *const *names, unsigned nrows,
                   unsigned nreplicas);

/* True when the primary's replay lag per replica is sampled (PostgreSQL
   endpoints with a replica; the interval line and --results fields are
   shown). Thread-safe once registered. */
bool sb_endpoints_replay_lag_sampled(void);

/* The latest replay lag of replica `ep` as the primary reports it
   (pg_stat_replication.replay_lag) in seconds, or -1 when there is none
   (no matching row, NULL: the standby has replayed all it was sent, or the
   sample is older than 5 s). Thread-safe (the sampler writes). */
double sb_endpoint_replay_lag(const sb_endpoint_t *ep);

/* The largest replay lag sample of the measured window in seconds, or -1.
   Thread-safe. */
double sb_endpoint_replay_lag_max(const sb_endpoint_t *ep);

#endif
