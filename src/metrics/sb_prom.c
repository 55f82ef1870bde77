/* bmk's Prometheus metrics: accumulation and exposition; see
   metrics/sb_prom.h. Names follow Prometheus's conventions (bmk_ prefix,
   base units, _total for counters); docs/metrics.md lists them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_counter.h"
#include "core/sb_evtype.h"
#include "core/sb_histogram.h"
#include "core/sb_metric.h"
#include "core/sb_retry.h"
#include "core/sb_figure.h"
#include "metrics/sb_prom.h"

const double sb_prom_bounds[SB_PROM_NBUCKETS] = {
  0.0001, 0.00015, 0.0002, 0.0003, 0.0005, 0.0007,
  0.001, 0.0015, 0.002, 0.003, 0.005, 0.007,
  0.01, 0.015, 0.02, 0.03, 0.05, 0.07,
  0.1, 0.15, 0.2, 0.3, 0.5, 0.7,
  1, 1.5, 2, 3, 5, 7,
  10, 15, 20, 30, 50, 70,
  100
};

/* One event type's cumulative latency histogram. */
typedef struct {
  uint64_t buckets[SB_PROM_NBUCKETS];   /* not cumulative: per bucket */
  uint64_t inf;                         /* above the last bound */
  uint64_t count;
  double sum_s;
} lat_t;

struct sb_prom {
  char *labels;
  unsigned vus;
  double rate;
  uint64_t events, reads, writes, other, ignored, timeouts, reconnects;
  unsigned vus_running;
  uint64_t backlog, in_flight;
  double interval_s;
  bool finished;
  lat_t lat[SB_EVTYPE_MAX];             /* by type id; [0] when untyped */
  bool typed;                           /* a script named event types */
  sb_figure_t figures[SB_FIGURE_MAX];   /* the run's figures, at the end */
  unsigned nfigures;
  double window_s;                      /* the measured time, at the end */
  uint64_t workload[SB_METRIC_MAX];     /* workload metrics (sysbench.metric) */
  unsigned nworkload;
  /* the client's own CPU (sb_client_t): CPU seconds, the last interval's
     figures, saturated intervals */
  bool client_measured;
  double client_cpu_s, client_cpu, client_busiest;
  bool client_saturated;
  uint64_t client_saturated_n, client_blocking;
  /* --max-tries given: the retry counts per error code since the start */
  bool retries_on;
  sb_retry_snap_t retry;
};

sb_prom_t *sb_prom_new(const char *labels)
{
  sb_prom_t *p = calloc(1, sizeof(*p));
  if (p == NULL)
    return NULL;
  p->labels = strdup(labels ? labels : "");
  if (p->labels == NULL)
  {
    free(p);
    return NULL;
  }
  return p;
}

void sb_prom_free(sb_prom_t *p)
{
  if (p == NULL)
    return;
  free(p->labels);
  free(p);
}

void sb_prom_set_config(sb_prom_t *p, unsigned vus, double rate)
{
  p->vus = vus;
  p->rate = rate;
}

/* The bucket index of an HDR bucket whose values end at `hi_ns`
   (SB_PROM_NBUCKETS = above every bound). */
