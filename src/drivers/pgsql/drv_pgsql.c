/*
 * PostgreSQL driver (libpq).
 *
 * Blocking forms do what PQexec / PQexecPrepared do (PQsend* then
 * PQgetResult until NULL, blocking inside libpq), so the per-query client
 * cost is libpq's own; they only choose the result differently (see
 * pgd_keep). The asynchronous pairs drive the same protocol with
 * PQconsumeInput on a non-blocking connection and finish through the same
 * result/error code, so both forms report identically.
 *
 * Prepared statements are prepared without parameter types (the server
 * infers them from context) and executed with text parameters and text
 * results, so fetch_row() always returns text (sysbench-compat.md §1.2).
 *
 * Threading: the option-derived configuration is built once by init() in
 * the main thread and only read afterwards; everything else hangs off a
 * connection, which one thread uses at a time.
 */
#include <ctype.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libpq-fe.h>

#include "db_driver.h"
#include "drv_pgsql.h"
#include "sb_logger.h"
#include "sb_options.h"

/* The driver descriptor; the registry in db_driver.c lists it. */
extern const db_driver_t pgsql_driver;

/* ---- options ------------------------------------------------------------ */

/* sysbench's table, in its help order. --pgsql-port is declared INT for the
   byte-exact `=N` in the help, but its raw text may be a comma list. */
static const sb_option_t pgsql_options[] = {
  {"pgsql-host", "PostgreSQL server host", "localhost", SB_ARG_TYPE_STRING},
  {"pgsql-port", "PostgreSQL server port", "5432", SB_ARG_TYPE_INT},
  {"pgsql-user", "PostgreSQL user", "sbtest", SB_ARG_TYPE_STRING},
  {"pgsql-password", "PostgreSQL password", "", SB_ARG_TYPE_STRING},
  {"pgsql-db", "PostgreSQL database name", "sbtest", SB_ARG_TYPE_STRING},
  {"pgsql-sslmode", "PostgreSQL SSL mode (disable, allow, prefer, require, "
   "verify-ca, verify-full)", "prefer", SB_ARG_TYPE_STRING},
  {NULL, NULL, NULL, SB_ARG_TYPE_NULL}
};

static const sb_option_t pgsql_ext_options[] = {
  {"pgsql-ignore-errors", "list of SQLSTATEs to ignore, or \"all\", or "
   "\"lost\" for lost connections", "40P01,23505,40001", SB_ARG_TYPE_LIST},
  {"pgsql-variant", "PostgreSQL variant, e.g. redshift", NULL,
   SB_ARG_TYPE_STRING},
  {NULL, NULL, NULL, SB_ARG_TYPE_NULL}
};

/* SQLSTATEs that `lost` stands for: connection exceptions and the
   administrator / crash / shutdown terminations. */
static const char *const lost_states[] = {
  "08000", "08003", "08006", "57P01", "57P02", "57P03"
};

static struct {
  char **hosts;            /* NULL item = libpq default */
  unsigned nhosts;
  char **ports;
  unsigned nports;
  const char *user, *password, *db, *sslmode;
  char **ignore;           /* SQLSTATEs, upper case */
  unsigned nignore;
  bool ignore_all;
} cfg;

static atomic_uint next_conn_id = 1;
static atomic_uint next_stmt_id = 1;

static void oom(void)
{
  log_text(LOG_FATAL, "pgsql driver: out of memory");
  abort();
}

static void *xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (p == NULL)
    oom();
  return p;
}

static char *xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;
  return memcpy(xrealloc(NULL, n), s, n);
}

/* ---- init / done ------------------------------------------------------- */

/* Splits a comma list; empty items are dropped. Always yields at least one
   item (NULL when nothing is left, meaning "libpq default"). */
static char **split_commas(const char *s, unsigned *n)
{
  char **v = NULL;
  unsigned k = 0;

  while (s != NULL && *s)
  {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t) (e - s) : strlen(s);
    if (len > 0)
    {
      v = xrealloc(v, (k + 1) * sizeof(*v));
      v[k] = memcpy(xrealloc(NULL, len + 1), s, len);
      v[k++][len] = '\0';
    }
    s = e ? e + 1 : NULL;
  }
  if (k == 0)
  {
    v = xrealloc(NULL, sizeof(*v));
    v[k++] = NULL;
  }
  *n = k;
  return v;
}

