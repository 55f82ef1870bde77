/*
 * This process's place in a cluster run (docs/cluster.md): one of
 * --cluster-size processes, number --cluster-index, each running the same
 * --threads virtual users. Thread ids are made global from it: VU `tid`
 * of process `index` is thread `index * threads + tid` of the cluster, so
 * per-VU random streams and per-VU keys never collide across processes.
 * Outside a cluster run index = 0, size = 1 and the global id is the
 * local one.
 *
 * Set once by the main thread before any worker starts; read-only after
 * (any thread).
 */
#ifndef SB_CLUSTER_H
#define SB_CLUSTER_H

#include <stdint.h>

/* Sets the process's index (0..size-1), the cluster's size (>= 1) and
   the VUs per process (--threads). No checks: the caller validated. */
void sb_cluster_set(unsigned index, unsigned size, unsigned threads);

/* This process's index (0 outside a cluster run). */
unsigned sb_cluster_index(void);

/* Number of processes of the cluster run (1 outside one). */
unsigned sb_cluster_size(void);

/* The global thread id of local VU `tid` (index * threads + tid; `tid`
   unchanged outside a cluster run; negative ids stay as they are). */
int sb_cluster_global_tid(int tid);

/* The share of `total` that process `index` of `size` gets when `total`
   is divided exactly: total / size, plus one for the first total % size
   processes, so the shares add up to `total`. Pure. */
uint64_t sb_cluster_share(uint64_t total, unsigned index, unsigned size);

#endif
