/*
 * MySQL / MariaDB driver: server-side prepared statements in their blocking
 * forms (prepare, parameter binding, execute, result binding and fetch,
 * close). The connection and text-query side is in drv_mysql.c, the non-blocking forms are in drv_mysql_async.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <errmsg.h>

#include "drivers/db_driver.h"
#include "drv_mysql.h"
#include "core/sb_logger.h"

#define ER_UNSUPPORTED_PS_CODE 1295

/* First size of a result column's text buffer; fetch_row widens it when a
   value does not fit. */
#define RES_INITIAL_CAP 256

static void free_stmt(my_stmt_t *ms)
{
  for (unsigned i = 0; i < ms->nresults; i++)
    free(ms->cols[i].buf);
  free(ms->cols);
  free(ms->results);
  free(ms->params);
  free(ms->param_len);
  free(ms->param_null);
  free(ms);
}

my_stmt_t *mydrv_stmt_new(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  my_conn_t *mc = con->ptr;
  my_stmt_t *ms = calloc(1, sizeof(*ms));
  if (ms == NULL)
  {
    db_set_error(con, DB_ERROR_FATAL, 0, NULL, "out of memory", "mysql_stmt_init",
                 stmt->query, stmt->query_len);
    return NULL;
  }
  mydrv_drain_results(mc);
  ms->stmt = mysql_stmt_init(mc->mysql);
  MY_TRACE("mysql_stmt_init(%p) = %p", (void *) mc->mysql, (void *) ms->stmt);
  if (ms->stmt == NULL)
  {
    free(ms);
    mydrv_conn_failed(con, "mysql_stmt_init", stmt->query, stmt->query_len);
    return NULL;
  }
  return ms;
}

int mydrv_prepare_done(db_stmt_t *stmt, my_stmt_t *ms, int err)
{
  db_conn_t *con = stmt->con;
  MY_TRACE("mysql_stmt_prepare(%p, \"%s\", %zu) = %d", (void *) ms->stmt, stmt->query,
           stmt->query_len, err);
  if (err != 0)
  {
    unsigned e = mysql_stmt_errno(ms->stmt);
    if (e == ER_UNSUPPORTED_PS_CODE)
    {
      log_text(LOG_INFO, "Failed to prepare query \"%s\" (%u: %s), using emulation",
               stmt->query, e, mysql_stmt_error(ms->stmt));
      stmt->emulated = true;
    }
    else
    {
      mydrv_set_error(con, e, mysql_stmt_sqlstate(ms->stmt), mysql_stmt_error(ms->stmt),
                      "mysql_stmt_prepare", stmt->query, stmt->query_len);
      /* sysbench's driver words a failed prepare so; the script gets
         "SQL API error"; a statement prepared again after a reconnect
         (stale) fails at its execute instead */
      if (con->error == DB_ERROR_FATAL && !stmt->stale)
      {
        log_text(LOG_FATAL, "mysql_stmt_prepare() failed");
        log_text(LOG_FATAL, "MySQL error: %u \"%s\"", e, mysql_stmt_error(ms->stmt));
      }
    }
    mysql_stmt_close(ms->stmt);
    free(ms);
    return stmt->emulated ? 0 : 1;
  }
  ms->nparams = (unsigned) mysql_stmt_param_count(ms->stmt);
  if (ms->nparams > 0)
  {
    ms->params = calloc(ms->nparams, sizeof(MYSQL_BIND));
    ms->param_len = calloc(ms->nparams, sizeof(unsigned long));
    ms->param_null = calloc(ms->nparams, sizeof(my_bool));
    if (!ms->params || !ms->param_len || !ms->param_null)
    {
      mysql_stmt_close(ms->stmt);
      free_stmt(ms);
      db_set_error(con, DB_ERROR_FATAL, 0, NULL, "out of memory", "mysql_stmt_prepare",
                   stmt->query, stmt->query_len);
      return 1;
    }
  }
  stmt->ptr = ms;
  return 0;
}

int mydrv_prepare(db_stmt_t *stmt)
{
  stmt->ptr = NULL;
  /* dry run: no handle; execute counts the statement as "other" */
  if (mydrv_dry_run)
    return 0;
  my_stmt_t *ms = mydrv_stmt_new(stmt);
  if (ms == NULL)
    return 1;
  int err = mysql_stmt_prepare(ms->stmt, stmt->query, (unsigned long) stmt->query_len);
  return mydrv_prepare_done(stmt, ms, err);
}

