/* The generic SQL layer; see db_driver.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/db_driver.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"
#include "core/sb_timer.h"
#include "drivers/db_driver_priv.h"


#ifdef USE_MYSQL
extern const db_driver_t mysql_driver;
#endif
#ifdef USE_PGSQL
extern const db_driver_t pgsql_driver;
#endif

static const db_driver_t *const drivers[] = {
#ifdef USE_MYSQL
  &mysql_driver,
#endif
#ifdef USE_PGSQL
  &pgsql_driver,
#endif
  NULL
};

static const sb_option_t db_general_options[] = {
  { "db-driver", "specifies database driver to use ('help' to get list of available drivers)",
#ifdef USE_MYSQL
    "mysql",
#elif defined(USE_PGSQL)
    "pgsql",
#else
    NULL,
#endif
    SB_ARG_TYPE_STRING },
  { "db-ps-mode", "prepared statements usage mode {auto, disable}", "auto", SB_ARG_TYPE_STRING },
  { "db-debug", "print database-specific debug information", "off", SB_ARG_TYPE_BOOL },
  { NULL, NULL, NULL, 0 }
};

static pthread_mutex_t init_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool initialised[8];
static bool init_failed[8];
static int driver_used;
static db_driver_t *last_driver;
static pthread_mutex_t reg_mutex = PTHREAD_MUTEX_INITIALIZER;
static db_conn_t *reg_head;
static bool ps_disabled;
static bool debug_on;
static _Thread_local bool thread_ready[8];
static bool (*keep_retrying)(void);
/* The engine's "say nothing" for the calling thread (see
   db_quiet_all_errors). */
static _Thread_local bool quiet_all;

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

const db_driver_t *const *db_drivers(void)
{
  return drivers;
}

int db_register_options(void)
{
  int rc = sb_opt_register_table(db_general_options, SB_GROUP_DB, NULL);
  for (unsigned i = 0; drivers[i]; i++)
  {
    if (sb_opt_register_table(drivers[i]->options, SB_GROUP_DRIVER, drivers[i]->name))
      rc = -1;
    if (drivers[i]->ext_options &&
        sb_opt_register_table(drivers[i]->ext_options, SB_GROUP_EXT_DRIVER, drivers[i]->name))
      rc = -1;
  }
  return rc;
}

bool db_ps_disabled(void)
{
  return ps_disabled;
}

bool db_debug(void)
{
  return debug_on;
}

db_driver_t *db_last_driver(void)
{
  return __atomic_load_n(&last_driver, __ATOMIC_RELAXED);
}

bool db_driver_used(void)
{
  return __atomic_load_n(&driver_used, __ATOMIC_RELAXED) != 0;
}

static int driver_index(const db_driver_t *drv)
{
  for (int i = 0; drivers[i]; i++)
    if (drivers[i] == drv)
      return i;
  return 0;
}

db_driver_t *db_create(const char *name)
{
  if (name == NULL || *name == '\0')
    name = sb_opt_str("db_driver");
  if (name == NULL)
  {
    log_text(LOG_FATAL, "no database driver is compiled in");
    return NULL;
  }
  const db_driver_t *drv = NULL;
  for (unsigned i = 0; drivers[i]; i++)
    if (strcmp(drivers[i]->name, name) == 0)
      drv = drivers[i];
  if (drv == NULL)
  {
    log_text(LOG_FATAL, "invalid database driver name: '%s'", name);
    return NULL;
  }

  int idx = driver_index(drv);
  pthread_mutex_lock(&init_mutex);
  if (!initialised[idx])
  {
    const char *mode = sb_opt_str("db_ps_mode");
    if (mode && strcmp(mode, "disable") == 0)
      ps_disabled = true;
    else if (mode && strcmp(mode, "auto") != 0)
    {
      log_text(LOG_FATAL, "Invalid value for db-ps-mode: %s", mode);
      init_failed[idx] = true;
    }
    debug_on = sb_opt_bool("db_debug");
    if (!init_failed[idx] && drv->ops.init && drv->ops.init() != 0)
      init_failed[idx] = true;
    initialised[idx] = true;
  }
  bool failed = init_failed[idx];
  pthread_mutex_unlock(&init_mutex);
  if (failed)
    return NULL;
  __atomic_store_n(&driver_used, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&last_driver, (db_driver_t *) drv, __ATOMIC_RELAXED);
  return (db_driver_t *) drv;
}

const char *db_driver_name(const db_driver_t *drv)
{
  return drv ? drv->name : "";
}

/* ---- errors ---------------------------------------------------------------- */

