/* `bmk compare A B`: is B faster or slower than A, beyond the noise?
   See sb_compare_cmd.h and docs/results-db.md "Comparing". */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sb_command_usage.h"
#include "commands/compare/sb_compare_cmd.h"
#include "commands/compare/sb_compare_gate.h"
#include "commands/compare/sb_compare_metrics.h"
#include "commands/sb_run_select.h"
#include "results/sb_html.h"
#include "results/sb_results_file.h"
#include "resultsdb/sb_resultsdb.h"

#define MAX_GATES 16
#define MAX_ROWS (8 + 2 * 16 + 40 + MAX_GATES)

static const char USAGE[] =
  "Usage:\n"
  "  bmk compare [--results-db=FILE|URL] [--fail-if=METRIC<-N%|METRIC>+N%]...\n"
  "              [--inconclusive=fail|pass] [--ignore-noise] [--json] [--html=FILE.html] A B\n"
  "A and B: a run id, ids separated by commas (repetitions), tag:KEY=VALUE (the runs\n"
  "with that tag), series:ID (the runs of a series) or a result file (FILE.json).\n"
  "METRIC: tps, qps, errors, nopm, tpm, a figure's name, or any percentile pN (p99.9).\n"
  "A gate passes only when the 95% interval of the change lies on its safe side; one\n"
  "that cannot decide is inconclusive: exit 4 (--inconclusive=pass: 0, =fail: 3).\n"
  "--json prints the comparison as one JSON document instead of the table.\n"
  "--html writes a page of charts: both sides' runs per interval, overlaid (gnuplot).\n"
  "Exit code 3 when a --fail-if fails, 4 when one is inconclusive and none fails.\n"
  "See docs/results-db.md.\n";

typedef sb_cmp_side_t side_t;

