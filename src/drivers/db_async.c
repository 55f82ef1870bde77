/*
 * The generic asynchronous SQL layer (see "asynchronous API" in
 * db_driver.h): the blocking API's operations as start / step state
 * machines over the drivers' start / continue forms, for the event-loop
 * engine. Each function mirrors its blocking twin in db_conn.c /
 * db_query.c / db_stmt.c / db_bulk.c (same checks, counting and error handling); where
 * a driver lacks an asynchronous form, the blocking one is called (it then
 * blocks the calling thread for that step).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/sb_logger.h"
#include "core/sb_timer.h"
#include "drivers/db_driver.h"
#include "drivers/db_async.h"
#include "drivers/db_driver_priv.h"
#include "drivers/db_load.h"

/* What the driver is doing for the operation. */
typedef enum {
  AP_IDLE = 0,
  AP_CONNECT,          /* connect_cont */
  AP_QUERY,            /* query_cont (also emulated statements, bulk) */
  AP_EXECUTE,          /* execute_cont */
  AP_PREPARE,          /* prepare_cont of a new statement */
  AP_STALE,            /* prepare_cont of a stale statement before execute */
  AP_NEXT,             /* next_result_cont */
  AP_CLOSE,            /* close_cont */
  AP_REOPEN,           /* connect_cont of a rebuild */
  AP_BACKOFF,          /* waiting before the next rebuild attempt */
  AP_REPREPARE,        /* prepare_cont of a statement after a rebuild */
  AP_PFETCH            /* pipeline_fetch_cont */
} phase_t;

/* The API operation, for what happens when the driver step completes. */
typedef enum { OP_CONNECT = 1, OP_RESULT, OP_PREPARE, OP_RECONNECT, OP_CLOSE } op_t;

struct db_async {
  op_t op;
  phase_t phase;
  db_stmt_t *stmt;           /* execute / close target, reprepare cursor,
                                new statement of a prepare */
  db_result_t *result;       /* OP_RESULT outcome */
  int status;                /* 0 ok, non-zero failure */
  int fetch_rc;              /* AP_PFETCH: the driver's pipeline_fetch code */
  /* rebuilding a lost connection */
  bool persist;              /* retry with back-off while the run goes on */
  bool restore;              /* report the saved error when rebuilt */
  unsigned delay_ms;
  db_err_t saved;
  db_error_t saved_error;
  bool saved_lost, saved_timed_out;
  /* --db-query-timeout / --db-connect-timeout of the phase in progress */
  phase_t armed;             /* phase the deadline belongs to */
  uint64_t deadline_ns;      /* 0: none */
  bool own_timer;            /* the wait's DB_WAIT_TIMEOUT is the deadline's */
  bool expired;              /* the deadline passed; socket shut down */
};

static struct db_async *state(db_conn_t *con)
{
  if (con->async == NULL)
  {
    con->async = calloc(1, sizeof(*con->async));
    if (con->async == NULL)
    {
      log_text(LOG_FATAL, "out of memory");
      abort();
    }
  }
  return con->async;
}

static db_step_t done(struct db_async *a, int status)
{
  a->phase = AP_IDLE;
  a->status = status;
  a->armed = AP_IDLE;
  a->deadline_ns = 0;
  a->own_timer = false;
  a->expired = false;
  return DB_STEP_DONE;
}

static bool connect_phase(phase_t p)
{
  return p == AP_CONNECT || p == AP_REOPEN;
}

/*
 * The driver asked to wait (con->wait_*): adds the phase's deadline to
 * the request. Each phase that waits on the server gets its own deadline
 * when it first waits (--db-connect-timeout for a connect, else
 * --db-query-timeout); the wait's timer is the earlier of the driver's
 * and the deadline. A pure timer (the reconnect back-off) has none.
 */
