/* The metrics of `bmk compare`; see sb_compare_metrics.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/compare/sb_compare_metrics.h"
#include "commands/compare/sb_compare_stats.h"
#include "core/sb_histogram.h"
#include "results/sb_results_file.h"

/* Sets the table label and the JSON name of a metric of the whole run. */
static void name_metric(sb_cmp_metric_t *m)
{
  switch (m->kind)
  {
  case CM_TPS:
    snprintf(m->name, sizeof(m->name), "tps");
    break;
  case CM_QPS:
    snprintf(m->name, sizeof(m->name), "qps");
    break;
  case CM_ERRORS:
    snprintf(m->name, sizeof(m->name), "errors");
    break;
  case CM_PCT:
    snprintf(m->name, sizeof(m->name), "p%g", m->pct);
    break;
  case CM_FIGURE:
    snprintf(m->name, sizeof(m->name), "%s", m->figure);
    break;
  }
  if (m->kind == CM_PCT)
    snprintf(m->label, sizeof(m->label), "%s ms", m->name);
  else if (m->kind == CM_ERRORS)
    snprintf(m->label, sizeof(m->label), "errors/s");
  else if (m->kind == CM_FIGURE && strcmp(m->figure, "tpcc_nopm") == 0)
    snprintf(m->label, sizeof(m->label), "NOPM");
  else if (m->kind == CM_FIGURE && strcmp(m->figure, "tpcc_tpm") == 0)
    snprintf(m->label, sizeof(m->label), "TPM");
  else
    snprintf(m->label, sizeof(m->label), "%s", m->name);
}

