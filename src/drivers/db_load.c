/*
 * Fast load: rows formatted in the load text format and handed to the
 * driver's bulk path (COPY FROM STDIN / LOAD DATA LOCAL INFILE); see
 * db_driver.h and docs/drivers.md "Fast load".
 *
 * The format is the one both servers read by default: one row per line,
 * columns separated by a tab, \N for NULL, and a backslash escaping a
 * backslash, tab, newline, carriage return or NUL (\\ \t \n \r \0).
 * PostgreSQL's COPY text format and MySQL's LOAD DATA defaults (FIELDS
 * TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n') agree on
 * it, so one formatter serves both drivers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_logger.h"
#include "drivers/db_driver.h"
#include "drivers/db_load.h"
#include "drivers/db_driver_priv.h"

struct db_load {
  char *table;             /* for messages */
  unsigned ncols;
  unsigned col;            /* values in the current row so far */
  char *buf;               /* complete rows not yet sent, then the row
                              being formatted */
  size_t len, cap;
  size_t row_start;        /* where the current row begins in buf */
  uint64_t rows;           /* rows loaded by finished statements */
  unsigned statements;     /* load statements finished */
  bool sent;               /* load_send was called at least once */
};

bool db_load_supported(const db_conn_t *con)
{
  return con != NULL && con->driver->ops.load_start != NULL;
}

bool db_load_active(const db_conn_t *con)
{
  return con != NULL && con->load != NULL;
}

size_t db_load_escape(char *dst, const char *src, size_t len)
{
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
  {
    char c = src[i];
    char e = 0;
    switch (c)
    {
    case '\\': e = '\\'; break;
    case '\t': e = 't'; break;
    case '\n': e = 'n'; break;
    case '\r': e = 'r'; break;
    case '\0': e = '0'; break;
    default: break;
    }
    if (e)
    {
      dst[n++] = '\\';
      dst[n++] = e;
    }
    else
      dst[n++] = c;
  }
  return n;
}

static void free_load(db_conn_t *con)
{
  db_load_t *ld = con->load;
  if (ld == NULL)
    return;
  free(ld->table);
  free(ld->buf);
  free(ld);
  con->load = NULL;
}

/* Misuse of the API: ALERT, no SQL error on the connection. */
static int misuse(db_conn_t *con, const char *fmt, const char *arg)
{
  log_text(LOG_ALERT, fmt, arg);
  if (con)
    con->error = DB_ERROR_NONE;
  return -1;
}

/* The connection's load, or NULL after the misuse ALERT. */
static db_load_t *current(db_conn_t *con, const char *call)
{
  if (!db_usable(con))
    return NULL;
  if (con->load == NULL)
  {
    misuse(con, "%s: no load in progress on this connection (load_start first)", call);
    return NULL;
  }
  return con->load;
}

void db_load_cancel(db_conn_t *con, const char *why)
{
  if (con == NULL || con->load == NULL)
    return;
  if (why)
    log_text(LOG_ALERT, "%s while loading into %s: the unfinished load was cancelled "
             "(finish() it first)", why, con->load->table);
  if (con->ptr != NULL)
    con->driver->ops.load_abort(con);
  free_load(con);
}

/* Ends a load after a failed driver call: the driver forgets it, the
   error is counted (ignorable / reconnect) like a failed query. */
static int load_failed(db_conn_t *con)
{
  con->driver->ops.load_abort(con);
  free_load(con);
  db_finish(con, 1, NULL);
  return 1;
}

/* Counts a finished load statement and frees its (empty) result. */
static void statement_done(db_conn_t *con)
{
  db_load_t *ld = con->load;
  db_result_t *rs = db_finish(con, 0, NULL);
  if (rs)
  {
    ld->rows += rs->nrows;
    db_rs_release(rs);
  }
  ld->statements++;
}

/* Prepares con->rs for a driver call (as db_query does). */
static void fresh_result(db_conn_t *con)
{
  db_rs_release(&con->rs);
  db_clear_error(con);
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
}

/* Hands buf[0..n) (complete rows) to the driver. 0 or 1 (SQL error). */
static int send_rows(db_conn_t *con, size_t n)
{
  db_load_t *ld = con->load;
  db_blocking_call();
  fresh_result(con);
  /* never NULL: an empty load has no buffer yet */
  int r = con->driver->ops.load_send(con, ld->buf ? ld->buf : "", n, &con->rs);
  ld->sent = true;
  if (r < 0 || con->error != DB_ERROR_NONE)
    return load_failed(con);
  if (r > 0)
    statement_done(con);
  if (ld->len > n)
    memmove(ld->buf, ld->buf + n, ld->len - n);
  ld->len -= n;
  ld->row_start -= n;
  return 0;
}

static int reserve(db_load_t *ld, size_t more)
{
  if (ld->len + more <= ld->cap)
    return 0;
  size_t cap = ld->cap ? ld->cap : 4096;
  while (cap < ld->len + more)
    cap *= 2;
  char *b = realloc(ld->buf, cap);
  if (b == NULL)
    return -1;
  ld->buf = b;
  ld->cap = cap;
  return 0;
}

