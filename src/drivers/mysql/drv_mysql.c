/*
 * MySQL / MariaDB driver (MariaDB Connector/C, or libmysqlclient): options,
 * connections, text queries and server-side prepared statements in their
 * blocking forms. Options, messages, counting and error handling follow
 * sysbench 1.1's src/drivers/mysql/drv_mysql.c; drv_mysql_async.c has the
 * non-blocking forms.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mysql.h>
#include <errmsg.h>

#include "drivers/db_driver.h"
#include "drv_mysql.h"
#include "core/sb_logger.h"
#include "core/sb_timer.h"

/* The driver descriptor; the registry in src/drivers/db_driver.c refers to it. */
extern const db_driver_t mysql_driver;

#define SAFESTR(s) ((s) ? (s) : "(null)")

static const sb_option_t my_driver_options[] = {
  { "mysql-host", "MySQL server host", "localhost", SB_ARG_TYPE_LIST },
  { "mysql-port", "MySQL server port", "3306", SB_ARG_TYPE_LIST },
  { "mysql-socket", "MySQL socket", NULL, SB_ARG_TYPE_LIST },
  { "mysql-user", "MySQL user", "sbtest", SB_ARG_TYPE_STRING },
  { "mysql-password", "MySQL password", "", SB_ARG_TYPE_STRING },
  { "mysql-db", "MySQL database name", "sbtest", SB_ARG_TYPE_STRING },
  { "mysql-ssl", "SSL mode. This accepts the same values as the --ssl-mode option in the MySQL client utilities. Disabled by default", "disabled", SB_ARG_TYPE_STRING },
  { "mysql-ssl-key", "path name of the client private key file", NULL, SB_ARG_TYPE_STRING },
  { "mysql-ssl-ca", "path name of the CA file", NULL, SB_ARG_TYPE_STRING },
  { "mysql-ssl-cert", "path name of the client public key certificate file", NULL, SB_ARG_TYPE_STRING },
  { "mysql-ssl-cipher", "use specific cipher for SSL connections", "", SB_ARG_TYPE_STRING },
  { "mysql-compression", "use compression, if available in the client library", "off", SB_ARG_TYPE_BOOL },
  { "mysql-compression-algorithms", "compression algorithms to use", "zlib", SB_ARG_TYPE_STRING },
  { "mysql-debug", "trace all client library calls", "off", SB_ARG_TYPE_BOOL },
  { "mysql-ignore-errors", "list of errors to ignore, or \"all\"", "1213,1020,1205", SB_ARG_TYPE_LIST },
  { "mysql-dry-run", "Dry run, pretend that all MySQL client API calls are successful without executing them", "off", SB_ARG_TYPE_BOOL },
  { NULL, NULL, NULL, 0 }
};

typedef enum { SSL_DISABLED, SSL_PREFERRED, SSL_REQUIRED, SSL_VERIFY_CA, SSL_VERIFY_IDENTITY } ssl_mode_t;

static const struct {
  const char *name;
  ssl_mode_t mode;
} ssl_names[] = {
  { "disabled", SSL_DISABLED }, { "preferred", SSL_PREFERRED }, { "required", SSL_REQUIRED },
  { "verify_ca", SSL_VERIFY_CA }, { "verify_identity", SSL_VERIFY_IDENTITY },
  /* bmk: the boolean spellings mean the same whatever the client library */
  { "on", SSL_REQUIRED }, { "true", SSL_REQUIRED }, { "1", SSL_REQUIRED },
  { "off", SSL_DISABLED }, { "false", SSL_DISABLED }, { "0", SSL_DISABLED },
};

static struct {
  char **hosts, **ports, **sockets;
  unsigned nhosts, nports, nsockets;
  const char *user, *password, *db;
  ssl_mode_t ssl;
  const char *ssl_key, *ssl_ca, *ssl_cert, *ssl_cipher;
  const char *compression_alg;
  bool compression, ignore_all;
  bool ignore_timeout;            /* "timeout" in --mysql-ignore-errors */
  unsigned *ignore;
  unsigned nignore;
} cfg;

