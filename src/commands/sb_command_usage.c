/* A subcommand's usage error; see sb_command_usage.h. */
#include <stdarg.h>
#include <stdio.h>

#include "commands/sb_command_usage.h"

int sb_command_usage_error(const char *prog, const char *usage, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n%s", usage);
  return 1;
}
