/*
 * Per-statement latencies of pgbench scripts under bmk's command line
 * (pgbench's -r as HDR percentiles): every command of every script, its
 * count, failures and retries (pgbench's -r columns) and its latency
 * percentiles over the measured window. The clients' counters are
 * cumulative; the window is the difference of two samples: one when the
 * measured time starts (an output's start: before the workers are
 * released, or at the end of --warmup-time), one while the workers wait
 * at the end line (a probe's end), so a command counted here ran inside
 * the window the server statistics sample. Between them, a sample at
 * each interval of the engine (an output's interval) gives the
 * interval's figures (pgb_bmk_stmt_live.c: --results' interval rows and
 * the --metrics-listen series). See pgb_bmk_priv.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands/pgbench/pgb_bmk_priv.h"
#include "commands/pgbench/pgb_report.h"
#include "core/sb_logger.h"
#include "core/sb_output.h"
#include "core/sb_probe.h"
#include "results/sb_hdrlog.h"
#include "results/sb_report_file.h"
#include "results/sb_results_extra.h"

pgb_stmt_state_t pgb_stmt = { .mtx = PTHREAD_MUTEX_INITIALIZER, .iv_start = -1.0,
                               .hdr_start = -1.0 };

static void sample_free(pgb_stmt_sample_t *s)
{
  for (unsigned k = 0; s->h && k < pgb_cfg.ncmds; k++)
    sb_hdr_free(s->h[k]);
  free(s->h);
  free(s->cs);
  memset(s, 0, sizeof(*s));
}

static int sample_alloc(pgb_stmt_sample_t *s)
{
  s->cs = calloc(pgb_cfg.ncmds ? pgb_cfg.ncmds : 1, sizeof(*s->cs));
  s->h = calloc(pgb_cfg.ncmds ? pgb_cfg.ncmds : 1, sizeof(*s->h));
  if (s->cs == NULL || s->h == NULL)
    return -1;
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
    if ((s->h[k] = sb_hdr_new()) == NULL)
      return -1;
  return 0;
}

void pgb_stmt_sample_take(pgb_stmt_sample_t *s)
{
  memset(s->cs, 0, pgb_cfg.ncmds * sizeof(*s->cs));
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
    sb_hdr_reset(s->h[k]);
  pgb_sum_cmd_hist(s->h, s->cs);
}

void pgb_stmt_sample_diff(pgb_stmt_sample_t *d, const pgb_stmt_sample_t *a,
                          const pgb_stmt_sample_t *b)
{
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
  {
    d->cs[k].count = a->cs[k].count - b->cs[k].count;
    d->cs[k].sum = a->cs[k].sum - b->cs[k].sum;
    d->cs[k].sum_ns = a->cs[k].sum_ns - b->cs[k].sum_ns;
    d->cs[k].failures = a->cs[k].failures - b->cs[k].failures;
    d->cs[k].retries = a->cs[k].retries - b->cs[k].retries;
    sb_hdr_copy(d->h[k], a->h[k]);
    sb_hdr_sub(d->h[k], b->h[k]);
  }
}

void pgb_stmt_sample_copy(pgb_stmt_sample_t *d, const pgb_stmt_sample_t *a)
{
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
  {
    d->cs[k] = a->cs[k];
    sb_hdr_copy(d->h[k], a->h[k]);
  }
}

static int o_start(void *ctx, const sb_out_start_t *st)
{
  (void) ctx;
  (void) st;
  pthread_mutex_lock(&pgb_stmt.mtx);
  pgb_stmt_sample_take(&pgb_stmt.base);
  pgb_stmt_sample_copy(&pgb_stmt.prev, &pgb_stmt.base);
  pgb_stmt.started = true;
  pthread_mutex_unlock(&pgb_stmt.mtx);
  return 0;
}

static bool p_begin(void *ctx)
{
  (void) ctx;
  return true;                  /* the end sample needs the end line */
}

static double ms(uint64_t ns)
{
  return (double) ns / 1e6;
}