/* sb_run_select's callback: one more run on a side. */
static int add_run(json_t *doc, int64_t id, const char *name, void *arg)
{
  side_t *side = arg;
  if (side->n == SB_CMP_MAX_RUNS)
  {
    json_decref(doc);
    fprintf(stderr, "bmk compare: '%s': at most %d runs on a side\n", side->spec, SB_CMP_MAX_RUNS);
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

/* "faster", "slower", "within noise" or "not enough samples": B against
   A (a higher latency or error rate is slower). */
static const char *verdict_word(const sb_cmp_metric_t *m, const sb_cmp_row_t *r)
{
  if (!r->have)
    return "not enough samples";
  if (!r->significant)
    return "within noise";
  return (r->pct > 0) != sb_cmp_metric_worse_up(m) ? "faster" : "slower";
}

static const char *unit_of(const sb_cmp_metric_t *m)
{
  switch (m->kind)
  {
  case CM_TPS:
    return "events/s";
  case CM_QPS:
    return "queries/s";
  case CM_ERRORS:
    return "errors/s";
  case CM_PCT:
    return "ms";
  default:
    return strncmp(m->figure, "tpcc_", 5) == 0 ? "per minute"
           : sb_cmp_metric_worse_up(m) ? "s" : "";
  }
}

static json_t *row_json(const sb_cmp_metric_t *m, const sb_cmp_row_t *r)
{
  json_t *o = json_object();
  json_object_set_new(o, "metric", json_string(m->name));
  json_object_set_new(o, "event_type", m->type ? json_string(m->type) : json_null());
  json_object_set_new(o, "unit", json_string(unit_of(m)));
  json_object_set_new(o, "a", jnum(r->a));
  json_object_set_new(o, "b", jnum(r->b));
  json_object_set_new(o, "change_pct", r->have ? jnum(r->pct) : json_null());
  json_object_set_new(o, "ci95_low_pct", r->have ? jnum(r->lo) : json_null());
  json_object_set_new(o, "ci95_high_pct", r->have ? jnum(r->hi) : json_null());
  json_object_set_new(o, "significant", r->have ? json_boolean(r->significant) : json_null());
  json_object_set_new(o, "samples", json_pack("[ii]", r->na, r->nb));
  json_object_set_new(o, "verdict", json_string(verdict_word(m, r)));
  return o;
}

/* The gates' verdicts, each gate's row and what would decide an
   inconclusive one, computed once for both outputs. */
typedef struct {
  sb_cmp_verdict_t verdict;
  const sb_cmp_row_t *row;
  char needed[256];
} gate_result_t;

static const char *const VERDICT[] = { "pass", "fail", "inconclusive" };

static void print_json(const side_t *A, const side_t *B, bool by_runs, const sb_cmp_metric_t *ms,
                       const sb_cmp_row_t *rows, unsigned nrows, const sb_cmp_gate_t *gates,
                       const gate_result_t *gr, unsigned ngates, bool ignore_noise,
                       const char *overall)
{
  json_t *doc = json_object(), *metrics = json_array(), *gj = json_array();
  json_object_set_new(doc, "format", json_string("bmk-compare"));
  json_object_set_new(doc, "format_version", json_integer(2));
  json_object_set_new(doc, "a", side_json(A));
  json_object_set_new(doc, "b", side_json(B));
  json_object_set_new(doc, "method", json_string(by_runs ? "welch_over_runs" : "batch_means"));
  json_object_set_new(doc, "confidence", json_real(0.95));
  for (unsigned i = 0; i < nrows; i++)
    json_array_append_new(metrics, row_json(&ms[i], &rows[i]));
  json_object_set_new(doc, "metrics", metrics);
  for (unsigned g = 0; g < ngates; g++)
  {
    const sb_cmp_row_t *r = gr[g].row;
    json_t *o = json_object();
    json_object_set_new(o, "gate", json_string(gates[g].text));
    json_object_set_new(o, "metric", json_string(gates[g].metric.name));
    json_object_set_new(o, "limit_pct", json_real(gates[g].pct));
    json_object_set_new(o, "change_pct", r->have ? jnum(r->pct) : json_null());
    json_object_set_new(o, "verdict", json_string(VERDICT[gr[g].verdict]));
    json_object_set_new(o, "violated", json_boolean(gr[g].verdict == GATE_FAIL));
    json_object_set_new(o, "needed", gr[g].verdict == GATE_INCONCLUSIVE
                        ? json_string(gr[g].needed) : json_null());
    json_array_append_new(gj, o);
  }
  json_object_set_new(doc, "gates", gj);
  json_object_set_new(doc, "ignore_noise", json_boolean(ignore_noise));
  json_object_set_new(doc, "verdict", json_string(overall));
  json_object_set_new(doc, "passed", json_boolean(strcmp(overall, "pass") == 0));
  json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
  fputc('\n', stdout);
  json_decref(doc);
}

static void print_row(const sb_cmp_metric_t *m, const sb_cmp_row_t *r, int width)
{
  char a[32], b[32];
  /* a figure in seconds (a TPC-H-derived query's time) to 0.1 ms */
  const char *f = m->kind == CM_FIGURE && sb_cmp_metric_worse_up(m) ? "%.4f" : "%.2f";
  snprintf(a, sizeof(a), isnan(r->a) ? "-" : f, r->a);
  snprintf(b, sizeof(b), isnan(r->b) ? "-" : f, r->b);
  if (!r->have)
  {
    printf("%-*s %12s %12s   %-30s %s\n", width, m->label, a, b, "-",
           "not enough samples to tell");
    return;
  }
  char ci[64];
  snprintf(ci, sizeof(ci), "%+.2f%% [%+.2f%%, %+.2f%%]", r->pct, r->lo, r->hi);
  bool worse_up = sb_cmp_metric_worse_up(m);
  const char *verdict = !r->significant ? "no significant difference"
    : !worse_up ? (r->pct > 0 ? "B faster" : "B slower")
    : m->kind == CM_ERRORS ? (r->pct > 0 ? "B worse (more errors)" : "B better (fewer errors)")
    : m->kind == CM_FIGURE ? (r->pct > 0 ? "B slower (longer)" : "B faster (shorter)")
    : (r->pct > 0 ? "B slower (higher latency)" : "B faster (lower latency)");
  printf("%-*s %12s %12s   %-30s %s\n", width, m->label, a, b, ci, verdict);
}

/* The comparison as a table; then one line per gate: passed, FAILED or
   INCONCLUSIVE (with what would decide it). */
static void print_table(const side_t *A, const side_t *B, bool by_runs, const sb_cmp_metric_t *ms,
                        const sb_cmp_row_t *rows, unsigned nrows, const sb_cmp_gate_t *gates,
                        const gate_result_t *gr, unsigned ngates, bool ignore_noise)
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
  {
    const sb_cmp_row_t *r = gr[g].row;
    if (gr[g].verdict == GATE_PASS)
      printf("passed: --fail-if='%s': %s changed by %+.2f%% [%+.2f%%, %+.2f%%]\n", gates[g].text,
             gates[g].metric.name, r->pct, r->lo, r->hi);
    else if (gr[g].verdict == GATE_FAIL)
      printf("FAILED: --fail-if='%s': %s changed by %+.2f%%%s\n", gates[g].text,
             gates[g].metric.name, r->pct, ignore_noise ? "" : " (significant)");
    else if (gr[g].verdict == GATE_INCONCLUSIVE)
    {
      if (r->have)
        printf("INCONCLUSIVE: --fail-if='%s': %s changed by %+.2f%% [%+.2f%%, %+.2f%%], an "
               "interval that holds the threshold: %s\n", gates[g].text, gates[g].metric.name,
               r->pct, r->lo, r->hi, gr[g].needed);
      else
        printf("INCONCLUSIVE: --fail-if='%s': not enough samples to tell: %s\n",
               gates[g].text, gr[g].needed);
    }
  }
}

typedef struct {
  const char *db, *specs[2], *html;
  sb_cmp_gate_t gates[MAX_GATES];
  unsigned ngates, nspecs;
  bool ignore_noise, json;
  int inconclusive_exit;       /* SB_CMP_EXIT_INCONCLUSIVE, 0 or SB_CMP_EXIT_FAIL */
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
  a->inconclusive_exit = SB_CMP_EXIT_INCONCLUSIVE;
  for (int i = 2; i < argc; i++)
  {
    const char *s = argv[i];
    if (strcmp(s, "--help") == 0)
      return -1;
    if (strncmp(s, "--results-db=", 13) == 0)
      a->db = s + 13;
    else if (strncmp(s, "--fail-if=", 10) == 0)
    {
      char err[256];
      if (a->ngates == MAX_GATES)
        return sb_command_usage_error("bmk compare", USAGE, "at most %d --fail-if gates",
                                      MAX_GATES);
      if (sb_cmp_gate_parse(s + 10, &a->gates[a->ngates], err, sizeof(err)) != 0)
        return sb_command_usage_error("bmk compare", USAGE, "%s", err);
      a->ngates++;
    }
    else if (strncmp(s, "--inconclusive=", 15) == 0)
    {
      const char *v = s + 15;
      if (strcmp(v, "pass") == 0)
        a->inconclusive_exit = 0;
      else if (strcmp(v, "fail") == 0)
        a->inconclusive_exit = SB_CMP_EXIT_FAIL;
      else
        return sb_command_usage_error("bmk compare", USAGE, "--inconclusive='%s': give fail "
                                      "or pass (without it, exit 4)", v);
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

/* Decides every gate (each on its metric's row); the exit code: a failed
   gate's, else an inconclusive one's (a->inconclusive_exit), else 0. */
static int decide(const args_t *a, const sb_cmp_metric_t *ms, const sb_cmp_row_t *rows,
                  unsigned nrows, gate_result_t *gr, const char **overall)
{
  bool fail = false, open = false;
  for (unsigned g = 0; g < a->ngates; g++)
  {
    int i = sb_cmp_metric_find(ms, nrows, &a->gates[g].metric);
    static const sb_cmp_row_t none;
    gr[g].row = i >= 0 ? &rows[i] : &none;
    gr[g].verdict = sb_cmp_gate_decide(&a->gates[g], gr[g].row, a->ignore_noise);
    gr[g].needed[0] = '\0';
    if (gr[g].verdict == GATE_INCONCLUSIVE)
      sb_cmp_gate_needed(&a->gates[g], gr[g].row, gr[g].needed, sizeof(gr[g].needed));
    fail |= gr[g].verdict == GATE_FAIL;
    open |= gr[g].verdict == GATE_INCONCLUSIVE;
  }
  *overall = fail ? "fail" : open ? "inconclusive" : "pass";
  return fail ? SB_CMP_EXIT_FAIL : open ? a->inconclusive_exit : 0;
}

/* 0 when every gate on a figure names one some run of A or B has; else 1
   after saying which does not (a typo in a CI gate is an error, not an
   "inconclusive" that --inconclusive=pass would let through). */
static int check_figures(const args_t *a, const side_t *A, const side_t *B)
{
  for (unsigned g = 0; g < a->ngates; g++)
  {
    const sb_cmp_metric_t *m = &a->gates[g].metric;
    if (m->kind != CM_FIGURE)
      continue;
    bool seen = false;
    for (unsigned i = 0; i < A->n && !seen; i++)
      seen = !isnan(sb_cmp_run_value(A->docs[i], m));
    for (unsigned i = 0; i < B->n && !seen; i++)
      seen = !isnan(sb_cmp_run_value(B->docs[i], m));
    if (!seen)
    {
      fprintf(stderr, "bmk compare: --fail-if='%s': no run of either side has a metric or "
              "figure '%s' (metrics: tps, qps, errors, nopm, tpm, pN; figures: those in "
              "the runs' summary.figures)\n", a->gates[g].text, m->figure);
      return 1;
    }
  }
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
    rc = check_figures(&a, &A, &B);
  if (rc == 0)
  {
    bool by_runs = A.n >= 2 && B.n >= 2;
    sb_cmp_metric_t ms[MAX_ROWS], extra[MAX_GATES];
    sb_cmp_row_t rows[MAX_ROWS];
    gate_result_t gr[MAX_GATES];
    for (unsigned g = 0; g < a.ngates; g++)
      extra[g] = a.gates[g].metric;
    unsigned nrows = sb_cmp_build_metrics(&A, &B, extra, a.ngates, ms, MAX_ROWS);
    for (unsigned i = 0; i < nrows; i++)
      sb_cmp_compare(&A, &B, &ms[i], by_runs, &rows[i]);
    const char *overall;
    rc = decide(&a, ms, rows, nrows, gr, &overall);
    if (a.json)
      print_json(&A, &B, by_runs, ms, rows, nrows, a.gates, gr, a.ngates, a.ignore_noise,
                 overall);
    else
      print_table(&A, &B, by_runs, ms, rows, nrows, a.gates, gr, a.ngates, a.ignore_noise);
    /* the charts: a failure to draw them is an error (1), above a gate */
    if (a.html && write_html(&A, &B, a.html, !a.json) != 0)
      rc = 1;
  }
  free_side(&A);
  free_side(&B);
  return rc;
}
