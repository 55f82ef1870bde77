/* `bmk compare A B`: is B faster or slower than A, beyond the noise?
   See cli/sb_compare_cmd.h and docs/results-db.md "Comparing". */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sb_command_usage.h"
#include "commands/compare/sb_compare_cmd.h"
#include "commands/sb_run_select.h"
#include "commands/compare/sb_compare_stats.h"
#include "results/sb_html.h"
#include "results/sb_results_file.h"
#include "resultsdb/sb_resultsdb.h"

/* Exit code of a violated --fail-if (docs/results-db.md): distinct from
   errors (1), stuck work (2) and signals (130/143). */
#define EXIT_GATE 3
#define MAX_RUNS 64

static const char USAGE[] =
  "Usage:\n"
  "  bmk compare [--results-db=FILE|URL] [--fail-if=METRIC<-N%|METRIC>+N%]... [--ignore-noise]\n"
  "              [--json] [--html=FILE.html] A B\n"
  "A and B: a run id, ids separated by commas (repetitions), tag:KEY=VALUE (the runs\n"
  "with that tag), series:ID (the runs of a series) or a result file (FILE.json).\n"
  "METRIC: tps, p50, p95, p99.\n"
  "--json prints the comparison as one JSON document instead of the table.\n"
  "--html writes a page of charts: both sides' runs per interval, overlaid (gnuplot).\n"
  "Exit code 3 when a --fail-if is violated. See docs/results-db.md.\n";

static const char *const METRICS[] = { "tps", "p50", "p95", "p99" };
#define NMETRICS 4                /* the run-level metrics, which gates name */
#define MAX_ROWS (NMETRICS + 2 + 2 * 16)

typedef struct {
  const char *spec;
  json_t *docs[MAX_RUNS];
  int64_t ids[MAX_RUNS];      /* 0 for a file */
  char *names[MAX_RUNS];      /* "run 17" or the file */
  unsigned n;
} side_t;

typedef struct {
  int metric;                 /* index in METRICS */
  char op;                    /* '<' or '>' */
  double pct;                 /* signed threshold, percent */
  const char *text;
} gate_t;

/* What one row compares: the run's tps or latency percentile, or one
   event type's (its tps, or the p95 of the document's per-type rows). */
typedef struct {
  const char *type;           /* event type name, NULL for the whole run */
  const char *figure;         /* a figure of the run (summary.figures), or NULL */
  bool latency;               /* a latency percentile (ms), else tps */
  double pct;                 /* the percentile */
  char label[96];             /* "tps", "p95 ms", "new_order tps" */
} metric_t;

static int metric_index(const char *s, size_t n)
{
  for (int i = 0; i < NMETRICS; i++)
    if (strlen(METRICS[i]) == n && strncmp(METRICS[i], s, n) == 0)
      return i;
  return -1;
}

/* "tps<-5%" / "p99>+10%"; 0, or 1 after a message. */
static int parse_gate(const char *s, gate_t *g)
{
  const char *op = strpbrk(s, "<>");
  char *end;
  if (op == NULL || (g->metric = metric_index(s, (size_t) (op - s))) < 0)
    return sb_command_usage_error("bmk compare", USAGE,
                              "--fail-if='%s': give METRIC<-N%% or METRIC>+N%% with METRIC "
                              "one of tps, p50, p95, p99", s);
  g->op = *op;
  g->pct = strtod(op + 1, &end);
  if (end == op + 1 || strcmp(end, "%") != 0)
    return sb_command_usage_error("bmk compare", USAGE,
                              "--fail-if='%s': the threshold is a signed percentage, e.g. -5%%", s);
  g->text = s;
  return 0;
}

/* sb_run_select's callback: one more run on a side. */
static int add_run(json_t *doc, int64_t id, const char *name, void *arg)
{
  side_t *side = arg;
  if (side->n == MAX_RUNS)
  {
    json_decref(doc);
    fprintf(stderr, "bmk compare: '%s': at most %d runs on a side\n", side->spec, MAX_RUNS);
    return 1;
  }
  side->ids[side->n] = id;
  side->names[side->n] = strdup(name);
  side->docs[side->n++] = doc;
  return 0;
}

