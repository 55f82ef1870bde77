/* A result document in bmk's report layout; see sb_report_file.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/sb_report_file.h"
#include "core/sb_evtype.h"
#include "results/sb_results_file.h"
#include "results/sb_report.h"
#include "results/sb_results_retry.h"

static double num0(double v)
{
  return isnan(v) ? 0 : v;
}

static uint64_t cnt(const json_t *o, const char *key)
{
  double v = sb_json_num(o, key, NULL);
  return v > 0 ? (uint64_t) llround(v) : 0;
}

static double option_num(const json_t *doc, const char *name)
{
  const char *v = sb_json_str(doc, "manifest", "options", name, NULL);
  return v ? strtod(v, NULL) : 0;
}

/* Events, errors and reconnects of `o`, and the query counts of `q`
   (keys `rk`, `wk`, `ok`: an interval row holds them itself as reads /
   writes / other, the summary in queries.read / write / other). */
static void fill_counts(sb_stat_t *st, const json_t *o, const json_t *q, const char *rk,
                        const char *wk, const char *ok)
{
  st->events = cnt(o, "events");
  st->reads = cnt(q, rk);
  st->writes = cnt(q, wk);
  st->other = cnt(q, ok);
  st->errors = cnt(o, "errors");
  st->reconnects = cnt(o, "reconnects");
  st->timeouts = cnt(o, "timeouts");
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* --percentile's value and the extra --percentiles of the summary. */
static void summary_percentiles(const json_t *doc, sb_stat_t *st)
{
  const json_t *pct = sb_json_at(doc, "summary", "latency_ms", "percentiles", NULL);
  st->percentile = (unsigned) option_num(doc, "percentile");
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *) pct, key, v)
  {
    double p = strtod(key, NULL);
    if (st->percentile && p == st->percentile)
      st->latency_pct = json_number_value(v) / 1000.0;
    else if (st->npct < SB_MAX_PERCENTILES)
      st->pct[st->npct++] = p;
  }
  qsort(st->pct, st->npct, sizeof(double), cmp_double);
  for (unsigned i = 0; i < st->npct; i++)
  {
    char k[32];
    snprintf(k, sizeof(k), "%g", st->pct[i]);
    st->pct_val[i] = num0(sb_json_num(pct, k, NULL)) / 1000.0;
  }
}

static void print_intervals(FILE *out, const json_t *doc, bool db)
{
  bool rate = option_num(doc, "rate") > 0;
  unsigned p = (unsigned) option_num(doc, "percentile");
  char key[32];
  snprintf(key, sizeof(key), "p%u", p);
  size_t i;
  const json_t *row;
  json_array_foreach(json_object_get(doc, "intervals"), i, row)
  {
    sb_stat_t st;
    memset(&st, 0, sizeof(st));
    st.time_total = num0(sb_json_num(row, "time_s", NULL));
    st.time_interval = num0(sb_json_num(row, "length_s", NULL));
    st.threads_running = (unsigned) cnt(row, "threads_running");
    fill_counts(&st, row, row, "reads", "writes", "other");
    st.percentile = p;
    st.latency_pct = num0(sb_json_num(row, "latency_ms", key, NULL)) / 1000.0;
    st.queue_length = cnt(row, "queue_length");
    st.concurrency = cnt(row, "concurrency");
    st.schedule_lag = num0(sb_json_num(row, "schedule_lag_ms", NULL)) / 1000.0;
    sb_results_retry_read_interval(&st, row);
    if (db)
      sb_report_interval_db(out, &st, rate, rate);
    else
      sb_report_interval_generic(out, &st, rate, rate);
  }
}

void sb_report_file_types(FILE *out, const json_t *doc)
{
  const json_t *types = json_object_get(doc, "event_types");
  sb_type_row_t rows[SB_EVTYPE_MAX];
  unsigned n = 0;
  size_t i;
  const json_t *r;
  json_array_foreach(types, i, r)
  {
    if (n == SB_EVTYPE_MAX)
      break;
    const json_t *l = json_object_get(r, "latency_ms");
    sb_type_row_t *t = &rows[n++];
    t->name = sb_json_str(r, "name", NULL);
    if (t->name == NULL)
      t->name = "?";
    t->events = cnt(r, "events");
    t->errors = cnt(r, "errors");
    t->rollbacks = cnt(r, "rollbacks");
    t->late = cnt(r, "late_events");
    t->tps = num0(sb_json_num(r, "tps", NULL));
    t->min = num0(sb_json_num(l, "min", NULL)) / 1000.0;
    t->avg = num0(sb_json_num(l, "avg", NULL)) / 1000.0;
    t->p50 = num0(sb_json_num(l, "p50", NULL)) / 1000.0;
    t->p95 = num0(sb_json_num(l, "p95", NULL)) / 1000.0;
    t->p99 = num0(sb_json_num(l, "p99", NULL)) / 1000.0;
    t->max = num0(sb_json_num(l, "max", NULL)) / 1000.0;
  }
  if (n > 1)
    sb_report_types(out, rows, n);
}

