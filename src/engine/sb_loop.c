/*
 * Event-mode workers: one epoll loop per OS thread running many virtual
 * users; see sb_loop.h and docs/design.md.
 */
#define _GNU_SOURCE            /* gettid */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <ck_pr.h>
#include <lua.h>

#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"
#include "core/sb_timer.h"
#include "engine/sb_engine_priv.h"
#include "engine/sb_loop.h"
#include "engine/sb_loop_priv.h"
#include "engine/sb_timerq.h"
#include "engine/sb_vuplan.h"
#include "lua/sb_lua.h"

/* The loop of the calling thread (FFI entry points find their VU here). */
_Thread_local struct sb_loop *tl_loop;

/* Every worker's loop, for sb_loop_wake_all (published once each). */
static struct sb_loop **loops;
static unsigned nloops;
static pthread_mutex_t loops_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Initialisation failures across workers: after the first, VUs not yet
   started are skipped and the others fail quietly. */
static int init_abort;
static unsigned vus_skipped;

/* ---- run queue and waits --------------------------------------------------- */

void loop_enqueue(struct sb_loop *l, lvu_t *v)
{
  v->wait = W_RUNQ;
  v->next = NULL;
  if (l->rq_tail)
    l->rq_tail->next = v;
  else
    l->rq_head = v;
  l->rq_tail = v;
}

static lvu_t *dequeue(struct sb_loop *l)
{
  lvu_t *v = l->rq_head;
  if (v)
  {
    l->rq_head = v->next;
    if (l->rq_head == NULL)
      l->rq_tail = NULL;
    v->next = NULL;
  }
  return v;
}

/* Makes a waiting VU runnable with resume value `value`. */
static void wake(struct sb_loop *l, lvu_t *v, int value)
{
  sb_tq_cancel(&l->tq, &v->timer);
  v->has_value = true;
  v->value = value;
  v->interruptible = false;
  loop_enqueue(l, v);
}

void loop_arm_timer(struct sb_loop *l, lvu_t *v, uint64_t due)
{
  if (sb_tq_arm(&l->tq, &v->timer, due) != 0)
  {
    log_text(LOG_FATAL, "out of memory in the event loop");
    abort();
  }
}

/* ---- VU context switch ------------------------------------------------------- */

void loop_switch_in(struct sb_loop *l, lvu_t *v)
{
  sb_tls_tid = v->vu->tid;
  sb_rand_state_set(v->rng);
  l->w->err_mark = sb_counter_val(v->vu->tid, SB_CNT_ERROR);
  l->current = v;
  db_loop_thread(true);
}

void loop_switch_out(struct sb_loop *l, lvu_t *v)
{
  db_loop_thread(false);
  sb_rand_state_get(v->rng);
  v->vu->err_acc += sb_counter_val(v->vu->tid, SB_CNT_ERROR) - l->w->err_mark;
  l->current = NULL;
}

/* A Lua VU's switch: also its connect-error messages, and no messages
   for the others' failures after a failed initialisation. */
static void switch_in(struct sb_loop *l, lvu_t *v)
{
  db_quiet_connect_errors(v->quiet);
  db_quiet_all_errors(v->phase <= PH_INIT && ck_pr_load_int(&init_abort));
  loop_switch_in(l, v);
}

static void switch_out(struct sb_loop *l, lvu_t *v)
{
  loop_switch_out(l, v);
  db_quiet_all_errors(0);
  v->quiet = db_connect_errors_quiet();
}

/* ---- phases ---------------------------------------------------------------------- */

static void phase_next(struct sb_loop *l, lvu_t *v);

void loop_vu_gone(struct sb_loop *l, lvu_t *v)
{
  ck_pr_store_64(&v->vu->ended_ns, sb_now_ns());
  ck_pr_store_int(&v->vu->running, 0);
  v->phase = PH_GONE;
  v->wait = W_NONE;
  l->gone++;
  if (v->co)
  {
    sb_lua_vu_free(l->w->L, v->ref);
    v->co = NULL;
  }
  eng_vu_done();
}

/* Remembers the first initialisation failure for the summary. */
static void note_init_failure(lvu_t *v)
{
  if (ck_pr_fas_int(&init_abort, 1) != 0)
    return;
  eng_note_init_failure(v->vu->tid);
  sb_loop_wake_all();
}

void loop_init_failed(struct sb_loop *l, lvu_t *v)
{
  v->init_failed = true;
  v->phase = PH_START_LINE;
  v->wait = W_LINE;
  eng_vu_ready(true);
  (void) l;
}

