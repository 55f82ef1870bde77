/* Built-in test `mutex`: every thread takes random mutexes of a shared
   array; one event per thread (sysbench's src/tests/mutex/sb_mutex.c). */
#include <pthread.h>
#include <stdlib.h>

#include "builtin/sb_builtin.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"

static const sb_option_t mutex_options[] = {
  { "mutex-num", "total size of mutex array", "4096", SB_ARG_TYPE_INT },
  { "mutex-locks", "number of mutex locks to do per thread", "50000", SB_ARG_TYPE_INT },
  { "mutex-loops", "number of empty loops to do outside mutex lock", "10000", SB_ARG_TYPE_INT },
  { NULL, NULL, NULL, 0 }
};

typedef struct {
  pthread_mutex_t m;
  unsigned long counter;
} __attribute__((aligned(64))) slot_t;

static slot_t *slots;
static unsigned nslots, nlocks, nloops;
static _Thread_local int done_once;

static int mutex_init(sb_run_config_t *cfg)
{
  (void) cfg;
  int n = sb_opt_int("mutex-num"), l = sb_opt_int("mutex-locks"), p = sb_opt_int("mutex-loops");
  if (n <= 0 || l < 0 || p < 0)
  {
    log_text(LOG_FATAL, "Invalid value of mutex-num, mutex-locks or mutex-loops");
    return 1;
  }
  nslots = (unsigned) n;
  nlocks = (unsigned) l;
  nloops = (unsigned) p;
  if (posix_memalign((void **) &slots, 64, sizeof(slot_t) * nslots) != 0)
    return 1;
  for (unsigned i = 0; i < nslots; i++)
  {
    pthread_mutex_init(&slots[i].m, NULL);
    slots[i].counter = 0;
  }
  return 0;
}

static int mutex_event(int tid)
{
  (void) tid;
  if (done_once)
    return 1;
  done_once = 1;
  for (unsigned i = 0; i < nlocks; i++)
  {
    slot_t *s = &slots[sb_rand_uniform(0, nslots - 1)];
    pthread_mutex_lock(&s->m);
    s->counter++;
    pthread_mutex_unlock(&s->m);
    for (volatile unsigned k = 0; k < nloops; k++)
      ;
  }
  return 0;
}

static void mutex_done(void)
{
  for (unsigned i = 0; i < nslots; i++)
    pthread_mutex_destroy(&slots[i].m);
  free(slots);
  slots = NULL;
}

const sb_builtin_t sb_test_mutex = {
  .name = "mutex",
  .description = "Mutex performance test",
  .options = mutex_options,
  .init = mutex_init,
  .run = { .event = mutex_event },
  .done = mutex_done,
};
