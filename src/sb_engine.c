/* The run engine; see sb_engine.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ck_pr.h>
#include <lua.h>

#include "db_driver.h"
#include "sb_counter.h"
#include "sb_engine.h"
#include "sb_histogram.h"
#include "sb_logger.h"
#include "sb_lua.h"
#include "sb_options.h"
#include "sb_rand.h"
#include "sb_rate.h"
#include "sb_sync.h"
#include "sb_timer.h"

/* One worker. Written only by its own thread except where noted; aligned so
   no two workers share a cache line. */
typedef struct {
  pthread_t thread;
  int tid;
  lua_State *L;
  sb_hdr_t *hist;             /* cumulative event latencies (ns) */
  uint64_t lat_sum_ns;        /* cumulative */
  uint64_t lat_min_ns;        /* since the last baseline; the main thread
                                 resets min/max with an atomic exchange */
  uint64_t lat_max_ns;
  uint64_t start_ns;          /* latency origin of the current event */
  uint64_t intended_ns;       /* rate mode: the taken arrival */
  int in_event;               /* read by reporters (concurrency) */
  int running;                /* read by reporters (threads_running) */
  int ready;
  int failed;
} __attribute__((aligned(64))) sb_worker_t;

/* A reader-side snapshot of all workers. */
typedef struct {
  uint64_t t_ns;
  sb_counters_t cnt;
  sb_hdr_t *hist;
  uint64_t lat_sum_ns;
  uint64_t *thr_events;       /* per worker */
  uint64_t *thr_lat_sum;      /* per worker */
} snap_t;

static sb_run_config_t cfg;
static const sb_c_test_t *ctest;
static sb_worker_t *workers;

static int g_stop;               /* workers must stop */
static int g_error;              /* a worker failed */
static int g_error_tid = -1;
static volatile int g_signal;    /* SIGINT/SIGTERM received */
static int g_warmup;             /* inside warmup: --events suspended */
static int g_running_flag;
static uint64_t g_events_issued;
static uint64_t g_start_ns;      /* clocks started (after the barrier) */
static uint64_t g_t0_ns;         /* measured time origin (after warmup or
                                    the last checkpoint) */
static uint64_t g_run_t0_ns;     /* after warmup; interval times count from here */
static uint64_t g_deadline_ns;   /* 0 = none */
static uint64_t g_stop_ns;       /* when the run stopped */
static int g_overload_warned;

static pthread_mutex_t start_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int start_released;
static unsigned ready_count, done_count, init_failed;

/* Baseline for cumulative reports (warmup end, checkpoints). */
static snap_t base;
static pthread_mutex_t base_mutex = PTHREAD_MUTEX_INITIALIZER;

bool sb_engine_running(void)
{
  return ck_pr_load_int(&g_running_flag) != 0;
}

/* ---- FFI entry points ------------------------------------------------------ */

static sb_worker_t *worker(int tid)
{
  if (workers == NULL || tid < 0 || (unsigned) tid >= cfg.threads)
    return NULL;
  return &workers[tid];
}

static void check_overload(uint64_t intended, uint64_t now)
{
  if (now <= intended || ck_pr_load_int(&g_overload_warned))
    return;
  /* Lag times rate approximates the backlog without taking the lock. */
  double backlog = (double) (now - intended) / 1e9 * cfg.rate;
  if (backlog > 131072 && ck_pr_fas_int(&g_overload_warned, 1) == 0)
  {
    log_text(LOG_WARNING, "The event queue is full. This means the worker "
             "threads are unable to keep up with the specified event "
             "generation rate");
    if (cfg.rate_overload_abort)
    {
      log_text(LOG_FATAL, "aborting the run (--rate-overload=abort)");
      ck_pr_store_int(&g_error, 1);
      ck_pr_store_int(&g_stop, 1);
    }
  }
}

bool sb_more_events(int thread_id)
{
  if (ck_pr_load_int(&g_stop))
    return false;
  if (cfg.events_limit > 0 && !ck_pr_load_int(&g_warmup))
  {
    if (ck_pr_faa_64(&g_events_issued, 1) >= cfg.events_limit)
      return false;
  }
  if (cfg.rate > 0)
  {
    sb_worker_t *w = worker(thread_id);
    uint64_t t = sb_rate_take();
    uint64_t now = sb_now_ns();
    /* Sleep in short slices so a stop is noticed even at low rates. */
    while (t > now)
    {
      uint64_t until = t - now > 100 * NS_PER_MS ? now + 100 * NS_PER_MS : t;
      sb_sleep_until_ns(until);
      if (ck_pr_load_int(&g_stop))
        return false;
      now = sb_now_ns();
    }
    check_overload(t, now);
    if (w)
      w->intended_ns = t;
  }
  return !ck_pr_load_int(&g_stop);
}