static void free_side(side_t *s)
{
  for (unsigned i = 0; i < s->n; i++)
  {
    json_decref(s->docs[i]);
    free(s->names[i]);
  }
}

/* The per-type entry named `type` of a document's event_types, or NULL. */
static const json_t *type_entry(const json_t *doc, const char *type)
{
  size_t i;
  json_t *t;
  json_array_foreach(json_object_get(doc, "event_types"), i, t)
  {
    const char *name = sb_json_str(t, "name", NULL);
    if (name && strcmp(name, type) == 0)
      return t;
  }
  return NULL;
}

/* The run-level value of a metric in a document (tps; percentiles in ms
   from the run's histogram, or the type's row); NAN when absent. */
static double run_value(const json_t *doc, const metric_t *m)
{
  if (m->figure)
    return sb_json_num(doc, "summary", "figures", m->figure, "value", NULL);
  if (m->type)
  {
    const json_t *t = type_entry(doc, m->type);
    return m->latency ? sb_json_num(t, "latency_ms", "p95", NULL) : sb_json_num(t, "tps", NULL);
  }
  if (!m->latency)
    return sb_json_num(doc, "summary", "tps", NULL);
  return sb_results_file_percentile_ms(doc, m->pct);
}

/* A metric's value in one interval row; NAN when the row has none. */
static double interval_value(const json_t *row, const metric_t *m)
{
  char key[16];
  if (m->figure)
    return NAN;               /* one value per run: no interval samples */
  snprintf(key, sizeof(key), m->type ? "p%g_ms" : "p%g", m->pct);
  if (m->type)
    return sb_json_num(row, "types", m->type, m->latency ? key : "tps", NULL);
  return m->latency ? sb_json_num(row, "latency_ms", key, NULL) : sb_json_num(row, "tps", NULL);
}

/* The per-interval samples of a metric over every run of a side
   (malloc'ed, *n of them). */
static double *interval_samples(const side_t *s, const metric_t *m, unsigned *n)
{
  size_t cap = 64;
  double *x = malloc(cap * sizeof(*x));
  *n = 0;
  for (unsigned r = 0; x && r < s->n; r++)
  {
    const json_t *rows = sb_json_at(s->docs[r], "intervals", NULL);
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
      double v = interval_value(row, m);
      if (isnan(v))
        continue;
      if (*n == cap)
      {
        double *t = realloc(x, (cap *= 2) * sizeof(*x));
        if (t == NULL)
          break;
        x = t;
      }
      x[(*n)++] = v;
    }
  }
  return x;
}

/* One metric's comparison. */
typedef struct {
  double a, b;                /* each side's value (mean over its runs) */
  bool have;                  /* a difference with its interval */
  double pct, lo, hi;         /* B against A, percent, and the 95% interval */
  bool significant;           /* the interval excludes 0 */
} row_t;

/* Compares a metric: over the runs' values when both sides have at least
   two runs, else over batch means of the per-interval samples (the
   autocorrelation of consecutive seconds taken into account). */
static void compare_metric(const side_t *A, const side_t *B, const metric_t *m, bool by_runs,
                           row_t *r)
{
  memset(r, 0, sizeof(*r));
  double va[MAX_RUNS], vb[MAX_RUNS];
  for (unsigned i = 0; i < A->n; i++)
    va[i] = run_value(A->docs[i], m);
  for (unsigned i = 0; i < B->n; i++)
    vb[i] = run_value(B->docs[i], m);
  sb_sample_t sa, sb;
  sb_sample_of(va, A->n, &sa);
  sb_sample_of(vb, B->n, &sb);
  r->a = sa.mean;
  r->b = sb.mean;
  if (isnan(r->a) || isnan(r->b))
    return;
  if (!by_runs)
  {
    unsigned na, nb;
    double *xa = interval_samples(A, m, &na), *xb = interval_samples(B, m, &nb);
    int ka = xa ? sb_batch_means(xa, na, 0, &sa) : -1;
    int kb = xb ? sb_batch_means(xb, nb, 0, &sb) : -1;
    free(xa);
    free(xb);
    if (ka < 2 || kb < 2)
      return;
  }
  sb_welch_t w;
  if (sb_welch(&sa, &sb, 0.95, &w) != 0 || sb_pct_of(&w, sa.mean, &r->pct, &r->lo, &r->hi) != 0)
    return;
  r->have = true;
  r->significant = r->lo > 0 || r->hi < 0;
}

