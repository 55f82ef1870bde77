/* The analytic queries of a run in an HTML page; see sb_html_priv.h
   (sb_html_spans_chart, sb_html_spans_end). */
#include <math.h>
#include <stdio.h>

#include "results/sb_html_priv.h"

double sb_html_spans_end(const sb_results_file_t *doc)
{
  double end = 0;
  size_t i;
  const json_t *q;
  json_array_foreach(json_object_get(doc->doc, "analytic_queries"), i, q)
  {
    double e = sb_json_num(q, "end_s", NULL);
    if (isfinite(e) && e > end)
      end = e;
  }
  return end;
}

/* The x axis' end: the timeline's (its last interval, or the last query's
   end when later), so that both charts share their seconds. */
static double x_end(const sb_results_file_t *doc)
{
  double tmax = sb_html_spans_end(doc);
  size_t i;
  const json_t *row;
  json_array_foreach(json_object_get(doc->doc, "intervals"), i, row)
  {
    double t = sb_json_num(row, "time_s", NULL);
    if (isfinite(t) && t > tmax)
      tmax = t;
  }
  return tmax > 0 ? tmax : 1.0;
}

int sb_html_spans_chart(html_ctx_t *c, const sb_results_file_t *doc)
{
  const json_t *spans = json_object_get(doc->doc, "analytic_queries");
  if (json_array_size(spans) == 0)
    return 0;
  int streams = 1;
  size_t i;
  const json_t *q;
  json_array_foreach(spans, i, q)
  {
    double s = sb_json_num(q, "stream", NULL);
    if (isfinite(s) && s > streams && s <= 1000)
      streams = (int) s;
  }
  FILE *d = sb_html_chart_begin(c, "Runs", 120 + 30 * (unsigned) (streams < 16 ? streams : 16),
                                "%s: the analytic queries per stream (each from its start to its "
                                "end, labelled with its query number; the timeline's seconds)",
                                doc->path);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts, valid = 0;
  json_array_foreach(spans, i, q)
  {
    double s = sb_json_num(q, "stream", NULL), n = sb_json_num(q, "query", NULL);
    double t0 = sb_json_num(q, "start_s", NULL), t1 = sb_json_num(q, "end_s", NULL);
    if (!isfinite(s) || !isfinite(n) || !isfinite(t0) || !isfinite(t1))
      continue;
    fprintf(d, "%d %.6f %.6f %d\n", (int) s, t0, t1, (int) n);
    valid++;
  }
  if (valid == 0)
    fputs("0 - - -\n", d);
  fclose(d);
  fprintf(c->gp, "set lmargin 10\nunset key\nset style fill solid 0.6 border -1\n"
          "set xrange [0:%g]\nset yrange [0.4:%g]\nset ytics 1\nset xlabel 'seconds'\n",
          x_end(doc), (double) streams + 0.6);
  char plot[4200];
  snprintf(plot, sizeof(plot), "plot '%s/c%u.dat' using (($2+$3)/2):1:2:3:($1-0.3):($1+0.3) "
           "with boxxyerror lc rgb '#1f5fbf', '' using (($2+$3)/2):1:(sprintf('Q%%d', $4)) "
           "with labels font ',8'", c->dir, id);
  /* sb_html_panel sets yrange [0:*]; the rows need theirs */
  fprintf(c->gp, "set ylabel 'stream'\n");
  if (valid > 0)
    fprintf(c->gp, "%s\n", plot);
  else
    fprintf(c->gp, "set label 1 'no data' at graph 0.5, 0.5 center\nplot NaN notitle\n"
            "unset label 1\n");
  fprintf(c->gp, "unset xlabel\nset ytics autofreq\nset style fill empty\nset xrange [*:*]\n"
          "set yrange [*:*]\n");
  return 0;
}