bool mydrv_trace;
bool mydrv_dry_run;

/* ---- options ------------------------------------------------------------ */

/* The mode a --mysql-ssl value names (any case), or -1. */
static int ssl_mode_named(const char *s)
{
  for (size_t i = 0; i < sizeof(ssl_names) / sizeof(ssl_names[0]); i++)
    if (strcasecmp(s, ssl_names[i].name) == 0)
      return (int) ssl_names[i].mode;
  return -1;
}

static int parse_ssl_mode(void)
{
  const char *s = sb_opt_str("mysql-ssl");
  if (s == NULL)
  {
    cfg.ssl = SSL_DISABLED;
    return 0;
  }
  int m = ssl_mode_named(s);
  if (m >= 0)
  {
    cfg.ssl = (ssl_mode_t) m;
    return 0;
  }
  log_text(LOG_FATAL, "Invalid value for --mysql-ssl: '%s'", s);
  return 1;
}

/* Every --endpoints entry's tls.mode must be a --mysql-ssl mode: checked
   before anything connects. 0, or 1 (FATAL printed). */
static int check_endpoint_tls(void)
{
  for (unsigned i = 0; i < sb_endpoints_count(); i++)
  {
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    if (ep->tls_mode && ssl_mode_named(ep->tls_mode) < 0)
    {
      log_text(LOG_FATAL, "--endpoints: endpoint '%s': tls.mode '%s' is not a MySQL TLS mode "
               "(disabled, preferred, required, verify_ca, verify_identity: the --mysql-ssl "
               "values)", ep->name, ep->tls_mode);
      return 1;
    }
  }
  return 0;
}

static int parse_ignore_list(void)
{
  unsigned n;
  char **items = sb_opt_list("mysql-ignore-errors", &n);
  free(cfg.ignore);
  cfg.nignore = 0;
  cfg.ignore_all = false;
  cfg.ignore_timeout = false;
  /* "lost" expands to four errnos */
  cfg.ignore = malloc(sizeof(unsigned) * (4 * (size_t) n + 1));
  if (cfg.ignore == NULL)
    return 1;
  for (unsigned i = 0; i < n; i++)
  {
    if (strcasecmp(items[i], "all") == 0)
      cfg.ignore_all = true;
    else if (strcasecmp(items[i], "timeout") == 0)
      cfg.ignore_timeout = true;    /* bmk: --db-query-timeout */
    else if (strcasecmp(items[i], "lost") == 0)
    {
      static const unsigned lost[] = { 2006, 2011, 2013, 2055 };
      for (unsigned k = 0; k < 4; k++)
        cfg.ignore[cfg.nignore++] = lost[k];
    }
    else
      /* as sysbench: an item counts as its leading number ("none" is 0,
         which no error has) */
      cfg.ignore[cfg.nignore++] = (unsigned) atoi(items[i]);
  }
  return 0;
}

static int my_init(void)
{
  cfg.hosts = sb_opt_list("mysql-host", &cfg.nhosts);
  cfg.ports = sb_opt_list("mysql-port", &cfg.nports);
  cfg.sockets = sb_opt_list("mysql-socket", &cfg.nsockets);
  cfg.user = sb_opt_str("mysql-user");
  cfg.password = sb_opt_str("mysql-password");
  if (cfg.password == NULL || *cfg.password == '\0')
  {
    const char *env = getenv("MYSQL_PWD");
    if (env != NULL)
      cfg.password = env;
  }
  cfg.db = sb_opt_str("mysql-db");
  cfg.ssl_key = sb_opt_str("mysql-ssl-key");
  cfg.ssl_ca = sb_opt_str("mysql-ssl-ca");
  cfg.ssl_cert = sb_opt_str("mysql-ssl-cert");
  cfg.ssl_cipher = sb_opt_str("mysql-ssl-cipher");
  if (cfg.ssl_cipher != NULL && *cfg.ssl_cipher == '\0')
    cfg.ssl_cipher = NULL;
  cfg.compression = sb_opt_bool("mysql-compression");
  cfg.compression_alg = sb_opt_str("mysql-compression-algorithms");
  mydrv_dry_run = sb_opt_bool("mysql-dry-run");
  /* sysbench: --mysql-debug switches the log to debug and traces every
     client call there */
  mydrv_trace = sb_opt_bool("mysql-debug");
  if (mydrv_trace)
    log_set_verbosity(LOG_DEBUG);

  if (parse_ssl_mode() != 0 || check_endpoint_tls() != 0 || parse_ignore_list() != 0)
    return 1;
  MY_TRACE("mysql_library_init(0, NULL, NULL)");
  if (mysql_library_init(0, NULL, NULL) != 0)
  {
    log_text(LOG_FATAL, "cannot initialize the MySQL client library");
    return 1;
  }
  return 0;
}

