/* `bmk compare A B`: is B faster or slower than A, beyond the noise?
   See cli/sb_compare_cmd.h and docs/results-db.md "Comparing". */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sb_compare_cmd.h"
#include "core/sb_compare_stats.h"
#include "results/sb_rdoc.h"
#include "store/sb_store.h"

/* Exit code of a violated --fail-if (docs/results-db.md): distinct from
   errors (1), stuck work (2) and signals (130/143). */
#define EXIT_GATE 3
#define MAX_RUNS 64

static const char USAGE[] =
  "Usage:\n"
  "  bmk compare [--results-db=FILE|URL] [--fail-if=METRIC<-N%|METRIC>+N%]... [--ignore-noise] A B\n"
  "A and B: a run id, ids separated by commas (repetitions), tag:KEY=VALUE (the runs\n"
  "with that tag) or a result file (FILE.json). METRIC: tps, p50, p95, p99.\n"
  "Exit code 3 when a --fail-if is violated. See docs/results-db.md.\n";

static const char *const METRICS[] = { "tps", "p50", "p95", "p99" };
#define NMETRICS 4

typedef struct {
  const char *spec;
  json_t *docs[MAX_RUNS];
  unsigned n;
} side_t;

typedef struct {
  int metric;                 /* index in METRICS */
  char op;                    /* '<' or '>' */
  double pct;                 /* signed threshold, percent */
  const char *text;
} gate_t;

/* A usage error: the message (printf format, checked by the compiler),
   the usage text, exit code 1. */
static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bmk compare: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n%s", USAGE);
  return 1;
}

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
    return usage("--fail-if='%s': give METRIC<-N%% or METRIC>+N%% with METRIC one of tps, "
                 "p50, p95, p99", s);
  g->op = *op;
  g->pct = strtod(op + 1, &end);
  if (end == op + 1 || strcmp(end, "%") != 0)
    return usage("--fail-if='%s': the threshold is a signed percentage, e.g. -5%%", s);
  g->text = s;
  return 0;
}

/* Adds the documents `spec` names to `side`; 0, or 1 after a message. */
static int load_side(side_t *side, const char *spec, sb_store_t **st, const char *db)
{
  char err[512], path[4096];
  side->spec = spec;
  size_t l = strlen(spec);
  if (l > 5 && strcmp(spec + l - 5, ".json") == 0)
  {
    sb_rdoc_t d;
    memset(&d, 0, sizeof(d));
    if (sb_rdoc_load(spec, &d, err, sizeof(err)) != 0)
      return usage("%s", err);
    side->docs[side->n++] = json_incref(d.doc);
    sb_rdoc_free(&d);
    return 0;
  }
  if (*st == NULL && (*st = sb_store_open(sb_store_path(db, path, sizeof(path)), err,
                                          sizeof(err))) == NULL)
    return usage("%s", err);
  int64_t *ids = NULL;
  unsigned nids = 0;
  if (strncmp(spec, "tag:", 4) == 0)
  {
    char *tag = (char *) spec + 4;
    sb_store_filter_t f = { .tags = &tag, .ntags = 1 };
    ids = sb_store_ids(*st, &f, &nids, err, sizeof(err));
  }
  else
  {
    ids = calloc(MAX_RUNS, sizeof(*ids));
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && nids < MAX_RUNS; t = strtok_r(NULL, ",", &save))
    {
      char *end;
      long long id = strtoll(t, &end, 10);
      if (end == t || *end || id <= 0)
      {
        free(copy);
        free(ids);
        return usage("'%s' is neither a run id, a list of them, tag:KEY=VALUE nor a .json "
                     "file", spec);
      }
      ids[nids++] = id;
    }
    free(copy);
  }
  for (unsigned i = 0; i < nids && side->n < MAX_RUNS; i++)
  {
    bool found;
    json_t *doc = sb_store_get(*st, ids[i], &found, err, sizeof(err));
    if (doc == NULL)
    {
      long long missing = (long long) ids[i];
      free(ids);
      if (found)
        return usage("%s", err);
      fprintf(stderr, "bmk compare: no run %lld in the results database\n", missing);
      return 1;
    }
    side->docs[side->n++] = doc;
  }
  free(ids);
  if (side->n == 0)
  {
    fprintf(stderr, "bmk compare: '%s' selects no run\n", spec);
    return 1;
  }
  return 0;
}

/* The run-level value of metric m of a document (tps; pNN in ms from the
   run's histogram); NAN when absent. */
static double run_value(const json_t *doc, int m)
{
  if (m == 0)
    return sb_json_num(doc, "summary", "tps", NULL);
  static const double pct[] = { 0, 50, 95, 99 };
  return sb_rdoc_percentile_ms(doc, pct[m]);
}

