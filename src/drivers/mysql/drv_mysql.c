/*
 * MySQL / MariaDB driver (MariaDB Connector/C, or libmysqlclient).
 * Options, messages and error handling: sysbench-compat.md §3.1, §3.2, §5.5.
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

#include "db_driver.h"
#include "drv_mysql.h"
#include "sb_logger.h"

/* The registry in src/db_driver.c refers to this descriptor. */
extern const db_driver_t mysql_driver;

#define ER_UNSUPPORTED_PS_CODE 1295

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

static struct {
  char **hosts, **ports, **sockets;
  unsigned nhosts, nports, nsockets;
  const char *user, *password, *db;
  ssl_mode_t ssl;
  const char *ssl_key, *ssl_ca, *ssl_cert, *ssl_cipher;
  bool compression, dry_run, ignore_all;
  unsigned *ignore;
  unsigned nignore;
} cfg;

static bool lost_errno(unsigned e)
{
  return e == CR_SERVER_GONE_ERROR || e == CR_SERVER_LOST ||
         e == 2011 /* CR_TCP_CONNECTION */ || e == 2055 /* CR_SERVER_LOST_EXTENDED */;
}

static void add_ignore(unsigned e)
{
  cfg.ignore = realloc(cfg.ignore, sizeof(unsigned) * (cfg.nignore + 1));
  cfg.ignore[cfg.nignore++] = e;
}

static int my_init(void)
{
  cfg.hosts = sb_opt_list("mysql-host", &cfg.nhosts);
  cfg.ports = sb_opt_list("mysql-port", &cfg.nports);
  cfg.sockets = sb_opt_list("mysql-socket", &cfg.nsockets);
  cfg.user = sb_opt_str("mysql-user");
  cfg.password = sb_opt_str("mysql-password");
  if (cfg.password == NULL || *cfg.password == '\0')
    cfg.password = getenv("MYSQL_PWD");
  cfg.db = sb_opt_str("mysql-db");
  cfg.ssl_key = sb_opt_str("mysql-ssl-key");
  cfg.ssl_ca = sb_opt_str("mysql-ssl-ca");
  cfg.ssl_cert = sb_opt_str("mysql-ssl-cert");
  cfg.ssl_cipher = sb_opt_str("mysql-ssl-cipher");
  cfg.compression = sb_opt_bool("mysql-compression");
  cfg.dry_run = sb_opt_bool("mysql-dry-run");

  const char *ssl = sb_opt_str("mysql-ssl");
  if (ssl == NULL || !strcasecmp(ssl, "disabled") || !strcasecmp(ssl, "off") ||
      !strcasecmp(ssl, "false") || !strcmp(ssl, "0"))
    cfg.ssl = SSL_DISABLED;
  else if (!strcasecmp(ssl, "preferred"))
    cfg.ssl = SSL_PREFERRED;
  else if (!strcasecmp(ssl, "required") || !strcasecmp(ssl, "on") ||
           !strcasecmp(ssl, "true") || !strcmp(ssl, "1"))
    cfg.ssl = SSL_REQUIRED;
  else if (!strcasecmp(ssl, "verify_ca"))
    cfg.ssl = SSL_VERIFY_CA;
  else if (!strcasecmp(ssl, "verify_identity"))
    cfg.ssl = SSL_VERIFY_IDENTITY;
  else
  {
    log_text(LOG_FATAL, "Invalid value for --mysql-ssl: '%s'", ssl);
    return 1;
  }

  unsigned n;
  char **ign = sb_opt_list("mysql-ignore-errors", &n);
  for (unsigned i = 0; i < n; i++)
  {
    if (!strcasecmp(ign[i], "all"))
      cfg.ignore_all = true;
    else if (!strcasecmp(ign[i], "lost"))
    {
      add_ignore(2006);
      add_ignore(2011);
      add_ignore(2013);
      add_ignore(2055);
    }
    else
    {
      char *end;
      unsigned long e = strtoul(ign[i], &end, 10);
      if (*end != '\0')
      {
        log_text(LOG_FATAL, "Invalid value for --mysql-ignore-errors: '%s'", ign[i]);
        return 1;
      }
      add_ignore((unsigned) e);
    }
  }
  if (!cfg.dry_run && mysql_library_init(0, NULL, NULL) != 0)
  {
    log_text(LOG_FATAL, "cannot initialize the MySQL client library");
    return 1;
  }
  if (sb_opt_bool("mysql-debug"))
    mysql_debug("d:t:O,/tmp/mysqld.trace");
  return 0;
}