static void my_done(void)
{
  free(cfg.ignore);
  cfg.ignore = NULL;
  cfg.nignore = 0;
  MY_TRACE("mysql_library_end()");
  mysql_library_end();
}

static int my_thread_init(int tid)
{
  (void) tid;
  my_bool rc = mysql_thread_init();
  MY_TRACE("mysql_thread_init() = %d", (int) rc);
  return rc != 0;
}

static void my_thread_done(int tid)
{
  (void) tid;
  MY_TRACE("mysql_thread_end()");
  mysql_thread_end();
}

/* ---- errors ------------------------------------------------------------- */

static bool ignorable(unsigned e)
{
  if (cfg.ignore_all)
    return true;
  for (unsigned i = 0; i < cfg.nignore; i++)
    if (cfg.ignore[i] == e)
      return true;
  return false;
}

/* The server's "in a transaction" status flag, sent with every reply
   (the OK packet's status flags; Connector/C keeps the last one). */
static int my_txn_status(db_conn_t *con)
{
  my_conn_t *mc = con->ptr;
  if (mc == NULL || mc->mysql == NULL)
    return -1;
  return (mc->mysql->server_status & SERVER_STATUS_IN_TRANS) != 0;
}

/* A statement timeout is ignorable when "timeout" is listed, or a lost
   connection (2013, which Connector/C reports for it) is. */
static bool my_timeout_ignorable(void)
{
  return cfg.ignore_timeout || ignorable(2013);
}

void mydrv_set_error(db_conn_t *con, unsigned e, const char *state, const char *msg,
                     const char *api, const char *sql, size_t len)
{
  db_error_t kind = DB_ERROR_FATAL;
  if (ignorable(e))
  {
    kind = DB_ERROR_IGNORABLE;
    log_text(LOG_DEBUG, "Ignoring error %u %s, ", e, SAFESTR(msg));
  }
  db_set_error(con, kind, (int) e, state, msg, api, sql, sql ? len : 0);
  /* server gone or connection broken: the generic layer rebuilds it */
  if (e == 2006 || e == 2011 || e == 2013 || e == 2055)
    con->lost = true;
}

int mydrv_conn_failed(db_conn_t *con, const char *api, const char *sql, size_t len)
{
  MYSQL *m = ((my_conn_t *) con->ptr)->mysql;
  unsigned e = mysql_errno(m);
  MY_TRACE("mysql_errno(%p) = %u (%s)", (void *) m, e, mysql_error(m));
  mydrv_set_error(con, e, mysql_sqlstate(m), mysql_error(m), api, sql, len);
  return 1;
}

/* ---- connections -------------------------------------------------------- */

/* The TLS settings of connection `mc` (mydrv_new_handle chose them: the
   endpoint's or the --mysql-ssl* options) onto handle `m`. */
