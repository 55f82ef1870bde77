/*
 * The event loop of a worker thread in event mode (see
 * docs/design.md "Virtual users, workers and the event loop").
 *
 * Each worker runs many virtual users (VUs): one Lua coroutine per VU in
 * the worker's Lua state, scheduled over an epoll instance, a timer queue
 * (sb_timerq.h) and a FIFO run queue. A VU waits without blocking the
 * thread: on a database socket (the async SQL layer, db_async.c), on a
 * timer (sysbench.sleep, --rate arrivals, --login-delay, reconnect
 * back-off), or at the engine's start and end lines. Built-in C tests run
 * their VUs round-robin on the worker without coroutines.
 *
 * The functions below marked "FFI" are called from the Lua side of the
 * event mode (src/lua/internal/bmk.vu.lua) in the worker's own thread.
 */
#ifndef SB_LOOP_H
#define SB_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/db_driver.h"

/* Thread entry of an event-mode worker; `arg` is its sb_worker_t. Runs
   every VU of the worker through thread_init, the start line, thread_run,
   the end line and thread_done, then returns NULL. */
void *sb_loop_worker_main(void *arg);

/* Wakes every event-mode worker (eventfd) so it looks at the start line,
   the end line and the stop flag. Any thread; no-op before the workers
   exist. */
void sb_loop_wake_all(void);

/* Main thread, after a failed initialisation: prints how many VUs
   initialised and failed and, when the first failure was the server
   refusing a connection for lack of slots, names that limit. */
void sb_loop_report_init_failures(unsigned ok, unsigned failed);

/* FFI: the thread id of the VU the calling worker is running (its
   sysbench.tid), or the thread's own id outside event mode (-1 in the
   main thread). */
int sb_vu_current(void);

/* FFI: registers a wait of the running VU for the request the driver left
   in `con` (wait_fd / wait_events / wait_timeout_ms). Returns 1: the
   caller must coroutine.yield(); it is resumed with the ready events
   (DB_WAIT_*). Returns 0 when no VU is running on this thread (the caller
   then waits in place with sb_vu_poll_db). */
int sb_vu_wait_db(db_conn_t *con);

/* FFI: waits in place (poll(), blocking the thread) for the request left
   in `con`; returns the ready events. For callers that cannot yield. */
int sb_vu_poll_db(db_conn_t *con);

/* FFI: sysbench.sleep(seconds) of the running VU. Returns 1 when a timer
   was armed (the caller yields and is resumed with 1 when the time passed,
   0 when the run is stopping), 0 when there is nothing to wait for
   (seconds <= 0, or the run is already stopping), -1 when no VU is
   running on this thread (use sb_engine_sleep). */
int sb_vu_sleep(double seconds);

/* FFI: the event-mode sb_more_events(): 0 = no more events (stop, limit),
   1 = run the next event now, 2 = a --rate arrival lies ahead and a timer
   was armed: yield; the resume value is then 1 (go) or 0 (stopping). */
int sb_vu_more_events(int thread_id);

/* FFI, the per-query path of event mode in one call each (LuaJIT runs the
   frames that yield in its interpreter, where every FFI call is costly;
   docs/design.md "Client CPU per query"). Each returns 0 when the
   operation is done, 1 when the caller must coroutine.yield() and pass
   the resume value to the matching *_step, 2 when it must wait but cannot
   yield here (then it drives the operation with db_async_step and
   sb_vu_poll_db). `yieldable`: the caller is a VU's own coroutine.
   sb_vu_execute: db_execute_start(stmt), then the wait (sb_vu_wait_db).
   sb_vu_stmt_step: db_async_step on stmt's connection with the ready
   events `ready`, then the next wait if any. sb_vu_query / sb_vu_step:
   the same for con:query (`len` bytes of `query`). */
int sb_vu_execute(db_stmt_t *stmt, bool yieldable);
int sb_vu_stmt_step(db_stmt_t *stmt, int ready);
int sb_vu_query(db_conn_t *con, const char *query, size_t len, bool yieldable);
int sb_vu_step(db_conn_t *con, int ready);

/* FFI: db_async_result() of stmt's connection: the result of the
   execution just finished, NULL on an error. */
db_result_t *sb_vu_stmt_result(db_stmt_t *stmt);

/* FFI: sb_event_stop(thread_id) when `stop_prev` (the VU's previous event
   is done), then sb_vu_more_events(thread_id), then sb_event_start when
   that says 1. Returns what sb_vu_more_events returned (after a yield for
   2, the caller calls sb_event_start itself when resumed with 1). */
int sb_vu_next_event(int thread_id, bool stop_prev);

/* FFI: the running VU gives way to the others (re-queued at the tail).
   Returns 1 (yield) or 0 when no VU is running. */
int sb_vu_pass(void);

#endif