int db_load_start(db_conn_t *con, const char *table, const char *const *cols,
                  unsigned ncols)
{
  if (!db_usable(con))
    return -1;
  if (!db_load_supported(con))
    return misuse(con, "load_start: the %s driver has no fast load path",
                  con->driver->name);
  if (con->load != NULL)
    return misuse(con, "load_start: a load into %s is already in progress on this "
                  "connection", con->load->table);
  if (table == NULL || *table == '\0' || ncols == 0)
    return misuse(con, "load_start: %s", "a table name and at least one column are needed");
  size_t clen = 1;
  for (unsigned i = 0; i < ncols; i++)
  {
    if (cols[i] == NULL || *cols[i] == '\0')
      return misuse(con, "load_start: column %s is empty", "name");
    clen += strlen(cols[i]) + 2;
  }
  char *collist = malloc(clen);
  db_load_t *ld = calloc(1, sizeof(*ld));
  if (collist == NULL || ld == NULL || (ld->table = strdup(table)) == NULL)
  {
    free(collist);
    free(ld);
    return misuse(con, "load_start: %s", "out of memory");
  }
  size_t n = 0;
  for (unsigned i = 0; i < ncols; i++)
    n += (size_t) sprintf(collist + n, "%s%s", i ? ", " : "", cols[i]);
  ld->ncols = ncols;
  con->load = ld;
  fresh_result(con);
  db_blocking_call();
  int rc = con->driver->ops.load_start(con, table, collist);
  free(collist);
  if (rc != 0 || con->error != DB_ERROR_NONE)
  {
    free_load(con);
    db_finish(con, 1, NULL);
    return 1;
  }
  return 0;
}

/* Appends raw bytes to the current row (a column separator first when it
   is not the row's first value). */
static int add_value(db_conn_t *con, const char *call, const char *s, size_t len, bool escape)
{
  db_load_t *ld = current(con, call);
  if (ld == NULL)
    return -1;
  if (ld->col >= ld->ncols)
    return misuse(con, "%s: more values than columns in this row", call);
  if (reserve(ld, (escape ? 2 * len : len) + 1) != 0)
    return misuse(con, "%s: out of memory", call);
  if (ld->col > 0)
    ld->buf[ld->len++] = '\t';
  if (escape)
    ld->len += db_load_escape(ld->buf + ld->len, s, len);
  else
  {
    memcpy(ld->buf + ld->len, s, len);
    ld->len += len;
  }
  ld->col++;
  return 0;
}

int db_load_text(db_conn_t *con, const char *s, size_t len)
{
  return add_value(con, "load value", s ? s : "", s ? len : 0, true);
}

int db_load_null(db_conn_t *con)
{
  return add_value(con, "load value", "\\N", 2, false);
}

int db_load_int(db_conn_t *con, int64_t v)
{
  char tmp[32];
  int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);
  return add_value(con, "load value", tmp, (size_t) n, false);
}

int db_load_double(db_conn_t *con, double v)
{
  char tmp[40];
  int n = snprintf(tmp, sizeof(tmp), "%.17g", v);
  return add_value(con, "load value", tmp, (size_t) n, false);
}

/* Sends the complete rows once a chunk's worth is gathered. */
static int maybe_send(db_conn_t *con)
{
  db_load_t *ld = con->load;
  size_t chunk = con->driver->load_chunk_bytes ? con->driver->load_chunk_bytes : 65536;
  if (ld->row_start < chunk)
    return 0;
  return send_rows(con, ld->row_start);
}

int db_load_end_row(db_conn_t *con)
{
  db_load_t *ld = current(con, "load row");
  if (ld == NULL)
    return -1;
  if (ld->col != ld->ncols)
  {
    char msg[64];
    snprintf(msg, sizeof(msg), "%u values for %u columns", ld->col, ld->ncols);
    return misuse(con, "load row: %s", msg);
  }
  if (reserve(ld, 1) != 0)
    return misuse(con, "load row: %s", "out of memory");
  ld->buf[ld->len++] = '\n';
  ld->col = 0;
  ld->row_start = ld->len;
  return maybe_send(con);
}

int db_load_rows(db_conn_t *con, const char *text, size_t len)
{
  db_load_t *ld = current(con, "load rows");
  if (ld == NULL)
    return -1;
  if (ld->col != 0)
    return misuse(con, "load rows: %s", "called in the middle of a row");
  if (len == 0)
    return 0;
  if (text[len - 1] != '\n')
    return misuse(con, "load rows: %s", "the text must end with a newline");
  if (reserve(ld, len) != 0)
    return misuse(con, "load rows: %s", "out of memory");
  memcpy(ld->buf + ld->len, text, len);
  ld->len += len;
  ld->row_start = ld->len;
  return maybe_send(con);
}

int db_load_finish(db_conn_t *con, uint64_t *rows, unsigned *statements)
{
  db_load_t *ld = current(con, "load finish");
  if (ld == NULL)
    return -1;
  if (ld->col != 0)
    return misuse(con, "load finish: %s", "the last row is incomplete");
  /* A load with no rows is still a statement on MySQL: it reports a
     missing table or a refused LOAD DATA LOCAL as any other would. */
  if ((ld->len > 0 || !ld->sent) && send_rows(con, ld->len) != 0)
    return 1;
  fresh_result(con);
  db_blocking_call();
  int r = con->driver->ops.load_end(con, &con->rs);
  if (r < 0 || con->error != DB_ERROR_NONE)
    return load_failed(con);
  if (r > 0)
    statement_done(con);
  if (rows)
    *rows = ld->rows;
  if (statements)
    *statements = ld->statements;
  free_load(con);
  return 0;
}