static void set_tls_options(MYSQL *m, const my_conn_t *mc)
{
#if defined(MARIADB_BASE_VERSION)
  /*
   * Connector/C has one switch, use_ssl (set by mysql_ssl_set and by
   * MYSQL_OPT_SSL_ENFORCE): TLS when the server offers it, plain otherwise.
   * Given a CA it verifies the server's chain; MYSQL_OPT_SSL_VERIFY_SERVER_CERT
   * adds the host name check and refuses plain servers. So VERIFY_CA is a
   * CA with no host name check (with no CA it can only verify the full
   * identity), and REQUIRED and VERIFY_CA refuse a plain session after
   * connecting (mydrv_check_tls). Both switches are always set: newer
   * Connector/C versions default to TLS.
   */
  my_bool use = mc->tls != SSL_DISABLED;
  my_bool verify = mc->tls == SSL_VERIFY_IDENTITY || (mc->tls == SSL_VERIFY_CA && !mc->tls_ca);
  if (use)
  {
    MY_TRACE("mysql_ssl_set(%p, \"%s\", \"%s\", \"%s\", NULL, \"%s\")", (void *) m,
             SAFESTR(mc->tls_key), SAFESTR(mc->tls_cert), SAFESTR(mc->tls_ca),
             SAFESTR(cfg.ssl_cipher));
    mysql_ssl_set(m, mc->tls_key, mc->tls_cert, mc->tls_ca, NULL, cfg.ssl_cipher);
  }
  mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &use);
  mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
#elif MYSQL_VERSION_ID >= 50711
  /* libmysqlclient defaults to PREFERRED: always say which mode is meant */
  static const unsigned modes[] = { SSL_MODE_DISABLED, SSL_MODE_PREFERRED, SSL_MODE_REQUIRED,
                                    SSL_MODE_VERIFY_CA, SSL_MODE_VERIFY_IDENTITY };
  unsigned mode = modes[mc->tls];
  MY_TRACE("mysql_options(%p, MYSQL_OPT_SSL_MODE, %u)", (void *) m, mode);
  mysql_options(m, MYSQL_OPT_SSL_MODE, &mode);
  if (mc->tls != SSL_DISABLED)
  {
    mysql_options(m, MYSQL_OPT_SSL_KEY, mc->tls_key);
    mysql_options(m, MYSQL_OPT_SSL_CERT, mc->tls_cert);
    mysql_options(m, MYSQL_OPT_SSL_CA, mc->tls_ca);
    mysql_options(m, MYSQL_OPT_SSL_CIPHER, cfg.ssl_cipher);
  }
#else
  if (mc->tls != SSL_DISABLED)
    mysql_ssl_set(m, mc->tls_key, mc->tls_cert, mc->tls_ca, NULL, cfg.ssl_cipher);
#endif
}

/* Address, credentials and TLS settings of endpoint `ep` (--endpoints)
   into mc. An endpoint's "tls" replaces the --mysql-ssl* options (its
   mode defaults to --mysql-ssl's; ca, cert and key to none). */
static void endpoint_address(my_conn_t *mc, const sb_endpoint_t *ep)
{
  if (sb_endpoint_has_tls(ep))
  {
    mc->tls = ep->tls_mode ? ssl_mode_named(ep->tls_mode) : (int) cfg.ssl;
    mc->tls_key = ep->tls_key;
    mc->tls_cert = ep->tls_cert;
    mc->tls_ca = ep->tls_ca;
    mc->tls_endpoint = ep->name;
  }
  mc->socket = ep->socket;
  mc->host = ep->socket ? "localhost" : ep->host ? ep->host : "localhost";
  mc->port = ep->port ? ep->port : 3306;
  mc->user = ep->user;
  mc->password = ep->password;
  mc->db = ep->database;
}

