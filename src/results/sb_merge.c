/* Merging result documents of concurrent runs; see sb_merge.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_logger.h"
#include "results/sb_hdrlog.h"
#include "results/sb_merge.h"
#include "results/sb_merge_figures.h"
#include "results/sb_merge_priv.h"
#include "results/sb_results.h"
#include "results/sb_results_manifest.h"
#include "results/sb_results_retry.h"

/* Runs whose starts differ by more than this were probably not released
   together; the merge still works but says so. */
#define START_SKEW_NOTE_S 1.0

/* ---- checks ------------------------------------------------------------ */

/* UTC "hh:mm:ss.mmm" of an epoch time, for messages. */
static void clock_text(double epoch_s, char *buf, size_t len)
{
  time_t t = (time_t) epoch_s;
  struct tm tm;
  gmtime_r(&t, &tm);
  snprintf(buf, len, "%02d:%02d:%06.3f", tm.tm_hour, tm.tm_min,
           tm.tm_sec + (epoch_s - floor(epoch_s)));
}

static int check_mergeable(const sb_results_file_t *d, unsigned n, char *err, size_t errlen)
{
  if (n < 2)
    return sb_errf(err, errlen, "--merge needs the result files of at least two runs");
  for (unsigned i = 1; i < n; i++)
  {
    for (unsigned j = 0; j < i; j++)
      if (strcmp(d[i].path, d[j].path) == 0)
        return sb_errf(err, errlen, "%s is given twice", d[i].path);
    if (strcmp(d[i].test, d[0].test) != 0)
      return sb_errf(err, errlen, "%s is a run of '%s' and %s of '%s': --merge combines runs "
                  "of one test that ran at the same time", d[0].path, d[0].test, d[i].path,
                  d[i].test);
    if ((d[i].driver == NULL) != (d[0].driver == NULL) ||
        (d[i].driver && strcmp(d[i].driver, d[0].driver) != 0))
      return sb_errf(err, errlen, "%s ran against %s and %s against %s: --merge combines runs "
                  "of one test against one database driver", d[0].path, d[0].driver ? d[0].driver : "no database",
                  d[i].path, d[i].driver ? d[i].driver : "no database");
    if (strcmp(opt(&d[i], "report_interval"), opt(&d[0], "report_interval")) != 0)
      return sb_errf(err, errlen, "%s has --report-interval=%s and %s --report-interval=%s: "
                  "interval rows of different lengths cannot be summed", d[0].path,
                  opt(&d[0], "report_interval"), d[i].path, opt(&d[i], "report_interval"));
  }
  /* The measured windows must overlap: [start, start + time]. */
  unsigned late = 0, early = 0;
  for (unsigned i = 1; i < n; i++)
  {
    if (d[i].start_epoch_s > d[late].start_epoch_s)
      late = i;
    if (d[i].start_epoch_s + d[i].time_s < d[early].start_epoch_s + d[early].time_s)
      early = i;
  }
  if (d[late].start_epoch_s >= d[early].start_epoch_s + d[early].time_s)
  {
    char a[32], b[32], c[32];
    clock_text(d[early].start_epoch_s, a, sizeof(a));
    clock_text(d[early].start_epoch_s + d[early].time_s, b, sizeof(b));
    clock_text(d[late].start_epoch_s, c, sizeof(c));
    return sb_errf(err, errlen, "%s (measured %s-%s UTC) and %s (from %s UTC) did not run at "
                "the same time: --merge combines concurrent runs (start them on one "
                "--sync-file, or at one time)", d[early].path, a, b, d[late].path, c);
  }
  return 0;
}

/* ---- summary ----------------------------------------------------------- */

/* Sums summary.metrics.<name>.total over the runs (workload metrics). */
static json_t *merge_metrics(const sb_results_file_t *d, unsigned n, double t)
{
  json_t *m = NULL;
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *src = sb_json_at(d[i].doc, "summary", "metrics", NULL);
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *) src, name, v)
    {
      double total = sb_json_num(v, "total", NULL);
      if (isnan(total))
        continue;
      if (m == NULL)
        m = json_object();
      json_t *o = json_object_get(m, name);
      if (o == NULL)
      {
        o = json_object();
        json_object_set_new(o, "total", json_real(0));
        json_object_set_new(m, name, o);
      }
      double sum = json_real_value(json_object_get(o, "total")) + total;
      json_object_set_new(o, "total", json_real(sum));
      json_object_set_new(o, "per_sec", json_real(rate(sum, t)));
    }
  }
  return m;
}

