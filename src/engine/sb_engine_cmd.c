/* Parallel script commands (prepare/cleanup/... with
   sysbench.cmdline.PARALLEL_COMMAND): one fresh Lua state per thread; see
   sb_engine_parallel_command in sb_engine.h. */
#include <pthread.h>
#include <stdlib.h>

#include "core/sb_counter.h"
#include "engine/sb_engine.h"
#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "core/sb_rand.h"

/* ---- parallel commands --------------------------------------------------------- */

typedef struct {
  pthread_t thread;
  int tid;
  const char *name;
  int rc;
} cmd_thread_t;

static void *command_main(void *arg)
{
  cmd_thread_t *t = arg;
  sb_tls_tid = t->tid;
  sb_rand_thread_init(t->tid);
  lua_State *L = sb_lua_new_state(t->tid);
  bool ret_false = false;
  if (L == NULL || sb_lua_call_command(L, t->name, &ret_false) != 0 || ret_false)
    t->rc = 1;
  sb_lua_close_state(L);
  return NULL;
}

int sb_engine_parallel_command(const sb_run_config_t *config, const char *name)
{
  unsigned n = config->threads;
  cmd_thread_t *t = calloc(n, sizeof(*t));
  int rc = 0;

  log_text(LOG_NOTICE, "Initializing worker threads...\n");
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, config->thread_stack_size < 512 * 1024
                            ? 512 * 1024 : config->thread_stack_size);
  unsigned created = 0;
  for (unsigned i = 0; i < n; i++)
  {
    t[i].tid = (int) i;
    t[i].name = name;
    if (pthread_create(&t[i].thread, &attr, command_main, &t[i]) != 0)
    {
      log_text(LOG_FATAL, "cannot create thread %u", i);
      rc = 1;
      break;
    }
    created++;
  }
  pthread_attr_destroy(&attr);
  for (unsigned i = 0; i < created; i++)
  {
    pthread_join(t[i].thread, NULL);
    if (t[i].rc)
      rc = 1;
  }
  free(t);
  return rc;
}
