/* Snapshots of the workers' counters and histograms, statistics and report
   printing for the engine; see sb_engine_priv.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ck_pr.h>

#include "drivers/db_driver.h"
#include "engine/sb_engine_priv.h"
#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "core/sb_timer.h"
#include "core/sb_version.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"
#include "core/sb_retry.h"
#include "core/sb_output.h"
#include "core/sb_probe.h"

/* ---- the run's workers and VUs --------------------------------------------- */

int eng_alloc_run(void)
{
  if (eng_cfg.workers == 0 || eng_cfg.workers > eng_cfg.threads)
    eng_cfg.workers = eng_cfg.threads;
  eng_workers = NULL;
  eng_vus = NULL;
  if (posix_memalign((void **) &eng_workers, 64, sizeof(sb_worker_t) * eng_cfg.workers) != 0 ||
      posix_memalign((void **) &eng_vus, 64, sizeof(sb_vu_t) * eng_cfg.threads) != 0)
  {
    log_text(LOG_FATAL, "out of memory allocating %u threads", eng_cfg.threads);
    return 1;
  }
  memset(eng_workers, 0, sizeof(sb_worker_t) * eng_cfg.workers);
  memset(eng_vus, 0, sizeof(sb_vu_t) * eng_cfg.threads);
  for (unsigned i = 0; i < eng_cfg.threads; i++)
  {
    eng_vus[i].tid = (int) i;
    eng_vus[i].worker = i % eng_cfg.workers;
    eng_vus[i].lat_min_ns = UINT64_MAX;
  }
  for (unsigned i = 0; i < eng_cfg.workers; i++)
  {
    eng_workers[i].index = i;
    eng_workers[i].hist = sb_hdr_new();
    eng_workers[i].types = sb_evtype_stats_new();
    if (eng_workers[i].hist == NULL || eng_workers[i].types == NULL)
    {
      log_text(LOG_FATAL, "out of memory allocating histograms for %u threads", eng_cfg.workers);
      return 1;
    }
  }
  /* Event mode: one counter slot per worker (its only writer). */
  if (eng_cfg.event_mode && sb_counters_init_grouped(eng_cfg.threads, eng_cfg.workers) != 0)
  {
    log_text(LOG_FATAL, "out of memory allocating counters");
    return 1;
  }
  eng_snap_alloc(&eng_base);
  return 0;
}

/* ---- snapshots and statistics ------------------------------------------- */

int eng_snap_alloc(snap_t *s)
{
  memset(s, 0, sizeof(*s));
  s->hist = sb_hdr_new();
  s->thr_events = calloc(eng_cfg.threads, sizeof(uint64_t));
  s->thr_lat_sum = calloc(eng_cfg.threads, sizeof(uint64_t));
  s->types = sb_evtype_stats_new();
  return s->hist && s->thr_events && s->thr_lat_sum && s->types ? 0 : -1;
}

void eng_snap_free(snap_t *s)
{
  sb_hdr_free(s->hist);
  free(s->thr_events);
  free(s->thr_lat_sum);
  sb_evtype_stats_free(s->types);
  memset(s, 0, sizeof(*s));
}

void eng_snap_take(snap_t *s)
{
  s->t_ns = sb_now_ns();
  sb_counters_snapshot(&s->cnt);
  sb_metrics_snapshot(s->metrics);
  sb_hdr_reset(s->hist);
  s->lat_sum_ns = 0;
  sb_evtype_zero(s->types);
  for (unsigned i = 0; i < eng_cfg.workers; i++)
  {
    sb_hdr_add(s->hist, eng_workers[i].hist);
    sb_evtype_add(s->types, eng_workers[i].types);
  }
  for (unsigned i = 0; i < eng_cfg.threads; i++)
  {
    s->thr_lat_sum[i] = ck_pr_load_64(&eng_vus[i].lat_sum_ns);
    s->lat_sum_ns += s->thr_lat_sum[i];
    s->thr_events[i] = ck_pr_load_64(&eng_vus[i].events);
  }
}

