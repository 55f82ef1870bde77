/*
 * PostgreSQL driver: server-side prepared statements (placeholder
 * rewriting ? -> $n unless the text is native, PQprepare on the
 * connection the statement is used on, text parameters, PQexecPrepared,
 * close). drv_pgsql.c has options, connections and text queries;
 * drv_pgsql_async.c the non-blocking forms.
 */
#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "drivers/db_driver.h"
#include "drv_pgsql.h"
#include "core/sb_logger.h"

static atomic_uint next_stmt_id = 1;

/* ---- prepared statements ----------------------------------------------- */

static size_t put_uint(char *dst, uint64_t u)
{
  char tmp[24];
  size_t n = 0, o = 0;
  do
    tmp[n++] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  while (n)
    dst[o++] = tmp[--n];
  dst[o] = '\0';
  return o;
}

static bool ident_char(char c)
{
  return isalnum((unsigned char) c) || c == '_' || (unsigned char) c >= 0x80;
}

/* Length of a dollar-quote tag ("$tag$" or "$$") at q[i], 0 if none. */
static size_t dollar_tag(const char *q, size_t i, size_t len)
{
  size_t j = i + 1;
  if (i > 0 && ident_char(q[i - 1]))
    return 0;                      /* part of an identifier like a$b */
  if (j < len && isdigit((unsigned char) q[j]))
    return 0;                      /* $1: a native placeholder */
  while (j < len && ident_char(q[j]))
    j++;
  return j < len && q[j] == '$' ? j + 1 - i : 0;
}

/*
 * Rewrites '?' placeholders into $1..$n, leaving string literals, quoted
 * identifiers, dollar-quoted bodies and comments alone. Returns the new
 * text (malloc'ed) and the placeholder count in *count.
 */
static char *rewrite_placeholders(const char *q, size_t len, unsigned *count)
{
  size_t cap = len + 1;
  for (size_t i = 0; i < len; i++)
    if (q[i] == '?')
      cap += 10;
  char *out = pgd_xrealloc(NULL, cap);
  size_t i = 0, o = 0, t;
  unsigned k = 0;

  while (i < len)
  {
    char c = q[i];
    if (c == '\'' || c == '"')
    {
      /* E'...' literals take backslash escapes */
      bool bs = c == '\'' && i > 0 && (q[i - 1] == 'E' || q[i - 1] == 'e') &&
        (i < 2 || !ident_char(q[i - 2]));
      out[o++] = q[i++];
      while (i < len)
      {
        char d = q[i];
        out[o++] = q[i++];
        if (bs && d == '\\' && i < len)
          out[o++] = q[i++];
        else if (d == c)
        {
          if (i < len && q[i] == c)  /* doubled quote */
            out[o++] = q[i++];
          else
            break;
        }
      }
    }
    else if (c == '-' && i + 1 < len && q[i + 1] == '-')
    {
      while (i < len && q[i] != '\n')
        out[o++] = q[i++];
    }
    else if (c == '/' && i + 1 < len && q[i + 1] == '*')
    {
      int depth = 0;               /* PostgreSQL comments nest */
      do
      {
        if (q[i] == '/' && i + 1 < len && q[i + 1] == '*')
        {
          depth++;
          out[o++] = q[i++];
        }
        else if (q[i] == '*' && i + 1 < len && q[i + 1] == '/')
        {
          depth--;
          out[o++] = q[i++];
        }
        out[o++] = q[i++];
      } while (i < len && depth > 0);
    }
    else if (c == '$' && (t = dollar_tag(q, i, len)) > 0)
    {
      size_t end = i + t;
      while (end + t <= len && memcmp(q + end, q + i, t) != 0)
        end++;
      end = end + t <= len ? end + t : len;
      memcpy(out + o, q + i, end - i);
      o += end - i;
      i = end;
    }
    else if (c == '?')
    {
      out[o++] = '$';
      o += put_uint(out + o, ++k);
      i++;
    }
    else
      out[o++] = q[i++];
  }
  out[o] = '\0';
  *count = k;
  return out;
}

static void free_ps(pg_stmt_t *ps)
{
  for (unsigned k = 0; k < ps->n; k++)
    free(ps->slot[k]);
  free(ps->slot);
  free(ps->cap);
  free(ps->vals);
  free(ps->text);
  free(ps);
}

