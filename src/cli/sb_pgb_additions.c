/* bmk's additions on the pgbench persona's command line; see
   cli/sb_pgb_additions.h. */
#include <stddef.h>

#include "cli/sb_core_options.h"
#include "cli/sb_outputs.h"
#include "cli/sb_pgb_additions.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "metrics/sb_metrics.h"
#include "results/sb_results_manifest.h"
#include "results/sb_threshold.h"
#include "resultsdb/sb_resultsdb_output.h"

/* `s`, or NULL when it is NULL or empty. */
static const char *nonempty(const char *s)
{
  return s && *s ? s : NULL;
}

int sb_cli_pgbench_additions(const pgb_additions_t *a)
{
  char *pos[1];
  unsigned npos = 0;
  /* the persona's driver options are registered already: bmk's tables
     join them, and take the values given (bmk's checks and messages) */
  if (sb_opt_parse_argv(a->nopts, a->opts, pos, 1, &npos) != 0 ||
      sb_core_register_options() != 0 || sb_metrics_register_options() != 0 ||
      sb_resultsdb_register_options() != 0 || sb_threshold_register_options() != 0)
    return 1;
  sb_run_config_t *cfg = a->cfg;
  cfg->results_path = nonempty(sb_opt_str("results"));
  cfg->hdrlog_path = nonempty(sb_opt_str("hdr-log"));
  /* off unless asked for, as under the name sysbench */
  cfg->server_stats = sb_opt_given("db-server-stats") && sb_opt_bool("db-server-stats");
  int pct = sb_opt_int("percentile");
  if (pct < 0 || pct > 100)
  {
    log_text(LOG_FATAL, "Invalid value for --percentile: %d", pct);
    return 1;
  }
  cfg->percentile = (unsigned) pct;
  static const sb_option_t own[] = {
    { "statement-percentiles", "each script command's count and latency percentiles after "
      "the report (docs/pgbench.md)", "off", SB_ARG_TYPE_BOOL },
    { NULL, NULL, NULL, SB_ARG_TYPE_NULL }
  };
  if (sb_opt_register_table(own, 0, NULL) != 0)
    return 1;
  *a->statements = sb_opt_bool("statement-percentiles");
  sb_results_set_cmdline(a->argc, a->argv);
  sb_results_set_test("pgbench");
  return sb_cli_register_report_outputs("pgbench", cfg, a->report);
}