int mydrv_stmt_failed(db_stmt_t *stmt, my_stmt_t *ms, const char *api, bool with_sql)
{
  unsigned e = mysql_stmt_errno(ms->stmt);
  MY_TRACE("mysql_stmt_errno(%p) = %u (%s)", (void *) ms->stmt, e, mysql_stmt_error(ms->stmt));
  /* sysbench names the statement's SQL, except for result reading */
  mydrv_set_error(stmt->con, e, mysql_stmt_sqlstate(ms->stmt), mysql_stmt_error(ms->stmt), api,
                  with_sql ? stmt->query : "", with_sql ? stmt->query_len : 0);
  return 1;
}

int mydrv_bind_params(db_stmt_t *stmt, my_stmt_t *ms)
{
  unsigned n = ms->nparams;
  if (stmt->norder < n)
  {
    mydrv_set_error(stmt->con, CR_PARAMS_NOT_BOUND, "HY000",
                    "No data supplied for parameters in prepared statement",
                    "mysql_stmt_execute", stmt->query, stmt->query_len);
    return 1;
  }
  if (ms->params_bound && ms->bound_gen == stmt->order_gen)
  {
    /* the MYSQL_BINDs still point at the parameters' buffers */
    for (unsigned k = 0; k < n; k++)
    {
      const db_bind_t *b = &stmt->binds[stmt->order[k]];
      ms->param_null[k] = b->is_null;
      ms->param_len[k] = b->len;
    }
    return 0;
  }
  for (unsigned k = 0; k < n; k++)
  {
    db_bind_t *b = &stmt->binds[stmt->order[k]];
    MYSQL_BIND *mb = &ms->params[k];
    memset(mb, 0, sizeof(*mb));
    ms->param_null[k] = b->is_null;
    ms->param_len[k] = b->len;
    mb->is_null = &ms->param_null[k];
    switch (b->type)
    {
    case DB_TYPE_TINYINT:
    case DB_TYPE_SMALLINT:
    case DB_TYPE_INT:
    case DB_TYPE_BIGINT:
      mb->buffer_type = MYSQL_TYPE_LONGLONG;
      mb->buffer = &b->i;
      break;
    case DB_TYPE_FLOAT:
    case DB_TYPE_DOUBLE:
      mb->buffer_type = MYSQL_TYPE_DOUBLE;
      mb->buffer = &b->d;
      break;
    default:
      /* text, and the date/time types given as text */
      mb->buffer_type = MYSQL_TYPE_STRING;
      mb->buffer = b->buf;
      mb->buffer_length = b->max_len;
      mb->length = &ms->param_len[k];
      break;
    }
  }
  int err = n > 0 ? mysql_stmt_bind_param(ms->stmt, ms->params) : 0;
  MY_TRACE("mysql_stmt_bind_param(%p, %p) = %d", (void *) ms->stmt, (void *) ms->params, err);
  if (err != 0)
    return mydrv_stmt_failed(stmt, ms, "mysql_stmt_bind_param", true);
  ms->params_bound = true;
  ms->bound_gen = stmt->order_gen;
  return 0;
}

int mydrv_stmt_result(db_stmt_t *stmt, db_result_t *rs, bool stored)
{
  my_stmt_t *ms = stmt->ptr;
  rs->stmt = stmt;
  unsigned nf = mysql_stmt_field_count(ms->stmt);
  if (nf == 0)
  {
    mydrv_no_result_set(rs, mysql_stmt_affected_rows(ms->stmt));
    MY_TRACE("mysql_stmt_affected_rows(%p) = %llu", (void *) ms->stmt,
             (unsigned long long) rs->nrows);
    return 0;
  }
  if (!stored)
  {
    int err = mysql_stmt_store_result(ms->stmt);
    MY_TRACE("mysql_stmt_store_result(%p) = %d", (void *) ms->stmt, err);
    if (err != 0)
      return mydrv_stmt_failed(stmt, ms, "mysql_stmt_store_result", false);
  }
  ms->results_bound = false;
  rs->counter = SB_CNT_READ;
  rs->nrows = mysql_stmt_num_rows(ms->stmt);
  rs->nfields = nf;
  MY_TRACE("mysql_stmt_num_rows(%p) = %llu, mysql_stmt_field_count = %u", (void *) ms->stmt,
           (unsigned long long) rs->nrows, nf);
  return 0;
}

int mydrv_execute(db_stmt_t *stmt, db_result_t *rs)
{
  my_stmt_t *ms = stmt->ptr;
  if (ms == NULL)
  {
    if (mydrv_dry_run)
    {
      rs->counter = SB_CNT_OTHER;
      return 0;
    }
    db_set_error(stmt->con, DB_ERROR_FATAL, 0, NULL, "statement is not prepared",
                 "mysql_stmt_execute", stmt->query, stmt->query_len);
    return 1;
  }
  if (mydrv_bind_params(stmt, ms) != 0)
    return 1;
  mydrv_drain_results(stmt->con->ptr);
  ((my_conn_t *) stmt->con->ptr)->last_stmt = stmt;
  int err = mysql_stmt_execute(ms->stmt);
  MY_TRACE("mysql_stmt_execute(%p) = %d", (void *) ms->stmt, err);
  if (err != 0)
    return mydrv_stmt_failed(stmt, ms, "mysql_stmt_execute", true);
  return mydrv_stmt_result(stmt, rs, false);
}

