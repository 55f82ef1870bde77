/* HTML charts drawn by gnuplot; see sb_html.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_logger.h"
#include "core/sb_version.h"
#include "results/sb_html.h"
#include "results/sb_html_priv.h"
#include "results/sb_series_table.h"

#define MAX_DBL_GROUPS 64

static const char *svg_dir;

void sb_html_set_svg_dir(const char *dir)
{
  svg_dir = dir && *dir ? dir : NULL;
}

/* gnuplot's path: $BMK_GNUPLOT, else `gnuplot` on PATH. */
static int find_gnuplot(char *buf, size_t len)
{
  const char *env = getenv("BMK_GNUPLOT");
  if (env && *env)
  {
    snprintf(buf, len, "%s", env);
    return access(buf, X_OK) == 0 ? 0 : -1;
  }
  const char *path = getenv("PATH");
  char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  int rc = -1;
  for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && rc != 0;
       d = strtok_r(NULL, ":", &save))
  {
    snprintf(buf, len, "%s/gnuplot", d);
    rc = access(buf, X_OK);
  }
  free(copy);
  return rc;
}

void sb_html_text(FILE *f, const char *s)
{
  for (; *s; s++)
    switch (*s)
    {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
}

void sb_html_num(FILE *f, double v)
{
  if (isnan(v) || isinf(v))
    fputs(" -", f);
  else
    fprintf(f, " %.6g", v);
}

FILE *sb_html_chart_begin(html_ctx_t *c, const char *section, unsigned height,
                         const char *fmt, ...)
{
  if (c->ncharts == c->cap)
  {
    unsigned cap = c->cap ? c->cap * 2 : 16;
    chart_t *bigger = realloc(c->charts, cap * sizeof(chart_t));
    if (bigger == NULL)
      return sb_errf(c->err, c->errlen, "out of memory"), NULL;
    c->charts = bigger;
    c->cap = cap;
  }
  chart_t *ch = &c->charts[c->ncharts];
  ch->id = c->ncharts + 1;
  ch->section = section;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ch->caption, sizeof(ch->caption), fmt, ap);
  va_end(ap);
  char path[128];
  snprintf(path, sizeof(path), "%s/c%u.dat", c->dir, ch->id);
  FILE *d = fopen(path, "w");
  if (d == NULL)
    return sb_errf(c->err, c->errlen, "cannot write %s: %s", path, strerror(errno)), NULL;
  c->ncharts++;
  fprintf(c->gp, "\nreset\nset terminal svg size 720,%u dynamic noenhanced font 'sans,10' "
          "background '#ffffff'\nset datafile missing '-'\nset grid\n"
          "set key outside right top\nset output '%s/c%u.svg'\n", height, c->dir, ch->id);
  return d;
}

/* x = users: tics at the user counts of the series, log scale (base 2)
   when they span a factor of 8 or more. */
static void x_users_axis(FILE *gp, const sb_series_t *s, const char *label)
{
  unsigned lo = 0, hi = 0;
  fprintf(gp, "set xtics (");
  for (unsigned i = 0; i < s->n; i++)
  {
    unsigned u = s->rows[i].users;
    if (i == 0 || u != s->rows[i - 1].users)
      fprintf(gp, "%s%u", i ? ", " : "", u);
    if (lo == 0 || u < lo)
      lo = u;
    if (u > hi)
      hi = u;
  }
  fprintf(gp, ")\n");
  if (lo >= 1 && hi >= 8 * lo)
    fprintf(gp, "set logscale x 2\n");
  fprintf(gp, "set xlabel '%s'\nset offsets graph 0.03, graph 0.03, graph 0.05, 0\n", label);
}

/* True when some run of `s` has a throughput: a series of documents
   without events (bmk tpch run's) has nothing to draw, and gnuplot stops
   on a plot without a valid point. */