MYSQL *mydrv_new_handle(const db_conn_t *con, my_conn_t *mc, bool nonblocking)
{
  mc->socket = NULL;
  mc->port = 3306;
  if (con->endpoint != NULL)
    ;
  else if (cfg.nsockets > 0)
  {
    mc->host = "localhost";
    mc->socket = cfg.sockets[db_next_endpoint(cfg.nsockets)];
  }
  else
  {
    /* hosts x ports, ports in the inner loop */
    unsigned nh = cfg.nhosts ? cfg.nhosts : 1, np = cfg.nports ? cfg.nports : 1;
    unsigned i = db_next_endpoint(nh * np);
    mc->host = cfg.nhosts ? cfg.hosts[i / np] : "localhost";
    mc->port = cfg.nports ? (unsigned) atoi(cfg.ports[i % np]) : 3306;
  }
  mc->user = cfg.user;
  mc->password = cfg.password;
  mc->db = cfg.db;
  mc->tls = (int) cfg.ssl;
  mc->tls_key = cfg.ssl_key;
  mc->tls_cert = cfg.ssl_cert;
  mc->tls_ca = cfg.ssl_ca;
  mc->tls_endpoint = NULL;
  if (con->endpoint != NULL)
    endpoint_address(mc, con->endpoint);

  MYSQL *m = mysql_init(NULL);
  MY_TRACE("mysql_init(NULL) = %p", (void *) m);
  if (m == NULL)
  {
    log_text(LOG_FATAL, "mysql_init() failed: out of memory");
    return NULL;
  }
#ifdef HAVE_MYSQL_REAL_QUERY_START
  if (nonblocking)
    mysql_options(m, MYSQL_OPT_NONBLOCK, 0);
#endif
  if (!nonblocking)
  {
    /* Connector/C's own timeouts for the blocking calls (the connect one
       covers the handshake too; a read timeout ends a statement with
       error 2013 after one wait, see db_mark_timeout); the event loop's
       connections have the generic layer's deadline instead */
    unsigned ct = db_connect_timeout_s(), qt = db_query_timeout_s();
    if (ct > 0)
      mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
    if (qt > 0)
    {
      mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &qt);
      mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &qt);
    }
  }
  set_tls_options(m, mc);
  mydrv_infile_setup(m, mc);
  if (cfg.compression)
  {
    MY_TRACE("mysql_options(%p, MYSQL_OPT_COMPRESS, NULL)", (void *) m);
    mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
#if !defined(MARIADB_BASE_VERSION) && MYSQL_VERSION_ID >= 80018
    mysql_options(m, MYSQL_OPT_COMPRESSION_ALGORITHMS, cfg.compression_alg);
#endif
  }
  MY_TRACE("mysql_real_connect(%p, \"%s\", \"%s\", \"***\", \"%s\", %u, \"%s\", "
           "CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS)", (void *) m, SAFESTR(mc->host),
           SAFESTR(mc->user), SAFESTR(mc->db), mc->port, SAFESTR(mc->socket));
  return m;
}

int mydrv_check_tls(const my_conn_t *mc, MYSQL *m)
{
  if (mc->tls == SSL_DISABLED)
    return 0;
  const char *cipher = mysql_get_ssl_cipher(m);
  MY_TRACE("mysql_get_ssl_cipher(%p) = \"%s\"", (void *) m, SAFESTR(cipher));
#if defined(MARIADB_BASE_VERSION)
  /* Connector/C falls back to plain text silently (see set_tls_options) */
  if (mc->tls >= SSL_REQUIRED && cipher == NULL)
    return 1;
#endif
  return 0;
}

/* Connector/C's TLS errors name neither the option nor the cause: a
   WARNING line says which check failed and what to give. */
static void tls_hint(unsigned e, const char *msg, const my_conn_t *mc)
{
  if (e != CR_SSL_CONNECTION_ERROR || mc->tls < SSL_VERIFY_CA)
    return;
  /* where the settings came from, in the user's words */
  char mode[160], ca[160];
  if (mc->tls_endpoint)
  {
    snprintf(mode, sizeof(mode), "endpoint '%s' tls.mode", mc->tls_endpoint);
    snprintf(ca, sizeof(ca), "endpoint '%s' tls.ca", mc->tls_endpoint);
  }
  else
  {
    snprintf(mode, sizeof(mode), "--mysql-ssl");
    snprintf(ca, sizeof(ca), "--mysql-ssl-ca");
  }
  if (strstr(msg, "Validation of SSL server certificate failed"))
    log_text(LOG_WARNING, "the server's certificate does not name host '%s' "
             "(%s=VERIFY_IDENTITY checks it; VERIFY_CA does not)", mc->host, mode);
  else if (strstr(msg, "certificate") && mc->tls_ca)
    log_text(LOG_WARNING, "the server's certificate is not signed by a CA in %s=%s", ca,
             mc->tls_ca);
}

