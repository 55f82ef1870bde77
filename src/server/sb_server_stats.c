/* Server-side counters around the run; see sb_server_stats.h. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/db_driver.h"
#include "core/sb_endpoints.h"
#include "core/sb_figure.h"
#include "core/sb_logger.h"
#include "endpoints/sb_endpoint_probe.h"
#include "endpoints/sb_endpoint_stats.h"
#include "server/sb_server_stats.h"
#include "core/sb_timer.h"

static sb_srv_stats_t st;
static db_conn_t *con;
static bool is_pg;
static long pg_version_num;
static uint64_t t_start_ns;
static uint64_t start_vals[SB_SRV_NCOUNTERS];
static uint64_t end_vals[SB_SRV_NCOUNTERS];
static bool have_end;
static sb_counters_t client_start;
/* The sampler's connection is used by the main thread (begin, end, close)
   and by report hooks on the reporter thread (sb_server_stats_xacts). */
static pthread_mutex_t con_mtx = PTHREAD_MUTEX_INITIALIZER;

/* Server counter names per driver, in sb_srv_counter_t order (NULL = the
   server has no such counter). */
static const char *const my_names[SB_SRV_NCOUNTERS] = {
  "Com_commit", "Com_rollback", "Questions", "Innodb_rows_read", NULL,
  "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted", NULL,
  "Innodb_os_log_written", "Innodb_log_writes", "Innodb_os_log_fsyncs", NULL, NULL,
  "Innodb_data_written", "Innodb_data_writes"
};
/* MariaDB 10.5+ has no Innodb_rows_*; the handler counters stand in. */
static const char *const my_alt_names[SB_SRV_NCOUNTERS] = {
  NULL, NULL, NULL, "Rows_read", NULL, "Handler_write", "Handler_update", "Handler_delete"
};
/* The names pg_sql() gives its rows; the data-write names depend on the
   version (set_pg_data_names). */
static const char *pg_names[SB_SRV_NCOUNTERS] = {
  "xact_commit", "xact_rollback", NULL, "tup_returned", "tup_fetched",
  "tup_inserted", "tup_updated", "tup_deleted", "autovacuum_runs",
  "wal_bytes", "wal_write", "wal_sync", "wal_write_time_us", "wal_sync_time_us",
  NULL, NULL, "xact_all"
};

static const char MY_STATUS_SQL[] =
  "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit','Com_rollback',"
  "'Questions','Innodb_rows_read','Innodb_rows_inserted',"
  "'Innodb_rows_updated','Innodb_rows_deleted','Rows_read','Handler_write',"
  "'Handler_update','Handler_delete','Innodb_os_log_written','Innodb_log_writes',"
  "'Innodb_os_log_fsyncs','Innodb_data_written','Innodb_data_writes')";
static const char PG_DB_SQL[] =
  "SELECT v.name, v.value FROM pg_stat_database d, LATERAL (VALUES "
  "('xact_commit', d.xact_commit), ('xact_rollback', d.xact_rollback), "
  "('tup_returned', d.tup_returned), ('tup_fetched', d.tup_fetched), "
  "('tup_inserted', d.tup_inserted), ('tup_updated', d.tup_updated), "
  "('tup_deleted', d.tup_deleted)) AS v(name, value) "
  "WHERE d.datname = current_database() "
  "UNION ALL SELECT 'autovacuum_runs', COALESCE(sum(autovacuum_count + autoanalyze_count), 0) "
  "FROM pg_stat_all_tables "
  "UNION ALL SELECT 'xact_all', COALESCE(sum(xact_commit + xact_rollback), 0) "
  "FROM pg_stat_database";
/* PostgreSQL 14+: cluster-wide WAL counters; times in ms -> us */
static const char PG_WAL_SQL[] =
  " UNION ALL SELECT v.name, v.value FROM pg_stat_wal w, LATERAL (VALUES "
  "('wal_bytes', w.wal_bytes::bigint), ('wal_write', w.wal_write), "
  "('wal_sync', w.wal_sync), ('wal_write_time_us', (w.wal_write_time * 1000)::bigint), "
  "('wal_sync_time_us', (w.wal_sync_time * 1000)::bigint)) AS v(name, value)";