static void free_list(char **v, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

static void add_ignore(const char *s)
{
  cfg.ignore = xrealloc(cfg.ignore, (cfg.nignore + 1) * sizeof(char *));
  char *c = xstrdup(s);
  for (char *p = c; *p; p++)
    *p = (char) toupper((unsigned char) *p);
  cfg.ignore[cfg.nignore++] = c;
}

static void pg_done(void)
{
  free_list(cfg.hosts, cfg.nhosts);
  free_list(cfg.ports, cfg.nports);
  free_list(cfg.ignore, cfg.nignore);
  memset(&cfg, 0, sizeof(cfg));
}

static int pg_init(void)
{
  const char *variant = sb_opt_str("pgsql-variant");
  if (variant != NULL && *variant && strcmp(variant, "redshift") != 0)
  {
    log_text(LOG_FATAL, "unsupported --pgsql-variant: '%s'", variant);
    return 1;
  }

  pg_done();
  cfg.hosts = split_commas(sb_opt_str("pgsql-host"), &cfg.nhosts);
  cfg.ports = split_commas(sb_opt_str("pgsql-port"), &cfg.nports);
  cfg.user = sb_opt_str("pgsql-user");
  cfg.password = sb_opt_str("pgsql-password");
  cfg.db = sb_opt_str("pgsql-db");
  cfg.sslmode = sb_opt_str("pgsql-sslmode");

  unsigned n = 0;
  char **items = sb_opt_list("pgsql-ignore-errors", &n);
  for (unsigned i = 0; i < n; i++)
  {
    if (items[i] == NULL || items[i][0] == '\0')
      continue;
    if (strcasecmp(items[i], "all") == 0)
      cfg.ignore_all = true;
    else if (strcasecmp(items[i], "lost") == 0)
      for (size_t j = 0; j < sizeof(lost_states) / sizeof(*lost_states); j++)
        add_ignore(lost_states[j]);
    else
      add_ignore(items[i]);
  }
  return 0;
}

/* ---- errors ------------------------------------------------------------ */

static bool ignorable(const char *state)
{
  if (cfg.ignore_all)
    return true;
  for (unsigned i = 0; i < cfg.nignore; i++)
    if (strcmp(cfg.ignore[i], state) == 0)
      return true;
  return false;
}

static bool lost_state(const char *state)
{
  return strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
    strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0;
}

/* sysbench prints the numeric ExecStatusType ("PQexec() failed: 7 ..."). */
static const char *status_text(ExecStatusType st)
{
  static const char *const num[] = {
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"
  };
  return (unsigned) st < sizeof(num) / sizeof(*num) ? num[st] : "?";
}

/* libpq messages end with a newline, which would print an empty line. */
static char *trimmed(const char *m)
{
  size_t n = strlen(m);
  while (n > 0 && isspace((unsigned char) m[n - 1]))
    n--;
  char *c = memcpy(xrealloc(NULL, n + 1), m, n);
  c[n] = '\0';
  return c;
}

/*
 * Records the error of `res` (NULL: no result, e.g. a send failure) on
 * `con` and classifies it. Returns true when the caller must send ROLLBACK:
 * the error is ignorable, the connection is alive and a transaction is open
 * or failed (a stray ROLLBACK outside one would only produce a warning, but
 * costs a round trip).
 */
bool pgd_set_pg_error(db_conn_t *con, const PGresult *res, const char *api,
                         const char *sql, size_t len)
{
  pg_conn_t *pc = con->ptr;
  PGconn *pg = pc ? pc->pg : NULL;
  ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
    : NULL;
  bool bad = pg == NULL || PQstatus(pg) == CONNECTION_BAD;

  if (msg == NULL || *msg == '\0')
    msg = res ? PQresultErrorMessage(res) : "";
  if (*msg == '\0' && pg != NULL)
    msg = PQerrorMessage(pg);
  if (state == NULL || *state == '\0')
    state = bad ? "08006" : "";

  bool lost = bad || lost_state(state);
  if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH)
  {
    /* The connection is left in COPY mode, unusable for queries. */
    msg = "COPY to or from the client is not supported";
    lost = true;
  }
  if (*msg == '\0')
    msg = PQresStatus(st);

  db_error_t e = ignorable(state) ? DB_ERROR_IGNORABLE : DB_ERROR_FATAL;
  char *m = trimmed(msg);
  db_set_error(con, e, 0, *state ? state : NULL, m, api, sql, len);
  free(m);
  con->err.status = status_text(st);
  con->lost = lost;

  if (e != DB_ERROR_IGNORABLE || lost)
    return false;
  PGTransactionStatusType tx = PQtransactionStatus(pg);
  return tx == PQTRANS_INTRANS || tx == PQTRANS_INERROR;
}