int mydrv_connect_failed(db_conn_t *con, MYSQL *m)
{
  my_conn_t *mc = con->ptr;
  unsigned e = mysql_errno(m);
  const char *msg = mysql_error(m), *state = mysql_sqlstate(m);
  if (e == 0)
  {
    /* connected, but without the TLS that --mysql-ssl demands; worded as
       Connector/C's own refusal */
    e = CR_SSL_CONNECTION_ERROR;
    msg = "TLS/SSL error: SSL is required, but the server does not support it";
    state = "HY000";
  }
  if (!db_connect_errors_quiet())
  {
    char where[300];
    if (mc->socket)
    {
      log_text(LOG_FATAL, "unable to connect to MySQL server on socket '%s', aborting...", mc->socket);
      snprintf(where, sizeof(where), "socket '%s'", mc->socket);
    }
    else
    {
      log_text(LOG_FATAL, "unable to connect to MySQL server on host '%s', port %u, aborting...",
               mc->host, mc->port);
      snprintf(where, sizeof(where), "host '%s', port %u", mc->host, mc->port);
    }
    log_text(LOG_FATAL, "error %u: %s", e, msg);
    tls_hint(e, msg, mc);
    db_print_connect_timeout(con, where);
  }
  db_set_error(con, DB_ERROR_FATAL, (int) e, state, msg, "mysql_real_connect", "", 0);
  mysql_close(m);
  free(mc);
  con->ptr = NULL;
  return 1;
}

static const char *my_field_name(const db_result_t *rs, unsigned i)
{
  /* a server-side prepared statement's result has no MYSQL_RES: its
     columns are the statement's own metadata */
  if (rs->stmt != NULL && !rs->stmt->emulated && rs->stmt->ptr != NULL)
  {
    const MYSQL_STMT *st = ((const my_stmt_t *) rs->stmt->ptr)->stmt;
    return st && st->fields && i < st->field_count ? st->fields[i].name : NULL;
  }
  MYSQL_FIELD *f = rs->ptr ? mysql_fetch_field_direct(rs->ptr, i) : NULL;
  return f ? f->name : NULL;
}

static int my_connect(db_conn_t *con)
{
  my_conn_t *mc = calloc(1, sizeof(*mc));
  if (mc == NULL)
    return 1;
  con->ptr = mc;
  if (mydrv_dry_run)
    return 0;
  con->op_start_ns = sb_now_ns();
  MYSQL *m = mydrv_new_handle(con, mc, false);
  if (m == NULL)
  {
    free(mc);
    con->ptr = NULL;
    return 1;
  }
  if (mysql_real_connect(m, mc->host, mc->user, mc->password, mc->db, mc->port, mc->socket,
                         MYSQL_CLIENT_FLAGS) == NULL || mydrv_check_tls(mc, m) != 0)
    return mydrv_connect_failed(con, m);
  mc->mysql = m;
  return 0;
}

static void my_disconnect(db_conn_t *con)
{
  my_conn_t *mc = con->ptr;
  if (mc == NULL)
    return;
  if (mc->mysql)
  {
    MY_TRACE("mysql_close(%p)", (void *) mc->mysql);
    mysql_close(mc->mysql);
  }
  free(mc->values);
  free(mc->load_sql);
  free(mc);
  con->ptr = NULL;
}

/* ---- text queries ------------------------------------------------------- */

void mydrv_no_result_set(db_result_t *rs, uint64_t affected)
{
  /* (uint64_t) -1 means the server sent no count */
  bool known = affected != (uint64_t) -1;
  rs->counter = known && affected > 0 ? SB_CNT_WRITE : SB_CNT_OTHER;
  rs->nrows = known ? affected : 0;
  rs->nfields = 0;
}

