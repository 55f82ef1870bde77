/*
 * `bmk cluster run`'s exact merge (docs/cluster.md): parses the lines of
 * the children's --cluster-stream (results/sb_cluster_stream.h), sums
 * their counters and adds their HDR histograms counter for counter, so a
 * merged percentile is the percentile of the union of the processes'
 * latencies (never a mean or maximum of per-process percentiles), and
 * prints the merged interval lines, the final report and the per-process
 * section, and writes the cluster's --results document.
 *
 * Not thread-safe: the coordinator's one thread owns a merge.
 */
#ifndef SB_CLUSTER_MERGE_H
#define SB_CLUSTER_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/sb_cluster.h"
#include "core/sb_histogram.h"
#include "core/sb_output.h"

#include <jansson.h>

/* Counters of one interval or run. */
typedef struct {
  uint64_t events, reads, writes, other, errors, reconnects, late;
} sb_cluster_counts_t;

typedef enum { SB_CL_READY, SB_CL_PONG, SB_CL_IV, SB_CL_END, SB_CL_HB, SB_CL_NOTE,
               SB_CL_DOC } sb_cluster_kind_t;

/* One parsed stream line. `hist` (IV, END) is owned by the message until
   handed to the merge (which takes it) or freed by sb_cluster_msg_free. */
typedef struct {
  sb_cluster_kind_t kind;
  char version[64];            /* READY: the child's bmk release */
  bool generic;                /* READY: a built-in test (its report layout) */
  unsigned index;              /* READY */
  long pid;                    /* READY */
  uint64_t pong_us;            /* PONG: the child's wall clock, Unix us */
  long long k;                 /* IV: the interval's number (1, 2, ...) */
  double len_s;                /* IV */
  unsigned running;            /* IV: VUs running */
  sb_cluster_counts_t c;            /* IV, END */
  double time_s, min_s, max_s, sum_s; /* END: time, latency min/max/sum (s) */
  int exit_code;               /* END */
  char note_key[SB_CLUSTER_NOTE_KEY];     /* NOTE (sb_cluster_note) */
  char note_value[SB_CLUSTER_NOTE_VALUE]; /* NOTE */
  sb_hdr_t *hist;              /* IV, END */
  json_t *doc;                 /* DOC: the process's --results document (owned
                                  until handed to the merge) */
} sb_cluster_msg_t;

/* Parses `line` (no newline). Returns 1 with *m filled for a stream line,
   0 for a line that is not one ("bmkc " missing: the child's other
   output), -1 for a malformed stream line (reason in err). */
int sb_cluster_parse(const char *line, sb_cluster_msg_t *m, char *err, size_t errlen);

/* Frees what a message owns. */
void sb_cluster_msg_free(sb_cluster_msg_t *m);

typedef struct sb_cluster_merge sb_cluster_merge_t;

/* The merge's settings: the processes' names ("lg1#0"), how many, the
   interval length (s), --threads per process, --percentile (0 = off),
   whether interval lines print, and whether each gets per-process lines
   (--cluster-verbose). */
typedef struct {
  const char *const *names;
  unsigned nprocs;
  double interval_s;
  unsigned threads;
  unsigned percentile;
  bool print_intervals, verbose;
  bool generic;                /* a built-in test's layout (eps), not the SQL one */
  const sb_output_t *observer; /* NULL, or told each merged interval (interval: as
                                  its line is printed, whether or not lines print)
                                  and the merged end (end, from
                                  sb_cluster_merge_report, after the run's merged
                                  figures are published with core/sb_figure.h):
                                  the coordinator's --metrics-listen */
} sb_cluster_merge_cfg_t;

/* A new merge (cfg copied; names borrowed for its life), NULL on OOM. */
sb_cluster_merge_t *sb_cluster_merge_new(const sb_cluster_merge_cfg_t *cfg);
void sb_cluster_merge_free(sb_cluster_merge_t *m);

/* Takes process `p`'s interval, note or end message (its histogram moves
   into the merge; a note goes to the process's `notes` in the JSON).
   Returns 0, -1 on OOM. */
int sb_cluster_merge_add(sb_cluster_merge_t *m, unsigned p, sb_cluster_msg_t *msg);

/* Process `p` delivers nothing more (its end arrived, or it was lost:
   `lost_at_s` >= 0 then, seconds since the start, and `why`). */
void sb_cluster_merge_finish(sb_cluster_merge_t *m, unsigned p, double lost_at_s, const char *why);

/* The wall-clock time (Unix s) interval 0 starts at: the start time plus
   any warmup. With it the merge measures each merged line's delay after
   its interval's end. */
void sb_cluster_merge_set_t0(sb_cluster_merge_t *m, double t0_epoch);

/* Prints, in order, every merged interval that all processes still
   delivering have delivered ("[ 5s ] ... procs: 5/6"); with `all`, the
   rest too. */
void sb_cluster_merge_flush(sb_cluster_merge_t *m, FILE *out, bool all);

/* Prints the final report of the merged end messages, the processes
   contributing, the per-process section and the coordinator's own line
   (merged intervals, their delay after the interval's end, its CPU
   time). */
void sb_cluster_merge_report(sb_cluster_merge_t *m, FILE *out);

/* The cluster's --results document (docs/cluster.md "Results"): the
   processes' own documents ("bmkc doc") merged exactly as `bmk report
   --merge` merges runs (per-type rows, intervals on one clock, metrics),
   with a "cluster" object: the live merged intervals with each process's
   histogram, the per-process section (counts, exit, loss, notes) and
   what is not merged. Without any process document (none ended), the
   "cluster" object alone. Made once, after every process ended or was
   lost; borrowed (valid until sb_cluster_merge_free); NULL on OOM (ERROR
   printed). */
const json_t *sb_cluster_merge_document(sb_cluster_merge_t *m);

/* Writes sb_cluster_merge_document to `path`. 0, or -1 with an ERROR printed. */
int sb_cluster_merge_write_json(sb_cluster_merge_t *m, const char *path);

#endif