/* Data-file writes: pg_stat_io (16+; op_bytes until 17, write_bytes from
   18), else the shared buffers written by the checkpointer, the
   background writer and backends (pg_stat_bgwriter, 8 KiB blocks). */
static const char PG_IO17_SQL[] =
  " UNION ALL SELECT 'io_writes', COALESCE(sum(writes), 0)::bigint FROM pg_stat_io"
  " UNION ALL SELECT 'io_write_bytes', COALESCE(sum(writes * op_bytes), 0)::bigint FROM pg_stat_io";
static const char PG_IO18_SQL[] =
  " UNION ALL SELECT 'io_writes', COALESCE(sum(writes), 0)::bigint FROM pg_stat_io"
  " UNION ALL SELECT 'io_write_bytes', COALESCE(sum(write_bytes), 0)::bigint FROM pg_stat_io";
static const char PG_BGW_SQL[] =
  " UNION ALL SELECT 'buffers_written', (buffers_checkpoint + buffers_clean + buffers_backend)"
  " FROM pg_stat_bgwriter"
  " UNION ALL SELECT 'buffers_written_bytes', (buffers_checkpoint + buffers_clean + "
  "buffers_backend) * current_setting('block_size')::bigint FROM pg_stat_bgwriter";
static char pg_status_sql[sizeof(PG_DB_SQL) + sizeof(PG_WAL_SQL) + sizeof(PG_BGW_SQL) + 64];

static const char MY_SETTINGS_SQL[] =
  "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('version_comment',"
  "'innodb_buffer_pool_size','innodb_flush_log_at_trx_commit','sync_binlog',"
  "'log_bin','innodb_log_file_size','innodb_doublewrite','max_connections',"
  "'transaction_isolation','tx_isolation','innodb_flush_method')";
static const char PG_SETTINGS_SQL[] =
  "SELECT name, setting || COALESCE(' ' || unit, '') FROM pg_settings WHERE name IN "
  "('shared_buffers','effective_cache_size','synchronous_commit','fsync',"
  "'full_page_writes','wal_level','max_connections','work_mem',"
  "'default_transaction_isolation','max_wal_size')";

bool sb_server_stats_active(void)
{
  return con != NULL;
}

const sb_srv_stats_t *sb_server_stats(void)
{
  return &st;
}

/* Runs `sql` and hands each (name, value) row to `row`. Returns 0, or -1
   when the query failed (the reason is in the connection's error). */
static int query_pairs(const char *sql, void (*row)(const char *, const char *))
{
  if (con == NULL)
    return -1;
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
    return -1;
  db_row_t *r;
  while ((r = db_fetch_row(rs)) != NULL)
  {
    size_t l1 = 0, l2 = 0;
    const char *a = db_row_value(r, rs, 0, &l1);
    const char *b = db_row_value(r, rs, 1, &l2);
    char name[128], value[256];
    snprintf(name, sizeof(name), "%.*s", (int) l1, a ? a : "");
    snprintf(value, sizeof(value), "%.*s", (int) l2, b ? b : "");
    row(name, value);
  }
  db_free_results(rs);
  return 0;
}

/* The server's incarnation, to tell a restart: MySQL's start time (now -
   Uptime, in seconds), PostgreSQL's shared statistics reset time (a crash
   restart resets it; a clean restart keeps the counters and this). */
static char start_epoch[64], epoch_buf[64];
static double epoch_age_s;       /* seconds since that moment */

static void store_epoch(const char *name, const char *value)
{
  epoch_age_s = atof(value);
  if (is_pg)
    snprintf(epoch_buf, sizeof(epoch_buf), "%s", name);
  else
    snprintf(epoch_buf, sizeof(epoch_buf), "%lld", (long long) time(NULL) - atoll(value));
}

