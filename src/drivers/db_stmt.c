/* Prepared statements, parameters and client-side emulation
   (--db-ps-mode=disable); see db_driver.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/db_driver.h"
#include "drivers/db_load.h"
#include "drivers/db_driver_priv.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"

/* ---- statements ------------------------------------------------------------------ */

/* Counts '?' placeholders outside quoted strings. */
static unsigned count_placeholders(const char *q, size_t len)
{
  unsigned n = 0;
  char quote = 0;
  for (size_t i = 0; i < len; i++)
  {
    char c = q[i];
    if (quote)
    {
      if (c == '\\' && i + 1 < len)
        i++;
      else if (c == quote)
        quote = 0;
    }
    else if (c == '\'' || c == '"' || c == '`')
      quote = c;
    else if (c == '?')
      n++;
  }
  return n;
}

db_stmt_t *db_stmt_new(db_conn_t *con, const char *query, size_t len)
{
  db_stmt_t *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return NULL;
  s->con = con;
  s->query = strndup(query, len);
  if (s->query == NULL)
  {
    free(s);
    return NULL;
  }
  s->query_len = len;
  s->nparams = count_placeholders(query, len);
  s->emulated = db_ps_disabled();
  return s;
}

/* How prepare() makes a statement (the db_prepare* functions). */
typedef struct {
  bool text;               /* client-side emulation whatever --db-ps-mode
                              says (db_prepare_text) */
  bool unnamed;            /* db_prepare_unnamed */
  const char *name;        /* db_prepare_as, db_prepared_elsewhere */
  bool adopted;            /* db_prepared_elsewhere */
  bool native;             /* db_prepare_native, with nparams */
  unsigned nparams;
} prep_how_t;

static db_stmt_t *prepare(db_conn_t *con, const char *query, size_t len, prep_how_t how)
{
  if (!db_usable(con))
    return NULL;
  if (con->load)
    db_load_cancel(con, "prepare()");
  db_clear_error(con);
  db_stmt_t *s = db_stmt_new(con, query, len);
  if (s == NULL)
    return NULL;
  if (how.text)
    s->emulated = true;
  s->unnamed = how.unnamed;
  s->adopted = how.adopted;
  if (how.native)
  {
    s->native = true;
    s->emulated = false;
    s->nparams = how.nparams;
  }
  if (how.name)
    snprintf(s->server_name, sizeof(s->server_name), "%s", how.name);
  if (!s->emulated)
  {
    /* a statement kept on the client sends nothing now: no blocking call */
    if (!((s->unnamed || s->adopted) && con->driver->unnamed_is_local))
      db_blocking_call();
    db_rs_release(&con->rs);
    if (con->driver->ops.prepare(s) != 0)
    {
      if (con->error == DB_ERROR_NONE)
        con->error = DB_ERROR_FATAL;
      db_stmt_free(s);            /* not linked yet: frees it whole */
      return NULL;
    }
  }
  s->next = con->stmts;
  con->stmts = s;
  return s;
}

db_stmt_t *db_prepare(db_conn_t *con, const char *query, size_t len)
{
  return prepare(con, query, len, (prep_how_t){0});
}

db_stmt_t *db_prepare_unnamed(db_conn_t *con, const char *query, size_t len)
{
  return prepare(con, query, len, (prep_how_t){.unnamed = true});
}

db_stmt_t *db_prepare_as(db_conn_t *con, const char *name, const char *query, size_t len)
{
  return prepare(con, query, len, (prep_how_t){.name = name});
}

db_stmt_t *db_prepared_elsewhere(db_conn_t *con, const char *name, const char *query,
                                 size_t len)
{
  return prepare(con, query, len, (prep_how_t){.name = name, .adopted = true});
}

db_stmt_t *db_prepare_native(db_conn_t *con, db_prep_kind_t kind, const char *name,
                             const char *query, size_t len, unsigned nparams)
{
  prep_how_t how = {.native = true, .nparams = nparams};
  how.unnamed = kind == DB_PREP_UNNAMED;
  how.adopted = kind == DB_PREP_ELSEWHERE;
  if (kind == DB_PREP_AS || kind == DB_PREP_ELSEWHERE)
    how.name = name;
  return prepare(con, query, len, how);
}

db_stmt_t *db_prepare_text(db_conn_t *con, const char *query, size_t len)
{
  return prepare(con, query, len, (prep_how_t){.text = true});
}