void eng_snap_copy(snap_t *dst, const snap_t *src)
{
  dst->t_ns = src->t_ns;
  dst->cnt = src->cnt;
  memcpy(dst->metrics, src->metrics, sizeof(dst->metrics));
  sb_hdr_copy(dst->hist, src->hist);
  dst->lat_sum_ns = src->lat_sum_ns;
  memcpy(dst->thr_events, src->thr_events, eng_cfg.threads * sizeof(uint64_t));
  memcpy(dst->thr_lat_sum, src->thr_lat_sum, eng_cfg.threads * sizeof(uint64_t));
  sb_evtype_zero(dst->types);
  sb_evtype_add(dst->types, src->types);
}

unsigned eng_threads_running(uint64_t at_ns)
{
  unsigned n = 0;
  for (unsigned i = 0; i < eng_cfg.threads; i++)
    if (ck_pr_load_int(&eng_vus[i].running) || ck_pr_load_64(&eng_vus[i].ended_ns) >= at_ns)
      n++;
  return n;
}

unsigned eng_concurrency(void)
{
  unsigned n = 0;
  for (unsigned i = 0; i < eng_cfg.threads; i++)
    n += (unsigned) ck_pr_load_int(&eng_vus[i].in_event);
  return n;
}

/* Fills the counts and percentiles of `st` from cur - prev; `hist` is
   scratch space receiving the interval histogram. */
void eng_stat_diff(sb_stat_t *st, const snap_t *cur, const snap_t *prev,
                      sb_hdr_t *hist)
{
  const uint64_t *c = cur->cnt.v, *p = prev->cnt.v;
  st->threads = eng_cfg.threads;
  st->events = c[SB_CNT_EVENT] - p[SB_CNT_EVENT];
  st->reads = c[SB_CNT_READ] - p[SB_CNT_READ];
  st->writes = c[SB_CNT_WRITE] - p[SB_CNT_WRITE];
  st->other = c[SB_CNT_OTHER] - p[SB_CNT_OTHER];
  st->errors = c[SB_CNT_ERROR] - p[SB_CNT_ERROR];
  st->reconnects = c[SB_CNT_RECONNECT] - p[SB_CNT_RECONNECT];
  st->timeouts = c[SB_CNT_TIMEOUT] - p[SB_CNT_TIMEOUT];
  st->tx_retries = c[SB_CNT_RETRY] - p[SB_CNT_RETRY];
  st->tx_failures = c[SB_CNT_FAILED] - p[SB_CNT_FAILED];
  st->retries_on = sb_retry_max_tries() >= 0;
  st->max_tries = st->retries_on ? (unsigned) sb_retry_max_tries() : 1;
  st->nmetrics = sb_metric_count();
  for (unsigned i = 0; i < st->nmetrics; i++)
    st->metrics[i] = cur->metrics[i] - prev->metrics[i];
  st->bytes_read = c[SB_CNT_BYTES_READ] - p[SB_CNT_BYTES_READ];
  st->bytes_written = c[SB_CNT_BYTES_WRITTEN] - p[SB_CNT_BYTES_WRITTEN];
  sb_hdr_copy(hist, cur->hist);
  sb_hdr_sub(hist, prev->hist);
  st->percentile = eng_cfg.percentile;
  st->latency_pct = eng_cfg.percentile ? (double) sb_hdr_percentile(hist, eng_cfg.percentile) / 1e9 : 0;
  st->npct = eng_cfg.npct;
  for (unsigned i = 0; i < eng_cfg.npct; i++)
  {
    st->pct[i] = eng_cfg.pct[i];
    st->pct_val[i] = (double) sb_hdr_percentile(hist, eng_cfg.pct[i]) / 1e9;
  }
}

/* Cumulative statistics since the baseline. `extra_*` add events closed at
   a forced shutdown. */