static unsigned bucket_of(uint64_t hi_ns)
{
  double s = (double) hi_ns / 1e9;
  unsigned lo = 0, hi = SB_PROM_NBUCKETS;
  while (lo < hi)
  {
    unsigned mid = (lo + hi) / 2;
    if (sb_prom_bounds[mid] >= s)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Adds the latencies of `h` to `l`; the sum from the buckets' middles
   (within 0.05 %: the interval snapshots carry no exact sum). */
static void add_hist(lat_t *l, const sb_hdr_t *h)
{
  if (h == NULL)
    return;
  uint32_t n = sb_hdr_counts_len(h);
  for (uint32_t i = 0; i < n; i++)
  {
    uint64_t c = sb_hdr_count_at(h, i);
    if (c == 0)
      continue;
    unsigned b = bucket_of(sb_hdr_value_hi(i));
    if (b < SB_PROM_NBUCKETS)
      l->buckets[b] += c;
    else
      l->inf += c;
    l->count += c;
    l->sum_s += (double) c * ((double) sb_hdr_value_lo(i) + (double) sb_hdr_value_hi(i)) / 2e9;
  }
}

/* The per-type histograms of `types` (or the whole one, `all`, untyped)
   added to the state. */
static void add_types(sb_prom_t *p, const sb_evtype_stat_t *types, const sb_hdr_t *all)
{
  if (types != NULL && sb_evtype_used())
  {
    p->typed = true;
    for (unsigned i = 0; i < sb_evtype_count() && i < SB_EVTYPE_MAX; i++)
      add_hist(&p->lat[i], types[i].hist);
  }
  else
    add_hist(&p->lat[0], all);
}

void sb_prom_add_interval(sb_prom_t *p, const sb_out_interval_t *iv)
{
  const sb_stat_t *st = iv->st;
  p->events += st->events;
  p->reads += st->reads;
  p->writes += st->writes;
  p->other += st->other;
  p->ignored += st->errors;
  p->timeouts += st->timeouts;
  p->reconnects += st->reconnects;
  p->vus_running = iv->vus_running;
  p->backlog = st->queue_length;
  p->in_flight = st->concurrency;
  p->interval_s = st->time_interval;
  if (st->client.measured)
  {
    p->client_measured = true;
    p->client_cpu_s += st->client.cpu * st->time_interval;
    p->client_cpu = st->client.cpu;
    p->client_busiest = st->client.busiest;
    p->client_saturated = st->client.saturated;
    p->client_saturated_n += st->client.saturated;
  }
  p->client_blocking = st->client.blocking_calls;
  if (st->retries_on)
  {
    p->retries_on = true;
    sb_retry_snapshot(&p->retry, false);
  }
  for (unsigned i = 0; i < st->nmetrics && i < SB_METRIC_MAX; i++)
    p->workload[i] += st->metrics[i];
  if (st->nmetrics > p->nworkload)
    p->nworkload = st->nmetrics < SB_METRIC_MAX ? st->nmetrics : SB_METRIC_MAX;
  add_types(p, iv->types, iv->hist);
}

/* `*dst` becomes `v` when that is higher (a counter never goes back). */
static void raise_to(uint64_t *dst, uint64_t v)
{
  if (v > *dst)
    *dst = v;
}

void sb_prom_set_end(sb_prom_t *p, const sb_out_end_t *e)
{
  const sb_stat_t *st = e->st;
  if (st->events >= p->events)
  {
    /* the run's histograms cover what the intervals did and the partial
       last one: they replace the sums */
    memset(p->lat, 0, sizeof(p->lat));
    add_types(p, e->types, e->hist);
  }
  raise_to(&p->events, st->events);
  raise_to(&p->reads, st->reads);
  raise_to(&p->writes, st->writes);
  raise_to(&p->other, st->other);
  raise_to(&p->ignored, st->errors);
  raise_to(&p->timeouts, st->timeouts);
  raise_to(&p->reconnects, st->reconnects);
  raise_to(&p->client_blocking, st->client.blocking_calls);
  if (st->retries_on)
  {
    p->retries_on = true;
    sb_retry_snapshot(&p->retry, false);
  }
  p->vus_running = 0;
  p->in_flight = 0;
  p->finished = true;
  for (unsigned i = 0; i < st->nmetrics && i < SB_METRIC_MAX; i++)
    raise_to(&p->workload[i], st->metrics[i]);
  if (st->nmetrics > p->nworkload)
    p->nworkload = st->nmetrics < SB_METRIC_MAX ? st->nmetrics : SB_METRIC_MAX;
  p->nfigures = sb_figure_list(p->figures, SB_FIGURE_MAX);
  p->window_s = st->time_total;
}

/* ---- rendering ---------------------------------------------------------- */

typedef struct {
  char *buf;
  size_t len, cap;
  bool oom;
  bool om;                      /* OpenMetrics */
} out_t;

static void put(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out_t *o, const char *fmt, ...)
{
  if (o->oom)
    return;
  for (;;)
  {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0)
    {
      o->oom = true;
      return;
    }
    if ((size_t) n < o->cap - o->len)
    {
      o->len += (size_t) n;
      return;
    }
    size_t cap = o->cap * 2 + (size_t) n;
    char *b = realloc(o->buf, cap);
    if (b == NULL)
    {
      o->oom = true;
      return;
    }
    o->buf = b;
    o->cap = cap;
  }
}

/* "# HELP" and "# TYPE" of a family. OpenMetrics names a counter family
   without its _total suffix. */
static void family(out_t *o, const char *name, const char *type, const char *help)
{
  size_t n = strlen(name);
  int base = (int) n;
  if (o->om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
    base = (int) n - 6;
  put(o, "# HELP %.*s %s\n# TYPE %.*s %s\n", base, name, help, base, name, type);
}

/* A sample: name{labels[,extra]} value */
static void sample(out_t *o, const sb_prom_t *p, const char *name, const char *extra,
                   double v)
{
  const char *sep = *p->labels && extra && *extra ? "," : "";
  put(o, "%s{%s%s%s} %.17g\n", name, p->labels, sep, extra ? extra : "", v);
}

static void counter(out_t *o, const sb_prom_t *p, const char *name, const char *help,
                    uint64_t v)
{
  family(o, name, "counter", help);
  sample(o, p, name, NULL, (double) v);
}

static void counter_f(out_t *o, const sb_prom_t *p, const char *name, const char *help,
                      double v)
{
  family(o, name, "counter", help);
  sample(o, p, name, NULL, v);
}

static void gauge(out_t *o, const sb_prom_t *p, const char *name, const char *help, double v)
{
  family(o, name, "gauge", help);
  sample(o, p, name, NULL, v);
}

static void latency(out_t *o, const sb_prom_t *p)
{
  family(o, "bmk_latency_seconds", "histogram",
         "Event latency (from the intended start under --rate), seconds");
  unsigned ntypes = p->typed ? sb_evtype_count() : 1;
  for (unsigned t = 0; t < ntypes && t < SB_EVTYPE_MAX; t++)
  {
    const lat_t *l = &p->lat[t];
    if (p->typed && l->count == 0)
      continue;
    char type[SB_EVTYPE_NAME_MAX * 2 + 16] = "", esc[SB_EVTYPE_NAME_MAX * 2 + 1] = "";
    if (p->typed)
    {
      sb_prom_escape(esc, sizeof(esc), sb_evtype_name((int) t) ? sb_evtype_name((int) t) : "?");
      snprintf(type, sizeof(type), "type=\"%s\"", esc);
    }
    uint64_t cum = 0;
    char extra[sizeof(type) + 32];
    for (unsigned b = 0; b < SB_PROM_NBUCKETS; b++)
    {
      cum += l->buckets[b];
      snprintf(extra, sizeof(extra), "%s%sle=\"%g\"", type, *type ? "," : "", sb_prom_bounds[b]);
      sample(o, p, "bmk_latency_seconds_bucket", extra, (double) cum);
    }
    snprintf(extra, sizeof(extra), "%s%sle=\"+Inf\"", type, *type ? "," : "");
    sample(o, p, "bmk_latency_seconds_bucket", extra, (double) l->count);
    sample(o, p, "bmk_latency_seconds_count", type, (double) l->count);
    sample(o, p, "bmk_latency_seconds_sum", type, l->sum_s);
  }
}

/* The workload metrics (sysbench.metric) as one counter family. */
static void workload(out_t *o, const sb_prom_t *p)
{
  if (p->nworkload == 0)
    return;
  family(o, "bmk_workload_total", "counter",
         "Workload metrics (sysbench.metric), by name: sums over the measured time");
  for (unsigned i = 0; i < p->nworkload; i++)
  {
    const char *name = sb_metric_name((int) i);
    char extra[SB_METRIC_NAME_MAX * 2 + 16] = "metric=\"";
    if (name == NULL || !sb_prom_escape(extra, sizeof(extra) - 1, name))
      continue;
    strcat(extra, "\"");
    sample(o, p, "bmk_workload_total", extra, (double) p->workload[i]);
  }
}

/* The run's figures (core/sb_figure.h) as gauges bmk_<name>, once the
   run ended: the server's counters over the window, tpcc's NOPM/TPM. */
static void figures(out_t *o, const sb_prom_t *p)
{
  for (unsigned i = 0; i < p->nfigures; i++)
  {
    const sb_figure_t *f = &p->figures[i];
    char name[SB_FIGURE_NAME_MAX + 8];
    snprintf(name, sizeof(name), "bmk_%s", f->name);
    gauge(o, p, name, f->help[0] ? f->help : "A figure of the run (docs/metrics.md)",
          sb_figure_shown(f, p->window_s));
  }
}

/* --max-tries: one family per count, one sample per error code. */
static void render_retries(out_t *o, const sb_prom_t *p)
{
  static const struct {
    const char *name, *help;
  } fam[SB_RETRY_WHAT] = {
    { "bmk_transactions_retried_total",
      "Transactions tried more than once (--max-tries), by the kind and code of their first error" },
    { "bmk_transaction_retries_total",
      "Tries run again after a serialization failure or deadlock, by error kind and code" },
    { "bmk_transactions_failed_total",
      "Transactions that failed after their last try, by the kind and code of their last error" },
  };
  if (!p->retries_on)
    return;
  for (int w = 0; w < SB_RETRY_WHAT; w++)
  {
    family(o, fam[w].name, "counter", fam[w].help);
    for (unsigned i = 0; i < p->retry.ncodes; i++)
    {
      char labels[64];
      snprintf(labels, sizeof(labels), "kind=\"%s\",code=\"%s\"",
               sb_retry_kind_name(p->retry.kind[i]), p->retry.code[i]);
      sample(o, p, fam[w].name, labels, (double) p->retry.by_code[i].n[w]);
    }
  }
}

char *sb_prom_render(const sb_prom_t *p, bool openmetrics, size_t *len)
{
  out_t o = { .buf = malloc(16384), .len = 0, .cap = 16384, .oom = false, .om = openmetrics };
  if (o.buf == NULL)
    return NULL;
  o.buf[0] = '\0';
  counter(&o, p, "bmk_events_total", "Completed events (sysbench's transactions)", p->events);
  counter(&o, p, "bmk_transactions_total",
          "Completed transactions: the events of the final report's 'transactions:' line",
          p->events);
  family(&o, "bmk_queries_total", "counter", "Statements run, by kind");
  sample(&o, p, "bmk_queries_total", "kind=\"read\"", (double) p->reads);
  sample(&o, p, "bmk_queries_total", "kind=\"write\"", (double) p->writes);
  sample(&o, p, "bmk_queries_total", "kind=\"other\"", (double) p->other);
  family(&o, "bmk_errors_total", "counter",
         "Statement errors that did not stop the run, by class (ignored: in the ignore list; "
         "timeout: no answer within --db-query-timeout)");
  sample(&o, p, "bmk_errors_total", "class=\"ignored\"", (double) p->ignored);
  sample(&o, p, "bmk_errors_total", "class=\"timeout\"", (double) p->timeouts);
  counter(&o, p, "bmk_reconnects_total", "Connections opened again after a lost one",
          p->reconnects);
  render_retries(&o, p);
  gauge(&o, p, "bmk_vus", "Virtual users (--threads)", p->vus);
  gauge(&o, p, "bmk_vus_running", "Virtual users still running their events", p->vus_running);
  gauge(&o, p, "bmk_rate_target_events_per_second", "Target rate (--rate; 0 = none)", p->rate);
  gauge(&o, p, "bmk_backlog_events", "Events scheduled by --rate but not started",
        (double) p->backlog);
  gauge(&o, p, "bmk_events_in_flight", "Events running at the end of the interval (--rate)",
        (double) p->in_flight);
  gauge(&o, p, "bmk_interval_seconds", "Length of the last interval these values include",
        p->interval_s);
  gauge(&o, p, "bmk_run_finished", "1 once the final report is out", p->finished ? 1 : 0);
  if (p->client_measured)
  {
    counter_f(&o, p, "bmk_client_cpu_seconds_total",
              "CPU time of bmk itself (user and system) over the intervals", p->client_cpu_s);
    gauge(&o, p, "bmk_client_cpu_ratio",
          "bmk's CPU over the last interval, in CPUs (1 = one CPU all the time)",
          p->client_cpu);
    gauge(&o, p, "bmk_client_busiest_worker_ratio",
          "The busiest worker thread's CPU over the last interval, a fraction of one CPU",
          p->client_busiest);
    gauge(&o, p, "bmk_client_saturated",
          "1 when bmk itself limited the last interval (docs/results.md)",
          p->client_saturated ? 1 : 0);
    counter(&o, p, "bmk_client_saturated_intervals_total",
            "Intervals that bmk itself limited", p->client_saturated_n);
  }
  counter(&o, p, "bmk_loop_blocking_calls_total",
          "SQL calls that blocked an event-loop worker thread (docs/lua-api.md)",
          p->client_blocking);
  latency(&o, p);
  workload(&o, p);
  figures(&o, p);
  if (openmetrics)
    put(&o, "# EOF\n");
  if (o.oom)
  {
    free(o.buf);
    return NULL;
  }
  *len = o.len;
  return o.buf;
}

/* The info series of command `c`: its script's name and first line. */
static void stmt_info(out_t *o, const char *labels, const sb_prom_stmt_t *c)
{
  char name[520] = "", text[260] = "", cut[121];
  snprintf(cut, sizeof(cut), "%s", c->text ? c->text : "");
  sb_prom_escape(name, sizeof(name), c->script_name ? c->script_name : "");
  sb_prom_escape(text, sizeof(text), cut);
  put(o, "bmk_statement_command{%s,script=\"%u\",command=\"%u\",script_name=\"%s\","
      "text=\"%s\"} 1\n", labels, c->script, c->command, name, text);
}

char *sb_prom_render_statements(const sb_prom_stmt_t *s, size_t n, const char *labels,
                                bool openmetrics, bool merged, size_t *len)
{
  out_t o = { .buf = malloc(4096), .len = 0, .cap = 4096, .oom = false, .om = openmetrics };
  if (o.buf == NULL)
    return NULL;
  o.buf[0] = '\0';
  family(&o, "bmk_statement_command", "gauge",
         "1 per pgbench script command: its script's name and first line (labels script and "
         "command: the indexes of the Statements block)");
  for (size_t k = 0; k < n; k++)
    stmt_info(&o, labels, &s[k]);
  family(&o, "bmk_statement_latency_seconds", "summary", merged
         ? "pgbench script commands' latencies over the measured time, seconds, merged over "
           "the processes (quantiles of the added HDR histograms; _count: the commands run)"
         : "pgbench script commands' latencies over the measured time so far, seconds "
           "(quantiles of the HDR histogram; _count: the commands run)");
  for (size_t k = 0; k < n; k++)
  {
    char cl[64];
    snprintf(cl, sizeof(cl), "script=\"%u\",command=\"%u\"", s[k].script, s[k].command);
    put(&o, "bmk_statement_latency_seconds{%s,%s,quantile=\"0.5\"} %.17g\n", labels, cl,
        s[k].p50_s);
    put(&o, "bmk_statement_latency_seconds{%s,%s,quantile=\"0.95\"} %.17g\n", labels, cl,
        s[k].p95_s);
    put(&o, "bmk_statement_latency_seconds{%s,%s,quantile=\"0.99\"} %.17g\n", labels, cl,
        s[k].p99_s);
    put(&o, "bmk_statement_latency_seconds_sum{%s,%s} %.17g\n", labels, cl, s[k].sum_s);
    put(&o, "bmk_statement_latency_seconds_count{%s,%s} %" PRIu64 "\n", labels, cl,
        s[k].count);
  }
  static const char *const ctr[2][2] = {
    { "bmk_statement_failures_total",
      "pgbench script commands whose transaction failed there after its last try" },
    { "bmk_statement_retries_total",
      "pgbench script commands whose error had their transaction tried again" } };
  for (int c = 0; c < 2; c++)
  {
    family(&o, ctr[c][0], "counter", ctr[c][1]);
    for (size_t k = 0; k < n; k++)
      put(&o, "%s{%s,script=\"%u\",command=\"%u\"} %" PRIu64 "\n", ctr[c][0], labels,
          s[k].script, s[k].command, c == 0 ? s[k].failures : s[k].retries);
  }
  if (o.oom)
  {
    free(o.buf);
    return NULL;
  }
  *len = o.len;
  return o.buf;
}

bool sb_prom_escape(char *dst, size_t cap, const char *v)
{
  size_t n = strlen(dst);
  for (; *v; v++)
  {
    const char *rep = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" : *v == '\n' ? "\\n" : NULL;
    size_t k = rep ? 2 : 1;
    if (n + k + 1 > cap)
      return false;
    if (rep)
      memcpy(dst + n, rep, 2);
    else
      dst[n] = *v;
    n += k;
  }
  dst[n] = '\0';
  return true;
}
