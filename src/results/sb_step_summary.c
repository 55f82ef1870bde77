/* A --results document's figures for `bmk capacity`; see sb_step_summary.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "results/sb_results_file.h"
#include "results/sb_step_summary.h"

/* Mean (ns) of `h`, each value at the middle of its bucket; NAN if empty. */
static double hdr_mean_ns(const sb_hdr_t *h)
{
  if (h->total == 0)
    return NAN;
  double sum = 0;
  uint32_t len = sb_hdr_counts_len(h);
  for (uint32_t i = 0; i < len; i++)
  {
    uint64_t c = sb_hdr_count_at(h, i);
    if (c)
      sum += (double) c * ((double) sb_hdr_value_lo(i) + (double) sb_hdr_value_hi(i)) / 2;
  }
  return sum / (double) h->total;
}

/* `h` at `pct` (or its mean for pct < 0) in ms; NAN when empty. */
static double hdr_ms(const sb_hdr_t *h, double pct)
{
  if (h->total == 0)
    return NAN;
  if (pct < 0)
    return hdr_mean_ns(h) / 1e6;
  return (double) sb_hdr_percentile(h, pct) / 1e6;
}

/* Fills the run percentiles from the document's run histogram. */
static int read_run_latency(const json_t *doc, sb_step_summary_t *o, char *err, size_t errlen)
{
  o->p50_ms = o->p90_ms = o->p95_ms = o->p99_ms = o->p999_ms = o->max_ms = NAN;
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
    return sb_errf(err, errlen, "out of memory");
  int rc = sb_results_file_add_hist(sb_json_at(doc, "histogram", NULL), h, err, errlen);
  if (rc == 1 && h->total > 0)
  {
    o->p50_ms = hdr_ms(h, 50);
    o->p90_ms = hdr_ms(h, 90);
    o->p95_ms = hdr_ms(h, 95);
    o->p99_ms = hdr_ms(h, 99);
    o->p999_ms = hdr_ms(h, 99.9);
    o->max_ms = hdr_ms(h, 100);
  }
  sb_hdr_free(h);
  return rc < 0 ? -1 : 0;
}

/* Backlog, running VUs and the per-interval samples from "intervals". */
static int read_intervals(const json_t *doc, double pct, sb_step_summary_t *o, char *err,
                          size_t errlen)
{
  const json_t *iv = sb_json_at(doc, "intervals", NULL);
  size_t n = json_array_size(iv);
  o->backlog_first = o->backlog_last = o->running_last = NAN;
  if (n == 0)
    return 0;
  o->backlog_first = sb_json_num(json_array_get(iv, 0), "queue_length", NULL);
  o->backlog_last = sb_json_num(json_array_get(iv, n - 1), "queue_length", NULL);
  o->running_last = sb_json_num(json_array_get(iv, n - 1), "threads_running", NULL);
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
    return sb_errf(err, errlen, "out of memory");
  for (size_t i = 0; i < n && o->nsamples < SB_STEP_MAX_SAMPLES; i++)
  {
    sb_hdr_reset(h);
    int rc = sb_results_file_add_hist(json_array_get(iv, i), h, err, errlen);
    if (rc < 0)
    {
      sb_hdr_free(h);
      return -1;
    }
    double v = rc == 1 ? hdr_ms(h, pct) : NAN;
    if (!isnan(v))
      o->samples[o->nsamples++] = v;
  }
  sb_hdr_free(h);
  return 0;
}

/* Server CPU per transaction and CPUs busy from server.cost, if measured. */
static void read_cost(const json_t *doc, sb_step_summary_t *o)
{
  o->server_cpu_us_per_tx = o->server_cpus = NAN;
  const json_t *cost = sb_json_at(doc, "server", "cost", NULL);
  double us = sb_json_num(cost, "server_cpu_us", NULL);
  double tx = sb_json_num(cost, "transactions", NULL);
  double win = sb_json_num(cost, "window_s", NULL);
  if (!isnan(us) && tx > 0)
    o->server_cpu_us_per_tx = us / tx;
  if (!isnan(us) && win > 0)
    o->server_cpus = us / 1e6 / win;
}

static double num_or0(double v) { return isnan(v) ? 0 : v; }

int sb_step_summary_read(const char *path, double pct, sb_step_summary_t *out, char *err,
                         size_t errlen)
{
  memset(out, 0, sizeof(*out));
  sb_results_file_t d;
  if (sb_results_file_load(path, &d, err, errlen) != 0)
    return -1;
  const json_t *doc = d.doc;
  out->tps = num_or0(sb_json_num(doc, "summary", "tps", NULL));
  out->events = (double) d.events;
  out->time_s = d.time_s;
  out->errors = num_or0(sb_json_num(doc, "summary", "errors", NULL));
  out->errors_per_s = d.time_s > 0 ? out->errors / d.time_s : 0;
  out->min_ms = sb_json_num(doc, "summary", "latency_ms", "min", NULL);
  out->avg_ms = sb_json_num(doc, "summary", "latency_ms", "avg", NULL);
  const char *rate = sb_json_str(doc, "manifest", "options", "rate", NULL);
  double r = 0;
  out->rate = rate && sscanf(rate, "%lf", &r) == 1 ? r : 0;
  out->vus = d.threads;
  out->completed = d.completed;
  out->client_saturated = d.client_saturated;
  read_cost(doc, out);
  int rc = read_run_latency(doc, out, err, errlen);
  if (rc == 0)
    rc = read_intervals(doc, pct, out, err, errlen);
  if (rc != 0)
  {
    char why[256];
    snprintf(why, sizeof(why), "%s", err);
    sb_errf(err, errlen, "%s: %s", path, why);
  }
  sb_results_file_free(&d);
  return rc;
}

double sb_step_pooled_ms(const char *const *paths, int n, double pct, char *err, size_t errlen)
{
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
  {
    sb_errf(err, errlen, "out of memory");
    return NAN;
  }
  double v = NAN;
  int i;
  for (i = 0; i < n; i++)
  {
    sb_results_file_t d;
    if (sb_results_file_load(paths[i], &d, err, errlen) != 0)
      break;
    int rc = sb_results_file_add_hist(sb_json_at(d.doc, "histogram", NULL), h, err, errlen);
    sb_results_file_free(&d);
    if (rc != 1)
    {
      if (rc == 0)
        sb_errf(err, errlen, "%s: no run histogram", paths[i]);
      break;
    }
  }
  if (i == n)
    v = hdr_ms(h, pct);
  sb_hdr_free(h);
  return v;
}