/* The per-interval samples of metric m over every run of a side
   (malloc'ed, *n of them): tps, or the interval rows' latency_ms.pNN. */
static double *interval_samples(const side_t *s, int m, unsigned *n)
{
  static const char *const key[] = { "tps", "p50", "p95", "p99" };
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
      double v = m == 0 ? sb_json_num(row, "tps", NULL) : sb_json_num(row, "latency_ms", key[m], NULL);
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

/* Compares metric m: over the runs' values when both sides have at least
   two runs, else over batch means of the per-interval samples (the
   autocorrelation of consecutive seconds taken into account). */
static void compare_metric(const side_t *A, const side_t *B, int m, bool by_runs, row_t *r)
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

static void print_row(int m, const row_t *r)
{
  const char *unit = m == 0 ? "" : " ms";
  char name[16], a[32], b[32];
  snprintf(name, sizeof(name), "%s%s", METRICS[m], unit);
  snprintf(a, sizeof(a), isnan(r->a) ? "-" : "%.2f", r->a);
  snprintf(b, sizeof(b), isnan(r->b) ? "-" : "%.2f", r->b);
  if (!r->have)
  {
    printf("%-8s %12s %12s   %-30s %s\n", name, a, b, "-", "not enough samples to tell");
    return;
  }
  char ci[64];
  snprintf(ci, sizeof(ci), "%+.2f%% [%+.2f%%, %+.2f%%]", r->pct, r->lo, r->hi);
  const char *verdict = !r->significant ? "no significant difference"
    : m == 0 ? (r->pct > 0 ? "B faster" : "B slower")
    : (r->pct > 0 ? "B slower (higher latency)" : "B faster (lower latency)");
  printf("%-8s %12s %12s   %-30s %s\n", name, a, b, ci, verdict);
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

int sb_compare_main(int argc, char **argv)
{
  const char *db = NULL, *specs[2] = { NULL, NULL };
  gate_t gates[16];
  unsigned ngates = 0, nspecs = 0;
  bool ignore_noise = false;
  for (int i = 2; i < argc; i++)
  {
    const char *s = argv[i];
    if (strcmp(s, "--help") == 0)
    {
      fputs(USAGE, stdout);
      return 0;
    }
    if (strncmp(s, "--results-db=", 13) == 0)
      db = s + 13;
    else if (strncmp(s, "--fail-if=", 10) == 0)
    {
      if (ngates == 16 || parse_gate(s + 10, &gates[ngates]) != 0)
        return 1;
      ngates++;
    }
    else if (strcmp(s, "--ignore-noise") == 0)
      ignore_noise = true;
    else if (strncmp(s, "--", 2) == 0)
      return usage("unknown option '%s'", s);
    else if (nspecs < 2)
      specs[nspecs++] = s;
    else
      return usage("compare two sides, A and B; '%s' is a third", s);
  }
  if (nspecs != 2)
    return usage("name the two sides to compare, A and B%s", "");
  side_t A, B;
  memset(&A, 0, sizeof(A));
  memset(&B, 0, sizeof(B));
  sb_store_t *st = NULL;
  int rc = load_side(&A, specs[0], &st, db) || load_side(&B, specs[1], &st, db) ? 1 : 0;
  sb_store_close(st);
  if (rc == 0)
  {
    bool by_runs = A.n >= 2 && B.n >= 2;
    describe(&A, "A");
    describe(&B, "B");
    printf("method: %s; Welch's t, 95%% confidence\n\n",
           by_runs ? "the runs' values (repetitions)"
                   : "batch means of the per-interval samples (the autocorrelation of "
                     "consecutive intervals taken into account)");
    printf("%-8s %12s %12s   %-30s %s\n", "metric", "A", "B", "B vs A [95% interval]", "verdict");
    row_t rows[NMETRICS];
    for (int m = 0; m < NMETRICS; m++)
    {
      compare_metric(&A, &B, m, by_runs, &rows[m]);
      print_row(m, &rows[m]);
    }
    for (unsigned g = 0; g < ngates; g++)
      if (violated(&gates[g], &rows[gates[g].metric], ignore_noise))
      {
        printf("FAILED: --fail-if='%s': %s changed by %+.2f%%%s\n", gates[g].text,
               METRICS[gates[g].metric], rows[gates[g].metric].pct,
               ignore_noise ? "" : " (significant)");
        rc = EXIT_GATE;
      }
  }
  for (unsigned i = 0; i < A.n; i++)
    json_decref(A.docs[i]);
  for (unsigned i = 0; i < B.n; i++)
    json_decref(B.docs[i]);
  return rc;
}