void pgd_succeeded(db_conn_t *con)
{
  if (con->error != DB_ERROR_NONE || con->lost)
    db_clear_error(con);
}

/* ---- results ----------------------------------------------------------- */

void pgd_reset_rs(db_result_t *rs)
{
  if (rs->ptr != NULL)
    PQclear(rs->ptr);
  rs->ptr = NULL;
  rs->counter = SB_CNT_OTHER;
  rs->nrows = 0;
  rs->nfields = 0;
  rs->row.ptr = NULL;
}

/* Stores a successful `res` into `rs` (taking ownership); false when `res`
   is an error or missing, left to the caller. */
bool pgd_store(pg_conn_t *pc, PGresult *res, db_result_t *rs)
{
  switch (res ? PQresultStatus(res) : PGRES_FATAL_ERROR)
  {
  case PGRES_TUPLES_OK:
  {
    unsigned nf = (unsigned) PQnfields(res);
    if (nf > pc->nvals)
    {
      pc->vals = xrealloc(pc->vals, nf * sizeof(*pc->vals));
      pc->nvals = nf;
    }
    rs->counter = SB_CNT_READ;
    rs->nrows = (uint64_t) PQntuples(res);
    rs->nfields = nf;
    rs->ptr = res;
    rs->row.values = pc->vals;
    rs->row.ptr = NULL;            /* next row index */
    return true;
  }
  case PGRES_COMMAND_OK:
  case PGRES_EMPTY_QUERY:
    rs->nrows = strtoull(PQcmdTuples(res), NULL, 10);
    rs->counter = rs->nrows > 0 ? SB_CNT_WRITE : SB_CNT_OTHER;
    rs->nfields = 0;
    rs->ptr = NULL;
    PQclear(res);
    return true;
  default:
    return false;
  }
}

/* Keeps the last result, except that a first error wins: it carries the
   server's SQLSTATE (e.g. 57P01) where libpq appends its own SQLSTATE-less
   "server closed the connection" (PQexec would return the latter). */
void pgd_keep(pg_conn_t *pc, PGresult *res)
{
  if (pc->ares == NULL)
    pc->ares = res;
  else if (PQresultStatus(pc->ares) == PGRES_FATAL_ERROR)
    PQclear(res);
  else
  {
    PQclear(pc->ares);
    pc->ares = res;
  }
}

/* PQexec's result collection after a PQsend* that returned `sent`, with
   pgd_keep's choice of result. Same calls, so same cost. */
static PGresult *collect(pg_conn_t *pc, int sent)
{
  PGresult *res;

  pc->ares = NULL;
  if (!sent)
    return NULL;
  while ((res = PQgetResult(pc->pg)) != NULL)
  {
    ExecStatusType st = PQresultStatus(res);
    pgd_keep(pc, res);
    if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH)
      break;                     /* PQgetResult would repeat it forever */
  }
  res = pc->ares;
  pc->ares = NULL;
  return res;
}

/* Completes a blocking operation: result into `rs`, or error + ROLLBACK. */
static int finish(db_conn_t *con, PGresult *res, db_result_t *rs,
                  const char *api, const char *sql, size_t len)
{
  pg_conn_t *pc = con->ptr;

  if (pgd_store(pc, res, rs))
  {
    pgd_succeeded(con);
    return 0;
  }
  bool rollback = pgd_set_pg_error(con, res, api, sql, len);
  PQclear(res);
  if (rollback)
    PQclear(PQexec(pc->pg, "ROLLBACK"));
  return 1;
}

static int pg_fetch_row(db_result_t *rs)
{
  PGresult *res = rs->ptr;
  uintptr_t r = (uintptr_t) rs->row.ptr;

  if (res == NULL || r >= rs->nrows)
    return 0;
  db_value_t *v = rs->row.values;
  for (int i = 0; i < (int) rs->nfields; i++)
  {
    if (PQgetisnull(res, (int) r, i))
    {
      v[i].ptr = NULL;
      v[i].len = 0;
    }
    else
    {
      v[i].ptr = PQgetvalue(res, (int) r, i);
      v[i].len = (unsigned long) PQgetlength(res, (int) r, i);
    }
  }
  rs->row.ptr = (void *) (r + 1);
  return 1;
}

static void pg_free_results(db_result_t *rs)
{
  if (rs->ptr != NULL)
    PQclear(rs->ptr);
  rs->ptr = NULL;
  rs->row.ptr = NULL;
}