db_conn_t *db_stmt_connection(db_stmt_t *stmt)
{
  return stmt->con;
}

int db_bind_create(db_stmt_t *stmt, int type, unsigned long max_len)
{
  if (type <= DB_TYPE_NONE || type >= DB_TYPE_MAX)
    return -1;
  bool text = type >= DB_TYPE_TIME;
  if (text && max_len == 0)
    return -1;
  if (stmt->nbinds == stmt->binds_cap)
  {
    stmt->binds_cap = stmt->binds_cap ? stmt->binds_cap * 2 : 8;
    stmt->binds = realloc(stmt->binds, sizeof(db_bind_t) * stmt->binds_cap);
  }
  db_bind_t *b = &stmt->binds[stmt->nbinds];
  memset(b, 0, sizeof(*b));
  b->type = (db_bind_type_t) type;
  b->is_null = true;
  stmt->order_gen++;
  if (text)
  {
    b->max_len = max_len;
    b->buf = calloc(1, max_len + 1);
  }
  return (int) stmt->nbinds++;
}

int db_bind_order(db_stmt_t *stmt, const int *handles, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    if (handles[i] < 0 || (unsigned) handles[i] >= stmt->nbinds)
      return -1;
  free(stmt->order);
  stmt->order = malloc(sizeof(unsigned) * (n ? n : 1));
  for (unsigned i = 0; i < n; i++)
    stmt->order[i] = (unsigned) handles[i];
  stmt->norder = n;
  stmt->order_gen++;
  return 0;
}

static db_bind_t *bind_at(db_stmt_t *stmt, int h)
{
  if (h < 0 || (unsigned) h >= stmt->nbinds)
    return NULL;
  return &stmt->binds[h];
}

void db_bind_set_null(db_stmt_t *stmt, int h)
{
  db_bind_t *b = bind_at(stmt, h);
  if (b)
    b->is_null = true;
}

void db_bind_set_int(db_stmt_t *stmt, int h, int64_t v)
{
  db_bind_t *b = bind_at(stmt, h);
  if (b == NULL)
    return;
  b->is_null = false;
  if (b->buf)
    b->len = (unsigned long) snprintf(b->buf, b->max_len + 1, "%lld", (long long) v);
  else if (b->type == DB_TYPE_FLOAT || b->type == DB_TYPE_DOUBLE)
    b->d = (double) v;
  else
    b->i = v;
}

void db_bind_set_double(db_stmt_t *stmt, int h, double v)
{
  db_bind_t *b = bind_at(stmt, h);
  if (b == NULL)
    return;
  b->is_null = false;
  if (b->buf)
    b->len = (unsigned long) snprintf(b->buf, b->max_len + 1, "%.17g", v);
  else if (b->type == DB_TYPE_FLOAT || b->type == DB_TYPE_DOUBLE)
    b->d = v;
  else
    b->i = (int64_t) v;
}

void db_bind_set_str(db_stmt_t *stmt, int h, const char *s, size_t len)
{
  db_bind_t *b = bind_at(stmt, h);
  if (b == NULL)
    return;
  b->is_null = false;
  if (b->buf == NULL)
  {
    /* A number given as text for a numeric parameter. */
    if (b->type == DB_TYPE_FLOAT || b->type == DB_TYPE_DOUBLE)
      b->d = strtod(s, NULL);
    else
      b->i = strtoll(s, NULL, 10);
    return;
  }
  if (len > b->max_len)
    len = b->max_len;
  memcpy(b->buf, s, len);
  b->buf[len] = '\0';
  b->len = len;
}

void db_bind_set_rand_str(db_stmt_t *stmt, int h, const char *fmt)
{
  db_bind_t *b = bind_at(stmt, h);
  if (b == NULL || b->buf == NULL)
    return;
  size_t len = strlen(fmt);
  if (len > b->max_len)
  {
    char *tmp = malloc(len + 1);
    sb_rand_str(fmt, tmp);
    db_bind_set_str(stmt, h, tmp, len);
    free(tmp);
    return;
  }
  sb_rand_str(fmt, b->buf);
  b->len = len;
  b->is_null = false;
}

