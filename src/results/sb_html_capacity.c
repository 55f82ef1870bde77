/* bmk capacity --html: the search's curve, then each step's run; see
   sb_html.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/sb_logger.h"
#include "results/sb_html.h"
#include "results/sb_html_priv.h"

/* One step of the search, as its chart plots it. */
typedef struct {
  double target, tps, p50, p95, p99;
  int verdict;              /* 1 pass, 2 fail/saturated/client-limited,
                               3 repeated (noise, all-VUs-busy) */
} cap_point_t;

/* The search as the chart needs it (from the bmk-capacity document). */
typedef struct {
  const json_t *doc;
  bool users;               /* --mode=users: x is users, not offered rate */
  cap_point_t *pts;
  unsigned n;
} cap_chart_t;

static int by_target(const void *a, const void *b)
{
  double x = ((const cap_point_t *) a)->target, y = ((const cap_point_t *) b)->target;
  return x < y ? -1 : x > y;
}

static int verdict_code(const char *v)
{
  if (v == NULL)
    return 2;
  if (strncmp(v, "pass", 4) == 0)
    return 1;
  /* runs the step repeated: within noise, or with a larger pool */
  return strncmp(v, "noise", 5) == 0 || strncmp(v, "all-VUs-busy", 12) == 0 ? 3 : 2;
}

/* Vertical dashed line at x with a label at height `y` (graph share):
   the knee. The answer's label sits left of its line, the saturation's
   right of it, so two close lines keep readable labels. */
static void marker(FILE *gp, unsigned tag, double x, double y, bool left, const char *colour,
                   const char *label)
{
  if (!isfinite(x) || x <= 0)
    return;
  fprintf(gp, "set arrow %u from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lw 1.5 lc rgb '%s'\n"
          "set label %u '%s %.10g' at %.10g, graph %g %s offset %s,0 textcolor rgb '%s'\n",
          tag, x, x, colour, tag, label, x, x, y, left ? "right" : "left", left ? "-0.5" : "0.5",
          colour);
}

/* Throughput, then p50/p95/p99, against the offered rate (or users):
   the SLO bounds drawn as horizontal lines, the highest passing step
   (the answer) and the saturation marked. */
static int chart_capacity(html_ctx_t *c, const sb_results_file_t *docs, unsigned n, const void *arg)
{
  (void) docs;
  (void) n;
  const cap_chart_t *k = arg;
  const char *x = k->users ? "users" : "offered rate (events/s)";
  FILE *d = sb_html_chart_begin(c, "Capacity search", 560, "throughput and latency against %s, one "
                                "point per run (green: pass, red: fail or saturated, grey: "
                                "run again: within noise or all VUs busy); the SLO bounds and "
                                "the answer marked", x);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts, lat = 0;
  double lo = INFINITY, hi = 0;
  for (unsigned i = 0; i < k->n; i++)
  {
    const cap_point_t *p = &k->pts[i];
    fprintf(d, "%.10g", p->target);
    sb_html_num(d, p->tps);
    sb_html_num(d, p->p50);
    sb_html_num(d, p->p95);
    sb_html_num(d, p->p99);
    fprintf(d, " %d\n", p->verdict);
    lat += isfinite(p->p99) || isfinite(p->p95) || isfinite(p->p50);
    lo = fmin(lo, p->target);
    hi = fmax(hi, p->target);
  }
  if (k->n == 0)
    fputs("1 - - - - 1\n", d);
  fclose(d);
  FILE *gp = c->gp;
  fprintf(gp, "set multiplot layout 2,1\nset lmargin at screen 0.1\nset rmargin at screen 0.76\n"
          "set key outside right top\n"
          "set offsets graph 0.03, graph 0.03, graph 0.05, 0\n");
  if (k->n > 0 && lo > 0 && hi >= 8 * lo)
    fprintf(gp, "set logscale x 2\n");
  const json_t *a = json_object_get(k->doc, "answer");
  double best = json_number_value(json_object_get(a, "max_sustainable"));
  double sat = json_number_value(json_object_get(a, "saturation"));
  /* the saturation's label goes right of its line unless the line is
     in the right third of the axis (it would be cut off) */
  bool log = k->n > 0 && lo > 0 && hi >= 8 * lo;
  double at = hi > lo ? (log ? log2(sat / lo) / log2(hi / lo) : (sat - lo) / (hi - lo)) : 1;
  marker(gp, 1, best, 0.93, true, "#1e8449", "max sustainable");
  marker(gp, 2, sat, 0.83, !(at < 0.67), "#c0392b", "saturation");
  char plot[2048], f[128];
  snprintf(f, sizeof(f), "'%s/c%u.dat'", c->dir, id);
  /* points coloured by verdict; the line through every step */
  snprintf(plot, sizeof(plot), "plot %s using 1:2 with lines lc rgb '#999999' notitle, "
           "%s using 1:($6==1?$2:1/0) with points pt 7 ps 0.8 lc rgb '#1e8449' title 'pass', "
           "%s using 1:($6==2?$2:1/0) with points pt 7 ps 0.8 lc rgb '#c0392b' title 'fail', "
           "%s using 1:($6==3?$2:1/0) with points pt 6 ps 0.8 lc rgb '#777777' title 'repeated'%s",
           f, f, f, f, k->users ? "" : ", x with lines dt 3 lc rgb '#555555' title 'offered'");
  sb_html_panel(gp, k->n, "achieved tps", plot);
  fprintf(gp, "unset label 1\nunset label 2\nset xlabel '%s'\n", x);
  /* the latency SLOs as horizontal lines */
  size_t m = (size_t) snprintf(plot, sizeof(plot), "plot %s using 1:3 with linespoints pt 7 "
                               "ps 0.5 title 'p50', %s using 1:4 with linespoints pt 5 ps 0.5 "
                               "title 'p95', %s using 1:5 with linespoints pt 9 ps 0.6 "
                               "title 'p99'", f, f, f);
  size_t i;
  const json_t *s;
  json_array_foreach(json_object_get(k->doc, "slos"), i, s)
  {
    const char *kind = json_string_value(json_object_get(s, "kind"));
    double b = json_number_value(json_object_get(s, "bound"));
    const char *t = json_string_value(json_object_get(s, "text"));
    if (kind && strcmp(kind, "lat") == 0 && isfinite(b) && t && strchr(t, '\'') == NULL &&
        m < sizeof(plot) - 200)
      m += (size_t) snprintf(plot + m, sizeof(plot) - m, ", %.10g with lines dt 2 lw 1.5 "
                             "lc rgb '#8e44ad' title 'SLO %s'", b, t);
  }
  /* log y: the SLO region stays readable beside saturated steps'
     seconds of queueing */
  if (lat > 0)
    fprintf(gp, "set ylabel 'latency (ms), log scale'\nset logscale y 10\nset yrange [*:*]\n%s\n",
            plot);
  else
    sb_html_panel(gp, lat, "latency (ms)", plot);
  fprintf(gp, "unset multiplot\n");
  return 0;
}

