/* Per-endpoint results and replica lag; see server/sb_endpoint_probe.h. */
#define _GNU_SOURCE             /* pthread_timedjoin_np */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_counter.h"
#include "core/sb_endpoints.h"
#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "core/sb_probe.h"
#include "core/sb_timer.h"
#include "core/sb_version.h"
#include "drivers/db_driver.h"
#include "endpoints/sb_endpoint_probe.h"

/* The sampler thread's connection per endpoint (NULL: not open yet, or
   its last connect failed: tried again at the next sample); the thread's
   own, freed by it when it stops. */
static db_conn_t **lag_cons;
static unsigned nlag_cons;
static pthread_t sampler;
static bool sampler_running;     /* main thread */
static int sampler_stop;         /* atomic */
static int primary_ep = -1;      /* the endpoint the primary is sampled on; -1 none */

/* Per endpoint: the primary's replay_lag for it (PostgreSQL
   pg_stat_replication), microseconds, -1 none; when it was taken; the
   window's largest (atomics: the sampler writes, the outputs read). */
static int64_t *rl_us, *rl_at_ns, *rl_max_us;
static unsigned nrl;             /* their length (kept to the process's end) */
/* Held by the sampler thread through each round of samples, and by the
   server-statistics sampler at the window's edges (sb_endpoint_probe_hold),
   so that no sampler statement is in flight when the servers' counters
   are read. */
static pthread_mutex_t round_mtx = PTHREAD_MUTEX_INITIALIZER;

/* The window's edges, workers parked: every live connection's latency
   histogram starts empty, and is added to its endpoint's at the end. */
static void latency_reset(db_conn_t *con, void *arg)
{
  (void) arg;
  if (con->ep_lat != NULL)
    sb_hdr_reset(con->ep_lat);
}

static void latency_add(db_conn_t *con, void *arg)
{
  (void) arg;
  if (con->ep_lat != NULL && con->thread_id != SB_TID_UNCOUNTED)
    sb_endpoint_latency_add_window(con->endpoint, con->ep_lat);
}

static bool probe_begin(void *ctx)
{
  (void) ctx;
  sb_endpoints_window_begin();
  for (unsigned i = 0; i < nrl; i++)
    __atomic_store_n(&rl_max_us[i], -1, __ATOMIC_RELAXED);
  db_each_connection(latency_reset, NULL);
  return true;
}

static void probe_end(void *ctx)
{
  (void) ctx;
  sb_endpoints_window_end();
  db_each_connection(latency_add, NULL);
}

/* "-" for no sample, else seconds with 3 decimals. */
static const char *lag_text(double s, char *buf, size_t len)
{
  if (s < 0)
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%.3f", s);
  return buf;
}

static void probe_print(void *ctx)
{
  (void) ctx;
  if (sb_persona_sysbench() || log_get_verbosity() < LOG_NOTICE)
    return;
  log_lock();
  printf("\nEndpoints (statements in the measured window; docs/endpoints.md):\n");
  printf("    %-16s %-10s %10s %10s %10s %8s %10s %9s %9s %8s\n", "endpoint", "role", "reads",
         "writes", "other", "errors", "reconnects", "failovers", "p95 ms", "lag max");
  for (unsigned i = 0; i < sb_endpoints_count(); i++)
  {
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    char lag[32];
    if (!ep->has_window)
      continue;
    char p95[32] = "-";
    if (sb_endpoint_latency_count(ep) > 0)
      snprintf(p95, sizeof(p95), "%.2f", (double) sb_endpoint_latency_pct(ep, 95) / 1e6);
    printf("    %-16s %-10s %10llu %10llu %10llu %8llu %10llu %9llu %9s %8s\n", ep->name, ep->role,
           (unsigned long long) ep->window[SB_EPC_READS],
           (unsigned long long) ep->window[SB_EPC_WRITES],
           (unsigned long long) ep->window[SB_EPC_OTHER],
           (unsigned long long) ep->window[SB_EPC_ERRORS],
           (unsigned long long) ep->window[SB_EPC_RECONNECTS],
           (unsigned long long) ep->window[SB_EPC_FAILOVERS], p95,
           sb_endpoint_is_replica(ep) ? lag_text(sb_endpoint_lag_max(ep), lag, sizeof(lag)) : "");
  }
  printf("\n");
  fflush(stdout);
  log_unlock();
}

