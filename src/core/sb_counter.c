/* Per-thread counters; see sb_counter.h. */
#include <stdlib.h>
#include <string.h>

#include "core/sb_counter.h"

_Thread_local int sb_tls_tid = -1;

static sb_counters_t *blocks;
static unsigned nslots;       /* groups + 1 spare */
static unsigned ntids_;       /* valid thread ids: [0, ntids_) */

int sb_counters_init_grouped(unsigned ntids, unsigned ngroups)
{
  void *p;

  if (ngroups == 0 || ngroups > ntids)
    ngroups = ntids;
  if (posix_memalign(&p, 64, sizeof(sb_counters_t) * (ngroups + 1)) != 0)
    return -1;
  memset(p, 0, sizeof(sb_counters_t) * (ngroups + 1));
  free(blocks);
  blocks = p;
  nslots = ngroups + 1;
  ntids_ = ntids;
  return 0;
}

int sb_counters_init(unsigned nthreads)
{
  return sb_counters_init_grouped(nthreads, nthreads);
}

void sb_counters_done(void)
{
  free(blocks);
  blocks = NULL;
  nslots = 0;
  ntids_ = 0;
}

unsigned sb_counters_slots(void)
{
  return nslots;
}

unsigned sb_counter_slot(int thread_id)
{
  if (thread_id < 0 || (unsigned) thread_id >= ntids_)
    return nslots - 1;
  unsigned groups = nslots - 1;
  return groups == ntids_ ? (unsigned) thread_id : (unsigned) thread_id % groups;
}

/* Single writer per block: a relaxed load + store is enough and avoids a
   locked instruction; readers use relaxed loads. */
void sb_counter_add(int thread_id, sb_counter_type type, uint64_t value)
{
  if (blocks == NULL || (unsigned) type >= SB_CNT_MAX || thread_id == SB_TID_UNCOUNTED)
    return;
  uint64_t *c = &blocks[sb_counter_slot(thread_id)].v[type];
  __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + value,
                   __ATOMIC_RELAXED);
}

void sb_counter_inc(int thread_id, sb_counter_type type)
{
  sb_counter_add(thread_id, type, 1);
}

uint64_t sb_counter_val(int thread_id, sb_counter_type type)
{
  if (blocks == NULL || (unsigned) type >= SB_CNT_MAX)
    return 0;
  return __atomic_load_n(&blocks[sb_counter_slot(thread_id)].v[type],
                         __ATOMIC_RELAXED);
}

void sb_counters_snapshot(sb_counters_t *out)
{
  memset(out, 0, sizeof(*out));
  for (unsigned s = 0; s < nslots; s++)
    for (unsigned t = 0; t < SB_CNT_MAX; t++)
      out->v[t] += __atomic_load_n(&blocks[s].v[t], __ATOMIC_RELAXED);
}