/* "faster", "slower", "within noise" or "not enough samples": B against
   A (a higher latency is slower). */
static const char *verdict_word(const metric_t *m, const row_t *r)
{
  if (!r->have)
    return "not enough samples";
  if (!r->significant)
    return "within noise";
  return (r->pct > 0) != m->latency ? "faster" : "slower";
}

static void print_row(const metric_t *m, const row_t *r, int width)
{
  char a[32], b[32];
  snprintf(a, sizeof(a), isnan(r->a) ? "-" : "%.2f", r->a);
  snprintf(b, sizeof(b), isnan(r->b) ? "-" : "%.2f", r->b);
  if (!r->have)
  {
    printf("%-*s %12s %12s   %-30s %s\n", width, m->label, a, b, "-",
           "not enough samples to tell");
    return;
  }
  char ci[64];
  snprintf(ci, sizeof(ci), "%+.2f%% [%+.2f%%, %+.2f%%]", r->pct, r->lo, r->hi);
  const char *verdict = !r->significant ? "no significant difference"
    : !m->latency ? (r->pct > 0 ? "B faster" : "B slower")
    : (r->pct > 0 ? "B slower (higher latency)" : "B faster (lower latency)");
  printf("%-*s %12s %12s   %-30s %s\n", width, m->label, a, b, ci, verdict);
}

/* The event type names of a document (borrowed, at most max), in its
   order; the count. */
static unsigned type_names(const json_t *doc, const char **out, unsigned max)
{
  unsigned n = 0;
  size_t i;
  json_t *t;
  json_array_foreach(json_object_get(doc, "event_types"), i, t)
  {
    const char *name = sb_json_str(t, "name", NULL);
    if (name && n < max)
      out[n++] = name;
  }
  return n;
}

/* TPC-C's NOPM and TPM rows (summary.figures) when every run of both
   sides has them: one value per run, so a difference needs two runs a
   side. Returns how many rows it added to ms. */
static unsigned figure_rows(const side_t *A, const side_t *B, metric_t *ms)
{
  static const char *const figs[] = { "tpcc_nopm", "tpcc_tpm" };
  static const char *const labels[] = { "NOPM", "TPM" };
  unsigned n = 0;
  for (unsigned f = 0; f < 2; f++)
  {
    metric_t m = { .figure = figs[f] };
    bool all = true;
    for (unsigned s = 0; s < 2 && all; s++)
    {
      const side_t *side = s ? B : A;
      for (unsigned r = 0; r < side->n && all; r++)
        all = !isnan(run_value(side->docs[r], &m));
    }
    if (!all)
      continue;
    ms[n] = m;
    snprintf(ms[n++].label, sizeof(ms[0].label), "%s", labels[f]);
  }
  return n;
}

/* The rows to compare: the run's tps, p50, p95, p99, then tps and p95 of
   each event type when the run has several and every run of both sides
   has the same ones. Returns the number of rows. */
