/* The series table; see sb_series_table.h. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_logger.h"
#include "results/sb_series_table.h"

static double per(double num, double den)
{
  return !isnan(num) && den > 0 ? num / den : NAN;
}

/* A workload metric's total (summary.metrics.<name>.total). */
static double metric(const json_t *doc, const char *name)
{
  return sb_json_num(doc, "summary", "metrics", name, "total", NULL);
}

/* The DBL columns (docs/results.md, "Series table"). */
static void dbl_columns(sb_series_row_t *r, const json_t *doc)
{
  const char *tx = sb_json_str(doc, "manifest", "options", "tx_size", NULL);
  r->tx_size = tx ? strtod(tx, NULL) : NAN;
  const char *m = sb_json_str(doc, "manifest", "options", "load_method", NULL);
  snprintf(r->load_method, sizeof(r->load_method), "%s", m ? m : "");
  r->rows_s = sb_json_num(doc, "summary", "metrics", "rows", "per_sec", NULL);
  r->trx_s = sb_json_num(doc, "summary", "metrics", "commits", "per_sec", NULL);
  if (isnan(r->trx_s))
    r->trx_s = r->tps;
  r->stmt_ms = per(metric(doc, "statement_time_us") / 1000.0, metric(doc, "statements"));
  r->commit_ms = per(metric(doc, "commit_time_us") / 1000.0, metric(doc, "commits"));
  r->cpu_busy_pct = sb_json_num(doc, "server", "cost", "host_cpu_busy_pct", NULL);
  /* the server block's redo/WAL and data-write figures (sb_results:
     the driver's counters, per second of the server window) */
  r->wr_iops = sb_json_num(doc, "server", "data_writes", "writes_per_s", NULL);
  r->wr_mbs = sb_json_num(doc, "server", "data_writes", "bytes_per_s", NULL) / 1e6;
  r->redo_mbs = sb_json_num(doc, "server", "redo", "bytes_per_s", NULL) / 1e6;
  r->redo_wr_s = sb_json_num(doc, "server", "redo", "writes_per_s", NULL);
  r->redo_ms = sb_json_num(doc, "server", "redo", "avg_write_ms", NULL);
  r->elapsed_s = sb_json_num(doc, "summary", "time_s", NULL);
}

static int fill_row(sb_series_row_t *r, const sb_results_file_t *d, char *err, size_t errlen)
{
  const json_t *doc = d->doc;
  memset(r, 0, sizeof(*r));
  r->doc = d;
  r->users = d->threads;
  r->tps = sb_json_num(doc, "summary", "tps", NULL);
  r->qps = sb_json_num(doc, "summary", "qps", NULL);
  r->errors_s = per(sb_json_num(doc, "summary", "errors", NULL), d->time_s);
  r->reconnects_s = per(sb_json_num(doc, "summary", "reconnects", NULL), d->time_s);
  r->cpu_us_trx = sb_json_num(doc, "server", "cost", "per_transaction", "server_cpu_us", NULL);
  r->instr_trx = sb_json_num(doc, "server", "cost", "per_transaction", "instructions", NULL);
  /* Percentiles from the histogram, so p99 exists whatever --percentiles
     the run had. */
  r->p95_ms = r->p99_ms = NAN;
  sb_hdr_t *h = sb_hdr_new();
  if (h == NULL)
    return sb_errf(err, errlen, "out of memory");
  char why[256];
  int rc = sb_results_file_add_hist(sb_json_at(doc, "histogram", NULL), h, why, sizeof(why));
  if (rc < 0)
  {
    sb_hdr_free(h);
    return sb_errf(err, errlen, "%s: %s", d->path, why);
  }
  if (rc > 0 && h->total > 0)
  {
    r->p95_ms = (double) sb_hdr_percentile(h, 95) / 1e6;
    r->p99_ms = (double) sb_hdr_percentile(h, 99) / 1e6;
  }
  else if (rc == 0)
  {
    r->p95_ms = sb_json_num(doc, "summary", "latency_ms", "percentiles", "95", NULL);
    r->p99_ms = sb_json_num(doc, "summary", "latency_ms", "percentiles", "99", NULL);
  }
  sb_hdr_free(h);
  r->dbl = sb_json_at(doc, "summary", "metrics", "rows", NULL) != NULL;
  if (r->dbl)
    dbl_columns(r, doc);
  return 0;
}

