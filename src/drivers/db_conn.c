/* Connections of the generic SQL layer: errors, the calling thread's last
   connect, the registry of live connections, close / free, reconnecting a
   lost connection and counting a statement's outcome; see db_driver.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sb_histogram.h"
#include "drivers/db_driver.h"
#include "drivers/db_async.h"
#include "drivers/db_load.h"
#include "core/sb_logger.h"
#include "core/sb_timer.h"
#include "drivers/db_driver_priv.h"

static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static db_conn_t *reg_head;
static bool (*keep_retrying)(void);
/* The engine's "say nothing" for the calling thread (see
   db_quiet_all_errors). */
static _Thread_local bool quiet_all;
static _Thread_local bool private_cons;   /* db_private_connections */

/* ---- the engine's hooks -------------------------------------------------------- */

void db_set_retry_predicate(bool (*fn)(void))
{
  __atomic_store_n(&keep_retrying, fn, __ATOMIC_RELEASE);
}

static int (*connect_check)(void);

void db_set_connect_check(int (*fn)(void))
{
  __atomic_store_n(&connect_check, fn, __ATOMIC_RELEASE);
}

/* The engine's check before a connection is opened (descriptor limit). */
static bool connect_allowed(void)
{
  int (*fn)(void) = __atomic_load_n(&connect_check, __ATOMIC_ACQUIRE);
  return fn == NULL || fn() == 0;
}

/* True while a lost connection should be retried (the engine's run is
   going on); false when nobody registered a predicate. */
bool db_should_retry(void)
{
  bool (*fn)(void) = __atomic_load_n(&keep_retrying, __ATOMIC_ACQUIRE);
  return fn != NULL && fn();
}

/* ---- errors ---------------------------------------------------------------- */

void db_clear_error(db_conn_t *con)
{
  con->error = DB_ERROR_NONE;
  con->lost = false;
  con->timed_out = false;
  /* the blocking forms tell a timeout from a lost connection by the time
     they took (Connector/C reports both as error 2013) */
  if (db_query_timeout_s() > 0 || con->endpoint != NULL)
    con->op_start_ns = sb_now_ns();
  con->err.sql_errno = 0;
  con->err.sql_state[0] = '\0';
  con->err.api = NULL;
  con->err.status = NULL;
  if (con->err.msg)
    con->err.msg[0] = '\0';
  free(con->err.full);
  con->err.full = NULL;
}

void db_set_error(db_conn_t *con, db_error_t error, int sql_errno,
                  const char *sql_state, const char *msg, const char *api,
                  const char *query, size_t query_len)
{
  con->error = error;
  con->err.sql_errno = sql_errno;
  snprintf(con->err.sql_state, sizeof(con->err.sql_state), "%s", sql_state ? sql_state : "");
  free(con->err.msg);
  con->err.msg = strdup(msg ? msg : "");
  con->err.api = api;
  free(con->err.query);
  if (query)
    con->err.query = strndup(query, query_len);
  else
    con->err.query = strdup("<prepared statement>");
  free(con->err.full);
  con->err.full = NULL;
}

void db_set_error_full(db_conn_t *con, const char *text)
{
  size_t n = text ? strlen(text) : 0;
  while (n > 0 && text[n - 1] == '\n')
    n--;
  free(con->err.full);
  con->err.full = n > 0 ? strndup(text, n) : NULL;
}

void db_mark_timeout(db_conn_t *con, bool connecting)
{
  char msg[160];
  unsigned s = connecting ? db_connect_timeout_s() : db_query_timeout_s();
  snprintf(msg, sizeof(msg), "no answer from the server within %u s (--db-%s-timeout); "
           "the connection is closed", s, connecting ? "connect" : "query");
  bool (*ign)(void) = con->driver->ops.timeout_ignorable;
  con->error = connecting || ign == NULL || !ign() ? DB_ERROR_FATAL : DB_ERROR_IGNORABLE;
  if (con->err.sql_errno == 0 && con->err.sql_state[0] == '\0')
    snprintf(con->err.sql_state, sizeof(con->err.sql_state), "%s", "08006");
  free(con->err.msg);
  con->err.msg = strdup(msg);
  free(con->err.full);
  con->err.full = NULL;
  con->timed_out = true;
  con->lost = true;
}

bool db_connect_timed_out(const db_conn_t *con)
{
  unsigned s = db_connect_timeout_s();
  if (con->timed_out)
    return true;
  return s > 0 && con->op_start_ns != 0 &&
    sb_now_ns() - con->op_start_ns + 50000000ULL >= (uint64_t) s * 1000000000ULL;
}

