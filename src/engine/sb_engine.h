/*
 * The run engine (sysbench 1.1's run lifecycle): worker threads running the
 * virtual users (one Lua state per VU in thread mode, one per worker in
 * event mode: sb_loop.h), the event accounting behind sb_more_events /
 * sb_event_start / sb_event_stop, time and event limits, warmup, the
 * open-loop rate schedule, interval and checkpoint reports, forced
 * shutdown, signals, and the final report.
 */
#ifndef SB_ENGINE_H
#define SB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sb_stat.h"

#define SB_MAX_CHECKPOINTS 256

/* Run configuration, filled from the options by main.c. Times in seconds. */
typedef struct {
  unsigned threads;             /* virtual users (VUs) */
  unsigned threads_given;       /* --threads (VUs / --async-sessions) */
  unsigned workers;             /* OS threads running them (== threads in
                                   thread mode) */
  bool event_mode;              /* workers < threads: event loops */
  double login_delay_ms;        /* --login-delay (event mode) */
  double time_limit;            /* 0 = none */
  uint64_t events_limit;        /* 0 = none */
  double warmup;
  double rate;                  /* events/s, 0 = unlimited (closed loop) */
  bool rate_overload_abort;     /* --rate-overload=abort */
  double report_interval;       /* 0 = off */
  unsigned ncheckpoints;
  double checkpoints[SB_MAX_CHECKPOINTS];
  double forced_shutdown;       /* seconds after time_limit; < 0 = off */
  double stuck_grace;           /* bmk: seconds after time_limit before a run
                                   whose events still wait ends (exit 2,
                                   docs/reliability.md); < 0 = wait for them;
                                   forced_shutdown, when set, comes first */
  double thread_init_timeout;   /* 0 = none */
  size_t thread_stack_size;     /* bytes */
  unsigned percentile;          /* 0 = disabled */
  unsigned npct;
  double pct[SB_MAX_PERCENTILES];
  bool histogram;
  bool debug;
  const char *sync_file;        /* NULL/"" = no barrier */
  int sync_wait_ms;
  uint64_t latency_limit_ns;    /* --latency-limit; 0 = off */
  const char *results_path;     /* --results JSON file, NULL = none */
  const char *hdrlog_path;      /* --hdr-log file, NULL = none */
  bool server_stats;            /* --db-server-stats */
  bool db_checkpoint;           /* --db-checkpoint */
  bool rate_lag;                /* --rate-lag: lag field on the queue line */
} sb_run_config_t;

/* Optional C implementation of a test (built-in tests). When set, workers
   call these instead of Lua. `event` returns 0 to continue, 1 to stop the
   thread normally (no more work: the event is not counted) and -1 on an
   error (it has printed a FATAL line; the run fails as a script error
   does); `report_*` replace the generic reporters when set. */
typedef struct {
  /* Called after the run-mode block (print_mode) and before the workers
     start, as sysbench's test prepare() (fileio opens its files here);
     non-zero fails the run with exit code 1. */
  int (*prepare)(void);
  int (*thread_init)(int tid);
  int (*event)(int tid);
  int (*thread_done)(int tid);
  void (*print_mode)(void);
  void (*report_intermediate)(const sb_stat_t *st);
  void (*report_cumulative)(const sb_stat_t *st);
  /* true: report_cumulative replaces the generic final report instead of
     preceding it (fileio). */
  bool replace_cumulative;
  /* true: the test runs SQL through the drivers (pgbench scripts), so it
     gets what a Lua workload gets: server statistics, --db-checkpoint,
     --endpoints' blocks; false: a built-in test that talks to no
     server. */
  bool uses_db;
  /* Optional, both or neither: the event of VU `tid` as steps on an
     event-mode worker's loop (docs/design.md), so that its other VUs run
     while this one waits; without them event mode runs `event` to its
     end, blocking the worker. event_begin starts an event (the engine
     called sb_event_start), event_resume goes on with it once the one
     wait it armed is over: `value` 1 (the SQL operation completed, the
     pause passed), or 0 (the run's stop cut a pause short). Both return
     what `event` returns, or SB_CT_WAIT after arming exactly one wait
     with the loop's calls (sb_loop.h: sb_vu_await for an SQL operation
     on one of its connections, sb_vu_sleep for a pause). The VU's worker
     thread; thread_init and thread_done still run whole, blocking. */
  int (*event_begin)(int tid);
  int (*event_resume)(int tid, int value);
} sb_c_test_t;

/* What event_begin / event_resume return while the event waits. */
#define SB_CT_WAIT 2

