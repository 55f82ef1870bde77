/* The text report output; see results/sb_text_output.h. */
#include <stdio.h>
#include <string.h>

#include "core/sb_endpoints.h"
#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "core/sb_probe.h"
#include "core/sb_version.h"
#include "drivers/db_driver.h"
#include "results/sb_report.h"
#include "results/sb_text_output.h"
#include "endpoints/sb_endpoint_probe.h"

/* One run at a time: the configuration and hooks of the registered text
   output (set before the run, read-only while it runs). */
static struct {
  sb_text_config_t cfg;
  sb_text_hooks_t hooks;
} text;

bool sb_text_reports_enabled(void)
{
  return log_get_verbosity() >= LOG_NOTICE;
}

/* bmk's lines after an interval's: statements that timed out and events
   in flight for longer than the interval (engine/sb_stuck.c counts them;
   none under the sysbench persona). */
static void print_stalls(const sb_stat_t *st)
{
  if ((st->stalled == 0 && st->timeouts == 0) || !sb_text_reports_enabled())
    return;
  log_lock();
  if (st->timeouts > 0)
    printf("[ %.0fs ] timeouts: %llu statement(s) got no answer within --db-query-timeout; "
           "their connections were closed (%llu reconnect(s) in the interval)\n",
           st->time_total, (unsigned long long) st->timeouts,
           (unsigned long long) st->reconnects);
  if (st->stalled > 0)
    printf("[ %.0fs ] stalled: %u event(s) in flight for longer than the interval, "
           "oldest %.2f s (the server is not answering?)\n",
           st->time_total, st->stalled, st->stalled_oldest_s);
  fflush(stdout);
  log_unlock();
}

/* One line of a per-replica figure: "[ Ns ] LABEL: NAME VALUE ..." with
   `decimals`, "-" where value() < 0 (no sample); the caller holds the log
   lock. */
static void print_replicas(const sb_stat_t *st, const char *label,
                           double (*value)(const sb_endpoint_t *), int decimals)
{
  printf("[ %.0fs ] %s:", st->time_total, label);
  for (unsigned i = 0; i < sb_endpoints_count(); i++)
  {
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    if (!sb_endpoint_is_replica(ep))
      continue;
    double v = value(ep);
    if (v < 0)
      printf(" %s -", ep->name);
    else
      printf(" %s %.*f", ep->name, decimals, v);
  }
  printf("\n");
}

/* (exact as a double: WAL bytes and GTID counts stay below 2^53) */
static double behind_of(const sb_endpoint_t *ep)
{
  return (double) sb_endpoint_behind(ep);
}

/* --endpoints with replicas: their lag samples of this interval (none
   under the sysbench persona); "-" where there is no sample. */
static void print_lag(const sb_stat_t *st)
{
  if (!sb_endpoints_have_replicas() || sb_persona_sysbench() || !sb_text_reports_enabled())
    return;
  log_lock();
  print_replicas(st, "replica lag (s)", sb_endpoint_lag, 3);
  /* what each has not applied of the primary's (else of what it received):
     GTIDs or WAL bytes */
  char label[64];
  snprintf(label, sizeof(label), "replica behind (%s)", sb_endpoints_behind_unit());
  print_replicas(st, label, behind_of, 0);
  /* the primary's replay lag per replica (PostgreSQL), when sampled */
  if (sb_endpoints_replay_lag_sampled())
    print_replicas(st, "replica replay lag (s)", sb_endpoint_replay_lag, 3);
  fflush(stdout);
  log_unlock();
}

/* How the client's CPU reads in a line: "an event-loop worker busy 99%
   of the time (on a CPU 62%), bmk 0.65 of 2 CPUs" or "bmk 1.85 of 2
   CPUs". */
static void client_figures(char *buf, size_t n, const sb_client_t *c)
{
  if (c->event_mode)
    snprintf(buf, n, "an event-loop worker busy %.0f%% of the time (on a CPU %.0f%%), "
             "bmk %.2f of %u CPUs", c->busiest * 100, c->busiest_cpu * 100, c->cpu, c->cpus);
  else
    snprintf(buf, n, "bmk %.2f of %u CPUs", c->cpu, c->cpus);
}

/* bmk's line after an interval in which the load generator itself was
   saturated (none under the sysbench persona). */
static void print_client(const sb_stat_t *st)
{
  if (!st->client.saturated || sb_persona_sysbench() || !sb_text_reports_enabled())
    return;
  char fig[128];
  client_figures(fig, sizeof(fig), &st->client);
  log_lock();
  printf("[ %.0fs ] client saturated: %s: bmk, not the server, limited this interval\n",
         st->time_total, fig);
  fflush(stdout);
  log_unlock();
}

/* bmk's warnings after the final report: the client limited the run;
   SQL calls blocked an event-loop worker. */
