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

#include "drivers/db_driver.h"
#include "core/sb_counter.h"
#include "engine/sb_engine.h"
#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"
#include "engine/sb_rate.h"
#include "results/sb_server_reset.h"
#include "results/sb_results.h"
#include "results/sb_server_cost.h"
#include "results/sb_server_stats.h"
#include "engine/sb_sync.h"
#include "core/sb_timer.h"
#include "engine/sb_loop.h"
#include "engine/sb_vuplan.h"

#include "engine/sb_engine_priv.h"

/* State shared with sb_stats.c and sb_reporter.c (sb_engine_priv.h). */
sb_run_config_t eng_cfg;
const sb_c_test_t *eng_ctest;
sb_worker_t *eng_workers;
sb_vu_t *eng_vus;
snap_t eng_base;
pthread_mutex_t eng_base_mutex = PTHREAD_MUTEX_INITIALIZER;
uint64_t eng_t0_ns;
uint64_t eng_run_t0_ns;
uint64_t eng_stop_ns;
uint64_t eng_workers_t0_ns;
uint64_t eng_end_ns;
/* When the last VU was done (after thread_done), and the time the main
   thread spent reading the server's counters at the end line while the
   workers waited (not part of the run): the end of the measured time, as
   sysbench's timers stop after joining the workers. */
static uint64_t g_last_done_ns;
static uint64_t g_sample_ns;


static int g_stop;               /* workers must stop */
static int g_error;              /* a worker failed */
static int g_error_tid = -1;
static const char *g_error_reason; /* the run's own fatal error, if any */
static int g_results_failed;     /* a result file could not be written */
static volatile int g_signal;    /* SIGINT/SIGTERM received */
static int g_warmup;             /* inside warmup: --events suspended */
static int g_running_flag;
static uint64_t g_events_issued;
static uint64_t g_start_ns;      /* clocks started (after the barrier) */
static uint64_t g_deadline_ns;   /* 0 = none */
static int g_overload_warned;

static pthread_mutex_t start_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int start_released;
static unsigned ready_count, done_count, init_failed;
/* End line: with server statistics or server cost on, workers wait after
   their last event (before thread_done) until the server's counters have
   been read, so the window holds the events and nothing else (thread_done's
   statement closes are transactions too on PostgreSQL). */
static int end_line;
static int end_released;
static unsigned finished_count;


bool sb_engine_running(void)
{
  return ck_pr_load_int(&g_running_flag) != 0;
}

bool sb_engine_stopping(void)
{
  return ck_pr_load_int(&g_stop) != 0;
}

/* The SQL layer's retry predicate: a lost connection is rebuilt while the
   run goes on and not after it was told to stop (the main thread waits for
   the workers then, and a worker retrying against a server that stays
   away would never finish). */
static bool keep_reconnecting(void)
{
  return sb_engine_running() && !sb_engine_stopping();
}

bool sb_engine_sleep(int thread_id, double seconds)
{
  (void) thread_id;
  if (!(seconds > 0))
    return !sb_engine_stopping();
  uint64_t end = sb_now_ns() + (uint64_t) (seconds * 1e9);
  for (;;)
  {
    bool in_run = ck_pr_load_int(&g_running_flag) != 0;
    if (in_run && ck_pr_load_int(&g_stop))
      return false;
    uint64_t now = sb_now_ns();
    if (now >= end)
      return true;
    uint64_t until = end;
    if (in_run && end - now > 100 * NS_PER_MS)
      until = now + 100 * NS_PER_MS;
    sb_sleep_until_ns(until);
  }
}

/* ---- FFI entry points ------------------------------------------------------ */

static sb_vu_t *vu(int tid)
{
  if (eng_vus == NULL || tid < 0 || (unsigned) tid >= eng_cfg.threads)
    return NULL;
  return &eng_vus[tid];
}

/* Wakes event-loop workers so they see a released line or the stop flag
   (thread-mode workers poll or wait on the condition variable). */
static void notify_workers(void)
{
  if (eng_cfg.event_mode)
    sb_loop_wake_all();
}

static void set_stop(void)
{
  ck_pr_store_int(&g_stop, 1);
  notify_workers();
}

