/*
 * Internal interface of the PostgreSQL driver, shared by drv_pgsql.c
 * (options, blocking operations, statements) and drv_pgsql_async.c (the
 * start/continue forms of db_driver.h).
 */
#ifndef DRV_PGSQL_H
#define DRV_PGSQL_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

#include "drivers/db_driver.h"

/* ---- per-connection and per-statement state ----------------------------- */

enum { AOP_NONE = 0, AOP_CONNECT, AOP_QUERY, AOP_EXEC, AOP_PREPARE, AOP_CLOSE };

typedef struct {
  PGconn *pg;
  unsigned id;             /* process-unique: tells stale statements apart */
  db_value_t *vals;        /* row buffer shared by this connection's results */
  unsigned nvals;
  char *qbuf;              /* NUL-terminated copy of the current text query */
  size_t qcap, qlen;
  /* asynchronous operation in progress */
  int aop;
  bool flushing;           /* output not fully sent yet */
  bool rolling_back;       /* waiting for our own ROLLBACK */
  PGresult *ares;          /* result kept so far */
  db_conn_t *each_con;     /* a text query of db_query_each: its connection */
  db_result_t *ars;
  /* fast load (drv_pgsql_copy.c): the COPY statement while it runs */
  char *copy_sql;
  size_t copy_len;
  unsigned pl_pending;     /* pipeline: statements queued, results not read */
  bool pl_synced;          /* pipeline: the queued batch has its sync point */
  bool pl_failed;          /* pipeline: a statement failed, its fetch reads
                              on to the sync point before reporting it */
  bool pl_drained;         /* pipeline: that sync point is read: fetches
                              report it until the next batch */
  db_stmt_t *astmt;        /* statement being prepared / closed */
} pg_conn_t;

typedef struct {
  char name[24];
  unsigned conn_id;        /* pg_conn_t.id it was prepared on */
  unsigned n;              /* $n placeholders */
  const char **vals;       /* PQexecPrepared paramValues */
  char *text;              /* an unnamed statement's text ($n), sent with
                              each execution; NULL: prepared as name */
  char **slot;             /* per-parameter text buffers, grown, reused */
  size_t *cap;
} pg_stmt_t;

/* drv_pgsql.c */
bool pgd_set_pg_error(db_conn_t *con, const PGresult *res, const char *api,
                         const char *sql, size_t len);
void pgd_succeeded(db_conn_t *con);
void pgd_reset_rs(db_result_t *rs);
bool pgd_store(pg_conn_t *pc, PGresult *res, db_result_t *rs);
void pgd_keep(pg_conn_t *pc, PGresult *res);
/* A new libpq connection (async: PQconnectStartParams) with the driver's
   options, or con->endpoint's address, credentials and TLS (--endpoints);
   a database given as a connection string or URI is expanded, as libpq's
   expand_dbname does. */
PGconn *pgd_open_params(const db_conn_t *con, bool async);
pg_conn_t *pgd_new_pc(void);
int pgd_connect_failed(db_conn_t *con);
void pgd_connected(db_conn_t *con);
const char *pgd_copy_sql(pg_conn_t *pc, const char *sql, size_t len);
void pgd_build_params(db_stmt_t *stmt, pg_stmt_t *ps);
pg_stmt_t *pgd_current_ps(db_stmt_t *stmt);

/* Sends an execution of `ps` with its parameters (pgd_build_params):
   PQsendQueryParams with the text of an unnamed statement, else
   PQsendQueryPrepared. libpq's 1 (sent) or 0. The connection's thread. */
int pgd_send_ps(pg_conn_t *pc, const pg_stmt_t *ps);
/* Fatal "out of memory" (the driver cannot go on without its buffers). */
void pgd_oom(void);
/* realloc that never returns NULL (pgd_oom instead); n = 0 gives 1 byte. */
void *pgd_xrealloc(void *p, size_t n);
/* Collects the results after a PQsend* that returned `sent` (PQexec's
   loop, keeping pgd_keep's choice); NULL when nothing was sent. */
