/* Timer queue (binary min-heap); see sb_timerq.h. */
#include <stdlib.h>

#include "engine/sb_timerq.h"

static bool earlier(const sb_tq_ent_t *a, const sb_tq_ent_t *b)
{
  return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void place(sb_timerq_t *q, uint32_t i, sb_tq_ent_t *e)
{
  q->heap[i] = e;
  e->pos = i;
}

static void sift_up(sb_timerq_t *q, uint32_t i)
{
  sb_tq_ent_t *e = q->heap[i];
  while (i > 0)
  {
    uint32_t parent = (i - 1) / 2;
    if (!earlier(e, q->heap[parent]))
      break;
    place(q, i, q->heap[parent]);
    i = parent;
  }
  place(q, i, e);
}

static void sift_down(sb_timerq_t *q, uint32_t i)
{
  sb_tq_ent_t *e = q->heap[i];
  for (;;)
  {
    uint32_t c = 2 * i + 1;
    if (c >= q->n)
      break;
    if (c + 1 < q->n && earlier(q->heap[c + 1], q->heap[c]))
      c++;
    if (!earlier(q->heap[c], e))
      break;
    place(q, i, q->heap[c]);
    i = c;
  }
  place(q, i, e);
}

int sb_tq_init(sb_timerq_t *q, uint32_t cap)
{
  q->n = 0;
  q->next_seq = 0;
  q->cap = cap ? cap : 16;
  q->heap = malloc(sizeof(*q->heap) * q->cap);
  return q->heap ? 0 : -1;
}

void sb_tq_free(sb_timerq_t *q)
{
  free(q->heap);
  q->heap = NULL;
  q->n = q->cap = 0;
}

void sb_tq_ent_init(sb_tq_ent_t *e)
{
  e->pos = SB_TQ_NONE;
  e->due_ns = 0;
  e->seq = 0;
}

/* Takes entry i out of the heap, filling the hole with the last entry. */
static void remove_at(sb_timerq_t *q, uint32_t i)
{
  sb_tq_ent_t *gone = q->heap[i];
  gone->pos = SB_TQ_NONE;
  q->n--;
  if (i == q->n)
    return;
  place(q, i, q->heap[q->n]);
  /* the moved entry may belong above or below its new place */
  if (i > 0 && earlier(q->heap[i], q->heap[(i - 1) / 2]))
    sift_up(q, i);
  else
    sift_down(q, i);
}

int sb_tq_arm(sb_timerq_t *q, sb_tq_ent_t *e, uint64_t due_ns)
{
  if (e->pos != SB_TQ_NONE)
    remove_at(q, e->pos);
  if (q->n == q->cap)
  {
    uint32_t cap = q->cap * 2;
    sb_tq_ent_t **h = realloc(q->heap, sizeof(*h) * cap);
    if (h == NULL)
      return -1;
    q->heap = h;
    q->cap = cap;
  }
  e->due_ns = due_ns;
  e->seq = q->next_seq++;
  place(q, q->n++, e);
  sift_up(q, e->pos);
  return 0;
}

void sb_tq_cancel(sb_timerq_t *q, sb_tq_ent_t *e)
{
  if (e->pos != SB_TQ_NONE && e->pos < q->n && q->heap[e->pos] == e)
    remove_at(q, e->pos);
}

sb_tq_ent_t *sb_tq_pop_due(sb_timerq_t *q, uint64_t now_ns)
{
  if (q->n == 0 || q->heap[0]->due_ns > now_ns)
    return NULL;
  sb_tq_ent_t *e = q->heap[0];
  remove_at(q, 0);
  return e;
}
