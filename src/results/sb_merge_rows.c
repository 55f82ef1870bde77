/* Merging the rows of concurrent runs' documents (intervals, per-type
   rows); see sb_merge_priv.h. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_logger.h"
#include "results/sb_hdrlog.h"
#include "results/sb_merge_priv.h"
#include "results/sb_results_retry.h"

/* ---- histograms ---------------------------------------------------------- */

int sb_merge_add_hist(const sb_results_file_t *d, const json_t *holder, sb_hdr_t *h,
                      bool *missing, char *err, size_t errlen)
{
  char why[256];
  int rc = sb_results_file_add_hist(holder, h, why, sizeof(why));
  if (rc < 0)
    return sb_errf(err, errlen, "%s: %s", d->path, why);
  if (rc == 0)
    *missing = true;
  return 0;
}

static json_t *hdr_string(const sb_hdr_t *h)
{
  char *enc = sb_hdr_encode_v2_base64(h);
  json_t *s = enc ? json_string(enc) : json_null();
  free(enc);
  return s;
}

/* ---- intervals ----------------------------------------------------------- */

/* One slot of the wall-clock grid. */
typedef struct {
  bool used;
  uint64_t events, reads, writes, other, errors, reconnects, late, queue, concurrency;
  json_t *retry;                /* --max-tries: {retries, failures} summed, or NULL */
  uint64_t running;
  double lag_ms, max_ms;      /* highest of the runs' */
  json_t *types;              /* name -> {events, errors, rollbacks} */
  sb_hdr_t *hist;
  bool no_hist;               /* a row without its histogram */
  json_t *pct_fallback;       /* highest of the runs' percentiles, by key */
  sb_merge_stmt_rows_t *stmts; /* pgbench scripts' statements, or NULL */
} slot_t;

/* A row's count, or its rate times its length for files without counts. */
static uint64_t row_count(const json_t *row, const char *key, const char *rate_key)
{
  if (json_object_get(row, key))
    return count(row, key);
  double r = sb_json_num(row, rate_key, NULL), len = sb_json_num(row, "length_s", NULL);
  return r > 0 && len > 0 ? (uint64_t) llround(r * len) : 0;
}

static void slot_add_types(slot_t *s, const json_t *types)
{
  const char *name;
  const json_t *t;
  json_object_foreach((json_t *) types, name, t)
  {
    if (s->types == NULL)
      s->types = json_object();
    json_t *o = json_object_get(s->types, name);
    if (o == NULL)
    {
      o = json_pack("{s:I,s:I,s:I}", "events", (json_int_t) 0, "errors", (json_int_t) 0,
                    "rollbacks", (json_int_t) 0);
      json_object_set_new(s->types, name, o);
    }
    static const char *keys[] = { "events", "errors", "rollbacks" };
    for (int k = 0; k < 3; k++)
      json_object_set_new(o, keys[k], jcount(count(o, keys[k]) + count(t, keys[k])));
  }
}

static int slot_add(slot_t *s, const sb_results_file_t *d, const json_t *row, char *err, size_t errlen)
{
  if (s->hist == NULL && (s->hist = sb_hdr_new()) == NULL)
    return sb_errf(err, errlen, "out of memory");
  s->used = true;
  s->events += count(row, "events");
  s->reads += row_count(row, "reads", "reads_per_s");
  s->writes += row_count(row, "writes", "writes_per_s");
  s->other += row_count(row, "other", "other_per_s");
  s->errors += row_count(row, "errors", "errors_per_s");
  s->reconnects += row_count(row, "reconnects", "reconnects_per_s");
  s->late += count(row, "late_events");
  s->retry = sb_results_retry_merge(s->retry, row);
  s->queue += count(row, "queue_length");
  s->concurrency += count(row, "concurrency");
  s->running += count(row, "threads_running");
  s->lag_ms = fmax(s->lag_ms, fmax(0, sb_json_num(row, "schedule_lag_ms", NULL)));
  s->max_ms = fmax(s->max_ms, fmax(0, sb_json_num(row, "latency_ms", "max", NULL)));
  /* Files without interval histograms: the highest of the runs'
     percentiles, flagged by no_hist (never an average). */
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *) sb_json_at(row, "latency_ms", NULL), key, v)
  {
    if (s->pct_fallback == NULL)
      s->pct_fallback = json_object();
    double old = sb_json_num(s->pct_fallback, key, NULL);
    json_object_set_new(s->pct_fallback, key,
                        json_real(fmax(isnan(old) ? 0 : old, json_number_value(v))));
  }
  slot_add_types(s, json_object_get(row, "types"));
  if (sb_merge_stmt_rows_add(&s->stmts, d, json_object_get(row, "statements"), err,
                             errlen) != 0)
    return -1;
  return sb_merge_add_hist(d, row, s->hist, &s->no_hist, err, errlen);
}

