/*
 * Process-wide state for scripts whose threads each run their own Lua
 * state (workers, parallel commands, the reporter): nothing in Lua is
 * shared between them, so a workload that needs a common work queue, a
 * barrier or counters summed over all threads uses these, through FFI.
 * bmk's tpcc workload uses them for its load queue and progress, the
 * check summary, and its client-side transaction counters (NOPM, audit).
 *
 * - Slots: SB_SHARED_SLOTS int64 values with atomic add/get/set (work
 *   cursors, flags, totals).
 * - A barrier for the threads of one command, with an abort that wakes
 *   every waiter (a failing thread must not leave the others waiting).
 * - Counter blocks: one block of SB_SHARED_COUNTERS uint64 per thread
 *   (per worker thread in event mode, shared by its VUs, which are
 *   coroutines of that thread), written only by that OS thread (plain
 *   stores from Lua through the pointer
 *   sb_shared_counters returns; no locked instructions on the hot path)
 *   and summed by readers with relaxed loads, plus one "mark" copy of the
 *   sums that any thread can take and read (the measured interval's
 *   baseline).
 * - Code names: a small registry giving error codes ("40001", "1213")
 *   stable small ids for per-code counters.
 *
 * All functions are thread-safe. State lives for the whole process.
 */
#ifndef SB_SHARED_H
#define SB_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#define SB_SHARED_SLOTS 64
#define SB_SHARED_COUNTERS 1024
#define SB_SHARED_CODES 32
#define SB_SHARED_CODE_LEN 16

/* Atomically adds `n` to slot `slot` (0..SB_SHARED_SLOTS-1) and returns
   the previous value; 0 (and nothing done) for a bad slot. */
int64_t sb_shared_add(int slot, int64_t n);

/* Current value of a slot (0 for a bad slot). */
int64_t sb_shared_get(int slot);

/* Sets a slot. */
void sb_shared_set(int slot, int64_t v);

/* Waits until `n` threads have called it (one generation), then releases
   them all and returns 0. Returns -1 at once, or when woken, if
   sb_shared_abort() was called. n <= 1 returns 0 immediately. */
int sb_shared_barrier(int n);

/* Makes every present and future sb_shared_barrier call return -1. */
void sb_shared_abort(void);

/* True once sb_shared_abort() was called. */
bool sb_shared_aborted(void);

/* The counter block of VU `tid` (0-based; in event mode the block of
   the worker running it, sb_counter_slot; any other id, e.g. -1 for the
   main thread, gets a spare block), all zero at first. NULL when the
   blocks cannot be allocated. The block belongs to that OS thread: only
   it may write. */
uint64_t *sb_shared_counters(int tid);

/* out[0..SB_SHARED_COUNTERS) = sum over all blocks (relaxed loads). */
void sb_shared_sum(uint64_t *out);

/* Stores the current sums as the mark (e.g. the start of the measured
   interval); the mark is all zero until then. */
void sb_shared_mark(void);

/* out[...] = the mark. */
void sb_shared_marked(uint64_t *out);

/* Id (0..SB_SHARED_CODES-1) of error code `code` (at most
   SB_SHARED_CODE_LEN-1 bytes), registering it on first use; -1 when the
   table is full or the code is empty. Mutex; callers cache the id. */
int sb_shared_code_id(const char *code);

/* Name of code id `id`, or NULL. */
const char *sb_shared_code_name(int id);

/* Number of registered codes. */
int sb_shared_code_count(void);

#endif