void sb_event_start(int thread_id)
{
  sb_worker_t *w = worker(thread_id);
  if (w == NULL)
    return;
  w->start_ns = cfg.rate > 0 ? w->intended_ns : sb_now_ns();
  ck_pr_store_int(&w->in_event, 1);
}

void sb_event_stop(int thread_id)
{
  sb_worker_t *w = worker(thread_id);
  if (w == NULL)
    return;
  uint64_t now = sb_now_ns();
  uint64_t lat = now > w->start_ns ? now - w->start_ns : 0;

  sb_hdr_record(w->hist, lat);
  ck_pr_store_64(&w->lat_sum_ns, w->lat_sum_ns + lat);
  /* min/max may be reset concurrently by the main thread (exchange); a
     lost update can only attribute an event straddling the reset to the
     other side of it. */
  uint64_t mn = ck_pr_load_64(&w->lat_min_ns);
  if (lat < mn)
    ck_pr_store_64(&w->lat_min_ns, lat);
  if (lat > ck_pr_load_64(&w->lat_max_ns))
    ck_pr_store_64(&w->lat_max_ns, lat);
  sb_counter_inc(thread_id, SB_CNT_EVENT);
  ck_pr_store_int(&w->in_event, 0);
}

/* ---- snapshots and statistics ------------------------------------------- */

static int snap_alloc(snap_t *s)
{
  memset(s, 0, sizeof(*s));
  s->hist = sb_hdr_new();
  s->thr_events = calloc(cfg.threads, sizeof(uint64_t));
  s->thr_lat_sum = calloc(cfg.threads, sizeof(uint64_t));
  return s->hist && s->thr_events && s->thr_lat_sum ? 0 : -1;
}

static void snap_free(snap_t *s)
{
  sb_hdr_free(s->hist);
  free(s->thr_events);
  free(s->thr_lat_sum);
  memset(s, 0, sizeof(*s));
}

static void snap_take(snap_t *s)
{
  s->t_ns = sb_now_ns();
  sb_counters_snapshot(&s->cnt);
  sb_hdr_reset(s->hist);
  s->lat_sum_ns = 0;
  for (unsigned i = 0; i < cfg.threads; i++)
  {
    sb_hdr_add(s->hist, workers[i].hist);
    s->thr_lat_sum[i] = ck_pr_load_64(&workers[i].lat_sum_ns);
    s->lat_sum_ns += s->thr_lat_sum[i];
    s->thr_events[i] = sb_counter_val((int) i, SB_CNT_EVENT);
  }
}

static void snap_copy(snap_t *dst, const snap_t *src)
{
  dst->t_ns = src->t_ns;
  dst->cnt = src->cnt;
  sb_hdr_copy(dst->hist, src->hist);
  dst->lat_sum_ns = src->lat_sum_ns;
  memcpy(dst->thr_events, src->thr_events, cfg.threads * sizeof(uint64_t));
  memcpy(dst->thr_lat_sum, src->thr_lat_sum, cfg.threads * sizeof(uint64_t));
}

static unsigned threads_running(void)
{
  unsigned n = 0;
  for (unsigned i = 0; i < cfg.threads; i++)
    n += (unsigned) ck_pr_load_int(&workers[i].running);
  return n;
}

static unsigned concurrency(void)
{
  unsigned n = 0;
  for (unsigned i = 0; i < cfg.threads; i++)
    n += (unsigned) ck_pr_load_int(&workers[i].in_event);
  return n;
}

/* Fills the counts and percentiles of `st` from cur - prev; `hist` is
   scratch space receiving the interval histogram. */
static void stat_diff(sb_stat_t *st, const snap_t *cur, const snap_t *prev,
                      sb_hdr_t *hist)
{
  const uint64_t *c = cur->cnt.v, *p = prev->cnt.v;
  st->threads = cfg.threads;
  st->events = c[SB_CNT_EVENT] - p[SB_CNT_EVENT];
  st->reads = c[SB_CNT_READ] - p[SB_CNT_READ];
  st->writes = c[SB_CNT_WRITE] - p[SB_CNT_WRITE];
  st->other = c[SB_CNT_OTHER] - p[SB_CNT_OTHER];
  st->errors = c[SB_CNT_ERROR] - p[SB_CNT_ERROR];
  st->reconnects = c[SB_CNT_RECONNECT] - p[SB_CNT_RECONNECT];
  sb_hdr_copy(hist, cur->hist);
  sb_hdr_sub(hist, prev->hist);
  st->percentile = cfg.percentile;
  st->latency_pct = cfg.percentile ? (double) sb_hdr_percentile(hist, cfg.percentile) / 1e9 : 0;
  st->npct = cfg.npct;
  for (unsigned i = 0; i < cfg.npct; i++)
  {
    st->pct[i] = cfg.pct[i];
    st->pct_val[i] = (double) sb_hdr_percentile(hist, cfg.pct[i]) / 1e9;
  }
}

