/*
 * Per-thread event and query counters.
 *
 * Each worker thread owns one cache-line-aligned block of counters and is its
 * only writer, so counting never touches a shared cache line. Reporters read
 * the blocks with relaxed atomic loads and keep their own snapshots; counters
 * are never reset (a "reset" is a new baseline snapshot taken by the reader).
 *
 * The names and numbering are sysbench's (scripts use them through FFI),
 * followed by bmk's own counters, which scripts do not see.
 */
#ifndef SB_COUNTER_H
#define SB_COUNTER_H

#include <stdint.h>

typedef enum {
  SB_CNT_OTHER = 0,
  SB_CNT_READ,
  SB_CNT_WRITE,
  SB_CNT_EVENT,        /* "TRX" in sysbench's FFI enum: completed events */
  SB_CNT_ERROR,
  SB_CNT_RECONNECT,
  SB_CNT_BYTES_READ,
  SB_CNT_BYTES_WRITTEN,
  /* bmk: statements (and automatic reconnects) that got no answer within
     --db-query-timeout / --db-connect-timeout; each is also counted as an
     error or, when its connection was rebuilt, a reconnect */
  SB_CNT_TIMEOUT,
  /* bmk: --max-tries (core/sb_retry.h): tries run again after a
     serialization failure or deadlock, and transactions that failed after
     their last try */
  SB_CNT_RETRY,
  SB_CNT_FAILED,
  SB_CNT_MAX
} sb_counter_type;

/* One thread's counters: two 64-byte cache lines (sysbench's eight
   counters fill the first), never shared with another thread. */
typedef struct {
  uint64_t v[SB_CNT_MAX];
} __attribute__((aligned(64))) sb_counters_t;

/*
 * Allocates counter blocks for `nthreads` threads (plus one spare slot used
 * by the global/main Lua state, index `nthreads`). Not thread-safe: call
 * before any worker starts. Returns 0, or -1 on allocation failure.
 */
int sb_counters_init(unsigned nthreads);

/*
 * Re-allocates the blocks for `ntids` thread ids sharing `ngroups` slots
 * (id t counts into slot t % ngroups, plus the spare slot): the event-loop
 * engine gives each worker thread one slot for all its virtual users, so
 * each slot still has one writer. Earlier counts are dropped. Not
 * thread-safe: call before any worker starts. Returns 0, or -1 on
 * allocation failure.
 */
int sb_counters_init_grouped(unsigned ntids, unsigned ngroups);

/* Frees the blocks. Not thread-safe. */
void sb_counters_done(void);

/* The calling thread's id for counting (worker tid; -1 = the main thread,
   which counts into the spare slot). Set once at thread start. */
extern _Thread_local int sb_tls_tid;

/* Thread id whose counts are dropped: bmk's own bookkeeping queries
   (the server-statistics sampler) must not show up as client queries. */
#define SB_TID_UNCOUNTED (-2)

/* Number of per-thread blocks (threads + 1). */
unsigned sb_counters_slots(void);

/* Increments counter `type` of thread `thread_id` by one. Only the owning
   thread may call it. Out-of-range ids are mapped to the spare slot. */
void sb_counter_inc(int thread_id, sb_counter_type type);

/* Adds `value` to counter `type` of thread `thread_id`. Owner thread only. */
void sb_counter_add(int thread_id, sb_counter_type type, uint64_t value);

/* Reads counter `type` of thread `thread_id` (relaxed atomic load); any
   thread may call it. */
uint64_t sb_counter_val(int thread_id, sb_counter_type type);

/* Sums every thread's counters into `out` (relaxed loads; any thread). */
void sb_counters_snapshot(sb_counters_t *out);

/* Maps a thread id to its slot (ids outside [0,threads) go to the spare;
   grouped ids to their group's slot). */
unsigned sb_counter_slot(int thread_id);

#endif
