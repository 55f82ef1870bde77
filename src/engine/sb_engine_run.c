/* The main thread's control of one run (sb_engine_run, see sb_engine.h):
   start the workers, hold them at the start line through the barriers,
   wait for the end of the run, stop and join them, print the final
   report. The workers' side (event accounting, start and end lines,
   thread-mode worker) is in sb_engine.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

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
#include "core/sb_logger.h"
#include "core/sb_cluster.h"
#include "core/sb_rand.h"
#include "core/sb_timer.h"
#include "lua/sb_lua.h"
#include "core/sb_output.h"
#include "core/sb_probe.h"
#include "core/sb_spans.h"
#include "engine/sb_engine.h"
#include "engine/sb_loop.h"
#include "engine/sb_rate.h"
#include "engine/sb_sync.h"
#include "engine/sb_vuplan.h"

#include "engine/sb_engine_priv.h"

/* One run's control state, owned by the main thread and handed from one
   phase of sb_engine_run to the next. */
typedef struct {
  sigset_t sigs;              /* SIGINT and SIGTERM: blocked, waited for */
  unsigned created;           /* worker threads started */
  unsigned expected;          /* VUs of the workers that started */
  uint64_t start_ns;          /* clocks started (after the barriers) */
  uint64_t deadline_ns;       /* end of --time (after warmup); 0 = none */
  uint64_t warmup_end_ns;     /* end of a warmup still running; 0 = none */
  bool need_reporter;         /* interval lines, checkpoints or files */
  bool end_line;              /* VUs wait at the end line */
  bool forced;                /* --forced-shutdown bounds the join */
  bool stuck;                 /* --stuck-grace bounds the join */
  bool all_done;              /* every VU done when the join ended */
  /* The time the main thread spent reading the server's counters at the
     end line while the workers waited (not part of the run). */
  uint64_t sample_ns;
  const char *reason;         /* why the run was interrupted, or NULL */
  int exit_code;
} run_t;

static volatile int g_signal;    /* SIGINT/SIGTERM received */

/* The SQL layer's retry predicate: a lost connection is rebuilt while the
   run goes on and not after it was told to stop (the main thread waits for
   the workers then, and a worker retrying against a server that stays
   away would never finish). */