void db_print_connect_timeout(const db_conn_t *con, const char *where)
{
  if (!db_connect_errors_quiet() && db_connect_timed_out(con))
    log_text(LOG_FATAL, "no answer from %s within %u s (--db-connect-timeout): is the "
             "server up, and is nothing between bmk and it dropping packets?", where,
             db_connect_timeout_s());
}

/* A blocking statement failed on a lost connection: a timeout when it
   lasted the whole --db-query-timeout (the client library's own read
   timeout, or the driver's wait, ended it). */
static void classify_timeout(db_conn_t *con)
{
  unsigned s = db_query_timeout_s();
  if (con->timed_out || !con->lost || s == 0 || con->op_start_ns == 0)
    return;
  /* 50 ms below the limit: the libraries' timers start a little after ours */
  if (sb_now_ns() - con->op_start_ns + 50000000ULL >= (uint64_t) s * 1000000000ULL)
    db_mark_timeout(con, false);
}

void db_print_error(const db_conn_t *con)
{
  if (quiet_all)
    return;
  const char *msg = con->err.msg ? con->err.msg : "";
  const char *query = con->err.query ? con->err.query : "";
  const char *api = con->err.api ? con->err.api : "query";
  if (strcmp(con->driver->name, "pgsql") == 0)
  {
    log_text(LOG_FATAL, "%s() failed: %s %s", api,
             con->err.status ? con->err.status : "", msg);
    /* as sysbench: only text queries show their SQL */
    if (strcmp(query, "<prepared statement>") != 0)
      log_text(LOG_FATAL, "failed query was: %s", query);
  }
  else if (query[0] == '\0')
    /* result-reading calls have no statement to name (as sysbench) */
    log_text(LOG_FATAL, "%s() returned error %d (%s)", api,
             con->err.sql_errno, msg);
  else
    log_text(LOG_FATAL, "%s() returned error %d (%s) for query '%s'", api,
             con->err.sql_errno, msg, query);
}

int db_conn_error(const db_conn_t *con)
{
  return con->error;
}

int db_conn_sql_errno(const db_conn_t *con)
{
  return con->err.sql_errno;
}

const char *db_conn_sql_state(const db_conn_t *con)
{
  return con->err.sql_state;
}

const char *db_conn_sql_errmsg(const db_conn_t *con)
{
  return con->err.msg ? con->err.msg : "";
}

const char *db_conn_sql_errmsg_full(const db_conn_t *con)
{
  return con->err.full;
}

bool db_conn_closed(const db_conn_t *con)
{
  return con->state == DB_CONN_INVALID;
}

int db_conn_in_txn(db_conn_t *con)
{
  if (con == NULL || con->state == DB_CONN_INVALID || con->driver->ops.txn_status == NULL)
    return -1;
  return con->driver->ops.txn_status(con);
}

/* ---- connections --------------------------------------------------------------- */

/* The calling thread's last connect attempt: the connection that failed
   is freed before Lua sees it, so workloads that connect per event read
   the error code from here (db_last_connect_error). */
static _Thread_local struct {
  bool failed;
  bool quiet;
  int sql_errno;
  char sql_state[6];
  char msg[512];
} last_connect;

void db_note_connect(const db_conn_t *con, bool failed)
{
  last_connect.failed = failed;
  last_connect.sql_errno = failed ? con->err.sql_errno : 0;
  last_connect.sql_state[0] = '\0';
  last_connect.msg[0] = '\0';
  if (failed)
  {
    snprintf(last_connect.sql_state, sizeof(last_connect.sql_state), "%s", con->err.sql_state);
    snprintf(last_connect.msg, sizeof(last_connect.msg), "%s", con->err.msg ? con->err.msg : "");
  }
}

const char *db_last_connect_errmsg(void)
{
  return last_connect.msg;
}

_Thread_local bool db_tl_loop_thread;
static uint64_t loop_blocking;    /* atomic */

void db_loop_thread(bool on)
{
  db_tl_loop_thread = on;
}

void db_loop_count_blocking(void)
{
  __atomic_add_fetch(&loop_blocking, 1, __ATOMIC_RELAXED);
}

uint64_t db_loop_blocking_calls(void)
{
  return __atomic_load_n(&loop_blocking, __ATOMIC_RELAXED);
}