static void read_epoch(char *out, size_t len)
{
  epoch_buf[0] = '\0';
  epoch_age_s = 0;
  if (query_pairs(is_pg ? "SELECT coalesce(stats_reset::text, 'never'), "
                          "coalesce(extract(epoch FROM now() - stats_reset), 0) FROM pg_stat_bgwriter"
                        : "SHOW GLOBAL STATUS WHERE Variable_name = 'Uptime'", store_epoch) != 0)
    db_clear_error(con);
  snprintf(out, len, "%s", epoch_buf);
}

/* True when both incarnations are known and differ (MySQL: by more than
   the 2 s that two readings of "now - Uptime" can differ by). */
static bool epoch_changed(const char *a, const char *b)
{
  if (*a == '\0' || *b == '\0')
    return false;
  if (is_pg)
    return strcmp(a, b) != 0;
  return llabs(atoll(a) - atoll(b)) > 2;
}

static uint64_t *sample_target;
static bool found_primary[SB_SRV_NCOUNTERS];
static bool found_alt[SB_SRV_NCOUNTERS];
static uint64_t alt_vals[SB_SRV_NCOUNTERS];

static void store_counter(const char *name, const char *value)
{
  const char *const *names = is_pg ? pg_names : my_names;
  for (int i = 0; i < SB_SRV_NCOUNTERS; i++)
  {
    if (names[i] && strcasecmp(names[i], name) == 0)
    {
      sample_target[i] = strtoull(value, NULL, 10);
      found_primary[i] = true;
    }
    if (!is_pg && my_alt_names[i] && strcasecmp(my_alt_names[i], name) == 0)
    {
      alt_vals[i] = strtoull(value, NULL, 10);
      found_alt[i] = true;
    }
  }
}

/* The PostgreSQL status query for this server version (pg_version_num
   known): database counters, WAL (14+), data-file writes. */
static const char *pg_sql(void)
{
  snprintf(pg_status_sql, sizeof(pg_status_sql), "%s%s%s", PG_DB_SQL,
           pg_version_num >= 140000 ? PG_WAL_SQL : "",
           pg_version_num >= 180000 ? PG_IO18_SQL
           : pg_version_num >= 160000 ? PG_IO17_SQL : PG_BGW_SQL);
  bool io = pg_version_num >= 160000;
  pg_names[SB_SRV_DATA_WRITES] = io ? "io_writes" : "buffers_written";
  pg_names[SB_SRV_DATA_BYTES] = io ? "io_write_bytes" : "buffers_written_bytes";
  return pg_status_sql;
}

static void store_setting(const char *name, const char *value)
{
  if (st.nsettings >= SB_SRV_MAX_SETTINGS)
    return;
  snprintf(st.setting_name[st.nsettings], sizeof(st.setting_name[0]), "%s", name);
  snprintf(st.setting_value[st.nsettings], sizeof(st.setting_value[0]), "%s", value);
  st.nsettings++;
}

static void store_version(const char *name, const char *value)
{
  (void) name;
  snprintf(st.version, sizeof(st.version), "%s", value);
}

static void warn_failed(const char *what)
{
  log_text(LOG_WARNING, "server statistics: cannot %s: %s (use --db-server-stats=off "
           "to skip this); the client's results are not affected", what,
           db_conn_sql_errmsg(con) ? db_conn_sql_errmsg(con) : "unknown error");
}

/* Reads the counters into vals; `first`: the start sample, which decides
   which counters this server has (st.has, st.counter_source). */