/* Copies field i of `row` into buf (NUL-terminated); false when NULL or
   longer than the buffer. */
static bool field_text(db_row_t *row, db_result_t *rs, uint32_t i, char *buf, size_t len)
{
  size_t n = 0;
  const char *s = db_row_value(row, rs, i, &n);
  if (s == NULL || n >= len)
    return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return true;
}

/* Runs `sql` and copies the first row's fields named in names[0..n-1]
   (a name may be "A|B": either) into vals (each 512 bytes; "" when NULL
   or missing), or with names NULL the first n fields in order. Returns 0,
   or -1 when the statement failed or returned no row (the error is
   cleared: the sampler is quiet). */
static int query_fields(db_conn_t *con, const char *sql, const char *const *names, unsigned n,
                        char (*vals)[512])
{
  for (unsigned k = 0; k < n; k++)
    vals[k][0] = '\0';
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    db_clear_error(con);
    return -1;
  }
  db_row_t *row = db_fetch_row(rs);
  for (uint32_t i = 0; row != NULL && i < db_result_nfields(rs); i++)
  {
    const char *f = db_result_field_name(rs, i);
    for (unsigned k = 0; k < n; k++)
    {
      bool match = names == NULL ? i == k : false;
      if (names != NULL && f != NULL)
      {
        const char *bar = strchr(names[k], '|');
        size_t l1 = bar ? (size_t) (bar - names[k]) : strlen(names[k]);
        match = (strlen(f) == l1 && strncmp(f, names[k], l1) == 0) ||
                (bar != NULL && strcmp(f, bar + 1) == 0);
      }
      if (match && !field_text(row, rs, i, vals[k], sizeof(vals[k])))
        vals[k][0] = '\0';
    }
  }
  int rc = row != NULL ? 0 : -1;
  db_free_results(rs);
  return rc;
}

/* "" (NULL, missing) to -1, else the number. */
static double num_or_none(const char *s)
{
  return *s ? strtod(s, NULL) : -1;
}

/* Finds DOMAIN's sequence number in a GTID list; 0 when absent. */
static unsigned long long gtid_seq(const char *list, unsigned long long domain)
{
  for (const char *p = list; *p;)
  {
    char *end;
    unsigned long long d = strtoull(p, &end, 10);
    unsigned long long seq = 0;
    if (*end == '-')
    {
      strtoull(end + 1, &end, 10);
      if (*end == '-')
        seq = strtoull(end + 1, &end, 10);
    }
    if (d == domain)
      return seq;
    p = strchr(end, ',') ? strchr(end, ',') + 1 : end + strlen(end);
  }
  return 0;
}

/* True when `list` is a GTID list: "" or "D-S-N[,D-S-N]..." (blanks and
   newlines between entries allowed, as the server prints them). */
static bool gtid_list_ok(const char *list)
{
  for (const char *p = list; *p;)
  {
    while (*p == ' ' || *p == '\n' || *p == ',')
      p++;
    if (!*p)
      break;
    for (int part = 0; part < 3; part++)
    {
      if (*p < '0' || *p > '9')
        return false;
      while (*p >= '0' && *p <= '9')
        p++;
      if (part < 2 && *p++ != '-')
        return false;
    }
    if (*p && *p != ',' && *p != ' ' && *p != '\n')
      return false;
  }
  return true;
}

long long sb_gtid_behind(const char *received, const char *applied)
{
  if (!gtid_list_ok(received) || !gtid_list_ok(applied))
    return -1;
  long long behind = 0;
  for (const char *p = received; *p;)
  {
    while (*p == ' ' || *p == '\n' || *p == ',')
      p++;
    if (!*p)
      break;
    char *end;
    unsigned long long d = strtoull(p, &end, 10);
    strtoull(end + 1, &end, 10);
    unsigned long long seq = strtoull(end + 1, &end, 10);
    unsigned long long have = gtid_seq(applied, d);
    if (seq > have)
      behind += (long long) (seq - have);
    p = end;
  }
  return behind;
}

/* A PostgreSQL standby's last samples: when each was taken (CLOCK_MONOTONIC)
   and the WAL position it had received then. The sampler thread's. */
