/*
 * The pgbench persona's run on bmk's engine: the setup pgbench 15 does
 * before its clients start (scale from pgbench_branches, the vacuum, the
 * variables, the random seeds), one engine VU per client (a thread
 * each, or -j event loops as pgbench's threads), the transaction as the
 * VU's event (steps on a loop: event_begin / event_resume), -t per
 * client, -T as the engine's time limit, -P progress lines from the engine's intervals, and the
 * final report. See pgb.h.
 *
 * Seeding follows pgbench 15 (its main()): the base generator is seeded
 * with --random-seed (or the clock); then each client's generator from
 * the base's next draw, in client order; :default_seed is the next draw;
 * then each thread (-j) takes three draws: its script chooser, its rate
 * generator and its log sampler.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "commands/pgbench/pgb_additions.h"
#include "commands/pgbench/pgb_bmk_priv.h"
#include "commands/pgbench/pgb_client.h"
#include "commands/pgbench/pgb_log.h"
#include "commands/pgbench/pgb_report.h"
#include "core/sb_cluster.h"
#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_metric.h"
#include "core/sb_output.h"
#include "core/sb_probe.h"
#include "core/sb_rand.h"
#include "core/sb_retry.h"
#include "core/sb_version.h"
#include "engine/sb_engine.h"
#include "engine/sb_loop.h"

static pgb_client_t *clients;
static pgs_prng_t *choose_rs;          /* per thread (-j) */
static pthread_mutex_t *choose_lock;
static pgs_prng_t *sample_rs;          /* per thread: -l --sampling-rate */
/* per thread: -R's generator and schedule (pgbench's throttle_trigger,
   microseconds on pgb_now_us's clock; 0 until its first transaction) */
static pgs_prng_t *throttle_rs;
static int64_t *throttle_trigger;
static int64_t default_seed;
static int64_t start_time_us, bench_start_us;
static int any_aborted;
static int64_t last_report_us;
static pgb_stats_t last_progress;

/* The thread (-j) client `i` belongs to: clients are dealt to threads
   in order, as evenly as pgbench deals them. */
static int thread_of(int i)
{
  int dealt = 0;
  for (int t = 0; t < pgb_cfg.nthreads; t++)
  {
    int n = (pgb_cfg.nclients - dealt + pgb_cfg.nthreads - t - 1) / (pgb_cfg.nthreads - t);
    if (i < dealt + n)
      return t;
    dealt += n;
  }
  return pgb_cfg.nthreads - 1;
}

/* The client engine VU `tid` runs. In thread mode VU i runs client i.
   On event loops (J workers) the engine deals VU tid to worker tid % J
   as its (tid / J)-th VU, and pgbench's thread t runs clients in order
   (thread_of): the worker's VUs take its thread's clients in order, so
   that the clients of one pgbench thread share one loop. The two deals
   give each worker as many as its thread (the first clients % J one
   more). */
static pgb_client_t *client_of(int tid)
{
  if (!pgb_cfg.evloop || pgb_cfg.bmk_face)
    return &clients[tid];
  int j = pgb_cfg.nthreads, t = tid % j, first = 0;
  for (int k = 0; k < t; k++)
    first += (pgb_cfg.nclients - first + j - k - 1) / (j - k);
  return &clients[first + tid / j];
}

static bool set_int_var(pgb_client_t *c, const char *name, int64_t v)
{
  pgs_value_t val = {.type = PGS_INT, .u.i = v};
  return pgb_var_set_value(c, name, &val);
}

static bool has_define(const char *name)
{
  size_t n = strlen(name);
  for (unsigned i = 0; i < pgb_cfg.ndefines; i++)
    if (strncmp(pgb_cfg.defines[i], name, n) == 0 && pgb_cfg.defines[i][n] == '=')
      return true;
  return false;
}

/* Each client's variables: -D, then scale, client_id, default_seed and
   random_seed unless -D set them. */