void eng_stat_cumulative(sb_stat_t *st, const snap_t *cur, sb_hdr_t *hist,
                            double elapsed_s)
{
  memset(st, 0, sizeof(*st));
  pthread_mutex_lock(&eng_base_mutex);
  eng_stat_diff(st, cur, &eng_base, hist);
  st->time_interval = elapsed_s;
  st->time_total = elapsed_s;
  st->threads_running = 0;
  if (st->retries_on)
  {
    /* per calling thread: the final report and a checkpoint's may overlap */
    static _Thread_local sb_retry_snap_t retry;
    sb_retry_snapshot(&retry, true);
    st->retry = &retry;
  }
  uint64_t sum = cur->lat_sum_ns - eng_base.lat_sum_ns;
  uint64_t mn = UINT64_MAX, mx = 0;
  double ev_sum = 0, ev_sq = 0, t_sum = 0, t_sq = 0;
  for (unsigned i = 0; i < eng_cfg.threads; i++)
  {
    uint64_t wmin = ck_pr_load_64(&eng_vus[i].lat_min_ns);
    uint64_t wmax = ck_pr_load_64(&eng_vus[i].lat_max_ns);
    if (wmin < mn)
      mn = wmin;
    if (wmax > mx)
      mx = wmax;
    double e = (double) (cur->thr_events[i] - eng_base.thr_events[i]);
    double t = (double) (cur->thr_lat_sum[i] - eng_base.thr_lat_sum[i]) / 1e9;
    ev_sum += e;
    ev_sq += e * e;
    t_sum += t;
    t_sq += t * t;
  }
  pthread_mutex_unlock(&eng_base_mutex);
  if (st->events == 0)
    mn = mx = 0;
  st->latency_min = mn == UINT64_MAX ? 0 : (double) mn / 1e9;
  st->latency_max = (double) mx / 1e9;
  st->latency_sum = (double) sum / 1e9;
  st->latency_avg = st->events ? st->latency_sum / (double) st->events : 0;
  double n = eng_cfg.threads;
  st->events_avg = ev_sum / n;
  st->events_stddev = sqrt(fmax(0, ev_sq / n - st->events_avg * st->events_avg));
  st->exec_avg = t_sum / n;
  st->exec_stddev = sqrt(fmax(0, t_sq / n - st->exec_avg * st->exec_avg));
}

/* Sets a new baseline: counters and histograms by snapshot, min/max by
   resetting each worker's values. */
void eng_set_baseline(uint64_t t_ns)
{
  pthread_mutex_lock(&eng_base_mutex);
  eng_snap_take(&eng_base);
  sb_retry_rebase();
  for (unsigned i = 0; i < eng_cfg.threads; i++)
  {
    ck_pr_fas_64(&eng_vus[i].lat_min_ns, UINT64_MAX);
    ck_pr_fas_64(&eng_vus[i].lat_max_ns, 0);
  }
  eng_t0_ns = t_ns;
  pthread_mutex_unlock(&eng_base_mutex);
}

unsigned eng_type_rows(const sb_evtype_stat_t *t, double seconds, sb_type_row_t *rows)
{
  unsigned n = 0, count = sb_evtype_count();
  for (unsigned i = 0; i < count; i++)
  {
    if (t[i].events == 0)
      continue;
    sb_type_row_t *r = &rows[n++];
    memset(r, 0, sizeof(*r));
    r->name = sb_evtype_name((int) i);
    r->events = t[i].events;
    r->errors = t[i].errors;
    r->rollbacks = t[i].rollbacks;
    r->late = t[i].late;
    r->tps = seconds > 0 ? (double) t[i].events / seconds : 0;
    r->avg = (double) t[i].lat_sum_ns / (double) t[i].events / 1e9;
    r->sum = (double) t[i].lat_sum_ns / 1e9;
    if (t[i].hist)
    {
      r->min = (double) sb_hdr_min(t[i].hist) / 1e9;
      r->max = (double) sb_hdr_max(t[i].hist) / 1e9;
      r->p25 = (double) sb_hdr_percentile(t[i].hist, 25) / 1e9;
      r->p50 = (double) sb_hdr_percentile(t[i].hist, 50) / 1e9;
      r->p75 = (double) sb_hdr_percentile(t[i].hist, 75) / 1e9;
      r->p90 = (double) sb_hdr_percentile(t[i].hist, 90) / 1e9;
      r->p95 = (double) sb_hdr_percentile(t[i].hist, 95) / 1e9;
      r->p99 = (double) sb_hdr_percentile(t[i].hist, 99) / 1e9;
      r->stddev = sb_hdr_stddev(t[i].hist) / 1e9;
    }
  }
  return n;
}

