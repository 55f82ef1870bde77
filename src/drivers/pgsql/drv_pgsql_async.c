/* PostgreSQL driver: asynchronous (start / continue) forms of the
   operations, on libpq's PQsend* API; see db_driver.h and drv_pgsql.h. */
#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libpq-fe.h>

#include "core/sb_timer.h"
#include "drivers/db_driver.h"
#include "drv_pgsql.h"
#include "core/sb_logger.h"

/* ---- asynchronous forms ------------------------------------------------ */

db_step_t pgd_wait_for(db_conn_t *con, int events)
{
  pg_conn_t *pc = con->ptr;
  con->wait_fd = PQsocket(pc->pg);
  con->wait_events = events;
  con->wait_timeout_ms = -1;
  return DB_STEP_WAIT;
}

bool pgd_async_io(db_conn_t *con, int ready, bool *broken)
{
  pg_conn_t *pc = con->ptr;
  PGconn *pg = pc->pg;
  /* On a broken connection PQgetResult no longer waits, so drain it. */
  *broken = (ready & DB_WAIT_READ) && !PQconsumeInput(pg);
  if (!*broken && pc->flushing)
  {
    int r = PQflush(pg);
    if (r > 0)
      return true;
    *broken = r < 0;
    pc->flushing = false;
  }
  return false;
}

static db_step_t async_step(db_conn_t *con, int ready);

/* A failed operation ends, first rolling back the transaction it left
   open when `rollback` (as the blocking forms do), without waiting. */
static db_step_t end_or_rollback(db_conn_t *con, bool rollback)
{
  pg_conn_t *pc = con->ptr;
  if (rollback && PQsendQuery(pc->pg, "ROLLBACK"))
  {
    pc->rolling_back = true;
    pc->flushing = true;
    return async_step(con, 0);
  }
  pc->aop = AOP_NONE;
  return DB_STEP_DONE;
}

/* The prepare's result is in: keep the handle, or record the error (and
   roll an open transaction back, as the blocking form does). */
static db_step_t prepare_done(db_conn_t *con, PGresult *res)
{
  pg_conn_t *pc = con->ptr;
  db_stmt_t *stmt = pc->astmt;

  pc->astmt = NULL;
  if (res != NULL && PQresultStatus(res) == PGRES_COMMAND_OK)
  {
    PQclear(res);
    pgd_succeeded(con);
    db_endpoint_count_xact(con);
    pc->aop = AOP_NONE;
    return DB_STEP_DONE;
  }
  bool rollback = pgd_set_pg_error(con, res, "PQprepare", stmt->query,
                                   stmt->query_len);
  PQclear(res);
  pgd_ps_free(stmt);
  return end_or_rollback(con, rollback);
}

/* All results are in: store or classify like the blocking forms. */
static db_step_t async_done(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  PGresult *res = pc->ares;
  db_result_t *rs = pc->ars;

  pc->ares = NULL;
  if (pc->rolling_back)
  {
    PQclear(res);
    pc->rolling_back = false;
    pc->aop = AOP_NONE;
    return DB_STEP_DONE;
  }
  if (pc->aop == AOP_CLOSE)
  {
    /* DEALLOCATE cannot fail where it is sent (pgd_can_deallocate) */
    PQclear(res);
    pgd_ps_free(pc->astmt);
    pc->astmt = NULL;
    pc->aop = AOP_NONE;
    return DB_STEP_DONE;
  }
  if (pc->aop == AOP_PREPARE)
    return prepare_done(con, res);
  if (pgd_store(pc, res, rs))
  {
    pgd_succeeded(con);
    pc->aop = AOP_NONE;
    return DB_STEP_DONE;
  }
  bool rollback = pc->aop == AOP_QUERY
    ? pgd_set_pg_error(con, res, "PQexec", pc->qbuf, pc->qlen)
    : pgd_set_pg_error(con, res, "PQexecPrepared", NULL, 0);
  PQclear(res);
  return end_or_rollback(con, rollback);
}

static db_step_t async_step(db_conn_t *con, int ready)
{
  pg_conn_t *pc = con->ptr;
  PGconn *pg = pc->pg;
  bool sending = pc->flushing, broken;
  if (pgd_async_io(con, ready, &broken))
    return pgd_wait_for(con, DB_WAIT_READ | DB_WAIT_WRITE);
  /* just sent (ready == 0): read what is there before waiting, so an
     answer already in (a fast loopback server, while the worker ran other
     VUs' sends) takes no wait and no yield; when nothing is there yet this
     costs one recv that fails with EAGAIN (docs/performance.md, "The event
     loop's client CPU per query"); not for a caller whose wait is cheaper
     than that recv (db_conn_t.skip_early_read) */
  if (sending && !broken && ready == 0 && !con->skip_early_read && !PQconsumeInput(pg))
    broken = true;
  while (broken || !PQisBusy(pg))
  {
    PGresult *res = PQgetResult(pg);
    if (res == NULL)
      return async_done(con);
    ExecStatusType st = PQresultStatus(res);
    pgd_keep(pc, res);
    if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH)
      return async_done(con);    /* PQgetResult would repeat it forever */
  }
  return pgd_wait_for(con, DB_WAIT_READ);
}

