/* Reading --results documents; see sb_rdoc.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sb_logger.h"
#include "results/sb_hdrlog.h"
#include "results/sb_results_file.h"

/* The newest format_version this reader understands. */
#define RDOC_FORMAT_VERSION 1

static const json_t *at_va(const json_t *root, va_list ap)
{
  const json_t *cur = root;
  const char *key;
  while ((key = va_arg(ap, const char *)) != NULL)
  {
    if (cur == NULL || !json_is_object(cur))
      return NULL;
    cur = json_object_get(cur, key);
  }
  return cur;
}

const json_t *sb_json_at(const json_t *root, ...)
{
  va_list ap;
  va_start(ap, root);
  const json_t *v = at_va(root, ap);
  va_end(ap);
  return v;
}

double sb_json_num(const json_t *root, ...)
{
  va_list ap;
  va_start(ap, root);
  const json_t *v = at_va(root, ap);
  va_end(ap);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *sb_json_str(const json_t *root, ...)
{
  va_list ap;
  va_start(ap, root);
  const json_t *v = at_va(root, ap);
  va_end(ap);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

int sb_results_file_load(const char *path, sb_results_file_t *d, char *err, size_t errlen)
{
  memset(d, 0, sizeof(*d));
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return sb_errf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
  {
    fclose(f);
    /* bmk series writes a directory per series: a likely slip */
    return sb_errf(err, errlen, "%s is a directory: give its result files (%s/*.json)", path,
                   path);
  }
  json_error_t je;
  json_t *doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
  fclose(f);
  if (doc == NULL)
    return sb_errf(err, errlen, "%s: not a JSON document (line %d, column %d: %s)", path,
                je.line, je.column, je.text);
  return sb_results_file_adopt(d, path, doc, err, errlen);
}

int sb_results_file_adopt(sb_results_file_t *d, const char *name, json_t *doc, char *err, size_t errlen)
{
  memset(d, 0, sizeof(*d));
  const char *fmt = sb_json_str(doc, "format", NULL);
  if (!json_is_object(doc) || fmt == NULL || strcmp(fmt, "bmk-results") != 0)
  {
    json_decref(doc);
    return sb_errf(err, errlen, "%s: not a bmk results file (no \"format\": \"bmk-results\"; "
                "write one with --results=FILE.json)", name);
  }
  double ver = sb_json_num(doc, "format_version", NULL);
  if (!(ver >= 1) || ver > RDOC_FORMAT_VERSION)
  {
    json_decref(doc);
    return sb_errf(err, errlen, "%s: results format_version %g; this bmk reads up to %d "
                "(use the bmk that wrote it, or a newer one)", name, ver, RDOC_FORMAT_VERSION);
  }
  static const char *required[] = { "manifest", "summary", "intervals", NULL };
  for (const char **k = required; *k; k++)
    if (!json_is_object(json_object_get(doc, *k)) && !json_is_array(json_object_get(doc, *k)))
    {
      json_decref(doc);
      return sb_errf(err, errlen, "%s: bmk results file without \"%s\" (truncated or edited?)",
                  name, *k);
    }
  d->path = strdup(name);
  d->doc = doc;
  d->test = sb_json_str(doc, "manifest", "test", NULL);
  if (d->test == NULL)
    d->test = "";
  d->series_id = sb_json_str(doc, "manifest", "series_id", NULL);
  d->driver = sb_json_str(doc, "manifest", "server", "driver", NULL);
  d->host = sb_json_str(doc, "manifest", "host", NULL);
  if (d->host == NULL)
    d->host = "";
  double us = sb_json_num(doc, "manifest", "start_epoch_us", NULL);
  d->start_epoch_s = !isnan(us) ? us / 1e6 : sb_json_num(doc, "manifest", "start_epoch_s", NULL);
  if (isnan(d->start_epoch_s))
    d->start_epoch_s = 0;
  d->time_s = sb_json_num(doc, "summary", "time_s", NULL);
  if (isnan(d->time_s))
    d->time_s = 0;
  double th = sb_json_num(doc, "summary", "threads", NULL);
  d->threads = th > 0 ? (unsigned) th : 0;
  double ev = sb_json_num(doc, "summary", "events", NULL);
  d->events = ev > 0 ? (uint64_t) ev : 0;
  d->completed = json_is_true(sb_json_at(doc, "summary", "completed", NULL));
  d->interrupted = sb_json_str(doc, "summary", "interrupted_reason", NULL);
  d->client_saturated = json_is_true(sb_json_at(doc, "summary", "client", "saturated", NULL));
  return 0;
}

void sb_results_file_free(sb_results_file_t *d)
{
  free(d->path);
  json_decref(d->doc);
  memset(d, 0, sizeof(*d));
}

/* Adds a "buckets" list ([lowest ns, highest ns, count] rows). */
static int add_buckets(const json_t *b, sb_hdr_t *h, char *err, size_t errlen)
{
  sb_hdr_t *tmp = sb_hdr_new();
  if (tmp == NULL)
    return sb_errf(err, errlen, "out of memory");
  size_t i;
  const json_t *row;
  json_array_foreach(b, i, row)
  {
    const json_t *lo = json_array_get(row, 0), *cnt = json_array_get(row, 2);
    if (!json_is_integer(lo) || !json_is_integer(cnt) || json_integer_value(lo) < 0 ||
        json_integer_value(cnt) < 0)
    {
      sb_hdr_free(tmp);
      return sb_errf(err, errlen, "histogram bucket %zu is not [lowest ns, highest ns, count]", i);
    }
    sb_hdr_record_n(tmp, (uint64_t) json_integer_value(lo), (uint64_t) json_integer_value(cnt));
  }
  sb_hdr_add(h, tmp);
  sb_hdr_free(tmp);
  return 1;
}

int sb_results_file_add_hist(const json_t *holder, sb_hdr_t *h, char *err, size_t errlen)
{
  const char *enc = sb_json_str(holder, "hdr_v2_compressed_base64", NULL);
  if (enc)
    return sb_hdr_decode_v2_base64(enc, h, err, errlen) == 0 ? 1 : -1;
  const json_t *b = sb_json_at(holder, "buckets", NULL);
  if (json_is_array(b))
    return add_buckets(b, h, err, errlen);
  return 0;
}

double sb_results_file_percentile_ms(const json_t *doc, double pct)
{
  sb_hdr_t *h = sb_hdr_new();
  char err[128];
  double v = NAN;
  if (h && sb_results_file_add_hist(sb_json_at(doc, "histogram", NULL), h, err, sizeof(err)) == 1 &&
      h->total > 0)
    v = (double) sb_hdr_percentile(h, pct) / 1e6;
  sb_hdr_free(h);
  return v;
}
