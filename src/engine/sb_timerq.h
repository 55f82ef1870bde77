/*
 * Timer queue of the event loop: a binary min-heap of entries ordered by
 * due time (ns, CLOCK_MONOTONIC), ties broken by insertion order so that
 * timers due at the same instant fire first-in first-out. Entries are
 * embedded in their owner (a virtual user) and know their heap position,
 * so removing or re-arming one is O(log n) without a search.
 *
 * Single-threaded: each worker owns its queue; no locking.
 */
#ifndef SB_TIMERQ_H
#define SB_TIMERQ_H

#include <stdbool.h>
#include <stdint.h>

#define SB_TQ_NONE UINT32_MAX

typedef struct {
  uint64_t due_ns;       /* when the timer fires (ns) */
  uint64_t seq;          /* insertion order, for FIFO among equal times */
  uint32_t pos;          /* index in the heap, SB_TQ_NONE when not queued */
} sb_tq_ent_t;

typedef struct {
  sb_tq_ent_t **heap;
  uint32_t n, cap;
  uint64_t next_seq;
} sb_timerq_t;

/* Initialises an empty queue with room for `cap` entries (it grows as
   needed). Returns 0, or -1 when out of memory. */
int sb_tq_init(sb_timerq_t *q, uint32_t cap);

/* Frees the queue's array (the entries belong to their owners). */
void sb_tq_free(sb_timerq_t *q);

/* Marks an entry as not queued; call once before its first use. */
void sb_tq_ent_init(sb_tq_ent_t *e);

/* Arms `e` to fire at `due_ns`, re-arming it if already queued (it then
   counts as inserted now). Returns 0, or -1 when the heap cannot grow. */
int sb_tq_arm(sb_timerq_t *q, sb_tq_ent_t *e, uint64_t due_ns);

/* Removes `e` if queued; no-op otherwise. */
void sb_tq_cancel(sb_timerq_t *q, sb_tq_ent_t *e);

/* True while `e` is queued. */
static inline bool sb_tq_armed(const sb_tq_ent_t *e)
{
  return e->pos != SB_TQ_NONE;
}

/* The earliest entry, or NULL when the queue is empty. */
static inline sb_tq_ent_t *sb_tq_first(const sb_timerq_t *q)
{
  return q->n ? q->heap[0] : NULL;
}

/* Removes and returns the earliest entry if it is due at `now_ns`
   (due_ns <= now_ns), else NULL. */
sb_tq_ent_t *sb_tq_pop_due(sb_timerq_t *q, uint64_t now_ns);

/* Number of queued entries. */
static inline uint32_t sb_tq_size(const sb_timerq_t *q)
{
  return q->n;
}

#endif
