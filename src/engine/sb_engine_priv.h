/*
 * Internal interface between the engine's files (sb_engine.c: shared
 * state, event accounting, start and end lines, thread-mode workers;
 * sb_engine_run.c: the main thread's control of a run; sb_stats.c:
 * snapshots, statistics and printing; sb_reporter.c: the
 * interval/checkpoint reporter thread). Not for other modules.
 */
#ifndef SB_ENGINE_PRIV_H
#define SB_ENGINE_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "core/sb_counter.h"
#include "core/sb_metric.h"
#include "engine/sb_engine.h"
#include "core/sb_evtype.h"
#include "core/sb_histogram.h"

/* One virtual user (VU): what is reported per thread. Written only by
   the worker running it except where noted; aligned so that VUs run by
   different workers (t and t+1 in event mode) never share a cache line. */
typedef struct {
  int tid;
  unsigned worker;            /* index in eng_workers */
  uint64_t start_ns;          /* latency origin of the current event (ck_pr:
                                 read by the reporter while it runs) */
  uint64_t intended_ns;       /* rate mode: the taken arrival (event mode:
                                 moved to when the loop resumed the VU
                                 for it, see sb_loop.c's step) */
  uint64_t sched_ns;          /* event mode: time the current event's VU
                                 spent made runnable by a socket's
                                 readiness but not yet resumed (the loop
                                 busy with other VUs); not latency */
  int cur_type;               /* type of the current event (0 = "event";
                                 ck_pr, as start_ns) */
  uint64_t errors_at_start;   /* eng_vu_errors() when the event started */
  uint64_t err_acc;           /* event mode: errors counted while this VU
                                 ran, up to its last yield */
  int in_event;               /* read by reporters (eng_concurrency) */
  int failed;                 /* the current event failed after its last
                                 try (--max-tries): not counted */
  int running;                /* read by reporters (eng_threads_running) */
  uint64_t ended_ns;          /* when `running` went to 0 (ck_pr; 0: not yet) */
  uint64_t events;            /* completed events (cumulative) */
  uint64_t lat_sum_ns;        /* cumulative */
  uint64_t lat_min_ns;        /* since the last baseline; the main thread
                                 resets min/max with an atomic exchange */
  uint64_t lat_max_ns;
} __attribute__((aligned(64))) sb_vu_t;

struct sb_loop;

/* One worker: an OS thread running one VU (thread mode) or many (event
   mode, sb_loop.c). Written only by its own thread except where noted. */
typedef struct {
  pthread_t thread;
  unsigned index;
  lua_State *L;               /* thread mode: the VU's state; event mode:
                                 the worker's shared state */
  sb_hdr_t *hist;             /* cumulative event latencies (ns) */
  sb_evtype_stat_t *types;    /* per-event-type numbers (sb_evtype.h) */
  uint64_t err_mark;          /* event mode: the worker's error counter
                                 when the running VU was resumed */
  int failed;
  struct sb_loop *loop;       /* event mode state, NULL in thread mode */
  int os_tid;                 /* event mode: the thread's kernel id (its
                                 /proc/self/task/ENTRY), set by the thread
                                 itself (atomic), 0 before */
  /* event mode: the thread's schedstat (ns on a CPU, ns queued) and the
     time (sb_now_ns) as it exited, written by itself before setting
     exit_set (atomic), for the interval it ended in (sb_client.c) */
  uint64_t exit_run_ns, exit_wait_ns, exit_ns;
  int exit_set;
} __attribute__((aligned(64))) sb_worker_t;

/* A reader-side snapshot of all workers. */
typedef struct {
  uint64_t t_ns;
  sb_counters_t cnt;
  sb_hdr_t *hist;
  uint64_t lat_sum_ns;
  uint64_t *thr_events;       /* per VU */
  uint64_t *thr_lat_sum;      /* per VU */
  sb_evtype_stat_t *types;    /* merged per-type sums */
  uint64_t metrics[SB_METRIC_MAX]; /* workload metrics (sb_metric.h) */
} snap_t;

/* Shared state, defined in sb_engine.c. */
extern sb_run_config_t eng_cfg;          /* the run's configuration */
extern const sb_c_test_t *eng_ctest;     /* built-in test or NULL (Lua) */
extern sb_worker_t *eng_workers;         /* eng_cfg.workers OS threads */
extern sb_vu_t *eng_vus;                 /* eng_cfg.threads virtual users */
extern snap_t eng_base;                  /* baseline of cumulative reports */
extern pthread_mutex_t eng_base_mutex;
extern uint64_t eng_t0_ns;               /* measured time origin (ns) */
extern uint64_t eng_run_t0_ns;           /* interval grid origin (ns) */
extern uint64_t eng_stop_ns;             /* when the run stopped, or 0 */
extern uint64_t eng_deadline_ns;         /* end of --time (sb_now_ns clock,
                                            warmup included), 0 = none */