/* Pools per-run means and population standard deviations of `threads`
   values each into the mean and deviation of all the values. */
static void pool(const sb_results_file_t *d, unsigned n, const char *avg_key, const char *sd_key,
                 double *avg, double *sd)
{
  double cnt = 0, sum = 0, sq = 0;
  for (unsigned i = 0; i < n; i++)
  {
    double k = d[i].threads;
    double m = sb_json_num(d[i].doc, "summary", "fairness", avg_key, NULL);
    double s = sb_json_num(d[i].doc, "summary", "fairness", sd_key, NULL);
    if (isnan(m) || isnan(s))
      continue;
    cnt += k;
    sum += k * m;
    sq += k * (s * s + m * m);
  }
  *avg = cnt > 0 ? sum / cnt : 0;
  *sd = cnt > 0 ? sqrt(fmax(0, sq / cnt - *avg * *avg)) : 0;
}

static json_t *merge_latency(const sb_results_file_t *d, unsigned n, const sb_hdr_t *h,
                             uint64_t events)
{
  double mn = INFINITY, mx = 0, sum = 0;
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *l = sb_json_at(d[i].doc, "summary", "latency_ms", NULL);
    sum += fmax(0, sb_json_num(l, "sum", NULL));
    if (d[i].events == 0)
      continue;
    mn = fmin(mn, sb_json_num(l, "min", NULL));
    mx = fmax(mx, sb_json_num(l, "max", NULL));
  }
  json_t *lat = json_object();
  json_object_set_new(lat, "min", json_real(isfinite(mn) ? mn : 0));
  json_object_set_new(lat, "avg", json_real(events ? sum / (double) events : 0));
  json_object_set_new(lat, "max", json_real(mx));
  json_object_set_new(lat, "sum", json_real(sum));
  json_t *pct = json_object();
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *) sb_json_at(d[0].doc, "summary", "latency_ms", "percentiles",
                                            NULL), key, v)
  {
    (void) v;
    json_object_set_new(pct, key, json_real((double) sb_hdr_percentile(h, key_pct(key)) / 1e6));
  }
  json_object_set_new(lat, "percentiles", pct);
  return lat;
}

static json_t *merge_summary(const sb_results_file_t *d, unsigned n, const sb_hdr_t *h, double t)
{
  uint64_t ev = 0, rd = 0, wr = 0, ot = 0, er = 0, rc = 0, late = 0, threads = 0;
  json_t *retry = NULL;
  int exit_code = 0;
  const char *reason = NULL;
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *s = sb_json_at(d[i].doc, "summary", NULL);
    const json_t *q = json_object_get(s, "queries");
    ev += count(s, "events");
    rd += count(q, "read");
    wr += count(q, "write");
    ot += count(q, "other");
    er += count(s, "errors");
    rc += count(s, "reconnects");
    late += count(s, "late_events");
    retry = sb_results_retry_merge(retry, json_object_get(s, "retries"));
    threads += d[i].threads;
    double x = sb_json_num(s, "exit_code", NULL);
    if (!isnan(x) && (int) x > exit_code)
      exit_code = (int) x;
    if (reason == NULL && !d[i].completed)
      reason = d[i].interrupted ? d[i].interrupted : "not completed";
  }
  json_t *s = json_object();
  json_object_set_new(s, "completed", json_boolean(reason == NULL));
  json_object_set_new(s, "interrupted_reason", reason ? json_string(reason) : json_null());
  json_object_set_new(s, "exit_code", json_integer(exit_code));
  json_object_set_new(s, "time_s", json_real(t));
  json_object_set_new(s, "threads", jcount(threads));
  json_object_set_new(s, "events", jcount(ev));
  json_object_set_new(s, "tps", json_real(rate((double) ev, t)));
  json_t *q = json_object();
  json_object_set_new(q, "read", jcount(rd));
  json_object_set_new(q, "write", jcount(wr));
  json_object_set_new(q, "other", jcount(ot));
  json_object_set_new(q, "total", jcount(rd + wr + ot));
  json_object_set_new(s, "queries", q);
  json_object_set_new(s, "qps", json_real(rate((double) (rd + wr + ot), t)));
  json_object_set_new(s, "errors", jcount(er));
  json_object_set_new(s, "reconnects", jcount(rc));
  json_object_set_new(s, "late_events", jcount(late));
  if (retry)
    json_object_set_new(s, "retries", retry);
  json_object_set_new(s, "latency_ms", merge_latency(d, n, h, ev));
  json_t *fair = json_object();
  double avg, sd;
  pool(d, n, "events_avg", "events_stddev", &avg, &sd);
  json_object_set_new(fair, "events_avg", json_real(avg));
  json_object_set_new(fair, "events_stddev", json_real(sd));
  pool(d, n, "execution_time_avg_s", "execution_time_stddev_s", &avg, &sd);
  json_object_set_new(fair, "execution_time_avg_s", json_real(avg));
  json_object_set_new(fair, "execution_time_stddev_s", json_real(sd));
  json_object_set_new(s, "fairness", fair);
  json_t *m = merge_metrics(d, n, t);
  if (m)
    json_object_set_new(s, "metrics", m);
  return s;
}