static bool init_variables(pgb_client_t *c)
{
  for (unsigned i = 0; i < pgb_cfg.ndefines; i++)
  {
    char *d = strdup(pgb_cfg.defines[i]);
    char *eq = d ? strchr(d, '=') : NULL;
    if (eq == NULL)
      return false;
    *eq = '\0';
    bool ok = pgb_var_set_str(c, "option", d, eq + 1);
    free(d);
    if (!ok)
      return false;
  }
  return (has_define("scale") || set_int_var(c, "scale", pgb_cfg.scale)) &&
         (has_define("client_id") ||
          set_int_var(c, "client_id", pgb_cfg.bmk_face ? sb_cluster_global_tid(c->id) : c->id)) &&
         (has_define("default_seed") || set_int_var(c, "default_seed", default_seed)) &&
         (has_define("random_seed") || set_int_var(c, "random_seed", (int64_t) pgb_cfg.random_seed));
}

int pgb_run_init_clients(void)
{
  pgs_prng_t base;
  pgs_prng_seed(&base, pgb_cfg.random_seed);
  int n = pgb_cfg.nclients;
  clients = calloc((size_t) n, sizeof(*clients));
  choose_rs = calloc((size_t) pgb_cfg.nthreads, sizeof(*choose_rs));
  choose_lock = calloc((size_t) pgb_cfg.nthreads, sizeof(*choose_lock));
  sample_rs = calloc((size_t) pgb_cfg.nthreads, sizeof(*sample_rs));
  throttle_rs = calloc((size_t) pgb_cfg.nthreads, sizeof(*throttle_rs));
  throttle_trigger = calloc((size_t) pgb_cfg.nthreads, sizeof(*throttle_trigger));
  if (clients == NULL || choose_rs == NULL || choose_lock == NULL || sample_rs == NULL ||
      throttle_rs == NULL || throttle_trigger == NULL)
    return 1;
  /* bmk's face in a cluster run: this process's clients are clients
     first .. first+n-1 of all processes' `total`, seeded as pgbench
     seeds that many (a thread each): the draws of the others are
     skipped */
  int total = n, first = 0;
  if (pgb_cfg.bmk_face)
  {
    total = n * (int) sb_cluster_size();
    first = sb_cluster_global_tid(0);
  }
  for (int g = 0; g < total; g++)
  {
    uint64_t seed = pgs_prng_u64(&base);
    if (g >= first && g < first + n)
      pgs_prng_seed(&clients[g - first].rs, seed);
  }
  default_seed = (int64_t) pgs_prng_u64(&base);
  for (int g = 0; g < (total == n ? pgb_cfg.nthreads : total); g++)
  {
    uint64_t s1 = pgs_prng_u64(&base), s2 = pgs_prng_u64(&base), s3 = pgs_prng_u64(&base);
    int t = total == n ? g : g - first;
    if (t < 0 || t >= pgb_cfg.nthreads)
      continue;
    pgs_prng_seed(&choose_rs[t], s1);
    pgs_prng_seed(&throttle_rs[t], s2);
    pgs_prng_seed(&sample_rs[t], s3);
    pthread_mutex_init(&choose_lock[t], NULL);
  }
  for (int i = 0; i < n; i++)
  {
    pgb_client_t *c = &clients[i];
    c->id = i;
    c->thread = thread_of(i);
    pthread_mutex_init(&c->lock, NULL);
    c->script_stats = calloc(pgb_cfg.nscripts, sizeof(*c->script_stats));
    c->cmd_stats = calloc(pgb_cfg.ncmds, sizeof(*c->cmd_stats));
    c->stmts = calloc(pgb_cfg.ncmds, sizeof(*c->stmts));
    if (c->script_stats == NULL || c->cmd_stats == NULL || c->stmts == NULL ||
        !init_variables(c))
      return 1;
    if (pgb_cfg.bmk_face || pgb_cfg.stmt_percentiles)
    {
      c->cmd_hist = calloc(pgb_cfg.ncmds, sizeof(*c->cmd_hist));
      if (c->cmd_hist == NULL)
        return 1;
      for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
        if ((c->cmd_hist[k] = sb_hdr_new()) == NULL)
          return 1;
    }
  }
  return 0;
}

/* ---- the engine's test callbacks ----------------------------------------- */

static int t_prepare(void)
{
  start_time_us = pgb_now_us();
  return 0;
}

