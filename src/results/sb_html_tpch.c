/* The charts of a `bmk tpch run` document in an HTML page; see
   sb_html_priv.h (sb_html_tpch_charts). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/sb_html_priv.h"

/* A step's stream as a row of the timeline: 1..S for the query streams,
   S+1 for the refresh stream ("RF"), 0 for the power test (not drawn). */
static int stream_row(const json_t *step, int streams)
{
  const json_t *s = json_object_get(step, "stream");
  if (json_is_integer(s))
    return (int) json_integer_value(s);
  return streams + 1;
}

/* The power test's seconds per step, one bar each in the order run
   (RF1, the 22 queries in stream 0's order, RF2); a failed step has no
   bar. */
static int chart_power(html_ctx_t *c, const sb_results_file_t *doc, const json_t *power)
{
  const json_t *steps = json_object_get(power, "steps");
  FILE *d = sb_html_chart_begin(c, "TPC-H-derived runs", 360,
                                "%s: the power test's seconds per step (stream 0's order)",
                                doc->path);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts, valid = 0;
  size_t i;
  const json_t *st;
  json_array_foreach(steps, i, st)
  {
    const char *name = sb_json_str(st, "name", NULL);
    double secs = sb_json_num(st, "seconds", NULL);
    fprintf(d, "%zu %s", i, name ? name : "?");
    sb_html_num(d, secs);
    fputc('\n', d);
    valid += isfinite(secs) ? 1 : 0;
  }
  if (json_array_size(steps) == 0)
    fputs("0 - -\n", d);
  fclose(d);
  fprintf(c->gp, "set lmargin 10\nunset key\nset style fill solid 0.8\nset boxwidth 0.7\n"
          "set xrange [-0.7:%g]\nset yrange [0:*]\nset xtics rotate by -60 font ',9'\n",
          json_array_size(steps) ? (double) json_array_size(steps) - 0.3 : 1.0);
  char plot[4200];
  snprintf(plot, sizeof(plot), "plot '%s/c%u.dat' using 1:3:xtic(2) with boxes lc rgb '#1f5fbf'",
           c->dir, id);
  sb_html_panel(c->gp, valid, "seconds", plot);
  fprintf(c->gp, "set xtics norotate autofreq font ''\nset style fill empty\nunset boxwidth\n"
          "set xrange [*:*]\nset yrange [*:*]\n");
  return 0;
}

/* The throughput test's timeline: one row per query stream and one for
   the refresh stream, each step a bar from its start to its end
   (seconds after the test's start); failed steps in red. */
static int chart_streams(html_ctx_t *c, const sb_results_file_t *doc, const json_t *tput)
{
  const json_t *steps = json_object_get(tput, "steps");
  int streams = (int) sb_json_num(tput, "streams", NULL);
  if (!(streams >= 1))
    streams = 1;
  FILE *d = sb_html_chart_begin(c, "TPC-H-derived runs", 120 + 40 * (unsigned) streams,
                                "%s: the throughput test's streams (each step from its start "
                                "to its end; RF: the refresh stream; red: failed)", doc->path);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts, valid = 0;
  double tmax = sb_json_num(tput, "ts_s", NULL);
  size_t i;
  const json_t *st;
  json_array_foreach(steps, i, st)
  {
    double t0 = sb_json_num(st, "start_s", NULL), secs = sb_json_num(st, "seconds", NULL);
    const char *status = sb_json_str(st, "status", NULL);
    if (!isfinite(t0))
      continue;                 /* not run */
    bool ok = status && strcmp(status, "ok") == 0 && isfinite(secs);
    fprintf(d, "%d %.6f %.6f %d\n", stream_row(st, streams), t0, ok ? t0 + secs : t0,
            ok ? 0 : 1);
    valid++;
  }
  if (valid == 0)
    fputs("0 - - -\n", d);
  fclose(d);
  fprintf(c->gp, "set lmargin 10\nunset key\nset style fill solid 0.8 border -1\n"
          "set xrange [0:%g]\nset yrange [0.4:%g]\nset ytics (", isfinite(tmax) && tmax > 0
          ? tmax : 1.0, (double) streams + 1.6);
  for (int s = 1; s <= streams; s++)
    fprintf(c->gp, "'%d' %d, ", s, s);
  fprintf(c->gp, "'RF' %d)\nset xlabel 'seconds'\n", streams + 1);
  char plot[4200];
  snprintf(plot, sizeof(plot), "plot '%s/c%u.dat' using (($2+$3)/2):1:2:3:($1-0.35):($1+0.35):"
           "($4 > 0 ? 0xc0392b : 0x1f5fbf) with boxxyerror lc rgb variable", c->dir, id);
  sb_html_panel(c->gp, valid, "stream", plot);
  fprintf(c->gp, "unset xlabel\nset ytics autofreq\nset style fill empty\nset xrange [*:*]\n"
          "set yrange [*:*]\n");
  return 0;
}

int sb_html_tpch_charts(html_ctx_t *c, const sb_results_file_t *doc)
{
  const json_t *t = json_object_get(doc->doc, "tpch");
  const json_t *power = json_object_get(t, "power");
  const json_t *tput = json_object_get(t, "throughput");
  if (json_is_object(power) && chart_power(c, doc, power) != 0)
    return -1;
  if (json_is_object(tput) && chart_streams(c, doc, tput) != 0)
    return -1;
  return 0;
}