#define RECV_HIST 8
typedef struct {
  uint64_t at_ns[RECV_HIST];
  double received[RECV_HIST];
  unsigned n, next;
} recv_hist_t;
static recv_hist_t *recv_hist;   /* per endpoint, beside lag_cons */

/* The standby's lag from its last replayed commit's time (ts_lag) is the
   age of that commit: right while WAL waits to be replayed, too large at
   the start of a burst after an idle time (the last commit is old, the
   WAL behind it new). Once the standby has replayed what it had received
   at an earlier sample, whatever it still has to replay came after that
   sample, so the lag is at most the time since: the smaller of the two. */
static double bound_lag(recv_hist_t *h, double ts_lag, double received, double replayed)
{
  uint64_t now = sb_now_ns();
  for (unsigned k = 0; ts_lag > 0 && k < h->n; k++)   /* (0 or none: as it is) */
    if (h->received[k] <= replayed)
    {
      double since = (double) (now - h->at_ns[k]) / 1e9;
      if (since < ts_lag)
        ts_lag = since;
    }
  h->at_ns[h->next] = now;
  h->received[h->next] = received;
  h->next = (h->next + 1) % RECV_HIST;
  if (h->n < RECV_HIST)
    h->n++;
  return ts_lag;
}

/* One sample of a replica endpoint: its lag in seconds and how far what
   it applied is behind what it received (transactions or WAL bytes), each
   -1 when there is none; MariaDB's applied GTID position (Gtid_Slave_Pos)
   into applied (512 bytes). Returns true when the replica answered with
   that position (MariaDB; false on PostgreSQL). One statement per sample. */
static bool sample_replica(db_conn_t *con, recv_hist_t *hist, double *lag, long long *behind,
                           char *applied)
{
  char v[4][512];
  *lag = -1;
  *behind = -1;
  *applied = '\0';
  if (strcmp(db_driver_name(con->driver), "pgsql") == 0)
  {
    /* now() - the last replayed commit's time grows by the second on an
       idle primary too; a standby that has replayed all it received is
       not behind: 0 (pg_last_wal_receive_lsn, pg_last_wal_replay_lsn:
       PostgreSQL manual, "Recovery Information Functions"). A first
       sample that finds WAL to replay has nothing to cap its lag with
       (bound_lag): it looks again 50 ms later, once. */
    for (int look = 0; look < 2; look++)
    {
      bool first = hist->n == 0;
      if (query_fields(con, "SELECT CASE WHEN pg_is_in_recovery() THEN CASE WHEN "
                       "pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 ELSE "
                       "COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), "
                       "0) END END, CASE WHEN pg_is_in_recovery() THEN pg_wal_lsn_diff("
                       "pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) END, "
                       "pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0'), "
                       "pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')", NULL, 4, v) != 0)
        break;
      *lag = num_or_none(v[0]);
      *behind = *v[1] ? strtoll(v[1], NULL, 10) : -1;
      if (!*v[2] || !*v[3])
        break;
      *lag = bound_lag(hist, *lag, strtod(v[2], NULL), strtod(v[3], NULL));
      if (!(first && *lag > 0))
        break;
      usleep(50000);
    }
    return false;
  }
  /* MariaDB: SHOW ALL SLAVES STATUS has the GTID positions too (first
     row: the default connection); MySQL has only SHOW SLAVE STATUS */
  static const char *const names[] = { "Seconds_Behind_Master|Seconds_Behind_Source",
                                       "Gtid_IO_Pos", "Gtid_Slave_Pos" };
  if (query_fields(con, "SHOW ALL SLAVES STATUS", names, 3, v) == 0)
  {
    *lag = num_or_none(v[0]);
    *behind = sb_gtid_behind(v[1], v[2]);
    memcpy(applied, v[2], sizeof(v[2]));
    return sb_gtid_behind(v[2], "") >= 0;
  }
  else if (query_fields(con, "SHOW SLAVE STATUS", names, 1, v) == 0)
    *lag = num_or_none(v[0]);
  return false;
}