static json_t *slot_json(slot_t *s, double end_s, double len, const json_t *pct_keys)
{
  json_t *row = json_object();
  json_object_set_new(row, "time_s", json_real(end_s));
  json_object_set_new(row, "length_s", json_real(len));
  json_object_set_new(row, "threads_running", jcount(s->running));
  json_object_set_new(row, "events", jcount(s->events));
  json_object_set_new(row, "tps", json_real(rate((double) s->events, len)));
  json_object_set_new(row, "qps", json_real(rate((double) (s->reads + s->writes + s->other), len)));
  json_object_set_new(row, "reads_per_s", json_real(rate((double) s->reads, len)));
  json_object_set_new(row, "writes_per_s", json_real(rate((double) s->writes, len)));
  json_object_set_new(row, "other_per_s", json_real(rate((double) s->other, len)));
  json_object_set_new(row, "reads", jcount(s->reads));
  json_object_set_new(row, "writes", jcount(s->writes));
  json_object_set_new(row, "other", jcount(s->other));
  json_object_set_new(row, "errors", jcount(s->errors));
  json_object_set_new(row, "reconnects", jcount(s->reconnects));
  json_object_set_new(row, "errors_per_s", json_real(rate((double) s->errors, len)));
  json_object_set_new(row, "reconnects_per_s", json_real(rate((double) s->reconnects, len)));
  json_t *lat = json_object();
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *) pct_keys, key, v)
  {
    (void) v;
    if (strcmp(key, "max") == 0)
      continue;
    double val = s->no_hist ? sb_json_num(s->pct_fallback, key, NULL)
                            : (double) sb_hdr_percentile(s->hist, key_pct(key)) / 1e6;
    json_object_set_new(lat, key, json_real(isnan(val) ? 0 : val));
  }
  json_object_set_new(lat, "max", json_real(s->no_hist ? s->max_ms
                                            : (double) sb_hdr_max(s->hist) / 1e6));
  json_object_set_new(row, "latency_ms", lat);
  json_object_set_new(row, "queue_length", jcount(s->queue));
  json_object_set_new(row, "concurrency", jcount(s->concurrency));
  json_object_set_new(row, "schedule_lag_ms", json_real(s->lag_ms));
  json_object_set_new(row, "late_events", jcount(s->late));
  if (s->retry)
    sb_results_retry_interval_from(row, s->retry);
  json_object_set_new(row, "hdr_v2_compressed_base64", s->no_hist ? json_null()
                                                                 : hdr_string(s->hist));
  if (s->types)
  {
    json_object_foreach(s->types, key, v)
      json_object_set_new((json_t *) v, "tps", json_real(rate((double) count(v, "events"), len)));
    json_object_set_new(row, "types", json_incref(s->types));
  }
  if (s->stmts)
    json_object_set_new(row, "statements", sb_merge_stmt_rows_json(s->stmts));
  return row;
}

/* The interval length shared by the runs (--report-interval, else the
   1 s rows written for result files). */
static double interval_len(const sb_results_file_t *d)
{
  double v = strtod(opt(d, "report_interval"), NULL);
  return v > 0 ? v : 1.0;
}

json_t *sb_merge_intervals(const sb_results_file_t *d, unsigned n, double base, char *err,
                           size_t errlen)
{
  double len = interval_len(&d[0]);
  size_t nslots = 0;
  for (unsigned i = 0; i < n; i++)
  {
    double end = d[i].start_epoch_s - base + d[i].time_s;
    size_t k = (size_t) llround(end / len) + 2;
    if (k > nslots)
      nslots = k;
  }
  slot_t *slots = calloc(nslots, sizeof(slot_t));
  json_t *out = slots ? json_array() : NULL;
  int rc = slots ? 0 : sb_errf(err, errlen, "out of memory");
  for (unsigned i = 0; rc == 0 && i < n; i++)
  {
    size_t j;
    const json_t *row;
    json_array_foreach(json_object_get(d[i].doc, "intervals"), j, row)
    {
      double end = d[i].start_epoch_s - base + sb_json_num(row, "time_s", NULL);
      long k = isnan(end) ? -1 : lround(end / len);
      if (k < 1 || (size_t) k >= nslots)
        continue;
      if ((rc = slot_add(&slots[k], &d[i], row, err, errlen)) != 0)
        break;
    }
  }
  const json_t *keys = sb_json_at(json_array_get(json_object_get(d[0].doc, "intervals"), 0),
                                  "latency_ms", NULL);
  for (size_t k = 0; k < nslots; k++)
  {
    if (rc == 0 && slots[k].used)
      json_array_append_new(out, slot_json(&slots[k], (double) k * len, len, keys));
    sb_hdr_free(slots[k].hist);
    json_decref(slots[k].types);
    json_decref(slots[k].retry);
    json_decref(slots[k].pct_fallback);
    sb_merge_stmt_rows_free(slots[k].stmts);
  }
  free(slots);
  if (rc != 0)
  {
    json_decref(out);
    return NULL;
  }
  return out;
}