void db_quiet_connect_errors(int on)
{
  last_connect.quiet = on != 0;
}

bool db_connect_errors_quiet(void)
{
  return last_connect.quiet || quiet_all;
}

bool db_all_errors_quiet(void)
{
  return quiet_all;
}

void db_quiet_all_errors(int on)
{
  quiet_all = on != 0;
}

int db_last_connect_error(int *sql_errno, const char **sql_state)
{
  if (sql_errno)
    *sql_errno = last_connect.sql_errno;
  if (sql_state)
    *sql_state = last_connect.sql_state;
  return last_connect.failed ? 1 : 0;
}

static int route(db_conn_t *con, const char *what, int who);

db_conn_t *db_connection_new(db_driver_t *drv)
{
  if (drv == NULL || db_thread_setup(drv) != 0)
    return NULL;
  if (!connect_allowed())
  {
    last_connect.failed = true;
    last_connect.sql_errno = 0;
    snprintf(last_connect.sql_state, sizeof(last_connect.sql_state), "08004");
    snprintf(last_connect.msg, sizeof(last_connect.msg), "not enough file descriptors");
    return NULL;
  }
  db_conn_t *con = calloc(1, sizeof(*con));
  if (con == NULL)
    return NULL;
  con->driver = drv;
  con->thread_id = sb_tls_tid;
  con->wait_fd = -1;
  con->is_private = private_cons;
  return con;
}

void db_private_connections(int on)
{
  private_cons = on != 0;
}

int db_connection_route(db_conn_t *con, const char *what, int who)
{
  int rc = route(con, what, who);
  if (rc != 0)
    con->state = DB_CONN_INVALID;     /* db_connection_free may take it */
  return rc;
}

static int route(db_conn_t *con, const char *what, int who)
{
  bool known;
  sb_endpoint_t *ep = sb_endpoints_pick(what, who, &known);
  if (sb_endpoints_count() == 0)
  {
    if (what == NULL || *what == '\0' || strcmp(what, "default") == 0 ||
        strcmp(what, "read") == 0 || strcmp(what, "write") == 0)
      return 0;
    log_text(LOG_FATAL, "connection for endpoint '%s': no --endpoints file was given "
             "(docs/endpoints.md)", what);
    return -1;
  }
  if (!known)
  {
    log_text(LOG_FATAL, "connection for endpoint '%s': the --endpoints file has no route, "
             "endpoint or role of that name", what);
    return -1;
  }
  if (strcmp(ep->driver, con->driver->name) != 0)
  {
    log_text(LOG_FATAL, "endpoint '%s' is a %s endpoint, the connection's driver is %s "
             "(--db-driver=%s)", ep->name, ep->driver, con->driver->name, ep->driver);
    return -1;
  }
  con->endpoint = ep;
  con->routed = true;
  return 0;
}

int db_connection_route_default(db_conn_t *con)
{
  return con->routed ? 0 : db_connection_route(con, NULL, con->thread_id);
}

db_conn_t *db_connection_create_route(db_driver_t *drv, const char *what, int who)
{
  db_conn_t *con = db_connection_new(drv);
  if (con == NULL)
    return NULL;
  if (db_connection_route(con, what, who) != 0)
  {
    db_connection_discard(con);
    return NULL;
  }
  db_blocking_call();
  if (drv->ops.connect(con) != 0)
  {
    db_connection_discard(con);
    return NULL;
  }
  db_connection_register(con);
  return con;
}

const char *db_connection_endpoint(const db_conn_t *con)
{
  return con && con->endpoint ? con->endpoint->name : "";
}

void db_connection_discard(db_conn_t *con)
{
  db_note_connect(con, true);
  free(con->err.msg);
  free(con->err.query);
  free(con->err.full);
  free(con->async);
  free(con);
}

void db_sock_settled(db_conn_t *con)
{
  static atomic_uint_fast64_t next_sock_id = 1;
  con->sock_id = (uint64_t) atomic_fetch_add_explicit(&next_sock_id, 1, memory_order_relaxed);
}

void db_connection_register(db_conn_t *con)
{
  db_note_connect(con, false);
  sb_endpoint_count(db_counted_endpoint(con), SB_EPC_CONNECTS, 1);
  db_sock_settled(con);
  con->state = DB_CONN_READY;
  db_endpoint_connected(con);
  pthread_mutex_lock(&reg_mutex);
  con->reg_next = reg_head;
  if (reg_head)
    reg_head->reg_prev = con;
  reg_head = con;
  pthread_mutex_unlock(&reg_mutex);
}

