/* Workload metrics; see sb_metric.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_counter.h"
#include "core/sb_metric.h"

/* One thread's slots: two cache lines, never shared with another thread. */
typedef struct {
  uint64_t v[SB_METRIC_MAX];
} __attribute__((aligned(64))) metric_block_t;

static metric_block_t *blocks;
static unsigned nslots;          /* threads + 1 spare */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static char names[SB_METRIC_MAX][SB_METRIC_NAME_MAX];
static unsigned nnames;

int sb_metrics_init(unsigned nthreads)
{
  void *p;
  size_t size = sizeof(metric_block_t) * (nthreads + 1);
  if (posix_memalign(&p, 64, size) != 0)
    return -1;
  memset(p, 0, size);
  free(blocks);
  blocks = p;
  nslots = nthreads + 1;
  return 0;
}

void sb_metrics_done(void)
{
  free(blocks);
  blocks = NULL;
  nslots = 0;
  pthread_mutex_lock(&reg_lock);
  __atomic_store_n(&nnames, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&reg_lock);
}

int sb_metric_id(const char *name)
{
  if (name == NULL || *name == '\0' || strlen(name) >= SB_METRIC_NAME_MAX)
    return -1;
  int id = -1;
  pthread_mutex_lock(&reg_lock);
  for (unsigned i = 0; i < nnames; i++)
    if (strcmp(names[i], name) == 0)
      id = (int) i;
  if (id < 0 && nnames < SB_METRIC_MAX)
  {
    strcpy(names[nnames], name);
    id = (int) nnames;
    /* The name is complete before a reader can see the new count. */
    __atomic_store_n(&nnames, nnames + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&reg_lock);
  return id;
}

const char *sb_metric_name(int id)
{
  if (id < 0 || (unsigned) id >= sb_metric_count())
    return NULL;
  return names[id];
}

unsigned sb_metric_count(void)
{
  return __atomic_load_n(&nnames, __ATOMIC_ACQUIRE);
}

void sb_metric_add(int id, uint64_t value)
{
  if (blocks == NULL || id < 0 || id >= SB_METRIC_MAX)
    return;
  int tid = sb_tls_tid;
  if (tid >= 0 && (unsigned) tid + 1 < nslots)
  {
    /* Single writer: a relaxed load + store, no locked instruction. */
    uint64_t *c = &blocks[tid].v[id];
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + value, __ATOMIC_RELAXED);
  }
  else
    /* The spare slot has several writers (main thread, reporter,
       parallel commands beyond the worker count). */
    __atomic_fetch_add(&blocks[nslots - 1].v[id], value, __ATOMIC_RELAXED);
}

void sb_metrics_snapshot(uint64_t *out)
{
  memset(out, 0, sizeof(uint64_t) * SB_METRIC_MAX);
  for (unsigned s = 0; s < nslots; s++)
    for (unsigned i = 0; i < SB_METRIC_MAX; i++)
      out[i] += __atomic_load_n(&blocks[s].v[i], __ATOMIC_RELAXED);
}
