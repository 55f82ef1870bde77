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
 * results, so fetch_row() always returns text (sysbench's prepared SELECTs
 * return binary values).
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

#include <poll.h>
#include <sys/socket.h>

#include <libpq-fe.h>

#include "drivers/db_driver.h"
#include "drv_pgsql.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_timer.h"

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
  {"pgsql-sslrootcert", "file of the CA certificate(s) that --pgsql-sslmode="
   "verify-ca|verify-full checks the server against (libpq sslrootcert)",
   NULL, SB_ARG_TYPE_STRING},
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
  const char *user, *password, *db, *sslmode, *sslrootcert;
  char **ignore;           /* SQLSTATEs, upper case */
  unsigned nignore;
  bool ignore_all;
  bool ignore_timeout;     /* "timeout" in --pgsql-ignore-errors */
  char connect_timeout[16];  /* libpq connect_timeout, "" = none */
} cfg;

static atomic_uint next_conn_id = 1;

void pgd_oom(void)
{
  log_text(LOG_FATAL, "pgsql driver: out of memory");
  abort();
}

void *pgd_xrealloc(void *p, size_t n)
{
  p = realloc(p, n ? n : 1);
  if (p == NULL)
    pgd_oom();
  return p;
}

static char *xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;
  return memcpy(pgd_xrealloc(NULL, n), s, n);
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
      v = pgd_xrealloc(v, (k + 1) * sizeof(*v));
      v[k] = memcpy(pgd_xrealloc(NULL, len + 1), s, len);
      v[k++][len] = '\0';
    }
    s = e ? e + 1 : NULL;
  }
  if (k == 0)
  {
    v = pgd_xrealloc(NULL, sizeof(*v));
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
  cfg.ignore = pgd_xrealloc(cfg.ignore, (cfg.nignore + 1) * sizeof(char *));
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
  cfg.sslrootcert = sb_opt_str("pgsql-sslrootcert");

  unsigned n = 0;
  char **items = sb_opt_list("pgsql-ignore-errors", &n);
  for (unsigned i = 0; i < n; i++)
  {
    if (items[i] == NULL || items[i][0] == '\0')
      continue;
    if (strcasecmp(items[i], "all") == 0)
      cfg.ignore_all = true;
    else if (strcasecmp(items[i], "timeout") == 0)
      cfg.ignore_timeout = true;    /* bmk: --db-query-timeout */
    else if (strcasecmp(items[i], "lost") == 0)
      for (size_t j = 0; j < sizeof(lost_states) / sizeof(*lost_states); j++)
        add_ignore(lost_states[j]);
    else
      add_ignore(items[i]);
  }
  /* libpq's own limit for the blocking connect (it takes 1 as 2 s); the
     event loop's connections have the generic layer's deadline */
  if (db_connect_timeout_s() > 0)
    snprintf(cfg.connect_timeout, sizeof(cfg.connect_timeout), "%u", db_connect_timeout_s());
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

/* libpq's transaction status (from the server's ReadyForQuery): idle
   (no block open) is 0; within a block, good or failed, 1; a command or
   a pipeline in progress cannot tell. */
static int pg_txn_status(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  if (pc == NULL || pc->pg == NULL || pc->pl_pending > 0)
    return -1;
  switch (PQtransactionStatus(pc->pg))
  {
  case PQTRANS_IDLE:
    return 0;
  case PQTRANS_INTRANS:
  case PQTRANS_INERROR:
    return 1;
  default:
    return -1;
  }
}

/* A statement timeout is ignorable when "timeout" is listed, or a lost
   connection (08006, what a closed socket gives) is. */
static bool pg_timeout_ignorable(void)
{
  return cfg.ignore_timeout || ignorable("08006");
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
  char *c = memcpy(pgd_xrealloc(NULL, n + 1), m, n);
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
  if (res != NULL && PQresultStatus(res) == PGRES_FATAL_ERROR)
    db_set_error_full(con, PQresultErrorMessage(res));
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
      pc->vals = pgd_xrealloc(pc->vals, nf * sizeof(*pc->vals));
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

/* A result that pgd_keep does not keep: handed to db_query_each's
   function when one waits for it, then freed. */
static void drop_result(pg_conn_t *pc, PGresult *res)
{
  db_conn_t *con = pc->each_con;
  if (con == NULL || con->each_result == NULL)
  {
    PQclear(res);
    return;
  }
  db_result_t rs = {.state = DB_RS_READY, .con = con};
  if (!pgd_store(pc, res, &rs))
  {
    PQclear(res);
    return;
  }
  con->each_result(&rs, con->each_arg);
  if (rs.ptr != NULL)
    PQclear(rs.ptr);
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
    drop_result(pc, pc->ares);
    pc->ares = res;
  }
}

bool pgd_wait_input(PGconn *pg)
{
  unsigned s = db_query_timeout_s();
  if (s == 0 || !PQisBusy(pg))
    return true;
  uint64_t end = sb_now_ns() + (uint64_t) s * 1000000000ULL;
  int fd = PQsocket(pg);
  while (PQisBusy(pg))
  {
    uint64_t now = sb_now_ns();
    if (now >= end)
    {
      /* the next PQgetResult finds the socket closed: "server closed the
         connection", a lost connection that db_finish, seeing how long
         it took, turns into a timeout */
      shutdown(fd, SHUT_RDWR);
      return false;
    }
    struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
    int ms = (int) ((end - now + 999999) / 1000000);
    if (poll(&pfd, 1, ms) > 0 && !PQconsumeInput(pg))
      return true;              /* broken: PQgetResult reports it */
  }
  return true;
}

/* PQexec's result collection after a PQsend* that returned `sent`, with
   pgd_keep's choice of result. Same calls, so same cost (with
   --db-query-timeout, a poll() per wait bounds it). */
PGresult *pgd_collect(pg_conn_t *pc, int sent)
{
  PGresult *res;

  pc->ares = NULL;
  if (!sent)
    return NULL;
  for (;;)
  {
    pgd_wait_input(pc->pg);      /* on a timeout PQgetResult fails at once */
    if ((res = PQgetResult(pc->pg)) == NULL)
      break;
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
int pgd_finish(db_conn_t *con, PGresult *res, db_result_t *rs,
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

static const char *pg_field_name(const db_result_t *rs, unsigned i)
{
  return PQfname(rs->ptr, (int) i);
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

PGconn *pgd_open_params(const db_conn_t *con, bool async)
{
  const char *kw[13], *val[13];
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
  const sb_endpoint_t *ep = con->endpoint;
  char epport[16];
  if (ep != NULL)
  {
    /* --endpoints: the endpoint's address, credentials and TLS */
    snprintf(epport, sizeof(epport), "%u", ep->port);
    ADD("host", ep->socket ? ep->socket : ep->host);
    if (ep->port)
      ADD("port", epport);
    ADD("user", ep->user);
    ADD("password", ep->password);
    ADD("dbname", ep->database);
    /* its "tls" replaces --pgsql-sslmode/--pgsql-sslrootcert (a mode it
       leaves out is the option's); without it, the options */
    ADD("sslmode", ep->tls_mode ? ep->tls_mode : cfg.sslmode);
    ADD("sslrootcert", sb_endpoint_has_tls(ep) ? ep->tls_ca : cfg.sslrootcert);
    ADD("sslcert", ep->tls_cert);
    ADD("sslkey", ep->tls_key);
  }
  else
  {
    if (cfg.nhosts)
      ADD("host", cfg.hosts[h]);
    if (cfg.nports)
      ADD("port", cfg.ports[p]);
    ADD("user", cfg.user);
    ADD("password", cfg.password);   /* else PGPASSWORD / ~/.pgpass */
    ADD("dbname", cfg.db);
    ADD("sslmode", cfg.sslmode);
    ADD("sslrootcert", cfg.sslrootcert);   /* else PGSSLROOTCERT / ~/.postgresql */
  }
  if (!async)
    ADD("connect_timeout", cfg.connect_timeout);
  ADD("fallback_application_name", db_application_name());
#undef ADD
  kw[n] = NULL;
  val[n] = NULL;
  /* expand_dbname: a database given as a connection string or URI
     ("host=h dbname=d", "postgresql://..."), as psql and pgbench take
     it; what it sets wins over the host, port, user and password
     before it, and loses to the sslmode and the rest after it */
  return async ? PQconnectStartParams(kw, val, 1)
    : PQconnectdbParams(kw, val, 1);
}

pg_conn_t *pgd_new_pc(void)
{
  pg_conn_t *pc = calloc(1, sizeof(*pc));
  if (pc == NULL)
    pgd_oom();
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
  free(pc->copy_sql);
  free(pc);
}

int pgd_connect_failed(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  char *m = trimmed(pc->pg ? PQerrorMessage(pc->pg) : "out of memory");

  /* libpq's message keeps its trailing newline here, as sysbench prints
     it (a blank line follows); the recorded error is trimmed */
  if (!db_connect_errors_quiet())
  {
    log_text(LOG_FATAL, "Connection to database failed: %s",
             pc->pg ? PQerrorMessage(pc->pg) : m);
    char where[300];
    const char *h = pc->pg ? PQhost(pc->pg) : NULL, *p = pc->pg ? PQport(pc->pg) : NULL;
    snprintf(where, sizeof(where), "host '%s', port %s", h && *h ? h : "(default)",
             p && *p ? p : "(default)");
    db_print_connect_timeout(con, where);
  }
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
  con->op_start_ns = sb_now_ns();
  pc->pg = pgd_open_params(con, false);
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
    pc->qbuf = pgd_xrealloc(pc->qbuf, pc->qcap);
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
  pc->each_con = con->each_result ? con : NULL;
  PGresult *res = pgd_collect(pc, PQsendQuery(pc->pg, q));
  pc->each_con = NULL;
  return pgd_finish(con, res, rs, "PQexec", sql, len);
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
    .prepare = pgd_prepare,
    .execute = pgd_execute,
    .close = pgd_close,
    .fetch_row = pg_fetch_row,
    .field_name = pg_field_name,
    .free_results = pg_free_results,
    .escape = pg_escape,
    .connect_start = pg_connect_start,
    .connect_cont = pg_connect_cont,
    .query_start = pg_query_start,
    .query_cont = pg_query_cont,
    .execute_start = pg_execute_start,
    .execute_cont = pg_execute_cont,
    .load_start = pgd_load_start,
    .load_send = pgd_load_send,
    .load_end = pgd_load_end,
    .load_abort = pgd_load_abort,
    .pipeline_begin = pgd_pipeline_begin,
    .pipeline_queue = pgd_pipeline_queue,
    .pipeline_sync = pgd_pipeline_sync,
    .pipeline_fetch = pgd_pipeline_fetch,
    .pipeline_fetch_start = pgd_pipeline_fetch_start,
    .pipeline_fetch_cont = pgd_pipeline_fetch_cont,
    .pipeline_end = pgd_pipeline_end,
    .prepare_start = pg_prepare_start,
    .prepare_cont = pg_prepare_cont,
    .close_start = pg_close_start,
    .close_cont = pg_close_cont,
    .timeout_ignorable = pg_timeout_ignorable,
    .txn_status = pg_txn_status,
  },
  .needs_commit_in_bulk = false,
  .autocommit_is_xact = true,
  .connect_is_xact = true,
  .unnamed_is_local = true,
  /* streamed into one COPY: small pieces keep the server busy while the
     client formats the next rows */
  .load_chunk_bytes = 65536,
  .port_option = "pgsql-port",
};
