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
#include <inttypes.h>
#include <stdarg.h>
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
static json_t *iv_row;        /* the last sampled interval's statements */

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

static double ms(uint64_t ns)
{
  return (double) ns / 1e6;
}

/* The interval's statements (`d`: pgb_stmt.ivd), one entry per command in
   the order of the document's "statements", each with its histogram. */
static json_t *interval_json(const pgb_stmt_sample_t *d)
{
  json_t *a = json_array();
  for (unsigned s = 0; a && s < pgb_cfg.nscripts; s++)
    for (unsigned i = 0; i < pgb_cfg.scripts[s].ncmds; i++)
    {
      unsigned k = pgb_cfg.scripts[s].first + i;
      const pgb_cmdstat_t *cs = &d->cs[k];
      const sb_hdr_t *h = d->h[k];
      double avg = cs->count > 0 ? cs->sum_ns / (double) cs->count / 1e6 : 0.0;
      json_t *o = json_pack("{s:i, s:i, s:I, s:I, s:I, s:{s:f, s:f, s:f, s:f, s:f}}",
                            "script_index", (int) s, "command", (int) i,
                            "count", (json_int_t) cs->count,
                            "failures", (json_int_t) cs->failures,
                            "retries", (json_int_t) cs->retries, "latency_ms", "avg", avg,
                            "p50", ms(sb_hdr_percentile(h, 50)),
                            "p95", ms(sb_hdr_percentile(h, 95)),
                            "p99", ms(sb_hdr_percentile(h, 99)), "max", ms(sb_hdr_max(h)));
      if (o == NULL)
        continue;
      /* the interval's histogram, so merged rows (bmk report --merge,
         bmk cluster run) get exact percentiles */
      char *enc = sb_hdr_encode_v2_base64(h);
      json_object_set_new(o, "hdr_v2_compressed_base64", enc ? json_string(enc) : json_null());
      free(enc);
      json_array_append_new(a, o);
    }
  return a;
}

/* Samples the interval that started `start_s` unless done: its figures
   (cur - prev) into ivd and iv_row, the window's so far (cur - base)
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
  json_decref(iv_row);
  iv_row = interval_json(&pgb_stmt.ivd);
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
   started `start_s` (taken over by the row), or NULL. */
