/* Text queries, results, pipelining and the blocking wait of the
   asynchronous forms in the generic SQL layer; see db_driver.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "drivers/db_driver.h"
#include "drivers/db_load.h"
#include "core/sb_logger.h"
#include "core/sb_timer.h"
#include "drivers/db_driver_priv.h"

/* ---- pipelining ------------------------------------------------------------ */

static int no_pipeline(db_conn_t *con, const char *api)
{
  /* (no statement to name: the FATAL line is the call and the message) */
  db_set_error(con, DB_ERROR_FATAL, 0, NULL, "this driver has no pipeline mode", api, "", 0);
  return -1;
}

void db_pipeline_batch_done(db_conn_t *con)
{
  con->pl_sync_ns = 0;
  if (!con->pl_batch)
    return;
  con->pl_batch = false;
  if (con->endpoint != NULL)
    db_endpoint_count_xact(con);
}

int db_pipeline_begin(db_conn_t *con)
{
  if (!db_usable(con))
    return -1;
  db_rs_release(&con->rs);
  db_clear_error(con);
  if (con->driver->ops.pipeline_begin == NULL)
    return no_pipeline(con, "db_pipeline_begin");
  con->pl_sync_ns = 0;
  return con->driver->ops.pipeline_begin(con) == 0 ? 0 : -1;
}

/* A failed send: counted (and a lost connection rebuilt) like a failed
   statement. */
int db_pipeline_queue_failed(db_conn_t *con)
{
  db_finish(con, 1, NULL);
  return -1;
}

int db_pipeline_query(db_conn_t *con, const char *sql, size_t len)
{
  if (!db_usable(con))
    return -1;
  if (con->driver->ops.pipeline_queue == NULL)
    return no_pipeline(con, "db_pipeline_query");
  db_clear_error(con);
  if (con->driver->ops.pipeline_queue(con, NULL, sql, len) != 0)
    return db_pipeline_queue_failed(con);
  con->pl_batch = true;
  return 0;
}

int db_pipeline_sync(db_conn_t *con)
{
  if (!db_usable(con))
    return -1;
  if (con->driver->ops.pipeline_sync == NULL)
    return no_pipeline(con, "db_pipeline_sync");
  if (con->driver->ops.pipeline_sync(con) != 0)
    return db_pipeline_queue_failed(con);
  con->pl_sync_ns = sb_now_ns();
  return 0;
}

db_result_t *db_pipeline_fetch(db_conn_t *con)
{
  if (!db_usable(con))
    return NULL;
  if (con->driver->ops.pipeline_fetch == NULL)
  {
    no_pipeline(con, "db_pipeline_fetch");
    return NULL;
  }
  db_blocking_call();
  db_rs_release(&con->rs);
  db_clear_error(con);
  db_pipeline_fetch_clock(con);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  int rc = db_pipeline_fetch_rc(con, con->driver->ops.pipeline_fetch(con, &con->rs));
  if (rc == 2)
  {
    db_pipeline_batch_done(con);
    return NULL;
  }
  return db_finish(con, rc, NULL);
}

int db_pipeline_end(db_conn_t *con)
{
  if (con == NULL || con->state != DB_CONN_READY)
    return -1;
  if (con->driver->ops.pipeline_end == NULL)
    return no_pipeline(con, "db_pipeline_end");
  /* results of the batch still unread up to its sync point (a batch the
     caller abandoned): the driver waits for them in place */
  if (con->pl_batch)
    db_blocking_call();
  if (con->driver->ops.pipeline_end(con) != 0)
  {
    con->pl_batch = false;
    con->pl_sync_ns = 0;
    return -1;
  }
  /* a batch whose sync point was drained here (after an error) */
  db_pipeline_batch_done(con);
  return 0;
}

/* ---- text queries ----------------------------------------------------------------- */

db_result_t *db_query(db_conn_t *con, const char *query, size_t len)
{
  if (!db_usable(con))
    return NULL;
  if (con->load)
    db_load_cancel(con, "query()");
  db_blocking_call();
  db_rs_release(&con->rs);
  db_clear_error(con);
  if (db_debug())
    log_text(LOG_DEBUG, "query: %.*s", (int) len, query);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  int rc = con->driver->ops.query(con, query, len, &con->rs);
  return db_finish(con, rc, NULL);
}

