/*
 * The event loop's entry points for the Lua side of event mode (FFI,
 * called by src/lua/internal/bmk.vu.lua in the worker's own thread): the
 * running VU arms what it waits for, then yields once; an SQL operation
 * goes on in C until it is done (sb_vu_await); see sb_loop.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <sys/epoll.h>

#include "core/sb_counter.h"
#include "core/sb_timer.h"
#include "drivers/db_async.h"
#include "engine/sb_engine_priv.h"
#include "engine/sb_loop.h"
#include "engine/sb_loop_priv.h"

/* ---- FFI entry points ----------------------------------------------------------- */

int sb_vu_current(void)
{
  return sb_tls_tid;
}

/* Makes the epoll set report `want` (DB_WAIT_READ/WRITE) on fd for v.
   A connection with a settled socket (sock_id != 0) stays registered,
   level-triggered, from one wait to the next, so a wait costs no system
   call while the VU waits on the same socket for the same events; a new
   socket (a new sock_id, maybe with the same descriptor number: the
   kernel dropped the old one's registration when it closed), another
   mask or a connect in progress (the driver may replace its socket at
   any call: one-shot registrations) goes through epoll_ctl. Returns 0 on
   success, -1 when epoll_ctl failed. */
static int watch_fd(struct sb_loop *l, lvu_t *v, int fd, int want, uint64_t sock)
{
  uint32_t events = EPOLLRDHUP;
  if (want & DB_WAIT_READ)
    events |= EPOLLIN;
  if (want & DB_WAIT_WRITE)
    events |= EPOLLOUT;
  if (sock == 0)
    events |= EPOLLONESHOT;
  else if (v->reg_fd == fd && v->reg_sock == sock && v->reg_events == events)
    return 0;
  struct epoll_event ev = { .events = events,
                            .data.u64 = ((uint64_t) (uint32_t) fd << 32) | v->index };
  v->reg_fd = -1;
  if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) != 0 &&
      (errno != ENOENT || epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) != 0))
    return -1;
  if (sock != 0)
  {
    v->reg_fd = fd;
    v->reg_sock = sock;
    v->reg_events = events;
  }
  return 0;
}

/* Registers the running VU's wait for the request the driver left in
   `con` (wait_fd / wait_events / wait_timeout_ms): the socket in the
   epoll set, the timeout on the timer heap. Returns 1 when armed, 0 when
   there is nothing to wait on here (no socket and no timeout) or the
   epoll set refused the socket. */
static int arm_db_wait(struct sb_loop *l, lvu_t *v, db_conn_t *con)
{
  int fd = con->wait_fd, want = con->wait_events;
  if (fd >= 0 && (want & (DB_WAIT_READ | DB_WAIT_WRITE)))
  {
    if (watch_fd(l, v, fd, want, con->sock_id) != 0)
      return 0;
    v->wait_fd = fd;
  }
  else
    v->wait_fd = -1;
  if ((want & DB_WAIT_TIMEOUT) && con->wait_timeout_ms >= 0)
    loop_arm_timer(l, v, sb_now_ns() + (uint64_t) con->wait_timeout_ms * NS_PER_MS);
  else if (v->wait_fd < 0)
    return 0;
  v->wait = W_IO;
  /* a reconnect back-off (no socket) ends early when the run stops */
  v->interruptible = v->wait_fd < 0 && sb_engine_running();
  return 1;
}

/* Drives the operation on `con` to its end in place: poll() on the
   worker's thread, which stops every other VU of the worker meanwhile
   (counted: db_loop_blocking_calls). */
static void drive_in_place(db_conn_t *con, int st)
{
  db_loop_count_blocking();
  while (st == DB_STEP_WAIT)
    st = db_async_step(con, db_wait_ready(con));
}

int sb_vu_await(db_conn_t *con, int st, bool yieldable)
{
  if (st == DB_STEP_DONE)
    return 0;
  struct sb_loop *l = tl_loop;
  lvu_t *v = l ? l->current : NULL;
  if (yieldable && v != NULL && arm_db_wait(l, v, con))
  {
    v->op = con;
    return 1;
  }
  drive_in_place(con, st);
  return 0;
}

int sb_vu_step_op(struct sb_loop *l, lvu_t *v, int ready)
{
  db_conn_t *con = v->op;
  int st = db_async_step(con, ready);
  if (st == DB_STEP_WAIT)
  {
    if (arm_db_wait(l, v, con))
      return 1;
    drive_in_place(con, st);
  }
  v->op = NULL;
  return 0;
}

int sb_vu_sleep(double seconds)
{
  struct sb_loop *l = tl_loop;
  lvu_t *v = l ? l->current : NULL;
  if (v == NULL)
    return -1;
  bool in_run = sb_engine_running();
  if (in_run && sb_engine_stopping())
    return 0;
  if (!(seconds > 0))
    return 2;
  if (seconds > SB_SLEEP_MAX_S)     /* (uint64_t) of a larger double overflows */
    seconds = SB_SLEEP_MAX_S;
  v->wait = W_TIMER;
  v->interruptible = in_run;
  loop_arm_timer(l, v, sb_now_ns() + (uint64_t) (seconds * 1e9));
  return 1;
}

int sb_vu_more_events(int thread_id)
{
  struct sb_loop *l = tl_loop;
  lvu_t *v = l ? l->current : NULL;
  uint64_t arrival = 0;
  if (!eng_next_event(thread_id, &arrival))
    return 0;
  if (arrival == 0)
    return 1;
  uint64_t now = sb_now_ns();
  if (arrival <= now || v == NULL || v->vu->tid != thread_id)
  {
    if (arrival > now)
      sb_sleep_until_ns(arrival);   /* not the running VU: wait in place */
    eng_arrival_reached(thread_id, arrival);
    return sb_engine_stopping() ? 0 : 1;
  }
  v->wait = W_TIMER;
  v->interruptible = true;
  v->arrival = arrival;
  loop_arm_timer(l, v, arrival);
  return 2;
}

int sb_vu_execute(db_stmt_t *stmt, bool yieldable)
{
  return sb_vu_await(db_stmt_connection(stmt), db_execute_start(stmt), yieldable);
}

int sb_vu_query(db_conn_t *con, const char *query, size_t len, bool yieldable)
{
  return sb_vu_await(con, db_query_start(con, query, len), yieldable);
}

db_result_t *sb_vu_stmt_result(db_stmt_t *stmt)
{
  return db_async_result(db_stmt_connection(stmt));
}

int sb_vu_next_event(int thread_id, bool stop_prev)
{
  if (stop_prev)
    sb_event_stop(thread_id);
  int m = sb_vu_more_events(thread_id);
  if (m == 1)
    sb_event_start(thread_id);
  return m;
}

int sb_vu_pass(void)
{
  struct sb_loop *l = tl_loop;
  lvu_t *v = l ? l->current : NULL;
  if (v == NULL)
    return 0;
  loop_enqueue(l, v);
  return 1;
}