static void my_done(void)
{
  free(cfg.ignore);
  cfg.ignore = NULL;
  if (!cfg.dry_run)
    mysql_library_end();
}

static int my_thread_init(int tid)
{
  (void) tid;
  return cfg.dry_run ? 0 : (mysql_thread_init() ? 1 : 0);
}

static void my_thread_done(int tid)
{
  (void) tid;
  if (!cfg.dry_run)
    mysql_thread_end();
}

static bool ignorable(unsigned e)
{
  if (cfg.ignore_all)
    return true;
  for (unsigned i = 0; i < cfg.nignore; i++)
    if (cfg.ignore[i] == e)
      return true;
  return false;
}

/* Records the last error of `m` (connection or statement level). */
void mydrv_set_error(db_conn_t *con, unsigned e, const char *state,
                      const char *msg, const char *api, const char *sql, size_t len)
{
  db_error_t kind = ignorable(e) ? DB_ERROR_IGNORABLE : DB_ERROR_FATAL;
  db_set_error(con, kind, (int) e, state, msg, api, sql, sql ? len : 0);
  if (lost_errno(e))
    con->lost = true;
}

MYSQL *mydrv_new_handle(my_conn_t *mc, bool nonblocking)
{
  mc->socket = NULL;
  mc->port = 3306;
  if (cfg.nsockets > 0)
  {
    mc->host = "localhost";
    mc->socket = cfg.sockets[db_next_endpoint(cfg.nsockets)];
  }
  else
  {
    unsigned nh = cfg.nhosts ? cfg.nhosts : 1, np = cfg.nports ? cfg.nports : 1;
    unsigned i = db_next_endpoint(nh * np);
    mc->host = cfg.nhosts ? cfg.hosts[i / np] : "localhost";
    mc->port = cfg.nports ? (unsigned) atoi(cfg.ports[i % np]) : 3306;
  }
  mc->user = cfg.user;
  mc->password = cfg.password;
  mc->db = cfg.db;

  MYSQL *m = mysql_init(NULL);
  if (m == NULL)
  {
    log_text(LOG_FATAL, "mysql_init() failed: out of memory");
    return NULL;
  }
#ifdef HAVE_MYSQL_REAL_QUERY_START
  if (nonblocking)
    mysql_options(m, MYSQL_OPT_NONBLOCK, 0);
#else
  (void) nonblocking;
#endif
  if (cfg.ssl != SSL_DISABLED)
  {
    mysql_ssl_set(m, cfg.ssl_key, cfg.ssl_cert, cfg.ssl_ca, NULL,
                  cfg.ssl_cipher && *cfg.ssl_cipher ? cfg.ssl_cipher : NULL);
#ifdef MARIADB_BASE_VERSION
    my_bool enforce = cfg.ssl >= SSL_REQUIRED;
    my_bool verify = cfg.ssl >= SSL_VERIFY_CA;
    mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &enforce);
    mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
#endif
  }
#ifdef MARIADB_BASE_VERSION
  else
  {
    /* Connector/C 3.3+ may try TLS on its own; keep "disabled" plain. */
    my_bool off = 0;
    mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &off);
  }
#endif
  if (cfg.compression)
    mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
  return m;
}

int mydrv_connect_failed(db_conn_t *con, MYSQL *m)
{
  my_conn_t *mc = con->ptr;
  if (mc->socket)
    log_text(LOG_FATAL, "unable to connect to MySQL server on socket '%s', aborting...", mc->socket);
  else
    log_text(LOG_FATAL, "unable to connect to MySQL server on host '%s', port %u, aborting...",
             mc->host, mc->port);
  log_text(LOG_FATAL, "error %u: %s", mysql_errno(m), mysql_error(m));
  db_set_error(con, DB_ERROR_FATAL, (int) mysql_errno(m), mysql_sqlstate(m),
               mysql_error(m), "mysql_real_connect", "", 0);
  mysql_close(m);
  free(mc);
  con->ptr = NULL;
  return 1;
}

static int my_connect(db_conn_t *con)
{
  my_conn_t *mc = calloc(1, sizeof(*mc));
  if (mc == NULL)
    return 1;
  con->ptr = mc;
  if (cfg.dry_run)
    return 0;
  MYSQL *m = mydrv_new_handle(mc, false);
  if (m == NULL)
  {
    free(mc);
    con->ptr = NULL;
    return 1;
  }
  if (mysql_real_connect(m, mc->host, mc->user, mc->password, mc->db, mc->port,
                         mc->socket, MYSQL_CLIENT_FLAGS) == NULL)
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
    mysql_close(mc->mysql);
  free(mc->values);
  free(mc);
  con->ptr = NULL;
}

