/* The run engine (see sb_engine.h), the workers' side: the state shared
   by the engine's files, the event accounting behind sb_more_events /
   sb_event_start / sb_event_stop, the start and end lines, and the
   thread-mode worker. The main thread's control of a run (start, wait,
   stop, join, final report) is in sb_engine_run.c. */
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

#include "core/sb_counter.h"
#include "drivers/db_driver.h"
#include "engine/sb_engine.h"
#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"
#include "core/sb_retry.h"
#include "engine/sb_rate.h"
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
uint64_t eng_deadline_ns;
/* When the last VU was done (after thread_done): the end of the measured
   time, as sysbench's timers stop after joining the workers. */
static uint64_t g_last_done_ns;


static int g_stop;               /* workers must stop */
static int g_error;              /* a worker failed */
static int g_error_tid = -1;
static const char *g_error_reason; /* the run's own fatal error, if any */
static int g_warmup;             /* inside warmup: --events suspended */
static int g_running_flag;
static uint64_t g_events_issued;
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

void sb_engine_end_run(void)
{
  eng_set_stop();
}

bool sb_engine_sleep(int thread_id, double seconds)
{
  (void) thread_id;
  if (!(seconds > 0))
    return !sb_engine_stopping();
  if (seconds > SB_SLEEP_MAX_S)     /* (uint64_t) of a larger double overflows */
    seconds = SB_SLEEP_MAX_S;
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

void eng_set_stop(void)
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
      eng_set_stop();
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
    uint64_t end = ck_pr_load_64(&eng_deadline_ns);
    /* Sleep in short slices so a stop is noticed even at low rates. An
       arrival at or after the end of --time never runs: the VU wakes at
       the end itself, not up to a slice later, so that the run's elapsed
       time (until its last VU is done) is not stretched by sleeping VUs
       and events/s is not understated by the share of VUs sleeping past
       the end (10% and more with many VUs per event per second). */
    while (t > now)
    {
      uint64_t until = t - now > 100 * NS_PER_MS ? now + 100 * NS_PER_MS : t;
      if (end && until > end)
        until = end;
      sb_sleep_until_ns(until);
      if (ck_pr_load_int(&g_stop))
        return false;
      now = sb_now_ns();
      if (end && t >= end && now >= end)
        return false;
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
  /* read by the reporter and the end of the run while the event runs */
  ck_pr_store_64(&v->start_ns, eng_cfg.rate > 0 ? v->intended_ns : sb_now_ns());
  v->sched_ns = 0;
  ck_pr_store_int(&v->cur_type, 0);
  v->errors_at_start = eng_vu_errors(v);
  v->failed = 0;
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
    ck_pr_store_int(&v->cur_type, type_id);
}

void sb_event_restarted(int thread_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v)
    sb_evtype_rollback(eng_workers[v->worker].types, v->cur_type);
}

void sb_event_failed(int thread_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v)
    v->failed = 1;
}

bool sb_event_may_retry(int thread_id, unsigned tries)
{
  int max = sb_retry_max_tries();
  if (max > 0 && tries >= (unsigned) max)
    return false;
  if (ck_pr_load_int(&g_stop))
    return false;
  sb_vu_t *v = vu(thread_id);
  if (v != NULL && eng_cfg.latency_limit_ns > 0)
  {
    uint64_t now = sb_now_ns(), start = ck_pr_load_64(&v->start_ns);
    if (now > start && now - start > eng_cfg.latency_limit_ns)
      return false;
  }
  return true;
}