/*
 * Runs the `run` command for the loaded Lua script (or `ctest` when not
 * NULL) with `cfg`. Prints the run-mode block, starts workers, reports,
 * and prints the final report. Returns the process exit code
 * (0, 1 fatal error, 2 forced shutdown / init timeout, 130 SIGINT,
 * 143 SIGTERM).
 */
int sb_engine_run(const sb_run_config_t *cfg, const sb_c_test_t *ctest);

/* Runs a parallel script command in cfg->threads fresh states (tids
   0..N-1). Returns the exit code (1 if any thread failed or returned
   false). */
int sb_engine_parallel_command(const sb_run_config_t *cfg, const char *name);

/* ---- FFI entry points (sysbench names and signatures) -------------------- */

/* False when the thread must stop: stop/error flag, time limit, or the
   shared event counter passed --events. In rate mode, blocks until the
   next event is due. Called by the worker owning `thread_id`. */
bool sb_more_events(int thread_id);

/* Marks the start of an event (latency origin: now, or the event's
   intended start time in rate mode). Owner thread only. */
void sb_event_start(int thread_id);

/* Ends the event: records its latency (ns) in the thread's histogram and
   counts it. Owner thread only. */
void sb_event_stop(int thread_id);

/* Returns the id of event type `name` for sb_event_set_type, registering
   it on first use ("event" = 0, the type of unnamed events); -1 with a
   FATAL message when the name is too long or 63 types exist already.
   Thread-safe (mutex); scripts call it once per name per Lua state. */
int sb_event_type_id(const char *name);

/* Sets the type of the current event of `thread_id` (reset to 0 by
   sb_event_start). Owner thread only. */
void sb_event_set_type(int thread_id, int type_id);

/* Counts a restart of the current event (an ignorable error rolled the
   transaction back) as a rollback of its type. Owner thread only. */
void sb_event_restarted(int thread_id);

/* Marks the current event of `thread_id` as failed (--max-tries: its
   transaction failed after its last try): sb_event_stop then ends it
   without counting it or its latency. Owner thread only. Exported for
   LuaJIT FFI. */
void sb_event_failed(int thread_id);

/* Whether a transaction of the current event of `thread_id` that has
   made `tries` tries (>= 1) may be tried again: fewer than --max-tries
   (0 = no limit), the event's latency so far within --latency-limit when
   one is set, and the run not stopping. Owner thread only. Exported for
   LuaJIT FFI. */
bool sb_event_may_retry(int thread_id, unsigned tries);

/*
 * The one wait a workload may make (Lua: sysbench.sleep(seconds), a bmk
 * extension): keying and thinking times, pauses between retries. Sleeps
 * `seconds` (>= 0; fractions allowed, resolution about 1 ms) on behalf of
 * VU `thread_id`. During a run it wakes early when the run is stopping
 * (time or event limit, fatal error, signal), checking every 100 ms, so a
 * long think time never delays the end of a run. Returns true when the
 * whole time passed, false when it woke early. Outside a run (prepare,
 * init) it simply sleeps. Going through this function, never a raw
 * usleep, is what lets an event-loop engine turn the wait into a timer.
 * Thread-safe; call from the VU's own thread. Exported for FFI.
 */
bool sb_engine_sleep(int thread_id, double seconds);

/* Longest single wait of sb_engine_sleep, seconds (about 31 years): a
   longer one is cut to it, so the ns deadline cannot overflow. */
#define SB_SLEEP_MAX_S 1e9

/* True while a run is being measured (used by drivers for debug). */
bool sb_engine_running(void);

/* True once the workers must stop (time or event limit reached, a fatal
   error, a signal): an event stuck retrying (e.g. a per-event connect to
   a server that is gone) can then give up instead of running into the
   forced shutdown. Does not consume an event, unlike sb_more_events().
   Exported for FFI. */
bool sb_engine_stopping(void);

/* A workload's request to end the run now, as reaching --time does:
   the VUs stop before their next event (sysbench.sleep wakes early), the
   measured time ends when they have, and the report is the normal one
   (no interruption, exit code unchanged). bmk chbench calls it when its
   analytic streams have run the passes asked for. Idempotent; any
   thread, any time (outside a run it only marks the run stopped).
   Exported for FFI. */
void sb_engine_end_run(void);

/* CPUs this process may use: its CPU affinity, capped by a cgroup v2
   cpu.max quota (rounded, at least 1). What --workers=auto spreads the
   event loop over and what the client's saturation is judged against
   (engine/sb_client.c). Any thread. */
unsigned sb_engine_cpus(void);

#endif
