/* Process-wide state for scripts; see sb_shared.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_counter.h"
#include "core/sb_shared.h"

static int64_t slots[SB_SHARED_SLOTS];

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int bar_count;
static unsigned long bar_gen;
static int aborted;

static uint64_t *blocks;          /* nblocks * SB_SHARED_COUNTERS */
static unsigned nblocks;
static uint64_t mark[SB_SHARED_COUNTERS];

static char codes[SB_SHARED_CODES][SB_SHARED_CODE_LEN];
static int ncodes;

int64_t sb_shared_add(int slot, int64_t n)
{
  if (slot < 0 || slot >= SB_SHARED_SLOTS)
    return 0;
  return __atomic_fetch_add(&slots[slot], n, __ATOMIC_SEQ_CST);
}

int64_t sb_shared_get(int slot)
{
  if (slot < 0 || slot >= SB_SHARED_SLOTS)
    return 0;
  return __atomic_load_n(&slots[slot], __ATOMIC_SEQ_CST);
}

void sb_shared_set(int slot, int64_t v)
{
  if (slot >= 0 && slot < SB_SHARED_SLOTS)
    __atomic_store_n(&slots[slot], v, __ATOMIC_SEQ_CST);
}

int sb_shared_barrier(int n)
{
  if (n <= 1)
    return __atomic_load_n(&aborted, __ATOMIC_SEQ_CST) ? -1 : 0;
  pthread_mutex_lock(&mtx);
  if (aborted)
  {
    pthread_mutex_unlock(&mtx);
    return -1;
  }
  unsigned long gen = bar_gen;
  if (++bar_count >= n)
  {
    bar_count = 0;
    bar_gen++;
    pthread_cond_broadcast(&cond);
  }
  else
    while (gen == bar_gen && !aborted)
      pthread_cond_wait(&cond, &mtx);
  int rc = gen == bar_gen && aborted ? -1 : 0;
  pthread_mutex_unlock(&mtx);
  return rc;
}

void sb_shared_abort(void)
{
  pthread_mutex_lock(&mtx);
  __atomic_store_n(&aborted, 1, __ATOMIC_SEQ_CST);
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&mtx);
}

bool sb_shared_aborted(void)
{
  return __atomic_load_n(&aborted, __ATOMIC_SEQ_CST) != 0;
}

/* Blocks are sized from the counter slots (threads + 1) when first asked
   for: all threads exist by then. */
static void alloc_blocks(void)
{
  unsigned n = sb_counters_slots();
  if (n == 0)
    n = 1;
  void *p = NULL;
  if (posix_memalign(&p, 64, (size_t) n * SB_SHARED_COUNTERS * sizeof(uint64_t)) != 0)
    return;
  memset(p, 0, (size_t) n * SB_SHARED_COUNTERS * sizeof(uint64_t));
  blocks = p;
  __atomic_store_n(&nblocks, n, __ATOMIC_RELEASE);
}

uint64_t *sb_shared_counters(int tid)
{
  pthread_mutex_lock(&mtx);
  if (blocks == NULL)
    alloc_blocks();
  pthread_mutex_unlock(&mtx);
  if (blocks == NULL)
    return NULL;
  unsigned n = __atomic_load_n(&nblocks, __ATOMIC_ACQUIRE);
  /* the engine counters' slot: per thread in thread mode, per worker in
     event mode (its VUs are coroutines of one OS thread, so each block
     keeps a single writer) */
  unsigned slot = sb_counter_slot(tid);
  if (slot >= n)
    slot = n - 1;
  return blocks + (size_t) slot * SB_SHARED_COUNTERS;
}

void sb_shared_sum(uint64_t *out)
{
  memset(out, 0, SB_SHARED_COUNTERS * sizeof(uint64_t));
  unsigned n = __atomic_load_n(&nblocks, __ATOMIC_ACQUIRE);
  for (unsigned b = 0; b < n; b++)
  {
    const uint64_t *blk = blocks + (size_t) b * SB_SHARED_COUNTERS;
    for (unsigned i = 0; i < SB_SHARED_COUNTERS; i++)
      out[i] += __atomic_load_n(&blk[i], __ATOMIC_RELAXED);
  }
}

void sb_shared_mark(void)
{
  uint64_t tmp[SB_SHARED_COUNTERS];
  sb_shared_sum(tmp);
  pthread_mutex_lock(&mtx);
  memcpy(mark, tmp, sizeof(mark));
  pthread_mutex_unlock(&mtx);
}

void sb_shared_marked(uint64_t *out)
{
  pthread_mutex_lock(&mtx);
  memcpy(out, mark, sizeof(mark));
  pthread_mutex_unlock(&mtx);
}

int sb_shared_code_id(const char *code)
{
  if (code == NULL || *code == '\0')
    return -1;
  int id = -1;
  pthread_mutex_lock(&mtx);
  for (int i = 0; i < ncodes; i++)
    if (strncmp(codes[i], code, SB_SHARED_CODE_LEN - 1) == 0)
      id = i;
  if (id < 0 && ncodes < SB_SHARED_CODES)
  {
    strncpy(codes[ncodes], code, SB_SHARED_CODE_LEN - 1);
    codes[ncodes][SB_SHARED_CODE_LEN - 1] = '\0';
    id = ncodes++;
  }
  pthread_mutex_unlock(&mtx);
  return id;
}

const char *sb_shared_code_name(int id)
{
  pthread_mutex_lock(&mtx);
  const char *s = id >= 0 && id < ncodes ? codes[id] : NULL;
  pthread_mutex_unlock(&mtx);
  return s;
}

int sb_shared_code_count(void)
{
  pthread_mutex_lock(&mtx);
  int n = ncodes;
  pthread_mutex_unlock(&mtx);
  return n;
}
