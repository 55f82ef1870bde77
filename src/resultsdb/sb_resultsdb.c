/* The results database: the logic and SQL both backends share (SQLite in
   sb_resultsdb_sqlite.c, PostgreSQL in sb_resultsdb_pgsql.c); see store/sb_store.h
   and docs/results-db.md. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_redact.h"
#include "results/sb_results_file.h"
#include "resultsdb/sb_resultsdb.h"
#include "resultsdb/sb_resultsdb_backend.h"

struct sb_store {
  const sb_resultsdb_ops_t *ops;
  void *h;
  char shown[1024];  /* the file or URL, its password masked */
};

const char *sb_resultsdb_path(const char *option, char *buf, size_t len)
{
  const char *env = getenv("BMK_RESULTS_DB");
  const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
  if (option && *option)
    snprintf(buf, len, "%s", option);
  else if (env && *env)
    snprintf(buf, len, "%s", env);
  else if (xdg && *xdg)
    snprintf(buf, len, "%s/bmk/results.db", xdg);
  else
    snprintf(buf, len, "%s/.local/share/bmk/results.db", home && *home ? home : ".");
  return buf;
}

bool sb_resultsdb_is_url(const char *path)
{
  return strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0;
}

const char *sb_resultsdb_name(const sb_resultsdb_t *s)
{
  return s->shown;
}

/* `tmpl` with its parameter marks ?N written the backend's way. */
static const char *sql_of(const sb_resultsdb_t *s, const char *tmpl, char *out, size_t len)
{
  snprintf(out, len, "%s", tmpl);
  for (char *p = out; *p; p++)
    if (*p == '?')
      *p = s->ops->ph;
  return out;
}

static void first_col(const char *const *v, void *arg)
{
  snprintf(arg, 32, "%s", v[0] ? v[0] : "");
}

/* The schema's version, or -1 when it cannot be read. */
static int schema_version(sb_resultsdb_t *s, char *err, size_t errlen)
{
  char v[32] = "";
  if (s->ops->query(s->h, "SELECT version FROM schema_version", NULL, 0, first_col, v, err,
                    errlen) < 0)
    return -1;
  return *v ? atoi(v) : 0;
}

/* Brings the schema to SB_STORE_SCHEMA_VERSION, one step per transaction;
   a database already there is only read (no lock, no CREATE right needed). */
static int migrate(sb_resultsdb_t *s, char *err, size_t errlen)
{
  const sb_resultsdb_ops_t *o = s->ops;
  char ignored[512];
  if (schema_version(s, ignored, sizeof(ignored)) == SB_STORE_SCHEMA_VERSION)
    return 0;
  for (;;)
  {
    if (o->begin(s->h, true, err, errlen) != 0)
      return -1;
    int v;
    if (o->exec(s->h, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
                err, errlen) != 0 || (v = schema_version(s, err, errlen)) < 0)
    {
      o->end(s->h, false, NULL, 0);
      return -1;
    }
    if (v > SB_STORE_SCHEMA_VERSION)
    {
      o->end(s->h, false, NULL, 0);
      snprintf(err, errlen, "results database '%s' has schema version %d, newer than this "
               "bmk's %d: use a newer bmk", s->shown, v, SB_STORE_SCHEMA_VERSION);
      return -1;
    }
    if (v == SB_STORE_SCHEMA_VERSION)
      return o->end(s->h, true, err, errlen);
    if (o->exec(s->h, o->steps[v], err, errlen) != 0 ||
        o->exec(s->h, v == 0 ? "INSERT INTO schema_version VALUES (1)"
                             : "UPDATE schema_version SET version = version + 1",
                err, errlen) != 0 ||
        o->end(s->h, true, err, errlen) != 0)
    {
      o->end(s->h, false, NULL, 0);
      return -1;
    }
  }
}

