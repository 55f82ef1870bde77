/*
 * MySQL driver: asynchronous (start / continue) forms of connect, query and
 * execute on MariaDB Connector/C's non-blocking API; see db_driver.h.
 * A connection opened by mydrv_connect_start has MYSQL_OPT_NONBLOCK set;
 * the blocking forms never enable it (it costs a context switch per call).
 * The SQL text given to mydrv_query_start must stay valid until the query
 * is done (it is named in the error). Built only when the client library
 * has the API (HAVE_MYSQL_REAL_QUERY_START).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "core/sb_timer.h"
#include "drivers/db_driver.h"
#include "drv_mysql.h"

#ifdef HAVE_MYSQL_REAL_QUERY_START

enum { PH_NONE = 0, PH_CONNECT, PH_QUERY, PH_STORE, PH_EXEC, PH_STMT_STORE, PH_PREPARE,
       PH_NEXT, PH_NEXT_STMT };

static int to_mysql_wait(int ready)
{
  int w = 0;
  if (ready & DB_WAIT_READ)
    w |= MYSQL_WAIT_READ;
  if (ready & DB_WAIT_WRITE)
    w |= MYSQL_WAIT_WRITE;
  if (ready & DB_WAIT_TIMEOUT)
    w |= MYSQL_WAIT_TIMEOUT;
  return w;
}

/* Translates a non-zero MariaDB wait status into the connection's wait
   request. */
static db_step_t wait_on(db_conn_t *con, MYSQL *m, int status)
{
  con->wait_fd = (int) mysql_get_socket(m);
  con->wait_events = 0;
  if (status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT))
    con->wait_events |= DB_WAIT_READ;
  if (status & MYSQL_WAIT_WRITE)
    con->wait_events |= DB_WAIT_WRITE;
  if (status & MYSQL_WAIT_TIMEOUT)
  {
    con->wait_events |= DB_WAIT_TIMEOUT;
    con->wait_timeout_ms = (int) mysql_get_timeout_value_ms(m);
  }
  else
    con->wait_timeout_ms = -1;
  return DB_STEP_WAIT;
}

static db_step_t connect_step(db_conn_t *con, int status)
{
  my_conn_t *mc = con->ptr;
  MYSQL *m = mc->mysql;
  if (status != 0)
    return wait_on(con, m, status);
  mc->aphase = PH_NONE;
  if (mc->aret == NULL || mydrv_check_tls(mc, m) != 0)
  {
    /* frees mc and closes m */
    mydrv_connect_failed(con, m);
    return DB_STEP_DONE;
  }
  con->error = DB_ERROR_NONE;
  return DB_STEP_DONE;
}

db_step_t mydrv_connect_start(db_conn_t *con)
{
  my_conn_t *mc = calloc(1, sizeof(*mc));
  if (mc == NULL)
  {
    con->error = DB_ERROR_FATAL;
    return DB_STEP_DONE;
  }
  con->ptr = mc;
  con->error = DB_ERROR_NONE;
  if (mydrv_dry_run)
    return DB_STEP_DONE;
  con->op_start_ns = sb_now_ns();
  MYSQL *m = mydrv_new_handle(con, mc, true);
  if (m == NULL)
  {
    free(mc);
    con->ptr = NULL;
    con->error = DB_ERROR_FATAL;
    return DB_STEP_DONE;
  }
  mc->mysql = m;
  mc->aphase = PH_CONNECT;
  return connect_step(con, mysql_real_connect_start(&mc->aret, m, mc->host, mc->user,
                                                    mc->password, mc->db, mc->port,
                                                    mc->socket, MYSQL_CLIENT_FLAGS));
}

db_step_t mydrv_connect_cont(db_conn_t *con, int ready)
{
  my_conn_t *mc = con->ptr;
  return connect_step(con, mysql_real_connect_cont(&mc->aret, mc->mysql, to_mysql_wait(ready)));
}

/* A text query runs in two non-blocking steps: the query, then storing its
   result. */
static db_step_t query_step(db_conn_t *con, int status)
{
  my_conn_t *mc = con->ptr;
  MYSQL *m = mc->mysql;
  for (;;)
  {
    if (status != 0)
      return wait_on(con, m, status);
    if (mc->aphase == PH_QUERY)
    {
      MY_TRACE("mysql_real_query_start(%p, \"%.*s\", %zu) = %d", (void *) m, (int) mc->alen,
               mc->asql, mc->alen, mc->aerr);
      if (mc->aerr != 0)
      {
        mc->aphase = PH_NONE;
        mydrv_conn_failed(con, "mysql_drv_query", mc->asql, mc->alen);
        return DB_STEP_DONE;
      }
      mc->aphase = PH_STORE;
      status = mysql_store_result_start(&mc->ares, m);
      continue;
    }
    mc->aphase = PH_NONE;
    if (mydrv_text_result(con, mc->ares, mc->ars) == 0)
      con->error = DB_ERROR_NONE;
    return DB_STEP_DONE;
  }
}