/* Blocking mode with --db-query-timeout: waits (poll) until libpq has a
   whole result to give, at most the timeout; returns false, with the
   socket shut down, when the timeout passed (the caller's next
   PQgetResult then fails as on a broken connection). Without the option,
   or when a result is already there, returns true at once. */
bool pgd_wait_input(PGconn *pg);

PGresult *pgd_collect(pg_conn_t *pc, int sent);
/* Completes a blocking operation: result into `rs` (0), or the error
   recorded, ROLLBACK sent when a transaction is open (1). */
int pgd_finish(db_conn_t *con, PGresult *res, db_result_t *rs,
               const char *api, const char *sql, size_t len);

/* drv_pgsql_stmt.c: the ops-table prepare / execute / close entries (same
   contracts as db_driver_ops_t; one thread per connection). */
int pgd_prepare(db_stmt_t *stmt);
int pgd_execute(db_stmt_t *stmt, db_result_t *rs);
void pgd_close(db_stmt_t *stmt);
/* A new handle for `stmt` on the current session (replacing an older
   one), with the query rewritten to $n placeholders in *text (malloc'ed,
   the caller frees it; a native statement's text as it is, with
   stmt->nparams parameters). */
pg_stmt_t *pgd_ps_new(db_stmt_t *stmt, char **text);
/* Frees the statement's handle (no server round trip). */
void pgd_ps_free(db_stmt_t *stmt);
/* True when DEALLOCATE of the statement cannot fail (see pgd_close). */
bool pgd_can_deallocate(db_stmt_t *stmt);
/* "DEALLOCATE <name>" into sql (len bytes). */
void pgd_deallocate_sql(const db_stmt_t *stmt, char *sql, size_t len);

/* drv_pgsql_copy.c: the fast-load entries of db_driver_ops_t (COPY FROM
   STDIN), same contracts; one thread per connection. */
int pgd_load_start(db_conn_t *con, const char *table, const char *cols);
int pgd_load_send(db_conn_t *con, const char *data, size_t len, db_result_t *rs);
int pgd_load_end(db_conn_t *con, db_result_t *rs);
void pgd_load_abort(db_conn_t *con);
/* drv_pgsql_pipeline.c: the pipeline ops of db_driver.h. */
int pgd_pipeline_begin(db_conn_t *con);
int pgd_pipeline_queue(db_conn_t *con, db_stmt_t *stmt, const char *sql, size_t len);
int pgd_pipeline_sync(db_conn_t *con);
int pgd_pipeline_fetch(db_conn_t *con, db_result_t *rs);
db_step_t pgd_pipeline_fetch_start(db_conn_t *con, db_result_t *rs, int *rc);
db_step_t pgd_pipeline_fetch_cont(db_conn_t *con, int ready_events, int *rc);
int pgd_pipeline_end(db_conn_t *con);

/* drv_pgsql_async.c */
/* Sets con's wait request: `events` (DB_WAIT_*) on the connection's
   socket, no timeout; returns DB_STEP_WAIT. */
db_step_t pgd_wait_for(db_conn_t *con, int events);
/* One step's input and output on a non-blocking connection, with the
   ready events `ready`: reads what arrived (*broken true when the
   connection failed, so PQgetResult no longer waits) and flushes what is
   left to send (pc->flushing). Returns true when the flush must wait for
   the socket (then set the wait for reading and writing). */
bool pgd_async_io(db_conn_t *con, int ready, bool *broken);
db_step_t pg_query_start(db_conn_t *con, const char *sql, size_t len,
                                db_result_t *rs);
db_step_t pg_query_cont(db_conn_t *con, int ready_events);
db_step_t pg_execute_start(db_stmt_t *stmt, db_result_t *rs);
db_step_t pg_execute_cont(db_stmt_t *stmt, int ready_events);
db_step_t pg_connect_start(db_conn_t *con);
db_step_t pg_connect_cont(db_conn_t *con, int ready_events);
db_step_t pg_prepare_start(db_stmt_t *stmt);
db_step_t pg_prepare_cont(db_stmt_t *stmt, int ready_events);
db_step_t pg_close_start(db_stmt_t *stmt);
db_step_t pg_close_cont(db_stmt_t *stmt, int ready_events);

#endif