static db_step_t waiting(db_conn_t *con, struct db_async *a)
{
  a->own_timer = false;
  if (con->wait_fd < 0 || a->phase == AP_BACKOFF)
    return DB_STEP_WAIT;
  uint64_t now = sb_now_ns();
  if (a->armed != a->phase)
  {
    unsigned s = connect_phase(a->phase) ? db_connect_timeout_s() : db_query_timeout_s();
    a->armed = a->phase;
    a->expired = false;
    a->deadline_ns = s ? now + (uint64_t) s * 1000000000ULL : 0;
  }
  if (a->deadline_ns == 0)
    return DB_STEP_WAIT;
  uint64_t left_ns = a->deadline_ns > now ? a->deadline_ns - now : 0;
  int left_ms = (int) ((left_ns + 999999) / 1000000);   /* never early */
  if (!(con->wait_events & DB_WAIT_TIMEOUT) || con->wait_timeout_ms < 0 ||
      left_ms < con->wait_timeout_ms)
  {
    a->own_timer = !(con->wait_events & DB_WAIT_TIMEOUT) || con->wait_timeout_ms < 0;
    con->wait_events |= DB_WAIT_TIMEOUT;
    con->wait_timeout_ms = left_ms;
  }
  return DB_STEP_WAIT;
}

/*
 * Before a step: when the phase's deadline has passed, shuts the socket
 * down so that the driver's next step fails at once as on a lost
 * connection (the drivers have no other way to abandon an operation
 * mid-protocol; a cancel request would need the server to answer), and
 * returns the ready events to give the driver. The failure is turned
 * into a timeout where the operation completes (timed_out()).
 */
static int check_deadline(db_conn_t *con, struct db_async *a, int ready)
{
  if (a->deadline_ns == 0 || a->armed != a->phase || a->expired)
    return ready;
  if (sb_now_ns() >= a->deadline_ns)
  {
    a->expired = true;
    if (con->wait_fd >= 0)
      shutdown(con->wait_fd, SHUT_RDWR);
    return DB_WAIT_READ | DB_WAIT_WRITE;
  }
  if (a->own_timer)
    ready &= ~DB_WAIT_TIMEOUT;
  return ready;
}

/* After a phase failed: a timeout if its deadline had passed. */
static void timed_out(db_conn_t *con, struct db_async *a)
{
  if (a->expired && con->error != DB_ERROR_NONE && !con->timed_out)
    db_mark_timeout(con, connect_phase(a->armed));
}

/* Waits `ms` before the next rebuild attempt: a pure timer request. */
static db_step_t backoff(db_conn_t *con, struct db_async *a)
{
  a->phase = AP_BACKOFF;
  con->wait_fd = -1;
  con->wait_events = DB_WAIT_TIMEOUT;
  con->wait_timeout_ms = (int) a->delay_ms;
  a->own_timer = false;
  if (a->delay_ms < 1000)
    a->delay_ms = a->delay_ms * 2 > 1000 ? 1000 : a->delay_ms * 2;
  return DB_STEP_WAIT;
}

/* ---- rebuilding a connection (reopen) ------------------------------------ */

static db_step_t reopen_done(db_conn_t *con, struct db_async *a, int status);
static db_step_t reprepare_next(db_conn_t *con, struct db_async *a);
static db_step_t reopen_attempt(db_conn_t *con, struct db_async *a);

/* Drivers print FATAL lines for a failed connect; the attempts of an
   automatic rebuild are kept quiet (thousands of VUs retrying a restarted
   server would flood the output), an explicit reconnect is not. */
static db_step_t quietly(db_conn_t *con, struct db_async *a, db_step_t (*fn)(db_conn_t *, int),
                         int ready)
{
  bool q = db_connect_errors_quiet();
  if (a->persist)
    db_quiet_connect_errors(1);
  db_step_t st = fn(con, ready);
  db_quiet_connect_errors(q);
  return st;
}

static db_step_t connect_start_fn(db_conn_t *con, int ready)
{
  (void) ready;
  return con->driver->ops.connect_start(con);
}