db_step_t mydrv_query_start(db_conn_t *con, const char *sql, size_t len, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  if (mydrv_dry_run)
  {
    rs->counter = SB_CNT_OTHER;
    con->error = DB_ERROR_NONE;
    return DB_STEP_DONE;
  }
  mydrv_drain_results(mc);
  mc->ars = rs;
  mc->asql = sql;
  mc->alen = len;
  mc->last_stmt = NULL;
  mc->aphase = PH_QUERY;
  return query_step(con, mysql_real_query_start(&mc->aerr, mc->mysql, sql, (unsigned long) len));
}

db_step_t mydrv_query_cont(db_conn_t *con, int ready)
{
  my_conn_t *mc = con->ptr;
  int w = to_mysql_wait(ready);
  int status = mc->aphase == PH_QUERY
    ? mysql_real_query_cont(&mc->aerr, mc->mysql, w)
    : mysql_store_result_cont(&mc->ares, mc->mysql, w);
  return query_step(con, status);
}

static db_step_t exec_step(db_stmt_t *stmt, int status)
{
  db_conn_t *con = stmt->con;
  my_conn_t *mc = con->ptr;
  my_stmt_t *ms = stmt->ptr;
  for (;;)
  {
    if (status != 0)
      return wait_on(con, mc->mysql, status);
    if (mc->aerr != 0)
    {
      bool exec = mc->aphase == PH_EXEC;
      mc->aphase = PH_NONE;
      mydrv_stmt_failed(stmt, ms, exec ? "mysql_stmt_execute" : "mysql_stmt_store_result", exec);
      return DB_STEP_DONE;
    }
    if (mc->aphase == PH_EXEC && mysql_stmt_field_count(ms->stmt) > 0)
    {
      mc->aphase = PH_STMT_STORE;
      status = mysql_stmt_store_result_start(&mc->aerr, ms->stmt);
      continue;
    }
    mc->aphase = PH_NONE;
    if (mydrv_stmt_result(stmt, mc->ars, true) == 0)
      con->error = DB_ERROR_NONE;
    return DB_STEP_DONE;
  }
}

db_step_t mydrv_execute_start(db_stmt_t *stmt, db_result_t *rs)
{
  db_conn_t *con = stmt->con;
  my_conn_t *mc = con->ptr;
  my_stmt_t *ms = stmt->ptr;
  if (ms == NULL)
  {
    if (mydrv_dry_run)
    {
      rs->counter = SB_CNT_OTHER;
      con->error = DB_ERROR_NONE;
    }
    else
      db_set_error(con, DB_ERROR_FATAL, 0, NULL, "statement is not prepared",
                   "mysql_stmt_execute", stmt->query, stmt->query_len);
    return DB_STEP_DONE;
  }
  if (mydrv_bind_params(stmt, ms) != 0)
    return DB_STEP_DONE;
  mydrv_drain_results(mc);
  mc->ars = rs;
  mc->last_stmt = stmt;
  mc->aphase = PH_EXEC;
  return exec_step(stmt, mysql_stmt_execute_start(&mc->aerr, ms->stmt));
}

db_step_t mydrv_execute_cont(db_stmt_t *stmt, int ready)
{
  my_conn_t *mc = stmt->con->ptr;
  my_stmt_t *ms = stmt->ptr;
  int w = to_mysql_wait(ready);
  int status = mc->aphase == PH_EXEC
    ? mysql_stmt_execute_cont(&mc->aerr, ms->stmt, w)
    : mysql_stmt_store_result_cont(&mc->aerr, ms->stmt, w);
  return exec_step(stmt, status);
}

/* ---- prepare ---- */

static db_step_t prepare_step(db_stmt_t *stmt, int status)
{
  db_conn_t *con = stmt->con;
  my_conn_t *mc = con->ptr;
  my_stmt_t *ms = mc->astmt ? mc->astmt->ptr : NULL;
  if (status != 0)
    return wait_on(con, mc->mysql, status);
  mc->aphase = PH_NONE;
  mc->astmt = NULL;
  stmt->ptr = NULL;
  con->error = DB_ERROR_NONE;
  mydrv_prepare_done(stmt, ms, mc->aerr);
  return DB_STEP_DONE;
}