int mydrv_stmt_next_result(db_stmt_t *stmt, db_result_t *rs)
{
  my_stmt_t *ms = stmt->ptr;
  int err = mysql_stmt_next_result(ms->stmt);
  MY_TRACE("mysql_stmt_next_result(%p) = %d", (void *) ms->stmt, err);
  if (err > 0)
    return mydrv_stmt_failed(stmt, ms, "mysql_drv_stmt_next_result", true);
  if (err < 0)
  {
    rs->counter = SB_CNT_OTHER;
    return 0;
  }
  return mydrv_stmt_result(stmt, rs, false);
}

/* Binds the `n` result columns as text into the statement's own buffers.
   Done on the first fetch of each result: most executions never fetch. */
static int bind_results(my_stmt_t *ms, unsigned n)
{
  if (n > ms->nresults)
  {
    MYSQL_BIND *b = realloc(ms->results, sizeof(MYSQL_BIND) * n);
    if (b == NULL)
      return 1;
    ms->results = b;
    my_col_t *c = realloc(ms->cols, sizeof(my_col_t) * n);
    if (c == NULL)
      return 1;
    memset(c + ms->nresults, 0, sizeof(my_col_t) * (n - ms->nresults));
    ms->cols = c;
    ms->nresults = n;
  }
  for (unsigned i = 0; i < n; i++)
  {
    my_col_t *c = &ms->cols[i];
    if (c->buf == NULL)
    {
      if ((c->buf = malloc(RES_INITIAL_CAP)) == NULL)
        return 1;
      c->cap = RES_INITIAL_CAP;
    }
    MYSQL_BIND *b = &ms->results[i];
    memset(b, 0, sizeof(*b));
    b->buffer_type = MYSQL_TYPE_STRING;
    b->buffer = c->buf;
    b->buffer_length = c->cap;
    b->length = &c->len;
    b->is_null = &c->null;
  }
  return mysql_stmt_bind_result(ms->stmt, ms->results) != 0;
}

int mydrv_stmt_fetch(db_result_t *rs, my_conn_t *mc)
{
  my_stmt_t *ms = rs->stmt->ptr;
  if (ms == NULL)
    return 0;
  if (!ms->results_bound)
  {
    if (bind_results(ms, rs->nfields) != 0)
      return 0;
    ms->results_bound = true;
  }
  int rc = mysql_stmt_fetch(ms->stmt);
  MY_TRACE("mysql_stmt_fetch(%p) = %d", (void *) ms->stmt, rc);
  if (rc != 0 && rc != MYSQL_DATA_TRUNCATED)
    return 0;
  bool widened = false;
  for (unsigned i = 0; i < rs->nfields; i++)
  {
    my_col_t *c = &ms->cols[i];
    if (c->null)
    {
      mc->values[i].ptr = NULL;
      mc->values[i].len = 0;
      continue;
    }
    if (c->len > c->cap)
    {
      /* Truncated: widen the buffer, read this value again, and rebind so
         the following rows land in the wider buffer. */
      unsigned long cap = c->len + 1 > 2 * c->cap ? c->len + 1 : 2 * c->cap;
      char *buf = realloc(c->buf, cap);
      if (buf == NULL)
        return 0;
      c->buf = buf;
      c->cap = cap;
      ms->results[i].buffer = buf;
      ms->results[i].buffer_length = cap;
      if (mysql_stmt_fetch_column(ms->stmt, &ms->results[i], i, 0) != 0)
        return 0;
      widened = true;
    }
    mc->values[i].ptr = c->buf;
    mc->values[i].len = c->len;
  }
  if (widened && mysql_stmt_bind_result(ms->stmt, ms->results) != 0)
    ms->results_bound = false;
  return 1;
}

void mydrv_close(db_stmt_t *stmt)
{
  my_stmt_t *ms = stmt->ptr;
  my_conn_t *mc = stmt->con ? stmt->con->ptr : NULL;
  if (mc != NULL && mc->last_stmt == stmt)
    mc->last_stmt = NULL;
  if (ms == NULL)
    return;
  if (ms->stmt)
  {
    MY_TRACE("mysql_stmt_close(%p)", (void *) ms->stmt);
    mysql_stmt_close(ms->stmt);
  }
  free_stmt(ms);
  stmt->ptr = NULL;
}