sb_resultsdb_t *sb_resultsdb_open(const char *path, char *err, size_t errlen)
{
  sb_resultsdb_t *s = calloc(1, sizeof(*s));
  if (s == NULL)
  {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  sb_redact(path, s->shown, sizeof(s->shown));
  s->ops = &sb_resultsdb_sqlite_ops;
  if (sb_resultsdb_is_url(path))
  {
#ifdef USE_PGSQL
    s->ops = &sb_resultsdb_pgsql_ops;
#else
    snprintf(err, errlen, "results database '%s': this bmk was built without PostgreSQL "
             "(configure --without-pgsql): use a SQLite file or another build", s->shown);
    free(s);
    return NULL;
#endif
  }
  if ((s->h = s->ops->open(path, s->shown, err, errlen)) == NULL ||
      migrate(s, err, errlen) != 0)
  {
    sb_resultsdb_close(s);
    return NULL;
  }
  return s;
}

void sb_resultsdb_close(sb_resultsdb_t *s)
{
  if (s == NULL)
    return;
  if (s->h)
    s->ops->close(s->h);
  free(s);
}

/* A number as a parameter: NULL for NAN; integers without a fraction. */
static const char *num(double v, char *buf)
{
  if (isnan(v))
    return NULL;
  if (v == floor(v) && fabs(v) < 9e15)
    snprintf(buf, 32, "%lld", (long long) v);
  else
    snprintf(buf, 32, "%.17g", v);
  return buf;
}

/* The run's row; its id in *id. */
static int insert_run(sb_resultsdb_t *s, const json_t *doc, const char *text, int64_t *id,
                      char *err, size_t errlen)
{
  static const char tmpl[] =
    "INSERT INTO runs (started, test, threads, time_s, events, tps, qps, p50_ms, p95_ms,"
    " p99_ms, errors, completed, exit_code, host, bmk_version, series_id, document)"
    " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17) RETURNING id";
  char b[11][32], sql[512], idtext[32] = "";
  const char *started = sb_json_str(doc, "manifest", "start_time", NULL);
  const char *test = sb_json_str(doc, "manifest", "test", NULL);
  const json_t *c = sb_json_at(doc, "summary", "completed", NULL);
  const char *p[17] = {
    started ? started : "", test ? test : "",
    num(sb_json_num(doc, "summary", "threads", NULL), b[0]),
    num(sb_json_num(doc, "summary", "time_s", NULL), b[1]),
    num(sb_json_num(doc, "summary", "events", NULL), b[2]),
    num(sb_json_num(doc, "summary", "tps", NULL), b[3]),
    num(sb_json_num(doc, "summary", "qps", NULL), b[4]),
    num(sb_results_file_percentile_ms(doc, 50), b[5]),
    num(sb_results_file_percentile_ms(doc, 95), b[6]),
    num(sb_results_file_percentile_ms(doc, 99), b[7]),
    num(sb_json_num(doc, "summary", "errors", NULL), b[8]),
    c == NULL || json_is_true(c) ? "1" : "0",
    num(sb_json_num(doc, "summary", "exit_code", NULL), b[9]),
    sb_json_str(doc, "manifest", "host", NULL),
    sb_json_str(doc, "manifest", "bmk_version", NULL),
    sb_json_str(doc, "manifest", "series_id", NULL),
    text,
  };
  if (s->ops->query(s->h, sql_of(s, tmpl, sql, sizeof(sql)), p, 17, first_col, idtext, err,
                    errlen) != 1)
    return -1;
  *id = strtoll(idtext, NULL, 10);
  return 0;
}

static int insert_tags(sb_resultsdb_t *s, const json_t *doc, int64_t id, char *err, size_t errlen)
{
  const json_t *tags = sb_json_at(doc, "manifest", "tags", NULL);
  if (!json_is_object(tags))
    return 0;
  char sql[96], idtext[32];
  sql_of(s, "INSERT INTO run_tags (run_id, key, value) VALUES (?1,?2,?3)", sql, sizeof(sql));
  snprintf(idtext, sizeof(idtext), "%lld", (long long) id);
  const char *k;
  json_t *v;
  json_object_foreach((json_t *) tags, k, v)
  {
    const char *p[3] = { idtext, k, json_string_value(v) };
    if (json_is_string(v) && s->ops->query(s->h, sql, p, 3, NULL, NULL, err, errlen) < 0)
      return -1;
  }
  return 0;
}

int64_t sb_resultsdb_save(sb_resultsdb_t *s, const json_t *doc, char *err, size_t errlen)
{
  char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (text == NULL)
  {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int64_t id = -1;
  if (s->ops->begin(s->h, false, err, errlen) != 0)
  {
    free(text);
    return -1;
  }
  if (insert_run(s, doc, text, &id, err, errlen) != 0 ||
      insert_tags(s, doc, id, err, errlen) != 0)
  {
    s->ops->end(s->h, false, NULL, 0);
    free(text);
    return -1;
  }
  free(text);
  return s->ops->end(s->h, true, err, errlen) == 0 ? id : -1;
}

/* A SELECT of `cols` over the runs matching `f` into `sql`, its
   parameters into p (up to 3 + 2 * ntags; the tags' keys copied into
   keys); the number of parameters. */
static unsigned select_runs(const sb_resultsdb_t *s, const sb_resultsdb_filter_t *f, const char *cols,
                            char *sql, size_t len, const char **p, char *keys)
{
  char where[1536] = "";
  size_t n = 0;
  unsigned np = 0;
  char ph = s->ops->ph;
  if (f && f->test)
  {
    p[np++] = f->test;
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND r.test = %c%u", ph, np);
  }
  if (f && f->since)
  {
    p[np++] = f->since;
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND r.started >= %c%u", ph, np);
  }
  if (f && f->series)
  {
    p[np++] = f->series;
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND r.series_id = %c%u", ph, np);
  }
  for (unsigned i = 0; f && i < f->ntags && n < sizeof(where) - 160; i++)
  {
    const char *eq = strchr(f->tags[i], '=');
    size_t kl = eq ? (size_t) (eq - f->tags[i]) : strlen(f->tags[i]);
    memcpy(keys, f->tags[i], kl);
    keys[kl] = '\0';
    p[np++] = keys;
    p[np++] = eq ? eq + 1 : "";
    keys += kl + 1;
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND EXISTS (SELECT 1 FROM run_tags t "
                           "WHERE t.run_id = r.id AND t.key = %c%u AND t.value = %c%u)",
                           ph, np - 1, ph, np);
  }
  if (f && f->last)
    /* the newest N that match, listed oldest first */
    snprintf(sql, len, "SELECT %s FROM runs r WHERE r.id IN (SELECT r.id FROM runs r "
             "WHERE 1=1%s ORDER BY r.id DESC LIMIT %u) ORDER BY r.id", cols, where, f->last);
  else
    snprintf(sql, len, "SELECT %s FROM runs r WHERE 1=1%s ORDER BY r.id", cols, where);
  return np;
}

/* Runs the SELECT of a filter, `fn` per row. */
static int64_t query_runs(sb_resultsdb_t *s, const sb_resultsdb_filter_t *f, const char *cols,
                          sb_resultsdb_row_fn fn, void *arg, char *err, size_t errlen)
{
  size_t nt = f ? f->ntags : 0, klen = 1;
  for (size_t i = 0; i < nt; i++)
    klen += strlen(f->tags[i]) + 1;
  const char **p = malloc((3 + 2 * nt) * sizeof(*p));
  char *keys = malloc(klen), sql[4096];
  if (p == NULL || keys == NULL)
  {
    free(p);
    free(keys);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  unsigned np = select_runs(s, f, cols, sql, sizeof(sql), p, keys);
  int64_t n = s->ops->query(s->h, sql, p, np, fn, arg, err, errlen);
  free(p);
  free(keys);
  return n;
}

static double col_num(const char *v)
{
  return v ? strtod(v, NULL) : NAN;
}

typedef struct {
  void (*fn)(const sb_resultsdb_row_t *row, void *arg);
  void *arg;
} list_cb_t;

static void list_row(const char *const *v, void *arg)
{
  list_cb_t *cb = arg;
  sb_resultsdb_row_t row = {
    .id = strtoll(v[0], NULL, 10), .started = v[1], .test = v[2],
    .threads = v[3] ? (unsigned) strtoul(v[3], NULL, 10) : 0,
    .tps = col_num(v[4]), .p95_ms = col_num(v[5]), .p99_ms = col_num(v[6]),
    .completed = v[7] && atoi(v[7]) != 0, .tags = v[8],
  };
  cb->fn(&row, cb->arg);
}

int sb_resultsdb_list(sb_resultsdb_t *s, const sb_resultsdb_filter_t *f,
                  void (*fn)(const sb_resultsdb_row_t *row, void *arg), void *arg,
                  char *err, size_t errlen)
{
  char cols[512];
  snprintf(cols, sizeof(cols), "r.id, r.started, r.test, r.threads, r.tps, r.p95_ms, "
           "r.p99_ms, r.completed, %s", s->ops->tags_agg);
  list_cb_t cb = { fn, arg };
  return (int) query_runs(s, f, cols, list_row, &cb, err, errlen);
}

typedef struct {
  int64_t *ids;
  unsigned n, cap;
  bool oom;
} ids_t;

static void id_row(const char *const *v, void *arg)
{
  ids_t *a = arg;
  if (a->n == a->cap)
  {
    unsigned cap = a->cap ? a->cap * 2 : 16;
    int64_t *t = realloc(a->ids, cap * sizeof(*t));
    if (t == NULL)
    {
      a->oom = true;
      return;
    }
    a->ids = t;
    a->cap = cap;
  }
  a->ids[a->n++] = strtoll(v[0], NULL, 10);
}

int64_t *sb_resultsdb_ids(sb_resultsdb_t *s, const sb_resultsdb_filter_t *f, unsigned *n,
                      char *err, size_t errlen)
{
  ids_t a = { 0 };
  if (query_runs(s, f, "r.id", id_row, &a, err, errlen) < 0 || a.oom)
  {
    if (a.oom)
      snprintf(err, errlen, "out of memory");
    free(a.ids);
    a.ids = NULL;
    a.n = 0;
  }
  *n = a.n;
  return a.ids;
}

static void doc_row(const char *const *v, void *arg)
{
  *(char **) arg = v[0] ? strdup(v[0]) : NULL;
}

json_t *sb_resultsdb_get(sb_resultsdb_t *s, int64_t id, bool *found, char *err, size_t errlen)
{
  char sql[64], idtext[32], *text = NULL;
  snprintf(idtext, sizeof(idtext), "%lld", (long long) id);
  const char *p[1] = { idtext };
  int64_t n = s->ops->query(s->h, sql_of(s, "SELECT document FROM runs WHERE id = ?1", sql,
                                         sizeof(sql)), p, 1, doc_row, &text, err, errlen);
  *found = n > 0;
  if (n <= 0)
    return NULL;
  json_error_t je;
  json_t *doc = text ? json_loads(text, 0, &je) : NULL;
  if (doc == NULL)
    snprintf(err, errlen, "results database '%s': run %lld: its document is not JSON: %s",
             s->shown, (long long) id, text ? je.text : "out of memory");
  free(text);
  return doc;
}

int sb_resultsdb_delete(sb_resultsdb_t *s, int64_t id, char *err, size_t errlen)
{
  char sql[64], idtext[32];
  snprintf(idtext, sizeof(idtext), "%lld", (long long) id);
  const char *p[1] = { idtext };
  int64_t n = s->ops->query(s->h, sql_of(s, "DELETE FROM runs WHERE id = ?1 RETURNING id", sql,
                                         sizeof(sql)), p, 1, NULL, NULL, err, errlen);
  return n < 0 ? -1 : n > 0 ? 0 : 1;
}