static void print_client_end(const sb_stat_t *st)
{
  const sb_client_t *c = &st->client;
  if (sb_persona_sysbench() || !sb_text_reports_enabled())
    return;
  if (c->saturated_intervals > 0)
  {
    char fig[160];
    client_figures(fig, sizeof(fig), c);
    log_text(LOG_WARNING, "%s: bmk itself was saturated in %u of %u intervals (at most %s; "
             "%u virtual users on %u %s). %s: give bmk more worker threads (--workers=N, up "
             "to the CPUs), more CPUs, or more load hosts (bmk cluster run)",
             c->saturated ? "the load generator limited this run" : "the load generator "
             "limited part of this run", c->saturated_intervals, c->intervals, fig,
             st->threads, c->workers,
             c->event_mode ? (c->workers == 1 ? "event-loop worker thread"
                                              : "event-loop worker threads")
                           : (c->workers == 1 ? "thread" : "threads"),
             c->saturated ? "The figures above are bmk's limit, not the server's"
                          : "Those intervals measured bmk, not the server");
  }
  if (c->event_mode && c->blocking_calls > 0)
    log_text(LOG_WARNING, "%llu SQL call(s) waited in place and blocked an event-loop worker "
             "(its other virtual users waited too). In a Lua script: a query from a C "
             "callback such as string.gsub, from a script's own coroutine, or a blocking FFI "
             "call (db_query, db_execute, ...); docs/lua-api.md \"Event mode\" says how to "
             "make them wait without blocking. In pgbench scripts: connecting, \\shell, "
             "and --protocol=prepared's first prepare of each statement (docs/pgbench.md)",
             (unsigned long long) c->blocking_calls);
}

static int out_interval(void *ctx, const sb_out_interval_t *iv)
{
  (void) ctx;
  const sb_stat_t *st = iv->st;
  bool own = text.hooks.interval && text.hooks.interval(text.hooks.ctx, st);
  if (!own && sb_text_reports_enabled())
  {
    log_lock();
    if (db_driver_used())
      sb_report_interval_db(stdout, st, text.cfg.rate, text.cfg.rate_lag);
    else
      sb_report_interval_generic(stdout, st, text.cfg.rate, text.cfg.rate_lag);
    fflush(stdout);
    log_unlock();
  }
  print_stalls(st);
  print_lag(st);
  print_client(st);
  return 0;
}

/* The cumulative report (a checkpoint's or the final one): the
   workload's own section, then the standard one unless it replaced it. */
static void print_cumulative(const sb_stat_t *st, bool checkpoint)
{
  sb_text_hook_rc_t rc = text.hooks.cumulative
    ? text.hooks.cumulative(text.hooks.ctx, st, checkpoint) : SB_TEXT_STANDARD;
  if (rc == SB_TEXT_REPLACED || !sb_text_reports_enabled())
    return;
  log_lock();
  sb_report_cumulative(stdout, st, db_driver_used());
  fflush(stdout);
  log_unlock();
}

static int out_checkpoint(void *ctx, const sb_out_checkpoint_t *c)
{
  (void) ctx;
  log_raw("\n[ %.0fs ] Checkpoint report:\n", c->at_s);
  print_cumulative(c->st, true);
  return 0;
}

/* --debug: one line per VU. */
static void print_vus(const sb_out_end_t *e)
{
  if (e->vus == NULL)
    return;
  log_text(LOG_DEBUG, "Verbose per-thread statistics:\n");
  for (unsigned i = 0; i < e->nvus; i++)
  {
    const sb_out_thread_t *v = &e->vus[i];
    log_lock();
    sb_report_thread_debug(stdout, i, v->min, v->avg, v->max, v->events, v->total);
    log_unlock();
  }
}

/* After the standard report: the per-type table, the latency-limit line,
   the workload metrics and the probes' blocks (server statistics, cost). */
static void print_extras(const sb_out_end_t *e)
{
  if (!sb_text_reports_enabled())
    return;
  log_lock();
  if (e->nrows > 1)
    sb_report_types(stdout, e->rows, e->nrows);
  if (text.cfg.latency_limit_ns)
    sb_report_latency_limit(stdout, (double) text.cfg.latency_limit_ns / 1e6, e->late,
                            e->st->events);
  /* sysbench's persona prints exactly sysbench's report */
  if (!sb_persona_sysbench())
    sb_report_metrics(stdout, e->st);
  fflush(stdout);
  log_unlock();
  sb_probe_print();
}

static int out_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  if (text.hooks.intervals_done)
    text.hooks.intervals_done(text.hooks.ctx);
  if (e->unfinished > 0)
    log_text(LOG_NOTICE, "\nNumber of unfinished transactions on forced shutdown: %u",
             e->unfinished);
  if (e->interrupted)
    log_text(LOG_NOTICE, "Run interrupted: %s; the report covers %.2fs of measured time.",
             e->interrupted, e->st->time_total);
  if (text.cfg.histogram && sb_text_reports_enabled())
  {
    log_lock();
    sb_hdr_print_sysbench(e->hist, stdout);
    fflush(stdout);
    log_unlock();
  }
  print_cumulative(e->st, false);
  print_vus(e);
  print_extras(e);
  print_client_end(e->st);
  return 0;
}

static void out_close(void *ctx)
{
  (void) ctx;
  if (text.hooks.intervals_done)
    text.hooks.intervals_done(text.hooks.ctx);
}

void sb_text_output(const sb_text_config_t *cfg, const sb_text_hooks_t *hooks,
                    sb_output_t *out)
{
  memset(&text, 0, sizeof(text));
  if (cfg)
    text.cfg = *cfg;
  if (hooks)
    text.hooks = *hooks;
  *out = (sb_output_t) {
    .name = "the text report",
    .interval = text.cfg.intervals ? out_interval : NULL,
    .checkpoint = out_checkpoint, .end = out_end, .close = out_close, .ctx = NULL
  };
}