db_conn_t *db_connection_create(db_driver_t *drv)
{
  return db_connection_create_route(drv, NULL, sb_tls_tid);
}

void db_each_connection(void (*fn)(db_conn_t *con, void *arg), void *arg)
{
  pthread_mutex_lock(&reg_mutex);
  for (db_conn_t *c = reg_head; c; c = c->reg_next)
    if (!c->is_private && c->state != DB_CONN_INVALID)   /* private: first, its state is its thread's */
      fn(c, arg);
  pthread_mutex_unlock(&reg_mutex);
}

void db_rs_release(db_result_t *rs)
{
  if (rs->state == DB_RS_READY)
  {
    rs->con->driver->ops.free_results(rs);
    rs->state = DB_RS_FREE;
    rs->ptr = NULL;
  }
}

/* Releases every statement's server-side handle (before a disconnect). */
void db_release_statements(db_conn_t *con)
{
  for (db_stmt_t *s = con->stmts; s; s = s->next)
    if (!s->emulated && !s->stale)
    {
      con->driver->ops.close(s);
      s->ptr = NULL;
      s->stale = true;
    }
}

/* Prepares stale statements again on the new connection; failures leave
   them stale (tried again at execute). */
static void reprepare_statements(db_conn_t *con)
{
  for (db_stmt_t *s = con->stmts; s; s = s->next)
    if (s->stale && con->driver->ops.prepare(s) == 0)
      s->stale = false;
}

int db_connection_close(db_conn_t *con)
{
  if (con == NULL)
    return 1;
  if (con->state == DB_CONN_INVALID)
  {
    log_text(LOG_ALERT, "attempt to close an already closed connection");
    return 1;
  }
  db_load_cancel(con, NULL);
  db_rs_release(&con->rs);
  db_release_statements(con);
  db_sock_unsettled(con);
  con->driver->ops.disconnect(con);
  con->ptr = NULL;
  con->state = DB_CONN_INVALID;
  return 0;
}

/* "2013: Lost connection ..." (MySQL errno) or "57P01: terminating ..."
   (SQLSTATE) for the reconnect messages. */
static void describe_error(char *buf, size_t n, int sql_errno, const char *state,
                           const char *msg)
{
  if (sql_errno != 0)
    snprintf(buf, n, "%d: %s", sql_errno, msg ? msg : "");
  else if (state != NULL && *state)
    snprintf(buf, n, "%s: %s", state, msg ? msg : "");
  else
    snprintf(buf, n, "%s", msg ? msg : "");
  /* one line: libpq's messages span several ("...\n\tThis probably
     means ...") */
  char *w = buf;
  bool space = false;
  for (const char *r = buf; *r; r++)
  {
    bool ws = *r == '\n' || *r == '\t' || *r == '\r' || *r == ' ';
    if (ws && (space || w == buf))
      continue;
    *w++ = ws ? ' ' : *r;
    space = ws;
  }
  while (w > buf && w[-1] == ' ')
    w--;
  *w = '\0';
}

/* Reopens the connection with a fresh handle. `persist` (a lost connection
   the driver may ignore, error `why`): retry with backoff (1 ms doubling to
   1 s) while the run is going on. The attempts are quiet: one WARNING when
   the first fails, one line when the connection is back, one WARNING when
   the run ends first; an explicit reconnect (not persist) prints the
   driver's FATAL connect lines. */
