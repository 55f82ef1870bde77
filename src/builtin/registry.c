/* Registry of the built-in tests; see sb_builtin.h. */
#include <string.h>

#include "builtin/sb_builtin.h"

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
