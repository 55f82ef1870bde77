/*
 * The pgbench scripts' per-statement figures while the run goes on (see
 * pgb_bmk_priv.h): at each interval of the engine, each command's count,
 * failures, retries and latency percentiles over that interval (the
 * "statements" member of --results' interval rows, docs/results.md), and
 * the cumulative figures over the measured window so far as
 * --metrics-listen series (docs/metrics.md "pgbench scripts"). The
 * interval's sample is taken once, by whichever asks first of the
 * output's interval function and --results' row (both on the reporter
 * thread), so the rows' counts and the window's differ only by what came
 * after the last interval (the document's after_last_interval).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands/pgbench/pgb_bmk_priv.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "metrics/sb_metrics.h"
#include "metrics/sb_prom.h"
#include "results/sb_hdrlog.h"
#include "results/sb_results_extra.h"

/* At most this many commands (in the scripts' order) get series: the
   page has 8 samples per command, so its size stays bounded whatever
   the scripts hold. */
#define SERIES_MAX 256

/* One command's cumulative figures for the page (seconds). */
typedef struct {
  int64_t count, failures, retries;
  double sum_s, p50, p95, p99;
} live_t;

static pthread_mutex_t live_mtx = PTHREAD_MUTEX_INITIALIZER;
static live_t *live;          /* ncmds entries */
static bool row_given;        /* the last sampled interval's row was made
                                 (under pgb_stmt.mtx) */

void pgb_stmt_live_set(const pgb_stmt_sample_t *w)
{
  pthread_mutex_lock(&live_mtx);
  for (unsigned k = 0; live && k < pgb_cfg.ncmds; k++)
  {
    live_t *l = &live[k];
    l->count = w->cs[k].count;
    l->failures = w->cs[k].failures;
    l->retries = w->cs[k].retries;
    l->sum_s = w->cs[k].sum_ns / 1e9;
    l->p50 = (double) sb_hdr_percentile(w->h[k], 50) / 1e9;
    l->p95 = (double) sb_hdr_percentile(w->h[k], 95) / 1e9;
    l->p99 = (double) sb_hdr_percentile(w->h[k], 99) / 1e9;
  }
  pthread_mutex_unlock(&live_mtx);
}

/* The interval's statements (`d`: pgb_stmt.ivd), one entry per command in
   the order of the document's "statements", each with its histogram;
   NULL when memory is short. */
static json_t *interval_json(const pgb_stmt_sample_t *d)
{
  json_t *a = json_array();
  for (unsigned s = 0; a && s < pgb_cfg.nscripts; s++)
    for (unsigned i = 0; a && i < pgb_cfg.scripts[s].ncmds; i++)
    {
      unsigned k = pgb_cfg.scripts[s].first + i;
      json_t *o = pgb_stmt_entry_json(s, i, &d->cs[k], d->h[k], false);
      if (o == NULL || json_array_append_new(a, o) != 0)
      {
        json_decref(a);
        a = NULL;
      }
    }
  return a;
}

/* Samples the interval that started `start_s` unless done: its figures
   (cur - prev) into ivd (its --results row is made from them when asked
   for), the window's so far (cur - base)
   into the live figures, cur becomes prev. After the end (the reporter
   delivering the last interval while or after the main thread took the
   end sample, the clients parked) the interval ends at the end sample,
   and --results' member is set again with the shorter tail. Caller
   holds pgb_stmt.mtx. */
static void take_interval(double start_s)
{
  if (!pgb_stmt.started || pgb_stmt.iv_start == start_s)
    return;
  if (pgb_stmt.ended)
    pgb_stmt_sample_copy(&pgb_stmt.cur, &pgb_stmt.end);
  else
  {
    pgb_stmt_sample_take(&pgb_stmt.cur);
    pgb_stmt_sample_diff(&pgb_stmt.diff, &pgb_stmt.cur, &pgb_stmt.base);
    pgb_stmt_live_set(&pgb_stmt.diff);
  }
  pgb_stmt_sample_diff(&pgb_stmt.ivd, &pgb_stmt.cur, &pgb_stmt.prev);
  row_given = false;
  pgb_stmt_sample_t t = pgb_stmt.prev;
  pgb_stmt.prev = pgb_stmt.cur;
  pgb_stmt.cur = t;
  pgb_stmt.iv_start = start_s;
  pgb_stmt.intervals++;
  if (pgb_stmt.ended)
    pgb_stmt_set_member();
}

int pgb_stmt_interval(void *ctx, const sb_out_interval_t *iv)
{
  (void) ctx;
  pthread_mutex_lock(&pgb_stmt.mtx);
  take_interval(iv->start_s);
  pthread_mutex_unlock(&pgb_stmt.mtx);
  return 0;
}

/* --results' interval row source: the statements of the interval that
   started `start_s` (once), or NULL. */
