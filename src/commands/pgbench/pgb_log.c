/* The pgbench persona's transaction logs; see pgb_log.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands/pgbench/pgb.h"
#include "commands/pgbench/pgb_log.h"
#include "commands/pgbench/pgb_report.h"

typedef struct {
  pthread_mutex_t lock;
  FILE *f;
  pgs_prng_t sample_rs;
  /* the current aggregate interval */
  int64_t start_us;            /* epoch microseconds, a whole second */
  int64_t ser, dead, retried, retries, skipped;
  pgb_sstats_t lag, latency;   /* successful transactions' */
  int64_t last_us;             /* the last transaction logged, epoch us */
} logfile_t;

static logfile_t *logs;
static int nlogs;

static int64_t epoch_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int pgb_log_open(const pgs_prng_t *sample_rs)
{
  if (!pgb_cfg.use_log)
    return 0;
  const char *prefix = pgb_cfg.log_prefix ? pgb_cfg.log_prefix : "pgbench_log";
  int pid = (int) getpid();
  logs = calloc((size_t) pgb_cfg.nthreads, sizeof(*logs));
  if (logs == NULL)
    return 1;
  nlogs = pgb_cfg.nthreads;
  int64_t now = epoch_us();
  for (int t = 0; t < nlogs; t++)
  {
    char path[4096];
    if (t == 0)
      snprintf(path, sizeof(path), "%s.%d", prefix, pid);
    else
      snprintf(path, sizeof(path), "%s.%d.%d", prefix, pid, t);
    logs[t].f = fopen(path, "w");
    if (logs[t].f == NULL)
    {
      pgb_error("could not open logfile \"%s\": %s", path, strerror(errno));
      return 1;
    }
    pthread_mutex_init(&logs[t].lock, NULL);
    logs[t].sample_rs = sample_rs[t];
    logs[t].start_us = now / 1000000 * 1000000;
  }
  return 0;
}

/* Writes every interval of `l` that ended before `now` (empty ones too,
   as pgbench does) and starts the one `now` is in. Caller holds l->lock. */
static void flush_intervals(logfile_t *l, int64_t now)
{
  int64_t step = (int64_t) pgb_cfg.agg_interval * 1000000;
  while (l->start_us + step <= now)
  {
    bool detailed = pgb_cfg.failures_detailed;
    fprintf(l->f, "%" PRId64 " %" PRId64 " %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %" PRId64
            " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
            l->start_us / 1000000, l->latency.count, l->latency.sum, l->latency.sum2,
            l->latency.min, l->latency.max, l->lag.sum, l->lag.sum2, l->lag.min, l->lag.max,
            pgb_cfg.latency_limit_us ? l->skipped : 0, pgb_cfg.max_tries != 1 ? l->retried : 0,
            pgb_cfg.max_tries != 1 ? l->retries : 0, detailed ? l->ser : 0, detailed ? l->dead : 0);
    l->start_us += step;
    l->ser = l->dead = l->retried = l->retries = l->skipped = 0;
    l->lag = l->latency = (pgb_sstats_t){0};
  }
}

void pgb_log_tx(int thread, int client, int64_t tx_no, unsigned script, double latency_us,
                int kind, unsigned tries, double lag_us)
{
  if (logs == NULL)
    return;
  logfile_t *l = &logs[thread];
  pthread_mutex_lock(&l->lock);
  if (pgb_cfg.sample_rate != 0.0 && pgs_prng_double(&l->sample_rs) > pgb_cfg.sample_rate)
  {
    pthread_mutex_unlock(&l->lock);
    return;
  }
  int64_t now = epoch_us();
  l->last_us = now;
  if (pgb_cfg.agg_interval > 0)
  {
    flush_intervals(l, now);
    l->retried += tries > 1;
    l->retries += tries - 1;
    if (kind == 0 && pgb_cfg.throttle_delay > 0)
      pgb_sstats_add_value(&l->lag, lag_us);
    if (kind == 3)
      l->skipped++;
    else if (kind == 0)
      pgb_sstats_add_value(&l->latency, latency_us);
    else if (kind == 1)
      l->ser++;
    else
      l->dead++;
  }
  else
  {
    if (kind == 0)
      fprintf(l->f, "%d %" PRId64 " %.0f %u %" PRId64 " %" PRId64, client, tx_no,
              latency_us, script, now / 1000000, now % 1000000);
    else
      fprintf(l->f, "%d %" PRId64 " %s %u %" PRId64 " %" PRId64, client, tx_no,
              kind == 3 ? "skipped" : !pgb_cfg.failures_detailed ? "failed"
              : kind == 1 ? "serialization" : "deadlock",
              script, now / 1000000, now % 1000000);
    if (pgb_cfg.throttle_delay > 0)
      fprintf(l->f, " %.0f", lag_us);
    if (pgb_cfg.max_tries != 1)
      fprintf(l->f, " %u", tries - 1);
    fputc('\n', l->f);
  }
  pthread_mutex_unlock(&l->lock);
}

void pgb_log_close(void)
{
  for (int t = 0; logs && t < nlogs; t++)
  {
    if (logs[t].f == NULL)
      continue;
    /* as a pgbench thread does when its clients are done: the intervals
       that ended by its last transaction (the current one is left out) */
    if (pgb_cfg.agg_interval > 0 && logs[t].last_us > 0)
      flush_intervals(&logs[t], logs[t].last_us);
    fclose(logs[t].f);
    pthread_mutex_destroy(&logs[t].lock);
  }
  free(logs);
  logs = NULL;
}