/* ---- server and manifest ----------------------------------------------------- */

/* The merged run's cost block: the server's figures are those of the
   longest window (one server measured by each process), the client's CPU
   and the transactions and queries are the sums over the runs, and every
   per-transaction and per-query figure is recomputed from those totals
   (a figure without its total is dropped). */
static void rescale_cost(json_t *cost, const sb_results_file_t *d, unsigned n, uint64_t events)
{
  double queries = 0, cu = 0, cs = 0;
  bool have_client = true;
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *c = json_object_get(json_object_get(d[i].doc, "server"), "cost");
    double q = sb_json_num(c, "queries", NULL);
    queries += isnan(q) ? 0 : q;
    double u = sb_json_num(c, "client_cpu_s", "user", NULL);
    double y = sb_json_num(c, "client_cpu_s", "system", NULL);
    if (isnan(u) || isnan(y))
      have_client = false;
    else
    {
      cu += u;
      cs += y;
    }
  }
  json_object_set_new(cost, "transactions", jcount(events));
  json_object_set_new(cost, "queries", jcount((uint64_t) queries));
  if (have_client)
    json_object_set_new(cost, "client_cpu_s", json_pack("{s:f,s:f,s:f}", "user", cu, "system",
                                                        cs, "total", cu + cs));
  else
    json_object_del(cost, "client_cpu_s");
  double totals[3] = { sb_json_num(cost, "server_cpu_us", NULL),
                       sb_json_num(cost, "instructions", NULL),
                       have_client ? (cu + cs) * 1e6 : NAN };
  static const char *keys[3] = { "server_cpu_us", "instructions", "client_cpu_us" };
  static const char *per_keys[2] = { "per_transaction", "per_query" };
  double dens[2] = { (double) events, queries };
  for (int p = 0; p < 2; p++)
  {
    json_t *per = json_object_get(cost, per_keys[p]);
    if (per == NULL)
      continue;
    for (int k = 0; k < 3; k++)
    {
      if (isnan(totals[k]) || dens[p] <= 0)
        json_object_del(per, keys[k]);
      else
        json_object_set_new(per, keys[k], json_real(totals[k] / dens[p]));
    }
  }
}

static json_t *merge_server(const sb_results_file_t *d, unsigned n, uint64_t events)
{
  int best = -1;
  double window = -1;
  uint64_t stmts = 0;
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *s = json_object_get(d[i].doc, "server");
    double w = sb_json_num(s, "window_s", NULL);
    if (!json_is_object(s) || isnan(w))
      continue;
    stmts += count(s, "client_statements");
    if (w > window)
    {
      window = w;
      best = (int) i;
    }
  }
  if (best < 0)
    return json_null();
  json_t *s = json_deep_copy(json_object_get(d[best].doc, "server"));
  json_object_set_new(s, "client_events", jcount(events));
  json_object_set_new(s, "client_statements", jcount(stmts));
  json_t *cost = json_object_get(s, "cost");
  if (json_is_object(cost))
    rescale_cost(cost, d, n, events);
  return s;
}