int pgb_run_thread_init(int tid)
{
  pgb_client_t *c = client_of(tid);
  c->tid = tid;
  db_quiet_all_errors(1);       /* the persona prints pgbench's messages */
  if (pgb_cfg.is_connect)
    return 0;                   /* -C: a connection per transaction */
  c->con = pgb_connect();
  if (c->con == NULL)
  {
    pgb_error("could not create connection for client %d", c->id);
    return -1;
  }
  return 0;
}

/* pgbench's weighted choice: a uniform draw in [0, total weight) from the
   thread's chooser, walked down the scripts' weights. */
static unsigned choose_script(pgb_client_t *c)
{
  if (pgb_cfg.nscripts == 1)
    return 0;
  pthread_mutex_lock(&choose_lock[c->thread]);
  int64_t w = pgs_rand_uniform(&choose_rs[c->thread], 0, pgb_cfg.total_weight - 1);
  pthread_mutex_unlock(&choose_lock[c->thread]);
  unsigned i = 0;
  do
    w -= pgb_cfg.scripts[i++].weight;
  while (w >= 0);
  return i - 1;
}

int pgb_run_thread_done(int tid)
{
  pgb_client_disconnect(client_of(tid));
  return 0;
}

/* -C: connects for one transaction (the time counted in conn_us); false
   after pgbench's message, the client aborts. */
static bool connect_tx(pgb_client_t *c)
{
  int64_t t0 = pgb_now_us();
  c->con = pgb_connect();
  c->conn_us += pgb_now_us() - t0;
  if (c->con != NULL)
    return true;
  pgb_error("client %d aborted while establishing connection", c->id);
  return false;
}

/* -R: the next slot of the client's thread, a Poisson delay after the
   previous one (pgbench's throttling); *late when -L is set and the slot
   is already more than the limit behind. */
static int64_t next_slot(const pgb_client_t *c, int64_t now, bool *late)
{
  pthread_mutex_lock(&choose_lock[c->thread]);
  int64_t *trigger = &throttle_trigger[c->thread];
  if (*trigger == 0)
    *trigger = bench_start_us ? bench_start_us : now;
  *trigger += pgs_rand_poisson(&throttle_rs[c->thread], pgb_cfg.throttle_delay);
  int64_t slot = *trigger;
  pthread_mutex_unlock(&choose_lock[c->thread]);
  *late = pgb_cfg.latency_limit_us > 0 && slot < now - pgb_cfg.latency_limit_us;
  return slot;
}

/* bmk's face: the client aborted (its message printed), the run fails */
static int face_abort(const pgb_client_t *c)
{
  log_text(LOG_FATAL, "pgbench script: client %d aborted (the message above)", c->id);
  return -1;
}

/* The transaction ended with `res` (or waits: PGB_TX_WAIT): what the
   event returns (sb_c_test_t). */
static int tx_end(pgb_client_t *c, pgb_txres_t res)
{
  unsigned s = c->ev_script;
  if (res == PGB_TX_WAIT)
  {
    c->ev_wait = PGB_EV_TX;
    return SB_CT_WAIT;
  }
  c->ev_wait = PGB_EV_NONE;
  /* a transaction counted (ok or failed) ended when count_tx read the
     clock; the others end now */
  if (res != PGB_TX_OK && res != PGB_TX_FAILED)
    c->last_end_us = pgb_now_us();
  if (pgb_cfg.is_connect)
  {
    pgb_client_disconnect(c);
    c->conn_us += pgb_now_us() - c->last_end_us;
  }
  /* a failed or dropped transaction is not an event: the engine's
     count (bmk's face, bmk's additions) is pgbench's processed one */
  if (res == PGB_TX_FAILED || res == PGB_TX_DROPPED)
    sb_event_failed(c->tid);
  if (res == PGB_TX_DROPPED)
    return 0;
  if (res != PGB_TX_ABORTED)
    pgb_log_tx(c->thread, c->id, c->xacts_done + 1, s, c->last_latency_us, c->last_kind,
               c->last_tries, c->lag_us);
  if (res == PGB_TX_ABORTED)
  {
    c->aborted = true;
    __atomic_store_n(&any_aborted, 1, __ATOMIC_RELAXED);
    return pgb_cfg.bmk_face ? face_abort(c) : 1;
  }
  c->xacts_done++;
  return 0;
}

/* The transaction starts at `start` (its -R slot, or when its event
   began). */
