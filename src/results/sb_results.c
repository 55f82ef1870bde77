/* --results JSON and --hdr-log files; see sb_results.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "results/sb_hdrlog.h"
#include "core/sb_logger.h"
#include "core/sb_figure.h"
#include "core/sb_metric.h"
#include "results/sb_results.h"
#include "results/sb_results_client.h"
#include "results/sb_results_manifest.h"
#include "results/sb_results_retry.h"
#include "results/sb_results_extra.h"
#include "results/sb_results_server.h"
#include "results/sb_results_spans.h"
#include "endpoints/sb_endpoint_results.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* --save: the document is built even without --results and kept for
   sb_results_document() */
static bool keep_document;
static json_t *kept;
static json_t *thresholds;      /* --threshold verdicts, or NULL */
static char *json_path;
static sb_hdrlog_t *hdrlog;
static bool hdrlog_opened;      /* opened once (never truncated again) */
static char *hdrlog_path;
static json_t *intervals;
static double start_epoch;
static bool finished;
static sb_hdr_t *logged;        /* sum of the intervals in the HDR log */
static double logged_end_s;     /* end of the last logged interval */
static sb_evtype_stat_t *logged_types;  /* same, per event type */

int sb_results_check_writable(const char *opt, const char *path)
{
  {
    /* Fail now, not after an hour of benchmarking; but create nothing
       yet, so a run that never starts leaves no empty file behind. */
    char *dir = strdup(path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
      strcpy(dir, ".");
    else if (slash == dir)
      dir[1] = '\0';
    else
      *slash = '\0';
    int ok = access(path, F_OK) == 0 ? access(path, W_OK) == 0 : access(dir, W_OK) == 0;
    int err = errno;
    free(dir);
    if (!ok)
    {
      log_text(LOG_FATAL, "%s: cannot write '%s': %s", opt, path, strerror(err));
      return -1;
    }
  }
  return 0;
}

int sb_results_open(const char *jpath, const char *hpath)
{
  if (jpath && sb_results_check_writable("--results", jpath) != 0)
    return -1;
  if (hpath && sb_results_check_writable("--hdr-log", hpath) != 0)
    return -1;
  if (jpath)
    json_path = strdup(jpath);
  if (hpath)
    hdrlog_path = strdup(hpath);
  intervals = json_array();
  return 0;
}

bool sb_results_enabled(void)
{
  return json_path != NULL || hdrlog_path != NULL;
}

/* Creates the HDR log once (caller holds the lock). */
static void open_hdrlog(void)
{
  if (hdrlog_path == NULL || hdrlog_opened)
    return;
  hdrlog_opened = true;
  hdrlog = sb_hdrlog_open(hdrlog_path, start_epoch);
  if (hdrlog == NULL)
    log_text(LOG_ALERT, "--hdr-log: cannot create '%s': %s", hdrlog_path, strerror(errno));
}

void sb_results_start(double epoch_s)
{
  pthread_mutex_lock(&lock);
  start_epoch = epoch_s;
  open_hdrlog();
  pthread_mutex_unlock(&lock);
}

double sb_results_start_epoch(void)
{
  return start_epoch;
}

static double ms(double seconds)
{
  return seconds * 1000.0;
}

static double rate(uint64_t n, double s)
{
  return s > 0 ? (double) n / s : 0.0;
}

/* {name: count} of the workload metrics in `st` (an interval's sums). */
static json_t *metrics_counts_json(const sb_stat_t *st)
{
  json_t *o = json_object();
  for (unsigned i = 0; i < st->nmetrics; i++)
    json_object_set_new(o, sb_metric_name((int) i), json_integer((json_int_t) st->metrics[i]));
  return o;
}

json_t *sb_results_figures_json(double window_s)
{
  sb_figure_t f[SB_FIGURE_MAX];
  unsigned n = sb_figure_list(f, SB_FIGURE_MAX);
  if (n == 0)
    return NULL;
  json_t *o = json_object();
  for (unsigned i = 0; i < n; i++)
  {
    json_t *x = json_object();
    json_object_set_new(x, "value", json_real(sb_figure_shown(&f[i], window_s)));
    json_object_set_new(x, "per_minute", json_boolean(f[i].per_minute));
    if (f[i].per_minute)
      json_object_set_new(x, "count", json_real(f[i].value));
    json_object_set_new(x, "help", json_string(f[i].help));
    json_object_set_new(x, "scope", json_string(f[i].server ? "server" : "client"));
    json_object_set_new(o, f[i].name, x);
  }
  return o;
}

/* {name: {total, per_sec}} of the workload metrics over the run. */
static json_t *metrics_summary_json(const sb_stat_t *st)
{
  json_t *o = json_object();
  for (unsigned i = 0; i < st->nmetrics; i++)
  {
    json_t *m = json_object();
    json_object_set_new(m, "total", json_integer((json_int_t) st->metrics[i]));
    json_object_set_new(m, "per_sec", json_real(rate(st->metrics[i], st->time_total)));
    json_object_set_new(o, sb_metric_name((int) i), m);
  }
  return o;
}

static json_t *type_interval_json(const sb_evtype_stat_t *t, double len_s)
{
  json_t *o = json_object();
  json_object_set_new(o, "events", json_integer((json_int_t) t->events));
  json_object_set_new(o, "tps", json_real(rate(t->events, len_s)));
  json_object_set_new(o, "errors", json_integer((json_int_t) t->errors));
  json_object_set_new(o, "rollbacks", json_integer((json_int_t) t->rollbacks));
  if (t->hist)
  {
    json_object_set_new(o, "p50_ms", json_real((double) sb_hdr_percentile(t->hist, 50) / 1e6));
    json_object_set_new(o, "p95_ms", json_real((double) sb_hdr_percentile(t->hist, 95) / 1e6));
    json_object_set_new(o, "p99_ms", json_real((double) sb_hdr_percentile(t->hist, 99) / 1e6));
    json_object_set_new(o, "max_ms", json_real((double) sb_hdr_max(t->hist) / 1e6));
  }
  return o;
}

/* The interval's row of the document: counts and rates over `x->len_s`
   seconds, percentiles in ms, its histogram, per-type numbers when
   several types ran. Caller holds the lock. */
static json_t *interval_row_json(const sb_stat_t *st, const sb_hdr_t *h,
                                 const sb_evtype_stat_t *types,
                                 const sb_interval_extra_t *x)
{
  double len = x->len_s;
  json_t *row = json_object();
  json_object_set_new(row, "time_s", json_real(x->start_s + len));
  json_object_set_new(row, "length_s", json_real(len));
  json_object_set_new(row, "threads_running", json_integer(st->threads_running));
  json_object_set_new(row, "events", json_integer((json_int_t) st->events));
  json_object_set_new(row, "tps", json_real(rate(st->events, len)));
  json_object_set_new(row, "qps", json_real(rate(st->reads + st->writes + st->other, len)));
  json_object_set_new(row, "reads_per_s", json_real(rate(st->reads, len)));
  json_object_set_new(row, "writes_per_s", json_real(rate(st->writes, len)));
  json_object_set_new(row, "other_per_s", json_real(rate(st->other, len)));
  json_t *lag = sb_endpoint_results_lag_json();
  if (lag)
    json_object_set_new(row, "replica_lag_s", lag);
  json_t *behind = sb_endpoint_results_behind_json();
  if (behind)
    json_object_set_new(row, "replica_behind", behind);
  json_t *replay = sb_endpoint_results_replay_lag_json();
  if (replay)
    json_object_set_new(row, "replica_replay_lag_s", replay);
  /* Counts as well as rates: merging runs sums counts exactly. */
  json_object_set_new(row, "reads", json_integer((json_int_t) st->reads));
  json_object_set_new(row, "writes", json_integer((json_int_t) st->writes));
  json_object_set_new(row, "other", json_integer((json_int_t) st->other));
  json_object_set_new(row, "errors", json_integer((json_int_t) st->errors));
  json_object_set_new(row, "reconnects", json_integer((json_int_t) st->reconnects));
  json_object_set_new(row, "timeouts", json_integer((json_int_t) st->timeouts));
  sb_results_retry_interval(row, st);
  json_object_set_new(row, "errors_per_s", json_real(rate(st->errors, len)));
  json_object_set_new(row, "reconnects_per_s", json_real(rate(st->reconnects, len)));
  json_t *lat = json_object();
  if (st->percentile)
  {
    char key[32];
    snprintf(key, sizeof(key), "p%u", st->percentile);
    json_object_set_new(lat, key, json_real(ms(st->latency_pct)));
  }
  for (unsigned i = 0; i < st->npct; i++)
  {
    char key[32];
    snprintf(key, sizeof(key), "p%g", st->pct[i]);
    json_object_set_new(lat, key, json_real(ms(st->pct_val[i])));
  }
  json_object_set_new(lat, "max", json_real((double) sb_hdr_max(h) / 1e6));
  json_object_set_new(row, "latency_ms", lat);
  json_object_set_new(row, "queue_length", json_integer((json_int_t) st->queue_length));
  json_object_set_new(row, "concurrency", json_integer((json_int_t) st->concurrency));
  json_object_set_new(row, "schedule_lag_ms", json_real(x->lag_ms));
  json_object_set_new(row, "late_events", json_integer((json_int_t) x->late));
  json_t *client = sb_results_client_interval_json(&st->client);
  if (client)
    json_object_set_new(row, "client", client);
  /* The interval's own histogram, so merged runs get exact interval
     percentiles (a few hundred bytes a row). */
  char *enc = sb_hdr_encode_v2_base64(h);
  json_object_set_new(row, "hdr_v2_compressed_base64", enc ? json_string(enc) : json_null());
  free(enc);
  json_object_set_new(row, "metrics", metrics_counts_json(st));
  unsigned ntypes = sb_evtype_count();
  if (ntypes > 1)
  {
    json_t *to = json_object();
    for (unsigned i = 0; i < ntypes; i++)
      if (types[i].events || i > 0)
        json_object_set_new(to, sb_evtype_name((int) i), type_interval_json(&types[i], len));
    json_object_set_new(row, "types", to);
  }
  sb_results_extra_interval_add(row, x->start_s, len);
  return row;
}

/* Where a workload's tagged histograms go (sb_results_extra_hdr_each):
   the interval's times and the first write error. */
typedef struct {
  double start_s, len_s;
  int rc;
} extra_lines_t;

/* Writes one workload histogram as a tagged line of the interval. */
static void extra_line(void *ectx, const char *tag, const sb_hdr_t *h)
{
  extra_lines_t *e = ectx;
  if (e->rc == 0 && hdrlog)
    e->rc = sb_hdrlog_write(hdrlog, e->start_s, e->len_s, h, tag);
}

/* Writes the interval's HDR log lines (untagged, then one per type when
   several ran, then the workload's own tagged ones (the pgbench scripts'
   statements), after a comment when the client was saturated) and adds
   them to what the log holds; a write error is reported once and ends
   the log. Caller holds the lock; hdrlog is open. */
static void log_interval(const sb_stat_t *st, const sb_hdr_t *h,
                         const sb_evtype_stat_t *types, const sb_interval_extra_t *x)
{
  unsigned ntypes = sb_evtype_count();
  double len = x->len_s;
  if (logged == NULL)
    logged = sb_hdr_new();
  if (logged)
    sb_hdr_add(logged, h);
  if (logged_types == NULL)
    logged_types = sb_evtype_stats_new();
  if (logged_types && ntypes > 1)
    sb_evtype_add(logged_types, types);
  logged_end_s = x->start_s + len;
  int rc = 0;
  if (st->client.saturated)
  {
    /* the interval after this line was the client's limit */
    char note[128];
    snprintf(note, sizeof(note), "client saturated: cpu %.2f of %u, busiest worker %.2f",
             st->client.cpu, st->client.cpus, st->client.busiest);
    rc = sb_hdrlog_comment(hdrlog, note);
  }
  if (rc == 0)
    rc = sb_hdrlog_write(hdrlog, x->start_s, len, h, NULL);
  for (unsigned i = 0; rc == 0 && ntypes > 1 && i < ntypes; i++)
    if (types[i].hist)
      rc = sb_hdrlog_write(hdrlog, x->start_s, len, types[i].hist, sb_evtype_name((int) i));
  if (rc == 0)
  {
    extra_lines_t e = { x->start_s, len, 0 };
    sb_results_extra_hdr_each(x->start_s, false, extra_line, &e);
    rc = e.rc;
  }
  if (rc != 0)
  {
    log_text(LOG_ALERT, "--hdr-log: write to '%s' failed: %s; no further intervals "
             "are logged", hdrlog_path, strerror(errno));
    sb_hdrlog_close(hdrlog);
    hdrlog = NULL;
  }
}

void sb_results_interval(const sb_stat_t *st, const sb_hdr_t *h,
                         const sb_evtype_stat_t *types,
                         const sb_interval_extra_t *x)
{
  pthread_mutex_lock(&lock);
  if (intervals == NULL || finished)
  {
    pthread_mutex_unlock(&lock);
    return;
  }
  json_array_append_new(intervals, interval_row_json(st, h, types, x));
  if (hdrlog)
    log_interval(st, h, types, x);
  pthread_mutex_unlock(&lock);
}

static json_t *summary_json(const sb_stat_t *st, uint64_t late,
                            const char *reason, int exit_code)
{
  json_t *s = json_object();
  double t = st->time_total;
  json_object_set_new(s, "completed", json_boolean(reason == NULL));
  json_object_set_new(s, "interrupted_reason", reason ? json_string(reason) : json_null());
  json_object_set_new(s, "exit_code", json_integer(exit_code));
  json_object_set_new(s, "time_s", json_real(t));
  json_object_set_new(s, "threads", json_integer(st->threads));
  json_object_set_new(s, "events", json_integer((json_int_t) st->events));
  json_object_set_new(s, "tps", json_real(rate(st->events, t)));
  uint64_t q = st->reads + st->writes + st->other;
  json_t *qo = json_object();
  json_object_set_new(qo, "read", json_integer((json_int_t) st->reads));
  json_object_set_new(qo, "write", json_integer((json_int_t) st->writes));
  json_object_set_new(qo, "other", json_integer((json_int_t) st->other));
  json_object_set_new(qo, "total", json_integer((json_int_t) q));
  json_object_set_new(s, "queries", qo);
  json_object_set_new(s, "qps", json_real(rate(q, t)));
  json_object_set_new(s, "errors", json_integer((json_int_t) st->errors));
  json_object_set_new(s, "reconnects", json_integer((json_int_t) st->reconnects));
  json_object_set_new(s, "timeouts", json_integer((json_int_t) st->timeouts));
  json_object_set_new(s, "late_events", json_integer((json_int_t) late));
  json_t *retry = sb_results_retry_json(st);
  if (retry)
    json_object_set_new(s, "retries", retry);
  json_object_set_new(s, "client", sb_results_client_json(&st->client));
  json_t *lat = json_object();
  json_object_set_new(lat, "min", json_real(ms(st->latency_min)));
  json_object_set_new(lat, "avg", json_real(ms(st->latency_avg)));
  json_object_set_new(lat, "max", json_real(ms(st->latency_max)));
  json_object_set_new(lat, "sum", json_real(ms(st->latency_sum)));
  json_t *pct = json_object();
  char key[32];
  if (st->percentile)
  {
    snprintf(key, sizeof(key), "%u", st->percentile);
    json_object_set_new(pct, key, json_real(ms(st->latency_pct)));
  }
  for (unsigned i = 0; i < st->npct; i++)
  {
    snprintf(key, sizeof(key), "%g", st->pct[i]);
    json_object_set_new(pct, key, json_real(ms(st->pct_val[i])));
  }
  json_object_set_new(lat, "percentiles", pct);
  json_object_set_new(s, "latency_ms", lat);
  json_t *fair = json_object();
  json_object_set_new(fair, "events_avg", json_real(st->events_avg));
  json_object_set_new(fair, "events_stddev", json_real(st->events_stddev));
  json_object_set_new(fair, "execution_time_avg_s", json_real(st->exec_avg));
  json_object_set_new(fair, "execution_time_stddev_s", json_real(st->exec_stddev));
  json_object_set_new(s, "fairness", fair);
  json_object_set_new(s, "metrics", metrics_summary_json(st));
  json_t *figs = sb_results_figures_json(st->time_total);
  if (figs)
    json_object_set_new(s, "figures", figs);
  return s;
}

/* The histogram of the type named `name` in `types`, or NULL. */
static const sb_hdr_t *type_hist(const sb_evtype_stat_t *types, const char *name)
{
  for (unsigned i = 0; types && i < sb_evtype_count(); i++)
    if (strcmp(sb_evtype_name((int) i), name) == 0)
      return types[i].hist;
  return NULL;
}

/* `run` is the whole run's histogram: a script that never names a type
   has one row, "event", holding every event, and workers keep no type
   histogram then (sb_evtype_used), so the row's histogram is the run's.
   Storing it lets `bmk report --merge` merge that row exactly. */
static json_t *types_json(const sb_type_row_t *rows, unsigned n,
                          const sb_evtype_stat_t *types, const sb_hdr_t *run)
{
  json_t *a = json_array();
  for (unsigned i = 0; i < n; i++)
  {
    const sb_type_row_t *r = &rows[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(r->name));
    json_object_set_new(o, "events", json_integer((json_int_t) r->events));
    json_object_set_new(o, "tps", json_real(r->tps));
    json_object_set_new(o, "errors", json_integer((json_int_t) r->errors));
    json_object_set_new(o, "rollbacks", json_integer((json_int_t) r->rollbacks));
    json_object_set_new(o, "late_events", json_integer((json_int_t) r->late));
    json_t *lat = json_object();
    json_object_set_new(lat, "min", json_real(ms(r->min)));
    json_object_set_new(lat, "avg", json_real(ms(r->avg)));
    json_object_set_new(lat, "p50", json_real(ms(r->p50)));
    json_object_set_new(lat, "p95", json_real(ms(r->p95)));
    json_object_set_new(lat, "p99", json_real(ms(r->p99)));
    json_object_set_new(lat, "max", json_real(ms(r->max)));
    json_object_set_new(o, "latency_ms", lat);
    const sb_hdr_t *h = type_hist(types, r->name);
    if (h == NULL && n == 1 && !sb_evtype_used() && strcmp(r->name, "event") == 0)
      h = run;
    char *enc = h ? sb_hdr_encode_v2_base64(h) : NULL;
    json_object_set_new(o, "hdr_v2_compressed_base64", enc ? json_string(enc) : json_null());
    free(enc);
    json_array_append_new(a, o);
  }
  return a;
}

json_t *sb_results_histogram_json(const sb_hdr_t *h)
{
  json_t *o = json_object();
  json_object_set_new(o, "unit", json_string("ns"));
  json_object_set_new(o, "lowest_discernible_value", json_integer(1));
  json_object_set_new(o, "highest_trackable_value", json_integer((json_int_t) SB_HDR_HIGHEST_NS));
  json_object_set_new(o, "significant_digits", json_integer(3));
  json_object_set_new(o, "total_count", json_integer((json_int_t) h->total));
  json_t *b = json_array();
  uint32_t n = sb_hdr_counts_len(h);
  for (uint32_t i = 0; i < n; i++)
  {
    uint64_t c = sb_hdr_count_at(h, i);
    if (c == 0)
      continue;
    json_t *row = json_array();
    json_array_append_new(row, json_integer((json_int_t) sb_hdr_value_lo(i)));
    json_array_append_new(row, json_integer((json_int_t) sb_hdr_value_hi(i)));
    json_array_append_new(row, json_integer((json_int_t) c));
    json_array_append_new(b, row);
  }
  json_object_set_new(o, "buckets", b);
  char *enc = sb_hdr_encode_v2_base64(h);
  json_object_set_new(o, "hdr_v2_compressed_base64", enc ? json_string(enc) : json_null());
  free(enc);
  return o;
}

/* Writes a remainder line: `run` minus what the log holds (`logged`), when
   that is not empty or `always`. Returns 0 or -1 on a write error. */
static int write_rest(const sb_hdr_t *run, const sb_hdr_t *logged_sum, double len,
                      const char *tag, bool always)
{
  sb_hdr_t *rest = sb_hdr_new();
  if (rest == NULL)
    return 0;
  sb_hdr_copy(rest, run);
  if (logged_sum)
    sb_hdr_sub(rest, logged_sum);
  int rc = 0;
  if (rest->total > 0 || always)
    rc = sb_hdrlog_write(hdrlog, logged_end_s, len > 0 ? len : 0, rest, tag);
  sb_hdr_free(rest);
  return rc;
}

/* Ends the HDR log (caller holds the lock; hdrlog open). The log sums
   to the run's histogram: what no interval line holds (the time after
   the last tick, events closed at a forced shutdown) goes into a last,
   shorter interval, untagged, per type and the workload's tagged
   histograms. 0, or -1 on a write error
   (after an ALERT line when closing fails). */
static int close_hdrlog(const sb_stat_t *st, const sb_hdr_t *h, const sb_evtype_stat_t *types)
{
  int rc = 0;
  double len = st->time_total - logged_end_s;
  if (write_rest(h, logged, len, NULL, json_array_size(intervals) == 0) != 0)
    rc = -1;
  unsigned ntypes = sb_evtype_count();
  for (unsigned i = 0; types && ntypes > 1 && i < ntypes; i++)
    if (types[i].hist &&
        write_rest(types[i].hist, logged_types ? logged_types[i].hist : NULL, len,
                   sb_evtype_name((int) i), false) != 0)
      rc = -1;
  extra_lines_t e = { logged_end_s, len > 0 ? len : 0, 0 };
  sb_results_extra_hdr_each(logged_end_s, true, extra_line, &e);
  if (e.rc != 0)
    rc = -1;
  if (sb_hdrlog_close(hdrlog) != 0)
  {
    log_text(LOG_ALERT, "--hdr-log: write to '%s' failed", hdrlog_path);
    rc = -1;
  }
  hdrlog = NULL;
  return rc;
}

int sb_results_finish(const sb_stat_t *st, const sb_hdr_t *h,
                      const sb_evtype_stat_t *types,
                      const sb_type_row_t *rows, unsigned n, uint64_t late,
                      const char *reason, int exit_code)
{
  pthread_mutex_lock(&lock);
  if (finished)
  {
    pthread_mutex_unlock(&lock);
    return 0;
  }
  finished = true;
  int rc = 0;
  /* A run interrupted before its measured part began (e.g. during warmup)
     still leaves a valid, empty-interval log. */
  if (!hdrlog_opened)
  {
    if (start_epoch == 0)
    {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      start_epoch = (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
    }
    open_hdrlog();
    if (hdrlog_path && hdrlog == NULL)
      rc = -1;
  }
  if (hdrlog && close_hdrlog(st, h, types) != 0)
    rc = -1;
  json_t *doc = NULL;
  if (json_path || keep_document)
  {
    doc = json_object();
    json_object_set_new(doc, "format", json_string("bmk-results"));
    json_object_set_new(doc, "format_version", json_integer(SB_RESULTS_FORMAT_VERSION));
    json_object_set_new(doc, "manifest", sb_results_manifest_json());
    json_object_set_new(doc, "intervals", json_incref(intervals));
    json_object_set_new(doc, "event_types", types_json(rows, n, types, h));
    json_object_set_new(doc, "summary", summary_json(st, late, reason, exit_code));
    json_object_set_new(doc, "server", sb_results_server_json());
    json_t *eps = sb_endpoint_results_json();
    if (eps)
      json_object_set_new(doc, "endpoints", eps);
    sb_results_spans_add(doc);
    sb_results_extra_add(doc);
    json_object_set_new(doc, "histogram", sb_results_histogram_json(h));
    if (thresholds)
      json_object_set(doc, "thresholds", thresholds);
  }
  if (json_path && sb_results_write_json(doc, json_path) != 0)
    rc = -1;
  if (keep_document)
  {
    json_decref(kept);
    kept = doc;              /* the caller's: sb_results_document() */
  }
  else
    json_decref(doc);
  pthread_mutex_unlock(&lock);
  return rc;
}

int sb_results_write_json(const json_t *doc, const char *path)
{
  /* A regular file is replaced whole (a reader never sees half a
     document); anything else (/dev/stdout, a FIFO) is written in place:
     renaming over a device node would replace it. */
  struct stat sb;
  bool in_place = stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
  size_t len = strlen(path) + 16;
  char *tmp = malloc(len);
  if (tmp == NULL)
    return -1;
  snprintf(tmp, len, "%s.tmp", path);
  const char *target = in_place ? path : tmp;
  int rc = 0;
  errno = 0;
  if (json_dump_file(doc, target, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
      (!in_place && rename(tmp, path) != 0))
  {
    log_text(LOG_ALERT, "--results: cannot write '%s': %s", path,
             errno ? strerror(errno) : "write error");
    if (!in_place)
      unlink(tmp);
    rc = -1;
  }
  free(tmp);
  return rc;
}

void sb_results_set_thresholds(json_t *verdicts)
{
  pthread_mutex_lock(&lock);
  json_decref(thresholds);
  thresholds = verdicts;
  pthread_mutex_unlock(&lock);
}

void sb_results_keep_document(void)
{
  pthread_mutex_lock(&lock);
  keep_document = true;
  pthread_mutex_unlock(&lock);
}

const json_t *sb_results_document(void)
{
  pthread_mutex_lock(&lock);
  const json_t *d = kept;
  pthread_mutex_unlock(&lock);
  return d;
}