int mydrv_text_result(db_conn_t *con, MYSQL_RES *res, db_result_t *rs)
{
  MYSQL *m = ((my_conn_t *) con->ptr)->mysql;
  MY_TRACE("mysql_store_result(%p) = %p", (void *) m, (void *) res);
  rs->ptr = res;
  if (res == NULL)
  {
    /* as sysbench, a failure to read the result names no query */
    if (mysql_errno(m) != 0)
      return mydrv_conn_failed(con, "mysql_store_result", "", 0);
    mydrv_no_result_set(rs, mysql_affected_rows(m));
    MY_TRACE("mysql_affected_rows(%p) = %llu", (void *) m, (unsigned long long) rs->nrows);
    return 0;
  }
  rs->counter = SB_CNT_READ;
  rs->nrows = mysql_num_rows(res);
  rs->nfields = mysql_num_fields(res);
  MY_TRACE("mysql_num_rows(%p) = %llu, mysql_num_fields = %u", (void *) res,
           (unsigned long long) rs->nrows, rs->nfields);
  return 0;
}

void mydrv_drain_results(my_conn_t *mc)
{
  if (mydrv_dry_run || mc == NULL || mc->mysql == NULL)
    return;
  my_stmt_t *ms = mc->last_stmt ? mc->last_stmt->ptr : NULL;
  if (ms != NULL && ms->stmt != NULL)
  {
    while (mysql_stmt_more_results(ms->stmt) && mysql_stmt_next_result(ms->stmt) == 0)
    {
      MY_TRACE("mysql_stmt_next_result(%p) = 0 (skipped)", (void *) ms->stmt);
      if (mysql_stmt_field_count(ms->stmt) > 0)
        mysql_stmt_store_result(ms->stmt);
      mysql_stmt_free_result(ms->stmt);
    }
    return;
  }
  while (mysql_more_results(mc->mysql) && mysql_next_result(mc->mysql) == 0)
  {
    MYSQL_RES *res = mysql_store_result(mc->mysql);
    MY_TRACE("mysql_next_result(%p) = 0 (skipped: %p)", (void *) mc->mysql, (void *) res);
    if (res != NULL)
      mysql_free_result(res);
  }
}

static int my_query(db_conn_t *con, const char *sql, size_t len, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  if (mydrv_dry_run)
  {
    rs->counter = SB_CNT_OTHER;
    return 0;
  }
  mydrv_drain_results(mc);
  mc->last_stmt = NULL;
  int err = mysql_real_query(mc->mysql, sql, (unsigned long) len);
  MY_TRACE("mysql_real_query(%p, \"%.*s\", %zu) = %d", (void *) mc->mysql, (int) len, sql, len, err);
  if (err != 0)
    return mydrv_conn_failed(con, "mysql_drv_query", sql, len);
  return mydrv_text_result(con, mysql_store_result(mc->mysql), rs);
}


static int my_fetch_row(db_result_t *rs)
{
  my_conn_t *mc = rs->con->ptr;
  if (mc == NULL)
    return 0;
  if (mc->values_cap < rs->nfields)
  {
    db_value_t *v = realloc(mc->values, sizeof(db_value_t) * rs->nfields);
    if (v == NULL)
      return 0;
    mc->values = v;
    mc->values_cap = rs->nfields;
  }
  rs->row.values = mc->values;
  if (rs->stmt != NULL)
    return mydrv_stmt_fetch(rs, mc);

  MYSQL_RES *res = rs->ptr;
  if (res == NULL)
    return 0;
  MYSQL_ROW row = mysql_fetch_row(res);
  MY_TRACE("mysql_fetch_row(%p) = %p", (void *) res, (void *) row);
  if (row == NULL)
    return 0;
  unsigned long *lens = mysql_fetch_lengths(res);
  for (unsigned i = 0; i < rs->nfields; i++)
  {
    mc->values[i].ptr = row[i];
    mc->values[i].len = row[i] ? lens[i] : 0;
  }
  return 1;
}