/* Cumulative statistics since the baseline. `extra_*` add events closed at
   a forced shutdown. */
static void stat_cumulative(sb_stat_t *st, const snap_t *cur, sb_hdr_t *hist,
                            double elapsed_s)
{
  memset(st, 0, sizeof(*st));
  pthread_mutex_lock(&base_mutex);
  stat_diff(st, cur, &base, hist);
  st->time_interval = elapsed_s;
  st->time_total = elapsed_s;
  st->threads_running = 0;
  uint64_t sum = cur->lat_sum_ns - base.lat_sum_ns;
  uint64_t mn = UINT64_MAX, mx = 0;
  double ev_sum = 0, ev_sq = 0, t_sum = 0, t_sq = 0;
  for (unsigned i = 0; i < cfg.threads; i++)
  {
    uint64_t wmin = ck_pr_load_64(&workers[i].lat_min_ns);
    uint64_t wmax = ck_pr_load_64(&workers[i].lat_max_ns);
    if (wmin < mn)
      mn = wmin;
    if (wmax > mx)
      mx = wmax;
    double e = (double) (cur->thr_events[i] - base.thr_events[i]);
    double t = (double) (cur->thr_lat_sum[i] - base.thr_lat_sum[i]) / 1e9;
    ev_sum += e;
    ev_sq += e * e;
    t_sum += t;
    t_sq += t * t;
  }
  pthread_mutex_unlock(&base_mutex);
  if (st->events == 0)
    mn = mx = 0;
  st->latency_min = mn == UINT64_MAX ? 0 : (double) mn / 1e9;
  st->latency_max = (double) mx / 1e9;
  st->latency_sum = (double) sum / 1e9;
  st->latency_avg = st->events ? st->latency_sum / (double) st->events : 0;
  double n = cfg.threads;
  st->events_avg = ev_sum / n;
  st->events_stddev = sqrt(fmax(0, ev_sq / n - st->events_avg * st->events_avg));
  st->exec_avg = t_sum / n;
  st->exec_stddev = sqrt(fmax(0, t_sq / n - st->exec_avg * st->exec_avg));
}

/* Sets a new baseline: counters and histograms by snapshot, min/max by
   resetting each worker's values. */
static void set_baseline(uint64_t t_ns)
{
  pthread_mutex_lock(&base_mutex);
  snap_take(&base);
  for (unsigned i = 0; i < cfg.threads; i++)
  {
    ck_pr_fas_64(&workers[i].lat_min_ns, UINT64_MAX);
    ck_pr_fas_64(&workers[i].lat_max_ns, 0);
  }
  g_t0_ns = t_ns;
  pthread_mutex_unlock(&base_mutex);
}

/* ---- printing ------------------------------------------------------------- */

static void print_interval(lua_State *L, const sb_stat_t *st)
{
  if (L && sb_lua_hook_defined(L, "report_intermediate"))
  {
    sb_lua_call_report_hook(L, "report_intermediate", st, false);
    return;
  }
  if (ctest && ctest->report_intermediate)
  {
    ctest->report_intermediate(st);
    return;
  }
  log_lock();
  if (db_driver_used())
    sb_report_interval_db(stdout, st, cfg.rate > 0);
  else
    sb_report_interval_generic(stdout, st, cfg.rate > 0);
  fflush(stdout);
  log_unlock();
}

static void print_cumulative(lua_State *L, const sb_stat_t *st)
{
  if (L && sb_lua_hook_defined(L, "report_cumulative"))
  {
    sb_lua_call_report_hook(L, "report_cumulative", st, true);
    return;
  }
  log_lock();
  if (ctest && ctest->report_cumulative)
    ctest->report_cumulative(st);
  if (!(ctest && ctest->replace_cumulative))
    sb_report_cumulative(stdout, st, db_driver_used());
  fflush(stdout);
  log_unlock();
}