/* PQsend* returned `sent`; go on or fail as the blocking form would. */
static db_step_t async_begin(db_conn_t *con, int aop, db_result_t *rs,
                             int sent)
{
  pg_conn_t *pc = con->ptr;

  pc->aop = aop;
  pc->ars = rs;
  pc->rolling_back = false;
  if (!sent)
  {
    pc->ares = NULL;
    return async_done(con);      /* error from PQerrorMessage */
  }
  pc->flushing = true;
  return async_step(con, 0);
}

static void make_nonblocking(PGconn *pg)
{
  if (!PQisnonblocking(pg))
    PQsetnonblocking(pg, 1);
}

db_step_t pg_query_start(db_conn_t *con, const char *sql, size_t len,
                                db_result_t *rs)
{
  pg_conn_t *pc = con->ptr;

  pgd_reset_rs(rs);
  make_nonblocking(pc->pg);
  /* db_query_each's function, when one is set, gets the results before
     the last (pgd_keep) */
  pc->each_con = con->each_result ? con : NULL;
  return async_begin(con, AOP_QUERY, rs,
                     PQsendQuery(pc->pg, pgd_copy_sql(pc, sql, len)));
}

db_step_t pg_query_cont(db_conn_t *con, int ready_events)
{
  return async_step(con, ready_events);
}

db_step_t pg_execute_start(db_stmt_t *stmt, db_result_t *rs)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;

  pgd_reset_rs(rs);
  /* a re-prepare after reconnect is rare enough to stay blocking */
  pg_stmt_t *ps = pgd_current_ps(stmt);
  if (ps == NULL)
    return DB_STEP_DONE;
  pgd_build_params(stmt, ps);
  make_nonblocking(pc->pg);
  pc->each_con = NULL;
  return async_begin(con, AOP_EXEC, rs, pgd_send_ps(pc, ps));
}

db_step_t pg_execute_cont(db_stmt_t *stmt, int ready_events)
{
  return async_step(stmt->con, ready_events);
}

db_step_t pg_connect_start(db_conn_t *con)
{
  pg_conn_t *pc = pgd_new_pc();

  con->ptr = pc;
  con->op_start_ns = sb_now_ns();
  pc->pg = pgd_open_params(con, true);
  if (pc->pg == NULL || PQstatus(pc->pg) == CONNECTION_BAD)
  {
    pgd_connect_failed(con);
    return DB_STEP_DONE;
  }
  make_nonblocking(pc->pg);
  pc->aop = AOP_CONNECT;
  /* libpq: behave as if PQconnectPoll had returned PGRES_POLLING_WRITING */
  return pgd_wait_for(con, DB_WAIT_WRITE);
}

db_step_t pg_connect_cont(db_conn_t *con, int ready_events)
{
  pg_conn_t *pc = con->ptr;

  (void) ready_events;
  switch (PQconnectPoll(pc->pg))
  {
  case PGRES_POLLING_READING:
    return pgd_wait_for(con, DB_WAIT_READ);
  case PGRES_POLLING_WRITING:
    return pgd_wait_for(con, DB_WAIT_WRITE);
  case PGRES_POLLING_OK:
    pgd_connected(con);
    return DB_STEP_DONE;
  default:
    pgd_connect_failed(con);
    return DB_STEP_DONE;
  }
}

db_step_t pg_prepare_start(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;

  if (db_ps_disabled() && !stmt->native)
  {
    stmt->emulated = true;
    con->error = DB_ERROR_NONE;
    return DB_STEP_DONE;
  }
  if (stmt->unnamed || stmt->adopted)
  {
    con->error = pgd_prepare(stmt) == 0 ? DB_ERROR_NONE : DB_ERROR_FATAL;
    return DB_STEP_DONE;
  }
  char *text;
  pg_stmt_t *ps = pgd_ps_new(stmt, &text);
  make_nonblocking(pc->pg);
  pc->astmt = stmt;
  int sent = PQsendPrepare(pc->pg, ps->name, text, 0, NULL);
  free(text);
  return async_begin(con, AOP_PREPARE, NULL, sent);
}

db_step_t pg_prepare_cont(db_stmt_t *stmt, int ready_events)
{
  return async_step(stmt->con, ready_events);
}

db_step_t pg_close_start(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;

  if (!pgd_can_deallocate(stmt))
  {
    pgd_ps_free(stmt);
    return DB_STEP_DONE;
  }
  char sql[48];
  pgd_deallocate_sql(stmt, sql, sizeof(sql));
  make_nonblocking(pc->pg);
  pc->astmt = stmt;
  int sent = PQsendQuery(pc->pg, sql);
  if (!sent)
  {
    pc->astmt = NULL;
    pgd_ps_free(stmt);
    return DB_STEP_DONE;
  }
  return async_begin(con, AOP_CLOSE, NULL, sent);
}

db_step_t pg_close_cont(db_stmt_t *stmt, int ready_events)
{
  return async_step(stmt->con, ready_events);
}
