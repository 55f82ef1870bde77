/*
 * Figures of a run: single values that are neither the engine's counters
 * nor latencies, published once at the end of the measured window by
 * whoever measured them, for every output to show: the server's own
 * counters over the window (the server-statistics probe: commits,
 * rollbacks, rows) and a workload's figures (tpcc: NOPM and TPM).
 *
 * A figure is a plain value, or a count over the measured window that
 * outputs show per minute (NOPM: New-Orders counted in the window, shown
 * as count / window minutes, the same division as the workload's own
 * report). Outputs read them in their `end` (core/sb_output.h): the
 * --metrics-listen gauges, `summary.figures` in --results.
 *
 * Thread-safe (one mutex); a handful of figures per run.
 */
#ifndef SB_FIGURE_H
#define SB_FIGURE_H

#include <stdbool.h>

#define SB_FIGURE_MAX 64         /* figures per run */
#define SB_FIGURE_NAME_MAX 48    /* bytes, including the NUL */
#define SB_FIGURE_HELP_MAX 160   /* bytes, including the NUL */

/* sb_figure_set's flags. */
#define SB_FIGURE_PER_MINUTE 1   /* value: a count over the window, shown per minute */
#define SB_FIGURE_SERVER 2       /* a measure of the database (its own counters, a
                                    schema count): every client of one database sees
                                    the same, so merged runs on one database do not
                                    add it up (results/sb_merge_figures.h) */

typedef struct {
  char name[SB_FIGURE_NAME_MAX];  /* [a-z0-9_], starts with a letter */
  char help[SB_FIGURE_HELP_MAX];  /* one line: what it is, where from */
  bool per_minute;             /* value: a count over the window */
  bool server;                 /* SB_FIGURE_SERVER: the database's, not this client's */
  double value;
} sb_figure_t;

/*
 * Sets figure `name` to `value` (replacing an earlier value of the same
 * name). `help` may be NULL. `flags`: SB_FIGURE_PER_MINUTE (`value` is a
 * count over the measured window, shown per minute) and SB_FIGURE_SERVER
 * (the database's measure, not this client's), or 0. Returns 0, or -1 when the name is
 * not [a-z][a-z0-9_]* of at most SB_FIGURE_NAME_MAX-1 bytes or the table
 * is full (nothing stored). Any thread. Exported for LuaJIT FFI
 * (sysbench.figure, docs/lua-api.md).
 */
int sb_figure_set(const char *name, const char *help, int flags, double value);

/* Copies the figures set so far into out[0..max-1] in the order they
   were first set; returns how many. Any thread. */
unsigned sb_figure_list(sb_figure_t *out, unsigned max);

/* What an output shows for `f` after a window of `window_s` seconds:
   the value, or value / (window_s / 60) for a per-minute figure (0 for
   an empty window). */
double sb_figure_shown(const sb_figure_t *f, double window_s);

/* Forgets every figure (a new run). Any thread. */
void sb_figure_reset(void);

#endif
