/* The cluster's --results document and the report's per-type table; see
   results/sb_cluster_merge.h. Main thread (the coordinator's). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/sb_logger.h"
#include "commands/cluster/sb_cluster_merge.h"
#include "commands/cluster/sb_cluster_merge_priv.h"
#include "results/sb_report_file.h"
#include "results/sb_hdrlog.h"
#include "results/sb_merge.h"
#include "results/sb_results_file.h"

/* What the cluster's report and document do not merge (docs/cluster.md). */
static const char *const not_merged[] = {
  "server statistics and server cost (off in the processes: the server's counters "
  "are global; run them from one process or `bmk report` the server's own)",
  "a workload's own report blocks (TPC-C's response-time lines: the per-type table has "
  "each type's counts and percentiles; its NOPM is under Figures, and TPM too when the "
  "processes sample the server)",
};

/* The "intervals" array of the document. */
static json_t *json_intervals(const sb_cluster_merge_t *m)
{
  json_t *a = json_array();
  for (size_t i = 0; i < m->niv; i++)
  {
    const cl_iv_t *v = &m->iv[i];
    if (!v->printed)
      continue;
    json_t *procs = json_object();
    for (unsigned p = 0; p < m->cfg.nprocs; p++)
      if (v->phist[p])
        json_object_set_new(procs, m->cfg.names[p], json_string(v->phist[p]));
    char *hh = sb_hdr_encode_v2_base64(v->h);
    json_array_append_new(a, json_pack("{s:f,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:I,s:s?,s:o}",
      "t", (double) (i + 1) * m->cfg.interval_s, "len_s", v->len_s,
      "events", (json_int_t) v->c.events, "reads", (json_int_t) v->c.reads,
      "writes", (json_int_t) v->c.writes, "other", (json_int_t) v->c.other,
      "errors", (json_int_t) v->c.errors, "reconnects", (json_int_t) v->c.reconnects,
      "processes", (int) v->nproc,
      "pct_ns", (json_int_t) sb_hdr_percentile(v->h, m->cfg.percentile ? m->cfg.percentile : 95),
      "hist", hh, "hist_by_process", procs));
    free(hh);
  }
  return a;
}

/* The "cluster" object: the live merge's summary, intervals, processes and
   what is not merged (new reference, NULL on OOM). */
static json_t *cluster_json(const sb_cluster_merge_t *m)
{
  sb_cluster_counts_t c;
  double time_s, min_s, max_s, sum_s;
  unsigned nend;
  sb_hdr_t *h = sb_cluster_merged_end(m, &c, &time_s, &min_s, &max_s, &sum_s, &nend);
  if (h == NULL)
    return NULL;
  unsigned pct = m->cfg.percentile ? m->cfg.percentile : 95;
  json_t *procs = json_array();
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
  {
    const cl_proc_t *pr = &m->p[p];
    json_t *o = json_pack("{s:s,s:b,s:I,s:I,s:f,s:i}", "name", m->cfg.names[p],
                          "in_summary", pr->has_end, "events", (json_int_t) pr->c.events,
                          "queries", (json_int_t) (pr->c.reads + pr->c.writes + pr->c.other),
                          "time_s", pr->time_s, "exit_code", pr->exit_code);
    if (pr->lost_at_s >= 0)
      json_object_set_new(o, "lost_at_s", json_real(pr->lost_at_s));
    if (pr->why[0])
      json_object_set_new(o, "failure", json_string(pr->why));
    if (pr->notes)
      json_object_set(o, "notes", pr->notes);
    json_array_append_new(procs, o);
  }
  json_t *nm = json_array();
  for (size_t i = 0; i < sizeof(not_merged) / sizeof(not_merged[0]); i++)
    json_array_append_new(nm, json_string(not_merged[i]));
  char *hh = sb_hdr_encode_v2_base64(h);
  json_t *doc = json_pack("{s:s,s:i,s:i,s:f,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:i,s:I,"
                          "s:f,s:f,s:f,s:s?},s:o,s:o,s:o}",
    "kind", "bmk-cluster", "processes", (int) m->cfg.nprocs, "processes_in_summary", (int) nend,
    "interval_s", m->cfg.interval_s,
    "summary", "events", (json_int_t) c.events, "reads", (json_int_t) c.reads,
    "writes", (json_int_t) c.writes, "other", (json_int_t) c.other,
    "queries", (json_int_t) (c.reads + c.writes + c.other), "errors", (json_int_t) c.errors,
    "reconnects", (json_int_t) c.reconnects, "time_s", time_s, "percentile", (int) pct,
    "pct_ns", (json_int_t) sb_hdr_percentile(h, pct), "latency_min_s", min_s,
    "latency_max_s", max_s, "latency_sum_s", sum_s, "hist", hh,
    "intervals", json_intervals(m), "per_process", procs, "not_merged", nm);
  free(hh);
  sb_hdr_free(h);
  return doc;
}

