/* bmk compare --html: both sides' runs, headed by their timelines
   overlaid; see sb_html.h. */
#include <math.h>
#include <stdio.h>

#include "results/sb_html.h"
#include "results/sb_html_priv.h"

/* The first `na` documents are side A, the next `nb` side B. */
typedef struct {
  unsigned na, nb;
  const char *label_a, *label_b;
} overlay_t;

/* bmk compare: every run's per-interval tps and p95 on one time axis,
   side A's runs in one colour and B's in another (one data block per
   run, gnuplot's `index`). */
static int chart_overlay(html_ctx_t *c, const sb_results_file_t *docs, unsigned n, const void *arg)
{
  const overlay_t *ov = arg;
  FILE *d = sb_html_chart_begin(c, "A against B", 480, "A (%s, blue) against B (%s, red): tps "
                                "and p95 per interval, one line per run", ov->label_a,
                                ov->label_b);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts, valid[2] = { 0, 0 };
  double tmax = 0;
  for (unsigned r = 0; r < n; r++)
  {
    size_t i;
    const json_t *row;
    unsigned rows = 0;
    json_array_foreach(json_object_get(docs[r].doc, "intervals"), i, row)
    {
      double t = sb_json_num(row, "time_s", NULL);
      double v[2] = { sb_json_num(row, "tps", NULL), sb_html_interval_p95(row) };
      sb_html_num(d, t);
      sb_html_num(d, v[0]);
      sb_html_num(d, v[1]);
      fputc('\n', d);
      rows++;
      for (int k = 0; k < 2; k++)
        valid[k] += !isnan(t) && isfinite(v[k]);
      if (isfinite(t) && t > tmax)
        tmax = t;
    }
    if (rows == 0)
      fputs("0 - -\n", d);
    fputs("\n\n", d);            /* the end of this run's block */
  }
  fclose(d);
  fprintf(c->gp, "set multiplot layout 2,1\nset lmargin 10\nset xrange [0:%g]\n"
          "set key outside right top\n", tmax > 0 ? tmax : 1.0);
  for (int k = 0; k < 2; k++)
  {
    char plot[8192];
    size_t m = (size_t) snprintf(plot, sizeof(plot), "plot");
    for (unsigned r = 0; r < n && m < sizeof(plot) - 200; r++)
      m += (size_t) snprintf(plot + m, sizeof(plot) - m, "%s '%s/c%u.dat' index %u using 1:%d "
                             "with lines lw 1.5 lc rgb '%s' title '%s %u'", r ? "," : "", c->dir,
                             id, r, k + 2, r < ov->na ? "#1f5fbf" : "#c0392b",
                             r < ov->na ? "A" : "B", r < ov->na ? r + 1 : r - ov->na + 1);
    if (k == 1)
      fprintf(c->gp, "set xlabel 'seconds'\n");
    sb_html_panel(c->gp, valid[k], k ? "p95 (ms)" : "tps", plot);
  }
  fprintf(c->gp, "unset multiplot\n");
  return 0;
}

int sb_html_write_compare(const char *path, const sb_results_file_t *docs, unsigned na, unsigned nb,
                          const char *label_a, const char *label_b, char *err, size_t errlen)
{
  overlay_t ov = { na, nb, label_a, label_b };
  sb_html_head_t head = { .title = "compare", .charts = na && nb ? chart_overlay : NULL,
                          .arg = &ov };
  return sb_html_write_page(path, docs, na + nb, &head, err, errlen);
}