static bool series_has_tps(const sb_series_t *s)
{
  for (unsigned i = 0; i < s->n; i++)
    if (isfinite(s->rows[i].tps))
      return true;
  return false;
}

/* Throughput and latency vs users, for one series (none when no run of
   it has a throughput). */
static int charts_series(html_ctx_t *c, const sb_series_t *s)
{
  if (!series_has_tps(s))
    return 0;
  FILE *d = sb_html_chart_begin(c, "Series", 360, "%s: throughput vs users", s->label);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts;
  for (unsigned i = 0; i < s->n; i++)
  {
    const sb_series_row_t *r = &s->rows[i];
    fprintf(d, "%u", r->users);
    sb_html_num(d, r->tps);
    sb_html_num(d, r->qps);
    sb_html_num(d, r->p95_ms);
    sb_html_num(d, r->p99_ms);
    fputc('\n', d);
  }
  fclose(d);
  x_users_axis(c->gp, s, "users (threads)");
  /* tps and qps differ by the queries per transaction (20 in
     oltp_read_write): each gets its own axis so both curves show shape */
  fprintf(c->gp, "set ylabel 'tps'\nset y2label 'qps'\nset ytics nomirror\nset y2tics\n"
          "set yrange [0:*]\nset y2range [0:*]\nset key top left\n"
          "plot '%s/c%u.dat' using 1:2 axes x1y1 with linespoints pt 7 title 'tps (left)', "
          "'' using 1:3 axes x1y2 with linespoints pt 5 title 'qps (right)'\n", c->dir, id);
  if ((d = sb_html_chart_begin(c, "Series", 360, "%s: latency vs users", s->label)) == NULL)
    return -1;
  fclose(d);
  x_users_axis(c->gp, s, "users (threads)");
  fprintf(c->gp, "set ylabel 'latency (ms)'\nset yrange [0:*]\n"
          "plot '%s/c%u.dat' using 1:4 with linespoints pt 7 title 'p95', "
          "'' using 1:5 with linespoints pt 5 title 'p99'\n", c->dir, id);
  return 0;
}

double sb_html_interval_p95(const json_t *row)
{
  sb_hdr_t *h = sb_hdr_new();
  double v = NAN;
  if (h && sb_results_file_add_hist(row, h, NULL, 0) > 0)
    v = h->total ? (double) sb_hdr_percentile(h, 95) / 1e6 : NAN;
  else
    v = sb_json_num(row, "latency_ms", "p95", NULL);
  sb_hdr_free(h);
  return v;
}

void sb_html_panel(FILE *gp, unsigned valid, const char *ylabel, const char *plot)
{
  fprintf(gp, "set ylabel '%s'\n", ylabel);
  if (valid > 0)
    fprintf(gp, "set yrange [0:*]\n%s\n", plot);
  else
    fprintf(gp, "set yrange [0:1]\nset label 1 'no data' at graph 0.5, 0.5 center\n"
            "plot NaN notitle\nunset label 1\n");
}

