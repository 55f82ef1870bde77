/*
 * The event loop of a worker thread in event mode (see
 * docs/design.md "Virtual users, workers and the event loop").
 *
 * Each worker runs many virtual users (VUs): one Lua coroutine per VU in
 * the worker's Lua state, scheduled over an epoll instance, a timer queue
 * (sb_timerq.h) and a FIFO run queue. A VU waits without blocking the
 * thread: on a database socket (the async SQL layer, db_async.c), on a
 * timer (sysbench.sleep, --rate arrivals, --login-delay, reconnect
 * back-off), or at the engine's start and end lines. Built-in C tests
 * with event_begin run their events as steps on the same loop
 * (sb_loop_ctest.c), the others each event whole, round-robin.
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

/* FFI: completes an SQL operation of the asynchronous API (db_async.h)
   that returned step `st` on `con`, as a C continuation: when it must
   wait, the running VU's wait is armed (the socket in the epoll set, the
   timeout on the timer heap) and 1 is returned: the caller
   coroutine.yield()s once, and the loop steps the operation with
   db_async_step on each readiness or timeout without resuming the VU's
   Lua, re-arming its waits, and resumes the VU (with no value) once it is
   done, so no Lua frame runs while a statement waits. Returns 0 when the
   operation is done now. Where the caller cannot yield (`yieldable`
   false: the global state, a script's own coroutine, a C callback) or no
   VU runs on this thread, the operation is driven to its end in place
   (poll(), blocking the worker) and counted as a blocking call
   (db_loop_blocking_calls); 0 is returned. The outcome is then read as
   after any asynchronous operation (db_async_result, db_async_stmt,
   db_async_status). Worker thread only. */
int sb_vu_await(db_conn_t *con, int st, bool yieldable);

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

/* FFI, the per-query calls in one each: sb_vu_await of
   db_execute_start(stmt), and of db_query_start(con, query, len) (`query`
   must stay valid until the VU is resumed). Same returns. */
int sb_vu_execute(db_stmt_t *stmt, bool yieldable);
int sb_vu_query(db_conn_t *con, const char *query, size_t len, bool yieldable);

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