/* ---- run-mode block and final report --------------------------------------- */

/* Numbers print with %.15g: integers in full, as sysbench's %d (plain %g
   would print a --rate of 2000000 as 2e+06), fractions as given. */
void eng_print_mode_block(void)
{
  log_text(LOG_NOTICE, "Running the test with following options:");
  log_text(LOG_NOTICE, "Number of threads: %u", eng_cfg.threads);
  if (eng_cfg.event_mode)
    log_text(LOG_NOTICE, "Virtual users: %u on %u worker thread%s (event loop)",
             eng_cfg.threads, eng_cfg.workers, eng_cfg.workers == 1 ? "" : "s");
  if (eng_cfg.warmup > 0)
    log_text(LOG_NOTICE, "Warmup time: %.15gs", eng_cfg.warmup);
  if (eng_cfg.rate > 0)
    log_text(LOG_NOTICE, "Target transaction rate: %.15g/sec", eng_cfg.rate);
  if (eng_cfg.report_interval > 0)
    log_text(LOG_NOTICE, "Report intermediate results every %.15g second(s)",
             eng_cfg.report_interval);
  if (eng_cfg.ncheckpoints > 0)
  {
    char buf[4096];
    size_t n = 0;
    for (unsigned i = 0; i < eng_cfg.ncheckpoints && n < sizeof(buf) - 32; i++)
      n += (size_t) snprintf(buf + n, sizeof(buf) - n, "%s%.15g", i ? ", " : "",
                             eng_cfg.checkpoints[i]);
    log_text(LOG_NOTICE, "Report checkpoint(s) at %s seconds", buf);
  }
  if (eng_cfg.debug)
    log_text(LOG_NOTICE, "Debug mode enabled.\n");
  if (sb_opt_bool("validate"))
    log_text(LOG_NOTICE, "Validation checks: on.\n");
  const sb_rand_params_t *rp = sb_rand_params();
  if (rp->seed_from_clock)
    log_text(LOG_NOTICE, "Initializing random number generator from current time\n");
  else
    log_text(LOG_NOTICE, "Initializing random number generator from seed (%lu).\n",
             (unsigned long) rp->seed);
  if (eng_cfg.forced_shutdown >= 0 && eng_cfg.time_limit > 0)
    log_text(LOG_NOTICE, "Forcing shutdown in %.15g seconds",
             eng_cfg.time_limit + eng_cfg.warmup + eng_cfg.forced_shutdown);
  log_text(LOG_NOTICE, "%s", "");
  if (eng_ctest && eng_ctest->print_mode)
    eng_ctest->print_mode();
}

/* --debug's per-VU figures over the measured time (malloc'd, nvus =
   --threads), or NULL without --debug or memory. */
