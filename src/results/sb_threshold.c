/* --threshold as an output; see results/sb_threshold.h. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/sb_figure.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_output.h"
#include "results/sb_results.h"
#include "results/sb_threshold.h"

/* Exit codes of a missed threshold and of one that cannot decide: the
   same as `bmk compare --fail-if`'s (docs/reliability.md "Exit codes"). */
#define EXIT_THRESHOLD 3
#define EXIT_INCONCLUSIVE 4
#define MAX_THRESHOLDS 32

static const char GRAMMAR[] =
  "A threshold is METRIC OP VALUE[UNIT], e.g. --threshold='p95<=20ms' --threshold='tps>=1000'\n"
  "--threshold='errors<=0.1%':\n"
  "  METRIC  tps, qps (per second; UNIT none or /s); p50, p95, p99, any pN such as p99.9,\n"
  "          avg, max (latency; UNIT ms, the default, s or us); errors (per second, UNIT\n"
  "          none or /s; or with % the percentage of events), errors_per_s; or a figure of\n"
  "          the run by its name, without a unit (tpcc_nopm or nopm, tpcc_tpm or tpm,\n"
  "          server_commits, ...)\n"
  "  OP      <=, <, >=, >\n"
  "See docs/results-db.md \"Thresholds\".\n";

static const sb_option_t threshold_options[] = {
  { "threshold", "pass/fail gate on the run's final numbers, repeatable, e.g. 'p95<=20ms', "
    "'tps>=1000', 'errors<=0.1%' (METRIC tps qps pN avg max errors; OP <= < >= >); a missed "
    "one makes the exit code 3, one that cannot decide 4 (docs/results-db.md)", NULL,
    SB_ARG_TYPE_STRING },
  { "inconclusive", "what a --threshold that cannot decide (not measured, too few events for "
    "its percentile) does to the exit code: exit (4), pass (0) or fail (3)", "exit",
    SB_ARG_TYPE_STRING },
  { NULL, NULL, NULL, 0 }
};

typedef enum { M_TPS, M_QPS, M_PCT, M_AVG, M_MAX, M_ERRORS, M_FIGURE } metric_t;

typedef struct {
  const char *text;            /* as given */
  metric_t metric;
  double pct;                  /* M_PCT: the percentile, (0, 100] */
  char op[3];                  /* "<=", "<", ">=", ">" */
  double limit;                /* in `unit` */
  const char *unit;            /* "ms", "s", "us", "/s", "%" */
  double scale;                /* latency: seconds -> unit */
  char figure[SB_FIGURE_NAME_MAX]; /* M_FIGURE: the figure's name */
  bool per_s_only;             /* errors_per_s: no % unit */
} threshold_t;

static threshold_t th[MAX_THRESHOLDS];
static unsigned nth;

int sb_threshold_register_options(void)
{
  return sb_opt_register_table(threshold_options, SB_GROUP_EXT_GENERAL, NULL);
}

/* The metric name at the start of `s` (up to the operator) into t; false
   when unknown. */