static int sample(uint64_t *vals, bool first)
{
  memset(vals, 0, sizeof(uint64_t) * SB_SRV_NCOUNTERS);
  memset(found_primary, 0, sizeof(found_primary));
  memset(found_alt, 0, sizeof(found_alt));
  memset(alt_vals, 0, sizeof(alt_vals));
  sample_target = vals;
  int rc = query_pairs(is_pg ? pg_status_sql : MY_STATUS_SQL, store_counter);
  for (int i = 0; rc == 0 && i < SB_SRV_NCOUNTERS; i++)
  {
    bool alt = !found_primary[i] && found_alt[i];
    if (alt)
      vals[i] = alt_vals[i];
    if (first)
    {
      st.has[i] = found_primary[i] || alt;
      st.counter_source[i] = alt ? my_alt_names[i] : is_pg ? pg_names[i] : my_names[i];
    }
  }
  if (first && st.wal_timing == 0)
    st.has[SB_SRV_REDO_WRITE_US] = st.has[SB_SRV_REDO_SYNC_US] = false;
  return rc;
}

/* The scan matters: a backend with no table statistics pending skips its
   report even when forced, keeping its transaction counts (this request's
   commit included) for later. Reading a catalog row makes it report. */
#define FLUSH_SQL "SELECT pg_stat_force_next_flush() FROM pg_catalog.pg_namespace LIMIT 1"

static void force_flush(db_conn_t *c, void *arg)
{
  unsigned *n = arg;
  if (c == con || strcmp(db_driver_name((db_driver_t *) c->driver), "pgsql") != 0)
    return;
  /* (with --endpoints, only a request on this sampler's server is one of
     its transactions; the others count as bmk's own on their endpoint) */
  bool mine = c->endpoint == con->endpoint;
  static const char sql[] = FLUSH_SQL;
  /* Not the client's query: counted nowhere (the owner is parked). */
  int owner = c->thread_id;
  c->thread_id = SB_TID_UNCOUNTED;
  db_result_t *rs = db_query(c, sql, sizeof(sql) - 1);
  if (rs)
  {
    db_free_results(rs);
    *n += mine;
  }
  else
    db_clear_error(c);
  c->thread_id = owner;
}

/* The replica lag sampler is held (sb_endpoint_probe_hold) at this edge. */
static bool lag_held;

static void set_version_num(const char *name, const char *value)
{
  (void) name;
  pg_version_num = atol(value);
}

/* A PostgreSQL backend reports its statistics when it goes idle, but at
   most once a second, otherwise 10 s later: the transactions the workers
   made in thread_init (statement preparation) would land in the window.
   PostgreSQL 15+ can be told to report at the next idle moment, which is
   before the reply reaches us, so ask every worker connection (the workers
   are parked at the start and end lines) and the sampler itself. Each
   request is a transaction of its own that is reported with the rest;
   returns how many were made. */
static unsigned flush_backend_stats(void)
{
  unsigned n = 0;
  if (pg_version_num < 150000)
    return 0;
  db_each_connection(force_flush, &n);
  if (lag_held)
    sb_endpoint_probe_each_con(force_flush, &n);
  static const char sql[] = FLUSH_SQL;
  db_result_t *rs = db_query(con, sql, sizeof(sql) - 1);
  if (rs)
    db_free_results(rs);
  return n;
}

static int pg_read_snapshot(uint64_t *vals, bool first)
{
  db_result_t *rs = db_query(con, "SELECT pg_stat_clear_snapshot()", 31);
  if (rs == NULL)
    return -1;
  db_free_results(rs);
  return sample(vals, first);
}

static void set_wal_timing(const char *name, const char *value)
{
  (void) name;
  st.wal_timing = strcmp(value, "on") == 0 ? 1 : 0;
}

static void begin_locked(bool enabled);

void sb_server_stats_begin(bool enabled)
{
  pthread_mutex_lock(&con_mtx);
  begin_locked(enabled);
  pthread_mutex_unlock(&con_mtx);
}

static void close_locked(void);

/* A connection of the sampler: its statements must not count as the
   client's, and a failed connect is not fatal here, so the driver must
   not say FATAL. NULL when it cannot connect. */
static db_conn_t *open_sampler(db_driver_t *drv)
{
  int saved_tid = sb_tls_tid;
  sb_tls_tid = SB_TID_UNCOUNTED;
  db_quiet_connect_errors(1);
  db_conn_t *c = db_connection_create(drv);
  db_quiet_connect_errors(0);
  sb_tls_tid = saved_tid;
  return c;
}