/* The per-interval timeline of one run: tps, p95, errors/s stacked. */
static int chart_timeline(html_ctx_t *c, const sb_results_file_t *doc)
{
  FILE *d = sb_html_chart_begin(c, "Runs", 540, "%s: %s, %u threads, per interval", doc->path,
                        doc->test[0] ? doc->test : "?", doc->threads);
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts;
  size_t i;
  const json_t *row;
  unsigned valid[3] = { 0, 0, 0 };
  double tmax = 0;
  json_array_foreach(json_object_get(doc->doc, "intervals"), i, row)
  {
    double t = sb_json_num(row, "time_s", NULL);
    double v[3] = { sb_json_num(row, "tps", NULL), sb_html_interval_p95(row),
                    sb_json_num(row, "errors_per_s", NULL) };
    sb_html_num(d, t);
    for (int k = 0; k < 3; k++)
    {
      sb_html_num(d, v[k]);
      if (!isnan(t) && isfinite(v[k]))
        valid[k]++;
    }
    fputc('\n', d);
    if (isfinite(t) && t > tmax)
      tmax = t;
  }
  if (json_array_size(json_object_get(doc->doc, "intervals")) == 0)
    fprintf(d, "0 - - -\n");
  fclose(d);
  if (sb_html_spans_end(doc) > tmax)
    tmax = sb_html_spans_end(doc);
  /* an explicit x range: autoscaling has nothing to scale on in an
     empty panel */
  fprintf(c->gp, "set multiplot layout 3,1\nset lmargin 10\nset xrange [0:%g]\nunset key\n",
          tmax > 0 ? tmax : 1.0);
  char plot[4200];
  snprintf(plot, sizeof(plot), "plot '%s/c%u.dat' using 1:2 with linespoints pt 7 ps 0.4 lw 1.5",
           c->dir, id);
  sb_html_panel(c->gp, valid[0], "tps", plot);
  snprintf(plot, sizeof(plot), "plot '%s/c%u.dat' using 1:3 with linespoints pt 7 ps 0.4 lw 1.5 lc 2",
           c->dir, id);
  sb_html_panel(c->gp, valid[1], "p95 (ms)", plot);
  fprintf(c->gp, "set xlabel 'seconds'\n");
  snprintf(plot, sizeof(plot), "plot '%s/c%u.dat' using 1:4 with linespoints pt 7 ps 0.4 lw 1.5 lc 7",
           c->dir, id);
  sb_html_panel(c->gp, valid[2], "errors/s", plot);
  fprintf(c->gp, "unset multiplot\n");
  return 0;
}

/* A DBL chart's line: the value of the key not on the x axis (jobs or
   tx size) and the load method, which changes the rates as much. */
typedef struct {
  double v;
  const char *method;
} dbl_line_t;

static double dbl_key(const sb_series_row_t *r, bool tx)
{
  return tx ? r->tx_size : r->users;
}

/* Distinct values of a DBL key (users or tx size), sorted. */
static unsigned distinct(const sb_series_row_t *const *rows, unsigned n, bool tx, double *out)
{
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++)
  {
    double v = dbl_key(rows[i], tx);
    unsigned j = 0;
    while (j < k && out[j] != v)
      j++;
    if (j == k && k < MAX_DBL_GROUPS && !isnan(v))
      out[k++] = v;
  }
  for (unsigned i = 1; i < k; i++)
    for (unsigned j = i; j > 0 && out[j - 1] > out[j]; j--)
    {
      double t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return k;
}

/* Distinct (key value, load method) pairs, sorted by method then value. */
static unsigned distinct_lines(const sb_series_row_t *const *rows, unsigned n, bool tx,
                               dbl_line_t *out)
{
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++)
  {
    double v = dbl_key(rows[i], tx);
    const char *m = rows[i]->load_method;
    unsigned j = 0;
    while (j < k && !(out[j].v == v && strcmp(out[j].method, m) == 0))
      j++;
    if (j == k && k < MAX_DBL_GROUPS && !isnan(v))
      out[k++] = (dbl_line_t) { v, m };
  }
  for (unsigned i = 1; i < k; i++)
    for (unsigned j = i; j > 0; j--)
    {
      int c = strcmp(out[j - 1].method, out[j].method);
      if (c < 0 || (c == 0 && out[j - 1].v <= out[j].v))
        break;
      dbl_line_t t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return k;
}

/* rows/s vs one key (x), one line per value of the other key and load
   method: gnuplot data blocks separated by two blank lines (index N). */
