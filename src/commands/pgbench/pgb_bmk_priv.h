/*
 * The parts of pgbench scripts under bmk's command line (pgb_bmk.h):
 * pgb_bmk.c (options, scripts, prepare, cleanup, the run),
 * pgb_bmk_stmt.c (each script command's latencies over the measured
 * window: the report's block and --results' "statements") and
 * pgb_bmk_stmt_live.c (the same per interval: --results' interval rows'
 * "statements" and the --metrics-listen series).
 */
#ifndef PGB_BMK_PRIV_H
#define PGB_BMK_PRIV_H

#include <pthread.h>
#include <stdbool.h>

#include <jansson.h>

#include "commands/pgbench/pgb.h"
#include "commands/pgbench/pgb_client.h"
#include "core/sb_histogram.h"
#include "core/sb_output.h"

/* The commands' counters at one moment (or a difference of two), one
   entry per command of every script (pgb_cfg.ncmds). */
typedef struct {
  pgb_cmdstat_t *cs;
  sb_hdr_t **h;               /* latencies, ns */
} pgb_stmt_sample_t;

/* The samples of a run; `mtx` guards them between the main thread (start,
   end), the reporter thread (intervals) and the metrics' HTTP thread
   (which reads pgb_bmk_stmt_live.c's own copy). */
typedef struct {
  pthread_mutex_t mtx;
  pgb_stmt_sample_t base;     /* the measured window's start */
  pgb_stmt_sample_t prev;     /* the last interval's end (base at first) */
  pgb_stmt_sample_t cur;      /* scratch: a new sample */
  pgb_stmt_sample_t diff;     /* scratch: a difference */
  pgb_stmt_sample_t ivd;      /* the last sampled interval's figures */
  pgb_stmt_sample_t end;      /* the window's end, after the end */
  pgb_stmt_sample_t last;     /* the window (end - base), after the end */
  bool started, ended, have_window;
  unsigned intervals;         /* interval samples taken */
  double iv_start;            /* the last sampled interval's start, s */
  double hdr_start;           /* the last interval in --hdr-log, s */
  bool hdr_tail_logged;       /* --hdr-log's last lines written */
} pgb_stmt_state_t;

extern pgb_stmt_state_t pgb_stmt;

/* Registers what samples the commands' counters at the measured
   window's edges (an output's start; a probe's end, the workers parked
   at the end line) and at each interval, prints the "Statements" block
   after the report (the probe's block), sets --results' "statements"
   and its interval rows' "statements", and the --metrics-listen
   series. After the clients exist (pgb_run_init_clients). Returns 0, or
   1 when memory is short or the registries are full (FATAL printed).
   Main thread. */
int pgb_bmk_stmt_register(void);

/* Frees the samples (after the run). Main thread. */
void pgb_bmk_stmt_free(void);

/* s = the clients' cumulative counters now (under their locks; the
   histograms with relaxed loads). Caller holds pgb_stmt.mtx. */
void pgb_stmt_sample_take(pgb_stmt_sample_t *s);

/* One command's figures as the document's and the interval rows'
   "statements" entries have them: {script_index, command, count,
   failures, retries, latency_ms: {avg, p50, p95, p99, max} (ms),
   hdr_v2_compressed_base64}, and with `named` also {script, weight,
   text} (script `s`, its command `i`; `cs` and `h` the figures, h in
   ns). A new reference, NULL when memory is short. Any thread (reads
   its arguments and pgb_cfg). */
json_t *pgb_stmt_entry_json(unsigned s, unsigned i, const pgb_cmdstat_t *cs,
                            const sb_hdr_t *h, bool named);

/* d = a (a copy). Caller holds pgb_stmt.mtx when they are its samples. */
void pgb_stmt_sample_copy(pgb_stmt_sample_t *d, const pgb_stmt_sample_t *a);

/* d = a - b (b an earlier sample of the same counters). Caller holds
   pgb_stmt.mtx when they are its samples. */
void pgb_stmt_sample_diff(pgb_stmt_sample_t *d, const pgb_stmt_sample_t *a,
                          const pgb_stmt_sample_t *b);

/* Sets --results' "statements" from the window (last) and, when
   interval rows were taken, each command's after_last_interval (end -
   prev). Called at the end and again for an interval row taken after
   it (the reporter may deliver the last interval while or after the
   main thread takes the end sample). Caller holds pgb_stmt.mtx; the
   end was sampled. */
void pgb_stmt_set_member(void);

/* The output's interval function: samples the counters for the
   interval that started iv->start_s (once per interval, whichever of
   this and --results' row asks first). Returns 0. Reporter thread. */
int pgb_stmt_interval(void *ctx, const sb_out_interval_t *iv);

/* The figures the metrics page shows: `w`, cumulative over the window
   so far. Caller holds pgb_stmt.mtx. */
void pgb_stmt_live_set(const pgb_stmt_sample_t *w);

/* Hands --results the interval rows' source and --metrics-listen the
   page's source. Returns 0, or 1 (FATAL printed) when memory is short.
   Main thread. */
int pgb_stmt_live_register(void);

/* Takes the sources back and frees the live figures. Main thread. */
void pgb_stmt_live_free(void);

#endif
