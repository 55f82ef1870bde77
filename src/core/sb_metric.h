/*
 * Workload metrics: named counters a workload declares and adds to
 * (Lua: `local rows = sysbench.metric("rows")`, `rows:add(n)`).
 *
 * A metric is a sum (rows loaded, statements, microseconds spent in
 * COMMIT, ...). The engine samples every metric with the other counters:
 * per interval (result files, report hooks) and for the final report
 * (the "Workload metrics:" block, `summary.metrics` in --results), with
 * warmup excluded by the same baseline snapshot. Averages such as a
 * service time are one metric divided by another (time sum / count).
 *
 * Like src/core/sb_counter.c, every thread owns one cache-line-aligned
 * block of SB_METRIC_MAX slots and is its only writer; readers sum the
 * blocks with relaxed loads and keep their own snapshots. Names live in a
 * small process-wide registry (mutex, taken only when a Lua state declares
 * a name), so a name has the same id in every thread.
 */
#ifndef SB_METRIC_H
#define SB_METRIC_H

#include <stdint.h>

#define SB_METRIC_MAX 16         /* names per process */
#define SB_METRIC_NAME_MAX 64    /* bytes, including the NUL */

/* Allocates the slots of `nthreads` threads plus a spare one shared by
   the main thread and other non-worker threads (ids outside
   [0, nthreads)). Not thread-safe: call before any worker starts.
   Returns 0, or -1 on allocation failure. */
int sb_metrics_init(unsigned nthreads);

/* Frees the slots and forgets every name (tests). Not thread-safe. */
void sb_metrics_done(void);

/*
 * Returns the id (0..SB_METRIC_MAX-1) of metric `name`, registering it on
 * first use. Returns -1 when the name is empty, longer than
 * SB_METRIC_NAME_MAX-1 bytes, or SB_METRIC_MAX names exist already (the
 * caller reports it). Thread-safe (mutex); call once per name and keep
 * the id. Exported for LuaJIT FFI.
 */
int sb_metric_id(const char *name);

/* Name of metric `id`, or NULL when no such metric. Thread-safe; the
   string lives until sb_metrics_done. */
const char *sb_metric_name(int id);

/* Number of registered metrics (ids are 0..count-1). Thread-safe. */
unsigned sb_metric_count(void);

/*
 * Adds `value` to metric `id` for the calling thread (its worker slot, by
 * sb_tls_tid; other threads share the spare slot, which is updated with an
 * atomic add). An unknown id or a call before sb_metrics_init is ignored.
 * Thread-safe in that sense: each worker writes only its own slot.
 * Exported for LuaJIT FFI.
 */
void sb_metric_add(int id, uint64_t value);

/* Sums every thread's slots into out[0..SB_METRIC_MAX-1] (relaxed loads;
   any thread). Unregistered ids read 0. */
void sb_metrics_snapshot(uint64_t *out);

#endif