static void check_overload(uint64_t intended, uint64_t now)
{
  if (now <= intended || ck_pr_load_int(&g_overload_warned))
    return;
  /* Lag times rate approximates the backlog without taking the lock. */
  double backlog = (double) (now - intended) / 1e9 * eng_cfg.rate;
  if (backlog > 131072 && ck_pr_fas_int(&g_overload_warned, 1) == 0)
  {
    /* sysbench's text; fatal for it (queue of 131072 events), a warning
       for bmk unless --rate-overload=abort, which stops the run as a
       fatal error (report kept, exit 1) */
    log_text(eng_cfg.rate_overload_abort ? LOG_FATAL : LOG_WARNING,
             "The event queue is full. This means the worker "
             "threads are unable to keep up with the specified event "
             "generation rate");
    if (eng_cfg.rate_overload_abort)
    {
      g_error_reason = "the event queue is full (--rate-overload=abort)";
      ck_pr_store_int(&g_error, 1);
      set_stop();
    }
  }
}

int eng_next_event(int thread_id, uint64_t *arrival)
{
  (void) thread_id;
  *arrival = 0;
  if (ck_pr_load_int(&g_stop))
    return 0;
  if (eng_cfg.events_limit > 0 && !ck_pr_load_int(&g_warmup))
  {
    if (ck_pr_faa_64(&g_events_issued, 1) >= eng_cfg.events_limit)
      return 0;
  }
  if (eng_cfg.rate > 0)
    *arrival = sb_rate_take();
  return 1;
}

void eng_arrival_reached(int thread_id, uint64_t arrival)
{
  check_overload(arrival, sb_now_ns());
  sb_vu_t *v = vu(thread_id);
  if (v)
    v->intended_ns = arrival;
}

bool sb_more_events(int thread_id)
{
  uint64_t t;
  if (!eng_next_event(thread_id, &t))
    return false;
  if (eng_cfg.rate > 0)
  {
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
    eng_arrival_reached(thread_id, t);
  }
  return !ck_pr_load_int(&g_stop);
}

void sb_event_start(int thread_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v == NULL)
    return;
  v->start_ns = eng_cfg.rate > 0 ? v->intended_ns : sb_now_ns();
  v->cur_type = 0;
  v->errors_at_start = eng_vu_errors(v);
  ck_pr_store_int(&v->in_event, 1);
}

int sb_event_type_id(const char *name)
{
  int id = sb_evtype_register(name);
  if (id < 0)
    log_text(LOG_FATAL, "sysbench.event_type: cannot register '%s' (at most %d types "
             "of at most %d bytes)", name ? name : "", SB_EVTYPE_MAX - 1,
             SB_EVTYPE_NAME_MAX - 1);
  return id;
}

void sb_event_set_type(int thread_id, int type_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v && type_id >= 0 && type_id < SB_EVTYPE_MAX)
    v->cur_type = type_id;
}

void sb_event_restarted(int thread_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v)
    sb_evtype_rollback(eng_workers[v->worker].types, v->cur_type);
}

void sb_event_stop(int thread_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v == NULL)
    return;
  sb_worker_t *w = &eng_workers[v->worker];
  uint64_t now = sb_now_ns();
  uint64_t lat = now > v->start_ns ? now - v->start_ns : 0;

  sb_hdr_record(w->hist, lat);
  ck_pr_store_64(&v->lat_sum_ns, v->lat_sum_ns + lat);
  /* min/max may be reset concurrently by the main thread (exchange); a
     lost update can only attribute an event straddling the reset to the
     other side of it. */
  uint64_t mn = ck_pr_load_64(&v->lat_min_ns);
  if (lat < mn)
    ck_pr_store_64(&v->lat_min_ns, lat);
  if (lat > ck_pr_load_64(&v->lat_max_ns))
    ck_pr_store_64(&v->lat_max_ns, lat);
  uint64_t errors = eng_vu_errors(v) - v->errors_at_start;
  int late = eng_cfg.latency_limit_ns && lat > eng_cfg.latency_limit_ns;
  sb_evtype_record(w->types, v->cur_type, lat, errors, late);
  sb_counter_inc(thread_id, SB_CNT_EVENT);
  ck_pr_store_64(&v->events, v->events + 1);
  ck_pr_store_int(&v->in_event, 0);
}