static void begin_locked(bool enabled)
{
  memset(&st, 0, sizeof(st));
  have_end = false;
  db_driver_t *drv = db_last_driver();
  if (!enabled || drv == NULL)
    return;
  is_pg = strcmp(db_driver_name(drv), "pgsql") == 0;
  snprintf(st.driver, sizeof(st.driver), "%s", db_driver_name(drv));
  st.wal_timing = -1;
  con = open_sampler(drv);
  if (con == NULL)
  {
    /* one line: libpq's messages span several */
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", db_last_connect_errmsg());
    for (char *c = msg; *c; c++)
      if (*c == '\n' || *c == '\t')
        *c = ' ';
    log_text(LOG_WARNING, "server statistics: cannot connect: %s; the run goes on "
             "without them (--db-server-stats=off skips this)", msg);
    return;
  }
  const char *vsql = is_pg ? "SELECT 'v', version()" : "SELECT 'v', VERSION()";
  if (query_pairs(vsql, store_version) == 0 &&
      query_pairs(is_pg ? PG_SETTINGS_SQL : MY_SETTINGS_SQL, store_setting) == 0)
    st.have_info = true;
  else
    warn_failed("read the server version and settings");
  read_epoch(start_epoch, sizeof(start_epoch));
  int rc;
  if (is_pg)
  {
    /* The sampler's own reads happen in one transaction that stays open
       (idle, no snapshot held under READ COMMITTED) until the end sample,
       so it never counts in the window. */
    query_pairs("SELECT 'v', current_setting('server_version_num')", set_version_num);
    if (pg_version_num >= 140000)
      query_pairs("SELECT 'v', current_setting('track_wal_io_timing')", set_wal_timing);
    pg_sql();
  }
  /* --endpoints: each endpoint's server too, sampled at this moment */
  sb_endpoint_stats_open(drv);
  lag_held = sb_endpoint_probe_hold(true);
  if (is_pg)
  {
    flush_backend_stats();
    rc = db_query(con, "BEGIN", 5) ? pg_read_snapshot(start_vals, true) : -1;
  }
  else
    rc = sample(start_vals, true);
  if (rc == 0)
    sb_endpoint_stats_sample(true);
  if (lag_held)
    sb_endpoint_probe_hold(false);
  lag_held = false;
  if (rc != 0)
  {
    warn_failed(is_pg ? "read pg_stat_database" : "read SHOW GLOBAL STATUS");
    close_locked();
    return;
  }
  sb_counters_snapshot(&client_start);
  t_start_ns = sb_now_ns();
}

static void end_locked(void);

/* The end sample failed on a lost connection (the server restarted or the
   connection was killed): opens a new one and takes the end sample on it.
   0 when it worked. */
static int resample_on_new_connection(void)
{
  db_driver_t *drv = (db_driver_t *) con->driver;
  close_locked();
  con = open_sampler(drv);
  if (con == NULL)
  {
    log_text(LOG_WARNING, "server statistics: the sampler's connection was lost during the "
             "run and cannot be opened again: %s; no server-side statistics",
             db_last_connect_errmsg());
    return -1;
  }
  st.reconnected = true;
  return is_pg ? pg_read_snapshot(end_vals, false) : sample(end_vals, false);
}

void sb_server_stats_end(void)
{
  pthread_mutex_lock(&con_mtx);
  end_locked();
  pthread_mutex_unlock(&con_mtx);
}

/* The window's counters as figures of the run (core/sb_figure.h: the
   --metrics-listen gauges bmk_server_*, summary.figures in --results):
   the ones the server reported. */