/* The primary's answer of a sample round. */
#define MAX_STANDBYS 32
typedef struct {
  bool ok;                          /* it answered */
  char gtid[512];                   /* MariaDB: gtid_binlog_pos */
  unsigned nrows;                   /* PostgreSQL: pg_stat_replication's rows */
  char name[MAX_STANDBYS][64];      /* application_name ("" when NULL) */
  long long bytes[MAX_STANDBYS];    /* WAL written and not replayed; -1 NULL */
  double replay_lag[MAX_STANDBYS];  /* seconds; -1 NULL (idle) */
} primary_sample_t;

/* One sample of the primary on its sampler connection `con`: one
   statement, a SHOW on MariaDB/MySQL (the primary's Com_select stays the
   routed SELECTs), a SELECT of pg_stat_replication on PostgreSQL (whose
   LSN and lag columns only a superuser or pg_read_all_stats member sees:
   NULL otherwise). Quiet: a failure leaves ps->ok false. */
static void sample_primary(db_conn_t *con, primary_sample_t *ps)
{
  ps->ok = false;
  ps->nrows = 0;
  if (strcmp(db_driver_name(con->driver), "pgsql") != 0)
  {
    char v[2][512];
    if (query_fields(con, "SHOW GLOBAL VARIABLES LIKE 'gtid_binlog_pos'", NULL, 2, v) == 0 &&
        sb_gtid_behind(v[1], "") >= 0)
    {
      memcpy(ps->gtid, v[1], sizeof(ps->gtid));
      ps->ok = true;
    }
    return;
  }
  static const char sql[] = "SELECT application_name, pg_wal_lsn_diff(pg_current_wal_lsn(), "
    "replay_lsn), EXTRACT(EPOCH FROM replay_lag) FROM pg_stat_replication";
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    db_clear_error(con);
    return;
  }
  db_row_t *row;
  while ((row = db_fetch_row(rs)) != NULL && ps->nrows < MAX_STANDBYS)
  {
    unsigned r = ps->nrows++;
    char v[32];
    if (!field_text(row, rs, 0, ps->name[r], sizeof(ps->name[r])))
      ps->name[r][0] = '\0';
    ps->bytes[r] = field_text(row, rs, 1, v, sizeof(v)) ? strtoll(v, NULL, 10) : -1;
    ps->replay_lag[r] = field_text(row, rs, 2, v, sizeof(v)) ? strtod(v, NULL) : -1;
  }
  db_free_results(rs);
  ps->ok = true;
}

int sb_standby_row(const char *standby_name, const char *const *names, unsigned nrows,
                   unsigned nreplicas)
{
  if (standby_name == NULL)
    return nrows == 1 && nreplicas == 1 ? 0 : -1;
  for (unsigned r = 0; r < nrows; r++)
    if (names[r] != NULL && strcmp(names[r], standby_name) == 0)
      return (int) r;
  return -1;
}

/* The sampler's connection to endpoint i, opened on first use (quietly:
   a replica that is down has no lag sample, the run goes on); NULL while
   the script has created no driver of the endpoints' kind. */
static db_conn_t *lag_con(unsigned i)
{
  if (lag_cons[i] != NULL && !db_conn_closed(lag_cons[i]))
    return lag_cons[i];
  if (lag_cons[i] != NULL)
  {
    db_connection_free(lag_cons[i]);
    lag_cons[i] = NULL;
  }
  /* the script's driver (db_create here would switch a run that uses no
     SQL to the SQL report's layout) */
  db_driver_t *drv = db_last_driver();
  if (drv == NULL || strcmp(db_driver_name(drv), sb_endpoints_driver()) != 0)
    return NULL;
  db_conn_t *con = db_connection_create_route(drv, sb_endpoint_get(i)->name, 0);
  if (con != NULL)
    db_connection_uncounted(con);
  lag_cons[i] = con;
  return con;
}

static int64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Stores the primary's replay lag sample for endpoint i (seconds; < 0:
   none) and raises the window's largest. */