/* Pushes the phase's function on the coroutine; false when the VU has
   none (the phase is then complete at once). */
static bool push_phase(struct sb_loop *l, lvu_t *v, const char *name)
{
  return sb_lua_vu_push(l->w->L, v->co, name, v->vu->tid);
}

/* The VU left its events (or never ran them): it counts at the end line
   and waits there while the line holds. */
void loop_to_end_line(struct sb_loop *l, lvu_t *v)
{
  ck_pr_store_int(&v->vu->in_event, 0);
  eng_vu_finished();
  v->phase = PH_END_LINE;
  v->wait = W_LINE;
  if (!eng_end_line_holds())
    loop_enqueue(l, v);
}

/* The VU's current phase completed without error: go to the next one. */
static void phase_next(struct sb_loop *l, lvu_t *v)
{
  switch (v->phase)
  {
  case PH_CHUNK:
    sb_lua_vu_chunk_done(l->w->L, v->vu->tid);
    v->phase = PH_INIT;
    if (push_phase(l, v, "thread_init"))
    {
      loop_enqueue(l, v);
      return;
    }
    /* no thread_init */
    __attribute__((fallthrough));
  case PH_INIT:
    v->phase = PH_START_LINE;
    v->wait = W_LINE;
    /* thread_run waits on the coroutine, so leaving the start line costs
       the VU nothing but its first resume */
    v->run_ready = push_phase(l, v, "thread_run");
    eng_vu_ready(false);
    if (l->start_seen)
      loop_enqueue(l, v);
    return;
  case PH_RUN:
    loop_to_end_line(l, v);
    return;
  case PH_DONE:
    loop_vu_gone(l, v);
    return;
  default:
    return;
  }
}

/* The coroutine raised an error in its current phase. */
static void phase_error(struct sb_loop *l, lvu_t *v)
{
  static const char *const names[] = {
    [PH_INIT] = "thread_init", [PH_RUN] = "thread_run", [PH_DONE] = "thread_done"
  };
  bool init = v->phase == PH_CHUNK || v->phase == PH_INIT;
  /* after the first failed initialisation, later ones are only counted */
  if (!(init && ck_pr_load_int(&init_abort)))
    sb_lua_log_error(v->co, v->phase == PH_CHUNK ? NULL : names[v->phase]);
  lua_settop(v->co, 0);
  v->failed = true;
  if (init)
  {
    note_init_failure(v);
    loop_init_failed(l, v);
    return;
  }
  eng_vu_fail(v->vu->tid);
  if (v->phase == PH_RUN)
    loop_to_end_line(l, v);
  else
    loop_vu_gone(l, v);
}

/* Starts a VU: its coroutine and environment, then its chunk. */
static void vu_start(struct sb_loop *l, lvu_t *v)
{
  if (ck_pr_load_int(&init_abort) || sb_engine_stopping())
  {
    ck_pr_inc_uint(&vus_skipped);
    loop_init_failed(l, v);
    return;
  }
  sb_rand_thread_init(v->vu->tid);
  sb_rand_state_get(v->rng);
  sb_tls_tid = v->vu->tid;
  v->co = sb_lua_vu_new(l->w->L, v->vu->tid, &v->ref);
  if (v->co == NULL)
  {
    note_init_failure(v);
    loop_init_failed(l, v);
    return;
  }
  v->phase = PH_CHUNK;
  loop_enqueue(l, v);
}

/* Takes the loop's own delay out of the VU's latency: the time from its
   readiness (or its arrival) until this resume is spent on other VUs of
   the worker (and, for an arrival, in the timer's wake-up), not waiting
   for the database. An arrival's event starts now (the query is sent in
   this resume); a readiness's delay is subtracted at the event's end.
   A VU that takes an arrival already due (no VU was free for it) still
   counts from the arrival: that queueing is the run's, not the loop's. */
void loop_note_delay(lvu_t *v)
{
  uint64_t now = sb_now_ns();
  uint64_t d = now > v->ready_ns ? now - v->ready_ns : 0;
  if (v->arrival_wake)
    v->vu->intended_ns += d;
  else
    v->vu->sched_ns += d;
  v->ready_ns = 0;
  v->arrival_wake = false;
}

