/* A workload's own members of the results document; see
   results/sb_results_extra.h. */
#include <pthread.h>

#include "results/sb_results_extra.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *extra;            /* object: name -> value */

void sb_results_extra_set(const char *name, json_t *value)
{
  pthread_mutex_lock(&lock);
  if (extra == NULL)
    extra = json_object();
  if (extra && value)
    json_object_set_new(extra, name, value);
  else
    json_decref(value);
  pthread_mutex_unlock(&lock);
}

void sb_results_extra_add(json_t *doc)
{
  pthread_mutex_lock(&lock);
  if (extra)
    json_object_update(doc, extra);
  pthread_mutex_unlock(&lock);
}