db_step_t mydrv_prepare_start(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  my_conn_t *mc = con->ptr;
  stmt->ptr = NULL;
  con->error = DB_ERROR_NONE;
  if (mydrv_dry_run)
    return DB_STEP_DONE;
  my_stmt_t *ms = mydrv_stmt_new(stmt);
  if (ms == NULL)
    return DB_STEP_DONE;
  /* parked in stmt->ptr while the prepare runs (cleared before done) */
  stmt->ptr = ms;
  mc->astmt = stmt;
  mc->aphase = PH_PREPARE;
  return prepare_step(stmt, mysql_stmt_prepare_start(&mc->aerr, ms->stmt, stmt->query,
                                                     (unsigned long) stmt->query_len));
}

db_step_t mydrv_prepare_cont(db_stmt_t *stmt, int ready)
{
  my_conn_t *mc = stmt->con->ptr;
  my_stmt_t *ms = stmt->ptr;
  return prepare_step(stmt, mysql_stmt_prepare_cont(&mc->aerr, ms->stmt, to_mysql_wait(ready)));
}

/* ---- next result (CALL, multi-statements) ---- */

static db_step_t next_step(db_conn_t *con, int status)
{
  my_conn_t *mc = con->ptr;
  MYSQL *m = mc->mysql;
  db_stmt_t *stmt = mc->astmt;
  for (;;)
  {
    if (status != 0)
      return wait_on(con, m, status);
    if (mc->aphase == PH_NEXT || mc->aphase == PH_NEXT_STMT)
    {
      bool of_stmt = mc->aphase == PH_NEXT_STMT;
      MY_TRACE("mysql_%snext_result = %d", of_stmt ? "stmt_" : "", mc->aerr);
      if (mc->aerr != 0)
      {
        mc->aphase = PH_NONE;
        if (mc->aerr < 0)
        {
          mc->ars->counter = SB_CNT_OTHER;
          con->error = DB_ERROR_NONE;
        }
        else if (of_stmt)
          mydrv_stmt_failed(stmt, stmt->ptr, "mysql_drv_stmt_next_result", true);
        else
          mydrv_conn_failed(con, "mysql_drv_next_result", "", 0);
        return DB_STEP_DONE;
      }
      if (of_stmt)
      {
        /* the statement's next result is read like an executed one */
        mc->aphase = PH_EXEC;
        mc->ars->stmt = stmt;
        return exec_step(stmt, 0);
      }
      mc->aphase = PH_STORE;
      status = mysql_store_result_start(&mc->ares, m);
      continue;
    }
    mc->aphase = PH_NONE;
    if (mydrv_text_result(con, mc->ares, mc->ars) == 0)
      con->error = DB_ERROR_NONE;
    return DB_STEP_DONE;
  }
}

db_step_t mydrv_next_result_start(db_conn_t *con, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  con->error = DB_ERROR_NONE;
  if (mydrv_dry_run)
  {
    rs->counter = SB_CNT_OTHER;
    return DB_STEP_DONE;
  }
  mc->ars = rs;
  mc->astmt = mc->last_stmt;
  if (mc->last_stmt != NULL)
  {
    my_stmt_t *ms = mc->last_stmt->ptr;
    mc->aphase = PH_NEXT_STMT;
    return next_step(con, mysql_stmt_next_result_start(&mc->aerr, ms->stmt));
  }
  mc->aphase = PH_NEXT;
  return next_step(con, mysql_next_result_start(&mc->aerr, mc->mysql));
}

db_step_t mydrv_next_result_cont(db_conn_t *con, int ready)
{
  my_conn_t *mc = con->ptr;
  int w = to_mysql_wait(ready);
  switch (mc->aphase)
  {
  case PH_NEXT:
    return next_step(con, mysql_next_result_cont(&mc->aerr, mc->mysql, w));
  case PH_STORE:
    return next_step(con, mysql_store_result_cont(&mc->ares, mc->mysql, w));
  case PH_NEXT_STMT:
    return next_step(con, mysql_stmt_next_result_cont(&mc->aerr,
                                                      ((my_stmt_t *) mc->astmt->ptr)->stmt, w));
  default:
    /* reading the statement's next result set */
    return mydrv_execute_cont(mc->astmt, ready);
  }
}

#endif /* HAVE_MYSQL_REAL_QUERY_START */
