/*
 * The text report as one of the engine's outputs (core/sb_output.h):
 * sysbench's interval lines and final report on stdout (sb_report.c), with
 * bmk's additions (stall and timeout lines, per-type table, latency limit,
 * workload metrics, the probes' blocks).
 *
 * A workload may print sections of its own (sb_text_hooks_t): a built-in
 * test's report functions, or a Lua script's sysbench.hooks.report_*
 * (lua/sb_lua_output.c). They are called where the standard section would
 * be printed and say whether they replaced it.
 */
#ifndef SB_TEXT_OUTPUT_H
#define SB_TEXT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sb_output.h"
#include "core/sb_stat.h"

/* What a cumulative hook did with the standard section. */
typedef enum {
  SB_TEXT_STANDARD = 0,        /* nothing: print the standard section */
  SB_TEXT_BEFORE,              /* printed its own, then the standard one */
  SB_TEXT_REPLACED             /* printed its own instead */
} sb_text_hook_rc_t;

/* A workload's report sections; each function optional. */
typedef struct {
  /* The interval report (reporter thread). True when it printed its own
     (or decided nothing is printed), false for the standard line. */
  bool (*interval)(void *ctx, const sb_stat_t *st);
  /* The cumulative report: at a checkpoint (reporter thread) or at the end
     (main thread). */
  sb_text_hook_rc_t (*cumulative)(void *ctx, const sb_stat_t *st, bool checkpoint);
  /* No more interval or checkpoint reports: before the final report, or
     when the output closes without one (main thread; may come twice). A
     script's reporter state closes here, so what its finalizers print
     (sysbench.report_json's closing bracket) comes before the final
     report, as in sysbench. */
  void (*intervals_done)(void *ctx);
  void *ctx;
} sb_text_hooks_t;

/* How the report looks (from the run's options). */
typedef struct {
  bool intervals;              /* --report-interval given: interval lines */
  bool rate;                   /* --rate: the queue line */
  bool rate_lag;               /* --rate-lag: its lag field */
  bool histogram;              /* --histogram before the final report */
  uint64_t latency_limit_ns;   /* --latency-limit: its line; 0 = none */
} sb_text_config_t;

/* Fills *out with the text report output for `cfg` and `hooks` (either
   may be NULL: defaults, no hooks; both copied). Its interval function
   is set only with cfg->intervals, so a run without --report-interval
   takes no interval snapshots for it. Main thread, before the run. */
void sb_text_output(const sb_text_config_t *cfg, const sb_text_hooks_t *hooks,
                    sb_output_t *out);

/* True when reports print at the current verbosity (sysbench prints them
   at LOG_NOTICE: nothing below --verbosity=3). Any thread. */
bool sb_text_reports_enabled(void);

#endif