static void print_debug_threads(const snap_t *cur)
{
  if (!cfg.debug)
    return;
  log_text(LOG_DEBUG, "Verbose per-thread statistics:\n");
  for (unsigned i = 0; i < cfg.threads; i++)
  {
    uint64_t ev = cur->thr_events[i] - base.thr_events[i];
    double total = (double) (cur->thr_lat_sum[i] - base.thr_lat_sum[i]) / 1e9;
    double mn = ev ? (double) ck_pr_load_64(&workers[i].lat_min_ns) / 1e9 : 0;
    double mx = (double) ck_pr_load_64(&workers[i].lat_max_ns) / 1e9;
    log_lock();
    sb_report_thread_debug(stdout, i, mn, ev ? total / (double) ev : 0, mx, ev, total);
    log_unlock();
  }
}

/* ---- reporter thread --------------------------------------------------------- */

static pthread_t reporter;
static int reporter_started;
static int reporter_quit;

static void *reporter_main(void *arg)
{
  (void) arg;
  lua_State *L = NULL;
  lua_State *G = sb_lua_global();
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);

  sb_tls_tid = -1;
  sb_rand_thread_init((int) cfg.threads);
  if (G && !ctest && (sb_lua_hook_defined(G, "report_intermediate") ||
                      sb_lua_hook_defined(G, "report_cumulative")))
    L = sb_lua_new_state((int) cfg.threads);

  snap_t prev, cur;
  sb_hdr_t *scratch = sb_hdr_new();
  snap_alloc(&prev);
  snap_alloc(&cur);
  snap_take(&prev);
  prev.t_ns = g_run_t0_ns;

  uint64_t interval_ns = (uint64_t) (cfg.report_interval * 1e9);
  uint64_t next_tick = interval_ns ? g_run_t0_ns + interval_ns : UINT64_MAX;
  unsigned cp = 0;

  for (;;)
  {
    uint64_t next_cp = cp < cfg.ncheckpoints
      ? g_run_t0_ns + (uint64_t) (cfg.checkpoints[cp] * 1e9) : UINT64_MAX;
    uint64_t next = next_tick < next_cp ? next_tick : next_cp;
    if (next == UINT64_MAX)
      break;
    /* Wait in slices so quitting is prompt. */
    while (sb_now_ns() < next && !ck_pr_load_int(&reporter_quit))
    {
      uint64_t now = sb_now_ns();
      sb_sleep_until_ns(next - now > 50 * NS_PER_MS ? now + 50 * NS_PER_MS : next);
    }
    /* Never print a partial last interval: a tick after the stop is
       dropped. */
    uint64_t stop_at = ck_pr_load_64(&g_stop_ns);
    if (ck_pr_load_int(&reporter_quit) && (stop_at == 0 || next > stop_at))
      break;
    if (stop_at != 0 && next > stop_at)
      break;

    if (next == next_tick)
    {
      snap_take(&cur);
      sb_stat_t st;
      memset(&st, 0, sizeof(st));
      stat_diff(&st, &cur, &prev, scratch);
      st.time_interval = (double) (cur.t_ns - prev.t_ns) / 1e9;
      st.time_total = (double) (next - g_run_t0_ns) / 1e9;
      st.threads_running = threads_running();
      if (cfg.rate > 0)
      {
        st.queue_length = sb_rate_backlog(cur.t_ns);
        st.concurrency = concurrency();
      }
      if (st.time_interval > 0)
        print_interval(L, &st);
      snap_copy(&prev, &cur);
      /* Skip missed ticks (a stalled reporter must not print bursts). */
      uint64_t now = sb_now_ns();
      do
        next_tick += interval_ns;
      while (next_tick <= now);
    }
    if (next == next_cp)
    {
      snap_take(&cur);
      sb_stat_t st;
      double elapsed = (double) (cur.t_ns - g_t0_ns) / 1e9;
      stat_cumulative(&st, &cur, scratch, elapsed);
      log_raw("\n[ %.0fs ] Checkpoint report:\n", (double) (next - g_run_t0_ns) / 1e9);
      print_cumulative(L, &st);
      set_baseline(cur.t_ns);
      cp++;
    }
  }
  snap_free(&prev);
  snap_free(&cur);
  sb_hdr_free(scratch);
  sb_lua_close_state(L);
  return NULL;
}

/* ---- workers ------------------------------------------------------------------ */

static void worker_fail(sb_worker_t *w)
{
  w->failed = 1;
  if (ck_pr_fas_int(&g_error, 1) == 0)
    g_error_tid = w->tid;
  ck_pr_store_int(&g_stop, 1);
}

