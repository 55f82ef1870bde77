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

/* One command's sums over the inputs (the documents' entries, or the
   rows of one merged interval). */
typedef struct {
  json_int_t s, c;              /* script_index, command */
  uint64_t count, failures, retries;
  double sum_ms, hi[4];         /* avg x count summed; highest p50..max */
  bool missing;                 /* an input row without its histogram */
  sb_hdr_t *h;
} row_entry_t;

/* Adds the input entry `src` (of document `d`) to `e`: counts summed,
   avg x count summed, the highest of each percentile, the histogram
   added (or `missing` noted). 0, or -1 with `err` set. */
static int accumulate(row_entry_t *e, const sb_results_file_t *d, const json_t *src, char *err,
                      size_t errlen)
{
  static const char *const pk[4] = { "p50", "p95", "p99", "max" };
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
  return sb_merge_add_hist(d, src, e->h, &e->missing, err, errlen);
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

/* `o`'s string member `key`, or "". */
static const char *str(const json_t *o, const char *key)
{
  const char *v = json_string_value(json_object_get(o, key));
  return v ? v : "";
}

/* Entries of two documents are one command: the same script name and
   text at the same indexes (runs of other scripts are not merged). */
static bool same_command(const json_t *a, const json_t *b)
{
  return strcmp(str(a, "script"), str(b, "script")) == 0 &&
         strcmp(str(a, "text"), str(b, "text")) == 0;
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
  row_entry_t sum = { .s = s, .c = c, .h = sb_hdr_new() };
  if (sum.h == NULL)
    return sb_errf(err, errlen, "out of memory"), -1;
  uint64_t tail[3] = { 0, 0, 0 };
  bool tails = true;
  const char *first = NULL;     /* the first document that has the entry */
  int rc = 0;
  for (unsigned i = 0; rc == 0 && i < n; i++)
  {
    const json_t *src = find(json_object_get(d[i].doc, "statements"), s, c);
    if (src == NULL)
      continue;
    if (first == NULL)
      first = d[i].path;
    else if (!same_command(e, src))
    {
      rc = sb_errf(err, errlen, "%s and %s ran different scripts: script %" JSON_INTEGER_FORMAT
                   " command %" JSON_INTEGER_FORMAT " is '%s' of %s in one and '%s' of %s in "
                   "the other; --merge combines runs of the same scripts", first, d[i].path, s,
                   c, str(e, "text"), str(e, "script"), str(src, "text"), str(src, "script"));
      break;
    }
    const json_t *t = json_object_get(src, "after_last_interval");
    tails = tails && t;
    for (int k = 0; tails && k < 3; k++)
      tail[k] += count(t, k == 0 ? "count" : k == 1 ? "failures" : "retries");
    rc = accumulate(&sum, &d[i], src, err, errlen);
  }
  if (rc == 0)
  {
    json_object_set_new(e, "count", jcount(sum.count));
    json_object_set_new(e, "failures", jcount(sum.failures));
    json_object_set_new(e, "retries", jcount(sum.retries));
    set_latency(e, sum.h, sum.missing, sum.hi, sum.sum_ms);
    /* the inputs' parts after their last rows: with the merged rows'
       statements, they add up to the merged counts */
    if (tails)
      json_object_set_new(e, "after_last_interval",
                          json_pack("{s:o, s:o, s:o}", "count", jcount(tail[0]),
                                    "failures", jcount(tail[1]), "retries", jcount(tail[2])));
  }
  sb_hdr_free(sum.h);
  return rc < 0 ? -1 : sum.missing ? 1 : 0;
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
      if (out == NULL && (out = json_array()) == NULL)
      {
        sb_errf(err, errlen, "out of memory");
        return NULL;
      }
      if (find(out, s, c))
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
  size_t i;
  const json_t *src;
  json_array_foreach(stmts, i, src)
  {
    row_entry_t *e = row_entry(*acc, json_integer_value(json_object_get(src, "script_index")),
                               json_integer_value(json_object_get(src, "command")));
    if (e == NULL)
      return sb_errf(err, errlen, "out of memory");
    if (accumulate(e, d, src, err, errlen) != 0)
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
