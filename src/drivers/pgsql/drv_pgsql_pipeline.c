/*
 * PostgreSQL driver: the pipeline ops of db_driver.h, on libpq's pipeline
 * mode (libpq 14+). A batch of statements goes out without waiting for
 * results and comes back in order after one sync point: one round trip
 * for what would otherwise be one per statement (bmk's tpcc pipeline
 * mode, --tpcc-mode=pipeline). Blocking like the driver's other
 * operations, with an asynchronous form of the fetch for the event loop
 * (which also reads a failed batch through its sync point, so that
 * leaving the mode after an error needs no wait);
 * batches are small (a few KB), so the server's replies never fill its
 * buffers while we are still sending.
 */
#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include "drivers/db_driver.h"
#include "drv_pgsql.h"

/* The connection's PGconn, or NULL with an error recorded. */
static PGconn *conn_of(db_conn_t *con, const char *api)
{
  pg_conn_t *pc = con->ptr;
  if (pc == NULL || pc->pg == NULL)
  {
    db_set_error(con, DB_ERROR_FATAL, 0, "08003", "no connection", api, NULL, 0);
    return NULL;
  }
  return pc->pg;
}

/* A libpq call failed outside any result: the connection's message; a
   broken connection is "lost". */
static int send_failed(db_conn_t *con, const char *api)
{
  pgd_set_pg_error(con, NULL, api, NULL, 0);
  return 1;
}

int pgd_pipeline_begin(db_conn_t *con)
{
  PGconn *pg = conn_of(con, "PQenterPipelineMode");
  if (pg == NULL)
    return 1;
  pg_conn_t *pc = con->ptr;
  pc->pl_pending = 0;
  pc->pl_synced = false;
  pc->pl_failed = false;
  pc->pl_drained = false;
  if (PQpipelineStatus(pg) != PQ_PIPELINE_OFF)
    return 0;
  if (!PQenterPipelineMode(pg))
    return send_failed(con, "PQenterPipelineMode");
  return 0;
}

int pgd_pipeline_queue(db_conn_t *con, db_stmt_t *stmt, const char *sql, size_t len)
{
  PGconn *pg = conn_of(con, "PQsendQueryPrepared");
  if (pg == NULL)
    return 1;
  pg_conn_t *pc = con->ptr;
  int ok;
  if (stmt != NULL)
  {
    pg_stmt_t *ps = stmt->ptr;
    if (ps == NULL || ps->conn_id != pc->id)
    {
      /* Preparing needs its own round trip, which pipeline mode cannot
         interleave: statements are prepared before the batch. */
      db_set_error(con, DB_ERROR_FATAL, 0, NULL, "statement not prepared on this session "
                   "(prepare it before the pipeline batch)", "PQsendQueryPrepared",
                   stmt->query, stmt->query_len);
      return 1;
    }
    pgd_build_params(stmt, ps);
    ok = pgd_send_ps(pc, ps);
  }
  else
    ok = PQsendQueryParams(pg, pgd_copy_sql(pc, sql, len), 0, NULL, NULL, NULL, NULL, 0);
  if (!ok)
    return send_failed(con, "PQsendQueryPrepared");
  pc->pl_pending++;
  pc->pl_synced = false;
  return 0;
}

int pgd_pipeline_sync(db_conn_t *con)
{
  PGconn *pg = conn_of(con, "PQpipelineSync");
  if (pg == NULL)
    return 1;
  if (!PQpipelineSync(pg))
    return send_failed(con, "PQpipelineSync");
  ((pg_conn_t *) con->ptr)->pl_synced = true;
  return 0;
}

/* Takes the batch's results up to the next statement's or the sync
   point: `blocking`, waiting for each (PQgetResult waits; --db-query-
   timeout through pgd_wait_input, after which it fails at once); else
   those libpq has (all of them when `broken`: a failed connection no
   longer waits). A statement that failed in a synced batch is reported
   once the rest of the batch, up to its sync point, is read (the server
   skips those statements; pl_failed meanwhile). Returns true when the
   fetch is complete, with *rc 0 (a result in `rs`), 1 (the connection
   failed, or a statement of a batch without its sync point), 3 (the
   statement failed and the batch is read through its sync point) or 2
   (the sync point); false when libpq needs more input first (not
   blocking). */
