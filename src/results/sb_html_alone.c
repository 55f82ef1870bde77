/* A `bmk chbench run --baseline` document's analytic query times alone
   beside mixed in an HTML page; see sb_html_priv.h (sb_html_alone_chart). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "results/sb_html_priv.h"

#define QUERIES 22              /* CH-benCHmark's queries, Q1..Q22 */

/* Above this ratio of the largest to the smallest time the y axis is
   logarithmic: on a linear one the short queries' bars would not show. */
#define LOG_RATIO 50.0

/* summary.figures.<name>.value for query q's figure `fmt` (a format with
   one %02d), NaN when the document has none. */
static double query_figure(const sb_results_file_t *doc, const char *fmt, int q)
{
  char name[64];
  snprintf(name, sizeof(name), fmt, q);
  return sb_json_num(doc->doc, "summary", "figures", name, "value", NULL);
}

/* A value of the data file: 17 significant digits (the figure as the
   document has it), or gnuplot's missing value '-'. */
static void data_num(FILE *d, double v)
{
  if (isfinite(v))
    fprintf(d, " %.17g", v);
  else
    fputs(" -", d);
}

/* The plot command: the bars and the value labels of the columns that
   have a value (gnuplot stops on a plot element without a valid point). */
static void plot_command(html_ctx_t *c, unsigned id, unsigned n_alone, unsigned n_mixed)
{
  static const char *const LABELS = "with labels rotate by 90 left offset 0,0.3 font ',7' "
                                    "notitle";
  fprintf(c->gp, "plot ");
  const char *sep = "";
  if (n_alone > 0)
  {
    fprintf(c->gp, "'%s/c%u.dat' using ($1-0.19):3:xtic(2) with boxes lc rgb '#9dbbe8' "
            "title 'alone'", c->dir, id);
    sep = ", ";
  }
  if (n_mixed > 0)
  {
    fprintf(c->gp, "%s'%s/c%u.dat' using ($1+0.19):4%s with boxes lc rgb '#1f5fbf' "
            "title 'mixed'", sep, c->dir, id, n_alone > 0 ? "" : ":xtic(2)");
    sep = ", ";
  }
  if (n_alone > 0)
    fprintf(c->gp, ", '%s/c%u.dat' using ($1-0.19):3:(sprintf('%%.3g', $3)) %s", c->dir, id,
            LABELS);
  if (n_mixed > 0)
    fprintf(c->gp, ", '%s/c%u.dat' using ($1+0.19):4:(sprintf('%%.3g', $4)) %s", c->dir, id,
            LABELS);
  fputc('\n', c->gp);
}

int sb_html_alone_chart(html_ctx_t *c, const sb_results_file_t *doc)
{
  double alone[QUERIES + 1], mixed[QUERIES + 1];
  unsigned n_alone = 0, n_mixed = 0, rows = 0;
  double lo = INFINITY, hi = 0;
  for (int q = 1; q <= QUERIES; q++)
  {
    alone[q] = query_figure(doc, "chbench_alone_mean_q%02d_seconds", q);
    mixed[q] = query_figure(doc, "chbench_mean_q%02d_seconds", q);
    double v[2] = { alone[q], mixed[q] };
    for (int k = 0; k < 2; k++)
      if (isfinite(v[k]) && v[k] > 0)
      {
        lo = fmin(lo, v[k]);
        hi = fmax(hi, v[k]);
      }
    n_alone += isfinite(alone[q]) ? 1 : 0;
    n_mixed += isfinite(mixed[q]) ? 1 : 0;
    rows += isfinite(alone[q]) || isfinite(mixed[q]) ? 1 : 0;
  }
  if (n_alone == 0)
    return 0;                   /* no alone side: no --baseline */
  bool logy = hi > 0 && hi / lo > LOG_RATIO;
  FILE *d = sb_html_chart_begin(c, "Runs", 400, "%s: analytic query times alone vs mixed (each "
                                "query's mean time in seconds, in the streams-alone phase of "
                                "--baseline and in the mixed run%s)", doc->path,
                                logy ? "; log scale" : "");
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts, row = 0;
  for (int q = 1; q <= QUERIES; q++)
  {
    if (!isfinite(alone[q]) && !isfinite(mixed[q]))
      continue;
    fprintf(d, "%u Q%d", row++, q);
    data_num(d, alone[q]);
    data_num(d, mixed[q]);
    fputc('\n', d);
  }
  fclose(d);
  fprintf(c->gp, "set lmargin 10\nset key inside left top\nset style fill solid 0.8 border -1\n"
          "set boxwidth 0.38\nset xrange [-0.7:%g]\nset ylabel 'seconds'\n",
          (double) rows - 0.3);
  if (logy)
    /* boxes grow from the bottom of a log axis: keep it below the
       smallest bar, and room above the largest for its label */
    fprintf(c->gp, "set logscale y\nset yrange [%g:%g]\n", lo / 3, hi * 8);
  else
    fprintf(c->gp, "set yrange [0:%g]\n", hi > 0 ? hi * 1.25 : 1.0);
  plot_command(c, id, n_alone, n_mixed);
  fprintf(c->gp, "unset logscale y\nunset ylabel\nset style fill empty\nunset boxwidth\n"
          "set xrange [*:*]\nset yrange [*:*]\nset key outside right top\n");
  return 0;
}
