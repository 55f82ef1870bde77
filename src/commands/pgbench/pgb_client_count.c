/* What a pgbench client counts: its commands (-r, bmk's per-statement
   histograms), its transactions (pgbench's report, -P, -l) and bmk's
   retry counts (core/sb_retry.h); see pgb_client.h. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "commands/pgbench/pgb_client.h"
#include "commands/pgbench/pgb_report.h"
#include "core/sb_retry.h"

int64_t pgb_cmd_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void pgb_count_cmd(pgb_client_t *c, unsigned gi, int64_t t0)
{
  if (!pgb_cfg.report_per_command)
    return;
  int64_t now = pgb_cmd_clock();
  pthread_mutex_lock(&c->lock);
  c->cmd_stats[gi].count++;
  c->cmd_stats[gi].sum += (double) (now / 1000 - t0 / 1000);
  c->cmd_stats[gi].sum_ns += (double) (now - t0);
  /* with the count: a sample (pgb_sum_cmd_hist) sees both or neither */
  if (c->cmd_hist && c->cmd_hist[gi])
    sb_hdr_record(c->cmd_hist[gi], (uint64_t) (now - t0));
  pthread_mutex_unlock(&c->lock);
}

void pgb_count_cmd_error(pgb_client_t *c, unsigned gi, bool retried)
{
  pthread_mutex_lock(&c->lock);
  if (retried)
    c->cmd_stats[gi].retries++;
  else
    c->cmd_stats[gi].failures++;
  pthread_mutex_unlock(&c->lock);
}

void pgb_count_tx(pgb_client_t *c, unsigned s, int64_t start_us, int kind, unsigned tries)
{
  /* its end, which pgb_run.c takes as the client's last (one clock read) */
  c->last_end_us = pgb_now_us();
  double lat = (double) (c->last_end_us - start_us);
  c->last_latency_us = lat;
  c->last_kind = kind;
  c->last_tries = tries;
  pthread_mutex_lock(&c->lock);
  pgb_stats_t *both[2] = {&c->stats, &c->script_stats[s]};
  for (int k = 0; k < 2; k++)
  {
    both[k]->retries += tries - 1;
    both[k]->retried += tries > 1;
    if (kind == 0)
    {
      both[k]->cnt++;
      pgb_sstats_add_value(&both[k]->latency, lat);
      if (pgb_cfg.throttle_delay > 0)
        pgb_sstats_add_value(&both[k]->lag, c->lag_us);
      both[k]->late += pgb_cfg.latency_limit_us > 0 && lat > (double) pgb_cfg.latency_limit_us;
    }
    else if (kind == 1)
      both[k]->serialization_failures++;
    else
      both[k]->deadlock_failures++;
  }
  pthread_mutex_unlock(&c->lock);
}

/* (MySQL's error number, else the SQLSTATE of the kind) */
void pgb_count_retry(const pgb_client_t *c, int kind, int sql_errno, unsigned tries, bool retry)
{
  char code[16];
  if (sql_errno != 0)
    snprintf(code, sizeof(code), "%d", sql_errno);
  else
    snprintf(code, sizeof(code), "%s", kind == 1 ? "40001" : "40P01");
  if (!retry)
  {
    sb_retry_count(c->tid, code, SB_RETRY_FAILURES);
    return;
  }
  if (tries == 1)
    sb_retry_count(c->tid, code, SB_RETRY_RETRIED);
  sb_retry_count(c->tid, code, SB_RETRY_RETRIES);
}

void pgb_client_skip(pgb_client_t *c, unsigned s)
{
  pthread_mutex_lock(&c->lock);
  c->stats.skipped++;
  c->script_stats[s].skipped++;
  pthread_mutex_unlock(&c->lock);
}
