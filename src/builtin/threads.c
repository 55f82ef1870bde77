/* Built-in test `threads`: scheduler stress with locks and yields
   (sysbench's src/tests/threads/sb_threads.c). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "builtin/sb_builtin.h"
#include "core/sb_logger.h"

static const sb_option_t threads_options[] = {
  { "thread-yields", "number of yields to do per request", "1000", SB_ARG_TYPE_INT },
  { "thread-locks", "number of locks per thread", "8", SB_ARG_TYPE_INT },
  { NULL, NULL, NULL, 0 }
};

static pthread_mutex_t *locks;
static unsigned nlocks, yields;

static int threads_init(sb_run_config_t *cfg)
{
  (void) cfg;
  int l = sb_opt_int("thread-locks"), y = sb_opt_int("thread-yields");
  if (l <= 0 || y < 0)
  {
    log_text(LOG_FATAL, "Invalid value of thread-locks or thread-yields");
    return 1;
  }
  nlocks = (unsigned) l;
  yields = (unsigned) y;
  locks = calloc(nlocks, sizeof(*locks));
  for (unsigned i = 0; i < nlocks; i++)
    pthread_mutex_init(&locks[i], NULL);
  return 0;
}

static int threads_event(int tid)
{
  pthread_mutex_t *m = &locks[(unsigned) tid % nlocks];
  for (unsigned i = 0; i < yields; i++)
  {
    pthread_mutex_lock(m);
    sched_yield();
    pthread_mutex_unlock(m);
  }
  return 0;
}

static void threads_done(void)
{
  for (unsigned i = 0; i < nlocks; i++)
    pthread_mutex_destroy(&locks[i]);
  free(locks);
  locks = NULL;
}

const sb_builtin_t sb_test_threads = {
  .name = "threads",
  .description = "Threads subsystem performance test",
  .options = threads_options,
  .init = threads_init,
  .run = { .event = threads_event },
  .done = threads_done,
};