/* ---- workers -------------------------------------------------------------- */

void eng_vu_fail(int tid)
{
  sb_vu_t *v = vu(tid);
  if (v)
    eng_workers[v->worker].failed = 1;
  if (ck_pr_fas_int(&g_error, 1) == 0)
    g_error_tid = tid;
  set_stop();
}

void eng_vu_ready(bool failed)
{
  pthread_mutex_lock(&start_mutex);
  if (failed)
    init_failed++;
  ready_count++;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
}

bool eng_start_released(void)
{
  pthread_mutex_lock(&start_mutex);
  bool r = start_released != 0;
  pthread_mutex_unlock(&start_mutex);
  return r;
}

void eng_vu_finished(void)
{
  pthread_mutex_lock(&start_mutex);
  finished_count++;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
}

bool eng_end_line_holds(void)
{
  pthread_mutex_lock(&start_mutex);
  bool r = ck_pr_load_int(&end_line) && !end_released;
  pthread_mutex_unlock(&start_mutex);
  return r;
}

void eng_vu_done(void)
{
  pthread_mutex_lock(&start_mutex);
  g_last_done_ns = sb_now_ns();
  done_count++;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
}

static void wait_end_line(void)
{
  pthread_mutex_lock(&start_mutex);
  finished_count++;
  pthread_cond_broadcast(&start_cond);
  while (ck_pr_load_int(&end_line) && !end_released)
    pthread_cond_wait(&start_cond, &start_mutex);
  pthread_mutex_unlock(&start_mutex);
}

static void release_end_line(void)
{
  pthread_mutex_lock(&start_mutex);
  end_released = 1;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
  notify_workers();
}

static unsigned count_finished(void)
{
  pthread_mutex_lock(&start_mutex);
  unsigned n = finished_count;
  pthread_mutex_unlock(&start_mutex);
  return n;
}

/* Thread mode: one OS thread runs VU `w->index` in its own Lua state. */
static void *worker_main(void *arg)
{
  sb_worker_t *w = arg;
  sb_vu_t *v = &eng_vus[w->index];
  int rc = 0;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);

  sb_tls_tid = v->tid;
  sb_rand_thread_init(v->tid);
  if (eng_ctest)
  {
    if (eng_ctest->thread_init && eng_ctest->thread_init(v->tid) != 0)
      rc = -1;
  }
  else
  {
    w->L = sb_lua_new_state(v->tid);
    if (w->L == NULL || sb_lua_call(w->L, "thread_init", v->tid, NULL) != 0)
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
    ck_pr_store_int(&v->running, 1);
    if (eng_ctest)
    {
      while (sb_more_events(v->tid))
      {
        sb_event_start(v->tid);
        int erc = eng_ctest->event(v->tid);
        if (erc < 0)
          eng_vu_fail(v->tid);
        if (erc != 0)
          break;
        sb_event_stop(v->tid);
      }
      ck_pr_store_int(&v->in_event, 0);
      wait_end_line();
      if (!w->failed && eng_ctest->thread_done)
        eng_ctest->thread_done(v->tid);
    }
    else
    {
      if (sb_lua_call(w->L, "thread_run", v->tid, NULL) != 0)
        eng_vu_fail(v->tid);
      /* An event that stopped the thread by its return value is not
         counted and no longer in flight. */
      ck_pr_store_int(&v->in_event, 0);
      wait_end_line();
      if (!w->failed && sb_lua_call(w->L, "thread_done", v->tid, NULL) != 0)
        eng_vu_fail(v->tid);
    }
    ck_pr_store_int(&v->running, 0);
  }
  else
    wait_end_line();
  if (w->L)
  {
    sb_lua_close_state(w->L);
    w->L = NULL;
  }
  eng_vu_done();
  return NULL;
}

/* ---- run -------------------------------------------------------------------- */

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
  notify_workers();
}

