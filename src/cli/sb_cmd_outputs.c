/* --results, --save and --metrics-listen of a command's results; see
   cli/sb_cmd_outputs.h. */
#include <stddef.h>

#include <jansson.h>

#include "cli/sb_cmd_outputs.h"
#include "core/sb_cmd_results.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "metrics/sb_metrics_cmd.h"
#include "results/sb_results.h"
#include "results/sb_results_command.h"
#include "resultsdb/sb_resultsdb_output.h"

/* The document of the command's results, written to --results and saved
   with --save (sb_cmd_results_fn). */
static int cmd_outputs(const char *section, const char *text, double start_epoch_s,
                       double time_s, unsigned threads, const char *interrupted, int exit_code)
{
  const char *path = sb_opt_str("results");
  bool file = path && *path, save = sb_resultsdb_save_requested();
  if (!file && !save)
    return 0;
  json_error_t je;
  json_t *body = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : NULL;
  if (text && body == NULL)
  {
    log_text(LOG_ALERT, "--results: the %s section is not JSON (column %d: %s)",
             section ? section : "command's", je.column, je.text);
    return -1;
  }
  json_t *doc = sb_results_command_doc(section, body, start_epoch_s, time_s, threads,
                                       interrupted, exit_code);
  if (doc == NULL)
  {
    log_text(LOG_ALERT, "--results: out of memory");
    return -1;
  }
  int rc = 0;
  if (file && sb_results_write_json(doc, path) != 0)
    rc = -1;
  if (save && sb_resultsdb_save_document(doc) != 0)
    rc = -1;
  json_decref(doc);
  return rc;
}

/* A command opens its outputs: --results checked now (not after an hour
   of queries), --metrics-listen served (sb_cmd_open_fn). */
static int cmd_open(const char *name)
{
  const char *path = sb_opt_str("results");
  if (path && *path && sb_results_check_writable("--results", path) != 0)
    return -1;
  return sb_metrics_cmd_start(name);
}

void sb_cli_install_cmd_outputs(void)
{
  sb_cmd_results_install(cmd_outputs);
  sb_cmd_outputs_install(cmd_open, sb_metrics_cmd_stop);
}