/* NAN sorts first; equal values compare 0. */
static int cmp_num(double a, double b)
{
  if (isnan(a) || isnan(b))
    return isnan(b) - isnan(a);
  return a < b ? -1 : a > b;
}

static int cmp_rows(const void *x, const void *y)
{
  const sb_series_row_t *a = x, *b = y;
  if (a->users != b->users)
    return a->users < b->users ? -1 : 1;
  int c = cmp_num(a->dbl ? a->tx_size : NAN, b->dbl ? b->tx_size : NAN);
  if (c)
    return c;
  c = cmp_num(a->doc->start_epoch_s, b->doc->start_epoch_s);
  return c ? c : strcmp(a->doc->path, b->doc->path);
}

/* The group a document belongs to, as text (series id, or test and
   driver); writes the label too. */
static void group_key(const sb_results_file_t *d, char *key, size_t klen, char *label, size_t llen)
{
  if (d->series_id)
  {
    snprintf(key, klen, "s:%s", d->series_id);
    snprintf(label, llen, "series '%s' (%s%s%s)", d->series_id, d->test[0] ? d->test : "?",
             d->driver ? ", " : "", d->driver ? d->driver : "");
  }
  else
  {
    snprintf(key, klen, "t:%s/%s", d->test, d->driver ? d->driver : "");
    snprintf(label, llen, "runs of %s%s%s", d->test[0] ? d->test : "?",
             d->driver ? " on " : "", d->driver ? d->driver : "");
  }
}

int sb_series_build(const sb_results_file_t *docs, unsigned n, sb_series_t **out,
                    unsigned *nseries, char *err, size_t errlen)
{
  sb_series_t *s = calloc(n ? n : 1, sizeof(*s));
  char **keys = calloc(n ? n : 1, sizeof(char *));
  unsigned ns = 0;
  int rc = s && keys ? 0 : sb_errf(err, errlen, "out of memory");
  for (unsigned i = 0; rc == 0 && i < n; i++)
  {
    char key[512], label[512];
    group_key(&docs[i], key, sizeof(key), label, sizeof(label));
    unsigned g = 0;
    while (g < ns && strcmp(keys[g], key) != 0)
      g++;
    if (g == ns)
    {
      keys[ns] = strdup(key);
      s[ns].label = strdup(label);
      s[ns].series_id = docs[i].series_id;
      s[ns].rows = calloc(n, sizeof(sb_series_row_t));
      ns++;
      if (!keys[g] || !s[g].label || !s[g].rows)
      {
        rc = sb_errf(err, errlen, "out of memory");
        break;
      }
    }
    sb_series_row_t *r = &s[g].rows[s[g].n];
    rc = fill_row(r, &docs[i], err, errlen);
    if (rc == 0)
    {
      s[g].n++;
      s[g].any_dbl |= r->dbl;
    }
  }
  for (unsigned g = 0; g < ns; g++)
  {
    free(keys[g]);
    if (rc == 0)
      qsort(s[g].rows, s[g].n, sizeof(sb_series_row_t), cmp_rows);
  }
  free(keys);
  if (rc != 0)
  {
    sb_series_free(s, ns);
    return -1;
  }
  *out = s;
  *nseries = ns;
  return 0;
}

/* A column of the tables: header, width, format and the row field. */
typedef struct {
  const char *head;
  int width;
  const char *fmt;
  size_t field;               /* offsetof(sb_series_row_t, ...) */
} column_t;

#define COL(h, w, f, x) { h, w, f, offsetof(sb_series_row_t, x) }

static const column_t main_cols[] = {
  COL("tps", 12, "%.2f", tps), COL("qps", 12, "%.2f", qps),
  COL("p95 (ms)", 10, "%.3f", p95_ms), COL("p99 (ms)", 10, "%.3f", p99_ms),
  COL("errors/s", 10, "%.2f", errors_s), COL("reconn/s", 10, "%.2f", reconnects_s),
  COL("CPU us/trx", 12, "%.1f", cpu_us_trx), COL("instr/trx", 12, "%.0f", instr_trx),
};