int sb_cmp_metric_parse(const char *s, size_t n, sb_cmp_metric_t *m)
{
  static const struct { const char *name; sb_cmp_kind_t kind; const char *figure; } words[] = {
    { "tps", CM_TPS, NULL }, { "qps", CM_QPS, NULL }, { "errors", CM_ERRORS, NULL },
    { "nopm", CM_FIGURE, "tpcc_nopm" }, { "tpm", CM_FIGURE, "tpcc_tpm" },
  };
  memset(m, 0, sizeof(*m));
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (strlen(words[i].name) == n && strncmp(s, words[i].name, n) == 0)
    {
      m->kind = words[i].kind;
      if (words[i].figure)
        snprintf(m->figure, sizeof(m->figure), "%s", words[i].figure);
      name_metric(m);
      return 0;
    }
  char num[32], *end;
  if (n >= 2 && s[0] == 'p' && s[1] >= '0' && s[1] <= '9' && n - 1 < sizeof(num))
  {
    memcpy(num, s + 1, n - 1);
    num[n - 1] = '\0';
    m->pct = strtod(num, &end);
    if (*end != '\0' || !(m->pct > 0 && m->pct <= 100))
      return -1;
    m->kind = CM_PCT;
    name_metric(m);
    return 0;
  }
  /* a figure of the runs by its name (summary.figures: tpcc_nopm, ...) */
  if (n == 0 || n >= sizeof(m->figure) || s[0] < 'a' || s[0] > 'z')
    return -1;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return -1;
  m->kind = CM_FIGURE;
  memcpy(m->figure, s, n);
  m->figure[n] = '\0';
  name_metric(m);
  return 0;
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

double sb_cmp_run_value(const json_t *doc, const sb_cmp_metric_t *m)
{
  if (m->kind == CM_FIGURE)
    return sb_json_num(doc, "summary", "figures", m->figure, "value", NULL);
  if (m->type)
  {
    const json_t *t = type_entry(doc, m->type);
    return m->kind == CM_PCT ? sb_json_num(t, "latency_ms", "p95", NULL)
                             : sb_json_num(t, "tps", NULL);
  }
  switch (m->kind)
  {
  case CM_TPS:
    return sb_json_num(doc, "summary", "tps", NULL);
  case CM_QPS:
    return sb_json_num(doc, "summary", "qps", NULL);
  case CM_ERRORS:
  {
    double e = sb_json_num(doc, "summary", "errors", NULL);
    double t = sb_json_num(doc, "summary", "time_s", NULL);
    return t > 0 ? e / t : NAN;
  }
  default:
    return sb_results_file_percentile_ms(doc, m->pct);
  }
}

/* A metric's value in one interval row; NAN when the row has none. A
   percentile comes from the interval's own histogram, so any percentile
   can be compared per interval. */
static double interval_value(const json_t *row, const sb_cmp_metric_t *m, sb_hdr_t *scratch)
{
  if (m->kind == CM_FIGURE)
    return NAN;               /* one value per run: no interval samples */
  if (m->type)
    return sb_json_num(row, "types", m->type, m->kind == CM_PCT ? "p95_ms" : "tps", NULL);
  switch (m->kind)
  {
  case CM_TPS:
    return sb_json_num(row, "tps", NULL);
  case CM_QPS:
    return sb_json_num(row, "qps", NULL);
  case CM_ERRORS:
    return sb_json_num(row, "errors_per_s", NULL);
  default:
    break;
  }
  char err[128];
  sb_hdr_reset(scratch);
  if (sb_results_file_add_hist(row, scratch, err, sizeof(err)) != 1 || scratch->total == 0)
  {
    /* a document without interval histograms: the percentile it stored */
    char key[32];
    snprintf(key, sizeof(key), "p%g", m->pct);
    return sb_json_num(row, "latency_ms", key, NULL);
  }
  return (double) sb_hdr_percentile(scratch, m->pct) / 1e6;
}

/* The per-interval samples of a metric over every run of a side
   (malloc'ed, *n of them; NULL on OOM). */
static double *interval_samples(const sb_cmp_side_t *s, const sb_cmp_metric_t *m, unsigned *n)
{
  size_t cap = 64;
  double *x = malloc(cap * sizeof(*x));
  sb_hdr_t *scratch = sb_hdr_new();
  *n = 0;
  for (unsigned r = 0; x && scratch && r < s->n; r++)
  {
    const json_t *rows = sb_json_at(s->docs[r], "intervals", NULL);
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
      double v = interval_value(row, m, scratch);
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
  sb_hdr_free(scratch);
  return x;
}

/* B's change against A in percent from Welch's result `w` over the
   baseline `a`: against a zero baseline a change is infinite (signed),
   none when both sides are exactly 0. */
static void relative(const sb_welch_t *w, double a, sb_cmp_row_t *r)
{
  if (a != 0 && sb_pct_of(w, a, &r->pct, &r->lo, &r->hi) == 0)
  {
    r->have = true;
    r->significant = r->lo > 0 || r->hi < 0;
    return;
  }
  if (a != 0 || isnan(w->diff))
    return;
  r->have = true;
  r->pct = w->diff > 0 ? INFINITY : w->diff < 0 ? -INFINITY : 0;
  r->lo = w->lo > 0 ? INFINITY : w->lo < 0 ? -INFINITY : 0;
  r->hi = w->hi > 0 ? INFINITY : w->hi < 0 ? -INFINITY : 0;
  r->significant = w->lo > 0 || w->hi < 0;
}

void sb_cmp_compare(const sb_cmp_side_t *A, const sb_cmp_side_t *B, const sb_cmp_metric_t *m,
                    bool by_runs, sb_cmp_row_t *r)
{
  memset(r, 0, sizeof(*r));
  r->by_runs = by_runs;
  double va[SB_CMP_MAX_RUNS], vb[SB_CMP_MAX_RUNS];
  for (unsigned i = 0; i < A->n; i++)
    va[i] = sb_cmp_run_value(A->docs[i], m);
  for (unsigned i = 0; i < B->n; i++)
    vb[i] = sb_cmp_run_value(B->docs[i], m);
  sb_sample_t sa, sb;
  sb_sample_of(va, A->n, &sa);
  sb_sample_of(vb, B->n, &sb);
  r->a = sa.mean;
  r->b = sb.mean;
  r->na = A->n;
  r->nb = B->n;
  if (isnan(r->a) || isnan(r->b))
    return;
  if (!by_runs)
  {
    unsigned na, nb;
    double *xa = interval_samples(A, m, &na), *xb = interval_samples(B, m, &nb);
    /* fewer than 10 intervals cannot be batched (batches of at least 5):
       each interval is then a sample of its own */
    int ka = xa ? sb_batch_means(xa, na, na < 10 ? na : 0, &sa) : -1;
    int kb = xb ? sb_batch_means(xb, nb, nb < 10 ? nb : 0, &sb) : -1;
    free(xa);
    free(xb);
    r->ia = na;
    r->ib = nb;
    r->na = ka > 0 ? (unsigned) ka : 0;
    r->nb = kb > 0 ? (unsigned) kb : 0;
    if (ka < 2 || kb < 2)
      return;
  }
  sb_welch_t w;
  if (sb_welch(&sa, &sb, 0.95, &w) != 0)
    return;
  relative(&w, sa.mean, r);
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

/* True when every run of both sides has a value for m. */
static bool everywhere(const sb_cmp_side_t *A, const sb_cmp_side_t *B, const sb_cmp_metric_t *m)
{
  for (unsigned s = 0; s < 2; s++)
  {
    const sb_cmp_side_t *side = s ? B : A;
    for (unsigned r = 0; r < side->n; r++)
      if (isnan(sb_cmp_run_value(side->docs[r], m)))
        return false;
  }
  return true;
}

/* The event types every run of both sides has (names borrowed from A's
   first document), or 0 when they differ or there are fewer than 2. */
static unsigned common_types(const sb_cmp_side_t *A, const sb_cmp_side_t *B, const char **names)
{
  const char *other[17];
  unsigned nt = type_names(A->docs[0], names, 16);
  if (nt < 2)
    return 0;
  for (unsigned s = 0; s < 2; s++)
  {
    const sb_cmp_side_t *side = s ? B : A;
    for (unsigned r = 0; r < side->n; r++)
    {
      if (type_names(side->docs[r], other, 17) != nt)
        return 0;
      for (unsigned i = 0; i < nt; i++)
        if (type_entry(side->docs[r], names[i]) == NULL)
          return 0;
    }
  }
  return nt;
}

bool sb_cmp_metric_worse_up(const sb_cmp_metric_t *m)
{
  size_t n = strlen(m->figure);
  return m->kind == CM_PCT || m->kind == CM_ERRORS ||
         (m->kind == CM_FIGURE && n > 2 && strcmp(m->figure + n - 2, "_s") == 0);
}

/* Adds to ms[*n..max) the figures of A's first run whose names start with `prefix` and that
   every run of both sides has (tpch_*: a TPC-H-derived run's per-query
   times and metrics), in the document's order. */
static void add_prefixed_figures(const sb_cmp_side_t *A, const sb_cmp_side_t *B,
                                 const char *prefix, sb_cmp_metric_t *ms, unsigned *n,
                                 unsigned max)
{
  const char *key;
  json_t *v;
  /* jansson's iteration takes a non-const object; nothing is changed */
  json_t *figs = (json_t *) sb_json_at(A->docs[0], "summary", "figures", NULL);
  json_object_foreach(figs, key, v)
  {
    (void) v;
    if (*n >= max)
      return;
    if (strncmp(key, prefix, strlen(prefix)) == 0 &&
        sb_cmp_metric_parse(key, strlen(key), &ms[*n]) == 0 && everywhere(A, B, &ms[*n]))
      (*n)++;
  }
}

int sb_cmp_metric_find(const sb_cmp_metric_t *ms, unsigned n, const sb_cmp_metric_t *m)
{
  for (unsigned i = 0; i < n; i++)
    if (ms[i].type == NULL && strcmp(ms[i].name, m->name) == 0)
      return (int) i;
  return -1;
}

unsigned sb_cmp_build_metrics(const sb_cmp_side_t *A, const sb_cmp_side_t *B,
                              const sb_cmp_metric_t *extra, unsigned nextra,
                              sb_cmp_metric_t *ms, unsigned max)
{
  static const char *const base[] = { "tps", "qps", "p50", "p95", "p99", "errors" };
  static const char *const figs[] = { "nopm", "tpm" };
  unsigned n = 0;
  for (size_t i = 0; i < sizeof(base) / sizeof(base[0]) && n < max; i++)
    if (sb_cmp_metric_parse(base[i], strlen(base[i]), &ms[n]) == 0)
      n++;
  for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]) && n < max; i++)
    if (sb_cmp_metric_parse(figs[i], strlen(figs[i]), &ms[n]) == 0 && everywhere(A, B, &ms[n]))
      n++;
  add_prefixed_figures(A, B, "tpch_", ms, &n, max);
  const char *names[16];
  unsigned nt = common_types(A, B, names);
  for (unsigned i = 0; i < nt; i++)
    for (int lat = 0; lat < 2 && n < max; lat++)
    {
      ms[n] = (sb_cmp_metric_t) { .kind = lat ? CM_PCT : CM_TPS, .type = names[i], .pct = 95 };
      snprintf(ms[n].name, sizeof(ms[n].name), "%s", lat ? "p95" : "tps");
      snprintf(ms[n].label, sizeof(ms[n].label), "%s %s", names[i], lat ? "p95 ms" : "tps");
      n++;
    }
  for (unsigned i = 0; i < nextra && n < max; i++)
    if (sb_cmp_metric_find(ms, n, &extra[i]) < 0)
      ms[n++] = extra[i];
  return n;
}