static json_t *row_source(void *ctx, double start_s, double len_s)
{
  (void) ctx;
  (void) len_s;
  pthread_mutex_lock(&pgb_stmt.mtx);
  take_interval(start_s);
  json_t *r = NULL;
  if (pgb_stmt.iv_start == start_s && !row_given)
  {
    r = interval_json(&pgb_stmt.ivd);
    row_given = true;
  }
  pthread_mutex_unlock(&pgb_stmt.mtx);
  return r;
}

/* Emits `d`'s non-empty histograms, tagged "stmt:S:C" (script index,
   command index). Caller holds pgb_stmt.mtx. */
static void emit_sample(const pgb_stmt_sample_t *d, sb_results_hdr_emit_t emit, void *ectx)
{
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
    for (unsigned i = 0; i < pgb_cfg.scripts[s].ncmds; i++)
    {
      const sb_hdr_t *h = d->h[pgb_cfg.scripts[s].first + i];
      char tag[48];
      snprintf(tag, sizeof(tag), "stmt:%u:%u", s, i);
      if (h && h->total > 0)
        emit(ectx, tag, h);
    }
}

/* --hdr-log's source (sb_results_extra_hdr_source): the interval that
   started `start_s` once its row was taken (ivd), or at the end the
   part after the last interval (end - prev). */
static void hdr_source(void *ctx, double start_s, bool final, sb_results_hdr_emit_t emit,
                       void *ectx)
{
  (void) ctx;
  pthread_mutex_lock(&pgb_stmt.mtx);
  if (final && pgb_stmt.ended && !pgb_stmt.hdr_tail_logged)
  {
    pgb_stmt_sample_diff(&pgb_stmt.diff, &pgb_stmt.end, &pgb_stmt.prev);
    emit_sample(&pgb_stmt.diff, emit, ectx);
    pgb_stmt.hdr_tail_logged = true;
  }
  else if (!final && pgb_stmt.iv_start == start_s && pgb_stmt.hdr_start != start_s)
  {
    emit_sample(&pgb_stmt.ivd, emit, ectx);
    pgb_stmt.hdr_start = start_s;
  }
  pthread_mutex_unlock(&pgb_stmt.mtx);
}

/* ---- the metrics page ------------------------------------------------------ */

/* The commands that get series: min(ncmds, SERIES_MAX). */
static unsigned nseries(void)
{
  return pgb_cfg.ncmds < SERIES_MAX ? pgb_cfg.ncmds : SERIES_MAX;
}

/* The page's source (sb_metrics_extra_source): the commands' cumulative
   figures (metrics/sb_prom.h renders them). The HTTP thread. */
static char *page_source(const char *labels, bool om, size_t *len)
{
  unsigned n = nseries();
  sb_prom_stmt_t *st = calloc(n ? n : 1, sizeof(*st));
  if (st == NULL)
    return NULL;
  pthread_mutex_lock(&live_mtx);
  for (unsigned k = 0; live && k < n; k++)
  {
    st[k].count = (uint64_t) live[k].count;
    st[k].failures = (uint64_t) live[k].failures;
    st[k].retries = (uint64_t) live[k].retries;
    st[k].sum_s = live[k].sum_s;
    st[k].p50_s = live[k].p50;
    st[k].p95_s = live[k].p95;
    st[k].p99_s = live[k].p99;
  }
  pthread_mutex_unlock(&live_mtx);
  /* the scripts' names and commands do not change during the run */
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
  {
    const pgb_script_t *sc = &pgb_cfg.scripts[s];
    for (unsigned i = 0; i < sc->ncmds && sc->first + i < n; i++)
    {
      sb_prom_stmt_t *e = &st[sc->first + i];
      e->script = s;
      e->command = i;
      e->script_name = sc->name;
      e->text = sc->cmds[i].first_line;
    }
  }
  char *page = sb_prom_render_statements(st, n, labels, om, false, len);
  free(st);
  return page;
}

int pgb_stmt_live_register(void)
{
  live = calloc(pgb_cfg.ncmds ? pgb_cfg.ncmds : 1, sizeof(*live));
  if (live == NULL)
  {
    log_text(LOG_FATAL, "out of memory");
    return 1;
  }
  if (pgb_cfg.ncmds > SERIES_MAX && sb_opt_given("metrics-listen"))
    log_text(LOG_NOTICE, "--metrics-listen: the scripts have %u commands; the first %u get "
             "per-statement series", pgb_cfg.ncmds, SERIES_MAX);
  sb_results_extra_interval_source("statements", row_source, NULL);
  sb_results_extra_hdr_source(hdr_source, NULL);
  sb_metrics_extra_source(page_source);
  return 0;
}

void pgb_stmt_live_free(void)
{
  sb_results_extra_interval_source(NULL, NULL, NULL);
  sb_results_extra_hdr_source(NULL, NULL);
  sb_metrics_extra_source(NULL);
  pthread_mutex_lock(&live_mtx);
  free(live);
  live = NULL;
  pthread_mutex_unlock(&live_mtx);
}