db_result_t *db_query_each(db_conn_t *con, const char *query, size_t len,
                           db_each_result_fn each, void *arg)
{
  if (con == NULL)
    return NULL;
  con->each_result = each;
  con->each_arg = arg;
  db_result_t *rs = db_query(con, query, len);
  con->each_result = NULL;
  con->each_arg = NULL;
  return rs;
}

/* ---- results -------------------------------------------------------------------- */

db_row_t *db_fetch_row(db_result_t *rs)
{
  if (rs == NULL || rs->state != DB_RS_READY || rs->nfields == 0)
    return NULL;
  if (rs->con->driver->ops.fetch_row(rs) != 1)
    return NULL;
  return &rs->row;
}

int db_free_results(db_result_t *rs)
{
  if (rs == NULL || rs->state != DB_RS_READY)
  {
    log_text(LOG_ALERT, "attempt to free an invalid result set");
    return 1;
  }
  db_rs_release(rs);
  return 0;
}

uint64_t db_result_nrows(const db_result_t *rs)
{
  return rs ? rs->nrows : 0;
}

uint32_t db_result_nfields(const db_result_t *rs)
{
  return rs ? rs->nfields : 0;
}

const char *db_result_field_name(const db_result_t *rs, uint32_t i)
{
  /* a result with neither a driver result nor a statement has no names
     (MySQL's prepared statements keep theirs in the statement) */
  if (rs == NULL || rs->con == NULL || (rs->ptr == NULL && rs->stmt == NULL) ||
      i >= rs->nfields || rs->con->driver->ops.field_name == NULL)
    return NULL;
  return rs->con->driver->ops.field_name(rs, i);
}

const char *db_row_value(const db_row_t *row, const db_result_t *rs, uint32_t i,
                         size_t *len)
{
  if (row == NULL || rs == NULL || i >= rs->nfields || row->values[i].ptr == NULL)
  {
    *len = 0;
    return NULL;
  }
  *len = row->values[i].len;
  return row->values[i].ptr;
}

bool db_more_results(db_conn_t *con)
{
  if (con == NULL || con->state != DB_CONN_READY || con->driver->ops.more_results == NULL)
    return false;
  return con->driver->ops.more_results(con);
}

db_result_t *db_next_result(db_conn_t *con)
{
  if (!db_usable(con))
    return NULL;
  db_clear_error(con);
  if (con->driver->ops.next_result == NULL || !db_more_results(con))
    return NULL;
  db_blocking_call();
  db_stmt_t *stmt = con->rs.stmt;
  db_rs_release(&con->rs);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  int rc = con->driver->ops.next_result(con, &con->rs);
  return db_finish(con, rc, stmt);
}

/* ---- asynchronous helper ----------------------------------------------------------- */

int db_wait_ready(const db_conn_t *con)
{
  struct pollfd pfd = { .fd = con->wait_fd, .events = 0, .revents = 0 };
  if (con->wait_events & DB_WAIT_READ)
    pfd.events |= POLLIN;
  if (con->wait_events & DB_WAIT_WRITE)
    pfd.events |= POLLOUT;
  int timeout = (con->wait_events & DB_WAIT_TIMEOUT) ? con->wait_timeout_ms : -1;
  /* wait_fd -1: a pure timer (the reconnect back-off) */
  int rc = poll(&pfd, con->wait_fd >= 0 ? 1 : 0, timeout);
  if (rc == 0)
    return DB_WAIT_TIMEOUT;
  if (rc < 0)
    return errno == EINTR ? 0 : con->wait_events;
  int ready = 0;
  if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
    ready |= DB_WAIT_READ;
  if (pfd.revents & POLLOUT)
    ready |= DB_WAIT_WRITE;
  return ready;
}

void db_step_blocking(db_conn_t *con, db_step_t step,
                      db_step_t (*cont)(void *obj, int ready), void *obj)
{
  while (step == DB_STEP_WAIT)
    step = cont(obj, db_wait_ready(con));
}