static int tx_begin(pgb_client_t *c, int64_t start)
{
  if (c->first_start_us == 0)
    c->first_start_us = start;
  return tx_end(c, pgb_client_run(c, c->ev_script, start));
}

/* -R: the slot the transaction waited for has come. */
static int slot_reached(pgb_client_t *c)
{
  int64_t begin = pgb_now_us();
  c->lag_us = (double) (begin - c->ev_slot);
  return tx_begin(c, c->ev_slot);
}

int pgb_run_event(int tid)
{
  pgb_client_t *c = client_of(tid);
  if (c->aborted || (pgb_cfg.nxacts > 0 && c->xacts_done >= pgb_cfg.nxacts))
    return 1;
  unsigned s = c->ev_script = choose_script(c);
  if (pgb_cfg.bmk_face)
    sb_event_set_type(tid, pgb_cfg.scripts[s].evtype);
  int64_t start = pgb_now_us();
  c->lag_us = 0;
  if (pgb_cfg.is_connect && !connect_tx(c))
  {
    c->aborted = true;
    __atomic_store_n(&any_aborted, 1, __ATOMIC_RELAXED);
    return 1;
  }
  if (pgb_cfg.throttle_delay <= 0)
    return tx_begin(c, start);
  bool late;
  int64_t slot = c->ev_slot = next_slot(c, start, &late);
  if (late)
  {
    /* skipped: not one of the transactions processed, for the
       engine's counts (bmk's additions) either */
    sb_event_failed(tid);
    pgb_client_skip(c, s);
    pgb_log_tx(c->thread, c->id, ++c->xacts_done, s, 0, 3, 1, 0);
    return 0;
  }
  if (slot > start && pgb_cfg.evloop)
  {
    int w = sb_vu_sleep((double) (slot - start) / 1e6);
    if (w == 1)
    {
      c->ev_wait = PGB_EV_SLOT;
      return SB_CT_WAIT;
    }
    if (w == 0)
      return 1;               /* the run is stopping */
  }
  else if (slot > start && !sb_engine_sleep(tid, (double) (slot - start) / 1e6))
    return 1;
  return slot_reached(c);
}

int pgb_run_event_resume(int tid, int value)
{
  pgb_client_t *c = client_of(tid);
  if (c->ev_wait == PGB_EV_SLOT)
    return value ? slot_reached(c) : 1;
  return tx_end(c, pgb_client_resume(c, value));
}

/* dst[k] += src[k] for every command k (one client's counters). */
static void add_cmd_stats(pgb_cmdstat_t *dst, const pgb_cmdstat_t *src)
{
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
  {
    dst[k].count += src[k].count;
    dst[k].sum += src[k].sum;
    dst[k].sum_ns += src[k].sum_ns;
    dst[k].failures += src[k].failures;
    dst[k].retries += src[k].retries;
  }
}

/* The clients' counters summed (under their locks). */
void pgb_sum_stats(pgb_stats_t *out, pgb_stats_t *per_script, pgb_cmdstat_t *per_cmd)
{
  memset(out, 0, sizeof(*out));
  for (int i = 0; i < pgb_cfg.nclients; i++)
  {
    pgb_client_t *c = &clients[i];
    pthread_mutex_lock(&c->lock);
    pgb_stats_add(out, &c->stats);
    for (unsigned s = 0; per_script && s < pgb_cfg.nscripts; s++)
      pgb_stats_add(&per_script[s], &c->script_stats[s]);
    if (per_cmd)
      add_cmd_stats(per_cmd, c->cmd_stats);
    pthread_mutex_unlock(&c->lock);
  }
}

void pgb_run_free_clients(void)
{
  for (int i = 0; clients && i < pgb_cfg.nclients; i++)
    pgb_client_free(&clients[i]);
}

void pgb_sum_cmd_hist(sb_hdr_t **per_cmd, pgb_cmdstat_t *per_cmd_stats)
{
  for (int i = 0; i < pgb_cfg.nclients; i++)
  {
    pgb_client_t *c = &clients[i];
    pthread_mutex_lock(&c->lock);
    for (unsigned k = 0; c->cmd_hist && k < pgb_cfg.ncmds; k++)
      sb_hdr_add(per_cmd[k], c->cmd_hist[k]);
    if (per_cmd_stats)
      add_cmd_stats(per_cmd_stats, c->cmd_stats);
    pthread_mutex_unlock(&c->lock);
  }
}