static json_t *merge_manifest(const sb_results_file_t *d, unsigned n, double base)
{
  json_t *m = json_deep_copy(json_object_get(d[0].doc, "manifest"));
  json_object_set_new(m, "start_epoch_s", json_real(base));
  json_object_set_new(m, "start_epoch_us", json_integer((json_int_t) llround(base * 1e6)));
  char iso[64];
  sb_results_iso_time(base, iso, sizeof(iso));
  json_object_set_new(m, "start_time", json_string(iso));
  char hosts[1024] = "";
  json_t *from = json_array();
  for (unsigned i = 0; i < n; i++)
  {
    bool seen = false;            /* whole names: db1 is not in db10 */
    for (unsigned j = 0; j < i && !seen; j++)
      seen = strcmp(d[j].host, d[i].host) == 0;
    if (!seen || !d[i].host[0])
      snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s",
               hosts[0] ? "," : "", d[i].host);
    json_array_append_new(from, json_pack("{s:s,s:s,s:I,s:I,s:I,s:f}", "file", d[i].path,
                                          "host", d[i].host, "start_epoch_us",
                                          (json_int_t) llround(d[i].start_epoch_s * 1e6),
                                          "threads", (json_int_t) d[i].threads, "events",
                                          (json_int_t) d[i].events, "time_s", d[i].time_s));
    if (d[i].series_id == NULL || d[0].series_id == NULL ||
        strcmp(d[i].series_id, d[0].series_id) != 0)
      json_object_set_new(m, "series_id", json_null());
  }
  json_object_set_new(m, "host", json_string(hosts));
  json_object_set_new(m, "merged_from", from);
  return m;
}

/* ---- entry points ------------------------------------------------------------- */

/* Merged rows whose percentiles are an upper bound: their histogram is
   null because an input row lacked one. */
static size_t null_hdr_rows(const json_t *rows)
{
  size_t i, k = 0;
  const json_t *r;
  json_array_foreach((json_t *) rows, i, r)
  {
    const json_t *h = json_object_get(r, "hdr_v2_compressed_base64");
    k += h != NULL && json_is_null(h);
  }
  return k;
}

json_t *sb_merge_docs(const sb_results_file_t *d, unsigned n, char *note, size_t notelen,
                      char *err, size_t errlen)
{
  if (note && notelen)
    note[0] = '\0';
  if (check_mergeable(d, n, err, errlen) != 0)
    return NULL;
  double base = d[0].start_epoch_s, last = base, t = 0;
  for (unsigned i = 0; i < n; i++)
  {
    base = fmin(base, d[i].start_epoch_s);
    last = fmax(last, d[i].start_epoch_s);
    t = fmax(t, d[i].time_s);
  }
  if (note && last - base > START_SKEW_NOTE_S)
    snprintf(note, notelen, "the runs started up to %.2f s apart; runs released together "
             "(one --sync-file) start within milliseconds", last - base);
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
    return sb_errf(err, errlen, "out of memory"), NULL;
  bool missing = false;
  for (unsigned i = 0; i < n; i++)
    if (sb_merge_add_hist(&d[i], json_object_get(d[i].doc, "histogram"), h, &missing, err, errlen))
    {
      sb_hdr_free(h);
      return NULL;
    }
  if (missing)
  {
    sb_hdr_free(h);
    return sb_errf(err, errlen, "a file has no latency histogram: percentiles cannot be "
                "merged exactly"), NULL;
  }
  json_t *intervals = sb_merge_intervals(d, n, base, err, errlen);
  json_t *types = intervals ? sb_merge_types(d, n, t, err, errlen) : NULL;
  if (types == NULL)
  {
    json_decref(intervals);
    sb_hdr_free(h);
    return NULL;
  }
  size_t approx_iv = null_hdr_rows(intervals), approx_ty = null_hdr_rows(types);
  if (note && (approx_iv || approx_ty))
    snprintf(note + strlen(note), notelen - strlen(note),
             "%s%zu of %zu interval rows and %zu of %zu per-type rows come from files "
             "without their histograms (written before bmk stored them): their "
             "percentiles are the highest of the runs' (an upper bound), not exact",
             note[0] ? "\nNOTE: " : "", approx_iv, json_array_size(intervals), approx_ty,
             json_array_size(types));
  size_t approx_st = 0;
  err[0] = '\0';
  json_t *stmts = sb_merge_statements(d, n, &approx_st, err, errlen);
  if (stmts == NULL && err[0])
  {
    json_decref(intervals);
    json_decref(types);
    sb_hdr_free(h);
    return NULL;
  }
  if (note && approx_st)
    snprintf(note + strlen(note), notelen - strlen(note),
             "%s%zu of %zu statements come from files without their histograms: their "
             "percentiles are the highest of the runs' (an upper bound), not exact",
             note[0] ? "\nNOTE: " : "", approx_st, json_array_size(stmts));
  json_t *doc = json_object();
  json_object_set_new(doc, "format", json_string("bmk-results"));
  json_object_set_new(doc, "format_version", json_integer(1));
  json_object_set_new(doc, "manifest", merge_manifest(d, n, base));
  json_object_set_new(doc, "intervals", intervals);
  json_object_set_new(doc, "event_types", types);
  json_t *summary = merge_summary(d, n, h, t);
  json_t *figures = sb_merge_figures(d, n, t, note, notelen);
  if (figures)
    json_object_set_new(summary, "figures", figures);
  json_object_set_new(doc, "server", merge_server(d, n, count(summary, "events")));
  json_object_set_new(doc, "summary", summary);
  json_object_set_new(doc, "histogram", sb_results_histogram_json(h));
  if (stmts)
    json_object_set_new(doc, "statements", stmts);
  sb_hdr_free(h);
  return doc;
}