/* Fills k->pts from the document's steps, sorted by target. */
static int load_points(cap_chart_t *k, char *err, size_t errlen)
{
  const json_t *steps = json_object_get(k->doc, "steps");
  k->n = 0;
  k->pts = calloc(json_array_size(steps) + 1, sizeof(cap_point_t));
  if (k->pts == NULL)
    return sb_errf(err, errlen, "out of memory");
  size_t i;
  const json_t *st;
  json_array_foreach(steps, i, st)
  {
    cap_point_t *p = &k->pts[k->n++];
    p->target = sb_json_num(st, "target", NULL);
    p->tps = sb_json_num(st, "tps", NULL);
    p->p50 = sb_json_num(st, "p50_ms", NULL);
    p->p95 = sb_json_num(st, "p95_ms", NULL);
    p->p99 = sb_json_num(st, "p99_ms", NULL);
    p->verdict = verdict_code(json_string_value(json_object_get(st, "verdict")));
  }
  qsort(k->pts, k->n, sizeof(cap_point_t), by_target);
  return 0;
}

/* The answer lines of the document, one per line ("" when none). */
static char *intro_text(const json_t *doc)
{
  size_t len = 1, i;
  const json_t *l;
  const json_t *lines = json_object_get(json_object_get(doc, "answer"), "lines");
  json_array_foreach(lines, i, l)
    len += strlen(json_string_value(l) ? json_string_value(l) : "") + 1;
  char *t = calloc(1, len);
  json_array_foreach(lines, i, l)
    if (t && json_string_value(l))
    {
      strcat(t, json_string_value(l));
      strcat(t, "\n");
    }
  return t;
}

int sb_html_write_capacity(const char *path, const char *search_json, char *err, size_t errlen)
{
  json_error_t je;
  json_t *doc = json_load_file(search_json, 0, &je);
  if (doc == NULL)
    return sb_errf(err, errlen, "%s: not readable as JSON (line %d: %s)", search_json,
                   je.line, je.text);
  const char *fmt = json_string_value(json_object_get(doc, "format"));
  if (fmt == NULL || strcmp(fmt, "bmk-capacity") != 0)
  {
    json_decref(doc);
    return sb_errf(err, errlen, "%s: not a bmk capacity document", search_json);
  }
  cap_chart_t k = { .doc = doc };
  const char *mode = json_string_value(json_object_get(doc, "mode"));
  k.users = mode && strcmp(mode, "users") == 0;
  const json_t *steps = json_object_get(doc, "steps");
  size_t nsteps = json_array_size(steps), i;
  sb_results_file_t *docs = calloc(nsteps + 1, sizeof(sb_results_file_t));
  int rc = docs ? load_points(&k, err, errlen) : sb_errf(err, errlen, "out of memory");
  unsigned nd = 0;
  const json_t *st;
  json_array_foreach(steps, i, st)
  {
    const char *f = json_string_value(json_object_get(st, "file"));
    if (rc == 0 && f)
      rc = sb_results_file_load(f, &docs[nd++], err, errlen);
  }
  char *intro = rc == 0 ? intro_text(doc) : NULL;
  if (rc == 0)
  {
    sb_html_head_t head = { .title = "capacity", .intro = intro, .no_series = true,
                            .charts = chart_capacity, .arg = &k };
    rc = sb_html_write_page(path, docs, nd, &head, err, errlen);
  }
  for (unsigned j = 0; j < nd; j++)
    sb_results_file_free(&docs[j]);
  free(docs);
  free(k.pts);
  free(intro);
  json_decref(doc);
  return rc;
}