pg_stmt_t *pgd_ps_new(db_stmt_t *stmt, char **text)
{
  pg_conn_t *pc = stmt->con->ptr;
  unsigned n = stmt->nparams;
  if (stmt->native)
  {
    *text = memcpy(pgd_xrealloc(NULL, stmt->query_len + 1), stmt->query, stmt->query_len);
    (*text)[stmt->query_len] = '\0';
  }
  else
    *text = rewrite_placeholders(stmt->query, stmt->query_len, &n);

  if (stmt->ptr != NULL)
    free_ps(stmt->ptr);
  pg_stmt_t *ps = calloc(1, sizeof(*ps));
  if (ps == NULL)
    pgd_oom();
  stmt->ptr = ps;
  if (stmt->server_name[0] != '\0')
    snprintf(ps->name, sizeof(ps->name), "%s", stmt->server_name);
  else
    snprintf(ps->name, sizeof(ps->name), "sbstmt%u",
             atomic_fetch_add_explicit(&next_stmt_id, 1, memory_order_relaxed));
  ps->conn_id = pc->id;
  ps->n = n;
  ps->vals = pgd_xrealloc(NULL, (n ? n : 1) * sizeof(*ps->vals));
  ps->slot = calloc(n ? n : 1, sizeof(*ps->slot));
  ps->cap = calloc(n ? n : 1, sizeof(*ps->cap));
  if (ps->slot == NULL || ps->cap == NULL)
    pgd_oom();
  if (stmt->nparams == 0)
    stmt->nparams = n;
  return ps;
}

void pgd_ps_free(db_stmt_t *stmt)
{
  if (stmt->ptr != NULL)
    free_ps(stmt->ptr);
  stmt->ptr = NULL;
}

/* Prepares stmt->query on the connection's current session, replacing any
   handle from an earlier session (after a reconnect). */
static int prepare_on(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;
  char *text;
  pg_stmt_t *ps = pgd_ps_new(stmt, &text);
  if (stmt->unnamed)
  {
    ps->text = text;               /* sent with each execution */
    return 0;
  }
  if (stmt->adopted)
  {
    free(text);                    /* executed by its name only */
    return 0;
  }

  PGresult *res = pgd_collect(pc, PQsendPrepare(pc->pg, ps->name, text, 0,
                                            NULL));
  free(text);
  if (res != NULL && PQresultStatus(res) == PGRES_COMMAND_OK)
  {
    PQclear(res);
    pgd_succeeded(con);
    db_endpoint_count_xact(con);
    return 0;
  }
  bool rollback = pgd_set_pg_error(con, res, "PQprepare", stmt->query,
                               stmt->query_len);
  /* sysbench's driver prints libpq's whole message (LINE and caret lines
     and its trailing newline included) when a statement cannot be
     prepared; the script gets "SQL API error". A statement prepared again
     after a reconnect (stale) fails at its execute instead. */
  if (con->error == DB_ERROR_FATAL && !stmt->stale && !db_all_errors_quiet())
    log_text(LOG_FATAL, "PQprepare() failed: %s",
             pc->pg && *PQerrorMessage(pc->pg) ? PQerrorMessage(pc->pg)
             : con->err.msg ? con->err.msg : "");
  PQclear(res);
  if (rollback)
    PQclear(PQexec(pc->pg, "ROLLBACK"));
  db_endpoint_count_xact(con);
  pgd_ps_free(stmt);
  return 1;
}

int pgd_prepare(db_stmt_t *stmt)
{
  if (db_ps_disabled() && !stmt->native)
  {
    stmt->emulated = true;
    return 0;
  }
  return prepare_on(stmt);
}

static char *slot(pg_stmt_t *ps, unsigned k, size_t need)
{
  if (ps->cap[k] < need)
  {
    ps->cap[k] = need < 32 ? 32 : need;
    ps->slot[k] = pgd_xrealloc(ps->slot[k], ps->cap[k]);
  }
  return ps->slot[k];
}

/* Shortest of %.15g..%.17g that reads back as the same double. */
static void put_double(char *dst, size_t cap, double d)
{
  if (isnan(d))
    strcpy(dst, "NaN");
  else if (isinf(d))
    strcpy(dst, d > 0 ? "Infinity" : "-Infinity");
  else
    for (int prec = 15; prec <= 17; prec++)
    {
      snprintf(dst, cap, "%.*g", prec, d);
      if (strtod(dst, NULL) == d)
        break;
    }
}

/* Converts the binds (in placeholder order) to text parameters. Buffers are
   per-parameter and only grow, so steady-state executes do not allocate. */