static void emu_append(db_stmt_t *s, size_t *n, const char *src, size_t len)
{
  if (*n + len + 1 > s->emu_cap)
  {
    s->emu_cap = (*n + len + 1) * 2;
    s->emu_buf = realloc(s->emu_buf, s->emu_cap);
  }
  memcpy(s->emu_buf + *n, src, len);
  *n += len;
}

/* Client-side emulation: substitutes the parameters into the query text. */
size_t db_stmt_emulate(db_stmt_t *s)
{
  size_t n = 0;
  unsigned k = 0;
  char quote = 0;
  char num[64];
  const char *q = s->query;
  for (size_t i = 0; i < s->query_len; i++)
  {
    char c = q[i];
    if (quote)
    {
      if (c == quote)
        quote = 0;
      emu_append(s, &n, &c, 1);
      continue;
    }
    if (c == '\'' || c == '"' || c == '`')
      quote = c;
    if (c != '?' || k >= s->norder)
    {
      emu_append(s, &n, &c, 1);
      continue;
    }
    db_bind_t *b = &s->binds[s->order[k++]];
    if (b->is_null)
      emu_append(s, &n, "NULL", 4);
    else if (b->buf)
    {
      char *esc = malloc(2 * b->len + 3);
      size_t el = s->con->driver->ops.escape(s->con, esc + 1, b->buf, b->len);
      esc[0] = '\'';
      esc[el + 1] = '\'';
      emu_append(s, &n, esc, el + 2);
      free(esc);
    }
    else if (b->type == DB_TYPE_FLOAT || b->type == DB_TYPE_DOUBLE)
      emu_append(s, &n, num, (size_t) snprintf(num, sizeof(num), "%.17g", b->d));
    else
      emu_append(s, &n, num, (size_t) snprintf(num, sizeof(num), "%lld", (long long) b->i));
  }
  emu_append(s, &n, "", 0);
  s->emu_buf[n] = '\0';
  return n;
}

db_result_t *db_execute(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  if (!db_usable(con))
    return NULL;
  if (con->load)
    db_load_cancel(con, "execute()");
  if (stmt->emulated)
  {
    size_t len = db_stmt_emulate(stmt);
    return db_query(con, stmt->emu_buf, len);
  }
  db_blocking_call();
  db_rs_release(&con->rs);
  db_clear_error(con);
  if (stmt->stale)
  {
    if (con->driver->ops.prepare(stmt) != 0)
      return db_finish(con, -1, stmt);
    stmt->stale = false;
  }
  memset(&con->rs, 0, sizeof(con->rs));
  con->rs.con = con;
  int rc = con->driver->ops.execute(stmt, &con->rs);
  return db_finish(con, rc, stmt);
}

int db_pipeline_execute(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  if (!db_usable(con))
    return -1;
  if (con->driver->ops.pipeline_queue == NULL)
  {
    db_set_error(con, DB_ERROR_FATAL, 0, NULL, "this driver has no pipeline mode",
                 "db_pipeline_execute", "", 0);
    return -1;
  }
  db_clear_error(con);
  int rc;
  if (stmt->emulated)
  {
    size_t len = db_stmt_emulate(stmt);
    rc = con->driver->ops.pipeline_queue(con, NULL, stmt->emu_buf, len);
  }
  else
    rc = con->driver->ops.pipeline_queue(con, stmt, NULL, 0);
  if (rc != 0)
    return db_pipeline_queue_failed(con);
  con->pl_batch = true;
  return 0;
}

int db_close(db_stmt_t *stmt)
{
  if (stmt == NULL || stmt->closed)
    return 0;
  db_conn_t *con = stmt->con;
  if (con->rs.stmt == stmt)
    db_rs_release(&con->rs);
  if (!stmt->emulated && !stmt->stale && con->state == DB_CONN_READY)
  {
    db_blocking_call();
    con->driver->ops.close(stmt);
  }
  stmt->ptr = NULL;
  db_stmt_free(stmt);
  return 0;
}

void db_stmt_free(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  stmt->closed = true;
  /* Unlink and free: the Lua object must not be used after close(). */
  for (db_stmt_t **p = &con->stmts; *p; p = &(*p)->next)
    if (*p == stmt)
    {
      *p = stmt->next;
      break;
    }
  free(stmt->query);
  for (unsigned i = 0; i < stmt->nbinds; i++)
    free(stmt->binds[i].buf);
  free(stmt->binds);
  free(stmt->order);
  free(stmt->emu_buf);
  free(stmt);
}