/* ---- the output: start time and -P lines ----------------------------------- */

static int o_start(void *ctx, const sb_out_start_t *s)
{
  (void) ctx;
  (void) s;
  bench_start_us = last_report_us = pgb_now_us();
  return 0;
}

static int o_interval(void *ctx, const sb_out_interval_t *iv)
{
  (void) ctx;
  pgb_stats_t cur;
  int64_t now = pgb_now_us();
  pgb_sum_stats(&cur, NULL, NULL);
  double run = (double) (now - last_report_us);
  int64_t cnt = cur.cnt - last_progress.cnt;
  double lat = 0, stdev = 0;
  if (cnt > 0)
  {
    lat = 0.001 * (cur.latency.sum - last_progress.latency.sum) / (double) cnt;
    double sq = (cur.latency.sum2 - last_progress.latency.sum2) / (double) cnt;
    stdev = 0.001 * sqrt(fmax(0.0, sq - 1000000.0 * lat * lat));
  }
  int64_t failed = cur.serialization_failures + cur.deadlock_failures -
    last_progress.serialization_failures - last_progress.deadlock_failures;
  char tbuf[64];
  if (pgb_cfg.progress_timestamp)
  {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    snprintf(tbuf, sizeof(tbuf), "%.3f s", (double) tv.tv_sec + tv.tv_usec / 1e6);
  }
  else
    snprintf(tbuf, sizeof(tbuf), "%.1f s", iv->start_s + iv->st->time_interval);
  fprintf(stderr, "progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %" PRId64 " failed",
          tbuf, run > 0 ? 1e6 * (double) cnt / run : 0.0, lat, stdev, failed);
  if (pgb_cfg.throttle_delay > 0)
  {
    fprintf(stderr, ", lag %.3f ms",
            cnt > 0 ? 0.001 * (cur.lag.sum - last_progress.lag.sum) / (double) cnt : 0.0);
    if (pgb_cfg.latency_limit_us)
      fprintf(stderr, ", %" PRId64 " skipped", cur.skipped - last_progress.skipped);
  }
  if (pgb_cfg.max_tries != 1)
    fprintf(stderr, ", %" PRId64 " retried, %" PRId64 " retries", cur.retried - last_progress.retried,
            cur.retries - last_progress.retries);
  fputc('\n', stderr);
  last_progress = cur;
  last_report_us = now;
  return 0;
}

/* The end of the run: pgbench's report (not after a signal or a failed
   run, as pgbench prints none), then the blocks of bmk's probes that
   were asked for (--db-server-stats), after a blank line. `ctx`: the
   run's sb_run_config_t. */
static int o_end(void *ctx, const sb_out_end_t *e)
{
  const sb_run_config_t *cfg = ctx;
  if (e->interrupted != NULL || (e->exit_code != 0 && e->exit_code != 2))
    return 0;
  /* the benchmark ends with the last transaction (pgbench's ends when its
     threads have disconnected: a few milliseconds later) */
  int64_t end = bench_start_us;
  for (int i = 0; i < pgb_cfg.nclients; i++)
    if (clients[i].last_end_us > end)
      end = clients[i].last_end_us;
  int64_t conn = bench_start_us - start_time_us;
  if (pgb_cfg.is_connect)
  {
    conn = 0;
    for (int i = 0; i < pgb_cfg.nclients; i++)
      conn += clients[i].conn_us;
  }
  pgb_print_report(end - bench_start_us, conn);
  if (cfg->server_stats || pgb_cfg.stmt_percentiles)
    putchar('\n');             /* the blocks apart from the report */
  sb_probe_print();
  /* bmk's additions: their outputs' closing lines, after the report
     (--save's "Saved as run N"), print at bmk's level; the persona's
     quiet level kept bmk's run lines out before */
  if (pgb_additions_count() > 0)
    log_set_verbosity(LOG_NOTICE);
  return 0;
}

/* ---- the run ------------------------------------------------------------- */

/* A statement of the setup whose error is reported and ignored, as
   pgbench's tryExecuteStatement does. */