static void publish_figures(void)
{
  static const struct { int counter; const char *name, *what; } figs[] = {
    { SB_SRV_COMMITS, "server_commits", "Commits" },
    { SB_SRV_ROLLBACKS, "server_rollbacks", "Rollbacks" },
    { SB_SRV_QUERIES, "server_queries", "Statements (Questions)" },
    { SB_SRV_ROWS_READ, "server_rows_read", "Rows read" },
    { SB_SRV_ROWS_INSERTED, "server_rows_inserted", "Rows inserted" },
    { SB_SRV_ROWS_UPDATED, "server_rows_updated", "Rows updated" },
    { SB_SRV_ROWS_DELETED, "server_rows_deleted", "Rows deleted" },
  };
  for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++)
  {
    int c = figs[i].counter;
    if (!st.has[c])
      continue;
    char help[SB_FIGURE_HELP_MAX];
    snprintf(help, sizeof(help), "%s the server counted in the measured window (%s, "
             "--db-server-stats)", figs[i].what, st.counter_source[c] ? st.counter_source[c]
             : is_pg ? "pg_stat_database" : "SHOW GLOBAL STATUS");
    sb_figure_set(figs[i].name, help, SB_FIGURE_SERVER, (double) st.delta[c]);
  }
}

static void end_locked(void)
{
  if (con == NULL)
    return;
  sb_counters_t client_end;
  sb_counters_snapshot(&client_end);
  uint64_t t_end_ns = sb_now_ns();
  unsigned own = 0;
  int rc;
  lag_held = sb_endpoint_probe_hold(true);
  if (is_pg)
  {
    own = flush_backend_stats();
    /* (before the COMMIT: the sampler's transaction stays out of both) */
    sb_endpoint_stats_sample(false);
    rc = pg_read_snapshot(end_vals, false);
    db_query(con, "COMMIT", 6);
  }
  else
  {
    rc = sample(end_vals, false);
    sb_endpoint_stats_sample(false);
  }
  if (lag_held)
    sb_endpoint_probe_hold(false);
  lag_held = false;
  if (rc != 0 && con != NULL && con->lost)
    rc = resample_on_new_connection();
  if (rc != 0)
  {
    if (con != NULL)
      warn_failed("read the server counters at the end of the run");
    return;
  }
  have_end = true;
  /* Did the server restart in the window? Its incarnation changed (read
     after the end sample, so not counted in it), or Questions /
     xact_commit, which only grow while it runs, went back. The sampler's
     connection may have been rebuilt in place (lost connections
     ignored), so this does not rely on its own failure. */
  char now_epoch[64];
  read_epoch(now_epoch, sizeof(now_epoch));
  int probe = is_pg ? SB_SRV_COMMITS : SB_SRV_QUERIES;
  st.counters_restarted = epoch_changed(start_epoch, now_epoch) ||
    end_vals[probe] < start_vals[probe];
  st.since_restart_s = st.counters_restarted ? epoch_age_s : 0;
  if (st.counters_restarted)
    st.reconnected = true;
  for (int i = 0; i < SB_SRV_NCOUNTERS; i++)
    st.delta[i] = st.counters_restarted ? end_vals[i]
      : end_vals[i] >= start_vals[i] ? end_vals[i] - start_vals[i] : 0;
  /* MySQL counts the end sample's SHOW in Questions; on PostgreSQL the
     end-line report requests are commits of their own. */
  if (!is_pg && st.delta[SB_SRV_QUERIES] > 0)
    st.delta[SB_SRV_QUERIES]--;
  st.delta[SB_SRV_COMMITS] -= own < st.delta[SB_SRV_COMMITS] ? own : st.delta[SB_SRV_COMMITS];
  for (int i = 0; i < SB_CNT_MAX; i++)
    st.client.v[i] = client_end.v[i] - client_start.v[i];
  st.client_statements = st.client.v[SB_CNT_READ] + st.client.v[SB_CNT_WRITE] +
                         st.client.v[SB_CNT_OTHER] + st.client.v[SB_CNT_ERROR];
  st.window_s = (double) (t_end_ns - t_start_ns) / 1e9;
  /* the counters cover the time since the restart: rates over that */
  if (st.counters_restarted && st.since_restart_s > 0 && st.since_restart_s < st.window_s)
    st.window_s = st.since_restart_s;
  st.have_delta = true;
  publish_figures();
}

