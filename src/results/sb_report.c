/* Report formatting; see sb_report.h. Layouts are byte-exact sysbench 1.1. */
#include <math.h>

#include "results/sb_report.h"

static double per_sec(uint64_t n, double seconds)
{
  return seconds > 0 ? (double) n / seconds : 0.0;
}

void sb_report_interval_db(FILE *out, const sb_stat_t *s, bool rate, bool lag)
{
  double t = s->time_interval;
  fprintf(out,
          "[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
          "lat (ms,%u%%): %4.2f err/s: %4.2f reconn/s: %4.2f",
          s->time_total, s->threads_running, per_sec(s->events, t),
          per_sec(s->reads + s->writes + s->other, t), per_sec(s->reads, t),
          per_sec(s->writes, t), per_sec(s->other, t), s->percentile,
          s->latency_pct * 1000.0, per_sec(s->errors, t),
          per_sec(s->reconnects, t));
  /* bmk: with --max-tries only (sysbench's line otherwise) */
  if (s->retries_on)
    fprintf(out, " retry/s: %4.2f fail/s: %4.2f", per_sec(s->tx_retries, t),
            per_sec(s->tx_failures, t));
  fprintf(out, "\n");
  if (rate)
  {
    fprintf(out, "[ %.0fs ] queue length: %lu, concurrency: %lu",
            s->time_total, (unsigned long) s->queue_length,
            (unsigned long) s->concurrency);
    if (lag)
      fprintf(out, ", lag (ms): %.2f", s->schedule_lag * 1000.0);
    fprintf(out, "\n");
  }
}

void sb_report_interval_generic(FILE *out, const sb_stat_t *s, bool rate, bool lag)
{
  fprintf(out, "[ %.0fs ] thds: %u eps: %4.2f lat (ms,%u%%): %4.2f\n",
          s->time_total, s->threads_running, per_sec(s->events, s->time_interval),
          s->percentile, s->latency_pct * 1000.0);
  if (rate)
  {
    fprintf(out, "[ %.0fs ] queue length: %lu concurrency: %lu",
            s->time_total, (unsigned long) s->queue_length,
            (unsigned long) s->concurrency);
    if (lag)
      fprintf(out, " lag (ms): %.2f", s->schedule_lag * 1000.0);
    fprintf(out, "\n");
  }
}

void sb_report_latency_block(FILE *out, const sb_stat_t *s)
{
  fprintf(out, "Latency (ms):\n");
  fprintf(out, "         min: %39.2f\n", s->latency_min * 1000.0);
  fprintf(out, "         avg: %39.2f\n", s->latency_avg * 1000.0);
  fprintf(out, "         max: %39.2f\n", s->latency_max * 1000.0);
  if (s->percentile > 0)
    fprintf(out, "        %3uth percentile: %27.2f\n", s->percentile,
            s->latency_pct * 1000.0);
  else
    fprintf(out, "         percentile stats:               disabled\n");
  for (unsigned i = 0; i < s->npct; i++)
  {
    char label[32];
    snprintf(label, sizeof(label), "%g", s->pct[i]);
    fprintf(out, "%11s", label);
    fprintf(out, "th percentile: %27.2f\n", s->pct_val[i] * 1000.0);
  }
  fprintf(out, "         sum: %39.2f\n", s->latency_sum * 1000.0);
  fprintf(out, "\n");
}

/* One line of retry counts: retried transactions, retries, failures. */
static void retry_counts(FILE *out, const char *label, const sb_retry_counts_t *c)
{
  char l[48];
  snprintf(l, sizeof(l), "%s:", label);
  fprintf(out, "        %-29s retried %llu, retries %llu, failed %llu\n", l,
          (unsigned long long) c->n[SB_RETRY_RETRIED],
          (unsigned long long) c->n[SB_RETRY_RETRIES],
          (unsigned long long) c->n[SB_RETRY_FAILURES]);
}

/* bmk: the --max-tries block (docs/usage.md "Retries"), only when the
   option was given (sysbench's layout otherwise). */
static void report_retries(FILE *out, const sb_stat_t *s)
{
  double t = s->time_interval;
  if (!s->retries_on)
    return;
  const sb_retry_snap_t *r = s->retry;
  char tries[32] = "unlimited";
  if (s->max_tries > 0)
    snprintf(tries, sizeof(tries), "%u", s->max_tries);
  fprintf(out, "Transaction retries (max tries: %s):\n", tries);
  if (r != NULL)
    fprintf(out, "    retried transactions:                %-6llu (%.2f per sec.)\n",
            (unsigned long long) r->total.n[SB_RETRY_RETRIED],
            per_sec(r->total.n[SB_RETRY_RETRIED], t));
  fprintf(out, "    retries:                             %-6llu (%.2f per sec.)\n",
          (unsigned long long) s->tx_retries, per_sec(s->tx_retries, t));
  fprintf(out, "    failed transactions:                 %-6llu (%.2f per sec.)\n",
          (unsigned long long) s->tx_failures, per_sec(s->tx_failures, t));
  if (r != NULL && r->ncodes > 0)
  {
    fprintf(out, "    by kind:\n");
    for (int k = 0; k < SB_RETRY_KINDS; k++)
      retry_counts(out, sb_retry_kind_name((sb_retry_kind_t) k), &r->by_kind[k]);
    fprintf(out, "    by error code:\n");
    for (unsigned i = 0; i < r->ncodes; i++)
    {
      char label[40];
      snprintf(label, sizeof(label), "%s (%s)", r->code[i], sb_retry_kind_name(r->kind[i]));
      retry_counts(out, label, &r->by_code[i]);
    }
  }
  fprintf(out, "\n");
}