static void try_exec(db_conn_t *con, const char *sql)
{
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    pgb_error("%s", pgb_sql_error(con));
    fprintf(stderr, "pgbench: detail: (ignoring this error and continuing anyway)\n");
  }
  else if (db_result_nfields(rs) > 0)
    db_free_results(rs);
}

/* How pgbench_accounts is partitioned, for the report (none when the
   query fails: the report then says nothing of partitions). */
static void partition_info(db_conn_t *con)
{
  static const char sql[] =
    "select p.partstrat, count(i.inhrelid) from pg_catalog.pg_class c "
    "left join pg_catalog.pg_partitioned_table p on p.partrelid = c.oid "
    "left join pg_catalog.pg_inherits i on i.inhparent = c.oid "
    "where c.oid = 'pgbench_accounts'::regclass group by 1";
  db_result_t *rs = db_query(con, sql, sizeof(sql) - 1);
  db_row_t *row = rs ? db_fetch_row(rs) : NULL;
  size_t len;
  const char *strat = row ? db_row_value(row, rs, 0, &len) : NULL;
  const char *count = row ? db_row_value(row, rs, 1, &len) : NULL;
  if (strat && count)
  {
    pgb_cfg.partition_method = strat[0] == 'r' ? "range" : strat[0] == 'h' ? "hash" : NULL;
    pgb_cfg.partitions = atoi(count);
  }
  if (rs && db_result_nfields(rs) > 0)
    db_free_results(rs);
}

/* The scale of the built-in scripts: the rows of pgbench_branches (a -s
   given is ignored with pgbench's warning). */
int pgb_run_table_info(db_conn_t *con, const char *hint)
{
  if (!pgb_cfg.internal_script_used)
    return 0;
  static const char sql[] = "select count(*) from pgbench_branches";
  db_result_t *rs = db_query(con, sql, sizeof(sql) - 1);
  db_row_t *row = rs ? db_fetch_row(rs) : NULL;
  size_t len;
  const char *v = row ? db_row_value(row, rs, 0, &len) : NULL;
  int scale = v ? atoi(v) : -1;
  if (rs && db_result_nfields(rs) > 0)
    db_free_results(rs);
  if (scale <= 0)
  {
    if (scale < 0)
      pgb_error("could not count number of branches: %s", pgb_sql_error(con));
    else
      pgb_error("pgbench_branches table is empty");
    fprintf(stderr, "pgbench: hint: Perhaps you need to do initialization (\"%s\") "
            "in database \"%s\".\n", hint, pgb_cfg.dbname);
    return 1;
  }
  if (pgb_cfg.scale_given)
    pgb_warning("scale option ignored, using count from pgbench_branches table (%d)", scale);
  pgb_cfg.scale = scale;
  if (!pgb_cfg.bmk_face)        /* for the persona's report */
    partition_info(con);
  return 0;
}

static void vacuum(db_conn_t *con)
{
  fprintf(stderr, "starting vacuum...");
  try_exec(con, "vacuum pgbench_branches");
  try_exec(con, "vacuum pgbench_tellers");
  try_exec(con, "truncate pgbench_history");
  fprintf(stderr, "end.\n");
  if (pgb_cfg.vacuum_accounts)
  {
    fprintf(stderr, "starting vacuum pgbench_accounts...");
    try_exec(con, "vacuum analyze pgbench_accounts");
    fprintf(stderr, "end.\n");
  }
}

/* pgbench's setup on one connection: the scale from pgbench_branches when
   a built-in script runs, and the vacuum. Returns 0 or 1. */
static int setup(void)
{
  db_conn_t *con = pgb_connect();
  if (con == NULL)
  {
    pgb_error("could not create connection for setup");
    return 1;
  }
  printf("pgbench (15, bmk %s persona)\n", sb_bmk_release());
  if (pgb_cfg.debug)
  {
    const char *h = pgb_cfg.host ? pgb_cfg.host : getenv("PGHOST");
    const char *p = pgb_cfg.port ? pgb_cfg.port : getenv("PGPORT");
    pgb_debug("pghost: %s pgport: %s nclients: %d %s: %d dbName: %s",
              h && *h ? h : "/var/run/postgresql", p && *p ? p : "5432", pgb_cfg.nclients,
              pgb_cfg.duration <= 0 ? "nxacts" : "duration",
              pgb_cfg.duration <= 0 ? pgb_cfg.nxacts : pgb_cfg.duration, pgb_cfg.dbname);
  }
  int rc = pgb_run_table_info(con, "pgbench -i");
  if (rc == 0 && !pgb_cfg.no_vacuum)
    vacuum(con);
  db_connection_close(con);
  db_connection_free(con);
  return rc;
}

