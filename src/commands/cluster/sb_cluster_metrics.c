/* `bmk cluster run --metrics-listen`: one scrape target for the run, the
   coordinator serving its processes' merged numbers, and once the
   processes' documents are merged, the pgbench scripts' per-statement
   series from the merged document; see cli/sb_cluster_priv.h and
   docs/metrics.md "Cluster runs". */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands/cluster/sb_cluster_merge.h"
#include "commands/cluster/sb_cluster_priv.h"
#include "core/sb_logger.h"
#include "metrics/sb_metrics.h"
#include "metrics/sb_prom.h"

#define MAX_TAGS 64

/* The workload's name from the run arguments: the first word that is not
   an option, its directory and ".lua" dropped ("oltp_read_write",
   "tpcc", "mytest"), into buf. */
static const char *test_name(const cl_opts_t *o, char *buf, size_t len)
{
  buf[0] = '\0';
  for (int i = 0; i < o->nargs; i++)
    if (strncmp(o->args[i], "--", 2) != 0)
    {
      const char *base = strrchr(o->args[i], '/');
      base = base ? base + 1 : o->args[i];
      size_t n = strlen(base);
      if (n > 4 && strcmp(base + n - 4, ".lua") == 0)
        n -= 4;
      snprintf(buf, len, "%.*s", (int) n, base);
      break;
    }
  return buf;
}

/* The run arguments' --tag items (key=value, comma-separated, repeatable)
   into tags (malloc'd copies, at most MAX_TAGS); their number. */
static unsigned run_tags(const cl_opts_t *o, char **tags)
{
  unsigned n = 0;
  for (int i = 0; i < o->nargs; i++)
  {
    if (strncmp(o->args[i], "--tag=", 6) != 0)
      continue;
    char *list = strdup(o->args[i] + 6), *save = NULL;
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t && n < MAX_TAGS;
         t = strtok_r(NULL, ",", &save))
      tags[n++] = strdup(t);
    free(list);
  }
  return n;
}

int cluster_metrics_open(cl_t *c)
{
  memset(&c->metrics, 0, sizeof(c->metrics));
  if (c->o.metrics_listen == NULL)
    return 0;
  char test[128], *tags[MAX_TAGS] = { NULL };
  unsigned ntags = run_tags(&c->o, tags);
  int rc = sb_metrics_output_at(c->o.metrics_listen, c->o.metrics_linger, tags, ntags,
                                test_name(&c->o, test, sizeof(test)), c->o.threads * c->n,
                                c->o.rate, &c->metrics);
  for (unsigned i = 0; i < ntags; i++)
    free(tags[i]);
  if (rc != 0)
  {
    memset(&c->metrics, 0, sizeof(c->metrics));
    return 1;
  }
  log_text(LOG_NOTICE, "cluster: the merged metrics of the %u processes at "
           "http://%s/metrics", c->n, c->o.metrics_listen);
  return 0;
}

/* ---- the merged per-statement series ---------------------------------------- */

/* At most this many commands get series (as a single run's page). */
#define STMT_SERIES_MAX 256

static pthread_mutex_t stmt_mtx = PTHREAD_MUTEX_INITIALIZER;
static json_t *stmts;           /* the merged document's "statements" */

static json_int_t num(const json_t *o, const char *key)
{
  return json_integer_value(json_object_get(o, key));
}

/* A latency of entry `e` in seconds (its latency_ms member `key`). */
static double lat_s(const json_t *e, const char *key)
{
  return json_number_value(json_object_get(json_object_get(e, "latency_ms"), key)) / 1e3;
}

/* The merged document's statements `a` as the series' figures (at most
   STMT_SERIES_MAX, as a single run's page); the strings stay `a`'s. */
static sb_prom_stmt_t *stmt_figures(const json_t *a, size_t *n)
{
  *n = json_array_size(a) < STMT_SERIES_MAX ? json_array_size(a) : STMT_SERIES_MAX;
  sb_prom_stmt_t *st = calloc(*n ? *n : 1, sizeof(*st));
  for (size_t i = 0; st && i < *n; i++)
  {
    const json_t *e = json_array_get(a, i);
    st[i] = (sb_prom_stmt_t) {
      .script = (unsigned) num(e, "script_index"), .command = (unsigned) num(e, "command"),
      .script_name = json_string_value(json_object_get(e, "script")),
      .text = json_string_value(json_object_get(e, "text")),
      .count = (uint64_t) num(e, "count"), .failures = (uint64_t) num(e, "failures"),
      .retries = (uint64_t) num(e, "retries"),
      .sum_s = lat_s(e, "avg") * (double) num(e, "count"),
      .p50_s = lat_s(e, "p50"), .p95_s = lat_s(e, "p95"), .p99_s = lat_s(e, "p99") };
  }
  return st;
}

/* The page's source (sb_metrics_extra_source): the merged statements'
   families. The HTTP thread. */
static char *stmt_page(const char *labels, bool om, size_t *len)
{
  char *page = NULL;
  pthread_mutex_lock(&stmt_mtx);
  if (stmts)
  {
    size_t n;
    sb_prom_stmt_t *st = stmt_figures(stmts, &n);
    if (st)
      page = sb_prom_render_statements(st, n, labels, om, true, len);
    free(st);
  }
  else
  {
    page = strdup("");
    *len = 0;
  }
  pthread_mutex_unlock(&stmt_mtx);
  return page;
}

void cluster_metrics_statements(cl_t *c)
{
  if (c->metrics.close == NULL || c->merge == NULL)
    return;
  const json_t *doc = sb_cluster_merge_document(c->merge);
  json_t *a = doc ? json_object_get(doc, "statements") : NULL;
  if (!json_is_array(a) || json_array_size(a) == 0)
    return;
  pthread_mutex_lock(&stmt_mtx);
  json_decref(stmts);
  stmts = json_deep_copy(a);
  pthread_mutex_unlock(&stmt_mtx);
  sb_metrics_extra_source(stmt_page);
}

void cluster_metrics_statements_free(void)
{
  sb_metrics_extra_source(NULL);
  pthread_mutex_lock(&stmt_mtx);
  json_decref(stmts);
  stmts = NULL;
  pthread_mutex_unlock(&stmt_mtx);
}
