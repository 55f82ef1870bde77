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

/* "# HELP" / "# TYPE"; OpenMetrics names a counter family without
   _total. */
static void family(FILE *f, bool om, const char *name, const char *type, const char *help)
{
  size_t n = strlen(name);
  int base = (int) n;
  if (om && strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
    base = (int) n - 6;
  fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", base, name, help, base, name, type);
}

static json_int_t num(const json_t *o, const char *key)
{
  return json_integer_value(json_object_get(o, key));
}

/* A latency of entry `e` in seconds (its latency_ms member `key`). */
static double lat_s(const json_t *e, const char *key)
{
  return json_number_value(json_object_get(json_object_get(e, "latency_ms"), key)) / 1e3;
}

/* The families of the statements `a` (the single run's names, labels and
   help: docs/metrics.md "pgbench scripts") into `f`. */
static void stmt_families(FILE *f, const json_t *a, const char *labels, bool om)
{
  size_t n = json_array_size(a) < STMT_SERIES_MAX ? json_array_size(a) : STMT_SERIES_MAX;
  family(f, om, "bmk_statement_command", "gauge",
         "1 per pgbench script command: its script's name and first line (labels script and "
         "command: the indexes of the Statements block)");
  for (size_t i = 0; i < n; i++)
  {
    const json_t *e = json_array_get(a, i);
    char name[520] = "", text[260] = "", cut[121];
    const char *t = json_string_value(json_object_get(e, "text"));
    snprintf(cut, sizeof(cut), "%s", t ? t : "");
    sb_prom_escape(name, sizeof(name), json_string_value(json_object_get(e, "script")) ?
                   json_string_value(json_object_get(e, "script")) : "");
    sb_prom_escape(text, sizeof(text), cut);
    fprintf(f, "bmk_statement_command{%s,script=\"%" JSON_INTEGER_FORMAT "\",command=\"%"
            JSON_INTEGER_FORMAT "\",script_name=\"%s\",text=\"%s\"} 1\n", labels,
            num(e, "script_index"), num(e, "command"), name, text);
  }
  family(f, om, "bmk_statement_latency_seconds", "summary",
         "pgbench script commands' latencies over the measured time, seconds, merged over "
         "the processes (quantiles of the added HDR histograms; _count: the commands run)");
  static const char *const q[3][2] = { { "0.5", "p50" }, { "0.95", "p95" }, { "0.99", "p99" } };
  for (size_t i = 0; i < n; i++)
  {
    const json_t *e = json_array_get(a, i);
    char cl[96];
    snprintf(cl, sizeof(cl), "script=\"%" JSON_INTEGER_FORMAT "\",command=\"%"
             JSON_INTEGER_FORMAT "\"", num(e, "script_index"), num(e, "command"));
    for (int k = 0; k < 3; k++)
      fprintf(f, "bmk_statement_latency_seconds{%s,%s,quantile=\"%s\"} %.17g\n", labels, cl,
              q[k][0], lat_s(e, q[k][1]));
    fprintf(f, "bmk_statement_latency_seconds_sum{%s,%s} %.17g\n", labels, cl,
            lat_s(e, "avg") * (double) num(e, "count"));
    fprintf(f, "bmk_statement_latency_seconds_count{%s,%s} %" JSON_INTEGER_FORMAT "\n", labels,
            cl, num(e, "count"));
  }
  static const char *const ctr[2][3] = {
    { "bmk_statement_failures_total", "failures",
      "pgbench script commands whose transaction failed there after its last try" },
    { "bmk_statement_retries_total", "retries",
      "pgbench script commands whose error had their transaction tried again" } };
  for (int c = 0; c < 2; c++)
  {
    family(f, om, ctr[c][0], "counter", ctr[c][2]);
    for (size_t i = 0; i < n; i++)
    {
      const json_t *e = json_array_get(a, i);
      fprintf(f, "%s{%s,script=\"%" JSON_INTEGER_FORMAT "\",command=\"%" JSON_INTEGER_FORMAT
              "\"} %" JSON_INTEGER_FORMAT "\n", ctr[c][0], labels, num(e, "script_index"),
              num(e, "command"), num(e, ctr[c][1]));
    }
  }
}

/* The page's source (sb_metrics_extra_source): the merged statements'
   families. The HTTP thread. */
static char *stmt_page(const char *labels, bool om, size_t *len)
{
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (f == NULL)
    return NULL;
  pthread_mutex_lock(&stmt_mtx);
  if (stmts)
    stmt_families(f, stmts, labels, om);
  pthread_mutex_unlock(&stmt_mtx);
  if (fclose(f) != 0)
  {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
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
