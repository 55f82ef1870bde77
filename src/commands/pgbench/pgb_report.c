/*
 * The pgbench persona's final report, line for line pgbench 15's (its
 * printResults): parameters, counts, latency, connection time and tps,
 * then per script when there are several and per statement with -r.
 * Latencies are kept in microseconds and printed in milliseconds.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands/pgbench/pgb_report.h"

void pgb_stats_add(pgb_stats_t *a, const pgb_stats_t *b)
{
  a->cnt += b->cnt;
  a->serialization_failures += b->serialization_failures;
  a->deadlock_failures += b->deadlock_failures;
  a->retries += b->retries;
  a->retried += b->retried;
  a->late += b->late;
  a->skipped += b->skipped;
  pgb_sstats_add(&a->lag, &b->lag);
  pgb_sstats_add(&a->latency, &b->latency);
}

void pgb_sstats_add(pgb_sstats_t *x, const pgb_sstats_t *y)
{
  if (y->count == 0)
    return;
  if (x->count == 0 || y->min < x->min)
    x->min = y->min;
  if (x->count == 0 || y->max > x->max)
    x->max = y->max;
  x->count += y->count;
  x->sum += y->sum;
  x->sum2 += y->sum2;
}

void pgb_sstats_add_value(pgb_sstats_t *x, double us)
{
  pgb_sstats_add(x, &(pgb_sstats_t){.count = 1, .min = us, .max = us, .sum = us, .sum2 = us * us});
}

/* 100 * part / whole with 3 decimals, "NaN" for 0 / 0 (pgbench prints
   its own snprintf's NaN then). Returns buf. */
static const char *percent(char *buf, size_t len, int64_t part, int64_t whole)
{
  if (whole == 0)
    snprintf(buf, len, "NaN");
  else
    snprintf(buf, len, "%.3f", 100.0 * (double) part / (double) whole);
  return buf;
}

/* "PREFIX average = X ms" and "PREFIX stddev = Y ms" (nothing without
   a transaction). */
static void simple_stats(const char *prefix, const pgb_sstats_t *ss)
{
  if (ss->count <= 0)
    return;
  double avg = ss->sum / (double) ss->count;
  double sd = sqrt(fmax(0.0, ss->sum2 / (double) ss->count - avg * avg));
  printf("%s average = %.3f ms\n", prefix, 0.001 * avg);
  printf("%s stddev = %.3f ms\n", prefix, 0.001 * sd);
}

/* -R with -L: the skipped transactions. */
static void skipped_line(const char *prefix, const pgb_stats_t *st, int64_t cnt)
{
  if (pgb_cfg.throttle_delay > 0 && pgb_cfg.latency_limit_us)
    printf("%snumber of transactions skipped: %" PRId64 " (%.3f%%)\n", prefix, st->skipped,
           100.0 * (double) st->skipped / (double) cnt);
}

static int64_t failures_of(const pgb_stats_t *s)
{
  return s->serialization_failures + s->deadlock_failures;
}

/* The per-statement lines of script `s` (-r), with the retries when
   transactions may be tried more than once. */
static void statement_lines(unsigned s, const pgb_cmdstat_t *cmds, bool in_script)
{
  const pgb_script_t *sc = &pgb_cfg.scripts[s];
  bool retries = pgb_cfg.max_tries != 1;
  printf("%sstatement latencies in milliseconds%s:\n", in_script ? " - " : "",
         retries ? ", failures and retries" : " and failures");
  for (unsigned i = 0; i < sc->ncmds; i++)
  {
    const pgb_cmdstat_t *c = &cmds[sc->first + i];
    double ms = c->count > 0 ? 0.001 * c->sum / (double) c->count : 0.0;
    if (retries)
      printf("   %11.3f  %10" PRId64 "  %10" PRId64 "  %s\n", ms, c->failures, c->retries,
             sc->cmds[i].first_line);
    else
      printf("   %11.3f  %10" PRId64 "  %s\n", ms, c->failures, sc->cmds[i].first_line);
  }
}

/* With --max-tries other than 1: the retried transactions and retries. */
static void retry_lines(const char *prefix, const pgb_stats_t *st, int64_t cnt)
{
  if (pgb_cfg.max_tries == 1)
    return;
  char pct[32];
  printf("%snumber of transactions retried: %" PRId64 " (%s%%)\n", prefix, st->retried,
         percent(pct, sizeof(pct), st->retried, cnt));
  printf("%stotal number of retries: %" PRId64 "\n", prefix, st->retries);
}

/* --failures-detailed: the failures by kind. */
static void detailed(const char *prefix, const pgb_stats_t *st, int64_t cnt)
{
  char p1[32], p2[32];
  printf("%snumber of serialization failures: %" PRId64 " (%s%%)\n", prefix,
         st->serialization_failures, percent(p1, sizeof(p1), st->serialization_failures, cnt));
  printf("%snumber of deadlock failures: %" PRId64 " (%s%%)\n", prefix,
         st->deadlock_failures, percent(p2, sizeof(p2), st->deadlock_failures, cnt));
}

