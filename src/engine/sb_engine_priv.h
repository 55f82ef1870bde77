/*
 * Internal interface between the engine's files (sb_engine.c: workers and
 * run control; sb_stats.c: snapshots, statistics and printing;
 * sb_reporter.c: the interval/checkpoint reporter thread). Not for other
 * modules.
 */
#ifndef SB_ENGINE_PRIV_H
#define SB_ENGINE_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include <lua.h>

#include "core/sb_counter.h"
#include "core/sb_metric.h"
#include "engine/sb_engine.h"
#include "results/sb_evtype.h"
#include "core/sb_histogram.h"

/* One worker. Written only by its own thread except where noted; aligned so
   no two workers share a cache line. */
typedef struct {
  pthread_t thread;
  int tid;
  lua_State *L;
  sb_hdr_t *hist;             /* cumulative event latencies (ns) */
  uint64_t lat_sum_ns;        /* cumulative */
  uint64_t lat_min_ns;        /* since the last baseline; the main thread
                                 resets min/max with an atomic exchange */
  uint64_t lat_max_ns;
  uint64_t start_ns;          /* latency origin of the current event */
  uint64_t intended_ns;       /* rate mode: the taken arrival */
  sb_evtype_stat_t *types;    /* per-event-type numbers (sb_evtype.h) */
  int cur_type;               /* type of the current event (0 = "event") */
  uint64_t errors_at_start;   /* error counter when the event started */
  int in_event;               /* read by reporters (eng_concurrency) */
  int running;                /* read by reporters (eng_threads_running) */
  int ready;
  int failed;
  uint64_t done_ns;           /* when the thread finished (after
                                 thread_done); read by the main thread */
} __attribute__((aligned(64))) sb_worker_t;

/* A reader-side snapshot of all workers. */
typedef struct {
  uint64_t t_ns;
  sb_counters_t cnt;
  sb_hdr_t *hist;
  uint64_t lat_sum_ns;
  uint64_t *thr_events;       /* per worker */
  uint64_t *thr_lat_sum;      /* per worker */
  sb_evtype_stat_t *types;    /* merged per-type sums */
  uint64_t metrics[SB_METRIC_MAX]; /* workload metrics (sb_metric.h) */
} snap_t;

/* Shared state, defined in sb_engine.c. */
extern sb_run_config_t eng_cfg;          /* the run's configuration */
extern const sb_c_test_t *eng_ctest;     /* built-in test or NULL (Lua) */
extern sb_worker_t *eng_workers;         /* eng_cfg.threads workers */
extern snap_t eng_base;                  /* baseline of cumulative reports */
extern pthread_mutex_t eng_base_mutex;
extern uint64_t eng_t0_ns;               /* measured time origin (ns) */
extern uint64_t eng_run_t0_ns;           /* interval grid origin (ns) */
extern uint64_t eng_stop_ns;             /* when the run stopped, or 0 */

/* sb_stats.c */
int eng_snap_alloc(snap_t *s);
void eng_snap_free(snap_t *s);
void eng_snap_take(snap_t *s);
void eng_snap_copy(snap_t *dst, const snap_t *src);
unsigned eng_threads_running(void);
unsigned eng_concurrency(void);
void eng_stat_diff(sb_stat_t *st, const snap_t *cur, const snap_t *prev, sb_hdr_t *hist);
void eng_stat_cumulative(sb_stat_t *st, const snap_t *cur, sb_hdr_t *hist, double elapsed_s);
void eng_set_baseline(uint64_t t_ns);
/* True when report text is printed: sysbench prints reports at LOG_NOTICE,
   so nothing below --verbosity=3 (Lua report hooks still run). */
bool eng_reports_enabled(void);
void eng_print_interval(lua_State *L, const sb_stat_t *st);
void eng_print_cumulative(lua_State *L, const sb_stat_t *st);
void eng_print_debug_threads(const snap_t *cur);
/* After the final report: the "Workload metrics:" block of the cumulative
   statistics `st` (not under the sysbench persona), then the script's
   sysbench.hooks.report_final(stat) in the global Lua state, if defined. */
void eng_print_metrics(const sb_stat_t *st);
/* Fills `rows` (SB_EVTYPE_MAX entries) from per-type sums over `seconds`:
   one row per type that ran, in registration order. Returns the count. */
unsigned eng_type_rows(const sb_evtype_stat_t *t, double seconds, sb_type_row_t *rows);

/* sb_reporter.c: starts / stops the reporter thread (interval lines and
   checkpoints). stop waits for it. */
void sb_reporter_start(void);
void sb_reporter_stop(void);

#endif
