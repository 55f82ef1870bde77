/*
 * The chart-drawing pieces that the HTML pages share (src/results/ only):
 * sb_html.c builds a page (gnuplot script, run, inline SVGs); a page kind
 * (sb_html_compare.c: bmk compare; sb_html_capacity.c: bmk capacity)
 * adds its own charts at the head of the page through sb_html_head_t.
 * None of this is thread-safe: one page is built at a time.
 */
#ifndef SB_HTML_PRIV_H
#define SB_HTML_PRIV_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "results/sb_results_file.h"

/* One chart: gnuplot writes dir/c<id>.svg, the page embeds it. */
typedef struct {
  unsigned id;
  char caption[512];
  const char *section;      /* heading it is listed under */
} chart_t;

/* A page being built. */
typedef struct {
  char dir[64];             /* temporary directory */
  FILE *gp;                 /* the gnuplot script */
  chart_t *charts;
  unsigned ncharts, cap;
  char *err;
  size_t errlen;
} html_ctx_t;

/* What a page kind puts at the head of the page. */
typedef struct {
  const char *title;        /* "report", "compare", "capacity": <h1>bmk TITLE */
  const char *intro;        /* plain text shown preformatted under the
                               title (escaped), or NULL */
  bool no_series;           /* no per-series tables and charts */
  /* Adds the kind's charts before the runs' (NULL: none); 0 or -1 with
     c->err set. */
  int (*charts)(html_ctx_t *c, const sb_results_file_t *docs, unsigned n, const void *arg);
  const void *arg;          /* passed to charts */
} sb_html_head_t;

/*
 * Writes the page of sb_html_write for `n` documents with `head`'s title,
 * intro and charts first. Returns 0, or -1 with the reason in `err`
 * (as sb_html_write).
 */
int sb_html_write_page(const char *path, const sb_results_file_t *docs, unsigned n,
                       const sb_html_head_t *head, char *err, size_t errlen);

/*
 * Starts chart `caption` (printf format) in `section`, `height` pixels
 * high (720 wide, scaled by the page): opens its data file, c->dir/c<id>.dat
 * with id = c->ncharts after the call (returned; the caller closes it),
 * and points gnuplot's output at its SVG. NULL with c->err on failure.
 */
FILE *sb_html_chart_begin(html_ctx_t *c, const char *section, unsigned height,
                          const char *fmt, ...);

/* Writes " v" to a data file, or " -" (gnuplot's missing value) for a
   NaN or infinite v. */
void sb_html_num(FILE *f, double v);

/* One panel of a stacked chart: `plot` (a gnuplot plot command) with
   `ylabel`, or, when `valid` is 0 (its column has no value at all), an
   empty frame saying "no data": gnuplot stops on a plot without a valid
   point, which would lose the whole page. */
void sb_html_panel(FILE *gp, unsigned valid, const char *ylabel, const char *plot);

/* For a `bmk tpch run` document (one with a "tpch" section): the power
   test's seconds per step as bars and the throughput test's streams as a
   timeline (sb_html_tpch.c), in the section "TPC-H-derived runs"; 0, or
   -1 with c->err set. */
int sb_html_tpch_charts(html_ctx_t *c, const sb_results_file_t *doc);

/* For a run whose document has "analytic_queries" (bmk chbench run):
   a chart below its timeline, each query a bar on its stream's row from
   its start to its end, labelled Q<n>, over the timeline's seconds
   (sb_html_spans.c); nothing when there are none. 0, or -1 with c->err
   set. */
int sb_html_spans_chart(html_ctx_t *c, const sb_results_file_t *doc);

/* For a `bmk chbench run --baseline` document (summary.figures has
   chbench_alone_mean_qNN_seconds): a chart of each query's mean time
   alone (chbench_alone_mean_qNN_seconds) beside mixed
   (chbench_mean_qNN_seconds), two bars per query that has either, in
   seconds, the y axis logarithmic when the times span more than a factor
   50, each bar labelled with its value to 3 significant digits
   (sb_html_alone.c); nothing for a document without the alone side. 0,
   or -1 with c->err set. */
int sb_html_alone_chart(html_ctx_t *c, const sb_results_file_t *doc);

/* The latest end_s of doc's "analytic_queries", seconds (0 when none):
   the timeline's x axis reaches it. */
double sb_html_spans_end(const sb_results_file_t *doc);

/* Writes `s` HTML-escaped (& < > "). */
void sb_html_text(FILE *f, const char *s);

/* For each document with an "endpoints" array (--endpoints runs): a
   heading and a table of its endpoints' counts, p95/max latency, largest
   replica lag and backlog (sb_html_endpoints.c). */
void sb_html_endpoint_tables(FILE *out, const sb_results_file_t *docs, unsigned n);

/* An interval row's p95 in ms: from its histogram, else its
   latency_ms.p95; NaN when neither is there. */
double sb_html_interval_p95(const json_t *row);

#endif
