/* Registry of the built-in tests and their shared output helpers; see
   sb_builtin.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/sb_builtin.h"
#include "core/sb_logger.h"

extern const sb_builtin_t sb_test_fileio;
extern const sb_builtin_t sb_test_cpu;
extern const sb_builtin_t sb_test_memory;
extern const sb_builtin_t sb_test_threads;
extern const sb_builtin_t sb_test_mutex;

static const sb_builtin_t *const tests[] = {
  &sb_test_fileio,
  &sb_test_cpu,
  &sb_test_memory,
  &sb_test_threads,
  &sb_test_mutex,
  NULL
};

const sb_builtin_t *const *sb_builtins(void)
{
  return tests;
}

const sb_builtin_t *sb_builtin_find(const char *name)
{
  for (unsigned i = 0; tests[i]; i++)
    if (strcmp(tests[i]->name, name) == 0)
      return tests[i];
  return NULL;
}

void sb_builtin_report_line(const char *fmt, ...)
{
  va_list ap;
  if (log_get_verbosity() < LOG_NOTICE)
    return;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
}

char *sb_builtin_size_text(char *buf, size_t len, double bytes)
{
  static const char mods[] = "KMGT";
  unsigned i = 0;
  while (i < sizeof(mods) - 1 && bytes >= 1024)
  {
    bytes /= 1024;
    i++;
  }
  if (i > 0)
    snprintf(buf, len, "%.5g%ci", bytes, mods[i - 1]);
  else
    snprintf(buf, len, "%.5g", bytes);
  return buf;
}

void *sb_builtin_calloc_aligned(size_t n, size_t size)
{
  void *p = NULL;
  if (n == 0 || posix_memalign(&p, 64, n * size) != 0)
    return NULL;
  memset(p, 0, n * size);
  return p;
}