static db_step_t connect_cont_fn(db_conn_t *con, int ready)
{
  return con->driver->ops.connect_cont(con, ready);
}

static db_step_t blocking_connect_fn(db_conn_t *con, int ready)
{
  (void) ready;
  if (con->driver->ops.connect(con) != 0 && con->error == DB_ERROR_NONE)
    con->error = DB_ERROR_FATAL;
  return DB_STEP_DONE;
}

/* A rebuild's connect attempt completed. */
static db_step_t reopen_attempted(db_conn_t *con, struct db_async *a)
{
  if (con->ptr != NULL && con->error == DB_ERROR_NONE)
  {
    db_sock_settled(con);
    con->state = DB_CONN_READY;
    db_endpoint_connected(con);
    if (a->persist)
      db_failover_end(con, true);
    a->stmt = con->stmts;
    return reprepare_next(con, a);
  }
  con->ptr = NULL;
  /* a rebuild that timed out counts like any failed attempt */
  if (!a->persist || !db_should_retry())
  {
    if (a->persist)
      db_failover_end(con, false);
    con->state = DB_CONN_INVALID;
    return reopen_done(con, a, -1);
  }
  if (db_failover_next(con))
    return reopen_attempt(con, a);
  return backoff(con, a);
}

static db_step_t reopen_attempt(db_conn_t *con, struct db_async *a)
{
  db_clear_error(con);
  a->phase = AP_REOPEN;
  db_step_t st = quietly(con, a, con->driver->ops.connect_start ? connect_start_fn
                                                                : blocking_connect_fn, 0);
  return st == DB_STEP_WAIT ? waiting(con, a) : reopen_attempted(con, a);
}

/* Starts rebuilding `con`: disconnect first, so releasing the statements
   needs no round trips, then connect again and re-prepare. */
static db_step_t reopen_start(db_conn_t *con, struct db_async *a, bool persist)
{
  db_load_cancel(con, NULL);       /* its driver state goes with the session */
  db_rs_release(&con->rs);
  db_sock_unsettled(con);
  con->driver->ops.disconnect(con);
  con->ptr = NULL;
  db_release_statements(con);
  a->persist = persist;
  a->delay_ms = 1;
  if (persist)
    db_failover_begin(con);
  return reopen_attempt(con, a);
}

/* Prepares the next stale statement again; failures leave it stale (it is
   tried again at execute), as in the blocking layer. */
static db_step_t reprepare_next(db_conn_t *con, struct db_async *a)
{
  const db_driver_ops_t *ops = &con->driver->ops;
  while (a->stmt != NULL && !a->stmt->stale)
    a->stmt = a->stmt->next;
  if (a->stmt == NULL)
    return reopen_done(con, a, 0);
  db_stmt_t *s = a->stmt;
  a->phase = AP_REPREPARE;
  if (ops->prepare_start)
  {
    if (ops->prepare_start(s) == DB_STEP_WAIT)
      return waiting(con, a);
    if (con->error == DB_ERROR_NONE)
      s->stale = false;
  }
  else if (ops->prepare(s) == 0)
    s->stale = false;
  a->stmt = s->next;
  return reprepare_next(con, a);
}

static db_step_t finish_result(db_conn_t *con, struct db_async *a);

static db_step_t reopen_done(db_conn_t *con, struct db_async *a, int status)
{
  a->stmt = NULL;
  if (a->op == OP_RECONNECT)
    return done(a, status);
  /* a lost connection during a statement: report its error */
  db_set_error(con, a->saved_error, a->saved.sql_errno, a->saved.sql_state, a->saved.msg,
               a->saved.api, a->saved.query, a->saved.query ? strlen(a->saved.query) : 0);
  con->lost = a->saved_lost;
  con->timed_out = a->saved_timed_out;
  free(a->saved.msg);
  free(a->saved.query);
  memset(&a->saved, 0, sizeof(a->saved));
  sb_counter_inc(con->thread_id, SB_CNT_RECONNECT);
  sb_endpoint_count(db_counted_endpoint(con), SB_EPC_RECONNECTS, 1);
  a->result = NULL;
  return done(a, 1);
}