static void *worker_main(void *arg)
{
  sb_worker_t *w = arg;
  int rc = 0;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);

  sb_tls_tid = w->tid;
  sb_rand_thread_init(w->tid);
  if (ctest)
  {
    if (ctest->thread_init && ctest->thread_init(w->tid) != 0)
      rc = -1;
  }
  else
  {
    w->L = sb_lua_new_state(w->tid);
    if (w->L == NULL || sb_lua_call(w->L, "thread_init", w->tid, NULL) != 0)
      rc = -1;
  }

  pthread_mutex_lock(&start_mutex);
  if (rc != 0)
    init_failed++;
  ready_count++;
  pthread_cond_broadcast(&start_cond);
  while (!start_released)
    pthread_cond_wait(&start_cond, &start_mutex);
  pthread_mutex_unlock(&start_mutex);

  if (rc == 0 && !ck_pr_load_int(&g_stop))
  {
    ck_pr_store_int(&w->running, 1);
    if (ctest)
    {
      while (sb_more_events(w->tid))
      {
        sb_event_start(w->tid);
        if (ctest->event(w->tid) != 0)
          break;
        sb_event_stop(w->tid);
      }
      ck_pr_store_int(&w->in_event, 0);
      if (ctest->thread_done)
        ctest->thread_done(w->tid);
    }
    else
    {
      if (sb_lua_call(w->L, "thread_run", w->tid, NULL) != 0)
        worker_fail(w);
      /* An event that stopped the thread by its return value is not
         counted and no longer in flight. */
      ck_pr_store_int(&w->in_event, 0);
      if (!w->failed && sb_lua_call(w->L, "thread_done", w->tid, NULL) != 0)
        worker_fail(w);
    }
    ck_pr_store_int(&w->running, 0);
  }
  if (w->L)
  {
    sb_lua_close_state(w->L);
    w->L = NULL;
  }

  pthread_mutex_lock(&start_mutex);
  done_count++;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
  return NULL;
}

/* ---- run -------------------------------------------------------------------- */

static void print_mode_block(void)
{
  log_text(LOG_NOTICE, "Running the test with following options:");
  log_text(LOG_NOTICE, "Number of threads: %u", cfg.threads);
  if (cfg.warmup > 0)
    log_text(LOG_NOTICE, "Warmup time: %gs", cfg.warmup);
  if (cfg.rate > 0)
    log_text(LOG_NOTICE, "Target transaction rate: %g/sec", cfg.rate);
  if (cfg.report_interval > 0)
    log_text(LOG_NOTICE, "Report intermediate results every %g second(s)",
             cfg.report_interval);
  if (cfg.ncheckpoints > 0)
  {
    char buf[4096];
    size_t n = 0;
    for (unsigned i = 0; i < cfg.ncheckpoints && n < sizeof(buf) - 32; i++)
      n += (size_t) snprintf(buf + n, sizeof(buf) - n, "%s%g", i ? ", " : "",
                             cfg.checkpoints[i]);
    log_text(LOG_NOTICE, "Report checkpoint(s) at %s seconds", buf);
  }
  if (cfg.debug)
    log_text(LOG_NOTICE, "Debug mode enabled.\n");
  if (sb_opt_bool("validate"))
    log_text(LOG_NOTICE, "Validation checks: on.\n");
  const sb_rand_params_t *rp = sb_rand_params();
  if (rp->seed_from_clock)
    log_text(LOG_NOTICE, "Initializing random number generator from current time\n");
  else
    log_text(LOG_NOTICE, "Initializing random number generator from seed (%lu).\n",
             (unsigned long) rp->seed);
  if (cfg.forced_shutdown >= 0 && cfg.time_limit > 0)
    log_text(LOG_NOTICE, "Forcing shutdown in %g seconds",
             cfg.time_limit + cfg.warmup + cfg.forced_shutdown);
  log_text(LOG_NOTICE, "%s", "");
  if (ctest && ctest->print_mode)
    ctest->print_mode();
}

/* Waits for a signal or `timeout_ns`; returns the signal or 0. */
static int wait_signal(const sigset_t *set, uint64_t timeout_ns)
{
  struct timespec ts = { (time_t) (timeout_ns / NS_PER_SEC),
                         (long) (timeout_ns % NS_PER_SEC) };
  int sig = sigtimedwait(set, NULL, &ts);
  if (sig > 0)
  {
    g_signal = sig;
    return sig;
  }
  return 0;
}

/* During the SYNC-file wait a helper thread turns a pending signal into
   g_signal, since the main thread is polling the file. */
static pthread_t sig_thread;
static int sig_watch_quit;
static const sigset_t *sig_watch_set;