static int chart_dbl(html_ctx_t *c, const sb_series_row_t *const *rows, unsigned n, bool x_tx)
{
  double xs[MAX_DBL_GROUPS];
  dbl_line_t lines[MAX_DBL_GROUPS];
  unsigned nx = distinct(rows, n, x_tx, xs), nl = distinct_lines(rows, n, !x_tx, lines);
  FILE *d = sb_html_chart_begin(c, "DBL", 360, "DBL: rows/s vs %s", x_tx ? "transaction size (rows per "
                        "commit, 0 = bulk)" : "jobs");
  if (d == NULL)
    return -1;
  unsigned id = c->ncharts;
  for (unsigned l = 0; l < nl; l++)
  {
    for (unsigned k = 0; k < nx; k++)
      for (unsigned i = 0; i < n; i++)
        if (dbl_key(rows[i], x_tx) == xs[k] && dbl_key(rows[i], !x_tx) == lines[l].v &&
            strcmp(rows[i]->load_method, lines[l].method) == 0)
        {
          fprintf(d, "%u", k);
          sb_html_num(d, rows[i]->rows_s);
          fputc('\n', d);
        }
    fprintf(d, "\n\n");
  }
  fclose(d);
  fprintf(c->gp, "set xlabel '%s'\nset ylabel 'rows/s'\nset yrange [0:*]\nset xrange [-0.5:%g]\n"
          "set xtics (", x_tx ? "rows per commit" : "jobs", nx - 0.5);
  for (unsigned k = 0; k < nx; k++)
    fprintf(c->gp, "%s'%g' %u", k ? ", " : "", xs[k], k);
  fprintf(c->gp, ")\nplot ");
  for (unsigned l = 0; l < nl; l++)
    fprintf(c->gp, "%s'%s/c%u.dat' index %u using 1:2 with linespoints pt 7 title '%s %g%s%s'",
            l ? ", " : "", c->dir, id, l, x_tx ? "jobs" : "tx size", lines[l].v,
            lines[l].method[0] ? ", " : "", lines[l].method);
  fprintf(c->gp, "%s\n", nl ? "" : "NaN notitle");
  return 0;
}

static int charts_dbl(html_ctx_t *c, const sb_series_t *s, unsigned ns)
{
  unsigned total = 0;
  for (unsigned g = 0; g < ns; g++)
    total += s[g].n;
  const sb_series_row_t **rows = calloc(total ? total : 1, sizeof(*rows));
  if (rows == NULL)
    return sb_errf(c->err, c->errlen, "out of memory");
  unsigned n = 0;
  for (unsigned g = 0; g < ns; g++)
    for (unsigned i = 0; i < s[g].n; i++)
      if (s[g].rows[i].dbl)
        rows[n++] = &s[g].rows[i];
  int rc = 0;
  if (n > 0)
    rc = chart_dbl(c, rows, n, true) != 0 || chart_dbl(c, rows, n, false) != 0 ? -1 : 0;
  free(rows);
  return rc;
}

