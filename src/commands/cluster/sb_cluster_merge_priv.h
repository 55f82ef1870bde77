/*
 * The cluster merge's state, shared by results/sb_cluster_merge.c (the
 * stream's messages, the live lines, the report) and
 * results/sb_cluster_doc.c (the --results document). Not for other files.
 * Main thread (the coordinator's).
 */
#ifndef SB_CLUSTER_MERGE_PRIV_H
#define SB_CLUSTER_MERGE_PRIV_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "core/sb_histogram.h"
#include "commands/cluster/sb_cluster_merge.h"

/* One merged interval, and what each process gave to it (JSON). */
typedef struct {
  sb_cluster_counts_t c;
  unsigned running, nproc;
  double len_s;
  sb_hdr_t *h;
  char **phist;                /* per process: its encoded histogram or NULL */
  bool printed;
} cl_iv_t;

typedef struct {
  long long last_k;
  bool finished, has_end;
  double lost_at_s;            /* < 0: not lost */
  char why[160];
  sb_cluster_counts_t c;
  double time_s, min_s, max_s, sum_s;
  int exit_code;
  sb_hdr_t *h;
  json_t *notes;               /* key: [values] (its notes), NULL: none */
  json_t *doc;                 /* its --results document ("bmkc doc"), NULL: none */
} cl_proc_t;

struct sb_cluster_merge {
  sb_cluster_merge_cfg_t cfg;
  cl_proc_t *p;
  cl_iv_t *iv;                 /* iv[k - 1] */
  size_t niv;
  long long next_k;            /* the next interval to print */
  double t0;                   /* interval 0's start, Unix s (0: unknown) */
  unsigned nmerged;            /* intervals merged */
  double delay_sum, delay_max; /* their lines' delay after the interval's end, s */
  json_t *doc;                 /* the merged document, once made (sb_cluster_merge_document) */
  char doc_note[1024];          /* what the document merge said of the runs */
};


/* The merged end messages of the processes in the summary: their counts
   into *c, the longest measured time, latency min/max/sum (s) and how many
   ended (*nend). Returns the union of their run histograms (caller frees),
   NULL on OOM. */
sb_hdr_t *sb_cluster_merged_end(const sb_cluster_merge_t *m, sb_cluster_counts_t *c, double *time_s,
                           double *min_s, double *max_s, double *sum_s, unsigned *nend);

/* After the summary: the per-type table of the merged document (when the
   run named types) and the list of what is not merged. */
void sb_cluster_doc_report(sb_cluster_merge_t *m, FILE *out);

#endif
