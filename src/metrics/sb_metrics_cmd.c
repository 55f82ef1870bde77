/* --metrics-listen for a command; see metrics/sb_metrics_cmd.h. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_cmd_gauge.h"
#include "core/sb_figure.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "metrics/sb_metrics.h"
#include "metrics/sb_metrics_cmd.h"

static struct {
  pthread_mutex_t mtx;
  void *server;
  char *labels, *spec;
  char prefix[32];
  unsigned long scrapes, scrapes_after_end;
  bool ended;
  double linger_s;
} mc = { .mtx = PTHREAD_MUTEX_INITIALIZER };

/* A growing text buffer. */
typedef struct {
  char *p;
  size_t len, cap;
} buf_t;

static void add(buf_t *b, const char *fmt, ...)
{
  for (;;)
  {
    va_list ap;
    va_start(ap, fmt);
    int n = b->p ? vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0 && b->len + (size_t) n < b->cap)
    {
      b->len += (size_t) n;
      return;
    }
    size_t cap = b->cap ? b->cap * 2 : 8192;
    while (n >= 0 && cap <= b->len + (size_t) n)
      cap *= 2;
    char *q = realloc(b->p, cap);
    if (q == NULL)
      return;                   /* the page is cut short */
    b->p = q;
    b->cap = cap;
  }
}

/* The live numbers (core/sb_cmd_gauge.h) as bmk_<p>_... families with
   the labels `l`. `om`: OpenMetrics (the counter's family name without
   _total). */
static void add_gauges(buf_t *b, const char *p, const char *l, bool om)
{
  sb_cmd_gauges_t g;
  sb_cmd_gauges(&g);
  add(b, "# HELP bmk_%s_queries_in_flight Queries running now\n"
      "# TYPE bmk_%s_queries_in_flight gauge\nbmk_%s_queries_in_flight{%s} %lld\n",
      p, p, p, l, (long long) g.in_flight);
  add(b, "# HELP bmk_%s_query_duration_seconds Duration of the finished queries (failed "
      "ones included)\n# TYPE bmk_%s_query_duration_seconds histogram\n", p, p);
  for (int i = 0; i < SB_CMD_BUCKETS; i++)
    add(b, "bmk_%s_query_duration_seconds_bucket{%s,le=\"%g\"} %llu\n", p, l,
        sb_cmd_bucket_le[i], (unsigned long long) g.le[i]);
  add(b, "bmk_%s_query_duration_seconds_bucket{%s,le=\"+Inf\"} %llu\n"
      "bmk_%s_query_duration_seconds_sum{%s} %.6f\n"
      "bmk_%s_query_duration_seconds_count{%s} %llu\n", p, l, (unsigned long long) g.done,
      p, l, g.sum_s, p, l, (unsigned long long) g.done);
  add(b, "# HELP bmk_%s_queries_failed%s Queries that failed or timed out\n"
      "# TYPE bmk_%s_queries_failed%s counter\nbmk_%s_queries_failed_total{%s} %llu\n",
      p, om ? "" : "_total", p, om ? "" : "_total", p, l, (unsigned long long) g.failed);
}

char *sb_metrics_cmd_gauge_text(const char *prefix, const char *labels, bool om, size_t *len)
{
  buf_t b = { 0 };
  add_gauges(&b, prefix, labels, om);
  *len = b.len;
  return b.p;
}

/* The page: the live numbers and the figures. `om`: OpenMetrics (the
   counter's family name without _total, and # EOF). */
static char *render(bool om, size_t *len)
{
  buf_t b = { 0 };
  const char *l = mc.labels;
  add_gauges(&b, mc.prefix, l, om);
  sb_figure_t f[SB_FIGURE_MAX];
  unsigned n = sb_figure_list(f, SB_FIGURE_MAX);
  for (unsigned i = 0; i < n; i++)
    add(&b, "# HELP bmk_%s %s\n# TYPE bmk_%s gauge\nbmk_%s{%s} %.9g\n", f[i].name, f[i].help,
        f[i].name, f[i].name, l, f[i].value);
  if (om)
    add(&b, "# EOF\n");
  *len = b.len;
  return b.p;
}

static char *serve_page(bool openmetrics, size_t *len, const char **type)
{
  pthread_mutex_lock(&mc.mtx);
  char *page = render(openmetrics, len);
  if (page)
  {
    mc.scrapes++;
    if (mc.ended)
      mc.scrapes_after_end++;
  }
  pthread_mutex_unlock(&mc.mtx);
  *type = sb_metrics_content_type(openmetrics);
  return page;
}

int sb_metrics_cmd_start(const char *prefix)
{
  const char *spec = sb_opt_str("metrics-listen");
  if (spec == NULL || *spec == '\0' || mc.server)
    return 0;
  if (sb_metrics_check_tags() != 0)
    return -1;
  mc.linger_s = sb_opt_double("metrics-linger");
  if (sb_metrics_check_linger(mc.linger_s) != 0)
    return -1;
  int fd = sb_metrics_listen(spec);
  if (fd < 0)
    return -1;
  unsigned ntags = 0;
  char **tags = sb_opt_list("tag", &ntags);
  snprintf(mc.prefix, sizeof(mc.prefix), "%s", prefix);
  mc.labels = sb_metrics_labels(prefix, tags, ntags);
  mc.spec = strdup(spec);
  if (mc.labels == NULL || mc.spec == NULL)
  {
    log_text(LOG_FATAL, "--metrics-listen: out of memory");
    close(fd);
    return -1;
  }
  mc.server = sb_metrics_http_start(fd, serve_page);
  if (mc.server == NULL)
    return -1;
  log_text(LOG_NOTICE, "Metrics: run_id %s at http://%s/metrics", sb_metrics_run_id(), spec);
  return 0;
}

/* A scrape has read the final numbers (sb_metrics_linger's test). */
static bool scraped_after_end(void)
{
  pthread_mutex_lock(&mc.mtx);
  bool done = mc.scrapes_after_end > 0;
  pthread_mutex_unlock(&mc.mtx);
  return done;
}

void sb_metrics_cmd_stop(void)
{
  if (mc.server == NULL)
    return;
  pthread_mutex_lock(&mc.mtx);
  mc.ended = true;
  bool wait = mc.scrapes > 0 && mc.linger_s > 0;
  pthread_mutex_unlock(&mc.mtx);
  if (wait)
    sb_metrics_linger(mc.linger_s, mc.spec, scraped_after_end);
  sb_metrics_http_stop(mc.server);
  mc.server = NULL;
  log_text(LOG_NOTICE, "Metrics: %lu scrape(s) served", mc.scrapes);
  free(mc.labels);
  free(mc.spec);
  mc.labels = mc.spec = NULL;
}
