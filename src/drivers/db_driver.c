/* The generic SQL layer: the driver registry, the generic options, driver
   initialisation, per-thread client setup and the endpoint cursor; see
   db_driver.h. Connections are in db_conn.c, text queries, results and
   pipelining in db_query.c, statements in db_stmt.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/db_driver.h"
#include "core/sb_logger.h"
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

static const char *application_name;

void db_set_application_name(const char *name)
{
  application_name = name;
}

const char *db_application_name(void)
{
  return application_name;
}

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

/* bmk: how long to wait for the server (docs/reliability.md "Timeouts") */
static const sb_option_t db_ext_options[] = {
  { "db-connect-timeout", "seconds a new connection (TCP connect, TLS, login) may take "
    "before it fails with a timeout error naming the server; 0 = no limit",
    "30", SB_ARG_TYPE_INT },
  { "db-query-timeout", "seconds a statement may wait for the server's answer; then it "
    "fails with a timeout error (ignorable as 'timeout' or 'lost' in "
    "--mysql-ignore-errors / --pgsql-ignore-errors, and then its connection is "
    "opened again) and is counted in the timeouts; 0 = no limit", "0", SB_ARG_TYPE_INT },
  { NULL, NULL, NULL, 0 }
};

static pthread_mutex_t init_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool initialised[8];
static bool init_failed[8];
static int driver_used;
static db_driver_t *last_driver;
static bool ps_disabled;
static bool debug_on;
static _Thread_local bool thread_ready[8];
static unsigned connect_timeout_s, query_timeout_s;

const db_driver_t *const *db_drivers(void)
{
  return drivers;
}

int db_register_options(void)
{
  int rc = sb_opt_register_table(db_general_options, SB_GROUP_DB, NULL);
  if (sb_opt_register_table(db_ext_options, SB_GROUP_EXT_GENERAL, NULL))
    rc = -1;
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

unsigned db_connect_timeout_s(void)
{
  return __atomic_load_n(&connect_timeout_s, __ATOMIC_RELAXED);
}

unsigned db_query_timeout_s(void)
{
  return __atomic_load_n(&query_timeout_s, __ATOMIC_RELAXED);
}

/* --db-connect-timeout / --db-query-timeout: whole seconds, 0 = none (the
   client libraries take whole seconds). False with a FATAL line when bad. */
static bool read_timeouts(void)
{
  static const char *const names[] = { "db-connect-timeout", "db-query-timeout" };
  unsigned *dst[] = { &connect_timeout_s, &query_timeout_s };
  for (unsigned i = 0; i < 2; i++)
  {
    int v = sb_opt_int(names[i]);
    if (v < 0 || v > 86400)
    {
      log_text(LOG_FATAL, "Invalid value for --%s: %d (whole seconds from 0 to 86400; "
               "0 = no limit)", names[i], v);
      return false;
    }
    __atomic_store_n(dst[i], (unsigned) v, __ATOMIC_RELAXED);
  }
  return true;
}

/* --NAME's comma list of TCP ports: each item 1..65535. False with a FATAL
   line when one is not (the client libraries would take 99999 modulo
   65536, or a word as 0, and then report a connect failure elsewhere). */
static bool ports_ok(const char *name)
{
  unsigned n = 0;
  char **items = sb_opt_list(name, &n);
  for (unsigned i = 0; i < n; i++)
  {
    const char *v = items[i] ? items[i] : "";
    char *end = NULL;
    long port = strtol(v, &end, 10);
    if (*v < '0' || *v > '9' || *end != '\0' || port < 1 || port > 65535)
    {
      log_text(LOG_FATAL, "Invalid value for --%s: '%s' (a TCP port from 1 to 65535%s)",
               name, v, n > 1 ? ", or a comma list of them" : "");
      return false;
    }
  }
  return true;
}

int db_check_options(void)
{
  if (!read_timeouts())
    return 1;
  for (unsigned i = 0; drivers[i]; i++)
    if (drivers[i]->port_option && !ports_ok(drivers[i]->port_option))
      return 1;
  return 0;
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
    if (!read_timeouts())
      init_failed[idx] = true;
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

/* ---- per-thread client setup --------------------------------------------------- */

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