static void *sig_watch_main(void *arg)
{
  (void) arg;
  while (!ck_pr_load_int(&sig_watch_quit) && !g_signal)
    wait_signal(sig_watch_set, 20 * NS_PER_MS);
  return NULL;
}

static void start_signal_watch(const sigset_t *set)
{
  sig_watch_set = set;
  pthread_create(&sig_thread, NULL, sig_watch_main, NULL);
}

static void stop_signal_watch(void)
{
  ck_pr_store_int(&sig_watch_quit, 1);
  pthread_join(sig_thread, NULL);
}

static unsigned count_done(void)
{
  pthread_mutex_lock(&start_mutex);
  unsigned d = done_count;
  pthread_mutex_unlock(&start_mutex);
  return d;
}

static void release_workers(void)
{
  pthread_mutex_lock(&start_mutex);
  start_released = 1;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
}

/* Prints the final (or interrupted) report. `unfinished` closes events in
   flight at a forced shutdown. */
static void final_report(const char *interrupt_reason, unsigned *unfinished)
{
  snap_t cur;
  sb_hdr_t *scratch = sb_hdr_new();
  snap_alloc(&cur);
  snap_take(&cur);
  uint64_t end = g_stop_ns ? g_stop_ns : cur.t_ns;

  if (unfinished)
  {
    *unfinished = 0;
    for (unsigned i = 0; i < cfg.threads; i++)
      if (ck_pr_load_int(&workers[i].in_event))
      {
        uint64_t lat = end > workers[i].start_ns ? end - workers[i].start_ns : 0;
        sb_hdr_record(cur.hist, lat);
        cur.lat_sum_ns += lat;
        cur.thr_lat_sum[i] += lat;
        cur.thr_events[i]++;
        cur.cnt.v[SB_CNT_EVENT]++;
        if (lat > workers[i].lat_max_ns)
          workers[i].lat_max_ns = lat;
        (*unfinished)++;
      }
  }

  double elapsed = end > g_t0_ns ? (double) (end - g_t0_ns) / 1e9 : 0;
  sb_stat_t st;
  stat_cumulative(&st, &cur, scratch, elapsed);

  if (unfinished && *unfinished > 0)
    log_text(LOG_NOTICE, "\nNumber of unfinished transactions on forced shutdown: %u",
             *unfinished);
  if (interrupt_reason)
    log_text(LOG_NOTICE, "Run interrupted: %s; the report covers %.2fs of measured time.",
             interrupt_reason, elapsed);

  if (cfg.histogram)
  {
    sb_hdr_copy(scratch, cur.hist);
    sb_hdr_sub(scratch, base.hist);
    log_lock();
    sb_hdr_print_sysbench(scratch, stdout);
    fflush(stdout);
    log_unlock();
  }
  /* Hooks run in the global state (workers' states are gone). */
  print_cumulative(ctest ? NULL : sb_lua_global(), &st);
  print_debug_threads(&cur);
  snap_free(&cur);
  sb_hdr_free(scratch);
}