static unsigned build_metrics(const side_t *A, const side_t *B, metric_t *ms)
{
  static const double pct[NMETRICS] = { 0, 50, 95, 99 };
  unsigned n = 0;
  for (int i = 0; i < NMETRICS; i++)
  {
    ms[n] = (metric_t) { .latency = i > 0, .pct = pct[i] };
    snprintf(ms[n++].label, sizeof(ms[0].label), "%s%s", METRICS[i], i ? " ms" : "");
  }
  n += figure_rows(A, B, ms + n);
  const char *names[16], *other[17];
  unsigned nt = type_names(A->docs[0], names, 16);
  if (nt < 2)
    return n;
  for (unsigned s = 0; s < 2; s++)
  {
    const side_t *side = s ? B : A;
    for (unsigned r = 0; r < side->n; r++)
    {
      if (type_names(side->docs[r], other, 17) != nt)
        return n;
      for (unsigned i = 0; i < nt; i++)
        if (type_entry(side->docs[r], names[i]) == NULL)
          return n;
    }
  }
  for (unsigned i = 0; i < nt; i++)
    for (int lat = 0; lat < 2; lat++)
    {
      ms[n] = (metric_t) { .type = names[i], .latency = lat, .pct = 95 };
      snprintf(ms[n++].label, sizeof(ms[0].label), "%s %s", names[i], lat ? "p95 ms" : "tps");
    }
  return n;
}

/* A --fail-if is violated when the change crosses its threshold and is
   significant (or --ignore-noise). */
static bool violated(const gate_t *g, const row_t *r, bool ignore_noise)
{
  if (!r->have || (!r->significant && !ignore_noise))
    return false;
  return g->op == '<' ? r->pct < g->pct : r->pct > g->pct;
}

static void describe(const side_t *s, const char *label)
{
  const char *test = sb_json_str(s->docs[0], "manifest", "test", NULL);
  printf("%s: %s: %u run(s) of %s, %g VUs\n", label, s->spec, s->n, test ? test : "?",
         sb_json_num(s->docs[0], "summary", "threads", NULL));
}

/* A number, or null when it is not one. */
static json_t *jnum(double v)
{
  return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const side_t *s)
{
  json_t *o = json_object(), *runs = json_array();
  const char *test = sb_json_str(s->docs[0], "manifest", "test", NULL);
  json_object_set_new(o, "spec", json_string(s->spec));
  json_object_set_new(o, "test", test ? json_string(test) : json_null());
  json_object_set_new(o, "threads", json_integer((json_int_t) sb_json_num(s->docs[0], "summary", "threads", NULL)));
  json_object_set_new(o, "run_count", json_integer(s->n));
  for (unsigned i = 0; i < s->n; i++)
  {
    json_t *r = json_object();
    json_object_set_new(r, "id", s->ids[i] ? json_integer((json_int_t) s->ids[i]) : json_null());
    json_object_set_new(r, "file", s->ids[i] ? json_null() : json_string(s->names[i]));
    json_array_append_new(runs, r);
  }
  json_object_set_new(o, "runs", runs);
  return o;
}

static json_t *row_json(const metric_t *m, const row_t *r)
{
  json_t *o = json_object();
  char name[16];
  snprintf(name, sizeof(name), m->latency ? "p%g" : "tps", m->pct);
  json_object_set_new(o, "metric", json_string(m->figure ? m->figure : name));
  json_object_set_new(o, "event_type", m->type ? json_string(m->type) : json_null());
  json_object_set_new(o, "unit", json_string(m->latency ? "ms" : m->figure ? "per minute"
                                             : "events/s"));
  json_object_set_new(o, "a", jnum(r->a));
  json_object_set_new(o, "b", jnum(r->b));
  json_object_set_new(o, "change_pct", r->have ? jnum(r->pct) : json_null());
  json_object_set_new(o, "ci95_low_pct", r->have ? jnum(r->lo) : json_null());
  json_object_set_new(o, "ci95_high_pct", r->have ? jnum(r->hi) : json_null());
  json_object_set_new(o, "significant", r->have ? json_boolean(r->significant) : json_null());
  json_object_set_new(o, "verdict", json_string(verdict_word(m, r)));
  return o;
}

