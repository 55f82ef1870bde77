/*
 * Server-side statistics per endpoint (--endpoints with --db-server-stats;
 * docs/endpoints.md "Results"): each endpoint's server's own statement and
 * transaction counters over the measured window, beside what bmk sent that
 * endpoint, so the routing can be checked against the servers themselves.
 *
 *   MariaDB/MySQL: SHOW GLOBAL STATUS Questions (statements) and
 *                  Com_commit + Com_rollback (transactions ended by
 *                  COMMIT / ROLLBACK); on a replica, the transactions its
 *                  replication applied in the window (the growth of
 *                  gtid_slave_pos, MariaDB) are taken off the latter,
 *                  because the applier's commits count in Com_commit.
 *   PostgreSQL:    pg_stat_database (current database) xact_commit +
 *                  xact_rollback; PostgreSQL has no statement counter.
 *
 * bmk's side per endpoint: the statements routed to it (reads + writes +
 * other + errors, as in the Endpoints block) plus bmk's own (its
 * samplers' statements and the statistics flush requests, counted by the
 * SQL layer: SB_EPC_OWN_STMTS), and the transactions those ended
 * (SB_EPC_XACTS + SB_EPC_OWN_XACTS: drivers/db_conn.c
 * db_endpoint_after_stmt, from the driver's transaction status after
 * each statement).
 *
 * The samples are taken by the server-statistics sampler
 * (server/sb_server_stats.c) at the same parked moments as its own, with
 * the replica lag sampler held (sb_endpoint_probe_hold), so no statement
 * is in flight on any endpoint. Main thread only.
 */
#ifndef SB_ENDPOINT_STATS_H
#define SB_ENDPOINT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/db_driver.h"

/* One endpoint's reconciliation over the window. */
typedef struct {
  bool have;                  /* both samples were read */
  bool has_statements;        /* the server counts statements (MySQL) */
  bool has_replicated;        /* `replicated` was read (a MariaDB replica) */
  uint64_t server_statements; /* Questions */
  uint64_t server_xacts;      /* Com_commit + Com_rollback, less `replicated`;
                                 xact_commit + xact_rollback */
  uint64_t replicated;        /* transactions replication applied */
  uint64_t routed_statements, own_statements; /* bmk's, in the window */
  uint64_t routed_xacts, own_xacts;
} sb_ep_server_t;

/* Opens a statistics connection to every endpoint through `drv` (quietly:
   one that cannot connect is left out, with one WARNING naming it).
   Called before the start sample's statistics flush, so that the
   connections' own start-up is outside the window. Main thread. */
void sb_endpoint_stats_open(db_driver_t *drv);

/* Takes the start (`first`) or end sample of every open endpoint's
   counters and of bmk's counters for it. The caller has parked the
   workers, held the lag sampler and (PostgreSQL 15+) made every
   connection publish its statistics. A failed read leaves that endpoint
   without figures (a WARNING). Main thread. */
void sb_endpoint_stats_sample(bool first);

/* The figures of endpoint i (file order), or NULL when it has none
   (not sampled, or no --endpoints). Main thread, after the end sample. */
const sb_ep_server_t *sb_endpoint_stats_get(unsigned i);

/* Prints the per-endpoint block of the server-side statistics (nothing
   when no endpoint has figures). Main thread. */
void sb_endpoint_stats_print(void);

/* Closes the connections and forgets the figures. Main thread. */
void sb_endpoint_stats_close(void);

#endif
