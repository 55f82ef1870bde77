/* Merging the pgbench scripts' "statements" of several documents (`bmk
   report --merge`, `bmk cluster run`), the documents' and their interval
   rows'; see sb_merge_priv.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "results/sb_hdrlog.h"
#include "results/sb_merge_priv.h"

/* The entry of `a` for script `s`, command `c`, or NULL. */
static json_t *find(json_t *a, json_int_t s, json_int_t c)
{
  size_t i;
  json_t *o;
  json_array_foreach(a, i, o)
    if (json_integer_value(json_object_get(o, "script_index")) == s &&
        json_integer_value(json_object_get(o, "command")) == c)
      return o;
  return NULL;
}

/* A new merged entry from the first document's `src`: its identity,
   zero counts. */
static json_t *new_entry(const json_t *src)
{
  return json_pack("{s:O, s:O, s:O, s:O, s:O, s:I, s:I, s:I}",
                   "script", json_object_get(src, "script"),
                   "script_index", json_object_get(src, "script_index"),
                   "weight", json_object_get(src, "weight"),
                   "command", json_object_get(src, "command"),
                   "text", json_object_get(src, "text"),
                   "count", (json_int_t) 0, "failures", (json_int_t) 0,
                   "retries", (json_int_t) 0);
}

static void add_count(json_t *dst, const json_t *src, const char *key)
{
  json_object_set_new(dst, key, jcount(count(dst, key) + count(src, key)));
}

/* One entry's latencies: from the merged histogram `h` when every input
   had one (and the histogram kept), else the highest of the inputs'
   percentiles (`hi`, ms) with a null histogram. avg over every command
   from `sum_ms`. */
static void set_latency(json_t *e, const sb_hdr_t *h, bool missing, const double hi[4],
                        double sum_ms)
{
  uint64_t n = count(e, "count");
  double avg = n ? sum_ms / (double) n : 0.0;
  if (!missing)
  {
    json_object_set_new(e, "latency_ms", json_pack("{s:f, s:f, s:f, s:f, s:f}", "avg", avg,
                        "p50", (double) sb_hdr_percentile(h, 50) / 1e6,
                        "p95", (double) sb_hdr_percentile(h, 95) / 1e6,
                        "p99", (double) sb_hdr_percentile(h, 99) / 1e6,
                        "max", (double) sb_hdr_max(h) / 1e6));
    char *enc = sb_hdr_encode_v2_base64(h);
    json_object_set_new(e, "hdr_v2_compressed_base64", enc ? json_string(enc) : json_null());
    free(enc);
  }
  else
  {
    json_object_set_new(e, "latency_ms", json_pack("{s:f, s:f, s:f, s:f, s:f}", "avg", avg,
                        "p50", hi[0], "p95", hi[1], "p99", hi[2], "max", hi[3]));
    json_object_set_new(e, "hdr_v2_compressed_base64", json_null());
  }
}

/* Merges one entry (script `s`, command `c`) over the documents into
   `e`. Returns 1 when its percentiles are an upper bound, 0 when exact,
   -1 with `err` set. */
static int merge_entry(const sb_results_file_t *d, unsigned n, json_int_t s, json_int_t c,
                       json_t *e, char *err, size_t errlen)
{
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
    return sb_errf(err, errlen, "out of memory"), -1;
  static const char *const pk[4] = { "p50", "p95", "p99", "max" };
  double hi[4] = { 0, 0, 0, 0 }, sum_ms = 0;
  bool missing = false, tails = true;
  json_t *tail = json_pack("{s:I, s:I, s:I}", "count", (json_int_t) 0, "failures",
                           (json_int_t) 0, "retries", (json_int_t) 0);
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *src = find(json_object_get(d[i].doc, "statements"), s, c);
    if (src == NULL)
      continue;
    add_count(e, src, "count");
    add_count(e, src, "failures");
    add_count(e, src, "retries");
    const json_t *t = json_object_get(src, "after_last_interval");
    tails = tails && t && tail;
    for (int k = 0; tails && k < 3; k++)
      add_count(tail, t, k == 0 ? "count" : k == 1 ? "failures" : "retries");
    const json_t *lat = json_object_get(src, "latency_ms");
    double avg = sb_json_num(lat, "avg", NULL);
    sum_ms += isnan(avg) ? 0.0 : avg * (double) count(src, "count");
    for (int k = 0; k < 4; k++)
    {
      double v = sb_json_num(lat, pk[k], NULL);
      hi[k] = v > hi[k] ? v : hi[k];
    }
    if (sb_merge_add_hist(&d[i], src, h, &missing, err, errlen) != 0)
    {
      sb_hdr_free(h);
      json_decref(tail);
      return -1;
    }
  }
  set_latency(e, h, missing, hi, sum_ms);
  sb_hdr_free(h);
  /* the inputs' parts after their last rows: with the merged rows'
     statements, they add up to the merged counts */
  if (tails && tail)
    json_object_set_new(e, "after_last_interval", tail);
  else
    json_decref(tail);
  return missing ? 1 : 0;
}