/* ---- statements with a result (query, execute, next result) -------------- */

/* The driver finished a statement: count it and set the result, or handle
   the error like db_finish (rebuilding a lost connection on the loop). */
static db_step_t finish_result(db_conn_t *con, struct db_async *a)
{
  db_result_t *rs = &con->rs;
  if (con->error == DB_ERROR_NONE)
  {
    rs->state = DB_RS_READY;
    rs->con = con;
    rs->stmt = a->stmt;
    sb_counter_inc(con->thread_id, rs->counter);
    db_endpoint_count_result(con, rs->counter);
    if (con->endpoint != NULL)
      db_endpoint_after_stmt(con);
    a->result = rs;
    return done(a, 0);
  }
  rs->state = DB_RS_FREE;
  a->result = NULL;
  timed_out(con, a);
  if (con->endpoint != NULL)
    db_endpoint_after_stmt(con);
  if (con->timed_out)
    sb_counter_inc(con->thread_id, SB_CNT_TIMEOUT);
  if (con->error == DB_ERROR_IGNORABLE && con->lost)
  {
    /* the loss is an error of the endpoint it happened on */
    sb_endpoint_count(db_counted_endpoint(con), SB_EPC_ERRORS, 1);
    a->saved_error = con->error;
    a->saved_lost = con->lost;
    a->saved_timed_out = con->timed_out;
    a->saved = con->err;
    a->saved.msg = con->err.msg ? strdup(con->err.msg) : NULL;
    a->saved.query = con->err.query ? strdup(con->err.query) : NULL;
    return reopen_start(con, a, true);
  }
  if (con->error == DB_ERROR_IGNORABLE)
  {
    sb_counter_inc(con->thread_id, SB_CNT_ERROR);
    sb_endpoint_count(db_counted_endpoint(con), SB_EPC_ERRORS, 1);
  }
  return done(a, 1);
}

/* The connection's result slot, emptied for the next statement. */
static void fresh_result(db_conn_t *con)
{
  db_rs_release(&con->rs);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
}

/* Common start of a statement with a result; false when the connection
   is unusable (result NULL, ALERT printed). */
static bool begin_result(db_conn_t *con, struct db_async *a, db_stmt_t *stmt)
{
  a->op = OP_RESULT;
  a->stmt = stmt;
  a->result = NULL;
  if (!db_usable(con))
  {
    done(a, 1);
    return false;
  }
  /* as the blocking calls do: another statement cancels a fast load */
  if (con->load)
    db_load_cancel(con, stmt ? "execute()" : "query()");
  db_clear_error(con);
  fresh_result(con);
  return true;
}

static db_step_t query_go(db_conn_t *con, struct db_async *a, const char *query, size_t len)
{
  if (db_debug())
    log_text(LOG_DEBUG, "query: %.*s", (int) len, query);
  if (con->driver->ops.query_start == NULL)
  {
    if (con->driver->ops.query(con, query, len, &con->rs) != 0 && con->error == DB_ERROR_NONE)
      con->error = DB_ERROR_FATAL;
    return finish_result(con, a);
  }
  a->phase = AP_QUERY;
  if (con->driver->ops.query_start(con, query, len, &con->rs) == DB_STEP_WAIT)
    return waiting(con, a);
  return finish_result(con, a);
}

db_step_t db_query_start(db_conn_t *con, const char *query, size_t len)
{
  struct db_async *a = state(con);
  if (!begin_result(con, a, NULL))
    return DB_STEP_DONE;
  return query_go(con, a, query, len);
}

