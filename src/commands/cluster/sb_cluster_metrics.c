/* `bmk cluster run --metrics-listen`: one scrape target for the run, the
   coordinator serving its processes' merged numbers; see
   cli/sb_cluster_priv.h and docs/metrics.md "Cluster runs". */
#include <stdlib.h>
#include <string.h>

#include "commands/cluster/sb_cluster_priv.h"
#include "core/sb_logger.h"
#include "metrics/sb_metrics.h"

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