void sb_report_cumulative(FILE *out, const sb_stat_t *s, bool db)
{
  double t = s->time_interval;

  if (db)
  {
    uint64_t total = s->reads + s->writes + s->other;
    fprintf(out, "SQL statistics:\n");
    fprintf(out, "    queries performed:\n");
    fprintf(out, "        read:                            %lu\n", (unsigned long) s->reads);
    fprintf(out, "        write:                           %lu\n", (unsigned long) s->writes);
    fprintf(out, "        other:                           %lu\n", (unsigned long) s->other);
    fprintf(out, "        total:                           %lu\n", (unsigned long) total);
    fprintf(out, "    transactions:                        %-6lu (%.2f per sec.)\n",
            (unsigned long) s->events, per_sec(s->events, t));
    fprintf(out, "    queries:                             %-6lu (%.2f per sec.)\n",
            (unsigned long) total, per_sec(total, t));
    fprintf(out, "    ignored errors:                      %-6lu (%.2f per sec.)\n",
            (unsigned long) s->errors, per_sec(s->errors, t));
    fprintf(out, "    reconnects:                          %-6lu (%.2f per sec.)\n",
            (unsigned long) s->reconnects, per_sec(s->reconnects, t));
    /* bmk: only when a statement timed out (sysbench's layout otherwise) */
    if (s->timeouts > 0)
      fprintf(out, "    timeouts:                            %-6lu (%.2f per sec.)\n",
              (unsigned long) s->timeouts, per_sec(s->timeouts, t));
    fprintf(out, "\n");
  }
  else
    fprintf(out, "\n");
  report_retries(out, s);

  fprintf(out, "Throughput:\n");
  fprintf(out, "    events/s (eps):                      %.4f\n", per_sec(s->events, t));
  fprintf(out, "    time elapsed:                        %.4fs\n", t);
  fprintf(out, "    total number of events:              %lu\n", (unsigned long) s->events);
  fprintf(out, "\n");

  sb_report_latency_block(out, s);

  fprintf(out, "Threads fairness:\n");
  fprintf(out, "    events (avg/stddev):           %.4f/%3.2f\n", s->events_avg,
          s->events_stddev);
  fprintf(out, "    execution time (avg/stddev):   %.4f/%3.2f\n", s->exec_avg,
          s->exec_stddev);
  fprintf(out, "\n");
}

void sb_report_thread_debug(FILE *out, unsigned tid, double min, double avg,
                            double max, uint64_t events, double total)
{
  fprintf(out, "    thread #%3u: min: %.4fs  avg: %.4fs  max: %.4fs  events: %lu\n",
          tid, min, avg, max, (unsigned long) events);
  fprintf(out, "                 total time taken by event execution: %.4fs\n", total);
}

void sb_report_types(FILE *out, const sb_type_row_t *rows, unsigned n)
{
  fprintf(out, "Event types (latency in ms):\n");
  fprintf(out, "    %-20s %10s %8s %9s %10s %9s %9s %9s %9s %9s %9s\n", "type", "events",
          "errors", "rollbacks", "tps", "min", "avg", "p50", "p95", "p99", "max");
  for (unsigned i = 0; i < n; i++)
  {
    const sb_type_row_t *r = &rows[i];
    fprintf(out, "    %-20s %10llu %8llu %9llu %10.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n",
            r->name, (unsigned long long) r->events, (unsigned long long) r->errors,
            (unsigned long long) r->rollbacks, r->tps, r->min * 1000.0, r->avg * 1000.0,
            r->p50 * 1000.0, r->p95 * 1000.0, r->p99 * 1000.0, r->max * 1000.0);
  }
  fprintf(out, "\n");
}

void sb_report_metrics(FILE *out, const sb_stat_t *s)
{
  if (s->nmetrics == 0)
    return;
  fprintf(out, "Workload metrics:\n");
  for (unsigned i = 0; i < s->nmetrics; i++)
  {
    const char *name = sb_metric_name((int) i);
    char head[96];
    snprintf(head, sizeof(head), "    %s:", name ? name : "?");
    fprintf(out, "%-38s %12llu  (%.2f per sec.)\n", head, (unsigned long long) s->metrics[i],
            per_sec(s->metrics[i], s->time_total));
  }
  fprintf(out, "\n");
}

void sb_report_latency_limit(FILE *out, double limit_ms, uint64_t late, uint64_t events)
{
  fprintf(out, "Latency limit (%.3f ms): %llu of %llu events late (%.3f%%)\n\n", limit_ms,
          (unsigned long long) late, (unsigned long long) events,
          events ? (double) late * 100.0 / (double) events : 0.0);
}