static db_step_t execute_go(db_conn_t *con, struct db_async *a)
{
  db_stmt_t *stmt = a->stmt;
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  if (con->driver->ops.execute_start == NULL)
  {
    if (con->driver->ops.execute(stmt, &con->rs) != 0 && con->error == DB_ERROR_NONE)
      con->error = DB_ERROR_FATAL;
    return finish_result(con, a);
  }
  a->phase = AP_EXECUTE;
  if (con->driver->ops.execute_start(stmt, &con->rs) == DB_STEP_WAIT)
    return waiting(con, a);
  return finish_result(con, a);
}

/* A stale statement (its connection was rebuilt) was prepared again. */
static db_step_t stale_prepared(db_conn_t *con, struct db_async *a)
{
  if (con->error != DB_ERROR_NONE)
    return finish_result(con, a);
  a->stmt->stale = false;
  return execute_go(con, a);
}

db_step_t db_execute_start(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  struct db_async *a = state(con);
  if (stmt->emulated)
  {
    if (!begin_result(con, a, NULL))
      return DB_STEP_DONE;
    size_t len = db_stmt_emulate(stmt);
    return query_go(con, a, stmt->emu_buf, len);
  }
  if (!begin_result(con, a, stmt))
    return DB_STEP_DONE;
  if (!stmt->stale)
    return execute_go(con, a);
  a->phase = AP_STALE;
  if (con->driver->ops.prepare_start)
  {
    if (con->driver->ops.prepare_start(stmt) == DB_STEP_WAIT)
      return waiting(con, a);
  }
  else if (con->driver->ops.prepare(stmt) != 0 && con->error == DB_ERROR_NONE)
    con->error = DB_ERROR_FATAL;
  return stale_prepared(con, a);
}

db_step_t db_next_result_start(db_conn_t *con)
{
  struct db_async *a = state(con);
  a->op = OP_RESULT;
  a->result = NULL;
  if (!db_usable(con))
    return done(a, 1);
  db_clear_error(con);
  if (con->driver->ops.next_result == NULL || !db_more_results(con))
    return done(a, 0);
  a->stmt = con->rs.stmt;
  fresh_result(con);
  if (con->driver->ops.next_result_start == NULL)
  {
    if (con->driver->ops.next_result(con, &con->rs) != 0 && con->error == DB_ERROR_NONE)
      con->error = DB_ERROR_FATAL;
    return finish_result(con, a);
  }
  a->phase = AP_NEXT;
  if (con->driver->ops.next_result_start(con, &con->rs) == DB_STEP_WAIT)
    return waiting(con, a);
  return finish_result(con, a);
}

/* A pipeline fetch completed: the sync point (no result, no error), or
   a statement's result or error, counted as db_pipeline_fetch does. */
static db_step_t pipeline_fetched(db_conn_t *con, struct db_async *a)
{
  a->fetch_rc = db_pipeline_fetch_rc(con, a->fetch_rc);
  if (a->fetch_rc == 2)
  {
    db_pipeline_batch_done(con);
    a->result = NULL;
    return done(a, 0);
  }
  if (a->fetch_rc != 0 && con->error == DB_ERROR_NONE)
    con->error = DB_ERROR_FATAL;
  return finish_result(con, a);
}

db_step_t db_pipeline_fetch_start(db_conn_t *con)
{
  struct db_async *a = state(con);
  a->op = OP_RESULT;
  a->stmt = NULL;
  a->result = NULL;
  const db_driver_ops_t *ops = &con->driver->ops;
  if (ops->pipeline_fetch_start == NULL)
  {
    /* the blocking form (it counts the statement itself) */
    a->result = db_pipeline_fetch(con);
    return done(a, a->result == NULL && con->error != DB_ERROR_NONE);
  }
  if (!db_usable(con))
    return done(a, 1);
  db_clear_error(con);
  db_pipeline_fetch_clock(con);
  fresh_result(con);
  a->phase = AP_PFETCH;
  if (ops->pipeline_fetch_start(con, &con->rs, &a->fetch_rc) == DB_STEP_WAIT)
    return waiting(con, a);
  return pipeline_fetched(con, a);
}