/* Runs gnuplot on the script; its messages become the error. */
static int run_gnuplot(html_ctx_t *c, const char *gnuplot)
{
  char script[128], log[128];
  snprintf(script, sizeof(script), "%s/charts.gp", c->dir);
  snprintf(log, sizeof(log), "%s/gnuplot.log", c->dir);
  pid_t pid = fork();
  if (pid < 0)
    return sb_errf(c->err, c->errlen, "cannot start gnuplot: %s", strerror(errno));
  if (pid == 0)
  {
    FILE *l = freopen(log, "w", stderr);
    (void) l;
    if (freopen("/dev/null", "w", stdout) == NULL)
      _exit(127);
    execl(gnuplot, gnuplot, script, (char *) NULL);
    fprintf(stderr, "cannot run %s: %s\n", gnuplot, strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
    return 0;
  char msg[512] = "";
  FILE *l = fopen(log, "r");
  if (l)
  {
    size_t got = fread(msg, 1, sizeof(msg) - 1, l);
    msg[got] = '\0';
    fclose(l);
  }
  for (char *p = msg; *p; p++)
    if (*p == '\n')
      *p = ' ';
  return sb_errf(c->err, c->errlen, "gnuplot (%s) failed: %s", gnuplot, msg);
}

/* Copies dir/c<id>.svg into the page from its <svg element on, with every
   id and reference prefixed so the inline charts never share ids. */
static int embed_svg(html_ctx_t *c, FILE *out, unsigned id)
{
  char path[128];
  snprintf(path, sizeof(path), "%s/c%u.svg", c->dir, id);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return sb_errf(c->err, c->errlen, "gnuplot wrote no chart %s", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *svg = malloc((size_t) len + 1);
  size_t got = svg ? fread(svg, 1, (size_t) len, f) : 0;
  fclose(f);
  if (svg == NULL)
    return sb_errf(c->err, c->errlen, "out of memory");
  svg[got] = '\0';
  const char *p = strstr(svg, "<svg");
  if (p == NULL)
  {
    free(svg);
    return sb_errf(c->err, c->errlen, "gnuplot's chart %s is not SVG", path);
  }
  static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
  while (*p)
  {
    size_t k = 0, m = sizeof(refs) / sizeof(refs[0]);
    while (k < m && strncmp(p, refs[k], strlen(refs[k])) != 0)
      k++;
    if (k < m)
    {
      fprintf(out, "%sc%u-", refs[k], id);
      p += strlen(refs[k]);
    }
    else
      fputc(*p++, out);
  }
  free(svg);
  return 0;
}

static void html_table(FILE *out, const sb_series_t *s)
{
  fprintf(out, "<table><tr><th>users</th><th>tps</th><th>qps</th><th>p95 (ms)</th>"
          "<th>p99 (ms)</th><th>errors/s</th><th>reconn/s</th><th>CPU us/trx</th>"
          "<th>instr/trx</th></tr>\n");
  for (unsigned i = 0; i < s->n; i++)
  {
    const sb_series_row_t *r = &s->rows[i];
    double v[] = { r->tps, r->qps, r->p95_ms, r->p99_ms, r->errors_s, r->reconnects_s,
                   r->cpu_us_trx, r->instr_trx };
    const char *fmt[] = { "%.2f", "%.2f", "%.3f", "%.3f", "%.2f", "%.2f", "%.1f", "%.0f" };
    fprintf(out, "<tr><td>%u%s</td>", r->users, r->doc->completed ? "" : "*");
    for (unsigned k = 0; k < sizeof(v) / sizeof(v[0]); k++)
    {
      fputs("<td>", out);
      if (isnan(v[k]))
        fputs("-", out);
      else
        fprintf(out, fmt[k], v[k]);
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

static const char CSS[] =
  "body{font-family:sans-serif;margin:1.5em;color:#222}"
  "table{border-collapse:collapse;margin:0.5em 0 1em}"
  "td,th{border:1px solid #bbb;padding:2px 8px;text-align:right}"
  "figure.chart{margin:0 0 1.5em;max-width:900px}"
  "figure.chart svg{width:100%;height:auto;display:block}"
  "figcaption{font-size:90%;color:#555}";

static int write_page(html_ctx_t *c, FILE *out, const sb_series_t *s, unsigned ns,
                      const sb_results_file_t *docs, unsigned ndocs, const sb_html_head_t *head)
{
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>bmk %s</title>\n<style>%s</style>\n</head>\n<body>\n"
          "<h1>bmk %s</h1>\n<p>%u run%s, %u chart%s; written by bmk %s on %s.</p>\n",
          head->title, CSS, head->title, ndocs, ndocs == 1 ? "" : "s", c->ncharts,
          c->ncharts == 1 ? "" : "s", sb_bmk_release(), when);
  if (head->intro && *head->intro)
  {
    fputs("<pre style=\"white-space:pre-wrap\">", out);
    sb_html_text(out, head->intro);
    fputs("</pre>\n", out);
  }
  for (unsigned g = 0; g < ns; g++)
  {
    fputs("<h2>", out);
    sb_html_text(out, s[g].label);
    fputs("</h2>\n", out);
    html_table(out, &s[g]);
  }
  sb_html_endpoint_tables(out, docs, ndocs);
  const char *section = NULL;
  for (unsigned i = 0; i < c->ncharts; i++)
  {
    if (section == NULL || strcmp(section, c->charts[i].section) != 0)
    {
      section = c->charts[i].section;
      fprintf(out, "<h2>%s</h2>\n", section);
    }
    fprintf(out, "<figure class=\"chart\" id=\"chart-%u\">\n", c->charts[i].id);
    if (embed_svg(c, out, c->charts[i].id) != 0)
      return -1;
    fputs("<figcaption>", out);
    sb_html_text(out, c->charts[i].caption);
    fputs("</figcaption>\n</figure>\n", out);
  }
  fputs("</body>\n</html>\n", out);
  return ferror(out) ? sb_errf(c->err, c->errlen, "write error: %s", strerror(errno)) : 0;
}

/* Removes the temporary directory and what build() put in it. */
static void remove_dir(const html_ctx_t *c)
{
  char p[128];
  for (unsigned i = 1; i <= c->ncharts; i++)
  {
    snprintf(p, sizeof(p), "%s/c%u.dat", c->dir, i);
    unlink(p);
    snprintf(p, sizeof(p), "%s/c%u.svg", c->dir, i);
    unlink(p);
  }
  snprintf(p, sizeof(p), "%s/charts.gp", c->dir);
  unlink(p);
  snprintf(p, sizeof(p), "%s/gnuplot.log", c->dir);
  unlink(p);
  rmdir(c->dir);
}

/* Copies every chart to svg_dir (standalone files) with charts.txt; the
   directory is created when it does not exist (its parent must). */
static int copy_svgs(html_ctx_t *c)
{
  char path[4096];
  if (mkdir(svg_dir, 0777) != 0 && errno != EEXIST)
    return sb_errf(c->err, c->errlen, "--svg-dir: cannot create %s: %s", svg_dir, strerror(errno));
  snprintf(path, sizeof(path), "%s/charts.txt", svg_dir);
  FILE *idx = fopen(path, "w");
  if (idx == NULL)
    return sb_errf(c->err, c->errlen, "--svg-dir: cannot write %s: %s", path, strerror(errno));
  int rc = 0;
  for (unsigned i = 0; rc == 0 && i < c->ncharts; i++)
  {
    char from[128];
    snprintf(from, sizeof(from), "%s/c%u.svg", c->dir, c->charts[i].id);
    snprintf(path, sizeof(path), "%s/chart-%u.svg", svg_dir, c->charts[i].id);
    FILE *in = fopen(from, "r"), *out = in ? fopen(path, "w") : NULL;
    char buf[65536];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
      fwrite(buf, 1, n, out);
    if (in == NULL || out == NULL || ferror(out))
      rc = sb_errf(c->err, c->errlen, "--svg-dir: cannot write %s: %s", path, strerror(errno));
    if (in)
      fclose(in);
    if (out && fclose(out) != 0 && rc == 0)
      rc = sb_errf(c->err, c->errlen, "--svg-dir: cannot write %s: %s", path, strerror(errno));
    fprintf(idx, "chart-%u.svg: %s\n", c->charts[i].id, c->charts[i].caption);
  }
  if (fclose(idx) != 0 && rc == 0)
    rc = sb_errf(c->err, c->errlen, "--svg-dir: cannot write %s/charts.txt", svg_dir);
  return rc;
}

/* Writes the script, runs gnuplot and the page; the caller cleans up. */
static int build(html_ctx_t *c, const char *path, const char *gnuplot, const sb_results_file_t *docs,
                 unsigned n, const sb_series_t *s, unsigned ns, const sb_html_head_t *head)
{
  char script[128];
  snprintf(script, sizeof(script), "%s/charts.gp", c->dir);
  if ((c->gp = fopen(script, "w")) == NULL)
    return sb_errf(c->err, c->errlen, "cannot write %s: %s", script, strerror(errno));
  int rc = head->charts ? head->charts(c, docs, n, head->arg) : 0;
  for (unsigned g = 0; rc == 0 && g < ns; g++)
    rc = charts_series(c, &s[g]);
  for (unsigned i = 0; rc == 0 && i < n; i++)
  {
    rc = json_object_get(docs[i].doc, "tpch") ? sb_html_tpch_charts(c, &docs[i])
                                              : chart_timeline(c, &docs[i]);
    if (rc == 0)
      rc = sb_html_spans_chart(c, &docs[i]);
    if (rc == 0)
      rc = sb_html_alone_chart(c, &docs[i]);
  }
  if (rc == 0)
    rc = charts_dbl(c, s, ns);
  if (fclose(c->gp) != 0 && rc == 0)
    rc = sb_errf(c->err, c->errlen, "cannot write %s", script);
  c->gp = NULL;
  if (rc != 0 || (rc = run_gnuplot(c, gnuplot)) != 0)
    return rc;
  if (svg_dir && (rc = copy_svgs(c)) != 0)
    return rc;
  size_t len = strlen(path) + 8;
  char *tmp = malloc(len);
  snprintf(tmp, len, "%s.tmp", path);
  FILE *out = fopen(tmp, "w");
  if (out == NULL)
    rc = sb_errf(c->err, c->errlen, "cannot write '%s': %s", tmp, strerror(errno));
  else
  {
    rc = write_page(c, out, s, ns, docs, n, head);
    if (fclose(out) != 0 && rc == 0)
      rc = sb_errf(c->err, c->errlen, "cannot write '%s': %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
      rc = sb_errf(c->err, c->errlen, "cannot write '%s': %s", path, strerror(errno));
    if (rc != 0)
      unlink(tmp);
  }
  free(tmp);
  return rc;
}

int sb_html_write_page(const char *path, const sb_results_file_t *docs, unsigned n,
                       const sb_html_head_t *head, char *err, size_t errlen)
{
  char gnuplot[4096];
  if (find_gnuplot(gnuplot, sizeof(gnuplot)) != 0)
    return sb_errf(err, errlen, "gnuplot not found (%s): the charts are drawn with gnuplot; "
                "install it with 'apt-get install gnuplot-nox' (or point BMK_GNUPLOT at it)",
                getenv("BMK_GNUPLOT") && *getenv("BMK_GNUPLOT") ? getenv("BMK_GNUPLOT")
                                                               : "not on PATH");
  sb_series_t *s;
  unsigned ns;
  if (head->no_series)
    s = NULL, ns = 0;
  else if (sb_series_build(docs, n, &s, &ns, err, errlen) != 0)
    return -1;
  html_ctx_t c;
  memset(&c, 0, sizeof(c));
  c.err = err;
  c.errlen = errlen;
  const char *tmpdir = getenv("TMPDIR");
  snprintf(c.dir, sizeof(c.dir), "%s/bmk-html-XXXXXX",
           tmpdir && *tmpdir && strlen(tmpdir) < 32 ? tmpdir : "/tmp");
  int rc;
  if (mkdtemp(c.dir) == NULL)
    rc = sb_errf(err, errlen, "cannot create a temporary directory %s: %s", c.dir, strerror(errno));
  else
  {
    rc = build(&c, path, gnuplot, docs, n, s, ns, head);
    remove_dir(&c);
  }
  free(c.charts);
  if (s)
    sb_series_free(s, ns);
  return rc;
}

int sb_html_write(const char *path, const sb_results_file_t *docs, unsigned n, char *err,
                  size_t errlen)
{
  sb_html_head_t head = { .title = "report" };
  return sb_html_write_page(path, docs, n, &head, err, errlen);
}