static sb_out_thread_t *vu_figures(const snap_t *cur)
{
  if (!eng_cfg.debug)
    return NULL;
  sb_out_thread_t *v = calloc(eng_cfg.threads, sizeof(*v));
  for (unsigned i = 0; v && i < eng_cfg.threads; i++)
  {
    uint64_t ev = cur->thr_events[i] - eng_base.thr_events[i];
    double total = (double) (cur->thr_lat_sum[i] - eng_base.thr_lat_sum[i]) / 1e9;
    v[i].events = ev;
    v[i].total = total;
    v[i].min = ev ? (double) ck_pr_load_64(&eng_vus[i].lat_min_ns) / 1e9 : 0;
    v[i].max = (double) ck_pr_load_64(&eng_vus[i].lat_max_ns) / 1e9;
    v[i].avg = ev ? total / (double) ev : 0;
  }
  return v;
}

/* Events still running at a forced end (a worker inside one): counted as
   ending at `end`, with their waiting time as latency, into `cur`.
   Returns how many. */
static unsigned count_unfinished(snap_t *cur, uint64_t end)
{
  unsigned n = 0;
  for (unsigned i = 0; i < eng_cfg.threads; i++)
    if (ck_pr_load_int(&eng_vus[i].in_event))
    {
      /* the worker is still inside that event: atomic reads */
      uint64_t start = ck_pr_load_64(&eng_vus[i].start_ns);
      uint64_t lat = end > start ? end - start : 0;
      sb_hdr_record(cur->hist, lat);
      cur->lat_sum_ns += lat;
      cur->thr_lat_sum[i] += lat;
      cur->thr_events[i]++;
      cur->cnt.v[SB_CNT_EVENT]++;
      sb_evtype_record(cur->types, ck_pr_load_int(&eng_vus[i].cur_type), lat, 0,
                       eng_cfg.latency_limit_ns && lat > eng_cfg.latency_limit_ns);
      if (lat > ck_pr_load_64(&eng_vus[i].lat_max_ns))
        ck_pr_store_64(&eng_vus[i].lat_max_ns, lat);
      n++;
    }
  return n;
}

int eng_final_report(const char *interrupt_reason, unsigned *unfinished, int exit_code)
{
  snap_t cur;
  sb_hdr_t *scratch = sb_hdr_new();
  eng_snap_alloc(&cur);
  eng_snap_take(&cur);
  uint64_t end = eng_end_ns ? eng_end_ns : eng_stop_ns ? eng_stop_ns : cur.t_ns;
  unsigned n_unfinished = unfinished ? count_unfinished(&cur, end) : 0;
  if (unfinished)
    *unfinished = n_unfinished;

  double elapsed = end > eng_t0_ns ? (double) (end - eng_t0_ns) / 1e9 : 0;
  sb_stat_t st;
  eng_stat_cumulative(&st, &cur, scratch, elapsed);
  eng_client_total(&st.client);

  sb_evtype_stat_t *t = sb_evtype_stats_new();
  sb_type_row_t rows[SB_EVTYPE_MAX];
  unsigned n = 0;
  uint64_t late = 0;
  if (t)
  {
    sb_evtype_add(t, cur.types);
    sb_evtype_sub(t, eng_base.types);
    n = eng_type_rows(t, st.time_total, rows);
    if (sb_evtype_used())
    {
      st.types = rows;
      st.ntypes = n;
    }
    for (unsigned i = 0; i < sb_evtype_count(); i++)
      late += t[i].late;
  }
  sb_hdr_copy(scratch, cur.hist);
  sb_hdr_sub(scratch, eng_base.hist);
  sb_out_thread_t *vus = vu_figures(&cur);
  sb_out_end_t e = { .st = &st, .hist = scratch, .types = t, .rows = rows, .nrows = n,
                     .late = late, .interrupted = interrupt_reason, .exit_code = exit_code,
                     .unfinished = n_unfinished, .forced = unfinished != NULL,
                     .vus = vus, .nvus = vus ? eng_cfg.threads : 0 };
  int failed = sb_output_end(&e) != 0;
  free(vus);
  sb_evtype_stats_free(t);
  eng_snap_free(&cur);
  sb_hdr_free(scratch);
  return failed;
}