/* Wall-clock now, seconds since the epoch (result files' start time). */
static double epoch_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* When the measured run ended, as sysbench's timers see it (they stop
   after the workers are joined): the moment the last VU was done, less
   the end-line sampling; for a forced shutdown (`all_done` false) now, the
   shutdown instant. */
static uint64_t run_end_ns(bool all_done)
{
  if (!all_done)
    return sb_now_ns();
  pthread_mutex_lock(&start_mutex);
  uint64_t end = g_last_done_ns;
  pthread_mutex_unlock(&start_mutex);
  if (end > g_sample_ns && end - g_sample_ns > eng_t0_ns)
    end -= g_sample_ns;
  return end;
}

/* Waits for every started VU's thread_init, within
   --thread-init-timeout (which covers a whole --login-delay ramp).
   Returns 0 when all succeeded; on a failure stops the workers, joins
   them and returns 1. A timeout or a signal exits the process. */
static int wait_init(const sigset_t *sigs, unsigned created, unsigned expected)
{
  uint64_t init_deadline = eng_cfg.thread_init_timeout > 0
    ? sb_now_ns() + (uint64_t) (eng_cfg.thread_init_timeout * 1e9) : 0;
  unsigned r, failed;
  for (;;)
  {
    pthread_mutex_lock(&start_mutex);
    r = ready_count;
    failed = init_failed;
    pthread_mutex_unlock(&start_mutex);
    if (r >= expected)
      break;
    if (init_deadline && sb_now_ns() >= init_deadline)
    {
      log_text(LOG_FATAL, "Worker threads failed to initialize within %.15g seconds!",
               eng_cfg.thread_init_timeout);
      if (eng_cfg.event_mode)
        log_text(LOG_FATAL, "%u of %u virtual users were ready, %u failed, %u still "
                 "initializing (--thread-init-timeout covers the whole --login-delay ramp)",
                 r - failed, eng_cfg.threads, failed, expected - r);
      exit(2);
    }
    int sig = wait_signal(sigs, 20 * NS_PER_MS);
    if (sig)
    {
      log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
      exit(sig == SIGINT ? 130 : 143);
    }
  }
  if (failed == 0 && created == eng_cfg.workers)
    return 0;
  log_text(LOG_FATAL, "Threads initialization failed!");
  if (eng_cfg.event_mode && failed > 0)
    sb_loop_report_init_failures(r - failed, failed);
  set_stop();
  release_workers();
  for (unsigned i = 0; i < created; i++)
    pthread_join(eng_workers[i].thread, NULL);
  return 1;
}

/* VUs run by worker `w`: tids w, w + W, w + 2W, ... */
static unsigned vus_of_worker(unsigned w)
{
  return (eng_cfg.threads - w + eng_cfg.workers - 1) / eng_cfg.workers;
}

/* Creates the worker threads; returns how many started (a failure stops
   the run, FATAL printed). */
static unsigned start_workers(void)
{
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  size_t stack = eng_cfg.thread_stack_size;
  /* LuaJIT and the client libraries (name resolution, TLS) need more than
     sysbench's 64K default on modern glibc; use at least 512K. */
  if (stack < 512 * 1024)
    stack = 512 * 1024;
  pthread_attr_setstacksize(&attr, stack);
  void *(*entry)(void *) = eng_cfg.event_mode ? sb_loop_worker_main : worker_main;
  eng_workers_t0_ns = sb_now_ns();
  unsigned created = 0;
  for (unsigned i = 0; i < eng_cfg.workers; i++)
  {
    int err = pthread_create(&eng_workers[i].thread, &attr, entry, &eng_workers[i]);
    if (err != 0)
    {
      log_text(LOG_FATAL, "cannot create worker thread %u: %s", i, strerror(err));
      set_stop();
      break;
    }
    created++;
  }
  pthread_attr_destroy(&attr);
  return created;
}