static int reopen(db_conn_t *con, bool persist, const db_err_t *why)
{
  db_load_cancel(con, NULL);
  db_rs_release(&con->rs);
  db_release_statements(con);
  db_sock_unsettled(con);
  con->driver->ops.disconnect(con);
  con->ptr = NULL;
  unsigned delay_ms = 1, attempts = 0;
  uint64_t t0 = sb_now_ns();
  bool was_quiet = last_connect.quiet, warned = false;
  char lost[512], failed[512];
  if (persist)
  {
    last_connect.quiet = true;
    db_failover_begin(con);
  }
  for (;;)
  {
    attempts++;
    if (con->driver->ops.connect(con) == 0)
      break;
    describe_error(failed, sizeof(failed), con->err.sql_errno, con->err.sql_state,
                   con->err.msg);
    if (!persist || !db_should_retry())
    {
      last_connect.quiet = was_quiet;
      db_failover_end(con, false);
      /* internal connections (negative ids, e.g. the server-statistics
         sampler) report their own failures */
      if (persist && con->thread_id >= 0)
        log_text(LOG_WARNING, "thread %d: no connection to the server (%s); giving "
                 "up: reconnecting is retried only while a run is going on", con->thread_id, failed);
      con->state = DB_CONN_INVALID;
      return -1;
    }
    if (persist && db_failover_next(con))
      continue;
    if (!warned && con->thread_id >= 0)
    {
      warned = true;
      describe_error(lost, sizeof(lost), why ? why->sql_errno : 0,
                     why ? why->sql_state : NULL, why && why->msg ? why->msg : "");
      log_text(LOG_WARNING, "thread %d: lost connection (%s); reconnect failed (%s); "
               "retrying with a back-off from 1 ms doubling to 1 s until it succeeds "
               "or the run ends", con->thread_id, lost, failed);
    }
    struct timespec ts = { delay_ms / 1000, (long) (delay_ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    if (delay_ms < 1000)
      delay_ms = delay_ms * 2 > 1000 ? 1000 : delay_ms * 2;
  }
  last_connect.quiet = was_quiet;
  if (persist)
    db_failover_end(con, true);
  if (attempts > 1 && con->thread_id >= 0)
    log_text(LOG_NOTICE, "thread %d: reconnected after %.2fs (%u attempts)",
             con->thread_id, (double) (sb_now_ns() - t0) / 1e9, attempts);
  db_sock_settled(con);
  con->state = DB_CONN_READY;
  db_endpoint_connected(con);
  reprepare_statements(con);
  return 0;
}

int db_connection_reconnect(db_conn_t *con)
{
  if (con == NULL || con->state == DB_CONN_INVALID)
  {
    log_text(LOG_ALERT, "attempt to use an already closed connection");
    return 1;
  }
  db_blocking_call();
  sb_counter_inc(con->thread_id, SB_CNT_RECONNECT);
  return reopen(con, false, NULL);
}

/* ---- con:route(): moving an open connection ---------------------------------- */

static _Thread_local char route_err[512];

const char *db_route_error(void)
{
  return route_err;
}

/* Sets the message of a refused con:route() and returns -1. */
static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(route_err, sizeof(route_err), fmt, ap);
  va_end(ap);
  return -1;
}

int db_route_begin(db_conn_t *con, const char *what, int who)
{
  bool known;
  route_err[0] = '\0';
  con->route_moving = false;
  if (con->state == DB_CONN_INVALID)
    return refuse("con:route('%s'): the connection is closed", what);
  if (sb_endpoints_count() == 0)
    return refuse("con:route('%s'): routes need an --endpoints file (docs/endpoints.md)", what);
  sb_endpoint_t *ep = sb_endpoints_pick(what, who, &known);
  if (!known || ep == NULL)
    return refuse("con:route('%s'): the --endpoints file has no route, endpoint or role of "
                  "that name", what);
  if (strcmp(ep->driver, con->driver->name) != 0)
    return refuse("con:route('%s'): endpoint '%s' is a %s endpoint, the connection's driver "
                  "is %s", what, ep->name, ep->driver, con->driver->name);
  if (ep == con->endpoint)
    return 0;
  int (*txn)(db_conn_t *) = con->driver->ops.txn_status;
  const char *busy = txn != NULL && txn(con) == 1 ?
    "the connection is in a transaction: COMMIT or ROLLBACK first" :
    con->bulk_active ? "a bulk insert is in progress: bulk_insert_done() first" :
    con->load != NULL ? "a fast load is in progress: finish() it first" : NULL;
  if (busy != NULL)
    return refuse("con:route('%s'): not moved to endpoint '%s': %s", what, ep->name, busy);
  /* the latencies so far are the old endpoint's */
  db_endpoint_retire_latency(con, db_counted_endpoint(con));
  con->route_from = con->endpoint;
  con->route_moving = true;
  con->endpoint = ep;
  con->routed = true;
  return 1;
}

int db_route_end(db_conn_t *con, int status)
{
  bool moving = con->route_moving;
  con->route_moving = false;
  if (route_err[0] != '\0')
    return -1;                        /* refused by db_route_begin */
  if (!moving)
    return 0;                         /* already there */
  if (status != 0)
    return refuse("con:route(): connecting to endpoint '%s' failed (the connection left "
                  "'%s' and is closed now)", con->endpoint->name,
                  con->route_from ? con->route_from->name : "");
  sb_endpoint_count(db_counted_endpoint(con), SB_EPC_CONNECTS, 1);
  return 0;
}

int db_connection_move(db_conn_t *con, const char *what, int who)
{
  if (con == NULL)
    return -1;
  int rc = db_route_begin(con, what, who);
  if (rc <= 0)
    return rc;
  db_blocking_call();
  return db_route_end(con, reopen(con, false, NULL));
}

void db_connection_uncounted(db_conn_t *con)
{
  if (con)
    con->thread_id = SB_TID_UNCOUNTED;
}

void db_count_reconnect(int thread_id)
{
  sb_counter_inc(thread_id, SB_CNT_RECONNECT);
}

void db_connection_free(db_conn_t *con)
{
  if (con == NULL)
    return;
  if (con->state != DB_CONN_INVALID)
    db_connection_close(con);
  db_endpoint_retire_latency(con, db_counted_endpoint(con));
  sb_hdr_free(con->ep_lat);
  con->ep_lat = NULL;
  pthread_mutex_lock(&reg_mutex);
  if (con->reg_prev)
    con->reg_prev->reg_next = con->reg_next;
  else if (reg_head == con)
    reg_head = con->reg_next;
  if (con->reg_next)
    con->reg_next->reg_prev = con->reg_prev;
  pthread_mutex_unlock(&reg_mutex);
  while (con->stmts)
    db_stmt_free(con->stmts);
  free(con->bulk_buf);
  free(con->err.msg);
  free(con->err.query);
  free(con->err.full);
  free(con->async);
  free(con);
}

/* ---- statement outcome ------------------------------------------------------------ */

/* Counts the outcome of a statement and turns it into the API's result:
   the connection's result, or NULL on error. A lost connection with an
   ignorable error is rebuilt in place and counted as a reconnect. */
db_result_t *db_finish(db_conn_t *con, int rc, db_stmt_t *stmt)
{
  db_result_t *rs = &con->rs;
  if (rc == 0 && con->error == DB_ERROR_NONE)
  {
    rs->state = DB_RS_READY;
    rs->con = con;
    rs->stmt = stmt;
    sb_counter_inc(con->thread_id, rs->counter);
    db_endpoint_count_result(con, rs->counter);
    if (con->endpoint != NULL)
      db_endpoint_after_stmt(con);
    /* No result set (nrows = affected rows): nothing is live to fetch or
       free, as in sysbench, whose free of it is "an invalid result set". */
    if (rs->nfields == 0)
      db_rs_release(rs);
    return rs;
  }
  rs->state = DB_RS_FREE;
  if (con->error == DB_ERROR_NONE)
    con->error = DB_ERROR_FATAL;
  classify_timeout(con);
  if (con->endpoint != NULL)
    db_endpoint_after_stmt(con);
  if (con->timed_out)
    sb_counter_inc(con->thread_id, SB_CNT_TIMEOUT);
  if (con->error == DB_ERROR_IGNORABLE)
  {
    if (con->lost)
    {
      /* the loss is an error of the endpoint it happened on */
      sb_endpoint_count(db_counted_endpoint(con), SB_EPC_ERRORS, 1);
      /* Keep the error for the script while the handle is rebuilt. */
      db_err_t saved = con->err;
      char *msg = saved.msg ? strdup(saved.msg) : NULL;
      char *query = saved.query ? strdup(saved.query) : NULL;
      bool lost = con->lost, timed_out = con->timed_out;
      db_err_t why = saved;
      why.msg = msg;
      reopen(con, true, &why);
      db_set_error(con, DB_ERROR_IGNORABLE, saved.sql_errno, saved.sql_state,
                   msg, saved.api, query, query ? strlen(query) : 0);
      con->lost = lost;
      con->timed_out = timed_out;
      free(msg);
      free(query);
      sb_counter_inc(con->thread_id, SB_CNT_RECONNECT);
      sb_endpoint_count(db_counted_endpoint(con), SB_EPC_RECONNECTS, 1);
    }
    else
    {
      sb_counter_inc(con->thread_id, SB_CNT_ERROR);
      sb_endpoint_count(db_counted_endpoint(con), SB_EPC_ERRORS, 1);
    }
  }
  return NULL;
}

bool db_usable(db_conn_t *con)
{
  if (con == NULL)
    return false;
  if (con->state == DB_CONN_INVALID)
  {
    log_text(LOG_ALERT, "attempt to use an already closed connection");
    con->error = DB_ERROR_NONE;
    return false;
  }
  return true;
}
