/* The results database's SQLite backend (a file, through Debian's
   libsqlite3); see store/sb_resultsdb_backend.h and docs/results-db.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "resultsdb/sb_resultsdb_backend.h"

typedef struct {
  sqlite3 *db;
  char *shown;
} lite_t;

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

static int fail(lite_t *l, const char *what, char *err, size_t errlen)
{
  snprintf(err, errlen, "results database '%s': %s: %s", l->shown, what,
           l->db ? sqlite3_errmsg(l->db) : "out of memory");
  return -1;
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

static int lite_exec(void *h, const char *sql, char *err, size_t errlen)
{
  lite_t *l = h;
  return sqlite3_exec(l->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
         fail(l, "cannot use it", err, errlen);
}

static void lite_close(void *h)
{
  lite_t *l = h;
  if (l == NULL)
    return;
  sqlite3_close(l->db);
  free(l->shown);
  free(l);
}

static void *lite_open(const char *path, const char *shown, char *err, size_t errlen)
{
  lite_t *l = calloc(1, sizeof(*l));
  if (l == NULL || (l->shown = strdup(shown)) == NULL)
  {
    free(l);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  make_dirs(path);
  if (sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
      SQLITE_OK)
  {
    fail(l, "cannot open it", err, errlen);
    lite_close(l);
    return NULL;
  }
  sqlite3_busy_timeout(l->db, 30000);
  /* WAL: readers never block the writer; the busy timeout serialises
     writers that meet */
  if (lite_exec(l, "PRAGMA journal_mode=WAL", err, errlen) != 0 ||
      lite_exec(l, "PRAGMA foreign_keys=ON", err, errlen) != 0)
  {
    lite_close(l);
    return NULL;
  }
  return l;
}

static int lite_begin(void *h, bool schema, char *err, size_t errlen)
{
  (void) schema;  /* IMMEDIATE: the file's write lock, taken now */
  lite_t *l = h;
  return sqlite3_exec(l->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 :
         fail(l, "cannot lock it for writing", err, errlen);
}

static int lite_end(void *h, bool commit, char *err, size_t errlen)
{
  lite_t *l = h;
  if (!commit)
  {
    sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
    return 0;
  }
  if (sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
    return 0;
  fail(l, "cannot commit", err, errlen);
  sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
}

static int64_t lite_query(void *h, const char *sql, const char *const *params, unsigned np,
                          sb_resultsdb_row_fn fn, void *arg, char *err, size_t errlen)
{
  lite_t *l = h;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(l->db, sql, -1, &st, NULL) != SQLITE_OK)
    return fail(l, "cannot prepare a statement", err, errlen);
  for (unsigned i = 0; i < np; i++)
    if (params[i])
      sqlite3_bind_text(st, (int) i + 1, params[i], -1, SQLITE_TRANSIENT);
  int ncol = sqlite3_column_count(st), rc;
  int64_t n = 0;
  const char *v[32];
  if (ncol > 32)
    ncol = 32;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
  {
    for (int i = 0; i < ncol; i++)
      v[i] = (const char *) sqlite3_column_text(st, i);
    if (fn)
      fn(v, arg);
    n++;
  }
  if (rc != SQLITE_DONE)
    n = fail(l, "a statement failed", err, errlen);
  sqlite3_finalize(st);
  return n;
}

const sb_resultsdb_ops_t sb_resultsdb_sqlite_ops = {
  .name = "SQLite",
  .ph = '?',
  .tags_agg = "(SELECT group_concat(key || '=' || value, ',') FROM (SELECT key, value "
              "FROM run_tags t WHERE t.run_id = r.id ORDER BY key))",
  .steps = STEPS,
  .open = lite_open, .close = lite_close, .begin = lite_begin, .end = lite_end,
  .exec = lite_exec, .query = lite_query,
};