/* ---- connections ------------------------------------------------------- */

static void quiet_notices(void *arg, const char *msg)
{
  (void) arg;
  (void) msg;
}

PGconn *pgd_open_params(bool async)
{
  const char *kw[8], *val[8];
  unsigned n = 0;
  unsigned h = 0, p = 0, total = cfg.nhosts * cfg.nports;

  if (total > 1)
  {
    /* ports in the inner loop, like the MySQL driver */
    unsigned i = db_next_endpoint(total);
    h = i / cfg.nports;
    p = i % cfg.nports;
  }
#define ADD(k, v) \
  do { if ((v) != NULL && *(v)) { kw[n] = (k); val[n++] = (v); } } while (0)
  if (cfg.nhosts)
    ADD("host", cfg.hosts[h]);
  if (cfg.nports)
    ADD("port", cfg.ports[p]);
  ADD("user", cfg.user);
  ADD("password", cfg.password);   /* else PGPASSWORD / ~/.pgpass */
  ADD("dbname", cfg.db);
  ADD("sslmode", cfg.sslmode);
#undef ADD
  kw[n] = NULL;
  val[n] = NULL;
  return async ? PQconnectStartParams(kw, val, 0)
    : PQconnectdbParams(kw, val, 0);
}

pg_conn_t *pgd_new_pc(void)
{
  pg_conn_t *pc = calloc(1, sizeof(*pc));
  if (pc == NULL)
    oom();
  pc->id = atomic_fetch_add_explicit(&next_conn_id, 1, memory_order_relaxed);
  return pc;
}

static void free_pc(pg_conn_t *pc)
{
  if (pc->ares != NULL)
    PQclear(pc->ares);
  if (pc->pg != NULL)
    PQfinish(pc->pg);
  free(pc->vals);
  free(pc->qbuf);
  free(pc);
}

int pgd_connect_failed(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  char *m = trimmed(pc->pg ? PQerrorMessage(pc->pg) : "out of memory");

  if (!db_connect_errors_quiet())
    log_text(LOG_FATAL, "Connection to database failed: %s", m);
  db_set_error(con, DB_ERROR_FATAL, 0, "08001", m, "PQconnectdbParams",
               "", 0);
  free(m);
  free_pc(pc);
  con->ptr = NULL;
  return 1;
}

void pgd_connected(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  /* NOTICEs (e.g. "table does not exist, skipping") would go to stderr. */
  PQsetNoticeProcessor(pc->pg, quiet_notices, NULL);
  pc->aop = AOP_NONE;
  pgd_succeeded(con);
}

static int pg_connect(db_conn_t *con)
{
  pg_conn_t *pc = pgd_new_pc();
  con->ptr = pc;
  pc->pg = pgd_open_params(false);
  if (pc->pg == NULL || PQstatus(pc->pg) != CONNECTION_OK)
    return pgd_connect_failed(con);
  pgd_connected(con);
  return 0;
}

static void pg_disconnect(db_conn_t *con)
{
  if (con->ptr != NULL)
    free_pc(con->ptr);
  con->ptr = NULL;
}

/* Copies `len` bytes into the connection's NUL-terminated query buffer:
   PQexec needs a C string and the caller's text may not end in NUL. */
const char *pgd_copy_sql(pg_conn_t *pc, const char *sql, size_t len)
{
  if (len + 1 > pc->qcap)
  {
    pc->qcap = len + 1 > 256 ? len + 1 : 256;
    pc->qbuf = xrealloc(pc->qbuf, pc->qcap);
  }
  memcpy(pc->qbuf, sql, len);
  pc->qbuf[len] = '\0';
  pc->qlen = len;
  return pc->qbuf;
}

static int pg_query(db_conn_t *con, const char *sql, size_t len,
                    db_result_t *rs)
{
  pg_conn_t *pc = con->ptr;
  pgd_reset_rs(rs);
  const char *q = pgd_copy_sql(pc, sql, len);
  PGresult *res = collect(pc, PQsendQuery(pc->pg, q));
  return finish(con, res, rs, "PQexec", sql, len);
}

static size_t pg_escape(db_conn_t *con, char *dst, const char *src,
                        size_t len)
{
  pg_conn_t *pc = con ? con->ptr : NULL;
  int err = 0;

  if (pc != NULL && pc->pg != NULL)
    return PQescapeStringConn(pc->pg, dst, src, len, &err);
  return PQescapeString(dst, src, len);
}

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
  char *out = xrealloc(NULL, cap);
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
  free(ps);
}

