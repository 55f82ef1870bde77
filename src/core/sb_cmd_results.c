/* A command's results, forwarded; see core/sb_cmd_results.h. */
#include <stddef.h>

#include "core/sb_cmd_results.h"

static sb_cmd_results_fn installed;

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
