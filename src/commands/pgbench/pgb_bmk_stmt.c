/*
 * Per-statement latencies of pgbench scripts under bmk's command line
 * (pgbench's -r as HDR percentiles): every command of every script, its
 * count, failures and retries (pgbench's -r columns) and its latency
 * percentiles over the measured window. The clients' counters are
 * cumulative; the window is the difference of two samples: one when the
 * measured time starts (an output's start: before the workers are
 * released, or at the end of --warmup-time), one while the workers wait
 * at the end line (a probe's end), so a command counted here ran inside
 * the window the server statistics sample. See pgb_bmk_priv.h.
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
#include "results/sb_results_extra.h"

typedef struct {
  pgb_cmdstat_t *cs;       /* ncmds */
  sb_hdr_t **h;            /* ncmds */
} sample_t;

static sample_t base, last;
static bool have_window;

static void sample_free(sample_t *s)
{
  for (unsigned k = 0; s->h && k < pgb_cfg.ncmds; k++)
    sb_hdr_free(s->h[k]);
  free(s->h);
  free(s->cs);
  memset(s, 0, sizeof(*s));
}

static int sample_alloc(sample_t *s)
{
  s->cs = calloc(pgb_cfg.ncmds, sizeof(*s->cs));
  s->h = calloc(pgb_cfg.ncmds, sizeof(*s->h));
  if (s->cs == NULL || s->h == NULL)
    return -1;
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
    if ((s->h[k] = sb_hdr_new()) == NULL)
      return -1;
  return 0;
}

/* The clients' cumulative counters now. */
static void sample_take(sample_t *s)
{
  pgb_stats_t total;
  memset(s->cs, 0, pgb_cfg.ncmds * sizeof(*s->cs));
  for (unsigned k = 0; k < pgb_cfg.ncmds; k++)
    sb_hdr_reset(s->h[k]);
  pgb_sum_stats(&total, NULL, s->cs);
  pgb_sum_cmd_hist(s->h);
}

static int o_start(void *ctx, const sb_out_start_t *st)
{
  (void) ctx;
  (void) st;
  sample_take(&base);
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

/* One command's figures in the document. */
static json_t *command_json(unsigned s, unsigned i, const pgb_cmdstat_t *cs, const sb_hdr_t *h)
{
  const pgb_script_t *sc = &pgb_cfg.scripts[s];
  double avg = cs->count > 0 ? cs->sum_ns / (double) cs->count / 1e6 : 0.0;
  return json_pack("{s:s, s:i, s:i, s:i, s:s, s:I, s:I, s:I, s:{s:f, s:f, s:f, s:f, s:f}}",
                   "script", sc->name, "script_index", (int) s, "weight", sc->weight,
                   "command", (int) i, "text", sc->cmds[i].first_line,
                   "count", (json_int_t) cs->count, "failures", (json_int_t) cs->failures,
                   "retries", (json_int_t) cs->retries, "latency_ms", "avg", avg,
                   "p50", ms(sb_hdr_percentile(h, 50)), "p95", ms(sb_hdr_percentile(h, 95)),
                   "p99", ms(sb_hdr_percentile(h, 99)), "max", ms(sb_hdr_max(h)));
}

/* The end sample, the window (last - base) and the document's member. */
static void p_end(void *ctx)
{
  (void) ctx;
  sample_take(&last);
  json_t *arr = json_array();
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
    for (unsigned i = 0; i < pgb_cfg.scripts[s].ncmds; i++)
    {
      unsigned k = pgb_cfg.scripts[s].first + i;
      last.cs[k].count -= base.cs[k].count;
      last.cs[k].sum -= base.cs[k].sum;
      last.cs[k].sum_ns -= base.cs[k].sum_ns;
      last.cs[k].failures -= base.cs[k].failures;
      last.cs[k].retries -= base.cs[k].retries;
      sb_hdr_sub(last.h[k], base.h[k]);
      json_t *one = command_json(s, i, &last.cs[k], last.h[k]);
      if (arr && one)
        json_array_append_new(arr, one);
      else
        json_decref(one);
    }
  have_window = true;
  if (arr)
    sb_results_extra_set("statements", arr);
}

/* The block after the report: per script, a line per command. */
static void p_print(void *ctx)
{
  (void) ctx;
  if (!have_window)
    return;
  log_lock();
  printf("Statements (latency in ms):\n");
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
  {
    const pgb_script_t *sc = &pgb_cfg.scripts[s];
    printf("    script %u: %s (weight %d)\n", s, sc->name, sc->weight);
    printf("        %10s %8s %8s %9s %9s %9s %9s  command\n", "count", "failed", "retried",
           "avg", "p50", "p95", "p99");
    for (unsigned i = 0; i < sc->ncmds; i++)
    {
      unsigned k = sc->first + i;
      const pgb_cmdstat_t *cs = &last.cs[k];
      const sb_hdr_t *h = last.h[k];
      printf("        %10" PRId64 " %8" PRId64 " %8" PRId64 " %9.3f %9.3f %9.3f %9.3f  %s\n",
             cs->count, cs->failures, cs->retries,
             cs->count > 0 ? cs->sum_ns / (double) cs->count / 1e6 : 0.0,
             ms(sb_hdr_percentile(h, 50)), ms(sb_hdr_percentile(h, 95)),
             ms(sb_hdr_percentile(h, 99)), sc->cmds[i].first_line);
    }
  }
  fflush(stdout);
  log_unlock();
}

int pgb_bmk_stmt_register(void)
{
  if (sample_alloc(&base) != 0 || sample_alloc(&last) != 0)
  {
    log_text(LOG_FATAL, "out of memory");
    return 1;
  }
  sb_output_t out = {.name = "pgbench statements", .start = o_start};
  sb_probe_t probe = {.name = "pgbench statements", .begin = p_begin, .end = p_end,
                      .print = p_print};
  if (sb_output_register(&out) != 0 || sb_probe_register(&probe) != 0)
  {
    log_text(LOG_FATAL, "too many outputs or probes for the pgbench scripts' statements");
    return 1;
  }
  return 0;
}

void pgb_bmk_stmt_free(void)
{
  sample_free(&base);
  sample_free(&last);
  have_window = false;
}