/* The comparison as one JSON document on stdout. */
static void print_json(const side_t *A, const side_t *B, bool by_runs, const metric_t *ms,
                       const row_t *rows, unsigned nrows, const gate_t *gates, unsigned ngates,
                       bool ignore_noise)
{
  json_t *doc = json_object(), *metrics = json_array(), *gj = json_array();
  json_object_set_new(doc, "format", json_string("bmk-compare"));
  json_object_set_new(doc, "format_version", json_integer(1));
  json_object_set_new(doc, "a", side_json(A));
  json_object_set_new(doc, "b", side_json(B));
  json_object_set_new(doc, "method", json_string(by_runs ? "welch_over_runs" : "batch_means"));
  json_object_set_new(doc, "confidence", json_real(0.95));
  for (unsigned i = 0; i < nrows; i++)
    json_array_append_new(metrics, row_json(&ms[i], &rows[i]));
  json_object_set_new(doc, "metrics", metrics);
  bool failed = false;
  for (unsigned g = 0; g < ngates; g++)
  {
    const row_t *r = &rows[gates[g].metric];
    bool v = violated(&gates[g], r, ignore_noise);
    failed |= v;
    json_t *o = json_object();
    json_object_set_new(o, "gate", json_string(gates[g].text));
    json_object_set_new(o, "metric", json_string(METRICS[gates[g].metric]));
    json_object_set_new(o, "limit_pct", json_real(gates[g].pct));
    json_object_set_new(o, "change_pct", r->have ? jnum(r->pct) : json_null());
    json_object_set_new(o, "violated", json_boolean(v));
    json_array_append_new(gj, o);
  }
  json_object_set_new(doc, "gates", gj);
  json_object_set_new(doc, "ignore_noise", json_boolean(ignore_noise));
  json_object_set_new(doc, "passed", json_boolean(!failed));
  json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
  fputc('\n', stdout);
  json_decref(doc);
}

/* The comparison as a table; the gates' FAILED lines. */
static void print_table(const side_t *A, const side_t *B, bool by_runs, const metric_t *ms,
                        const row_t *rows, unsigned nrows, const gate_t *gates,
                        unsigned ngates, bool ignore_noise)
{
  describe(A, "A");
  describe(B, "B");
  printf("method: %s; Welch's t, 95%% confidence\n\n",
         by_runs ? "the runs' values (repetitions)"
                 : "batch means of the per-interval samples (the autocorrelation of "
                   "consecutive intervals taken into account)");
  int width = 8;
  for (unsigned i = 0; i < nrows; i++)
    if ((int) strlen(ms[i].label) > width)
      width = (int) strlen(ms[i].label);
  printf("%-*s %12s %12s   %-30s %s\n", width, "metric", "A", "B", "B vs A [95% interval]",
         "verdict");
  for (unsigned i = 0; i < nrows; i++)
    print_row(&ms[i], &rows[i], width);
  for (unsigned g = 0; g < ngates; g++)
    if (violated(&gates[g], &rows[gates[g].metric], ignore_noise))
      printf("FAILED: --fail-if='%s': %s changed by %+.2f%%%s\n", gates[g].text,
             METRICS[gates[g].metric], rows[gates[g].metric].pct,
             ignore_noise ? "" : " (significant)");
}

typedef struct {
  const char *db, *specs[2], *html;
  gate_t gates[16];
  unsigned ngates, nspecs;
  bool ignore_noise, json;
} args_t;

/* --html: both sides' runs as one page of charts, their timelines
   overlaid (results/sb_html.h). `say`: print where it went (not with
   --json, whose stdout is the document alone). Returns 0, or 1 after a
   message. */