/* Fills rs from the connection's current statement result. */
void mydrv_no_result_set(db_result_t *rs, my_ulonglong affected)
{
  bool known = affected != (my_ulonglong) -1;
  rs->counter = known && affected > 0 ? SB_CNT_WRITE : SB_CNT_OTHER;
  rs->nrows = known ? affected : 0;
  rs->nfields = 0;
}

int mydrv_store_text_result(db_conn_t *con, db_result_t *rs, const char *sql,
                             size_t len, const char *api)
{
  my_conn_t *mc = con->ptr;
  MYSQL *m = mc->mysql;
  MYSQL_RES *res = mysql_store_result(m);
  if (res == NULL && mysql_errno(m) != 0)
  {
    mydrv_set_error(con, mysql_errno(m), mysql_sqlstate(m), mysql_error(m), api, sql, len);
    return 1;
  }
  rs->ptr = res;
  if (res != NULL)
  {
    rs->counter = SB_CNT_READ;
    rs->nrows = mysql_num_rows(res);
    rs->nfields = mysql_num_fields(res);
  }
  else
  {
    mydrv_no_result_set(rs, mysql_affected_rows(m));
  }
  return 0;
}

static int my_query(db_conn_t *con, const char *sql, size_t len, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  if (db_debug())
    log_text(LOG_DEBUG, "mysql_real_query(\"%.*s\")", (int) len, sql);
  if (cfg.dry_run)
  {
    rs->counter = SB_CNT_OTHER;
    return 0;
  }
  if (mysql_real_query(mc->mysql, sql, (unsigned long) len) != 0)
  {
    mydrv_set_error(con, mysql_errno(mc->mysql), mysql_sqlstate(mc->mysql),
              mysql_error(mc->mysql), "mysql_drv_query", sql, len);
    return 1;
  }
  return mydrv_store_text_result(con, rs, sql, len, "mysql_drv_store_result");
}

static int bind_results(my_stmt_t *ms, MYSQL_RES *meta);

static int my_fetch_row(db_result_t *rs)
{
  db_conn_t *con = rs->con;
  my_conn_t *mc = con->ptr;
  if (mc->values_cap < rs->nfields)
  {
    free(mc->values);
    mc->values = calloc(rs->nfields, sizeof(db_value_t));
    mc->values_cap = rs->nfields;
  }
  rs->row.values = mc->values;

  if (rs->stmt != NULL)
  {
    my_stmt_t *ms = rs->stmt->ptr;
    if (!ms->results_bound)
    {
      /* Bound on the first fetch only: most executions never fetch, and
         the metadata call allocates. */
      MYSQL_RES *meta = mysql_stmt_result_metadata(ms->stmt);
      int brc = meta ? bind_results(ms, meta) : 1;
      if (meta)
        mysql_free_result(meta);
      if (brc != 0)
        return 0;
      ms->results_bound = true;
    }
    int rc = mysql_stmt_fetch(ms->stmt);
    if (rc == MYSQL_NO_DATA || rc == 1)
      return 0;
    for (unsigned i = 0; i < rs->nfields; i++)
    {
      if (ms->res_null[i])
      {
        mc->values[i].ptr = NULL;
        mc->values[i].len = 0;
      }
      else
      {
        unsigned long l = ms->res_len[i];
        if (l > ms->res_cap[i])  /* truncated: should not happen with max_length */
          l = ms->res_cap[i];
        mc->values[i].ptr = ms->res_buf[i];
        mc->values[i].len = l;
      }
    }
    return 1;
  }

  MYSQL_RES *res = rs->ptr;
  if (res == NULL)
    return 0;
  MYSQL_ROW row = mysql_fetch_row(res);
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
  if (rs->stmt != NULL && rs->stmt->ptr != NULL)
  {
    my_stmt_t *ms = rs->stmt->ptr;
    if (ms->stmt)
      mysql_stmt_free_result(ms->stmt);
  }
  else if (rs->ptr != NULL)
    mysql_free_result(rs->ptr);
  rs->ptr = NULL;
}

static bool my_more_results(db_conn_t *con)
{
  my_conn_t *mc = con->ptr;
  return !cfg.dry_run && mc && mc->mysql && mysql_more_results(mc->mysql);
}

static int my_next_result(db_conn_t *con, db_result_t *rs)
{
  my_conn_t *mc = con->ptr;
  int rc = mysql_next_result(mc->mysql);
  if (rc > 0)
  {
    mydrv_set_error(con, mysql_errno(mc->mysql), mysql_sqlstate(mc->mysql),
              mysql_error(mc->mysql), "mysql_next_result", NULL, 0);
    return 1;
  }
  if (rc < 0)
    return 1;
  rs->stmt = NULL;
  return mydrv_store_text_result(con, rs, NULL, 0, "mysql_next_result");
}