static bool parse_metric(const char *s, size_t n, threshold_t *t)
{
  static const struct { const char *name; metric_t m; } names[] = {
    { "tps", M_TPS }, { "qps", M_QPS }, { "avg", M_AVG }, { "max", M_MAX },
    { "errors", M_ERRORS },
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (strlen(names[i].name) == n && strncmp(s, names[i].name, n) == 0)
    {
      t->metric = names[i].m;
      return true;
    }
  /* the field's short names: errors_per_s is errors (per second); nopm
     and tpm are TPC-C's figures, tpcc_nopm and tpcc_tpm */
  if (n == 12 && strncmp(s, "errors_per_s", n) == 0)
  {
    t->metric = M_ERRORS;
    t->per_s_only = true;
    return true;
  }
  if ((n == 4 && strncmp(s, "nopm", n) == 0) || (n == 3 && strncmp(s, "tpm", n) == 0))
  {
    t->metric = M_FIGURE;
    snprintf(t->figure, sizeof(t->figure), "tpcc_%.*s", (int) n, s);
    return true;
  }
  char num[32], *end;
  if (n >= 2 && s[0] == 'p' && n - 1 < sizeof(num) && s[1] >= '0' && s[1] <= '9')
  {
    memcpy(num, s + 1, n - 1);
    num[n - 1] = '\0';
    t->pct = strtod(num, &end);
    t->metric = M_PCT;
    return *end == '\0' && t->pct > 0 && t->pct <= 100;
  }
  /* a figure of the run (core/sb_figure.h: tpcc_nopm, server_commits, a
     script's sysbench.figure), by its name */
  if (n == 0 || n >= sizeof(t->figure) || s[0] < 'a' || s[0] > 'z')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return false;
  memcpy(t->figure, s, n);
  t->figure[n] = '\0';
  t->metric = M_FIGURE;
  return true;
}

/* The unit after the number: false when it does not fit the metric. */
static bool parse_unit(const char *u, threshold_t *t)
{
  bool latency = t->metric == M_PCT || t->metric == M_AVG || t->metric == M_MAX;
  if (t->metric == M_FIGURE)
  {
    t->unit = "";
    return *u == '\0';
  }
  if (latency)
  {
    static const struct { const char *u; double scale; } units[] = {
      { "", 1e3 }, { "ms", 1e3 }, { "s", 1 }, { "us", 1e6 },
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
      if (strcmp(u, units[i].u) == 0)
      {
        t->unit = *u ? units[i].u : "ms";
        t->scale = units[i].scale;
        return true;
      }
    return false;
  }
  if (strcmp(u, "") == 0 || strcmp(u, "/s") == 0)
  {
    t->unit = "/s";
    return true;
  }
  if (t->metric == M_ERRORS && !t->per_s_only && strcmp(u, "%") == 0)
  {
    t->unit = "%";
    return true;
  }
  return false;
}

/* One threshold; 0, or -1 after a message. */
static int parse_one(const char *s, threshold_t *t)
{
  memset(t, 0, sizeof(*t));
  t->text = s;
  const char *op = strpbrk(s, "<>");
  if (op == NULL || !parse_metric(s, (size_t) (op - s), t))
  {
    fprintf(stderr, "FATAL: --threshold='%s': %s\n%s", s,
            op ? "unknown metric" : "no operator (<=, <, >=, >)", GRAMMAR);
    return -1;
  }
  size_t oplen = op[1] == '=' ? 2 : 1;
  memcpy(t->op, op, oplen);
  char *end;
  const char *num = op + oplen;
  t->limit = strtod(num, &end);
  if (end == num || !isfinite(t->limit) || !parse_unit(end, t))
  {
    fprintf(stderr, "FATAL: --threshold='%s': %s\n%s", s,
            end == num ? "no number after the operator"
            : t->metric == M_FIGURE ? "unknown metric (a figure's name takes no unit)"
            : "a unit that does not fit the metric", GRAMMAR);
    return -1;
  }
  return 0;
}

/* The figure `name` as shown after a window of `secs`; NAN when the run
   has no such figure. */
static double figure_value(const char *name, double secs)
{
  sb_figure_t f[SB_FIGURE_MAX];
  unsigned n = sb_figure_list(f, SB_FIGURE_MAX);
  for (unsigned i = 0; i < n; i++)
    if (strcmp(f[i].name, name) == 0)
      return sb_figure_shown(&f[i], secs);
  return NAN;
}

/* The run's value of t's metric in t's unit; NAN when not measured. */
static double value_of(const threshold_t *t, const sb_out_end_t *e)
{
  const sb_stat_t *st = e->st;
  double secs = st->time_total;
  switch (t->metric)
  {
  case M_TPS:
    return secs > 0 ? (double) st->events / secs : NAN;
  case M_QPS:
    return secs > 0 ? (double) (st->reads + st->writes + st->other) / secs : NAN;
  case M_PCT:
    if (e->hist == NULL || e->hist->total == 0)
      return NAN;
    return (double) sb_hdr_percentile(e->hist, t->pct) / 1e9 * t->scale;
  case M_AVG:
    return st->events ? st->latency_avg * t->scale : NAN;
  case M_MAX:
    return st->events ? st->latency_max * t->scale : NAN;
  case M_ERRORS:
    if (strcmp(t->unit, "%") == 0)
      return st->events ? 100.0 * (double) st->errors / (double) st->events
                        : st->errors ? INFINITY : 0;
    return secs > 0 ? (double) st->errors / secs : NAN;
  case M_FIGURE:
    return figure_value(t->figure, secs);
  }
  return NAN;
}

static bool holds(const threshold_t *t, double v)
{
  if (isnan(v))
    return false;
  if (t->op[0] == '<')
    return t->op[1] ? v <= t->limit : v < t->limit;
  return t->op[1] ? v >= t->limit : v > t->limit;
}

typedef enum { TH_PASS, TH_FAIL, TH_INCONCLUSIVE } verdict_t;

/* The value at rank r (1..total) of h, in t's unit. */
static double at_rank(const threshold_t *t, const sb_hdr_t *h, uint64_t r)
{
  double pct = 100.0 * ((double) r - 0.5) / (double) h->total;
  return (double) sb_hdr_percentile(h, pct) / 1e9 * t->scale;
}

/*
 * A percentile threshold's verdict with the sampling error of the
 * percentile taken in: the distribution-free 95% interval of the q-th
 * quantile of n events is [X(r), X(s)], the r-th and s-th smallest, with
 * r, s = nq -+ 1.96 sqrt(nq(1-q)) rounded up (the normal approximation
 * to the binomial count of events below the quantile; W. J. Conover,
 * Practical Nonparametric Statistics, 3rd ed., 1999, section 3.2). The
 * threshold passes when the whole interval meets it, fails when none of
 * it does, and cannot decide otherwise (an interval running past the
 * slowest event is unbounded). *lo and *hi receive the interval.
 */
static verdict_t percentile_verdict(const threshold_t *t, const sb_hdr_t *h, double *lo,
                                    double *hi)
{
  double n = (double) h->total, q = t->pct / 100;
  double half = 1.96 * sqrt(n * q * (1 - q));
  double r = ceil(n * q - half), s = ceil(n * q + half);
  *lo = r >= 1 ? at_rank(t, h, (uint64_t) r) : 0;
  *hi = s <= n ? at_rank(t, h, (uint64_t) s) : INFINITY;
  bool upper_ok = holds(t, t->op[0] == '<' ? *hi : *lo);
  bool lower_ok = holds(t, t->op[0] == '<' ? *lo : *hi);
  return upper_ok ? TH_PASS : !lower_ok ? TH_FAIL : TH_INCONCLUSIVE;
}

/* v as the verdict line shows it, in t's unit. */
static void shown_value(const threshold_t *t, double v, char *buf, size_t n)
{
  if (isnan(v))
    snprintf(buf, n, "not measured");
  else if (strcmp(t->unit, "%") == 0)
    snprintf(buf, n, "%.4g%%", v);
  else if (t->unit[0] == '\0')
    snprintf(buf, n, "%.2f", v);
  else if (strcmp(t->unit, "/s") == 0)
    snprintf(buf, n, "%.2f/s", v);
  else if (strcmp(t->unit, "s") == 0)
    snprintf(buf, n, "%.4g s", v);
  else
    snprintf(buf, n, "%.2f %s", v, t->unit);
}

static int inconclusive_exit;   /* --inconclusive: 4, 0 or 3 */

static int out_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  static const char *const words[] = { "passed", "FAILED", "INCONCLUSIVE" };
  static const char *const names[] = { "pass", "fail", "inconclusive" };
  json_t *verdicts = json_array();
  bool failed = false, open = false;
  for (unsigned i = 0; i < nth; i++)
  {
    const threshold_t *t = &th[i];
    double v = value_of(t, e);
    double lo = NAN, hi = NAN;
    verdict_t vd = isnan(v) ? TH_INCONCLUSIVE : holds(t, v) ? TH_PASS : TH_FAIL;
    if (t->metric == M_PCT && !isnan(v))
      vd = percentile_verdict(t, e->hist, &lo, &hi);
    failed |= vd == TH_FAIL;
    open |= vd == TH_INCONCLUSIVE;
    char shown[64], lo_s[64], hi_s[64], why[224] = "";
    shown_value(t, v, shown, sizeof(shown));
    if (vd == TH_INCONCLUSIVE && isnan(v))
      snprintf(why, sizeof(why), " (the run did not measure it)");
    else if (vd == TH_INCONCLUSIVE)
    {
      shown_value(t, lo, lo_s, sizeof(lo_s));
      if (isinf(hi))
        snprintf(hi_s, sizeof(hi_s), "past the slowest event");
      else
        shown_value(t, hi, hi_s, sizeof(hi_s));
      snprintf(why, sizeof(why), " (its 95%% interval from %llu events, %s to %s, holds the "
               "limit: a longer run would decide)", (unsigned long long) e->hist->total, lo_s,
               hi_s);
    }
    log_text(LOG_NOTICE, "threshold %s: %s — %s%s", t->text, shown, words[vd], why);
    json_t *o = json_object();
    json_object_set_new(o, "threshold", json_string(t->text));
    json_object_set_new(o, "value", isfinite(v) ? json_real(v) : json_null());
    json_object_set_new(o, "unit", json_string(t->unit));
    json_object_set_new(o, "passed", json_boolean(vd == TH_PASS));
    json_object_set_new(o, "verdict", json_string(names[vd]));
    json_array_append_new(verdicts, o);
  }
  sb_results_set_thresholds(verdicts);
  if (failed)
    sb_output_request_exit(EXIT_THRESHOLD);
  else if (open && inconclusive_exit != 0)
    sb_output_request_exit(inconclusive_exit);
  return 0;
}

int sb_threshold_output(sb_output_t *out)
{
  const char *items[MAX_THRESHOLDS + 1];
  unsigned n = sb_opt_all_values("threshold", items, MAX_THRESHOLDS + 1);
  if (n > MAX_THRESHOLDS)
  {
    fprintf(stderr, "FATAL: --threshold: at most %d of them\n", MAX_THRESHOLDS);
    return -1;
  }
  const char *inc = sb_opt_str("inconclusive");
  if (inc == NULL || strcmp(inc, "exit") == 0)
    inconclusive_exit = EXIT_INCONCLUSIVE;
  else if (strcmp(inc, "pass") == 0)
    inconclusive_exit = 0;
  else if (strcmp(inc, "fail") == 0)
    inconclusive_exit = EXIT_THRESHOLD;
  else
  {
    fprintf(stderr, "FATAL: --inconclusive='%s': give exit, pass or fail\n", inc);
    return -1;
  }
  nth = 0;
  for (unsigned i = 0; i < n; i++)
  {
    if (*items[i] == '\0')
      continue;
    if (parse_one(items[i], &th[nth]) != 0)
      return -1;
    nth++;
  }
  if (nth == 0)
    return 0;
  *out = (sb_output_t) { .name = "--threshold", .end = out_end };
  return 1;
}
