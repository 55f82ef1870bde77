/* A command's results, forwarded; see core/sb_cmd_results.h. */
#include <stddef.h>

#include "core/sb_cmd_results.h"

static sb_cmd_results_fn installed;
static sb_cmd_live_start_fn live_start;
static sb_cmd_live_end_fn live_end;

void sb_cmd_results_install(sb_cmd_results_fn fn)
{
  installed = fn;
}

int sb_cmd_results(const char *section, const char *json, double start_epoch_s, double time_s,
                   unsigned threads, const char *interrupted, int exit_code)
{
  if (installed == NULL)
    return 0;
  if (interrupted && *interrupted == '\0')
    interrupted = NULL;
  return installed(section, json, start_epoch_s, time_s, threads, interrupted, exit_code);
}

void sb_cmd_live_install(sb_cmd_live_start_fn start, sb_cmd_live_end_fn end)
{
  live_start = start;
  live_end = end;
}

int sb_cmd_live_start(const char *name)
{
  return live_start ? live_start(name) : 0;
}

void sb_cmd_live_end(void)
{
  if (live_end)
    live_end();
}