static size_t my_escape(db_conn_t *con, char *dst, const char *src, size_t len)
{
  my_conn_t *mc = con->ptr;
  if (mc && mc->mysql)
    return mysql_real_escape_string(mc->mysql, dst, src, (unsigned long) len);
  /* dry run: plain quoting */
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

/* ---- prepared statements ------------------------------------------------------ */

static void free_stmt_bindings(my_stmt_t *ms)
{
  for (unsigned i = 0; i < ms->nresults; i++)
    free(ms->res_buf[i]);
  free(ms->res_buf);
  free(ms->res_len);
  free(ms->res_null);
  free(ms->res_cap);
  free(ms->results);
  free(ms->params);
  free(ms->param_len);
  free(ms->param_null);
}

static int my_prepare(db_stmt_t *stmt)
{
  db_conn_t *con = stmt->con;
  my_conn_t *mc = con->ptr;
  if (cfg.dry_run)
  {
    stmt->emulated = true;
    return 0;
  }
  my_stmt_t *ms = calloc(1, sizeof(*ms));
  if (ms == NULL)
    return 1;
  ms->stmt = mysql_stmt_init(mc->mysql);
  if (ms->stmt == NULL)
  {
    mydrv_set_error(con, mysql_errno(mc->mysql), mysql_sqlstate(mc->mysql),
              mysql_error(mc->mysql), "mysql_stmt_init", stmt->query, stmt->query_len);
    free(ms);
    return 1;
  }
  if (mysql_stmt_prepare(ms->stmt, stmt->query, (unsigned long) stmt->query_len) != 0)
  {
    unsigned e = mysql_stmt_errno(ms->stmt);
    if (e == ER_UNSUPPORTED_PS_CODE)
    {
      /* The server cannot prepare this one: emulate it client-side. */
      mysql_stmt_close(ms->stmt);
      free(ms);
      stmt->emulated = true;
      return 0;
    }
    mydrv_set_error(con, e, mysql_stmt_sqlstate(ms->stmt), mysql_stmt_error(ms->stmt),
              "mysql_stmt_prepare", stmt->query, stmt->query_len);
    mysql_stmt_close(ms->stmt);
    free(ms);
    return 1;
  }
  my_bool update_max = 1;
  mysql_stmt_attr_set(ms->stmt, STMT_ATTR_UPDATE_MAX_LENGTH, &update_max);
  ms->nparams = mysql_stmt_param_count(ms->stmt);
  if (ms->nparams > 0)
  {
    ms->params = calloc(ms->nparams, sizeof(MYSQL_BIND));
    ms->param_len = calloc(ms->nparams, sizeof(unsigned long));
    ms->param_null = calloc(ms->nparams, sizeof(my_bool));
  }
  stmt->ptr = ms;
  return 0;
}

static enum enum_field_types bind_field_type(db_bind_type_t t)
{
  switch (t)
  {
  case DB_TYPE_TINYINT:
  case DB_TYPE_SMALLINT:
  case DB_TYPE_INT:
  case DB_TYPE_BIGINT: return MYSQL_TYPE_LONGLONG;
  case DB_TYPE_FLOAT:
  case DB_TYPE_DOUBLE: return MYSQL_TYPE_DOUBLE;
  default: return MYSQL_TYPE_STRING;
  }
}

/* Points the MYSQL_BINDs at the generic layer's parameter buffers. The
   buffers do not move, so binding is redone only when it must be. */
int mydrv_bind_params(db_stmt_t *stmt, my_stmt_t *ms)
{
  unsigned n = stmt->norder < ms->nparams ? stmt->norder : ms->nparams;
  if (ms->params_bound && ms->bound_gen == stmt->order_gen)
  {
    /* Buffers are where they were bound: refresh lengths and NULL flags. */
    for (unsigned k = 0; k < n; k++)
    {
      const db_bind_t *b = &stmt->binds[stmt->order[k]];
      ms->param_null[k] = b->is_null;
      ms->param_len[k] = b->len;
    }
    return 0;
  }
  for (unsigned k = 0; k < n; k++)
  {
    db_bind_t *b = &stmt->binds[stmt->order[k]];
    MYSQL_BIND *mb = &ms->params[k];
    mb->buffer_type = bind_field_type(b->type);
    ms->param_null[k] = b->is_null;
    mb->is_null = &ms->param_null[k];
    switch (mb->buffer_type)
    {
    case MYSQL_TYPE_LONGLONG:
      mb->buffer = &b->i;
      break;
    case MYSQL_TYPE_DOUBLE:
      mb->buffer = &b->d;
      break;
    default:
      mb->buffer = b->buf;
      ms->param_len[k] = b->len;
      mb->length = &ms->param_len[k];
      mb->buffer_length = b->max_len;
      break;
    }
  }
  if (ms->nparams > 0 && mysql_stmt_bind_param(ms->stmt, ms->params) != 0)
    return 1;
  ms->params_bound = true;
  ms->bound_gen = stmt->order_gen;
  return 0;
}

/* Binds every result column as text, sized from the stored max_length. */
static int bind_results(my_stmt_t *ms, MYSQL_RES *meta)
{
  unsigned n = mysql_num_fields(meta);
  if (n != ms->nresults)
  {
    for (unsigned i = 0; i < ms->nresults; i++)
      free(ms->res_buf[i]);
    free(ms->res_buf);
    free(ms->res_len);
    free(ms->res_null);
    free(ms->res_cap);
    free(ms->results);
    ms->nresults = n;
    ms->results = calloc(n, sizeof(MYSQL_BIND));
    ms->res_buf = calloc(n, sizeof(char *));
    ms->res_len = calloc(n, sizeof(unsigned long));
    ms->res_null = calloc(n, sizeof(my_bool));
    ms->res_cap = calloc(n, sizeof(unsigned long));
  }
  MYSQL_FIELD *fields = mysql_fetch_fields(meta);
  for (unsigned i = 0; i < n; i++)
  {
    unsigned long need = fields[i].max_length + 1;
    if (need < 64)
      need = 64;
    if (ms->res_cap[i] < need)
    {
      free(ms->res_buf[i]);
      ms->res_buf[i] = malloc(need);
      ms->res_cap[i] = need;
    }
    MYSQL_BIND *mb = &ms->results[i];
    memset(mb, 0, sizeof(*mb));
    mb->buffer_type = MYSQL_TYPE_STRING;
    mb->buffer = ms->res_buf[i];
    mb->buffer_length = ms->res_cap[i];
    mb->length = &ms->res_len[i];
    mb->is_null = &ms->res_null[i];
  }
  return mysql_stmt_bind_result(ms->stmt, ms->results) ? 1 : 0;
}

int mydrv_stmt_failed(db_conn_t *con, my_stmt_t *ms, const char *api)
{
  mydrv_set_error(con, mysql_stmt_errno(ms->stmt), mysql_stmt_sqlstate(ms->stmt),
            mysql_stmt_error(ms->stmt), api, NULL, 0);
  return 1;
}

static int my_execute(db_stmt_t *stmt, db_result_t *rs)
{
  db_conn_t *con = stmt->con;
  my_stmt_t *ms = stmt->ptr;
  if (cfg.dry_run || ms == NULL)
  {
    rs->counter = SB_CNT_OTHER;
    return 0;
  }
  if (mydrv_bind_params(stmt, ms) != 0)
    return mydrv_stmt_failed(con, ms, "mysql_stmt_bind_param");
  if (mysql_stmt_execute(ms->stmt) != 0)
    return mydrv_stmt_failed(con, ms, "mysql_stmt_execute");

  return mydrv_stmt_result(stmt, rs, false);
}

int mydrv_stmt_result(db_stmt_t *stmt, db_result_t *rs, bool stored)
{
  db_conn_t *con = stmt->con;
  my_stmt_t *ms = stmt->ptr;
  rs->stmt = stmt;
  if (mysql_stmt_field_count(ms->stmt) > 0)
  {
    if (!stored && mysql_stmt_store_result(ms->stmt) != 0)
      return mydrv_stmt_failed(con, ms, "mysql_stmt_store_result");
    ms->results_bound = false;
    rs->counter = SB_CNT_READ;
    rs->nrows = mysql_stmt_num_rows(ms->stmt);
    rs->nfields = mysql_stmt_field_count(ms->stmt);
  }
  else
  {
    mydrv_no_result_set(rs, mysql_stmt_affected_rows(ms->stmt));
  }
  return 0;
}

static void my_close(db_stmt_t *stmt)
{
  my_stmt_t *ms = stmt->ptr;
  if (ms == NULL)
    return;
  if (ms->stmt)
    mysql_stmt_close(ms->stmt);
  free_stmt_bindings(ms);
  free(ms);
  stmt->ptr = NULL;
}

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
    .prepare = my_prepare,
    .execute = my_execute,
    .close = my_close,
    .fetch_row = my_fetch_row,
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
#endif
  },
};