static json_t *row_source(void *ctx, double start_s, double len_s)
{
  (void) ctx;
  (void) len_s;
  pthread_mutex_lock(&pgb_stmt.mtx);
  take_interval(start_s);
  json_t *r = NULL;
  if (pgb_stmt.iv_start == start_s)
  {
    r = iv_row;
    iv_row = NULL;
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

typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} buf_t;

static void add(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(buf_t *b, const char *fmt, ...)
{
  while (!b->oom)
  {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0)
      b->oom = true;
    else if (b->p && b->len + (size_t) n < b->cap)
    {
      b->len += (size_t) n;
      return;
    }
    else
    {
      size_t cap = b->cap * 2 + (size_t) n + 4096;
      char *q = realloc(b->p, cap);
      if (q == NULL)
        b->oom = true;
      else
      {
        b->p = q;
        b->cap = cap;
      }
    }
  }
}

/* "# HELP" / "# TYPE"; OpenMetrics names a counter family without
   _total. */
static void family(buf_t *b, bool om, const char *name, const char *type, const char *help)
{
  size_t n = strlen(name);
  int base = (int) n;
  if (om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
    base = (int) n - 6;
  add(b, "# HELP %.*s %s\n# TYPE %.*s %s\n", base, name, help, base, name, type);
}

/* The commands that get series: min(ncmds, SERIES_MAX). */
static unsigned nseries(void)
{
  return pgb_cfg.ncmds < SERIES_MAX ? pgb_cfg.ncmds : SERIES_MAX;
}

/* Labels of command k: script="S",command="I" (indexes as the report's
   and the document's). */
static void cmd_labels(char *dst, size_t cap, unsigned k)
{
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
    if (k >= pgb_cfg.scripts[s].first && k < pgb_cfg.scripts[s].first + pgb_cfg.scripts[s].ncmds)
    {
      snprintf(dst, cap, "script=\"%u\",command=\"%u\"", s, k - pgb_cfg.scripts[s].first);
      return;
    }
  snprintf(dst, cap, "script=\"?\",command=\"%u\"", k);
}

/* The info series: the script's name and the command's first line (cut
   to 120 bytes) as labels, value 1. */
static void info(buf_t *b, const char *l, unsigned k)
{
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
  {
    const pgb_script_t *sc = &pgb_cfg.scripts[s];
    if (k < sc->first || k >= sc->first + sc->ncmds)
      continue;
    char name[520] = "", text[260] = "", cut[121];
    snprintf(cut, sizeof(cut), "%s", sc->cmds[k - sc->first].first_line);
    sb_prom_escape(name, sizeof(name), sc->name);
    sb_prom_escape(text, sizeof(text), cut);
    add(b, "bmk_statement_command{%s,script=\"%u\",command=\"%u\",script_name=\"%s\","
        "text=\"%s\"} 1\n", l, s, k - sc->first, name, text);
  }
}

static char *page_source(const char *labels, bool om, size_t *len)
{
  buf_t b = { 0 };
  unsigned n = nseries();
  live_t *copy = calloc(n ? n : 1, sizeof(*copy));
  if (copy == NULL)
    return NULL;
  pthread_mutex_lock(&live_mtx);
  if (live)
    memcpy(copy, live, n * sizeof(*copy));
  pthread_mutex_unlock(&live_mtx);
  char cl[64];
  family(&b, om, "bmk_statement_command", "gauge",
         "1 per pgbench script command: its script's name and first line (labels script and "
         "command: the indexes of the Statements block)");
  for (unsigned k = 0; k < n; k++)
    info(&b, labels, k);
  family(&b, om, "bmk_statement_latency_seconds", "summary",
         "pgbench script commands' latencies over the measured time so far, seconds "
         "(quantiles of the HDR histogram; _count: the commands run)");
  for (unsigned k = 0; k < n; k++)
  {
    cmd_labels(cl, sizeof(cl), k);
    add(&b, "bmk_statement_latency_seconds{%s,%s,quantile=\"0.5\"} %.17g\n", labels, cl,
        copy[k].p50);
    add(&b, "bmk_statement_latency_seconds{%s,%s,quantile=\"0.95\"} %.17g\n", labels, cl,
        copy[k].p95);
    add(&b, "bmk_statement_latency_seconds{%s,%s,quantile=\"0.99\"} %.17g\n", labels, cl,
        copy[k].p99);
    add(&b, "bmk_statement_latency_seconds_sum{%s,%s} %.17g\n", labels, cl, copy[k].sum_s);
    add(&b, "bmk_statement_latency_seconds_count{%s,%s} %" PRId64 "\n", labels, cl,
        copy[k].count);
  }
  family(&b, om, "bmk_statement_failures_total", "counter",
         "pgbench script commands whose transaction failed there after its last try");
  for (unsigned k = 0; k < n; k++)
  {
    cmd_labels(cl, sizeof(cl), k);
    add(&b, "bmk_statement_failures_total{%s,%s} %" PRId64 "\n", labels, cl, copy[k].failures);
  }
  family(&b, om, "bmk_statement_retries_total", "counter",
         "pgbench script commands whose error had their transaction tried again");
  for (unsigned k = 0; k < n; k++)
  {
    cmd_labels(cl, sizeof(cl), k);
    add(&b, "bmk_statement_retries_total{%s,%s} %" PRId64 "\n", labels, cl, copy[k].retries);
  }
  free(copy);
  if (b.oom)
  {
    free(b.p);
    return NULL;
  }
  *len = b.len;
  return b.p;
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
  json_decref(iv_row);
  iv_row = NULL;
  pthread_mutex_unlock(&live_mtx);
}
