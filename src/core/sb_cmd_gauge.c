/* A command's live numbers; see core/sb_cmd_gauge.h. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_cmd_gauge.h"

const double sb_cmd_bucket_le[SB_CMD_BUCKETS] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                  2.5, 5, 10, 30, 60, 300 };

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static sb_cmd_gauges_t g;
static char prefix[32];
static bool published;

void sb_cmd_query_start(void)
{
  pthread_mutex_lock(&mtx);
  g.in_flight++;
  pthread_mutex_unlock(&mtx);
}

void sb_cmd_query_done(double seconds, bool ok)
{
  if (!(seconds >= 0))
    seconds = 0;
  pthread_mutex_lock(&mtx);
  g.in_flight--;
  g.done++;
  if (!ok)
    g.failed++;
  g.sum_s += seconds;
  for (int i = 0; i < SB_CMD_BUCKETS; i++)
    if (seconds <= sb_cmd_bucket_le[i])
      g.le[i]++;
  pthread_mutex_unlock(&mtx);
}

void sb_cmd_gauges(sb_cmd_gauges_t *out)
{
  pthread_mutex_lock(&mtx);
  memcpy(out, &g, sizeof(g));
  pthread_mutex_unlock(&mtx);
}

void sb_cmd_gauge_publish(const char *name)
{
  pthread_mutex_lock(&mtx);
  if (!published)
    snprintf(prefix, sizeof(prefix), "%s", name ? name : "");
  published = true;
  pthread_mutex_unlock(&mtx);
}

const char *sb_cmd_gauge_prefix(void)
{
  pthread_mutex_lock(&mtx);
  const char *p = published ? prefix : NULL;
  pthread_mutex_unlock(&mtx);
  return p;
}