void sb_report_file_print(FILE *out, const json_t *doc)
{
  if (json_object_get(doc, "tpch"))
  {
    /* a command's document: no events, its own tables */
    sb_report_file_tpch(out, doc);
    sb_report_file_figures(out, doc);
    return;
  }
  const json_t *s = json_object_get(doc, "summary");
  const json_t *q = json_object_get(s, "queries");
  bool db = json_is_object(sb_json_at(doc, "manifest", "server", NULL)) ||
            cnt(q, "total") > 0;
  if (option_num(doc, "report_interval") > 0)
    print_intervals(out, doc, db);
  sb_stat_t st;
  memset(&st, 0, sizeof(st));
  st.threads = (unsigned) cnt(s, "threads");
  st.time_total = st.time_interval = num0(sb_json_num(s, "time_s", NULL));
  fill_counts(&st, s, q, "read", "write", "other");
  const json_t *l = json_object_get(s, "latency_ms");
  st.latency_min = num0(sb_json_num(l, "min", NULL)) / 1000.0;
  st.latency_avg = num0(sb_json_num(l, "avg", NULL)) / 1000.0;
  st.latency_max = num0(sb_json_num(l, "max", NULL)) / 1000.0;
  st.latency_sum = num0(sb_json_num(l, "sum", NULL)) / 1000.0;
  summary_percentiles(doc, &st);
  const json_t *f = json_object_get(s, "fairness");
  st.events_avg = num0(sb_json_num(f, "events_avg", NULL));
  st.events_stddev = num0(sb_json_num(f, "events_stddev", NULL));
  st.exec_avg = num0(sb_json_num(f, "execution_time_avg_s", NULL));
  st.exec_stddev = num0(sb_json_num(f, "execution_time_stddev_s", NULL));
  sb_retry_snap_t retry;
  sb_results_retry_read(&st, &retry, json_object_get(s, "retries"));
  sb_report_cumulative(out, &st, db);
  sb_report_file_types(out, doc);
  sb_report_file_statements(out, doc);
  double limit = option_num(doc, "latency_limit");
  if (limit > 0)
    sb_report_latency_limit(out, limit, cnt(s, "late_events"), st.events);
  sb_report_file_figures(out, doc);
}

void sb_report_file_statements(FILE *out, const json_t *doc)
{
  const json_t *a = json_object_get(doc, "statements");
  if (!json_is_array(a) || json_array_size(a) == 0)
    return;
  fprintf(out, "Statements (latency in ms):\n");
  json_int_t script = -1;
  size_t i;
  const json_t *e;
  json_array_foreach(a, i, e)
  {
    json_int_t si = json_integer_value(json_object_get(e, "script_index"));
    if (si != script)
    {
      const char *name = sb_json_str(e, "script", NULL);
      fprintf(out, "    script %lld: %s (weight %lld)\n", (long long) si, name ? name : "?",
              (long long) json_integer_value(json_object_get(e, "weight")));
      fprintf(out, "        %10s %8s %8s %9s %9s %9s %9s  command\n", "count", "failed",
              "retried", "avg", "p50", "p95", "p99");
      script = si;
    }
    const json_t *l = json_object_get(e, "latency_ms");
    const char *text = sb_json_str(e, "text", NULL);
    fprintf(out, "        %10llu %8llu %8llu %9.3f %9.3f %9.3f %9.3f  %s\n",
            (unsigned long long) cnt(e, "count"), (unsigned long long) cnt(e, "failures"),
            (unsigned long long) cnt(e, "retries"), num0(sb_json_num(l, "avg", NULL)),
            num0(sb_json_num(l, "p50", NULL)), num0(sb_json_num(l, "p95", NULL)),
            num0(sb_json_num(l, "p99", NULL)), text ? text : "");
  }
  fprintf(out, "\n");
}

void sb_report_file_figures(FILE *out, const json_t *doc)
{
  const json_t *figs = sb_json_at(doc, "summary", "figures", NULL);
  if (!json_is_object(figs) || json_object_size(figs) == 0)
    return;
  fprintf(out, "Figures:\n");
  const char *name;
  json_t *f;
  int width = 20;               /* the names' column: the longest name */
  json_object_foreach((json_t *) figs, name, f)
    if ((int) strlen(name) > width)
      width = (int) strlen(name);
  json_object_foreach((json_t *) figs, name, f)
  {
    const char *label = strcmp(name, "tpcc_nopm") == 0 ? "NOPM"
                        : strcmp(name, "tpcc_tpm") == 0 ? "TPM" : name;
    const char *merge = sb_json_str(f, "merge", NULL);
    const char *scope = sb_json_str(f, "scope", NULL);
    double runs = sb_json_num(f, "runs", NULL);
    char how[128] = "";
    if (merge && strcmp(merge, "mean") == 0)
      snprintf(how, sizeof(how), " (the database's: the mean of %.0f runs on it)", runs);
    else if (merge && scope && strcmp(scope, "server") == 0)
      snprintf(how, sizeof(how), " (the databases': the sum over %.0f runs, one each)", runs);
    else if (merge)
      snprintf(how, sizeof(how), " (the sum of %.0f runs)", runs);
    /* a figure in seconds (name ending _s: a TPC-H-derived query's time)
       to 0.1 ms */
    size_t nl = strlen(name);
    bool secs = nl > 2 && strcmp(name + nl - 2, "_s") == 0;
    fprintf(out, secs ? "    %-*s %.4f s%s%s\n" : "    %-*s %.2f%s%s\n", width, label,
            num0(sb_json_num(f, "value", NULL)),
            json_is_true(json_object_get(f, "per_minute")) ? " per minute" : "", how);
  }
  fprintf(out, "\n");
}
