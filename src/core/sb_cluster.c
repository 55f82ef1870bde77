/* A process's place in a cluster run; see core/sb_cluster.h. */
#include "core/sb_cluster.h"

static unsigned c_index, c_size = 1, c_threads;

void sb_cluster_set(unsigned index, unsigned size, unsigned threads)
{
  c_index = index;
  c_size = size ? size : 1;
  c_threads = threads;
}

unsigned sb_cluster_index(void)
{
  return c_index;
}

unsigned sb_cluster_size(void)
{
  return c_size;
}

int sb_cluster_global_tid(int tid)
{
  if (tid < 0)
    return tid;
  return (int) (c_index * c_threads) + tid;
}

uint64_t sb_cluster_share(uint64_t total, unsigned index, unsigned size)
{
  if (size == 0)
    return total;
  return total / size + (index < total % size ? 1 : 0);
}
