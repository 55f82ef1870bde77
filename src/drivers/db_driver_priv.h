/* Internal helpers shared by the generic SQL layer's files (db_driver.c,
   db_conn.c, db_query.c, db_stmt.c, db_bulk.c, db_load.c, db_async.c). */
#ifndef DB_DRIVER_PRIV_H
#define DB_DRIVER_PRIV_H

#include "drivers/db_driver.h"

/* db_loop_thread's flag of the calling thread. */
extern _Thread_local bool db_tl_loop_thread;

/* At the start of a blocking call of the SQL API: counts it when the
   calling thread is an event-loop worker running a VU (db_loop_thread). */
static inline void db_blocking_call(void)
{
  if (db_tl_loop_thread)
    db_loop_count_blocking();
}

/* Frees the connection's live result, if any. */
void db_rs_release(db_result_t *rs);

/* Counts a statement's outcome and returns the connection's result, or
   NULL on error (rebuilding a lost connection in place when the error is
   ignorable). `rc` is the driver call's return value. */
db_result_t *db_finish(db_conn_t *con, int rc, db_stmt_t *stmt);

/* The endpoint whose counters a connection's statements count in: NULL
   without --endpoints and for uncounted connections (monitors, the lag
   sampler: db_connection_uncounted). */
static inline sb_endpoint_t *db_counted_endpoint(const db_conn_t *con)
{
  return con->thread_id == SB_TID_UNCOUNTED ? NULL : con->endpoint;
}

/* Before a new connection's first connect: the default route when no
   route was chosen for it (db_connection_route). 0, or -1 (FATAL
   printed; the connection is then invalid). */
int db_connection_route_default(db_conn_t *con);

/* Counts a statement's outcome class (SB_CNT_READ/WRITE/OTHER) on the
   connection's endpoint (--endpoints; nothing without one), and records
   its latency (since db_clear_error set op_start_ns) in con->ep_lat
   (db_endpoint_latency: the connection's thread). */
void db_endpoint_latency(db_conn_t *con);

static inline void db_endpoint_count_result(db_conn_t *con, sb_counter_type c)
{
  sb_endpoint_t *ep = db_counted_endpoint(con);
  if (ep != NULL)
  {
    sb_endpoint_count(ep, c == SB_CNT_READ ? SB_EPC_READS :
                      c == SB_CNT_WRITE ? SB_EPC_WRITES : SB_EPC_OTHER, 1);
    db_endpoint_latency(con);
  }
}

/* --endpoints: after every statement on `con` that reached the driver
   (done or failed; not a lost connection's), counts a transaction it
   ended on its endpoint (SB_EPC_XACTS, or SB_EPC_OWN_XACTS for bmk's own
   uncounted connections, which also count the statement itself in
   SB_EPC_OWN_STMTS): the connection left a transaction block, or, where
   the driver's autocommit_is_xact, ran outside one. Nothing without an
   endpoint. The connection's thread; atomic counters. */
void db_endpoint_after_stmt(db_conn_t *con);

/* --endpoints: `con` has just connected (or reconnected): it is not in a
   transaction, and where the driver's connect_is_xact the session's
   start-up was a transaction of the server's (counted as after a
   statement). The connection's thread. */
void db_endpoint_connected(db_conn_t *con);

/* Hands the connection's statement latencies so far to endpoint `ep` (the
   connection is freed, or moves to another endpoint) and empties its own.
   The connection's thread; the endpoint's retired sum is locked. */
void db_endpoint_retire_latency(db_conn_t *con, sb_endpoint_t *ep);

/* --on-endpoint-failure=next (core/sb_endpoints.h) in a rebuild of a lost
   connection, blocking (db_conn.c) or on the event loop (db_async.c):
   begin remembers the endpoint it was on; after each failed connect
   attempt, next moves con->endpoint to the following candidate and
   returns true (try it at once), or returns false with the original
   endpoint back (every candidate failed, or the policy is reconnect:
   back off, then try again); end, once connected (ok) or given up (!ok),
   counts a failover on the original endpoint when the connection moved
   (a NOTICE names both) or puts the original back. The connection's own
   thread; no shared state but the atomic counters. */
void db_failover_begin(db_conn_t *con);
bool db_failover_next(db_conn_t *con);
void db_failover_end(db_conn_t *con, bool ok);

/* A failed pipeline send: counted like a failed statement; returns -1. */
int db_pipeline_queue_failed(db_conn_t *con);

/* A pipeline batch reached its sync point (fetched, or drained by
   db_pipeline_end): counts the batch's transaction on the connection's
   endpoint as db_endpoint_after_stmt counts a statement's (once per
   batch: pl_batch; nothing without an endpoint) and ends its latency
   start. The connection's thread. */
void db_pipeline_batch_done(db_conn_t *con);

/* Before fetching a pipeline's result, after db_clear_error: the
   statement's latency starts at the batch's send (db_pipeline_sync), not
   at the fetch. */
static inline void db_pipeline_fetch_clock(db_conn_t *con)
{
  if (con->pl_sync_ns != 0)
    con->op_start_ns = con->pl_sync_ns;
}

/* The driver's pipeline_fetch code `rc` as 0, 1 or 2: 3 (the statement
   failed, its batch read through the sync point) is a failure (1) whose
   count, after it, counts the batch's transaction too (the connection's
   transaction status is known then): the batch is done. */
static inline int db_pipeline_fetch_rc(db_conn_t *con, int rc)
{
  if (rc != 3)
    return rc;
  con->pl_batch = false;
  con->pl_sync_ns = 0;
  return 1;
}

/* False (with the "already closed" ALERT) for a closed connection. */
bool db_usable(db_conn_t *con);

/* A connect attempt on `con` failed: records it (db_last_connect_error)
   and frees the object. */
void db_connection_discard(db_conn_t *con);

/* A connect attempt on `con` succeeded: records it, marks it ready and
   adds it to the registry of live connections. */
void db_connection_register(db_conn_t *con);

/* con's socket is established (a connect completed): gives it a new
   con->sock_id. Thread-safe (an atomic counter). */
void db_sock_settled(db_conn_t *con);

/* con's socket is about to go (disconnect): con->sock_id = 0. */
static inline void db_sock_unsettled(db_conn_t *con)
{
  con->sock_id = 0;
}

/* Per-thread client-library setup for `drv` (once per thread). 0 ok. */
int db_thread_setup(const db_driver_t *drv);

/* Records the outcome of the calling thread's connect attempt for
   db_last_connect_error(). */
void db_note_connect(const db_conn_t *con, bool failed);

/* Releases every statement's server-side handle and marks it stale (it is
   prepared again on the next connection). */
void db_release_statements(db_conn_t *con);

/* True while a lost connection should still be rebuilt (the engine's
   retry predicate). */
bool db_should_retry(void);

/* Client-side emulation: writes the statement's text with its parameters
   substituted into stmt->emu_buf; returns its length. */
size_t db_stmt_emulate(db_stmt_t *stmt);

/* A new statement object for `query` (len bytes) on `con`, not linked
   and not prepared; emulated when --db-ps-mode=disable. NULL when out of
   memory. */
db_stmt_t *db_stmt_new(db_conn_t *con, const char *query, size_t len);

/* Unlinks a statement from its connection and frees it (its server-side
   handle must already be released). */
void db_stmt_free(db_stmt_t *stmt);

#endif