db_result_t *db_async_result(db_conn_t *con)
{
  return con->async ? con->async->result : NULL;
}

int db_async_status(const db_conn_t *con)
{
  return con->async ? con->async->status : 0;
}

/* ---- prepare, close ------------------------------------------------------- */

static db_step_t prepared(db_conn_t *con, struct db_async *a)
{
  db_stmt_t *s = a->stmt;
  timed_out(con, a);
  if (con->error != DB_ERROR_NONE)
  {
    db_stmt_free(s);              /* not linked yet: frees it whole */
    a->stmt = NULL;
    return done(a, 1);
  }
  s->next = con->stmts;
  con->stmts = s;
  return done(a, 0);
}

db_step_t db_prepare_start(db_conn_t *con, const char *query, size_t len)
{
  struct db_async *a = state(con);
  a->op = OP_PREPARE;
  a->stmt = NULL;
  if (!db_usable(con))
    return done(a, 1);
  if (con->load)
    db_load_cancel(con, "prepare()");
  db_clear_error(con);
  db_stmt_t *s = db_stmt_new(con, query, len);
  if (s == NULL)
  {
    con->error = DB_ERROR_FATAL;
    return done(a, 1);
  }
  a->stmt = s;
  if (s->emulated)
    return prepared(con, a);
  db_rs_release(&con->rs);
  if (con->driver->ops.prepare_start == NULL)
  {
    if (con->driver->ops.prepare(s) != 0 && con->error == DB_ERROR_NONE)
      con->error = DB_ERROR_FATAL;
    return prepared(con, a);
  }
  a->phase = AP_PREPARE;
  if (con->driver->ops.prepare_start(s) == DB_STEP_WAIT)
    return waiting(con, a);
  return prepared(con, a);
}

db_stmt_t *db_async_stmt(db_conn_t *con)
{
  return con->async && con->async->op == OP_PREPARE ? con->async->stmt : NULL;
}

db_step_t db_close_start(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  struct db_async *a = state(con);
  a->op = OP_CLOSE;
  a->stmt = stmt;
  if (con->rs.stmt == stmt)
    db_rs_release(&con->rs);
  if (!stmt->emulated && !stmt->stale && con->state == DB_CONN_READY)
  {
    if (con->driver->ops.close_start == NULL)
      con->driver->ops.close(stmt);
    else
    {
      a->phase = AP_CLOSE;
      if (con->driver->ops.close_start(stmt) == DB_STEP_WAIT)
        return waiting(con, a);
    }
  }
  stmt->ptr = NULL;
  db_stmt_free(stmt);
  a->stmt = NULL;
  return done(a, 0);
}

/* ---- connect, reconnect ---------------------------------------------------- */

db_step_t db_connect_start(db_conn_t *con)
{
  struct db_async *a = state(con);
  a->op = OP_CONNECT;
  if (db_connection_route_default(con) != 0)
    return done(a, 1);
  if (con->driver->ops.connect_start == NULL)
    return done(a, con->driver->ops.connect(con) != 0);
  a->phase = AP_CONNECT;
  if (con->driver->ops.connect_start(con) == DB_STEP_WAIT)
    return waiting(con, a);
  return done(a, con->ptr == NULL || con->error != DB_ERROR_NONE);
}

int db_connect_finish(db_conn_t *con)
{
  if (db_async_status(con) != 0)
  {
    db_connection_discard(con);
    return 1;
  }
  db_connection_register(con);
  return 0;
}

db_step_t db_reconnect_start(db_conn_t *con)
{
  struct db_async *a = state(con);
  a->op = OP_RECONNECT;
  if (con->state == DB_CONN_INVALID)
  {
    log_text(LOG_ALERT, "attempt to use an already closed connection");
    return done(a, 1);
  }
  sb_counter_inc(con->thread_id, SB_CNT_RECONNECT);
  return reopen_start(con, a, false);
}