static bool keep_reconnecting(void)
{
  return sb_engine_running() && !sb_engine_stopping();
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

/* A signal ended the run (or its stopping): prints it and sets the
   interruption reason and the shell's exit code. */
static void note_signal(run_t *r, int sig)
{
  log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
  r->reason = sig == SIGINT ? "SIGINT" : "SIGTERM";
  r->exit_code = sig == SIGINT ? 130 : 143;
}

/* A run that fails before its start line: stop the workers that started,
   let them through the start line and join them. */
static void abort_workers(const run_t *r)
{
  eng_set_stop();
  eng_release_start_line();
  for (unsigned i = 0; i < r->created; i++)
    pthread_join(eng_workers[i].thread, NULL);
}

/* Ends the process while worker threads may still be running (in
   thread_init, connecting): _exit, not exit, whose atexit handlers and
   library destructors (the client libraries', OpenSSL's) would free what
   those threads are using. The log is flushed first. */
static void exit_now(int code)
{
  log_flush();
  _exit(code);
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
static uint64_t run_end_ns(const run_t *r, bool all_done)
{
  if (!all_done)
    return sb_now_ns();
  uint64_t end = eng_last_done_ns();
  if (end > r->sample_ns && end - r->sample_ns > eng_t0_ns)
    end -= r->sample_ns;
  return end;
}

/* Waits for every started VU's thread_init, within
   --thread-init-timeout (which covers a whole --login-delay ramp).
   Returns 0 when all succeeded; on a failure stops the workers, joins
   them and returns 1. A timeout or a signal exits the process. */
static int wait_init(const run_t *r)
{
  uint64_t init_deadline = eng_cfg.thread_init_timeout > 0
    ? sb_now_ns() + (uint64_t) (eng_cfg.thread_init_timeout * 1e9) : 0;
  unsigned ready, failed;
  for (;;)
  {
    eng_init_counts(&ready, &failed);
    if (ready >= r->expected)
      break;
    if (init_deadline && sb_now_ns() >= init_deadline)
    {
      log_text(LOG_FATAL, "Worker threads failed to initialize within %.15g seconds!",
               eng_cfg.thread_init_timeout);
      if (eng_cfg.event_mode)
        log_text(LOG_FATAL, "%u of %u virtual users were ready, %u failed, %u still "
                 "initializing (--thread-init-timeout covers the whole --login-delay ramp)",
                 ready - failed, eng_cfg.threads, failed, r->expected - ready);
      exit_now(2);
    }
    int sig = wait_signal(&r->sigs, 20 * NS_PER_MS);
    if (sig)
    {
      log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
      exit_now(sig == SIGINT ? 130 : 143);
    }
  }
  if (failed == 0 && r->created == eng_cfg.workers)
    return 0;
  log_text(LOG_FATAL, "Threads initialization failed!");
  if (eng_cfg.event_mode && failed > 0)
    sb_loop_report_init_failures(ready - failed, failed);
  else if (failed > 0)
    eng_report_conn_limit(ready - failed);
  abort_workers(r);
  return 1;
}

/* Before any worker: the script's init(), the result files, the run-mode
   block, a built-in test's prepare, the run's allocations. Returns 0, or
   1 (the reason printed). */
static int run_prepare(void)
{
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

  if (sb_output_open() != 0)
    return 1;
  eng_print_mode_block();
  if (eng_ctest && eng_ctest->prepare && eng_ctest->prepare() != 0)
    return 1;

  if (eng_alloc_run() != 0)
    return 1;
  if (!eng_ctest)
    eng_fd_budget();
  return 0;
}

/* Starts the workers and waits until their VUs are at the start line.
   Returns 0, or 1 when one could not start or initialise (workers
   joined). */
static int run_start_workers(run_t *r)
{
  log_text(LOG_NOTICE, "Initializing worker threads...\n");
  if (eng_cfg.sync_file && *eng_cfg.sync_file)
    sb_sync_announce(eng_cfg.sync_file);

  r->created = eng_start_workers();
  r->expected = 0;
  for (unsigned i = 0; i < r->created; i++)
    r->expected += sb_plan_vus_of_worker(i, eng_cfg.threads, eng_cfg.workers);

  return wait_init(r);
}

/* With the workers at the start line: --db-checkpoint, then the SYNC-file
   barrier. Returns 0 to start the run, or the exit code of a run that
   ends here (workers joined). */
static int run_barriers(run_t *r)
{
  /* The probes' actions (--db-checkpoint): before the barrier, so
     processes released together start together. */
  if (sb_probe_at_start_line() != 0)
  {
    abort_workers(r);
    return 1;
  }

  if (eng_cfg.sync_file && *eng_cfg.sync_file)
  {
    /* SIGINT/SIGTERM are blocked in every thread; a pending one is
       picked up by the handler thread below and aborts the wait. */
    start_signal_watch(&r->sigs);
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
      abort_workers(r);
      if (rc < 0)
        return 1;
      return g_signal == SIGTERM ? 143 : 130;
    }
  }
  return 0;
}

/* The measured time starts: tells the outputs. */
static void publish_start(void)
{
  sb_out_start_t s = { .epoch_s = epoch_now(), .threads = eng_cfg.threads,
                       .rate = eng_cfg.rate };
  sb_output_start(&s);
}

/* Starts the clocks and releases the start line: the server-side samples,
   limits, rate schedule, baseline, measure_start hook (without warmup)
   and the reporter thread (without warmup). */
static void run_release(run_t *r)
{
  /* The server's counters are read while the workers wait at the start
     line, so both sides count the same window. */
  if (sb_probe_begin())
  {
    eng_arm_end_line();
    r->end_line = true;
  }

  /* Clocks start now. */
  r->start_ns = sb_now_ns();
  if (eng_cfg.warmup <= 0)
    publish_start();
  eng_t0_ns = eng_run_t0_ns = r->start_ns;
  sb_spans_origin(eng_run_t0_ns);
  if (eng_cfg.warmup > 0)
    eng_warmup_begin();
  if (eng_cfg.time_limit > 0)
    r->deadline_ns = r->start_ns + (uint64_t) ((eng_cfg.time_limit + eng_cfg.warmup) * 1e9);
  ck_pr_store_64(&eng_deadline_ns, r->deadline_ns);
  if (eng_cfg.rate > 0)
    /* each process of a cluster run has its own arrival schedule */
    sb_rate_init(eng_cfg.rate, r->start_ns,
                 sb_rand_params()->seed + sb_cluster_index() * 0x9e3779b97f4a7c15ULL);
  /* Queries made by init() are not part of the measured run. */
  eng_set_baseline(r->start_ns);
  if (eng_cfg.warmup <= 0 && !eng_ctest)
    sb_lua_call_hook(sb_lua_global(), "measure_start");
  log_text(LOG_NOTICE, "Threads started!\n");
  if (eng_cfg.warmup > 0)
    log_text(LOG_NOTICE, "Warming up for %.15g seconds...\n", eng_cfg.warmup);
  eng_set_running(true);
  eng_release_start_line();

  r->warmup_end_ns = eng_cfg.warmup > 0
    ? r->start_ns + (uint64_t) (eng_cfg.warmup * 1e9) : 0;
  r->need_reporter = eng_cfg.report_interval > 0 || eng_cfg.ncheckpoints > 0 ||
                     sb_output_wants_intervals();

  if (!r->warmup_end_ns && r->need_reporter)
    sb_reporter_start();
}

/* The end of warmup (at `now_ns`): the measured run starts. */
static void end_warmup(run_t *r, uint64_t now_ns)
{
  eng_set_baseline(now_ns);
  eng_run_t0_ns = now_ns;
  sb_spans_origin(now_ns);
  if (!eng_ctest)
    sb_lua_call_hook(sb_lua_global(), "measure_start");
  publish_start();
  eng_warmup_end();
  r->warmup_end_ns = 0;
  if (r->need_reporter)
    sb_reporter_start();
}

/* Main loop: waits for the end (every VU finished), a failure, the
   deadline or a signal, ending the warmup on the way. */
static void run_wait_end(run_t *r)
{
  for (;;)
  {
    if (eng_count_finished() >= r->expected)
      break;
    if (eng_failed())
      break;
    uint64_t now = sb_now_ns();
    if (r->warmup_end_ns && now >= r->warmup_end_ns)
      end_warmup(r, now);
    if (r->deadline_ns && now >= r->deadline_ns)
      break;
    uint64_t wait = 50 * NS_PER_MS;
    if (r->deadline_ns && r->deadline_ns - now < wait)
      wait = r->deadline_ns - now;
    if (r->warmup_end_ns && r->warmup_end_ns - now < wait)
      wait = r->warmup_end_ns - now;
    int sig = wait_signal(&r->sigs, wait);
    if (sig)
    {
      note_signal(r, sig);
      break;
    }
  }
}

/* How long to wait for the workers once stopped (sb_now_ns clock, 0 = no
   limit): let in-flight events finish, up to the forced-shutdown limit
   after the time limit (sets r->forced), or a short grace after a signal
   or failure. */
static uint64_t join_deadline_ns(run_t *r)
{
  if (r->reason || eng_failed())
    /* event mode: thousands of VUs must not hold the report (it must
       come within 2 s of SIGINT) */
    return sb_now_ns() + (eng_cfg.event_mode ? 1500 : 5000) * NS_PER_MS;
  if (eng_cfg.forced_shutdown >= 0 && eng_cfg.time_limit > 0)
  {
    r->forced = true;
    return r->deadline_ns + (uint64_t) (eng_cfg.forced_shutdown * 1e9);
  }
  if (eng_cfg.stuck_grace >= 0 && eng_cfg.time_limit > 0)
  {
    r->stuck = true;
    return r->deadline_ns + (uint64_t) (eng_cfg.stuck_grace * 1e9);
  }
  return 0;
}

/* The end of a run whose workers cannot be joined (events still running):
   the script's measure_end hook, the report with the unfinished events
   counted to the end of the measured time (`why`: the interruption's
   reason, NULL for sysbench's forced shutdown), then exit code 2. */
static void exit_with_unfinished(const char *why)
{
  if (!eng_ctest)
    sb_lua_call_hook(sb_lua_global(), "measure_end");
  unsigned unfinished = 0;
  eng_final_report(why, &unfinished, 2);
  sb_output_close();
  log_flush();
  _exit(2);
}

/* bmk's end of a run whose events outlived --time by the stuck grace (the
   server stopped answering): names them, reports the --time window with
   them counted to its end (their waiting time as latency) and the reason
   in the report and the result files, and exits with 2, as a forced
   shutdown does (the stuck workers cannot be joined). */
static void finish_stuck(void)
{
  /* the measured time is --time, not --time + the grace, in which nothing
     could complete */
  eng_end_ns = ck_pr_load_64(&eng_stop_ns);
  unsigned n = eng_print_stuck(eng_end_ns, eng_cfg.stuck_grace);
  static char why[160];
  snprintf(why, sizeof(why), "%u event(s) still waiting for the server %.1f s after the "
           "end of --time", n, eng_cfg.stuck_grace);
  exit_with_unfinished(why);
}

/* Stops the workers and waits for them (the end-line samples on the
   way), within the join deadline; sets r->all_done and the end of the
   measured time. */
static void run_stop(run_t *r)
{
  uint64_t stop_at = sb_now_ns();
  if (r->deadline_ns && stop_at > r->deadline_ns && !r->reason && !eng_failed())
    stop_at = r->deadline_ns;
  ck_pr_store_64(&eng_stop_ns, stop_at);
  eng_set_stop();

  uint64_t join_deadline = join_deadline_ns(r);
  /* Phase 1 (server statistics on): until every worker is at the end
     line; phase 2: until every worker is done. */
  bool at_end_line = r->end_line;
  for (;;)
  {
    if (at_end_line && eng_count_finished() >= r->expected)
    {
      uint64_t t = sb_now_ns();
      sb_probe_end();
      r->sample_ns = sb_now_ns() - t;
      eng_release_end_line();
      at_end_line = false;
    }
    if (!at_end_line && eng_count_done() >= r->expected)
      break;
    uint64_t now = sb_now_ns();
    if (join_deadline && now >= join_deadline)
      break;
    int sig = wait_signal(&r->sigs, 20 * NS_PER_MS);
    if (sig && !r->reason)
    {
      note_signal(r, sig);
      join_deadline = now + 2 * NS_PER_SEC;
    }
  }
  /* Workers stuck in an event: no end sample (their connections are in
     use), but let the finished ones go on. */
  if (at_end_line)
    eng_release_end_line();
  eng_set_running(false);
  r->all_done = eng_count_done() >= r->expected;
  if (!r->reason && !eng_failed())
    eng_end_ns = run_end_ns(r, r->all_done);
}

/* After the workers stopped: the final report (or the forced-shutdown
   one, which exits), the done() function and the exit code. Returns the
   exit code, or exits the process when workers are still running. */
static int run_finish(run_t *r)
{
  sb_reporter_stop();

  if (!r->all_done && r->forced && !r->reason && !eng_failed())
  {
    log_text(LOG_FATAL, "The --max-time limit has expired, forcing shutdown...");
    exit_with_unfinished(NULL);
  }
  if (!r->all_done && r->stuck && !r->reason && !eng_failed())
    finish_stuck();

  if (eng_failed() && !r->reason)
  {
    static char buf[128];
    eng_failure_text(buf, sizeof(buf));
    r->reason = buf;
    r->exit_code = 1;
  }

  if (r->all_done)
    for (unsigned i = 0; i < r->created; i++)
      pthread_join(eng_workers[i].thread, NULL);

  /* bmk extension: the script samples what it measures itself (tpcc's
     schema NOPM) at the end of the measured interval. */
  if (!eng_ctest)
    sb_lua_call_hook(sb_lua_global(), "measure_end");
  if (eng_final_report(r->reason, NULL, r->exit_code) != 0 && r->exit_code == 0)
    r->exit_code = 1;            /* an output failed (a result file not written) */
  if (r->exit_code == 0)
    r->exit_code = sb_output_requested_exit(); /* an output's verdict (--threshold) */
  sb_output_close();
  sb_probe_close();

  if (!r->reason && !eng_ctest)
  {
    if (sb_lua_call(sb_lua_global(), "done", -1, NULL) != 0)
      r->exit_code = 1;
  }
  log_flush();
  if (!r->all_done)
    _exit(r->exit_code);
  return r->exit_code;
}

int sb_engine_run(const sb_run_config_t *config, const sb_c_test_t *test)
{
  run_t r;
  memset(&r, 0, sizeof(r));
  eng_cfg = *config;
  eng_ctest = test;
  db_set_retry_predicate(keep_reconnecting);
  sigemptyset(&r.sigs);
  sigaddset(&r.sigs, SIGINT);
  sigaddset(&r.sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &r.sigs, NULL);

  if (run_prepare() != 0 || run_start_workers(&r) != 0)
  {
    sb_output_close();
    sb_probe_close();
    return 1;
  }
  int rc = run_barriers(&r);
  if (rc != 0)
  {
    sb_output_close();
    sb_probe_close();
    return rc;
  }
  run_release(&r);
  run_wait_end(&r);
  run_stop(&r);
  return run_finish(&r);
}