int sb_engine_run(const sb_run_config_t *config, const sb_c_test_t *test)
{
  eng_cfg = *config;
  eng_ctest = test;
  db_set_retry_predicate(keep_reconnecting);
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);

  if (!eng_ctest)
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

  if (sb_results_open(eng_cfg.results_path, eng_cfg.hdrlog_path) != 0)
    return 1;
  eng_print_mode_block();
  if (eng_ctest && eng_ctest->prepare && eng_ctest->prepare() != 0)
    return 1;

  if (eng_alloc_run() != 0)
    return 1;
  if (!eng_ctest)
    eng_fd_budget();

  log_text(LOG_NOTICE, "Initializing worker threads...\n");
  if (eng_cfg.sync_file && *eng_cfg.sync_file)
    sb_sync_announce(eng_cfg.sync_file);

  unsigned created = start_workers();
  unsigned expected = 0;       /* VUs of the workers that started */
  for (unsigned i = 0; i < created; i++)
    expected += vus_of_worker(i);

  if (wait_init(&sigs, created, expected) != 0)
    return 1;

  /* --db-checkpoint: before the barrier, so processes released together
     start together. */
  if (eng_cfg.db_checkpoint && !eng_ctest && sb_server_checkpoint() != 0)
  {
    set_stop();
    release_workers();
    for (unsigned i = 0; i < created; i++)
      pthread_join(eng_workers[i].thread, NULL);
    return 1;
  }

  if (eng_cfg.sync_file && *eng_cfg.sync_file)
  {
    /* SIGINT/SIGTERM are blocked in every thread; a pending one is
       picked up by the handler thread below and aborts the wait. */
    start_signal_watch(&sigs);
    int rc = sb_sync_wait(eng_cfg.sync_file, eng_cfg.sync_wait_ms, eng_cfg.threads, &g_signal);
    stop_signal_watch();
    /* A signal caught by the watch thread while the file was going away
       would otherwise be lost: the run would start and ignore it. */
    if (rc == 0 && g_signal)
    {
      log_text(LOG_NOTICE, "=> SYNC-file : aborted");
      rc = 1;
    }
    if (rc != 0)
    {
      set_stop();
      release_workers();
      for (unsigned i = 0; i < created; i++)
        pthread_join(eng_workers[i].thread, NULL);
      if (rc < 0)
        return 1;
      return g_signal == SIGTERM ? 143 : 130;
    }
  }

  /* The server's counters are read while the workers wait at the start
     line, so both sides count the same window. */
  sb_server_cost_begin();
  sb_server_stats_begin(eng_cfg.server_stats && !eng_ctest);
  if (sb_server_stats_active() || sb_server_cost_active())
    ck_pr_store_int(&end_line, 1);

  /* Clocks start now. */
  g_start_ns = sb_now_ns();
  if (eng_cfg.warmup <= 0)
    sb_results_start(epoch_now());
  eng_t0_ns = eng_run_t0_ns = g_start_ns;
  if (eng_cfg.warmup > 0)
    ck_pr_store_int(&g_warmup, 1);
  if (eng_cfg.time_limit > 0)
    g_deadline_ns = g_start_ns + (uint64_t) ((eng_cfg.time_limit + eng_cfg.warmup) * 1e9);
  if (eng_cfg.rate > 0)
    sb_rate_init(eng_cfg.rate, g_start_ns, sb_rand_params()->seed);
  /* Queries made by init() are not part of the measured run. */
  eng_set_baseline(g_start_ns);
  if (eng_cfg.warmup <= 0 && !eng_ctest)
    sb_lua_call_hook(sb_lua_global(), "measure_start");
  log_text(LOG_NOTICE, "Threads started!\n");
  if (eng_cfg.warmup > 0)
    log_text(LOG_NOTICE, "Warming up for %.15g seconds...\n", eng_cfg.warmup);
  ck_pr_store_int(&g_running_flag, 1);
  release_workers();

  const char *reason = NULL;
  int exit_code = 0;
  uint64_t warmup_end = eng_cfg.warmup > 0 ? g_start_ns + (uint64_t) (eng_cfg.warmup * 1e9) : 0;
  bool need_reporter = eng_cfg.report_interval > 0 || eng_cfg.ncheckpoints > 0 ||
                       sb_results_enabled();

  if (!warmup_end && need_reporter)
    sb_reporter_start();

  /* Main loop: wait for the end, a failure, the deadline or a signal. */
  for (;;)
  {
    if (count_finished() >= expected)
      break;
    if (ck_pr_load_int(&g_error))
      break;
    uint64_t now = sb_now_ns();
    if (warmup_end && now >= warmup_end)
    {
      eng_set_baseline(now);
      eng_run_t0_ns = now;
      if (!eng_ctest)
        sb_lua_call_hook(sb_lua_global(), "measure_start");
      sb_results_start(epoch_now());
      ck_pr_store_64(&g_events_issued, 0);
      ck_pr_store_int(&g_warmup, 0);
      warmup_end = 0;
      if (need_reporter)
        sb_reporter_start();
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
  ck_pr_store_64(&eng_stop_ns, stop_at);
  set_stop();

  /* Let in-flight events finish: up to the forced-shutdown limit after the
     time limit, or a short grace after a signal or failure. */
  uint64_t join_deadline = 0;
  bool forced = false;
  if (reason || ck_pr_load_int(&g_error))
    /* event mode: thousands of VUs must not hold the report (issue 9:
       within 2 s of SIGINT) */
    join_deadline = sb_now_ns() + (eng_cfg.event_mode ? 1500 : 5000) * NS_PER_MS;
  else if (eng_cfg.forced_shutdown >= 0 && eng_cfg.time_limit > 0)
  {
    join_deadline = g_deadline_ns + (uint64_t) (eng_cfg.forced_shutdown * 1e9);
    forced = true;
  }
  /* Phase 1 (server statistics on): until every worker is at the end
     line; phase 2: until every worker is done. */
  bool at_end_line = ck_pr_load_int(&end_line) != 0;
  for (;;)
  {
    if (at_end_line && count_finished() >= expected)
    {
      uint64_t t = sb_now_ns();
      sb_server_cost_end();
      sb_server_stats_end();
      g_sample_ns = sb_now_ns() - t;
      release_end_line();
      at_end_line = false;
    }
    if (!at_end_line && count_done() >= expected)
      break;
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
  /* Workers stuck in an event: no end sample (their connections are in
     use), but let the finished ones go on. */
  if (at_end_line)
    release_end_line();
  ck_pr_store_int(&g_running_flag, 0);
  bool all_done = count_done() >= expected;
  if (!reason && !ck_pr_load_int(&g_error))
    eng_end_ns = run_end_ns(all_done);

  sb_reporter_stop();

  if (!all_done && forced && !reason && !ck_pr_load_int(&g_error))
  {
    log_text(LOG_FATAL, "The --max-time limit has expired, forcing shutdown...");
    if (!eng_ctest)
      sb_lua_call_hook(sb_lua_global(), "measure_end");
    unsigned unfinished = 0;
    eng_final_report(NULL, &unfinished, 2);
    log_flush();
    _exit(2);
  }

  if (ck_pr_load_int(&g_error) && !reason)
  {
    static char buf[128];
    if (g_error_reason)
      snprintf(buf, sizeof(buf), "%s", g_error_reason);
    else if (g_error_tid >= 0)
      snprintf(buf, sizeof(buf), "fatal error in thread %d", g_error_tid);
    else
      snprintf(buf, sizeof(buf), "fatal error");
    reason = buf;
    exit_code = 1;
  }

  if (all_done)
    for (unsigned i = 0; i < created; i++)
      pthread_join(eng_workers[i].thread, NULL);

  /* bmk extension: the script samples what it measures itself (tpcc's
     schema NOPM) at the end of the measured interval. */
  if (!eng_ctest)
    sb_lua_call_hook(sb_lua_global(), "measure_end");
  if (eng_final_report(reason, NULL, exit_code) != 0 && exit_code == 0)
    g_results_failed = 1;
  sb_server_stats_close();
  if (g_results_failed && exit_code == 0)
    exit_code = 1;

  if (!reason && !eng_ctest)
  {
    if (sb_lua_call(sb_lua_global(), "done", -1, NULL) != 0)
      exit_code = 1;
  }
  log_flush();
  if (!all_done)
    _exit(exit_code);
  return exit_code;
}