/* The block of script `s` when several run. */
static void script_block(unsigned s, const pgb_stats_t *st, int64_t total_cnt, double duration)
{
  const pgb_script_t *sc = &pgb_cfg.scripts[s];
  int64_t failures = failures_of(st);
  int64_t cnt = st->cnt + st->skipped + failures;
  printf("SQL script %u: %s\n", s + 1, sc->desc);
  printf(" - weight: %d (targets %.1f%% of total)\n", sc->weight,
         100.0 * sc->weight / (double) pgb_cfg.total_weight);
  printf(" - %" PRId64 " transactions (%.1f%% of total, tps = %f)\n", cnt,
         100.0 * (double) cnt / (double) total_cnt, (double) st->cnt / duration);
  /* a script that ran no transaction has its failure and retry lines
     too, 0 of 0 being "NaN%" as in pgbench; not the skipped one */
  char pct[32];
  printf(" - number of failed transactions: %" PRId64 " (%s%%)\n", failures,
         percent(pct, sizeof(pct), failures, cnt));
  if (pgb_cfg.failures_detailed)
    detailed(" - ", st, cnt);
  retry_lines(" - ", st, cnt);
  if (cnt > 0)
    skipped_line(" - ", st, cnt);
  simple_stats(" - latency", &st->latency);
}

/* The run's parameters and transaction counts (the report's head). */
static void print_head(const pgb_stats_t *total)
{
  static const char *const modes[] = {"simple", "extended", "prepared"};
  printf("transaction type: %s\n",
         pgb_cfg.nscripts == 1 ? pgb_cfg.scripts[0].desc : "multiple scripts");
  printf("scaling factor: %d\n", pgb_cfg.scale);
  if (pgb_cfg.partition_method)
    printf("partition method: %s\npartitions: %d\n", pgb_cfg.partition_method,
           pgb_cfg.partitions);
  printf("query mode: %s\n", modes[pgb_cfg.querymode]);
  printf("number of clients: %d\n", pgb_cfg.nclients);
  printf("number of threads: %d\n", pgb_cfg.nthreads);
  if (pgb_cfg.max_tries)
    printf("maximum number of tries: %u\n", pgb_cfg.max_tries);
  if (pgb_cfg.duration <= 0)
  {
    printf("number of transactions per client: %d\n", pgb_cfg.nxacts);
    printf("number of transactions actually processed: %" PRId64 "/%d\n", total->cnt,
           pgb_cfg.nxacts * pgb_cfg.nclients);
  }
  else
  {
    printf("duration: %d s\n", pgb_cfg.duration);
    printf("number of transactions actually processed: %" PRId64 "\n", total->cnt);
  }
}

void pgb_print_report(int64_t total_us, int64_t conn_us)
{
  pgb_stats_t total;
  pgb_stats_t *scripts = calloc(pgb_cfg.nscripts, sizeof(*scripts));
  pgb_cmdstat_t *cmds = calloc(pgb_cfg.ncmds ? pgb_cfg.ncmds : 1, sizeof(*cmds));
  if (scripts == NULL || cmds == NULL)
  {
    free(scripts);
    free(cmds);
    pgb_error("out of memory");
    return;
  }
  pgb_sum_stats(&total, scripts, cmds);
  int64_t failures = failures_of(&total);
  int64_t total_cnt = total.cnt + total.skipped + failures;
  double duration = (double) total_us / 1e6;

  print_head(&total);
  char pct[32];
  printf("number of failed transactions: %" PRId64 " (%s%%)\n", failures,
         percent(pct, sizeof(pct), failures, total_cnt));
  if (pgb_cfg.failures_detailed)
    detailed("", &total, total_cnt);
  retry_lines("", &total, total_cnt);
  /* the rest would be meaningless without a transaction run to its end */
  if (total.cnt + total.skipped > 0)
  {
    skipped_line("", &total, total_cnt);
    if (pgb_cfg.latency_limit_us)
      printf("number of transactions above the %.1f ms latency limit: %" PRId64 "/%" PRId64
             " (%.3f%%)\n", (double) pgb_cfg.latency_limit_us / 1000.0, total.late, total.cnt,
             total.cnt > 0 ? 100.0 * (double) total.late / (double) total.cnt : 0.0);
    if (pgb_cfg.progress || pgb_cfg.latency_limit_us || pgb_cfg.throttle_delay > 0)
      simple_stats("latency", &total.latency);
    else
      printf("latency average = %.3f ms%s\n",
             0.001 * (double) total_us * pgb_cfg.nclients / (double) total_cnt,
             failures > 0 ? " (including failures)" : "");
    if (pgb_cfg.throttle_delay > 0)
      printf("rate limit schedule lag: avg %.3f (max %.3f) ms\n",
             0.001 * total.lag.sum / (double) total.cnt, 0.001 * total.lag.max);
    if (pgb_cfg.is_connect)
    {
      printf("average connection time = %.3f ms\n",
             0.001 * (double) conn_us / (double) (total.cnt + failures));
      printf("tps = %f (including reconnection times)\n", (double) total.cnt / duration);
    }
    else
    {
      printf("initial connection time = %.3f ms\n", 0.001 * (double) conn_us);
      printf("tps = %f (without initial connection time)\n", (double) total.cnt / duration);
    }
    for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
    {
      if (pgb_cfg.per_script_stats)
        script_block(s, &scripts[s], total_cnt, duration);
      if (pgb_cfg.print_per_command)
        statement_lines(s, cmds, pgb_cfg.per_script_stats);
    }
  }
  free(scripts);
  free(cmds);
}