/* Runs the VU until it waits or finishes its phase. */
static void step(struct sb_loop *l, lvu_t *v)
{
  if (eng_ctest)
  {
    loop_ctest_step(l, v);
    return;
  }
  if (v->phase == PH_LOGIN)
  {
    vu_start(l, v);
    return;
  }
  if (v->phase == PH_START_LINE || v->phase == PH_END_LINE)
  {
    /* released from a line (see check_lines) */
    return;
  }
  int nargs = 0;
  bool op_wake = v->op != NULL && v->has_value;
  if (lua_status(v->co) != LUA_YIELD)
    nargs = lua_gettop(v->co) - 1;     /* a phase starts: its function, tid */
  else if (v->has_value && !op_wake)
  {
    lua_pushinteger(v->co, v->value);
    nargs = 1;
  }
  v->has_value = false;
  v->wait = W_NONE;
  if (v->ready_ns)
    loop_note_delay(v);
  switch_in(l, v);
  /* a C continuation: the operation goes on without the VU's Lua until
     it is done */
  if (op_wake && sb_vu_step_op(l, v, v->value) != 0)
  {
    switch_out(l, v);
    return;
  }
  int rc = lua_resume(v->co, nargs);
  switch_out(l, v);
  if (rc == LUA_YIELD)
  {
    lua_settop(v->co, 0);
    /* a plain coroutine.yield() from the script: let the others run */
    if (v->wait == W_NONE)
      loop_enqueue(l, v);
    return;
  }
  if (rc == 0)
  {
    lua_settop(v->co, 0);
    phase_next(l, v);
    return;
  }
  phase_error(l, v);
}

/* ---- lines and stop ----------------------------------------------------------- */

/* Leaves the start line: run, or skip to the end line (failed init or the
   run already stopping), as thread mode does. */
static void leave_start_line(struct sb_loop *l, lvu_t *v)
{
  if (!v->init_failed && !v->failed && !sb_engine_stopping() && v->run_ready)
  {
    ck_pr_store_int(&v->vu->running, 1);
    v->phase = PH_RUN;
    loop_enqueue(l, v);
    return;
  }
  if (v->co)
    lua_settop(v->co, 0);
  v->init_failed = true;     /* no thread_done, as in thread mode */
  loop_to_end_line(l, v);
}

static void leave_end_line(struct sb_loop *l, lvu_t *v)
{
  if (eng_ctest)
  {
    loop_ctest_done(l, v);
    return;
  }
  if (!v->init_failed && !v->failed && push_phase(l, v, "thread_done"))
  {
    v->phase = PH_DONE;
    loop_enqueue(l, v);
    return;
  }
  loop_vu_gone(l, v);
}

/* Acts on the start line, the end line, the stop flag and an aborted
   initialisation. Each changes once per run and comes with a wake-up of
   the worker (eventfd), so the VUs are scanned only then. */
static void check_lines(struct sb_loop *l)
{
  if (!l->abort_seen && ck_pr_load_int(&init_abort))
  {
    l->abort_seen = true;
    for (unsigned i = 0; i < l->n; i++)
      if (l->vus[i].phase == PH_LOGIN && sb_tq_armed(&l->vus[i].timer))
      {
        /* not started yet: counted as skipped at once */
        sb_tq_cancel(&l->tq, &l->vus[i].timer);
        loop_enqueue(l, &l->vus[i]);
      }
  }
  if (!l->stop_seen && sb_engine_stopping())
  {
    l->stop_seen = true;
    for (unsigned i = 0; i < l->n; i++)
      if (l->vus[i].interruptible)
        wake(l, &l->vus[i], 0);
  }
  if (!l->start_seen && eng_start_released())
  {
    l->start_seen = true;
    for (unsigned i = 0; i < l->n; i++)
    {
      lvu_t *v = &l->vus[i];
      if (v->wait == W_LINE && v->phase == PH_START_LINE)
      {
        v->wait = W_NONE;
        leave_start_line(l, v);
      }
    }
  }
  /* not latched: the end line may be set up after a worker first looks */
  if (!eng_end_line_holds())
  {
    for (unsigned i = 0; i < l->n; i++)
    {
      lvu_t *v = &l->vus[i];
      if (v->wait == W_LINE && v->phase == PH_END_LINE)
      {
        v->wait = W_NONE;
        leave_end_line(l, v);
      }
    }
  }
}

/* Lines are rare events: the run queue may carry VUs parked at a line
   (enqueued when the line was already open); dispatch them here. */
static void run_line_vu(struct sb_loop *l, lvu_t *v)
{
  v->wait = W_NONE;
  if (v->phase == PH_START_LINE)
    leave_start_line(l, v);
  else
    leave_end_line(l, v);
}

/* ---- the loop ------------------------------------------------------------------ */

