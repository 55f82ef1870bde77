/* dlsym for the static binary; see static_dlsym.h. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "cli/static_dlsym.h"

void *__real_dlsym(void *handle, const char *name);

static int by_name(const void *key, const void *elem)
{
  return strcmp(key, ((const static_sym_t *) elem)->name);
}

void *__wrap_dlsym(void *handle, const char *name)
{
  if (handle == RTLD_DEFAULT && name != NULL)
  {
    const static_sym_t *s = bsearch(name, static_syms, static_nsyms, sizeof(*s), by_name);
    if (s != NULL)
      return s->addr;
  }
  return __real_dlsym(handle, name);
}
