/* The results database on SQLite; see store/sb_store.h and
   docs/results-db.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "results/sb_rdoc.h"
#include "store/sb_store.h"

struct sb_store {
  sqlite3 *db;
  char *path;
};

/* Schema steps: STEPS[v] takes a database from version v to v + 1. */
static const char *const STEPS[SB_STORE_SCHEMA_VERSION] = {
  "CREATE TABLE runs ("
  "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
  "  started TEXT NOT NULL,"          /* manifest.start_time, UTC ISO 8601 */
  "  test TEXT NOT NULL,"
  "  threads INTEGER, time_s REAL, events INTEGER,"
  "  tps REAL, qps REAL, p50_ms REAL, p95_ms REAL, p99_ms REAL,"
  "  errors INTEGER, completed INTEGER, exit_code INTEGER,"
  "  host TEXT, bmk_version TEXT, series_id TEXT,"
  "  document TEXT NOT NULL);"        /* the --results JSON, whole */
  "CREATE INDEX runs_test_started ON runs(test, started);"
  "CREATE TABLE run_tags ("
  "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
  "  key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key));"
};

const char *sb_store_path(const char *option, char *buf, size_t len)
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

static void set_err(char *err, size_t errlen, const sb_store_t *s, const char *what)
{
  snprintf(err, errlen, "results database '%s': %s: %s", s->path, what,
           s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

/* mkdir -p of the file's directory */
static void make_dirs(const char *path)
{
  char *d = strdup(path);
  if (d == NULL)
    return;
  for (char *p = d + 1; *p; p++)
    if (*p == '/')
    {
      *p = '\0';
      mkdir(d, 0755);
      *p = '/';
    }
  free(d);
}

static int exec(sb_store_t *s, const char *sql, char *err, size_t errlen, const char *what)
{
  if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
  {
    set_err(err, errlen, s, what);
    return -1;
  }
  return 0;
}

/* Brings the schema to SB_STORE_SCHEMA_VERSION, one step per transaction. */
static int migrate(sb_store_t *s, char *err, size_t errlen)
{
  if (exec(s, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
           err, errlen, "creating the schema") != 0)
    return -1;
  for (;;)
  {
    if (exec(s, "BEGIN IMMEDIATE", err, errlen, "locking for the schema") != 0)
      return -1;
    sqlite3_stmt *st = NULL;
    int v = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT version FROM schema_version", -1, &st, NULL) ==
        SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (v > SB_STORE_SCHEMA_VERSION)
    {
      exec(s, "ROLLBACK", err, errlen, "");
      snprintf(err, errlen, "results database '%s' has schema version %d, newer than this "
               "bmk's %d: use a newer bmk", s->path, v, SB_STORE_SCHEMA_VERSION);
      return -1;
    }
    if (v == SB_STORE_SCHEMA_VERSION)
      return exec(s, "COMMIT", err, errlen, "reading the schema");
    char upd[96];
    snprintf(upd, sizeof(upd), "%s INTO schema_version VALUES (%d)", "INSERT", v + 1);
    if (exec(s, STEPS[v], err, errlen, "migrating the schema") != 0 ||
        exec(s, v == 0 ? upd : "UPDATE schema_version SET version = version + 1", err,
             errlen, "migrating the schema") != 0 ||
        exec(s, "COMMIT", err, errlen, "migrating the schema") != 0)
    {
      sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
      return -1;
    }
  }
}

sb_store_t *sb_store_open(const char *path, char *err, size_t errlen)
{
  sb_store_t *s = calloc(1, sizeof(*s));
  if (s == NULL || (s->path = strdup(path)) == NULL)
  {
    free(s);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  make_dirs(path);
  if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
  {
    set_err(err, errlen, s, "cannot open it");
    sb_store_close(s);
    return NULL;
  }
  sqlite3_busy_timeout(s->db, 30000);
  /* WAL: readers never block the writer; the busy timeout serialises
     writers that meet */
  if (exec(s, "PRAGMA journal_mode=WAL", err, errlen, "cannot use it") != 0 ||
      exec(s, "PRAGMA foreign_keys=ON", err, errlen, "cannot use it") != 0 ||
      migrate(s, err, errlen) != 0)
  {
    sb_store_close(s);
    return NULL;
  }
  return s;
}

void sb_store_close(sb_store_t *s)
{
  if (s == NULL)
    return;
  sqlite3_close(s->db);
  free(s->path);
  free(s);
}

static void bind_num(sqlite3_stmt *st, int i, double v)
{
  if (isnan(v))
    sqlite3_bind_null(st, i);
  else
    sqlite3_bind_double(st, i, v);
}

static void bind_str(sqlite3_stmt *st, int i, const char *v)
{
  if (v)
    sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(st, i);
}

/* The run's row; its id in *id. */
static int insert_run(sb_store_t *s, const json_t *doc, const char *text, int64_t *id)
{
  static const char sql[] =
    "INSERT INTO runs (started, test, threads, time_s, events, tps, qps, p50_ms, p95_ms,"
    " p99_ms, errors, completed, exit_code, host, bmk_version, series_id, document)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
    return -1;
  const char *started = sb_json_str(doc, "manifest", "start_time", NULL);
  const char *test = sb_json_str(doc, "manifest", "test", NULL);
  bind_str(st, 1, started ? started : "");
  bind_str(st, 2, test ? test : "");
  bind_num(st, 3, sb_json_num(doc, "summary", "threads", NULL));
  bind_num(st, 4, sb_json_num(doc, "summary", "time_s", NULL));
  bind_num(st, 5, sb_json_num(doc, "summary", "events", NULL));
  bind_num(st, 6, sb_json_num(doc, "summary", "tps", NULL));
  bind_num(st, 7, sb_json_num(doc, "summary", "qps", NULL));
  bind_num(st, 8, sb_rdoc_percentile_ms(doc, 50));
  bind_num(st, 9, sb_rdoc_percentile_ms(doc, 95));
  bind_num(st, 10, sb_rdoc_percentile_ms(doc, 99));
  bind_num(st, 11, sb_json_num(doc, "summary", "errors", NULL));
  const json_t *c = sb_json_at(doc, "summary", "completed", NULL);
  sqlite3_bind_int(st, 12, c == NULL || json_is_true(c));
  bind_num(st, 13, sb_json_num(doc, "summary", "exit_code", NULL));
  bind_str(st, 14, sb_json_str(doc, "manifest", "host", NULL));
  bind_str(st, 15, sb_json_str(doc, "manifest", "bmk_version", NULL));
  bind_str(st, 16, sb_json_str(doc, "manifest", "series_id", NULL));
  bind_str(st, 17, text);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  *id = sqlite3_last_insert_rowid(s->db);
  return rc;
}

static int insert_tags(sb_store_t *s, const json_t *doc, int64_t id)
{
  const json_t *tags = sb_json_at(doc, "manifest", "tags", NULL);
  if (!json_is_object(tags))
    return 0;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(s->db, "INSERT INTO run_tags VALUES (?,?,?)", -1, &st, NULL) != SQLITE_OK)
    return -1;
  const char *k;
  json_t *v;
  int rc = 0;
  json_object_foreach((json_t *) tags, k, v)
  {
    if (!json_is_string(v))
      continue;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    bind_str(st, 2, k);
    bind_str(st, 3, json_string_value(v));
    if (sqlite3_step(st) != SQLITE_DONE)
      rc = -1;
  }
  sqlite3_finalize(st);
  return rc;
}

int64_t sb_store_save(sb_store_t *s, const json_t *doc, char *err, size_t errlen)
{
  char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (text == NULL)
  {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int64_t id = -1;
  if (exec(s, "BEGIN IMMEDIATE", err, errlen, "cannot lock it for writing") != 0)
  {
    free(text);
    return -1;
  }
  if (insert_run(s, doc, text, &id) != 0 || insert_tags(s, doc, id) != 0)
  {
    set_err(err, errlen, s, "cannot store the run");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    free(text);
    return -1;
  }
  free(text);
  if (exec(s, "COMMIT", err, errlen, "cannot store the run") != 0)
  {
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
  }
  return id;
}

/* The WHERE clause of a filter, its parameters bound from 1. */
static sqlite3_stmt *select_runs(sb_store_t *s, const sb_store_filter_t *f, const char *cols)
{
  char where[1536] = "";
  size_t n = 0;
  if (f && f->test)
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND r.test = ?");
  if (f && f->since)
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND r.started >= ?");
  for (unsigned i = 0; f && i < f->ntags && n < sizeof(where) - 128; i++)
    n += (size_t) snprintf(where + n, sizeof(where) - n, " AND EXISTS (SELECT 1 FROM run_tags t "
                           "WHERE t.run_id = r.id AND t.key = ? AND t.value = ?)");
  char sql[2560];
  if (f && f->last)
    /* the newest N that match, listed oldest first */
    snprintf(sql, sizeof(sql), "SELECT %s FROM runs r WHERE r.id IN (SELECT r.id FROM runs r "
             "WHERE 1%s ORDER BY r.id DESC LIMIT %u) ORDER BY r.id", cols, where, f->last);
  else
    snprintf(sql, sizeof(sql), "SELECT %s FROM runs r WHERE 1%s ORDER BY r.id", cols, where);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
    return NULL;
  int k = 1;
  if (f && f->test)
    sqlite3_bind_text(st, k++, f->test, -1, SQLITE_TRANSIENT);
  if (f && f->since)
    sqlite3_bind_text(st, k++, f->since, -1, SQLITE_TRANSIENT);
  for (unsigned i = 0; f && i < f->ntags; i++)
  {
    const char *eq = strchr(f->tags[i], '=');
    size_t kl = eq ? (size_t) (eq - f->tags[i]) : strlen(f->tags[i]);
    sqlite3_bind_text(st, k++, f->tags[i], (int) kl, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, k++, eq ? eq + 1 : "", -1, SQLITE_TRANSIENT);
  }
  return st;
}

static double col_num(sqlite3_stmt *st, int i)
{
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int sb_store_list(sb_store_t *s, const sb_store_filter_t *f,
                  void (*fn)(const sb_store_row_t *row, void *arg), void *arg,
                  char *err, size_t errlen)
{
  sqlite3_stmt *st = select_runs(s, f, "r.id, r.started, r.test, r.threads, r.tps, r.p95_ms, "
                                 "r.p99_ms, r.completed, (SELECT group_concat(key || '=' || "
                                 "value, ',') FROM (SELECT key, value FROM run_tags t WHERE "
                                 "t.run_id = r.id ORDER BY key))");
  if (st == NULL)
  {
    set_err(err, errlen, s, "cannot list the runs");
    return -1;
  }
  int n = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
  {
    sb_store_row_t row = {
      .id = sqlite3_column_int64(st, 0),
      .started = (const char *) sqlite3_column_text(st, 1),
      .test = (const char *) sqlite3_column_text(st, 2),
      .threads = (unsigned) sqlite3_column_int(st, 3),
      .tps = col_num(st, 4), .p95_ms = col_num(st, 5), .p99_ms = col_num(st, 6),
      .completed = sqlite3_column_int(st, 7) != 0,
      .tags = (const char *) sqlite3_column_text(st, 8),
    };
    fn(&row, arg);
    n++;
  }
  if (rc != SQLITE_DONE)
  {
    set_err(err, errlen, s, "cannot list the runs");
    n = -1;
  }
  sqlite3_finalize(st);
  return n;
}

int64_t *sb_store_ids(sb_store_t *s, const sb_store_filter_t *f, unsigned *n,
                      char *err, size_t errlen)
{
  *n = 0;
  sqlite3_stmt *st = select_runs(s, f, "r.id");
  if (st == NULL)
  {
    set_err(err, errlen, s, "cannot select the runs");
    return NULL;
  }
  int64_t *ids = NULL;
  unsigned cap = 0;
  while (sqlite3_step(st) == SQLITE_ROW)
  {
    if (*n == cap)
    {
      cap = cap ? cap * 2 : 16;
      int64_t *t = realloc(ids, cap * sizeof(*ids));
      if (t == NULL)
        break;
      ids = t;
    }
    ids[(*n)++] = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return ids;
}

json_t *sb_store_get(sb_store_t *s, int64_t id, bool *found, char *err, size_t errlen)
{
  *found = false;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(s->db, "SELECT document FROM runs WHERE id = ?", -1, &st, NULL) !=
      SQLITE_OK)
  {
    set_err(err, errlen, s, "cannot read the run");
    return NULL;
  }
  sqlite3_bind_int64(st, 1, id);
  json_t *doc = NULL;
  if (sqlite3_step(st) == SQLITE_ROW)
  {
    *found = true;
    json_error_t je;
    doc = json_loads((const char *) sqlite3_column_text(st, 0), 0, &je);
    if (doc == NULL)
      snprintf(err, errlen, "results database '%s': run %lld: its document is not JSON: %s",
               s->path, (long long) id, je.text);
  }
  sqlite3_finalize(st);
  return doc;
}

int sb_store_delete(sb_store_t *s, int64_t id, char *err, size_t errlen)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(s->db, "DELETE FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
  {
    set_err(err, errlen, s, "cannot delete the run");
    return -1;
  }
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  if (rc != 0)
  {
    set_err(err, errlen, s, "cannot delete the run");
    return -1;
  }
  return sqlite3_changes(s->db) > 0 ? 0 : 1;
}