static int write_html(const side_t *A, const side_t *B, const char *path, bool say)
{
  unsigned n = A->n + B->n;
  sb_results_file_t *docs = calloc(n, sizeof(*docs));
  char err[1024] = "out of memory";
  int rc = docs ? 0 : -1;
  for (unsigned i = 0; rc == 0 && i < n; i++)
  {
    const side_t *s = i < A->n ? A : B;
    unsigned k = i < A->n ? i : i - A->n;
    rc = sb_results_file_adopt(&docs[i], s->names[k], json_incref(s->docs[k]), err, sizeof(err));
  }
  if (rc == 0)
    rc = sb_html_write_compare(path, docs, A->n, B->n, A->spec, B->spec, err, sizeof(err));
  for (unsigned i = 0; docs && i < n; i++)
    sb_results_file_free(&docs[i]);
  free(docs);
  if (rc != 0)
  {
    fprintf(stderr, "bmk compare: --html: %s\n", err);
    return 1;
  }
  if (say)
    printf("Charts written to %s\n", path);
  return 0;
}

/* Parses argv[2..]; 0, 1 after a message, -1 for --help. */
static int parse_args(int argc, char **argv, args_t *a)
{
  memset(a, 0, sizeof(*a));
  for (int i = 2; i < argc; i++)
  {
    const char *s = argv[i];
    if (strcmp(s, "--help") == 0)
      return -1;
    if (strncmp(s, "--results-db=", 13) == 0)
      a->db = s + 13;
    else if (strncmp(s, "--fail-if=", 10) == 0)
    {
      if (a->ngates == 16)
        return sb_command_usage_error("bmk compare", USAGE, "at most 16 --fail-if gates");
      if (parse_gate(s + 10, &a->gates[a->ngates]) != 0)
        return 1;
      a->ngates++;
    }
    else if (strcmp(s, "--ignore-noise") == 0)
      a->ignore_noise = true;
    else if (strcmp(s, "--json") == 0)
      a->json = true;
    else if (strncmp(s, "--html=", 7) == 0 && s[7])
      a->html = s + 7;
    else if (strncmp(s, "--", 2) == 0)
      return sb_command_usage_error("bmk compare", USAGE, "unknown option '%s'", s);
    else if (a->nspecs < 2)
      a->specs[a->nspecs++] = s;
    else
      return sb_command_usage_error("bmk compare", USAGE,
                                "compare two sides, A and B; '%s' is a third", s);
  }
  if (a->nspecs != 2)
    return sb_command_usage_error("bmk compare", USAGE, "name the two sides to compare, A and B");
  return 0;
}

int sb_compare_main(int argc, char **argv)
{
  args_t a;
  int rc = parse_args(argc, argv, &a);
  if (rc != 0)
  {
    if (rc < 0)
      fputs(USAGE, stdout);
    return rc < 0 ? 0 : 1;
  }
  side_t A = { .spec = a.specs[0] }, B = { .spec = a.specs[1] };
  sb_resultsdb_t *st = NULL;
  rc = sb_run_select("bmk compare", A.spec, a.db, &st, add_run, &A) ||
       sb_run_select("bmk compare", B.spec, a.db, &st, add_run, &B) ? 1 : 0;
  sb_resultsdb_close(st);
  if (rc == 0)
  {
    bool by_runs = A.n >= 2 && B.n >= 2;
    metric_t ms[MAX_ROWS];
    row_t rows[MAX_ROWS];
    unsigned nrows = build_metrics(&A, &B, ms);
    for (unsigned i = 0; i < nrows; i++)
      compare_metric(&A, &B, &ms[i], by_runs, &rows[i]);
    if (a.json)
      print_json(&A, &B, by_runs, ms, rows, nrows, a.gates, a.ngates, a.ignore_noise);
    else
      print_table(&A, &B, by_runs, ms, rows, nrows, a.gates, a.ngates, a.ignore_noise);
    for (unsigned g = 0; g < a.ngates; g++)
      if (violated(&a.gates[g], &rows[a.gates[g].metric], a.ignore_noise))
        rc = EXIT_GATE;
    /* the charts: a failure to draw them is an error (1), above a gate */
    if (a.html && write_html(&A, &B, a.html, !a.json) != 0)
      rc = 1;
  }
  free_side(&A);
  free_side(&B);
  return rc;
}