static const column_t dbl_cols[] = {
  COL("tx size", 8, "%.0f", tx_size), COL("rows/s", 12, "%.1f", rows_s),
  COL("trx/s", 10, "%.2f", trx_s), COL("stmt (ms)", 10, "%.3f", stmt_ms),
  COL("commit (ms)", 12, "%.3f", commit_ms), COL("CPU busy %", 10, "%.1f", cpu_busy_pct),
  COL("wr IO/s", 9, "%.1f", wr_iops), COL("wr MB/s", 9, "%.2f", wr_mbs),
  COL("redo MB/s", 10, "%.2f", redo_mbs), COL("redo wr/s", 10, "%.1f", redo_wr_s),
  COL("redo (ms)", 10, "%.3f", redo_ms), COL("elapsed s", 10, "%.2f", elapsed_s),
};

/* Prints one table: `first` is the users column's header ("users",
   "jobs"); only DBL rows when `dbl_only`. Interrupted runs are marked
   `*` (and *starred set), runs that bmk itself limited `!` (and
   *limited set). Absent values print "-". */
static void print_table(FILE *out, const sb_series_t *s, const char *first,
                        const column_t *cols, size_t ncols, bool dbl_only, bool *starred,
                        bool *limited)
{
  fprintf(out, "  %6s", first);
  for (size_t k = 0; k < ncols; k++)
    fprintf(out, " %*s", cols[k].width, cols[k].head);
  fprintf(out, "\n");
  for (unsigned i = 0; i < s->n; i++)
  {
    const sb_series_row_t *r = &s->rows[i];
    if (dbl_only && !r->dbl)
      continue;
    char buf[64];
    snprintf(buf, sizeof(buf), "%u%s%s", r->users, r->doc->completed ? "" : "*",
             r->doc->client_saturated ? "!" : r->doc->completed ? " " : "");
    fprintf(out, "  %6s", buf);
    *starred |= !r->doc->completed;
    *limited |= r->doc->client_saturated;
    for (size_t k = 0; k < ncols; k++)
    {
      double v = *(const double *) ((const char *) r + cols[k].field);
      if (isnan(v))
        snprintf(buf, sizeof(buf), "-");
      else
        snprintf(buf, sizeof(buf), cols[k].fmt, v);
      fprintf(out, " %*s", cols[k].width, buf);
    }
    fprintf(out, "\n");
  }
}

void sb_series_print(FILE *out, const sb_series_t *s)
{
  bool starred = false, limited = false;
  fprintf(out, "Series table: %s, %u run%s\n", s->label, s->n, s->n == 1 ? "" : "s");
  print_table(out, s, "users", main_cols, sizeof(main_cols) / sizeof(main_cols[0]), false,
              &starred, &limited);
  if (s->any_dbl)
  {
    fprintf(out, "  DBL (rows per commit = tx size, 0 = one commit at the end; MB = 10^6 bytes):\n");
    print_table(out, s, "jobs", dbl_cols, sizeof(dbl_cols) / sizeof(dbl_cols[0]), true,
                &starred, &limited);
  }
  if (starred)
  {
    fprintf(out, "  * interrupted run:");
    for (unsigned i = 0; i < s->n; i++)
      if (!s->rows[i].doc->completed)
        fprintf(out, " %s (%s)", s->rows[i].doc->path,
                s->rows[i].doc->interrupted ? s->rows[i].doc->interrupted : "not completed");
    fprintf(out, "; its row covers the measured part only\n");
  }
  if (limited)
    fprintf(out, "  ! bmk itself was saturated (its CPU, not the server, limited the run): the "
            "row is bmk's limit; give it more --workers, CPUs or load hosts\n");
  fprintf(out, "\n");
}

void sb_series_free(sb_series_t *s, unsigned nseries)
{
  if (s == NULL)
    return;
  for (unsigned g = 0; g < nseries; g++)
  {
    free(s[g].label);
    free(s[g].rows);
  }
  free(s);
}