db_step_t db_route_start(db_conn_t *con, const char *what, int who)
{
  struct db_async *a = state(con);
  a->op = OP_RECONNECT;
  int rc = db_route_begin(con, what, who);
  if (rc <= 0)
    return done(a, rc != 0);
  return reopen_start(con, a, false);
}

/* ---- bulk insert ------------------------------------------------------------ */

bool db_bulk_needs_flush(const db_conn_t *con, size_t len)
{
  return con != NULL && con->bulk_active && con->state == DB_CONN_READY &&
         con->bulk_values > 0 && con->bulk_prefix_len + len + 1 <= con->bulk_cap &&
         con->bulk_len + len + 1 > con->bulk_cap;
}

db_step_t db_bulk_flush_start(db_conn_t *con)
{
  struct db_async *a = state(con);
  if (!con->bulk_active || con->bulk_values == 0)
  {
    a->op = OP_RESULT;
    a->result = NULL;
    return done(a, 0);
  }
  size_t len = con->bulk_len;
  /* the rows stay in the buffer until the query completes: the next row
     is only added after that */
  con->bulk_len = con->bulk_prefix_len;
  con->bulk_values = 0;
  return db_query_start(con, con->bulk_buf, len);
}

/* ---- stepping ------------------------------------------------------------------ */

/* One step of the phase in progress; every wait the driver asks for goes
   through waiting() once. */
static db_step_t step(db_conn_t *con, struct db_async *a, int ready);

db_step_t db_async_step(db_conn_t *con, int ready)
{
  struct db_async *a = state(con);
  if (a->phase == AP_IDLE)
    return DB_STEP_DONE;
  ready = check_deadline(con, a, ready);
  if (ready == 0 && a->own_timer)
    return waiting(con, a);         /* the deadline's timer, a little early */
  return step(con, a, ready);
}

static db_step_t step(db_conn_t *con, struct db_async *a, int ready)
{
  const db_driver_ops_t *ops = &con->driver->ops;
  switch (a->phase)
  {
  case AP_CONNECT:
    if (ops->connect_cont(con, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    timed_out(con, a);
    return done(a, con->ptr == NULL || con->error != DB_ERROR_NONE);
  case AP_QUERY:
    if (ops->query_cont(con, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    return finish_result(con, a);
  case AP_EXECUTE:
    if (ops->execute_cont(a->stmt, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    return finish_result(con, a);
  case AP_NEXT:
    if (ops->next_result_cont(con, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    return finish_result(con, a);
  case AP_STALE:
    if (ops->prepare_cont(a->stmt, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    return stale_prepared(con, a);
  case AP_PREPARE:
    if (ops->prepare_cont(a->stmt, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    return prepared(con, a);
  case AP_CLOSE:
    if (ops->close_cont(a->stmt, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    a->stmt->ptr = NULL;
    db_stmt_free(a->stmt);
    a->stmt = NULL;
    return done(a, 0);
  case AP_REOPEN:
    if (quietly(con, a, connect_cont_fn, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    timed_out(con, a);
    return reopen_attempted(con, a);
  case AP_BACKOFF:
    return reopen_attempt(con, a);
  case AP_PFETCH:
    if (ops->pipeline_fetch_cont(con, ready, &a->fetch_rc) == DB_STEP_WAIT)
      return waiting(con, a);
    return pipeline_fetched(con, a);
  case AP_REPREPARE:
    if (ops->prepare_cont(a->stmt, ready) == DB_STEP_WAIT)
      return waiting(con, a);
    if (con->error == DB_ERROR_NONE)
      a->stmt->stale = false;
    a->stmt = a->stmt->next;
    return reprepare_next(con, a);
  case AP_IDLE:
  default:
    return DB_STEP_DONE;
  }
}