static bool take_results(db_conn_t *con, PGconn *pg, db_result_t *rs, bool blocking,
                         bool broken, int *rc)
{
  pg_conn_t *pc = con->ptr;
  for (;;)
  {
    if (blocking)
      pgd_wait_input(pg);
    else if (!broken && PQisBusy(pg))
      return false;
    PGresult *res = PQgetResult(pg);
    if (res == NULL)
    {
      /* Nothing left at all: the connection broke (or timed out). */
      pc->pl_failed = false;
      *rc = send_failed(con, "PQgetResult");
      return true;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_PIPELINE_SYNC)
    {
      PQclear(res);
      if (pc->pl_pending == 0)
      {
        *rc = pc->pl_failed ? 3 : 2;
        pc->pl_drained = pc->pl_failed;
        pc->pl_failed = false;
        return true;
      }
      continue;
    }
    /* One result per statement, then a NULL closing it. */
    PGresult *extra;
    while ((extra = PQgetResult(pg)) != NULL)
      PQclear(extra);
    if (pc->pl_pending > 0)
      pc->pl_pending--;
    if (st == PGRES_PIPELINE_ABORTED)
    {
      PQclear(res);
      continue;
    }
    if (pgd_store(pc, res, rs))
    {
      pgd_succeeded(con);
      *rc = 0;
      return true;
    }
    /* The transaction (if any) is failed now; the caller rolls back
       after the batch: nothing can be sent before the sync is read. */
    pgd_set_pg_error(con, res, "PQgetResult", NULL, 0);
    PQclear(res);
    if (!pc->pl_synced)
    {
      *rc = 1;
      return true;
    }
    pc->pl_failed = true;
  }
}

/* A failed batch already read through its sync point: every fetch is
   that sync point until the next batch. */
static bool drained(db_conn_t *con, int *rc)
{
  if (!((pg_conn_t *) con->ptr)->pl_drained)
    return false;
  *rc = 2;
  return true;
}

int pgd_pipeline_fetch(db_conn_t *con, db_result_t *rs)
{
  PGconn *pg = conn_of(con, "PQgetResult");
  if (pg == NULL)
    return 1;
  pgd_reset_rs(rs);
  int rc;
  if (!drained(con, &rc))
    take_results(con, pg, rs, true, false, &rc);
  return rc;
}

/* The asynchronous fetch: the batch's bytes that a non-blocking
   connection still holds go out first, then the results as they come. */
static db_step_t fetch_step(db_conn_t *con, int ready, int *rc)
{
  pg_conn_t *pc = con->ptr;
  bool broken;
  if (pgd_async_io(con, ready, &broken))
    return pgd_wait_for(con, DB_WAIT_READ | DB_WAIT_WRITE);
  if (take_results(con, pc->pg, pc->ars, false, broken, rc))
    return DB_STEP_DONE;
  return pgd_wait_for(con, DB_WAIT_READ);
}

db_step_t pgd_pipeline_fetch_start(db_conn_t *con, db_result_t *rs, int *rc)
{
  PGconn *pg = conn_of(con, "PQgetResult");
  if (pg == NULL)
  {
    *rc = 1;
    return DB_STEP_DONE;
  }
  pg_conn_t *pc = con->ptr;
  pgd_reset_rs(rs);
  if (drained(con, rc))
    return DB_STEP_DONE;
  pc->ars = rs;
  pc->flushing = true;
  return fetch_step(con, 0, rc);
}

db_step_t pgd_pipeline_fetch_cont(db_conn_t *con, int ready_events, int *rc)
{
  return fetch_step(con, ready_events, rc);
}

int pgd_pipeline_end(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  if (pc == NULL || pc->pg == NULL || PQpipelineStatus(pc->pg) == PQ_PIPELINE_OFF)
    return 0;
  /* A batch the caller gave up on: make sure it is sent and ended, so the
     reads below cannot wait forever. */
  if (!pc->pl_synced && pc->pl_pending > 0)
    PQpipelineSync(pc->pg);
  /* Results the caller did not read, up to the sync point. */
  while (!PQexitPipelineMode(pc->pg))
  {
    PGresult *res = PQgetResult(pc->pg);
    if (res == NULL && PQstatus(pc->pg) == CONNECTION_BAD)
      return 1;
    PQclear(res);
  }
  pc->pl_pending = 0;
  pc->pl_failed = false;
  pc->pl_drained = false;
  return 0;
}
