/* --db-checkpoint; see sb_server_reset.h. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_timer.h"
#include "drivers/db_driver.h"
#include "server/sb_server_reset.h"

#define MY_WAIT_LIMIT_S 300
#define MY_CHECKPOINT_AGE_OK 65536

/* Runs `sql`; the first column of its first row goes to `val` (may be
   NULL). Returns 0, or -1 with the server's message in `err`. */
static int query(db_conn_t *con, const char *sql, char *val, size_t vlen, char *err,
                 size_t errlen)
{
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    snprintf(err, errlen, "%s: %s", sql, db_conn_sql_errmsg(con));
    return -1;
  }
  if (val)
    val[0] = '\0';
  if (db_result_nfields(rs) > 0)
  {
    db_row_t *r;
    while ((r = db_fetch_row(rs)) != NULL)
    {
      size_t l = 0;
      const char *v = db_row_value(r, rs, db_result_nfields(rs) > 1 ? 1 : 0, &l);
      if (val && !val[0])
        snprintf(val, vlen, "%.*s", (int) l, v ? v : "");
    }
    db_free_results(rs);
  }
  return 0;
}

static bool signal_pending(void)
{
  sigset_t p;
  return sigpending(&p) == 0 && (sigismember(&p, SIGINT) || sigismember(&p, SIGTERM));
}

/* Waits for no dirty pages and a caught-up redo checkpoint. 0 done, 1
   timed out, -1 error, -2 signal. */
static int my_wait_clean(db_conn_t *con, char *err, size_t errlen, long *dirty)
{
  uint64_t deadline = sb_now_ns() + (uint64_t) MY_WAIT_LIMIT_S * 1000000000ULL;
  uint64_t next_note = sb_now_ns() + 10 * 1000000000ULL;
  for (;;)
  {
    char d[64], age[64];
    if (query(con, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'", d, sizeof(d),
              err, errlen) != 0 ||
        query(con, "SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'", age, sizeof(age), err,
              errlen) != 0)
      return -1;
    *dirty = atol(d);
    if (*dirty == 0 && (!age[0] || atol(age) <= MY_CHECKPOINT_AGE_OK))
      return 0;
    uint64_t now = sb_now_ns();
    if (now >= deadline)
      return 1;
    if (signal_pending())
      return -2;
    if (now >= next_note)
    {
      log_text(LOG_NOTICE, "=> checkpoint: %ld dirty pages left", *dirty);
      next_note = now + 10 * 1000000000ULL;
    }
    sb_sleep_until_ns(now + 100 * 1000000ULL);
  }
}

static int my_checkpoint(db_conn_t *con, char *err, size_t errlen)
{
  char saved[64];
  if (query(con, "FLUSH TABLES", NULL, 0, err, errlen) != 0 ||
      query(con, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct", saved, sizeof(saved), err,
            errlen) != 0 ||
      query(con, "SET GLOBAL innodb_max_dirty_pages_pct = 0", NULL, 0, err, errlen) != 0)
  {
    snprintf(err + strlen(err), errlen - strlen(err),
             " (needs the RELOAD and SUPER privileges and InnoDB)");
    return -1;
  }
  long dirty = 0;
  int rc = my_wait_clean(con, err, errlen, &dirty);
  char restore[128], ignored[256];
  snprintf(restore, sizeof(restore), "SET GLOBAL innodb_max_dirty_pages_pct = %s", saved);
  if (query(con, restore, NULL, 0, ignored, sizeof(ignored)) != 0)
    log_text(LOG_WARNING, "--db-checkpoint: could not put innodb_max_dirty_pages_pct back "
             "to %s: %s", saved, ignored);
  if (rc == 1)
  {
    log_text(LOG_WARNING, "--db-checkpoint: %ld dirty pages still after %d s (a busy server?); "
             "the run goes on", dirty, MY_WAIT_LIMIT_S);
    return 0;
  }
  if (rc == -2)
    snprintf(err, errlen, "interrupted by a signal while waiting for the flush");
  return rc;
}

int sb_server_checkpoint(void)
{
  db_driver_t *drv = db_last_driver();
  if (drv == NULL)
  {
    log_text(LOG_WARNING, "--db-checkpoint: the workload uses no database; nothing to do");
    return 0;
  }
  bool pg = strcmp(db_driver_name(drv), "pgsql") == 0;
  int saved_tid = sb_tls_tid;
  sb_tls_tid = SB_TID_UNCOUNTED;
  uint64_t t0 = sb_now_ns();
  char err[512] = "";
  int rc = -1;
  db_quiet_connect_errors(1);
  db_conn_t *con = db_connection_create(drv);
  db_quiet_connect_errors(0);
  if (con == NULL)
    snprintf(err, sizeof(err), "cannot connect: %s", db_last_connect_errmsg());
  else
  {
    rc = pg ? query(con, "CHECKPOINT", NULL, 0, err, sizeof(err)) : my_checkpoint(con, err,
                                                                                  sizeof(err));
    if (rc != 0 && pg)
      snprintf(err + strlen(err), sizeof(err) - strlen(err),
               " (needs a superuser or, on PostgreSQL 15+, the pg_checkpoint role)");
    db_connection_close(con);
    db_connection_free(con);
  }
  sb_tls_tid = saved_tid;
  for (char *c = err; *c; c++)
    if (*c == '\n')
      *c = ' ';
  if (rc != 0)
  {
    log_text(LOG_FATAL, "--db-checkpoint: %s", err);
    return -1;
  }
  log_text(LOG_NOTICE, "=> checkpoint: %s done in %.2f s", pg ? "CHECKPOINT"
           : "FLUSH TABLES and InnoDB dirty pages flushed", (double) (sb_now_ns() - t0) / 1e9);
  return 0;
}
