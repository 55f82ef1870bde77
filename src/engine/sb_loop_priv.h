/*
 * Internal interface between the event loop (sb_loop.c) and its FFI entry
 * points (sb_vu.c). Not for other modules. Everything here belongs to
 * one worker thread.
 */
#ifndef SB_LOOP_PRIV_H
#define SB_LOOP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "drivers/db_driver.h"
#include "engine/sb_engine_priv.h"
#include "engine/sb_timerq.h"

/* Where a VU is in its life (thread mode's worker_main, step by step). */
typedef enum {
  PH_LOGIN,          /* not started yet (--login-delay) */
  PH_CHUNK,          /* running the script's main chunk */
  PH_INIT,           /* thread_init */
  PH_START_LINE,     /* waiting for the start line */
  PH_RUN,            /* thread_run */
  PH_END_LINE,       /* waiting at the end line */
  PH_DONE,           /* thread_done */
  PH_GONE            /* finished */
} phase_t;

/* What a VU waits for. */
typedef enum { W_NONE, W_RUNQ, W_IO, W_TIMER, W_LINE } wait_t;

typedef struct lvu {
  sb_tq_ent_t timer;         /* first: timer entries map back to the VU */
  sb_vu_t *vu;
  lua_State *co;             /* its coroutine, NULL until it starts */
  int ref;                   /* registry reference of the coroutine */
  uint32_t index;            /* in the worker's array (epoll data) */
  uint8_t phase;
  uint8_t wait;
  bool interruptible;        /* a stop wakes the wait early */
  bool init_failed;
  bool failed;               /* its coroutine raised an error */
  bool quiet;                /* its db_quiet_connect_errors() setting */
  bool run_ready;            /* thread_run is pushed on its coroutine */
  bool has_value;            /* resume with `value` */
  int value;
  int wait_fd;
  /* the SQL operation the loop drives for this VU while it waits (a C
     continuation, sb_vu_await): each readiness or timeout steps it here,
     without resuming the VU's Lua, until it is done; NULL = none */
  db_conn_t *op;
  /* the descriptor this VU keeps registered in the epoll set across waits
     (level-triggered), with its mask and its connection's sock_id; -1 =
     none known (a registration found stale is removed) */
  int reg_fd;
  uint32_t reg_events;
  uint64_t reg_sock;
  uint64_t arrival;          /* --rate: the arrival it waits for */
  uint64_t ready_ns;         /* when it was made runnable by a readiness
                                (the epoll_pwait2 return) or by its
                                arrival (the arrival); 0 = other wakes */
  bool arrival_wake;         /* ready_ns is its arrival's */
  uint64_t rng[2];
  uint8_t ct;                /* a built-in test's VU: CT_* */
  struct lvu *next;          /* run queue */
} lvu_t;

struct sb_loop {
  sb_worker_t *w;
  lvu_t *vus;
  unsigned n;
  unsigned gone;             /* VUs finished */
  sb_timerq_t tq;
  lvu_t *rq_head, *rq_tail;
  int epfd, evfd;
  lvu_t *current;            /* the VU being resumed */
  bool stop_seen, start_seen, abort_seen;
  bool poked;                /* the eventfd fired: look at the lines */
};

/* The loop of the calling thread, NULL outside event-mode workers. */
extern _Thread_local struct sb_loop *tl_loop;

/* Appends `v` to the run queue (it must not be queued already). */
void loop_enqueue(struct sb_loop *l, lvu_t *v);

/* Arms v's timer for `due` (ns). */
void loop_arm_timer(struct sb_loop *l, lvu_t *v, uint64_t due);

/* Where a built-in test's VU is between its events (lvu_t.ct). */
enum { CT_IDLE, CT_ARRIVAL, CT_EVENT };

/* sb_loop.c, for the built-in tests' part (sb_loop_ctest.c): */
/* The worker thread's per-thread state while `v` runs (its thread id,
   random state, error count, the loop's current VU, db_loop_thread),
   and back. A built-in test's message settings stay as its thread_init
   left them; a Lua VU's are switched besides (sb_loop.c). */
void loop_switch_in(struct sb_loop *l, lvu_t *v);
void loop_switch_out(struct sb_loop *l, lvu_t *v);
/* The VU left its events: it counts at the end line and waits there. */
void loop_to_end_line(struct sb_loop *l, lvu_t *v);
/* The VU's initialisation failed: it waits at the start line, not to run. */
void loop_init_failed(struct sb_loop *l, lvu_t *v);
/* The VU is finished (thread_done ran or was skipped). */
void loop_vu_gone(struct sb_loop *l, lvu_t *v);
/* Takes the loop's own delay since v's readiness out of its latency. */
void loop_note_delay(lvu_t *v);
/* Waits for events (at most until the next timer) and wakes their VUs. */
void loop_poll_events(struct sb_loop *l);

/* sb_loop_ctest.c: a built-in test's VUs. */
/* Without event_begin: the worker runs its VUs' events round-robin, each
   to its end (blocking), through the start and end lines. */
void loop_run_ctest(struct sb_loop *l);
/* With event_begin: one step of VU `v` on the loop (login and
   thread_init, or its events up to the next wait); the loop's run queue
   calls it as it resumes a Lua VU. */
void loop_ctest_step(struct sb_loop *l, lvu_t *v);
/* v leaves the end line: thread_done (unless its start failed), gone. */
void loop_ctest_done(struct sb_loop *l, lvu_t *v);

/* Steps v's operation (v->op) with the ready events `ready` (DB_WAIT_*,
   0 after a stop woke the wait). Returns 1 when it waits again (armed),
   0 when it is done (v->op cleared): the VU is then resumed. The VU's
   per-thread state must be switched in (its thread id for the counters). */
int sb_vu_step_op(struct sb_loop *l, lvu_t *v, int ready);

#endif