/* Width of the label column: the longest label is
   "redo written (Innodb_os_log_written):" plus the indent. */
#define LABEL_W 46

static void print_line(const char *label, uint64_t server, uint64_t client, bool compare,
                       const char *client_what)
{
  double w = st.window_s > 0 ? st.window_s : 1;
  char head[96];
  snprintf(head, sizeof(head), "    %s:", label);
  printf("%-*s %12" PRIu64 "  (%.2f per sec.)", LABEL_W, head, server, (double) server / w);
  if (compare && !st.counters_restarted)
  {
    double diff = client ? ((double) server - (double) client) * 100.0 / (double) client : 0;
    printf("  client %s: %" PRIu64 "  diff: %+.3f%%", client_what, client, diff);
  }
  printf("\n");
}

/* A write-side line: the count and its rate (MiB/s for `bytes`), and the
   average time per operation when `time_counter` (us) is given (>= 0)
   and the server has it. */
static void print_write_line(const char *what, int counter, bool bytes, int time_counter)
{
  if (!st.has[counter])
    return;
  double w = st.window_s > 0 ? st.window_s : 1;
  uint64_t v = st.delta[counter];
  char head[96];
  snprintf(head, sizeof(head), "    %s (%s):", what, st.counter_source[counter]);
  if (bytes)
    printf("%-*s %12" PRIu64 "  (%.2f MiB/s)", LABEL_W, head, v, (double) v / w / 1048576.0);
  else
    printf("%-*s %12" PRIu64 "  (%.2f per sec.)", LABEL_W, head, v, (double) v / w);
  if (time_counter >= 0 && st.has[time_counter])
    printf("  avg %.3f ms (%s)", v ? (double) st.delta[time_counter] / 1000.0 / (double) v : 0.0,
           st.counter_source[time_counter]);
  printf("\n");
}

/* Redo / WAL and data-file writes (load tests). */
static void print_writes(void)
{
  const char *redo = is_pg ? "WAL" : "redo";
  char what[32];
  snprintf(what, sizeof(what), "%s written", redo);
  print_write_line(what, SB_SRV_REDO_BYTES, true, -1);
  snprintf(what, sizeof(what), "%s writes", redo);
  print_write_line(what, SB_SRV_REDO_WRITES, false, SB_SRV_REDO_WRITE_US);
  snprintf(what, sizeof(what), "%s syncs", redo);
  print_write_line(what, SB_SRV_REDO_SYNCS, false, SB_SRV_REDO_SYNC_US);
  if (st.wal_timing == 0)
    printf("    (track_wal_io_timing is off: no WAL write/sync times; ALTER SYSTEM SET "
           "track_wal_io_timing = on; SELECT pg_reload_conf(); turns it on)\n");
  print_write_line("data written", SB_SRV_DATA_BYTES, true, -1);
  print_write_line("data writes", SB_SRV_DATA_WRITES, false, -1);
}