static void drain_eventfd(struct sb_loop *l)
{
  uint64_t x;
  while (read(l->evfd, &x, sizeof(x)) > 0)
    ;
}

static int ready_bits(uint32_t ev)
{
  int r = 0;
  if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
    r |= DB_WAIT_READ;
  if (ev & EPOLLOUT)
    r |= DB_WAIT_WRITE;
  return r;
}

/* Fires due timers. */
static void expire(struct sb_loop *l, uint64_t now)
{
  sb_tq_ent_t *e;
  while ((e = sb_tq_pop_due(&l->tq, now)) != NULL)
  {
    lvu_t *v = (lvu_t *) e;
    if (v->phase == PH_LOGIN)
    {
      loop_enqueue(l, v);
      continue;
    }
    switch (v->wait)
    {
    case W_IO:
      wake(l, v, DB_WAIT_TIMEOUT);
      break;
    case W_TIMER:
      wake(l, v, 1);
      if (v->arrival)
      {
        eng_arrival_reached(v->vu->tid, v->arrival);
        v->ready_ns = v->arrival;
        v->arrival_wake = true;
        v->arrival = 0;
      }
      break;
    default:
      break;
    }
  }
}

/* Waits for events (at most until the next timer) and wakes their VUs. */
void loop_poll_events(struct sb_loop *l)
{
  struct epoll_event evs[256];
  struct timespec ts, *tsp = NULL;
  if (l->rq_head)
  {
    ts.tv_sec = 0;
    ts.tv_nsec = 0;
    tsp = &ts;
  }
  else
  {
    /* a safety net: flags are also looked at every 200 ms */
    uint64_t now = sb_now_ns(), until = now + 200 * NS_PER_MS;
    sb_tq_ent_t *first = sb_tq_first(&l->tq);
    if (first && first->due_ns < until)
      until = first->due_ns > now ? first->due_ns : now;
    ts.tv_sec = (time_t) ((until - now) / NS_PER_SEC);
    ts.tv_nsec = (long) ((until - now) % NS_PER_SEC);
    tsp = &ts;
  }
  int n = epoll_pwait2(l->epfd, evs, 256, tsp, NULL);
  if (n < 0 && errno == ENOSYS)
  {
    int ms = (int) (tsp->tv_sec * 1000 + (tsp->tv_nsec + 999999) / 1000000);
    n = epoll_wait(l->epfd, evs, 256, ms);
  }
  /* one time for the whole batch: a VU resumed later in the round than
     another has not waited longer for the database (see step) */
  uint64_t now = sb_now_ns();
  for (int i = 0; i < n; i++)
  {
    uint64_t d = evs[i].data.u64;
    if (d == UINT64_MAX)
    {
      drain_eventfd(l);
      l->poked = true;
      continue;
    }
    uint32_t idx = (uint32_t) d;
    int fd = (int) (d >> 32);
    if (idx >= l->n)
      continue;
    lvu_t *v = &l->vus[idx];
    if (v->wait == W_IO && v->wait_fd == fd)
    {
      wake(l, v, ready_bits(evs[i].events));
      v->ready_ns = now;
    }
    else
    {
      /* a readiness nobody waits for (the VU stopped waiting on a timeout,
         or does something else meanwhile): a registration kept across
         waits is level-triggered, so it is removed, not to fire again
         until the VU waits on the descriptor */
      epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
      if (v->reg_fd == fd)
        v->reg_fd = -1;
    }
  }
  expire(l, now);
}

static void run_loop(struct sb_loop *l)
{
  l->poked = true;
  while (l->gone < l->n)
  {
    if (l->poked)
    {
      l->poked = false;
      check_lines(l);
    }
    /* run what is runnable now; VUs made runnable meanwhile wait for the
       next round, after the events */
    lvu_t *tail = l->rq_tail;
    lvu_t *v;
    while (tail && (v = dequeue(l)) != NULL)
    {
      if (v->phase == PH_START_LINE || v->phase == PH_END_LINE)
        run_line_vu(l, v);
      else
        step(l, v);
      if (v == tail)
        break;
    }
    if (l->gone >= l->n)
      break;
    loop_poll_events(l);
  }
}

/* ---- worker setup --------------------------------------------------------------- */