json_t *pgb_stmt_entry_json(unsigned s, unsigned i, const pgb_cmdstat_t *cs,
                            const sb_hdr_t *h, bool named)
{
  const pgb_script_t *sc = &pgb_cfg.scripts[s];
  json_t *o = named
    ? json_pack("{s:s, s:i, s:i, s:i, s:s}", "script", sc->name, "script_index", (int) s,
                "weight", sc->weight, "command", (int) i, "text", sc->cmds[i].first_line)
    : json_pack("{s:i, s:i}", "script_index", (int) s, "command", (int) i);
  double avg = cs->count > 0 ? cs->sum_ns / (double) cs->count / 1e6 : 0.0;
  json_t *fig = json_pack("{s:I, s:I, s:I, s:{s:f, s:f, s:f, s:f, s:f}}",
                          "count", (json_int_t) cs->count, "failures", (json_int_t) cs->failures,
                          "retries", (json_int_t) cs->retries, "latency_ms", "avg", avg,
                          "p50", ms(sb_hdr_percentile(h, 50)), "p95", ms(sb_hdr_percentile(h, 95)),
                          "p99", ms(sb_hdr_percentile(h, 99)), "max", ms(sb_hdr_max(h)));
  /* the histogram, so merged runs and rows (bmk report --merge, bmk
     cluster run) get exact percentiles */
  char *enc = sb_hdr_encode_v2_base64(h);
  bool ok = o && fig && json_object_update(o, fig) == 0 &&
            json_object_set_new(o, "hdr_v2_compressed_base64",
                                enc ? json_string(enc) : json_null()) == 0;
  free(enc);
  json_decref(fig);
  if (!ok)
  {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* One command's figures in the document: `cs`, `h` over the window,
   `tail` (or NULL) the part of it after the last interval sample. */
static json_t *command_json(unsigned s, unsigned i, const pgb_cmdstat_t *cs, const sb_hdr_t *h,
                            const pgb_cmdstat_t *tail)
{
  json_t *o = pgb_stmt_entry_json(s, i, cs, h, true);
  if (o && tail &&
      json_object_set_new(o, "after_last_interval",
                          json_pack("{s:I, s:I, s:I}", "count", (json_int_t) tail->count,
                                    "failures", (json_int_t) tail->failures,
                                    "retries", (json_int_t) tail->retries)) != 0)
  {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* The window's statements as the document has them (command_json), with
   each command's after_last_interval (end - prev) when `tails`; NULL
   when memory is short. Caller holds pgb_stmt.mtx; the end was sampled. */
static json_t *window_statements(bool tails)
{
  pgb_cmdstat_t *tail = NULL;
  /* what came after the last interval sample (the engine drops a
     partial last interval): end - prev */
  if (tails && (tail = calloc(pgb_cfg.ncmds + 1, sizeof(*tail))) == NULL)
    return NULL;
  for (unsigned k = 0; tail && k < pgb_cfg.ncmds; k++)
  {
    tail[k].count = pgb_stmt.end.cs[k].count - pgb_stmt.prev.cs[k].count;
    tail[k].failures = pgb_stmt.end.cs[k].failures - pgb_stmt.prev.cs[k].failures;
    tail[k].retries = pgb_stmt.end.cs[k].retries - pgb_stmt.prev.cs[k].retries;
  }
  json_t *arr = json_array();
  for (unsigned s = 0; arr && s < pgb_cfg.nscripts; s++)
    for (unsigned i = 0; arr && i < pgb_cfg.scripts[s].ncmds; i++)
    {
      unsigned k = pgb_cfg.scripts[s].first + i;
      json_t *one = command_json(s, i, &pgb_stmt.last.cs[k], pgb_stmt.last.h[k],
                                 tail ? &tail[k] : NULL);
      if (one == NULL || json_array_append_new(arr, one) != 0)
      {
        json_decref(arr);
        arr = NULL;
      }
    }
  free(tail);
  return arr;
}

void pgb_stmt_set_member(void)
{
  json_t *arr = window_statements(pgb_stmt.intervals > 0);
  if (arr)
    sb_results_extra_set("statements", arr);
  else
    log_text(LOG_ALERT, "out of memory: --results has no \"statements\"");
}

/* The end sample, the window (end - base) and the document's member. */
static void p_end(void *ctx)
{
  (void) ctx;
  pthread_mutex_lock(&pgb_stmt.mtx);
  pgb_stmt_sample_take(&pgb_stmt.end);
  pgb_stmt_sample_diff(&pgb_stmt.last, &pgb_stmt.end, &pgb_stmt.base);
  pgb_stmt_live_set(&pgb_stmt.last);
  pgb_stmt.ended = true;
  pgb_stmt.have_window = true;
  pgb_stmt_set_member();
  pthread_mutex_unlock(&pgb_stmt.mtx);
}

/* The block after the report: per script, a line per command. */
static void p_print(void *ctx)
{
  (void) ctx;
  if (!pgb_stmt.have_window)
    return;
  pthread_mutex_lock(&pgb_stmt.mtx);
  json_t *doc = json_pack("{s:o*}", "statements", window_statements(false));
  pthread_mutex_unlock(&pgb_stmt.mtx);
  if (doc == NULL || json_object_get(doc, "statements") == NULL)
    log_text(LOG_ALERT, "out of memory: no Statements block");
  else
  {
    log_lock();
    sb_report_file_statements(stdout, doc);
    fflush(stdout);
    log_unlock();
  }
  json_decref(doc);
}

int pgb_bmk_stmt_register(void)
{
  pgb_stmt_sample_t *all[] = { &pgb_stmt.base, &pgb_stmt.last, &pgb_stmt.prev, &pgb_stmt.cur,
                               &pgb_stmt.diff, &pgb_stmt.ivd, &pgb_stmt.end };
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    if (sample_alloc(all[i]) != 0)
    {
      log_text(LOG_FATAL, "out of memory");
      return 1;
    }
  sb_output_t out = {.name = "pgbench statements", .start = o_start,
                     .interval = pgb_stmt_interval};
  sb_probe_t probe = {.name = "pgbench statements", .begin = p_begin, .end = p_end,
                      .print = p_print};
  if (sb_output_register(&out) != 0 || sb_probe_register(&probe) != 0)
  {
    log_text(LOG_FATAL, "too many outputs or probes for the pgbench scripts' statements");
    return 1;
  }
  return pgb_stmt_live_register();
}

void pgb_bmk_stmt_free(void)
{
  pgb_stmt_live_free();
  pgb_stmt_sample_t *all[] = { &pgb_stmt.base, &pgb_stmt.last, &pgb_stmt.prev, &pgb_stmt.cur,
                               &pgb_stmt.diff, &pgb_stmt.ivd, &pgb_stmt.end };
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
    sample_free(all[i]);
  pgb_stmt.have_window = pgb_stmt.started = pgb_stmt.ended = false;
  pgb_stmt.intervals = 0;
  pgb_stmt.iv_start = pgb_stmt.hdr_start = -1.0;
  pgb_stmt.hdr_tail_logged = false;
}