void sb_server_stats_print(void)
{
  if (!st.have_delta)
    return;
  const uint64_t *d = st.delta;

  log_lock();
  printf("Server-side statistics (%s, %.2fs from the %s):\n",
         is_pg ? "pg_stat_database" : "SHOW GLOBAL STATUS", st.window_s,
         st.counters_restarted ? "server's restart during the run to the end of the workers"
                               : "start of the workers to their end");
  if (st.counters_restarted)
    printf("    (the server restarted during the run and its counters started again from 0: "
           "the figures below count from the restart to the end, without the client's "
           "figures beside them; the sampler reconnected)\n");
  else if (st.reconnected)
    printf("    (the sampler's connection was lost during the run and opened again; the "
           "server's counters did not restart)\n");
  if (sb_endpoints_count() > 1)
    printf("    (--endpoints: this is the default route's server, against all of the client's "
           "statements; each endpoint's own is below)\n");
  /* Every event of a transactional workload ends in one COMMIT; a
     rolled-back attempt is restarted and counted once. */
  print_line(is_pg ? "commits (xact_commit)" : "commits (Com_commit)",
             d[SB_SRV_COMMITS], st.client.v[SB_CNT_EVENT],
             /* autocommit statements are no COMMITs to MySQL */
             is_pg || d[SB_SRV_COMMITS] > 0, "events");
  print_line(is_pg ? "rollbacks (xact_rollback)" : "rollbacks (Com_rollback)",
             d[SB_SRV_ROLLBACKS], 0, false, NULL);
  /* The server's own transactions in this database: autovacuum and
     autoanalyze workers commit too. */
  if (is_pg && d[SB_SRV_AUTOVACUUM] > 0)
    printf("    (autovacuum/autoanalyze ran %" PRIu64 " time(s) in the window; their "
           "commits are included)\n", d[SB_SRV_AUTOVACUUM]);
  if (st.has[SB_SRV_QUERIES])
    print_line("queries (Questions)", d[SB_SRV_QUERIES], st.client_statements, true,
               "statements");
  if (is_pg)
  {
    print_line("rows returned (tup_returned)", d[SB_SRV_ROWS_READ], 0, false, NULL);
    print_line("rows fetched (tup_fetched)", d[SB_SRV_ROWS_FETCHED], 0, false, NULL);
  }
  else
  {
    char label[96];
    snprintf(label, sizeof(label), "rows read (%s)", st.counter_source[SB_SRV_ROWS_READ]);
    print_line(label, d[SB_SRV_ROWS_READ], 0, false, NULL);
  }
  const char *what[3] = { "inserted", "updated", "deleted" };
  for (int i = 0; i < 3; i++)
  {
    char label[96];
    snprintf(label, sizeof(label), "rows %s (%s)", what[i],
             st.counter_source[SB_SRV_ROWS_INSERTED + i]);
    print_line(label, d[SB_SRV_ROWS_INSERTED + i], 0, false, NULL);
  }
  print_writes();
  printf("\n");
  fflush(stdout);
  log_unlock();
  sb_endpoint_stats_print();
}

void sb_server_stats_close(void)
{
  pthread_mutex_lock(&con_mtx);
  sb_endpoint_stats_close();
  close_locked();
  pthread_mutex_unlock(&con_mtx);
}

/* The transaction counter out of a sample. */
static uint64_t xacts_of(const uint64_t *vals, bool all_dbs)
{
  if (is_pg && all_dbs)
    return vals[SB_SRV_XACT_ALL];
  return vals[SB_SRV_COMMITS] + vals[SB_SRV_ROLLBACKS];
}

int sb_server_stats_xacts(int which, bool all_dbs, uint64_t *out)
{
  int rc = -1;
  pthread_mutex_lock(&con_mtx);
  if (which == 1)
  {
    if (have_end)
    {
      *out = xacts_of(end_vals, all_dbs);
      rc = 0;
    }
  }
  else if (con != NULL)
  {
    /* The connection belongs to SB_TID_UNCOUNTED: these reads are not
       the client's statements. */
    uint64_t vals[SB_SRV_NCOUNTERS];
    if ((is_pg ? pg_read_snapshot(vals, false) : sample(vals, false)) == 0)
    {
      *out = xacts_of(vals, all_dbs);
      rc = 0;
    }
    else
      db_clear_error(con);
  }
  pthread_mutex_unlock(&con_mtx);
  return rc;
}

const char *sb_server_stats_version(void)
{
  return st.version;
}

static void close_locked(void)
{
  if (con == NULL)
    return;
  int saved_tid = sb_tls_tid;
  sb_tls_tid = SB_TID_UNCOUNTED;
  /* closes it unless a failed reconnect already did (no ALERT then) */
  db_connection_free(con);
  sb_tls_tid = saved_tid;
  con = NULL;
}
