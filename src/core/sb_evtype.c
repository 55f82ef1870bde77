/* Per-event-type statistics; see sb_evtype.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ck_pr.h>

#include "core/sb_evtype.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static char names[SB_EVTYPE_MAX][SB_EVTYPE_NAME_MAX] = { "event" };
static unsigned ntypes = 1;
static int used;

int sb_evtype_register(const char *name)
{
  if (name == NULL || *name == '\0' || strcmp(name, "event") == 0)
    return 0;
  if (strlen(name) >= SB_EVTYPE_NAME_MAX)
    return -1;
  int id = -1;
  pthread_mutex_lock(&reg_lock);
  for (unsigned i = 1; i < ntypes; i++)
    if (strcmp(names[i], name) == 0)
      id = (int) i;
  if (id < 0 && ntypes < SB_EVTYPE_MAX)
  {
    strcpy(names[ntypes], name);
    id = (int) ntypes;
    /* The name is complete before readers can see the new count. */
    ck_pr_store_uint(&ntypes, ntypes + 1);
    ck_pr_store_int(&used, 1);
  }
  pthread_mutex_unlock(&reg_lock);
  return id;
}

const char *sb_evtype_name(int id)
{
  if (id < 0 || (unsigned) id >= ck_pr_load_uint(&ntypes))
    return NULL;
  return names[id];
}

unsigned sb_evtype_count(void)
{
  return ck_pr_load_uint(&ntypes);
}

bool sb_evtype_used(void)
{
  return ck_pr_load_int(&used) != 0;
}

void sb_evtype_reset(void)
{
  ntypes = 1;
  used = 0;
}

sb_evtype_stat_t *sb_evtype_stats_new(void)
{
  /* Cache-line aligned and sized: one worker's array shares no line with
     another's. */
  size_t size = (SB_EVTYPE_MAX * sizeof(sb_evtype_stat_t) + 63) / 64 * 64;
  sb_evtype_stat_t *s = aligned_alloc(64, size);
  if (s)
    memset(s, 0, size);
  return s;
}

void sb_evtype_stats_free(sb_evtype_stat_t *s)
{
  if (s == NULL)
    return;
  for (unsigned i = 0; i < SB_EVTYPE_MAX; i++)
    sb_hdr_free(s[i].hist);
  free(s);
}

int sb_evtype_record(sb_evtype_stat_t *s, int id, uint64_t lat_ns,
                     uint64_t errors, int late)
{
  if (id < 0 || id >= SB_EVTYPE_MAX)
    id = 0;
  sb_evtype_stat_t *t = &s[id];
  ck_pr_store_64(&t->events, t->events + 1);
  if (errors)
    ck_pr_store_64(&t->errors, t->errors + errors);
  if (late)
    ck_pr_store_64(&t->late, t->late + 1);
  ck_pr_store_64(&t->lat_sum_ns, t->lat_sum_ns + lat_ns);
  /* Type 0 needs its own histogram only when it shares the run with named
     types; otherwise the run's histogram is the same thing. */
  if (id == 0 && !sb_evtype_used())
    return 0;
  sb_hdr_t *h = __atomic_load_n(&t->hist, __ATOMIC_ACQUIRE);
  if (h == NULL)
  {
    h = sb_hdr_new();
    if (h == NULL)
      return -1;
    __atomic_store_n(&t->hist, h, __ATOMIC_RELEASE);
  }
  sb_hdr_record(h, lat_ns);
  return 0;
}

void sb_evtype_rollback(sb_evtype_stat_t *s, int id)
{
  if (id < 0 || id >= SB_EVTYPE_MAX)
    id = 0;
  ck_pr_store_64(&s[id].rollbacks, s[id].rollbacks + 1);
}

int sb_evtype_add(sb_evtype_stat_t *dst, const sb_evtype_stat_t *src)
{
  int rc = 0;
  unsigned n = sb_evtype_count();
  for (unsigned i = 0; i < n; i++)
  {
    const sb_evtype_stat_t *a = &src[i];
    sb_evtype_stat_t *d = &dst[i];
    d->events += ck_pr_load_64((uint64_t *) &a->events);
    d->errors += ck_pr_load_64((uint64_t *) &a->errors);
    d->rollbacks += ck_pr_load_64((uint64_t *) &a->rollbacks);
    d->late += ck_pr_load_64((uint64_t *) &a->late);
    d->lat_sum_ns += ck_pr_load_64((uint64_t *) &a->lat_sum_ns);
    const sb_hdr_t *h = __atomic_load_n(&a->hist, __ATOMIC_ACQUIRE);
    if (h == NULL)
      continue;
    if (d->hist == NULL && (d->hist = sb_hdr_new()) == NULL)
    {
      rc = -1;
      continue;
    }
    sb_hdr_add(d->hist, h);
  }
  return rc;
}

void sb_evtype_sub(sb_evtype_stat_t *dst, const sb_evtype_stat_t *src)
{
  unsigned n = sb_evtype_count();
  for (unsigned i = 0; i < n; i++)
  {
    dst[i].events -= src[i].events;
    dst[i].errors -= src[i].errors;
    dst[i].rollbacks -= src[i].rollbacks;
    dst[i].late -= src[i].late;
    dst[i].lat_sum_ns -= src[i].lat_sum_ns;
    if (dst[i].hist && src[i].hist)
      sb_hdr_sub(dst[i].hist, src[i].hist);
  }
}

void sb_evtype_zero(sb_evtype_stat_t *s)
{
  for (unsigned i = 0; i < SB_EVTYPE_MAX; i++)
  {
    s[i].events = s[i].errors = s[i].rollbacks = s[i].late = s[i].lat_sum_ns = 0;
    if (s[i].hist)
      sb_hdr_reset(s[i].hist);
  }
}