/* The documents of the processes in the summary, merged as `bmk report
   --merge` does (one of them: itself). NULL when none has one; on a merge
   error NULL with the reason printed. */
static json_t *merged_docs(sb_cluster_merge_t *m)
{
  sb_results_file_t *d = calloc(m->cfg.nprocs, sizeof(sb_results_file_t));
  if (d == NULL)
    return NULL;
  unsigned n = 0;
  char err[1024] = "";
  int rc = 0;
  /* every process of the summary, or none: a merged document of fewer
     processes than the summary would contradict it */
  for (unsigned p = 0; p < m->cfg.nprocs; p++)
    if (m->p[p].has_end && m->p[p].doc == NULL)
    {
      log_text(LOG_ALERT, "cluster: %s sent no document: --results holds the live merge "
               "only, and --html / --save have nothing to use", m->cfg.names[p]);
      free(d);
      return NULL;
    }
  for (unsigned p = 0; rc == 0 && p < m->cfg.nprocs; p++)
    if (m->p[p].has_end && m->p[p].doc)
    {
      rc = sb_results_file_adopt(&d[n], m->cfg.names[p], json_deep_copy(m->p[p].doc), err,
                         sizeof(err));
      n += rc == 0;
    }
  json_t *out = NULL;
  if (rc == 0 && n == 1)
    out = json_deep_copy(d[0].doc);
  else if (rc == 0 && n > 1)
    out = sb_merge_docs(d, n, m->doc_note, sizeof(m->doc_note), err, sizeof(err));
  if (rc != 0 || (n > 1 && out == NULL))
    log_text(LOG_ALERT, "cluster: the processes' documents were not merged: %s; --results "
             "holds the live merge only", err);
  for (unsigned i = 0; i < n; i++)
    sb_results_file_free(&d[i]);
  free(d);
  return out;
}

const json_t *sb_cluster_merge_document(sb_cluster_merge_t *m)
{
  if (m->doc)
    return m->doc;
  json_t *cl = cluster_json(m);
  if (cl == NULL)
  {
    log_text(LOG_ALERT, "cluster: out of memory for the --results document");
    return NULL;
  }
  json_t *doc = merged_docs(m);
  if (doc == NULL)
    m->doc = cl;
  else
  {
    json_object_set_new(doc, "cluster", cl);
    m->doc = doc;
  }
  return m->doc;
}

int sb_cluster_merge_write_json(sb_cluster_merge_t *m, const char *path)
{
  const json_t *doc = sb_cluster_merge_document(m);
  if (doc == NULL ||
      json_dump_file(doc, path, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0)
  {
    log_text(LOG_FATAL, "cannot write the cluster's --results file %s", path);
    return -1;
  }
  return 0;
}

void sb_cluster_doc_report(sb_cluster_merge_t *m, FILE *out)
{
  const json_t *doc = sb_cluster_merge_document(m);
  if (doc && json_object_get(doc, "event_types"))
    sb_report_file_types(out, doc);
  if (doc)
    sb_report_file_statements(out, doc);
  if (doc)
    sb_report_file_figures(out, doc);
  if (m->doc_note[0])
    fprintf(out, "NOTE: %s\n\n", m->doc_note);
  fprintf(out, "Not merged (left out of this report and --results):\n");
  for (size_t i = 0; i < sizeof(not_merged) / sizeof(not_merged[0]); i++)
    fprintf(out, "    %s\n", not_merged[i]);
  fprintf(out, "\n");
}
