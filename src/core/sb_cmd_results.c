/* A command's results, forwarded; see core/sb_cmd_results.h. */
#include <stddef.h>

#include "core/sb_cmd_results.h"

static sb_cmd_results_fn installed;
static sb_cmd_open_fn open_fn;
static sb_cmd_close_fn close_fn;

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

void sb_cmd_outputs_install(sb_cmd_open_fn on_open, sb_cmd_close_fn on_close)
{
  open_fn = on_open;
  close_fn = on_close;
}

int sb_cmd_open(const char *name)
{
  return open_fn ? open_fn(name) : 0;
}

void sb_cmd_close(void)
{
  if (close_fn)
    close_fn();
}