void db_clear_error(db_conn_t *con)
{
  con->error = DB_ERROR_NONE;
  con->lost = false;
  con->err.sql_errno = 0;
  con->err.sql_state[0] = '\0';
  con->err.api = NULL;
  con->err.status = NULL;
  if (con->err.msg)
    con->err.msg[0] = '\0';
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

bool db_conn_closed(const db_conn_t *con)
{
  return con->state == DB_CONN_INVALID;
}

/* ---- endpoints ---------------------------------------------------------------- */

static pthread_mutex_t endpoint_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned endpoint_cursor;

unsigned db_next_endpoint(unsigned n)
{
  if (n == 0)
    return 0;
  pthread_mutex_lock(&endpoint_mutex);
  unsigned i = endpoint_cursor++ % n;
  pthread_mutex_unlock(&endpoint_mutex);
  return i;
}

/* ---- connections --------------------------------------------------------------- */

int db_thread_setup(const db_driver_t *drv)
{
  int idx = driver_index(drv);
  if (thread_ready[idx])
    return 0;
  if (drv->ops.thread_init && drv->ops.thread_init(sb_tls_tid) != 0)
    return -1;
  thread_ready[idx] = true;
  return 0;
}

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

void db_quiet_connect_errors(int on)
{
  last_connect.quiet = on != 0;
}

bool db_connect_errors_quiet(void)
{
  return last_connect.quiet || quiet_all;
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
  return con;
}

void db_connection_discard(db_conn_t *con)
{
  db_note_connect(con, true);
  free(con->err.msg);
  free(con->err.query);
  free(con->async);
  free(con);
}

void db_connection_register(db_conn_t *con)
{
  db_note_connect(con, false);
  con->state = DB_CONN_READY;
  pthread_mutex_lock(&reg_mutex);
  con->reg_next = reg_head;
  if (reg_head)
    reg_head->reg_prev = con;
  reg_head = con;
  pthread_mutex_unlock(&reg_mutex);
}

db_conn_t *db_connection_create(db_driver_t *drv)
{
  db_conn_t *con = db_connection_new(drv);
  if (con == NULL)
    return NULL;
  if (drv->ops.connect(con) != 0)
  {
    db_connection_discard(con);
    return NULL;
  }
  db_connection_register(con);
  return con;
}

void db_each_connection(void (*fn)(db_conn_t *con, void *arg), void *arg)
{
  pthread_mutex_lock(&reg_mutex);
  for (db_conn_t *c = reg_head; c; c = c->reg_next)
    if (c->state != DB_CONN_INVALID)
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
  con->driver->ops.disconnect(con);
  con->ptr = NULL;
  unsigned delay_ms = 1, attempts = 0;
  uint64_t t0 = sb_now_ns();
  bool was_quiet = last_connect.quiet;
  char lost[512], failed[512];
  if (persist)
    last_connect.quiet = true;
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
      /* internal connections (negative ids, e.g. the server-statistics
         sampler) report their own failures */
      if (persist && con->thread_id >= 0)
        log_text(LOG_WARNING, "thread %d: no connection to the server (%s); giving "
                 "up: reconnecting is retried only while a run is going on", con->thread_id, failed);
      con->state = DB_CONN_INVALID;
      return -1;
    }
    if (attempts == 1 && con->thread_id >= 0)
    {
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
  if (attempts > 1 && con->thread_id >= 0)
    log_text(LOG_NOTICE, "thread %d: reconnected after %.2fs (%u attempts)",
             con->thread_id, (double) (sb_now_ns() - t0) / 1e9, attempts);
  con->state = DB_CONN_READY;
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
  sb_counter_inc(con->thread_id, SB_CNT_RECONNECT);
  return reopen(con, false, NULL);
}

/* ---- pipelining ------------------------------------------------------------ */

static int no_pipeline(db_conn_t *con, const char *api)
{
  db_set_error(con, DB_ERROR_FATAL, 0, NULL, "this driver has no pipeline mode", api, NULL, 0);
  return -1;
}

int db_pipeline_begin(db_conn_t *con)
{
  if (!db_usable(con))
    return -1;
  db_rs_release(&con->rs);
  db_clear_error(con);
  if (con->driver->ops.pipeline_begin == NULL)
    return no_pipeline(con, "db_pipeline_begin");
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
  db_rs_release(&con->rs);
  db_clear_error(con);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  int rc = con->driver->ops.pipeline_fetch(con, &con->rs);
  if (rc == 2)
    return NULL;
  return db_finish(con, rc, NULL);
}

int db_pipeline_end(db_conn_t *con)
{
  if (con == NULL || con->state != DB_CONN_READY)
    return -1;
  if (con->driver->ops.pipeline_end == NULL)
    return no_pipeline(con, "db_pipeline_end");
  return con->driver->ops.pipeline_end(con) == 0 ? 0 : -1;
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
  free(con->async);
  free(con);
}

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
    /* No result set (nrows = affected rows): nothing is live to fetch or
       free, as in sysbench, whose free of it is "an invalid result set". */
    if (rs->nfields == 0)
      db_rs_release(rs);
    return rs;
  }
  rs->state = DB_RS_FREE;
  if (con->error == DB_ERROR_NONE)
    con->error = DB_ERROR_FATAL;
  if (con->error == DB_ERROR_IGNORABLE)
  {
    if (con->lost)
    {
      /* Keep the error for the script while the handle is rebuilt. */
      db_err_t saved = con->err;
      char *msg = saved.msg ? strdup(saved.msg) : NULL;
      char *query = saved.query ? strdup(saved.query) : NULL;
      bool lost = con->lost;
      db_err_t why = saved;
      why.msg = msg;
      reopen(con, true, &why);
      db_set_error(con, DB_ERROR_IGNORABLE, saved.sql_errno, saved.sql_state,
                   msg, saved.api, query, query ? strlen(query) : 0);
      con->lost = lost;
      free(msg);
      free(query);
      sb_counter_inc(con->thread_id, SB_CNT_RECONNECT);
    }
    else
      sb_counter_inc(con->thread_id, SB_CNT_ERROR);
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

db_result_t *db_query(db_conn_t *con, const char *query, size_t len)
{
  if (!db_usable(con))
    return NULL;
  if (con->load)
    db_load_cancel(con, "query()");
  db_rs_release(&con->rs);
  db_clear_error(con);
  if (debug_on)
    log_text(LOG_DEBUG, "query: %.*s", (int) len, query);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  int rc = con->driver->ops.query(con, query, len, &con->rs);
  return db_finish(con, rc, NULL);
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
