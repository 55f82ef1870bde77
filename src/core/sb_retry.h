/*
 * Transaction retries (--max-tries) of the Lua workloads: the setting and
 * the counts per error code.
 *
 * A transaction (an event, or a sysbench.transaction() call inside one)
 * that fails with a serialization failure or a deadlock is rolled back
 * and run again with the random numbers of its first try, up to
 * --max-tries tries (docs/usage.md "Retries"). The Lua event loop counts
 * here what happened, per error code: PostgreSQL's SQLSTATE ("40001") or
 * MySQL's error number ("1213"), each of one kind (serialization,
 * deadlock, other). The engine's counters (SB_CNT_RETRY, SB_CNT_FAILED)
 * carry the same totals per interval.
 *
 * Counts are process-wide atomics, touched only when a transaction
 * fails, never on the common path. A baseline (sb_retry_rebase, taken
 * with the engine's at the end of the warmup) lets the report count the
 * measured window only.
 */
#ifndef SB_RETRY_H
#define SB_RETRY_H

#include <stdbool.h>
#include <stdint.h>

#define SB_RETRY_CODES 32        /* distinct error codes per process */
#define SB_RETRY_CODE_MAX 8      /* bytes of a code, with the NUL */

typedef enum {
  SB_RETRY_SERIALIZATION = 0,    /* SQLSTATE 40001 */
  SB_RETRY_DEADLOCK,             /* 40P01; MySQL 1213, 1205 (lock wait timeout) */
  SB_RETRY_OTHER,                /* anything else the event was restarted on */
  SB_RETRY_KINDS
} sb_retry_kind_t;

/* What is counted: a transaction retried at least once (counted at its
   first retry, under the code of its first error), one retry (under the
   code that caused it), a transaction that failed after its last try
   (under the code of its last error). */
typedef enum {
  SB_RETRY_RETRIED = 0,
  SB_RETRY_RETRIES,
  SB_RETRY_FAILURES,
  SB_RETRY_WHAT
} sb_retry_what_t;

/* Counts of one code, one kind or the whole run. */
typedef struct {
  uint64_t n[SB_RETRY_WHAT];
} sb_retry_counts_t;

/* A copy of every count. */
typedef struct sb_retry_snap {
  unsigned ncodes;
  char code[SB_RETRY_CODES][SB_RETRY_CODE_MAX];
  sb_retry_kind_t kind[SB_RETRY_CODES];
  sb_retry_counts_t by_code[SB_RETRY_CODES];
  sb_retry_counts_t by_kind[SB_RETRY_KINDS];
  sb_retry_counts_t total;
} sb_retry_snap_t;

/* Sets --max-tries: `given` false = not given (the event restarts on its
   ignorable errors as sysbench's does, nothing is counted here); tries
   0 = unlimited. Not thread-safe: call before the workers start. */
void sb_retry_configure(bool given, unsigned tries);

/* --max-tries for the Lua event loop: -1 when not given, 0 = unlimited,
   else the tries. Thread-safe (read-only after configure). Exported for
   LuaJIT FFI. */
int sb_retry_max_tries(void);

/* The kind of error code `code` (a SQLSTATE or a MySQL error number as
   text). Pure. */
sb_retry_kind_t sb_retry_kind_of(const char *code);

/* "serialization", "deadlock", "other". */
const char *sb_retry_kind_name(sb_retry_kind_t kind);

/* Adds one to count `what` of error code `code` (NULL or "" counts as
   "none"; a code longer than 7 bytes is cut; past SB_RETRY_CODES codes
   the last slot is shared by the rest under "more") and to the counter of
   thread `thread_id` (SB_CNT_RETRY for retries, SB_CNT_FAILED for
   failures). Thread-safe (a mutex for a new code, atomics otherwise).
   Exported for LuaJIT FFI. */
void sb_retry_count(int thread_id, const char *code, int what);

/* Takes the current counts as the baseline of sb_retry_snapshot(.., true).
   Thread-safe. */
void sb_retry_rebase(void);

/* Copies the counts into `out`: since the baseline when `since_base`,
   else since the process started (monotonic, for --metrics-listen).
   Thread-safe (relaxed loads). */
void sb_retry_snapshot(sb_retry_snap_t *out, bool since_base);

/* Forgets every code and count (tests). Not thread-safe. */
void sb_retry_reset(void);

#endif