/* ---- event types ----------------------------------------------------------- */

static json_t *merge_type(const sb_results_file_t *d, unsigned n, const char *name, double t,
                          char *err, size_t errlen)
{
  uint64_t ev = 0, er = 0, rb = 0, late = 0;
  double mn = INFINITY, mx = 0, sum = 0, p50 = 0, p95 = 0, p99 = 0;
  bool missing = false;
  sb_hdr_t *h = sb_hdr_new();
  for (unsigned i = 0; h && i < n; i++)
  {
    size_t j;
    const json_t *r;
    json_array_foreach(json_object_get(d[i].doc, "event_types"), j, r)
    {
      if (strcmp(sb_json_str(r, "name", NULL), name) != 0)
        continue;
      uint64_t e = count(r, "events");
      ev += e;
      er += count(r, "errors");
      rb += count(r, "rollbacks");
      late += count(r, "late_events");
      const json_t *l = json_object_get(r, "latency_ms");
      sum += (double) e * fmax(0, sb_json_num(l, "avg", NULL));
      mn = fmin(mn, sb_json_num(l, "min", NULL));
      mx = fmax(mx, sb_json_num(l, "max", NULL));
      p50 = fmax(p50, sb_json_num(l, "p50", NULL));
      p95 = fmax(p95, sb_json_num(l, "p95", NULL));
      p99 = fmax(p99, sb_json_num(l, "p99", NULL));
      if (sb_merge_add_hist(&d[i], r, h, &missing, err, errlen) != 0)
      {
        sb_hdr_free(h);
        return NULL;
      }
    }
  }
  if (h == NULL)
    return sb_errf(err, errlen, "out of memory"), NULL;
  if (!missing)
  {
    p50 = (double) sb_hdr_percentile(h, 50) / 1e6;
    p95 = (double) sb_hdr_percentile(h, 95) / 1e6;
    p99 = (double) sb_hdr_percentile(h, 99) / 1e6;
  }
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(name));
  json_object_set_new(o, "events", jcount(ev));
  json_object_set_new(o, "tps", json_real(rate((double) ev, t)));
  json_object_set_new(o, "errors", jcount(er));
  json_object_set_new(o, "rollbacks", jcount(rb));
  json_object_set_new(o, "late_events", jcount(late));
  json_object_set_new(o, "hdr_v2_compressed_base64", missing ? json_null() : hdr_string(h));
  json_object_set_new(o, "latency_ms",
                      json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "min", isfinite(mn) ? mn : 0.0,
                                "avg", ev ? sum / (double) ev : 0.0, "p50", p50, "p95", p95,
                                "p99", p99, "max", mx));
  sb_hdr_free(h);
  return o;
}

json_t *sb_merge_types(const sb_results_file_t *d, unsigned n, double t, char *err,
                       size_t errlen)
{
  json_t *names = json_array(), *out = json_array();
  for (unsigned i = 0; i < n; i++)
  {
    size_t j, k;
    const json_t *r, *x;
    json_array_foreach(json_object_get(d[i].doc, "event_types"), j, r)
    {
      const char *name = sb_json_str(r, "name", NULL);
      bool seen = name == NULL;
      json_array_foreach(names, k, x)
        seen |= !seen && strcmp(json_string_value(x), name) == 0;
      if (!seen)
        json_array_append_new(names, json_string(name));
    }
  }
  size_t j;
  const json_t *x;
  json_array_foreach(names, j, x)
  {
    json_t *o = merge_type(d, n, json_string_value(x), t, err, errlen);
    if (o == NULL)
    {
      json_decref(out);
      out = NULL;
      break;
    }
    json_array_append_new(out, o);
  }
  json_decref(names);
  return out;
}