/* Prepares stmt->query on the connection's current session, replacing any
   handle from an earlier session (after a reconnect). */
static int prepare_on(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;
  unsigned n;
  char *text = rewrite_placeholders(stmt->query, stmt->query_len, &n);

  if (stmt->ptr != NULL)
    free_ps(stmt->ptr);
  pg_stmt_t *ps = calloc(1, sizeof(*ps));
  if (ps == NULL)
    oom();
  stmt->ptr = ps;
  snprintf(ps->name, sizeof(ps->name), "sbstmt%u",
           atomic_fetch_add_explicit(&next_stmt_id, 1, memory_order_relaxed));
  ps->conn_id = pc->id;
  ps->n = n;
  ps->vals = xrealloc(NULL, (n ? n : 1) * sizeof(*ps->vals));
  ps->slot = calloc(n ? n : 1, sizeof(*ps->slot));
  ps->cap = calloc(n ? n : 1, sizeof(*ps->cap));
  if (ps->slot == NULL || ps->cap == NULL)
    oom();
  if (stmt->nparams == 0)
    stmt->nparams = n;

  PGresult *res = collect(pc, PQsendPrepare(pc->pg, ps->name, text, 0,
                                            NULL));
  free(text);
  if (res != NULL && PQresultStatus(res) == PGRES_COMMAND_OK)
  {
    PQclear(res);
    pgd_succeeded(con);
    return 0;
  }
  bool rollback = pgd_set_pg_error(con, res, "PQprepare", stmt->query,
                               stmt->query_len);
  PQclear(res);
  if (rollback)
    PQclear(PQexec(pc->pg, "ROLLBACK"));
  free_ps(ps);
  stmt->ptr = NULL;
  return 1;
}

static int pg_prepare(db_stmt_t *stmt)
{
  if (db_ps_disabled())
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
    ps->slot[k] = xrealloc(ps->slot[k], ps->cap[k]);
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

static int pg_execute(db_stmt_t *stmt, db_result_t *rs)
{
  db_conn_t *con = stmt->con;
  pg_conn_t *pc = con->ptr;

  pgd_reset_rs(rs);
  pg_stmt_t *ps = pgd_current_ps(stmt);
  if (ps == NULL)
    return 1;
  pgd_build_params(stmt, ps);
  PGresult *res = collect(pc, PQsendQueryPrepared(pc->pg, ps->name,
                                                  (int) ps->n, ps->vals,
                                                  NULL, NULL, 0));
  return finish(con, res, rs, "PQexecPrepared", NULL, 0);
}

static void pg_close(db_stmt_t *stmt)
{
  pg_stmt_t *ps = stmt->ptr;
  pg_conn_t *pc = stmt->con ? stmt->con->ptr : NULL;

  if (ps == NULL)
    return;
  /* DEALLOCATE only where it cannot fail: in a failed transaction, or for
     a statement of an earlier session, it would raise an error (and abort
     an open transaction). */
  if (pc != NULL && pc->pg != NULL && ps->conn_id == pc->id &&
      pc->aop == AOP_NONE && PQstatus(pc->pg) == CONNECTION_OK)
  {
    PGTransactionStatusType tx = PQtransactionStatus(pc->pg);
    if (tx == PQTRANS_IDLE || tx == PQTRANS_INTRANS)
    {
      char sql[48];
      snprintf(sql, sizeof(sql), "DEALLOCATE %s", ps->name);
      PQclear(PQexec(pc->pg, sql));
    }
  }
  free_ps(ps);
  stmt->ptr = NULL;
}

const db_driver_t pgsql_driver = {
  .name = "pgsql",
  .description = "PostgreSQL driver",
  .options = pgsql_options,
  .ext_options = pgsql_ext_options,
  .ops = {
    .init = pg_init,
    .done = pg_done,
    .connect = pg_connect,
    .disconnect = pg_disconnect,
    .query = pg_query,
    .prepare = pg_prepare,
    .execute = pg_execute,
    .close = pg_close,
    .fetch_row = pg_fetch_row,
    .free_results = pg_free_results,
    .escape = pg_escape,
    .connect_start = pg_connect_start,
    .connect_cont = pg_connect_cont,
    .query_start = pg_query_start,
    .query_cont = pg_query_cont,
    .execute_start = pg_execute_start,
    .execute_cont = pg_execute_cont,
  },
  .needs_commit_in_bulk = false,
};
