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

/* Most notes a process keeps (sb_cluster_note), and their sizes. */
#define SB_CLUSTER_NOTES_MAX 4096
#define SB_CLUSTER_NOTE_KEY 64
#define SB_CLUSTER_NOTE_VALUE 256

/* Records the pair (key, value) for this process's part of a cluster run
   (sysbench.cluster.note in Lua; docs/cluster.md): a --cluster-stream
   process sends each distinct pair once, before its end line, and the
   coordinator lists them in its --results per-process section. `key`: 1
   to 63 characters of [A-Za-z0-9_.-]; `value`: up to 255 characters, no
   newline. A pair already recorded is not recorded again. Returns 0, or
   -1 when the key or value is malformed or SB_CLUSTER_NOTES_MAX pairs are
   kept already. Thread-safe (any VU). */
int sb_cluster_note(const char *key, const char *value);

/* Calls fn(ctx, key, value) for every recorded pair, in the order they
   were first recorded. Thread-safe (holds the notes' lock while it runs:
   fn must not record notes). */
void sb_cluster_notes_each(void (*fn)(void *ctx, const char *key, const char *value),
                           void *ctx);

#endif