static void set_replay_lag(unsigned i, double seconds)
{
  int64_t us = seconds < 0 ? -1 : (int64_t) (seconds * 1e6 + 0.5);
  __atomic_store_n(&rl_us[i], us, __ATOMIC_RELAXED);
  __atomic_store_n(&rl_at_ns[i], mono_ns(), __ATOMIC_RELAXED);
  int64_t max = __atomic_load_n(&rl_max_us[i], __ATOMIC_RELAXED);
  while (us > max && !__atomic_compare_exchange_n(&rl_max_us[i], &max, us, false,
                                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

/* The primary's figures for replica endpoint `ep` (nrep: the replica
   endpoints): MariaDB the GTIDs the primary wrote and the replica has not
   applied (needs the replica's applied position, `applied`); PostgreSQL
   its pg_stat_replication row's WAL bytes not replayed and replay lag.
   *behind and *replay_lag are left as they are without a figure. */
static void primary_figures(const primary_sample_t *ps, const sb_endpoint_t *ep, unsigned nrep,
                            const char *applied, long long *behind, double *replay_lag)
{
  if (!ps->ok)
    return;
  if (strcmp(sb_endpoints_driver(), "pgsql") != 0)
  {
    long long b = applied != NULL ? sb_gtid_behind(ps->gtid, applied) : -1;
    if (b >= 0)
      *behind = b;
    return;
  }
  const char *names[MAX_STANDBYS];
  for (unsigned r = 0; r < ps->nrows; r++)
    names[r] = ps->name[r];
  int r = sb_standby_row(ep->standby_name, names, ps->nrows, nrep);
  if (r < 0)
    return;
  if (ps->bytes[r] >= 0)
    *behind = ps->bytes[r];
  *replay_lag = ps->replay_lag[r];
}

/* One sample round: the primary (one statement), then every replica. */
static void sample_all(void)
{
  static primary_sample_t ps;   /* the sampler thread's */
  ps.ok = false;
  db_conn_t *pc = primary_ep >= 0 ? lag_con((unsigned) primary_ep) : NULL;
  if (pc != NULL)
    sample_primary(pc, &ps);
  unsigned nrep = 0;
  for (unsigned i = 0; i < nlag_cons; i++)
    nrep += sb_endpoint_is_replica(sb_endpoint_get(i));
  for (unsigned i = 0; i < nlag_cons; i++)
  {
    sb_endpoint_t *ep = sb_endpoint_get(i);
    if (!sb_endpoint_is_replica(ep))
      continue;
    db_conn_t *con = lag_con(i);
    double lag = -1, replay_lag = -1;
    long long behind = -1;
    char applied[512];
    bool has_applied = con != NULL && sample_replica(con, &recv_hist[i], &lag, &behind, applied);
    primary_figures(&ps, ep, nrep, has_applied ? applied : NULL, &behind, &replay_lag);
    sb_endpoint_set_lag(ep, lag);
    sb_endpoint_set_behind(ep, behind);
    set_replay_lag(i, replay_lag);
  }
}

/* The endpoint the primary is sampled on: the default route's first
   endpoint when there are replicas and it is none of them, else -1. */
static int find_primary(void)
{
  sb_endpoint_t *p = sb_endpoints_have_replicas() ? sb_endpoints_default_first() : NULL;
  if (p == NULL || sb_endpoint_is_replica(p))
    return -1;
  return (int) (p - sb_endpoint_get(0));
}

/* The sampler thread: a sample round (the primary, every replica) each
   second until told to stop; its connections are its own. A server that
   hangs holds this thread only, never the reporter's interval lines. */
static void *sampler_main(void *arg)
{
  (void) arg;
  db_quiet_all_errors(1);   /* a replica that is down has no sample */
  /* its connections are no VU's from their connect on: neither the
     connect nor its start-up transaction counts as routed */
  sb_tls_tid = SB_TID_UNCOUNTED;
  /* not parked at the window's edges: out of the probes' reach (the
     server-statistics probe queries every connection at the end line) */
  db_private_connections(1);
  while (!__atomic_load_n(&sampler_stop, __ATOMIC_RELAXED))
  {
    pthread_mutex_lock(&round_mtx);
    sample_all();
    pthread_mutex_unlock(&round_mtx);
    for (int t = 0; t < 10 && !__atomic_load_n(&sampler_stop, __ATOMIC_RELAXED); t++)
      usleep(100000);
  }
  pthread_mutex_lock(&round_mtx);
  for (unsigned i = 0; i < nlag_cons; i++)
    if (lag_cons[i] != NULL)
    {
      db_connection_free(lag_cons[i]);
      lag_cons[i] = NULL;
    }
  pthread_mutex_unlock(&round_mtx);
  return NULL;
}

bool sb_endpoint_probe_hold(bool on)
{
  if (!on)
  {
    pthread_mutex_unlock(&round_mtx);
    return true;
  }
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 2;
  return pthread_mutex_timedlock(&round_mtx, &until) == 0;
}

void sb_endpoint_probe_each_con(void (*fn)(db_conn_t *con, void *arg), void *arg)
{
  for (unsigned i = 0; i < nlag_cons; i++)
    if (lag_cons != NULL && lag_cons[i] != NULL && !db_conn_closed(lag_cons[i]))
      fn(lag_cons[i], arg);
}

static int out_start(void *ctx, const sb_out_start_t *st)
{
  (void) ctx;
  (void) st;
  __atomic_store_n(&sampler_stop, 0, __ATOMIC_RELAXED);
  if (pthread_create(&sampler, NULL, sampler_main, NULL) != 0)
  {
    log_text(LOG_WARNING, "replica lag: cannot start the sampler thread; no lag samples");
    return 0;
  }
  sampler_running = true;
  return 0;
}

/* Stops the sampler: waits up to 3 s for it (a replica may hold it in a
   connect or a query), else leaves it to the process's exit. */
static void out_close(void *ctx)
{
  (void) ctx;
  if (!sampler_running)
    return;
  __atomic_store_n(&sampler_stop, 1, __ATOMIC_RELAXED);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 3;
  if (pthread_timedjoin_np(sampler, NULL, &until) == 0)
  {
    free(lag_cons);
    lag_cons = NULL;
    free(recv_hist);
    recv_hist = NULL;
    nlag_cons = 0;
  }
  else
    pthread_detach(sampler);
  sampler_running = false;
}

int sb_endpoint_register(sb_output_t *out)
{
  if (sb_endpoints_count() == 0)
    return 0;
  sb_probe_t p = { .name = "endpoints", .begin = probe_begin, .end = probe_end,
                   .print = probe_print };
  if (sb_probe_register(&p) != 0)
    return -1;
  memset(out, 0, sizeof(*out));
  out->name = "replica lag";
  if (sb_endpoints_have_replicas())
  {
    nlag_cons = sb_endpoints_count();
    lag_cons = calloc(nlag_cons, sizeof(*lag_cons));
    recv_hist = calloc(nlag_cons, sizeof(*recv_hist));
    if (rl_us == NULL)
    {
      nrl = nlag_cons;
      rl_us = malloc(nrl * sizeof(*rl_us));
      rl_at_ns = calloc(nrl, sizeof(*rl_at_ns));
      rl_max_us = malloc(nrl * sizeof(*rl_max_us));
      for (unsigned i = 0; i < nrl; i++)
        rl_us[i] = rl_max_us[i] = -1;
    }
    primary_ep = find_primary();
    out->start = out_start;
  }
  out->close = out_close;
  return 1;
}

/* Endpoint ep's index among the replay lag samples, or -1. */
static int rl_index(const sb_endpoint_t *ep)
{
  if (ep == NULL || nrl == 0)
    return -1;
  long i = ep - sb_endpoint_get(0);
  return i >= 0 && (unsigned long) i < nrl ? (int) i : -1;
}

bool sb_endpoints_replay_lag_sampled(void)
{
  return nrl > 0 && sb_endpoints_driver() != NULL && strcmp(sb_endpoints_driver(), "pgsql") == 0;
}

double sb_endpoint_replay_lag(const sb_endpoint_t *ep)
{
  int i = rl_index(ep);
  if (i < 0 || mono_ns() - __atomic_load_n(&rl_at_ns[i], __ATOMIC_RELAXED) > 5000000000LL)
    return -1;
  int64_t us = __atomic_load_n(&rl_us[i], __ATOMIC_RELAXED);
  return us < 0 ? -1 : (double) us / 1e6;
}

double sb_endpoint_replay_lag_max(const sb_endpoint_t *ep)
{
  int i = rl_index(ep);
  int64_t us = i < 0 ? -1 : __atomic_load_n(&rl_max_us[i], __ATOMIC_RELAXED);
  return us < 0 ? -1 : (double) us / 1e6;
}
