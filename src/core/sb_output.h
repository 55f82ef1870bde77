/*
 * The engine's outputs: one interface through which a run's numbers leave
 * the engine (docs/design.md "One run").
 *
 * The engine publishes snapshots to the outputs registered for the run and
 * names none of them: before the workers start (open), when the measured
 * time starts (start), at the end of every interval (interval: about once
 * a second, or every --report-interval), and once at the end (end). Who
 * registers what is decided above the engine (src/cli/sb_outputs.c): the
 * text report (with a built-in test's or a script's report hooks), the
 * --results / --hdr-log files, the --metrics-listen endpoint, --save and
 * a script's report_final hook.
 *
 * An output that fails while the run goes on (a full disk, a socket
 * error) returns non-zero: the registry prints one WARNING naming it and
 * the reason the output printed before, switches it off for the rest of
 * the run, and counts the failure (sb_output_failures) so the run's exit
 * code can say so. It never stops the run or the other outputs. A
 * failure in `open` (before anything was measured: a path that cannot be
 * written, a port in use) is the run's error instead.
 *
 * Threads: register, open, start and end are called by the main thread;
 * interval and checkpoint by the reporter thread (one at a time, between
 * start and end).
 * Snapshots are borrowed: valid during the call only.
 */
#ifndef SB_OUTPUT_H
#define SB_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sb_evtype.h"
#include "core/sb_histogram.h"
#include "core/sb_stat.h"

/* When the measured time starts (after any warmup). */
typedef struct {
  double epoch_s;              /* wall clock at the start, Unix seconds */
  unsigned threads;            /* --threads (VUs) */
  double rate;                 /* --rate, events/s (0 = none) */
} sb_out_start_t;

/* One interval: counts and percentiles over it (st: time_interval,
   time_total and the counters of that interval only). */
typedef struct {
  const sb_stat_t *st;
  const sb_hdr_t *hist;        /* the interval's latencies (ns) */
  const sb_evtype_stat_t *types; /* sb_evtype_count() entries, or NULL */
  double start_s;              /* the interval's start, seconds since the
                                  measured start */
  uint64_t late;               /* events over --latency-limit */
  double lag_ms;               /* rate mode: the schedule's lag */
  unsigned vus_running;        /* VUs still running their events */
} sb_out_interval_t;

/* A checkpoint (--report-checkpoints): the cumulative numbers since the
   last checkpoint (or the start), after which the counting starts anew. */
typedef struct {
  const sb_stat_t *st;
  double at_s;                 /* when, seconds since the measured start */
} sb_out_checkpoint_t;

/* One VU's figures for --debug's per-thread lines (seconds). */
typedef struct {
  double min, avg, max, total;
  uint64_t events;
} sb_out_thread_t;

/* The end: cumulative numbers of the measured time (what the final report
   prints). */
typedef struct {
  const sb_stat_t *st;
  const sb_hdr_t *hist;        /* the run's latencies (ns) */
  const sb_evtype_stat_t *types; /* sb_evtype_count() entries, or NULL */
  const sb_type_row_t *rows;   /* per-type rows (nrows) */
  unsigned nrows;
  uint64_t late;               /* events over --latency-limit */
  const char *interrupted;     /* why the run was cut short, or NULL */
  int exit_code;               /* the run's exit code so far */
  unsigned unfinished;         /* events still running at a forced end,
                                  counted to its end */
  bool forced;                 /* a forced shutdown (or a stuck end) */
  const sb_out_thread_t *vus;  /* per VU (nvus), with --debug only, else NULL */
  unsigned nvus;
} sb_out_end_t;

/* An output. Every function is optional (NULL = not interested); each
   returns 0, or non-zero on failure after printing why. `ctx` is passed
   back untouched. */
typedef struct {
  const char *name;            /* for messages: "--results", "--metrics-listen" */
  int (*open)(void *ctx);
  int (*start)(void *ctx, const sb_out_start_t *s);
  int (*interval)(void *ctx, const sb_out_interval_t *iv);
  int (*checkpoint)(void *ctx, const sb_out_checkpoint_t *c);
  int (*end)(void *ctx, const sb_out_end_t *e);
  void (*close)(void *ctx);    /* after end, or instead of it; frees ctx */
  void *ctx;
} sb_output_t;

/* Adds an output for the next run (copied). At most 16. Returns 0, or -1
   when full. Main thread, before sb_engine_run. */
int sb_output_register(const sb_output_t *out);

/* True when an output wants interval snapshots (the reporter then makes
   one every second even without --report-interval: an output that only
   wants them with it registers its interval function only then). Any
   thread. */
bool sb_output_wants_intervals(void);

/* Publishing (the engine). open: 0, or -1 when an output cannot open (its
   reason printed; the outputs opened are closed). start / interval / end:
   to every output still on; a failing one is switched off with a
   WARNING. end returns the number of outputs that failed during the run
   (0 when all of them completed). */
int sb_output_open(void);
void sb_output_start(const sb_out_start_t *s);
void sb_output_interval(const sb_out_interval_t *iv);
void sb_output_checkpoint(const sb_out_checkpoint_t *c);
unsigned sb_output_end(const sb_out_end_t *e);

/* Closes every output and forgets them (after end, or at a run that
   ended before its start). Main thread. */
void sb_output_close(void);

/* Outputs that failed so far in this run. Any thread. */
unsigned sb_output_failures(void);

/* An output's verdict on the run (a missed --threshold: 3): asks that the
   run exit with `code` (1..125) when nothing worse happened. The highest
   code asked for wins; the engine uses it only when the run itself would
   exit 0. Called from an output's end; any thread. */
void sb_output_request_exit(int code);

/* The exit code asked for by sb_output_request_exit in this run, or 0.
   Reset by sb_output_open. Any thread. */
int sb_output_requested_exit(void);

#endif
