/* `bmk cluster run`'s files of the merged run: --results, --html and
   --save (docs/cluster.md "Results"); see cli/sb_cluster_priv.h. Main
   thread. */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "commands/cluster/sb_cluster_priv.h"
#include "core/sb_logger.h"
#include "commands/cluster/sb_cluster_merge.h"
#include "results/sb_html.h"
#include "results/sb_results_file.h"
#include "resultsdb/sb_resultsdb.h"

/* The charts page of the merged document. 0, or 1 (ALERT printed). */
static int write_html(const json_t *doc, const char *path)
{
  sb_results_file_t d = { 0 };
  char err[1024];
  int rc = sb_results_file_adopt(&d, "the cluster's run", json_deep_copy(doc), err, sizeof(err));
  if (rc == 0)
    rc = sb_html_write(path, &d, 1, err, sizeof(err)) == 0 ? 0 : 1;
  if (rc != 0)
    log_text(LOG_ALERT, "cluster: --html=%s: %s", path, err);
  else
    log_text(LOG_NOTICE, "cluster: charts written to %s", path);
  sb_results_file_free(&d);
  return rc;
}

/* Saves the merged document as one run. 0, or 1 (ALERT printed). */
static int save(const json_t *doc, const char *option)
{
  char path[4096], err[512] = "";
  sb_resultsdb_path(option, path, sizeof(path));
  sb_resultsdb_t *s = sb_resultsdb_open(path, err, sizeof(err));
  int64_t id = s ? sb_resultsdb_save(s, doc, err, sizeof(err)) : -1;
  if (id < 0)
    log_text(LOG_ALERT, "cluster: --save: the run was not saved: %s", err);
  else
    log_text(LOG_NOTICE, "cluster: saved as run %lld in %s (bmk runs show %lld)",
             (long long) id, sb_resultsdb_name(s), (long long) id);
  sb_resultsdb_close(s);
  return id < 0;
}

int cluster_opts_write_outputs(cl_t *c)
{
  if (!c->o.results && !c->o.html && !c->o.save)
    return 0;
  const json_t *doc = sb_cluster_merge_document(c->merge);
  if (doc == NULL)
    return 1;
  int rc = 0;
  if (c->o.results && sb_cluster_merge_write_json(c->merge, c->o.results) != 0)
    rc = 1;
  bool whole = json_object_get(doc, "format") != NULL;
  if ((c->o.html || c->o.save) && !whole)
  {
    log_text(LOG_ALERT, "cluster: the processes' documents were not merged (said above): "
             "nothing for --html or --save");
    return 1;
  }
  if (c->o.html && write_html(doc, c->o.html) != 0)
    rc = 1;
  if (c->o.save && save(doc, c->o.results_db) != 0)
    rc = 1;
  return rc;
}