static int loop_open(struct sb_loop *l, sb_worker_t *w)
{
  memset(l, 0, sizeof(*l));
  l->w = w;
  l->n = sb_plan_vus_of_worker(w->index, eng_cfg.threads, eng_cfg.workers);
  l->vus = calloc(l->n ? l->n : 1, sizeof(lvu_t));
  l->epfd = epoll_create1(EPOLL_CLOEXEC);
  l->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (l->vus == NULL || l->epfd < 0 || l->evfd < 0 || sb_tq_init(&l->tq, 64) != 0)
  {
    log_text(LOG_FATAL, "cannot set up the event loop of worker %u: %s", w->index,
             strerror(errno));
    return -1;
  }
  struct epoll_event ev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
  epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->evfd, &ev);
  for (unsigned m = 0; m < l->n; m++)
  {
    lvu_t *v = &l->vus[m];
    sb_tq_ent_init(&v->timer);
    v->vu = &eng_vus[w->index + m * eng_cfg.workers];
    v->index = m;
    v->phase = PH_LOGIN;
    v->wait_fd = -1;
    v->reg_fd = -1;
  }
  pthread_mutex_lock(&loops_mutex);
  if (loops == NULL)
  {
    loops = calloc(eng_cfg.workers, sizeof(*loops));
    nloops = loops ? eng_cfg.workers : 0;
  }
  if (loops && w->index < nloops)
    loops[w->index] = l;
  pthread_mutex_unlock(&loops_mutex);
  return 0;
}

static void loop_close(struct sb_loop *l)
{
  pthread_mutex_lock(&loops_mutex);
  if (loops && l->w->index < nloops)
    loops[l->w->index] = NULL;
  pthread_mutex_unlock(&loops_mutex);
  if (l->epfd >= 0)
    close(l->epfd);
  if (l->evfd >= 0)
    close(l->evfd);
  sb_tq_free(&l->tq);
  free(l->vus);
}

/* Schedules the VUs' starts: at once, or m x --login-delay apart from
   the common start of the workers (so the m-th VUs of all workers log in
   together even when a worker took longer to set up). */
static void schedule_logins(struct sb_loop *l)
{
  uint64_t t0 = eng_workers_t0_ns;
  for (unsigned m = 0; m < l->n; m++)
  {
    lvu_t *v = &l->vus[m];
    uint64_t off = sb_plan_login_offset_ns(m, eng_cfg.login_delay_ms);
    if (off == 0)
      loop_enqueue(l, v);
    else
    {
      v->wait = W_TIMER;
      loop_arm_timer(l, v, t0 + off);
    }
  }
}

void *sb_loop_worker_main(void *arg)
{
  sb_worker_t *w = arg;
  struct sb_loop l;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  ck_pr_store_int(&w->os_tid, (int) gettid());

  int rc = loop_open(&l, w);
  tl_loop = &l;
  if (rc == 0 && eng_ctest && !eng_ctest->event_begin)
    loop_run_ctest(&l);
  else if (rc == 0 && eng_ctest)
  {
    schedule_logins(&l);
    run_loop(&l);
  }
  else if (rc == 0)
  {
    sb_tls_tid = l.n ? l.vus[0].vu->tid : -1;
    w->L = sb_lua_worker_state();
    if (w->L == NULL)
    {
      note_init_failure(&l.vus[0]);
      for (unsigned m = 0; m < l.n; m++)
        loop_init_failed(&l, &l.vus[m]);
    }
    else
      schedule_logins(&l);
    run_loop(&l);
  }
  else
  {
    /* the VUs still count, so the main thread does not wait for them */
    for (unsigned m = 0; m < l.n; m++)
    {
      eng_vu_ready(true);
      eng_vu_finished();
      eng_vu_done();
    }
  }
  tl_loop = NULL;
  if (w->L)
  {
    sb_lua_close_state(w->L);
    w->L = NULL;
  }
  loop_close(&l);
  eng_client_worker_exit(w);
  return NULL;
}

void sb_loop_wake_all(void)
{
  uint64_t one = 1;
  pthread_mutex_lock(&loops_mutex);
  for (unsigned i = 0; i < nloops; i++)
    if (loops[i] && write(loops[i]->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
      break;
  pthread_mutex_unlock(&loops_mutex);
}

void sb_loop_report_init_failures(unsigned ok, unsigned failed)
{
  unsigned skipped = ck_pr_load_uint(&vus_skipped);
  log_text(LOG_FATAL, "%u of %u virtual users initialized, %u failed (the first failure, "
           "of thread %d, is shown above)", ok, eng_cfg.threads, failed - skipped,
           eng_first_init_failure_tid());
  if (skipped)
    log_text(LOG_FATAL, "%u virtual users were not started after that failure", skipped);
  eng_report_conn_limit(ok);
}