extern uint64_t eng_end_ns;              /* end of the measured time for the
                                            final report (0 = eng_stop_ns) */
extern uint64_t eng_workers_t0_ns;       /* when the workers were started
                                            (--login-delay origin) */

/* Errors counted on behalf of `vu` so far (per-type error counts): the
   counter of its worker's slot, less what other VUs of the worker added
   (event mode keeps err_acc / err_mark around each resume). Worker's own
   thread only. */
static inline uint64_t eng_vu_errors(const sb_vu_t *vu)
{
  return vu->err_acc + sb_counter_val(vu->tid, SB_CNT_ERROR) -
         eng_workers[vu->worker].err_mark;
}

/* sb_engine.c: run control shared with the event loop (sb_loop.c). Each
   is thread-safe. */
/* A VU finished its thread_init (`failed`: it raised an error). */
void eng_vu_ready(bool failed);
/* True once the main thread released the start line. */
bool eng_start_released(void);
/* A VU left its events (thread_run returned or failed): counts towards
   the end line. */
void eng_vu_finished(void);
/* True while VUs that finished must wait at the end line. */
bool eng_end_line_holds(void);
/* A VU is completely done (thread_done ran or was skipped). */
void eng_vu_done(void);
/* A VU failed fatally in thread_run/thread_done: stop the run. */
void eng_vu_fail(int tid);
/* The first half of sb_more_events for VU `tid`: 0 when no event may
   start (stop, --events reached); 1 otherwise, with *arrival the --rate
   arrival to wait for (0 without --rate). */
int eng_next_event(int tid, uint64_t *arrival);
/* The VU reached its --rate arrival: the event's latency counts from it
   (and the lag is checked against the queue limit). */
void eng_arrival_reached(int tid, uint64_t arrival);

/* sb_engine.c: run control for the main thread (sb_engine_run.c).
   Thread-safe unless noted. */
/* Sets the stop flag and wakes event-loop workers: no new event starts. */
void eng_set_stop(void);
/* Creates the eng_cfg.workers worker threads (stacks of at least 512 KiB)
   and records eng_workers_t0_ns. Returns how many started; a failure
   prints a FATAL line and sets the stop flag. Main thread only. */
unsigned eng_start_workers(void);
/* How many VUs finished thread_init so far (`*ready`) and how many of
   those failed (`*failed`). */
void eng_init_counts(unsigned *ready, unsigned *failed);
/* Records VU `tid`, whose thread_init failed on the calling thread, as the
   first failure with that thread's last connect error
   (db_last_connect_error, thread-local: call it on the thread that
   connected), unless one is recorded already. Thread-safe; either engine. */
void eng_note_init_failure(int tid);
/* The tid recorded by eng_note_init_failure, -1 when none. */
int eng_first_init_failure_tid(void);
/* Main thread, after a failed initialisation in which `ok` VUs
   initialised: when the first failure was the server refusing a
   connection for lack of slots (MySQL error 1040, SQLSTATE 53300,
   PgBouncer's max_client_conn), one FATAL line naming that limit. */
void eng_report_conn_limit(unsigned ok);
/* Releases the start line: VUs waiting after thread_init run. */
void eng_release_start_line(void);
/* Makes VUs wait at the end line after their last event (server
   statistics or server cost on). Main thread, before the start line. */
void eng_arm_end_line(void);
/* Releases the end line: VUs waiting there go on to thread_done. */
void eng_release_end_line(void);
/* VUs that left their events (at or past the end line). */
unsigned eng_count_finished(void);
/* VUs completely done (thread_done ran or was skipped). */
unsigned eng_count_done(void);
/* When the last VU was done (ns, sb_now_ns clock), 0 before. */
uint64_t eng_last_done_ns(void);
/* Sets what sb_engine_running() returns: true from just before the start
   line is released until the workers stopped. */
void eng_set_running(bool running);
/* Warmup starts (--events does not count) / ends (--events counts from
   zero). */
