/* The outputs of a run; see cli/sb_outputs.h. */
#include "cli/sb_outputs.h"
#include "core/sb_output.h"
#include "metrics/sb_metrics.h"
#include "results/sb_results_output.h"
#include "results/sb_threshold.h"
#include "server/sb_server_probes.h"
#include "store/sb_store_output.h"

int sb_cli_register_outputs(const char *test, const sb_run_config_t *cfg, bool builtin)
{
  /* a built-in test talks to no server: only the cost probe, which
     decides itself */
  if (sb_server_register_probes(cfg->server_stats && !builtin, cfg->db_checkpoint && !builtin) != 0)
    return 1;
  /* --tag labels the metrics and the saved run, and goes into the
     --results manifest: checked for every run, before anything connects */
  if (sb_metrics_check_tags() != 0)
    return 1;
  sb_output_t out;
  /* --threshold: checked before anything connects; registered before the
     result files' output so that its verdicts reach the document */
  int nth = sb_threshold_output(&out);
  if (nth < 0)
    return 1;
  if (nth > 0)
    sb_output_register(&out);
  bool save = sb_store_save_requested();
  /* --save needs the document the result files' output builds */
  if (cfg->results_path || cfg->hdrlog_path || save)
  {
    sb_results_output(cfg->results_path, cfg->hdrlog_path, &out);
    sb_output_register(&out);
  }
  if (save)
  {
    sb_store_output(&out);
    sb_output_register(&out);
  }
  int rc = sb_metrics_output(test, cfg->threads, cfg->rate, &out);
  if (rc < 0)
    return 1;
  if (rc > 0)
    sb_output_register(&out);
  return 0;
}
