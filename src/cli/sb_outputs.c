/* The outputs of a run; see cli/sb_outputs.h. */
#include <stddef.h>

#include "cli/sb_outputs.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_output.h"
#include "core/sb_probe.h"
#include "lua/sb_lua_output.h"
#include "metrics/sb_metrics.h"
#include "commands/cluster/sb_cluster_stream.h"
#include "results/sb_results_output.h"
#include "results/sb_text_output.h"
#include "results/sb_threshold.h"
#include "endpoints/sb_endpoint_probe.h"
#include "server/sb_server_probes.h"
#include "resultsdb/sb_resultsdb_output.h"

/* A built-in test's report functions as the text report's sections: they
   print only at the reports' verbosity (unlike a script's hooks). */
static bool ctest_interval(void *ctx, const sb_stat_t *st)
{
  const sb_c_test_t *t = ctx;
  if (t->report_intermediate == NULL)
    return false;
  if (sb_text_reports_enabled())
    t->report_intermediate(st);
  return true;
}

static sb_text_hook_rc_t ctest_cumulative(void *ctx, const sb_stat_t *st, bool checkpoint)
{
  (void) checkpoint;
  const sb_c_test_t *t = ctx;
  if (t->report_cumulative == NULL)
    return SB_TEXT_STANDARD;
  if (sb_text_reports_enabled())
  {
    log_lock();
    t->report_cumulative(st);
    log_unlock();
  }
  return t->replace_cumulative ? SB_TEXT_REPLACED : SB_TEXT_BEFORE;
}

/* The text report, first: everything else prints after it. */
static void register_text(const sb_run_config_t *cfg, const sb_c_test_t *ctest)
{
  sb_text_config_t tc = { .intervals = cfg->report_interval > 0, .rate = cfg->rate > 0,
                          .rate_lag = cfg->rate_lag, .histogram = cfg->histogram,
                          .latency_limit_ns = cfg->latency_limit_ns };
  sb_text_hooks_t hooks;
  if (ctest)
    hooks = (sb_text_hooks_t) { .interval = ctest_interval, .cumulative = ctest_cumulative,
                                .ctx = (void *) ctest };
  else
    sb_lua_text_hooks(cfg->threads, &hooks);
  sb_output_t out;
  sb_text_output(&tc, &hooks, &out);
  sb_output_register(&out);
}

/* The outputs and probes of a run (sb_cli_register_outputs), with
   `report` registered in the text report's place when not NULL (the
   pgbench persona's report). */
static int register_outputs(const char *test, const sb_run_config_t *cfg,
                            const sb_c_test_t *ctest, const sb_output_t *report)
{
  /* --endpoints: the per-endpoint probe first (the innermost window: it
     queries nothing, the server-statistics probe's samples fall outside
     its window), and the replica lag sampler, an output registered before
     those that show its samples */
  sb_output_t lag;
  /* a built-in test talks to no server: only the cost probe, which
     decides itself (a C test that runs SQL gets them all) */
  bool builtin = ctest != NULL && !ctest->uses_db;
  int nep = builtin ? 0 : sb_endpoint_register(&lag);
  if (nep < 0)
    return 1;
  if (sb_server_register_probes(cfg->server_stats && !builtin,
                                cfg->db_checkpoint && !builtin) != 0)
    return 1;
  /* --tag labels the metrics and the saved run, and goes into the
     --results manifest: checked for every run, before anything connects */
  if (sb_metrics_check_tags() != 0)
    return 1;
  if (nep > 0)
    sb_output_register(&lag);
  sb_output_t out;
  /* --cluster-stream: stdout becomes the coordinator's stream before
     anything of the run prints; its start-line wait comes after the
     server probes' actions (docs/cluster.md) */
  bool stream = sb_opt_bool("cluster-stream");
  if (stream)
  {
    sb_probe_t probe;
    if (sb_cluster_stream_setup() != 0)
      return 1;
    sb_cluster_stream_output(cfg->report_interval, builtin, &out, &probe);
    if (sb_probe_register(&probe) != 0)
      return 1;
    sb_output_register(&out);
  }
  if (report)
    sb_output_register(report);
  else
    register_text(cfg, ctest);
  /* --threshold: checked before anything connects; registered before the
     result files' output so that its verdicts reach the document */
  int nth = sb_threshold_output(&out);
  if (nth < 0)
    return 1;
  if (nth > 0)
    sb_output_register(&out);
  /* a cluster process: the coordinator saves the merged run */
  bool save = sb_resultsdb_save_requested() && !stream;
  /* --save and the stream's end need the document the result files'
     output builds */
  if (cfg->results_path || cfg->hdrlog_path || save || stream)
  {
    sb_results_output(cfg->results_path, cfg->hdrlog_path, &out);
    sb_output_register(&out);
  }
  if (save)
  {
    sb_resultsdb_output(&out);
    sb_output_register(&out);
  }
  if (stream)
  {
    sb_cluster_stream_end_output(&out);
    sb_output_register(&out);
  }
  int rc = sb_metrics_output(test, cfg->threads, cfg->rate, &out);
  if (rc < 0)
    return 1;
  if (rc > 0)
    sb_output_register(&out);
  /* bmk's report_final hook: after everything above */
  if (!ctest && !report)
  {
    sb_lua_final_output(&out);
    sb_output_register(&out);
  }
  return 0;
}

int sb_cli_register_outputs(const char *test, const sb_run_config_t *cfg,
                            const sb_c_test_t *ctest)
{
  return register_outputs(test, cfg, ctest, NULL);
}

int sb_cli_register_report_outputs(const char *test, const sb_run_config_t *cfg,
                                   const sb_output_t *report)
{
  static const sb_c_test_t sql_test = { .uses_db = true };
  return register_outputs(test, cfg, &sql_test, report);
}