json_t *sb_merge_statements(const sb_results_file_t *d, unsigned n, size_t *approx, char *err,
                            size_t errlen)
{
  json_t *out = NULL;
  *approx = 0;
  for (unsigned i = 0; i < n; i++)
  {
    json_t *a = json_object_get(d[i].doc, "statements");
    size_t j;
    json_t *src;
    json_array_foreach(a, j, src)
    {
      json_int_t s = json_integer_value(json_object_get(src, "script_index"));
      json_int_t c = json_integer_value(json_object_get(src, "command"));
      if (out == NULL)
        out = json_array();
      if (out == NULL || find(out, s, c))
        continue;
      json_t *e = new_entry(src);
      int rc = e ? merge_entry(d, n, s, c, e, err, errlen) : -1;
      if (rc < 0)
      {
        if (e == NULL)
          sb_errf(err, errlen, "out of memory");
        json_decref(e);
        json_decref(out);
        return NULL;
      }
      *approx += (size_t) rc;
      json_array_append_new(out, e);
    }
  }
  if (out == NULL)
    err[0] = '\0';
  return out;
}

/* ---- the interval rows' statements ------------------------------------------ */

/* One command's sums over the rows of one merged interval. */
typedef struct {
  json_int_t s, c;              /* script_index, command */
  uint64_t count, failures, retries;
  double sum_ms, hi[4];         /* avg x count summed; highest p50..max */
  bool missing;                 /* an input row without its histogram */
  sb_hdr_t *h;
} row_entry_t;

struct sb_merge_stmt_rows {
  row_entry_t *e;
  size_t n, cap;
};

/* The entry for (s, c), appended when new; NULL on OOM. */
static row_entry_t *row_entry(sb_merge_stmt_rows_t *a, json_int_t s, json_int_t c)
{
  for (size_t i = 0; i < a->n; i++)
    if (a->e[i].s == s && a->e[i].c == c)
      return &a->e[i];
  if (a->n == a->cap)
  {
    size_t cap = a->cap ? a->cap * 2 : 16;
    row_entry_t *bigger = realloc(a->e, cap * sizeof(*bigger));
    if (bigger == NULL)
      return NULL;
    a->e = bigger;
    a->cap = cap;
  }
  row_entry_t *e = &a->e[a->n];
  memset(e, 0, sizeof(*e));
  e->s = s;
  e->c = c;
  if ((e->h = sb_hdr_new()) == NULL)
    return NULL;
  a->n++;
  return e;
}

int sb_merge_stmt_rows_add(sb_merge_stmt_rows_t **acc, const sb_results_file_t *d,
                           const json_t *stmts, char *err, size_t errlen)
{
  if (!json_is_array(stmts))
    return 0;
  if (*acc == NULL && (*acc = calloc(1, sizeof(**acc))) == NULL)
    return sb_errf(err, errlen, "out of memory");
  static const char *const pk[4] = { "p50", "p95", "p99", "max" };
  size_t i;
  const json_t *src;
  json_array_foreach(stmts, i, src)
  {
    row_entry_t *e = row_entry(*acc, json_integer_value(json_object_get(src, "script_index")),
                               json_integer_value(json_object_get(src, "command")));
    if (e == NULL)
      return sb_errf(err, errlen, "out of memory");
    uint64_t n = count(src, "count");
    e->count += n;
    e->failures += count(src, "failures");
    e->retries += count(src, "retries");
    const json_t *lat = json_object_get(src, "latency_ms");
    double avg = sb_json_num(lat, "avg", NULL);
    e->sum_ms += isnan(avg) ? 0.0 : avg * (double) n;
    for (int k = 0; k < 4; k++)
    {
      double v = sb_json_num(lat, pk[k], NULL);
      e->hi[k] = v > e->hi[k] ? v : e->hi[k];
    }
    if (sb_merge_add_hist(d, src, e->h, &e->missing, err, errlen) != 0)
      return -1;
  }
  return 0;
}

json_t *sb_merge_stmt_rows_json(const sb_merge_stmt_rows_t *acc)
{
  json_t *a = json_array();
  for (size_t i = 0; acc && a && i < acc->n; i++)
  {
    const row_entry_t *r = &acc->e[i];
    json_t *e = json_pack("{s:I, s:I, s:I, s:I, s:I}", "script_index", r->s, "command", r->c,
                          "count", (json_int_t) r->count, "failures", (json_int_t) r->failures,
                          "retries", (json_int_t) r->retries);
    if (e == NULL)
      continue;
    set_latency(e, r->h, r->missing, r->hi, r->sum_ms);
    json_array_append_new(a, e);
  }
  return a;
}

void sb_merge_stmt_rows_free(sb_merge_stmt_rows_t *acc)
{
  for (size_t i = 0; acc && i < acc->n; i++)
    sb_hdr_free(acc->e[i].h);
  if (acc)
    free(acc->e);
  free(acc);
}
