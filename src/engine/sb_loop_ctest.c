/*
 * Built-in C tests on an event-mode worker (see sb_loop.h and
 * docs/design.md "Virtual users, workers and the event loop"): a test
 * with event_begin / event_resume runs its VUs' events as steps on the
 * worker's loop (the same run queue, epoll set, timers, lines and stop
 * as Lua VUs), a test without them runs each event to its end,
 * round-robin over the worker's VUs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ck_pr.h>

#include "core/sb_counter.h"
#include "core/sb_rand.h"
#include "core/sb_timer.h"
#include "engine/sb_engine_priv.h"
#include "engine/sb_loop.h"
#include "engine/sb_loop_priv.h"

void loop_run_ctest(struct sb_loop *l)
{
  const sb_c_test_t *t = eng_ctest;
  for (unsigned m = 0; m < l->n; m++)
  {
    lvu_t *v = &l->vus[m];
    sb_tls_tid = v->vu->tid;
    sb_rand_thread_init(v->vu->tid);
    sb_rand_state_get(v->rng);
    v->init_failed = t->thread_init && t->thread_init(v->vu->tid) != 0;
    if (v->init_failed)
      eng_note_init_failure(v->vu->tid);
    eng_vu_ready(v->init_failed);
  }
  while (!eng_start_released())
    loop_poll_events(l);
  unsigned active = 0;
  bool go = !sb_engine_stopping();
  for (unsigned m = 0; m < l->n; m++)
    if (go && !l->vus[m].init_failed)
    {
      ck_pr_store_int(&l->vus[m].vu->running, 1);
      l->vus[m].phase = PH_RUN;
      active++;
    }
  while (active > 0)
    for (unsigned m = 0; m < l->n; m++)
    {
      lvu_t *v = &l->vus[m];
      if (v->phase != PH_RUN)
        continue;
      int tid = v->vu->tid;
      sb_tls_tid = tid;
      sb_rand_state_set(v->rng);
      bool more = sb_more_events(tid);
      if (more)
      {
        sb_event_start(tid);
        int erc = t->event(tid);
        if (erc < 0)
          eng_vu_fail(tid);   /* as in thread mode: the run fails */
        if (erc == 0)
          sb_event_stop(tid);
        else
          more = false;
      }
      sb_rand_state_get(v->rng);
      if (!more)
      {
        ck_pr_store_int(&v->vu->in_event, 0);
        v->phase = PH_END_LINE;
        active--;
      }
    }
  for (unsigned m = 0; m < l->n; m++)
    eng_vu_finished();
  while (eng_end_line_holds())
    loop_poll_events(l);
  for (unsigned m = 0; m < l->n; m++)
  {
    lvu_t *v = &l->vus[m];
    if (v->phase == PH_END_LINE && t->thread_done)
      t->thread_done(v->vu->tid);
    ck_pr_store_64(&v->vu->ended_ns, sb_now_ns());
    ck_pr_store_int(&v->vu->running, 0);
    eng_vu_done();
  }
}

/* The VU's login: thread_init, whole, then the start line. */
static void ct_login(struct sb_loop *l, lvu_t *v)
{
  int tid = v->vu->tid;
  sb_tls_tid = tid;
  sb_rand_thread_init(tid);
  if (eng_ctest->thread_init && eng_ctest->thread_init(tid) != 0)
  {
    eng_note_init_failure(tid);     /* the first is named, as in thread mode */
    sb_rand_state_get(v->rng);
    loop_init_failed(l, v);
    return;
  }
  sb_rand_state_get(v->rng);
  v->phase = PH_START_LINE;
  v->wait = W_LINE;
  v->run_ready = true;
  v->ct = CT_IDLE;
  eng_vu_ready(false);
  if (l->start_seen)
    loop_enqueue(l, v);
}

/* Runs v's events from where it is (`value`: its wait's outcome) until
   one waits or its events end. */
static void ct_run(struct sb_loop *l, lvu_t *v, int value)
{
  const sb_c_test_t *t = eng_ctest;
  int tid = v->vu->tid;
  int rc;
  /* An event that waited let the worker's other VUs run meanwhile, so
     when it ends here the next one starts at once, as pgbench's client
     goes on to its next transaction: no trip through the run queue (a
     step, a switch, and an epoll_pwait2 that cannot wait). One that did
     not wait goes to the back of the queue (below), so a VU whose
     queries all complete without waiting cannot hold the worker. */
  bool waited = v->ct == CT_EVENT;
  for (;;)
  {
    if (v->ct == CT_EVENT)
      rc = t->event_resume(tid, value);
    else
    {
      /* sb_vu_more_events: 0 no more, 1 go, 2 a --rate arrival was armed
         (its wake's value: 1 go, 0 the run stops) */
      int m = v->ct == CT_ARRIVAL ? value : sb_vu_more_events(tid);
      v->ct = m == 2 ? CT_ARRIVAL : CT_IDLE;
      if (m == 2)
        return;
      if (m == 0)
      {
        loop_to_end_line(l, v);
        return;
      }
      v->ct = CT_EVENT;
      sb_event_start(tid);
      rc = t->event_begin(tid);
    }
    if (rc == SB_CT_WAIT)
      return;
    v->ct = CT_IDLE;
    if (rc < 0)
      eng_vu_fail(tid);              /* as in thread mode: the run fails */
    if (rc != 0)
      break;
    sb_event_stop(tid);
    if (!waited)
    {
      /* the next event after the worker's other runnable VUs */
      loop_enqueue(l, v);
      return;
    }
    waited = false;
  }
  loop_to_end_line(l, v);
}

void loop_ctest_step(struct sb_loop *l, lvu_t *v)
{
  if (v->phase == PH_LOGIN)
  {
    ct_login(l, v);
    return;
  }
  if (v->phase != PH_RUN)
    return;
  bool op_wake = v->op != NULL && v->has_value;
  int value = v->has_value ? v->value : 1;
  v->has_value = false;
  v->wait = W_NONE;
  if (v->ready_ns)
    loop_note_delay(v);
  loop_switch_in(l, v);
  /* an SQL operation goes on without the test until it is done */
  if (op_wake && sb_vu_step_op(l, v, value) != 0)
  {
    loop_switch_out(l, v);
    return;
  }
  ct_run(l, v, op_wake ? 1 : value);
  loop_switch_out(l, v);
}

void loop_ctest_done(struct sb_loop *l, lvu_t *v)
{
  if (!v->init_failed && eng_ctest->thread_done)
  {
    sb_tls_tid = v->vu->tid;
    eng_ctest->thread_done(v->vu->tid);
  }
  loop_vu_gone(l, v);
}