static void my_free_results(db_result_t *rs)
{
  if (rs->stmt != NULL)
  {
    my_stmt_t *ms = rs->stmt->ptr;
    if (ms != NULL && ms->stmt != NULL)
    {
      MY_TRACE("mysql_stmt_free_result(%p)", (void *) ms->stmt);
      mysql_stmt_free_result(ms->stmt);
    }
  }
  else if (rs->ptr != NULL)
  {
    MY_TRACE("mysql_free_result(%p)", rs->ptr);
    mysql_free_result(rs->ptr);
  }
  rs->ptr = NULL;
}

static bool my_more_results(db_conn_t *con)
{
  my_conn_t *mc = con->ptr;
  if (mydrv_dry_run || mc == NULL || mc->mysql == NULL)
    return false;
  bool more = mysql_more_results(mc->mysql);
  MY_TRACE("mysql_more_results(%p) = %d", (void *) mc->mysql, (int) more);
  return more;
}


static int my_next_result(db_conn_t *con, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  if (mydrv_dry_run)
  {
    rs->counter = SB_CNT_OTHER;
    return 0;
  }
  /* a CALL's later results belong to the statement that ran it */
  if (mc->last_stmt != NULL)
    return mydrv_stmt_next_result(mc->last_stmt, rs);
  int err = mysql_next_result(mc->mysql);
  MY_TRACE("mysql_next_result(%p) = %d", (void *) mc->mysql, err);
  if (err > 0)
    return mydrv_conn_failed(con, "mysql_drv_next_result", "", 0);
  if (err < 0)
  {
    rs->counter = SB_CNT_OTHER;
    return 0;
  }
  return mydrv_text_result(con, mysql_store_result(mc->mysql), rs);
}

static size_t my_escape(db_conn_t *con, char *dst, const char *src, size_t len)
{
  my_conn_t *mc = con->ptr;
  if (mc && mc->mysql)
    return mysql_real_escape_string(mc->mysql, dst, src, (unsigned long) len);
  /* dry run: no handle to ask for the character set */
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
  {
    if (src[i] == '\'' || src[i] == '\\')
      dst[n++] = '\\';
    dst[n++] = src[i];
  }
  dst[n] = '\0';
  return n;
}


/* ---- prepared statements ------------------------------------------------ */


const db_driver_t mysql_driver = {
  .name = "mysql",
  .description = "MySQL driver",
  .options = my_driver_options,
  .ext_options = NULL,
  .ops = {
    .init = my_init,
    .done = my_done,
    .thread_init = my_thread_init,
    .thread_done = my_thread_done,
    .connect = my_connect,
    .disconnect = my_disconnect,
    .query = my_query,
    .prepare = mydrv_prepare,
    .execute = mydrv_execute,
    .close = mydrv_close,
    .fetch_row = my_fetch_row,
    .field_name = my_field_name,
    .free_results = my_free_results,
    .more_results = my_more_results,
    .next_result = my_next_result,
    .escape = my_escape,
#ifdef HAVE_MYSQL_REAL_QUERY_START
    .connect_start = mydrv_connect_start,
    .connect_cont = mydrv_connect_cont,
    .query_start = mydrv_query_start,
    .query_cont = mydrv_query_cont,
    .execute_start = mydrv_execute_start,
    .execute_cont = mydrv_execute_cont,
    .prepare_start = mydrv_prepare_start,
    .prepare_cont = mydrv_prepare_cont,
    .next_result_start = mydrv_next_result_start,
    .next_result_cont = mydrv_next_result_cont,
#endif
    .load_start = mydrv_load_start,
    .load_send = mydrv_load_send,
    .load_end = mydrv_load_end,
    .load_abort = mydrv_load_abort,
    .timeout_ignorable = my_timeout_ignorable,
    .txn_status = my_txn_status,
  },
  /* one LOAD DATA statement per 4 MiB of rows: the client library pulls
     a statement's data while it runs, so a statement's rows are gathered
     first */
  .load_chunk_bytes = 4 * 1024 * 1024,
  .port_option = "mysql-port",
};