void eng_warmup_begin(void);
void eng_warmup_end(void);
/* True once a VU failed or the run hit a fatal condition of its own. */
bool eng_failed(void);
/* Writes why the run failed into `buf` (`size` bytes): the run's own
   reason, "fatal error in thread N" for the first VU that failed, or
   "fatal error". Main thread, after the workers stopped. */
void eng_failure_text(char *buf, size_t size);

/* sb_stats.c */
/* Allocates eng_workers (eng_cfg.workers) and eng_vus (eng_cfg.threads)
   with their statistics, the baseline, and in event mode one counter slot
   per worker. 0, or 1 (FATAL printed). Main thread, before the workers. */
int eng_alloc_run(void);
int eng_snap_alloc(snap_t *s);
void eng_snap_free(snap_t *s);
void eng_snap_take(snap_t *s);
void eng_snap_copy(snap_t *dst, const snap_t *src);
/* VUs running at `at_ns` (sb_now_ns clock): running now, or ended at or
   after it (a tick sampled a moment late still counts the VUs that ran to
   its end, as at the end of --time). Any thread. */
unsigned eng_threads_running(uint64_t at_ns);
unsigned eng_concurrency(void);
void eng_stat_diff(sb_stat_t *st, const snap_t *cur, const snap_t *prev, sb_hdr_t *hist);
void eng_stat_cumulative(sb_stat_t *st, const snap_t *cur, sb_hdr_t *hist, double elapsed_s);
void eng_set_baseline(uint64_t t_ns);
/* Fills `rows` (SB_EVTYPE_MAX entries) from per-type sums over `seconds`:
   one row per type that ran, in registration order. Returns the count. */
unsigned eng_type_rows(const sb_evtype_stat_t *t, double seconds, sb_type_row_t *rows);

/* Prints the run-mode block (sysbench's "Running the test with following
   options:" lines, plus the event-mode line). */
void eng_print_mode_block(void);

/* The end of the run: the final (or interrupted) numbers published to
   the outputs (core/sb_output.h: the text report, result files, ...) with
   the run's `exit_code`. `unfinished` (NULL but at a forced end) receives
   the events closed in flight, counted to the end of the measured time.
   Returns non-zero when an output failed during the run. */
int eng_final_report(const char *interrupt_reason, unsigned *unfinished, int exit_code);

/* sb_stuck.c: stuck work (docs/reliability.md). Thread-safe: read the
   VUs' in_event and start_ns. */
/* How many VUs are inside an event that started at least `older_than_ns`
   before `now_ns` (sb_now_ns clock); the oldest one's age in seconds in
   `*oldest_s` (may be NULL). */
unsigned eng_in_flight(uint64_t now_ns, uint64_t older_than_ns, double *oldest_s);
/* Fills st->stalled / st->stalled_oldest_s for an interval of `interval_s`
   ending at `now_ns` (events in flight for longer than the interval), and
   when nothing completed makes the waiting time the interval's latency.
   Nothing under the sysbench persona. */
void eng_note_stalls(sb_stat_t *st, uint64_t now_ns, double interval_s);
/* At the end of a run whose events outlived --time by the stuck grace
   `grace_s`: a FATAL line and one line per VU still in its event (ages at
   `end_ns`, the end of the measured time; the first 10 VUs by name).
   Returns how many. */
unsigned eng_print_stuck(uint64_t end_ns, double grace_s);

/* sb_fdlimit.c: raises RLIMIT_NOFILE towards one descriptor per VU (up
   to the hard limit) and, when that is not enough, makes the first
   connect attempt fail with a message naming the limit
   (db_set_connect_check). Main thread, before the workers start. */
void eng_fd_budget(void);

/* sb_client.c: the load generator's own CPU (sb_client_t). The reporter
   thread calls begin at its start, sample at each tick; the main thread
   calls total at the end (after the reporter stopped). */
void eng_client_begin(void);
/* The figures since the previous sample (or begin), counted as one
   interval. Zeroed (measured false) for built-in tests. */
void eng_client_sample(sb_client_t *c);
/* The whole run's figures: CPU up to the last sample, the busiest worker
   of any interval, the intervals and the saturated ones. */
void eng_client_total(sb_client_t *c);
/* An event-loop worker about to exit records its own CPU figures (its
   thread only). */
void eng_client_worker_exit(sb_worker_t *w);
/* Whether figures of an interval say the client limited it. */
bool eng_client_saturated(const sb_client_t *c);

/* sb_reporter.c: starts / stops the reporter thread (interval lines and
   checkpoints). stop waits for it. */
void sb_reporter_start(void);
void sb_reporter_stop(void);

#endif