int sb_engine_run(const sb_run_config_t *config, const sb_c_test_t *test)
{
  cfg = *config;
  ctest = test;
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);

  if (!ctest)
  {
    lua_State *G = sb_lua_global();
    if (sb_lua_call(G, "init", -1, NULL) != 0)
      return 1;
    if (!sb_lua_has_function(G, "event"))
    {
      log_text(LOG_FATAL, "cannot find the event() function in %s", sb_lua_test_name());
      return 1;
    }
  }

  print_mode_block();

  workers = NULL;
  if (posix_memalign((void **) &workers, 64, sizeof(sb_worker_t) * cfg.threads) != 0)
  {
    log_text(LOG_FATAL, "out of memory allocating %u threads", cfg.threads);
    return 1;
  }
  memset(workers, 0, sizeof(sb_worker_t) * cfg.threads);
  for (unsigned i = 0; i < cfg.threads; i++)
  {
    workers[i].tid = (int) i;
    workers[i].hist = sb_hdr_new();
    workers[i].lat_min_ns = UINT64_MAX;
    if (workers[i].hist == NULL)
    {
      log_text(LOG_FATAL, "out of memory allocating histograms for %u threads", cfg.threads);
      return 1;
    }
  }
  snap_alloc(&base);

  log_text(LOG_NOTICE, "Initializing worker threads...\n");
  if (cfg.sync_file && *cfg.sync_file)
    sb_sync_announce(cfg.sync_file);

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  size_t stack = cfg.thread_stack_size;
  /* LuaJIT and the client libraries (name resolution, TLS) need more than
     sysbench's 64K default on modern glibc; use at least 512K. */
  if (stack < 512 * 1024)
    stack = 512 * 1024;
  pthread_attr_setstacksize(&attr, stack);
  unsigned created = 0;
  for (unsigned i = 0; i < cfg.threads; i++)
  {
    int err = pthread_create(&workers[i].thread, &attr, worker_main, &workers[i]);
    if (err != 0)
    {
      log_text(LOG_FATAL, "cannot create worker thread %u: %s", i, strerror(err));
      ck_pr_store_int(&g_stop, 1);
      break;
    }
    created++;
  }
  pthread_attr_destroy(&attr);

  /* Wait for every worker's thread_init, within --thread-init-timeout. */
  uint64_t init_deadline = cfg.thread_init_timeout > 0
    ? sb_now_ns() + (uint64_t) (cfg.thread_init_timeout * 1e9) : 0;
  for (;;)
  {
    pthread_mutex_lock(&start_mutex);
    unsigned r = ready_count;
    pthread_mutex_unlock(&start_mutex);
    if (r >= created)
      break;
    if (init_deadline && sb_now_ns() >= init_deadline)
    {
      log_text(LOG_FATAL, "Worker threads failed to initialize within %g seconds!",
               cfg.thread_init_timeout);
      exit(2);
    }
    int sig = wait_signal(&sigs, 20 * NS_PER_MS);
    if (sig)
    {
      log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
      exit(sig == SIGINT ? 130 : 143);
    }
  }
  if (init_failed > 0 || created < cfg.threads)
  {
    log_text(LOG_FATAL, "Threads initialization failed!");
    ck_pr_store_int(&g_stop, 1);
    release_workers();
    for (unsigned i = 0; i < created; i++)
      pthread_join(workers[i].thread, NULL);
    return 1;
  }

  if (cfg.sync_file && *cfg.sync_file)
  {
    /* SIGINT/SIGTERM are blocked in every thread; a pending one is
       picked up by the handler thread below and aborts the wait. */
    start_signal_watch(&sigs);
    int rc = sb_sync_wait(cfg.sync_file, cfg.sync_wait_ms, cfg.threads, &g_signal);
    stop_signal_watch();
    if (rc != 0)
    {
      ck_pr_store_int(&g_stop, 1);
      release_workers();
      for (unsigned i = 0; i < created; i++)
        pthread_join(workers[i].thread, NULL);
      if (rc < 0)
        return 1;
      return g_signal == SIGTERM ? 143 : 130;
    }
  }

  /* Clocks start now. */
  g_start_ns = sb_now_ns();
  g_t0_ns = g_run_t0_ns = g_start_ns;
  if (cfg.warmup > 0)
    ck_pr_store_int(&g_warmup, 1);
  if (cfg.time_limit > 0)
    g_deadline_ns = g_start_ns + (uint64_t) ((cfg.time_limit + cfg.warmup) * 1e9);
  if (cfg.rate > 0)
    sb_rate_init(cfg.rate, g_start_ns, sb_rand_params()->seed);
  /* Queries made by init() are not part of the measured run. */
  set_baseline(g_start_ns);
  log_text(LOG_NOTICE, "Threads started!\n");
  if (cfg.warmup > 0)
    log_text(LOG_NOTICE, "Warming up for %g seconds...\n", cfg.warmup);
  ck_pr_store_int(&g_running_flag, 1);
  release_workers();

  const char *reason = NULL;
  int exit_code = 0;
  uint64_t warmup_end = cfg.warmup > 0 ? g_start_ns + (uint64_t) (cfg.warmup * 1e9) : 0;
  bool need_reporter = cfg.report_interval > 0 || cfg.ncheckpoints > 0;

  if (!warmup_end && need_reporter)
    reporter_started = pthread_create(&reporter, NULL, reporter_main, NULL) == 0;

  /* Main loop: wait for the end, a failure, the deadline or a signal. */
  for (;;)
  {
    if (count_done() >= created)
      break;
    if (ck_pr_load_int(&g_error))
      break;
    uint64_t now = sb_now_ns();
    if (warmup_end && now >= warmup_end)
    {
      set_baseline(now);
      g_run_t0_ns = now;
      ck_pr_store_64(&g_events_issued, 0);
      ck_pr_store_int(&g_warmup, 0);
      warmup_end = 0;
      if (need_reporter)
        reporter_started = pthread_create(&reporter, NULL, reporter_main, NULL) == 0;
    }
    if (g_deadline_ns && now >= g_deadline_ns)
      break;
    uint64_t wait = 50 * NS_PER_MS;
    if (g_deadline_ns && g_deadline_ns - now < wait)
      wait = g_deadline_ns - now;
    if (warmup_end && warmup_end - now < wait)
      wait = warmup_end - now;
    int sig = wait_signal(&sigs, wait);
    if (sig)
    {
      log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
      reason = sig == SIGINT ? "SIGINT" : "SIGTERM";
      exit_code = sig == SIGINT ? 130 : 143;
      break;
    }
  }
  uint64_t stop_at = sb_now_ns();
  if (g_deadline_ns && stop_at > g_deadline_ns && !reason && !ck_pr_load_int(&g_error))
    stop_at = g_deadline_ns;
  ck_pr_store_64(&g_stop_ns, stop_at);
  ck_pr_store_int(&g_stop, 1);

  /* Let in-flight events finish: up to the forced-shutdown limit after the
     time limit, or a short grace after a signal or failure. */
  uint64_t join_deadline = 0;
  bool forced = false;
  if (reason || ck_pr_load_int(&g_error))
    join_deadline = sb_now_ns() + 5 * NS_PER_SEC;
  else if (cfg.forced_shutdown >= 0 && cfg.time_limit > 0)
  {
    join_deadline = g_deadline_ns + (uint64_t) (cfg.forced_shutdown * 1e9);
    forced = true;
  }
  while (count_done() < created)
  {
    uint64_t now = sb_now_ns();
    if (join_deadline && now >= join_deadline)
      break;
    int sig = wait_signal(&sigs, 20 * NS_PER_MS);
    if (sig && !reason)
    {
      log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
      reason = sig == SIGINT ? "SIGINT" : "SIGTERM";
      exit_code = sig == SIGINT ? 130 : 143;
      join_deadline = now + 2 * NS_PER_SEC;
    }
  }
  ck_pr_store_int(&g_running_flag, 0);
  bool all_done = count_done() >= created;

  ck_pr_store_int(&reporter_quit, 1);
  if (reporter_started)
    pthread_join(reporter, NULL);

  if (!all_done && forced && !reason && !ck_pr_load_int(&g_error))
  {
    log_text(LOG_FATAL, "The --max-time limit has expired, forcing shutdown...");
    unsigned unfinished = 0;
    final_report(NULL, &unfinished);
    log_flush();
    _exit(2);
  }

  if (ck_pr_load_int(&g_error) && !reason)
  {
    static char buf[128];
    if (g_error_tid >= 0)
      snprintf(buf, sizeof(buf), "fatal error in thread %d", g_error_tid);
    else
      snprintf(buf, sizeof(buf), "fatal error");
    reason = buf;
    exit_code = 1;
  }

  if (all_done)
    for (unsigned i = 0; i < created; i++)
      pthread_join(workers[i].thread, NULL);

  final_report(reason, NULL);

  if (!reason && !ctest)
  {
    if (sb_lua_call(sb_lua_global(), "done", -1, NULL) != 0)
      exit_code = 1;
  }
  log_flush();
  if (!all_done)
    _exit(exit_code);
  return exit_code;
}