void sb_event_stop(int thread_id)
{
  sb_vu_t *v = vu(thread_id);
  if (v == NULL)
    return;
  if (v->failed)
  {
    /* a failed transaction is no completed event (pgbench counts it
       apart too): the retry counts name it */
    v->failed = 0;
    ck_pr_store_int(&v->in_event, 0);
    return;
  }
  sb_worker_t *w = &eng_workers[v->worker];
  uint64_t now = sb_now_ns();
  /* the event loop's own delays in resuming the VU are not the database's */
  uint64_t end = now - (v->sched_ns < now ? v->sched_ns : 0);
  uint64_t lat = end > v->start_ns ? end - v->start_ns : 0;

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
  eng_set_stop();
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

void eng_release_end_line(void)
{
  pthread_mutex_lock(&start_mutex);
  end_released = 1;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
  notify_workers();
}

unsigned eng_count_finished(void)
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
  if (rc != 0)
    eng_note_init_failure(v->tid);

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
    ck_pr_store_64(&v->ended_ns, sb_now_ns());
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

/* ---- run control, for the main thread (sb_engine_run.c) ---------------- */

unsigned eng_count_done(void)
{
  pthread_mutex_lock(&start_mutex);
  unsigned d = done_count;
  pthread_mutex_unlock(&start_mutex);
  return d;
}

/* The first thread_init failure (eng_note_init_failure), under
   start_mutex. */
static struct {
  int tid;
  int sql_errno;
  char sql_state[6];
  char msg[256];
} first_fail = { -1, 0, "", "" };

void eng_note_init_failure(int tid)
{
  int err = 0;
  const char *state = "";
  bool conn = db_last_connect_error(&err, &state) != 0;
  pthread_mutex_lock(&start_mutex);
  if (first_fail.tid < 0)
  {
    first_fail.tid = tid;
    if (conn)
    {
      first_fail.sql_errno = err;
      snprintf(first_fail.sql_state, sizeof(first_fail.sql_state), "%s", state);
      snprintf(first_fail.msg, sizeof(first_fail.msg), "%s", db_last_connect_errmsg());
    }
  }
  pthread_mutex_unlock(&start_mutex);
}

int eng_first_init_failure_tid(void)
{
  pthread_mutex_lock(&start_mutex);
  int tid = first_fail.tid;
  pthread_mutex_unlock(&start_mutex);
  return tid;
}

void eng_report_conn_limit(unsigned ok)
{
  pthread_mutex_lock(&start_mutex);
  /* MySQL ER_CON_COUNT_ERROR, PostgreSQL too_many_connections, pgbouncer's
     max_client_conn */
  bool limit = first_fail.sql_errno == 1040 || strcmp(first_fail.sql_state, "53300") == 0 ||
    strstr(first_fail.msg, "too many") ||
    strstr(first_fail.msg, "max_client_conn") || strstr(first_fail.msg, "no more connections");
  pthread_mutex_unlock(&start_mutex);
  if (limit)
    log_text(LOG_FATAL, "the server refused connection %u: its connection limit is "
             "reached (MariaDB/MySQL max_connections, PostgreSQL max_connections, "
             "pgbouncer max_client_conn); raise it or lower --threads", ok + 1);
}

void eng_init_counts(unsigned *ready, unsigned *failed)
{
  pthread_mutex_lock(&start_mutex);
  *ready = ready_count;
  *failed = init_failed;
  pthread_mutex_unlock(&start_mutex);
}

void eng_release_start_line(void)
{
  pthread_mutex_lock(&start_mutex);
  start_released = 1;
  pthread_cond_broadcast(&start_cond);
  pthread_mutex_unlock(&start_mutex);
  notify_workers();
}

void eng_arm_end_line(void)
{
  ck_pr_store_int(&end_line, 1);
}

uint64_t eng_last_done_ns(void)
{
  pthread_mutex_lock(&start_mutex);
  uint64_t end = g_last_done_ns;
  pthread_mutex_unlock(&start_mutex);
  return end;
}

void eng_set_running(bool running)
{
  ck_pr_store_int(&g_running_flag, running ? 1 : 0);
}

void eng_warmup_begin(void)
{
  ck_pr_store_int(&g_warmup, 1);
}

void eng_warmup_end(void)
{
  ck_pr_store_64(&g_events_issued, 0);
  ck_pr_store_int(&g_warmup, 0);
}

bool eng_failed(void)
{
  return ck_pr_load_int(&g_error) != 0;
}

void eng_failure_text(char *buf, size_t size)
{
  if (g_error_reason)
    snprintf(buf, size, "%s", g_error_reason);
  else if (g_error_tid >= 0)
    snprintf(buf, size, "fatal error in thread %d", g_error_tid);
  else
    snprintf(buf, size, "fatal error");
}

unsigned eng_start_workers(void)
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
      eng_set_stop();
      break;
    }
    created++;
  }
  pthread_attr_destroy(&attr);
  return created;
}
