/*
 * Per-event-type statistics (docs/results.md, "Event types").
 *
 * A script names the kind of the current event with
 * sysbench.event_type("new_order"); bmk then keeps, per type, the events,
 * errors, rollbacks (event restarts after an ignorable error) and an HDR
 * latency histogram, per worker thread (single writer, no shared writes)
 * and merged when a report is made. Events of a script that never names a
 * type all belong to type 0, "event", and the reports look exactly like
 * sysbench's.
 *
 * Type ids are process-wide: the registry maps names to ids 1..
 * SB_EVTYPE_MAX-1 under a mutex; scripts cache the id per Lua state so the
 * per-event cost is one store.
 */
#ifndef SB_EVTYPE_H
#define SB_EVTYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sb_histogram.h"

#define SB_EVTYPE_MAX 64          /* including type 0 */
#define SB_EVTYPE_NAME_MAX 64     /* bytes, including the NUL */

/* One type's numbers in one worker (or a merged sum). Written only by the
   owning worker; readers use relaxed loads. `hist` is NULL until the first
   event of the type is recorded with histograms enabled. */
typedef struct {
  uint64_t events;
  uint64_t errors;       /* ignored errors during events of this type */
  uint64_t rollbacks;    /* restarts of events of this type */
  uint64_t late;         /* events over --latency-limit */
  uint64_t lat_sum_ns;
  sb_hdr_t *hist;
} sb_evtype_stat_t;

/*
 * Returns the id of type `name` (1..SB_EVTYPE_MAX-1), registering it on
 * first use; "event" and "" map to 0. Returns -1 when the name is longer
 * than SB_EVTYPE_NAME_MAX-1 bytes or the table is full (the caller reports
 * it). Thread-safe (mutex); call once per name and cache the id.
 */
int sb_evtype_register(const char *name);

/* Name of type `id` ("event" for 0, NULL when unknown). Thread-safe; the
   string lives until sb_evtype_reset. */
const char *sb_evtype_name(int id);

/* Number of registered types including type 0 (ids are 0..count-1).
   Thread-safe (relaxed load). */
unsigned sb_evtype_count(void);

/* True once a script registered a named type: workers then also keep a
   histogram for type 0 so untyped events get a row of their own. */
bool sb_evtype_used(void);

/* Forgets all types (tests; not thread-safe). */
void sb_evtype_reset(void);

/* Allocates a zeroed array of SB_EVTYPE_MAX stats for one worker; NULL on
   allocation failure. */
sb_evtype_stat_t *sb_evtype_stats_new(void);

/* Frees such an array and its histograms (NULL is fine). */
void sb_evtype_stats_free(sb_evtype_stat_t *s);

/*
 * Records one finished event of type `id` in the worker's array `s`:
 * latency `lat_ns` (ns), `errors` ignored errors and `late` (0/1) counted
 * with it. Single writer (the owning worker); allocates the type's
 * histogram on first use and returns -1 if that fails (the counts are
 * still kept).
 */
int sb_evtype_record(sb_evtype_stat_t *s, int id, uint64_t lat_ns,
                     uint64_t errors, int late);

/* Adds one rollback (event restart) to type `id`. Owner thread only. */
void sb_evtype_rollback(sb_evtype_stat_t *s, int id);

/*
 * dst[t] += src[t] for every registered type, histograms included (dst's
 * histograms are allocated as needed). `src` may be written concurrently
 * (relaxed loads). Returns 0, or -1 on allocation failure.
 */
int sb_evtype_add(sb_evtype_stat_t *dst, const sb_evtype_stat_t *src);

/* dst[t] -= src[t] (src an earlier snapshot of the same sums). */
void sb_evtype_sub(sb_evtype_stat_t *dst, const sb_evtype_stat_t *src);

/* Zeroes every count and histogram of the array (not concurrently with
   writers to it). */
void sb_evtype_zero(sb_evtype_stat_t *s);

#endif