/* ---- parallel commands --------------------------------------------------------- */

typedef struct {
  pthread_t thread;
  int tid;
  const char *name;
  int rc;
} cmd_thread_t;

static void *command_main(void *arg)
{
  cmd_thread_t *t = arg;
  sb_tls_tid = t->tid;
  sb_rand_thread_init(t->tid);
  lua_State *L = sb_lua_new_state(t->tid);
  bool ret_false = false;
  if (L == NULL || sb_lua_call_command(L, t->name, &ret_false) != 0 || ret_false)
    t->rc = 1;
  sb_lua_close_state(L);
  return NULL;
}

int sb_engine_parallel_command(const sb_run_config_t *config, const char *name)
{
  unsigned n = config->threads;
  cmd_thread_t *t = calloc(n, sizeof(*t));
  int rc = 0;

  log_text(LOG_NOTICE, "Initializing worker threads...\n");
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, config->thread_stack_size < 512 * 1024
                            ? 512 * 1024 : config->thread_stack_size);
  unsigned created = 0;
  for (unsigned i = 0; i < n; i++)
  {
    t[i].tid = (int) i;
    t[i].name = name;
    if (pthread_create(&t[i].thread, &attr, command_main, &t[i]) != 0)
    {
      log_text(LOG_FATAL, "cannot create thread %u", i);
      rc = 1;
      break;
    }
    created++;
  }
  pthread_attr_destroy(&attr);
  for (unsigned i = 0; i < created; i++)
  {
    pthread_join(t[i].thread, NULL);
    if (t[i].rc)
      rc = 1;
  }
  free(t);
  return rc;
}