/* The engine's configuration of the persona's run, and the process's
   random numbers and counters for it. Returns 0, or 1 (message
   printed). */
static int run_config(sb_run_config_t *cfg)
{
  memset(cfg, 0, sizeof(*cfg));
  /* -j below -c: pgbench's threads each multiplex their clients on one
     loop; bmk's event mode (the engine's workers) does the same */
  cfg->threads = cfg->threads_given = (unsigned) pgb_cfg.nclients;
  cfg->workers = (unsigned) pgb_cfg.nthreads;
  cfg->event_mode = cfg->workers < cfg->threads;
  pgb_cfg.evloop = cfg->event_mode;
  cfg->time_limit = pgb_cfg.duration;
  cfg->report_interval = pgb_cfg.progress;
  cfg->forced_shutdown = -1;
  cfg->stuck_grace = -1;
  cfg->thread_stack_size = 512 * 1024;
  sb_rand_params_t rp = {.dist = SB_RAND_UNIFORM, .seed = 1, .spec_iter = 12, .spec_pct = 1,
                         .spec_res = 75, .pareto_h = 0.2, .zipf_exp = 0.8};
  sb_rand_init(&rp);
  /* pgbench counts failures and retries (its report's lines); so do
     bmk's additions (--results, --metrics-listen): 0 = unlimited */
  sb_retry_configure(true, pgb_cfg.max_tries);
  if (sb_counters_init(cfg->threads) != 0 || sb_metrics_init(cfg->threads) != 0)
  {
    pgb_error("out of memory");
    return 1;
  }
  return 0;
}

int pgb_run(void)
{
  sb_run_config_t cfg;
  if (run_config(&cfg) != 0)
    return 1;
  sb_output_t out = {.name = "pgbench", .start = o_start,
                     .interval = pgb_cfg.progress > 0 ? o_interval : NULL, .end = o_end,
                     .ctx = &cfg};
  /* bmk's additions: their options are read and their outputs set up
     before anything connects (a port in use, a bad value: exit 1) */
  if (pgb_additions_count() > 0)
  {
    if (pgb_setup_driver() != 0 ||
        pgb_additions_install(&cfg, &out, &pgb_cfg.stmt_percentiles) != 0)
      return 1;
    /* the commands are timed (as for -r); the block is bmk's */
    if (pgb_cfg.stmt_percentiles)
      pgb_cfg.report_per_command = true;
  }
  else
    sb_output_register(&out);
  if (setup() != 0)
    return 1;
  if (pgb_run_init_clients() != 0)
  {
    pgb_error("out of memory");
    return 1;
  }
  if (pgb_cfg.stmt_percentiles && pgb_bmk_stmt_register() != 0)
    return 1;
  if (pgb_log_open(sample_rs) != 0)
    return 1;
  static const sb_c_test_t test = {
    .prepare = t_prepare, .thread_init = pgb_run_thread_init, .event = pgb_run_event,
    .thread_done = pgb_run_thread_done, .uses_db = true,
    .event_begin = pgb_run_event, .event_resume = pgb_run_event_resume,
  };
  int rc = sb_engine_run(&cfg, &test);
  pgb_log_close();
  if (rc == 130 || rc == 143)
    return rc;                  /* SIGINT, SIGTERM: as a shell reports pgbench's death */
  if (rc != 0 && rc != 2)
    return 1;
  pgb_run_free_clients();
  if (pgb_cfg.stmt_percentiles)
    pgb_bmk_stmt_free();
  if (__atomic_load_n(&any_aborted, __ATOMIC_RELAXED))
  {
    pgb_error("Run was aborted; the above results are incomplete.");
    return 2;
  }
  return rc == 0 ? 0 : 2;
}