void pgd_build_params(db_stmt_t *stmt, pg_stmt_t *ps)
{
  for (unsigned k = 0; k < ps->n; k++)
  {
    const db_bind_t *b = k < stmt->norder ? &stmt->binds[stmt->order[k]]
      : NULL;
    if (b == NULL || b->is_null)
    {
      ps->vals[k] = NULL;
      continue;
    }
    char *s;
    switch (b->type)
    {
    case DB_TYPE_TINYINT:
    case DB_TYPE_SMALLINT:
    case DB_TYPE_INT:
    case DB_TYPE_BIGINT:
      s = slot(ps, k, 24);
      if (b->i < 0)
      {
        s[0] = '-';
        put_uint(s + 1, -(uint64_t) b->i);
      }
      else
        put_uint(s, (uint64_t) b->i);
      break;
    case DB_TYPE_FLOAT:
    case DB_TYPE_DOUBLE:
      s = slot(ps, k, 32);
      put_double(s, 32, b->d);
      break;
    default:
    {
      size_t len = b->len < b->max_len ? b->len : b->max_len;
      /* the bind's own text when it ends there (db_bind_set_str's): libpq
         copies the parameters into its output buffer before the send
         returns, so no copy of ours is needed */
      if (b->buf != NULL && len == b->len && b->buf[len] == '\0')
      {
        ps->vals[k] = b->buf;
        continue;
      }
      /* sized for max_len so later, longer values need no realloc */
      s = slot(ps, k, (b->max_len > len ? b->max_len : len) + 1);
      if (len > 0)
        memcpy(s, b->buf, len);
      s[len] = '\0';
    }
    }
    ps->vals[k] = s;
  }
}

/* Returns the statement's handle for the current session, preparing it
   again when it belongs to a previous one (the server forgot it). */
pg_stmt_t *pgd_current_ps(db_stmt_t *stmt)
{
  pg_stmt_t *ps = stmt->ptr;
  pg_conn_t *pc = stmt->con->ptr;

  if (ps != NULL && ps->conn_id == pc->id)
    return ps;
  return prepare_on(stmt) == 0 ? stmt->ptr : NULL;
}

int pgd_send_ps(pg_conn_t *pc, const pg_stmt_t *ps)
{
  if (ps->text != NULL)
    return PQsendQueryParams(pc->pg, ps->text, (int) ps->n, NULL, ps->vals, NULL, NULL, 0);
  return PQsendQueryPrepared(pc->pg, ps->name, (int) ps->n, ps->vals, NULL, NULL, 0);
}

int pgd_execute(db_stmt_t *stmt, db_result_t *rs)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;

  pgd_reset_rs(rs);
  pg_stmt_t *ps = pgd_current_ps(stmt);
  if (ps == NULL)
    return 1;
  pgd_build_params(stmt, ps);
  PGresult *res = pgd_collect(pc, pgd_send_ps(pc, ps));
  return pgd_finish(con, res, rs, ps->text ? "PQexecParams" : "PQexecPrepared", NULL, 0);
}

bool pgd_can_deallocate(db_stmt_t *stmt)
{
  pg_stmt_t *ps = stmt->ptr;
  pg_conn_t *pc = stmt->con ? stmt->con->ptr : NULL;

  /* DEALLOCATE only where it cannot fail: in a failed transaction, or for
     a statement of an earlier session, it would raise an error (and abort
     an open transaction). */
  if (ps == NULL || ps->text != NULL || stmt->adopted || pc == NULL || pc->pg == NULL || ps->conn_id != pc->id ||
      pc->aop != AOP_NONE || PQstatus(pc->pg) != CONNECTION_OK)
    return false;
  PGTransactionStatusType tx = PQtransactionStatus(pc->pg);
  return tx == PQTRANS_IDLE || tx == PQTRANS_INTRANS;
}

void pgd_deallocate_sql(const db_stmt_t *stmt, char *sql, size_t len)
{
  snprintf(sql, len, "DEALLOCATE %s", ((const pg_stmt_t *) stmt->ptr)->name);
}

void pgd_close(db_stmt_t *stmt)
{
  if (stmt->ptr == NULL)
    return;
  if (pgd_can_deallocate(stmt))
  {
    char sql[48];
    pgd_deallocate_sql(stmt, sql, sizeof(sql));
    PQclear(PQexec(((pg_conn_t *) stmt->con->ptr)->pg, sql));
  }
  pgd_ps_free(stmt);
}