int sb_merge_write(const json_t *doc, const char *path, char *err, size_t errlen)
{
  size_t len = strlen(path) + 16;
  char *tmp = malloc(len);
  if (tmp == NULL)
    return sb_errf(err, errlen, "out of memory");
  snprintf(tmp, len, "%s.tmp", path);
  int rc = 0;
  if (json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
      rename(tmp, path) != 0)
  {
    rc = sb_errf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return rc;
}

static void fill_totals(const json_t *doc, unsigned n, sb_merge_totals_t *t)
{
  const json_t *s = json_object_get(doc, "summary");
  t->runs = n;
  t->threads = (unsigned) count(s, "threads");
  t->time_s = sb_json_num(s, "time_s", NULL);
  t->events = (double) count(s, "events");
  t->tps = sb_json_num(s, "tps", NULL);
  t->qps = sb_json_num(s, "qps", NULL);
  const json_t *q = json_object_get(s, "queries");
  t->reads_s = rate((double) count(q, "read"), t->time_s);
  t->writes_s = rate((double) count(q, "write"), t->time_s);
  t->other_s = rate((double) count(q, "other"), t->time_s);
  t->errors_s = rate((double) count(s, "errors"), t->time_s);
  t->reconnects_s = rate((double) count(s, "reconnects"), t->time_s);
  t->avg_ms = sb_json_num(s, "latency_ms", "avg", NULL);
  const char *p = sb_json_str(doc, "manifest", "options", "percentile", NULL);
  t->percentile = p ? (unsigned) atoi(p) : 0;
  t->pct_ms = 0;
  if (t->percentile)
  {
    char key[16];
    snprintf(key, sizeof(key), "%u", t->percentile);
    double v = sb_json_num(s, "latency_ms", "percentiles", key, NULL);
    t->pct_ms = isnan(v) ? 0 : v;
  }
}

int sb_merge_files(const char *const *paths, unsigned n, const char *out_path,
                   sb_merge_totals_t *t)
{
  memset(t, 0, sizeof(*t));
  sb_results_file_t *d = calloc(n ? n : 1, sizeof(sb_results_file_t));
  if (d == NULL)
    return sb_errf(t->error, sizeof(t->error), "out of memory");
  int rc = 0;
  for (unsigned i = 0; rc == 0 && i < n; i++)
    rc = sb_results_file_load(paths[i], &d[i], t->error, sizeof(t->error));
  json_t *doc = rc == 0 ? sb_merge_docs(d, n, NULL, 0, t->error, sizeof(t->error)) : NULL;
  if (doc == NULL)
    rc = -1;
  else
  {
    fill_totals(doc, n, t);
    if (out_path && *out_path)
      rc = sb_merge_write(doc, out_path, t->error, sizeof(t->error));
  }
  json_decref(doc);
  for (unsigned i = 0; i < n; i++)
    sb_results_file_free(&d[i]);
  free(d);
  return rc;
}
