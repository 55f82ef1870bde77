/*
 * The results database (docs/results-db.md): every saved run, in a SQLite
 * file through Debian's libsqlite3, or in a PostgreSQL database through
 * libpq when the path is a postgresql:// (or postgres://) URL: a team's
 * shared store. Both have the same logical schema (sb_resultsdb_sqlite.c,
 * sb_resultsdb_pgsql.c; the shared logic in sb_store.c).
 *
 * A run is stored as its whole --results JSON document (so everything the
 * document holds, and `bmk runs export` gives it back byte for byte in
 * content), plus the columns a listing and a comparison need (start, test,
 * VUs, tps, qps, p50/p95/p99 from the run's HDR histogram, errors, how it
 * ended) and its tags (manifest.tags). The schema has a version table;
 * opening a database migrates it to the version this bmk writes.
 *
 * Concurrency: each save is one transaction, so several bmk processes can
 * save into one store at the same moment (SQLite: WAL journal, a 30 s
 * busy timeout, IMMEDIATE transactions; PostgreSQL: schema changes under
 * an advisory lock). One sb_resultsdb_t per thread.
 *
 * Messages never hold a URL's password (core/sb_redact.h).
 */
#ifndef SB_STORE_H
#define SB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define SB_STORE_SCHEMA_VERSION 1

typedef struct sb_store sb_resultsdb_t;

/* The database to use: --results-db, else $BMK_RESULTS_DB, else
   $XDG_DATA_HOME/bmk/results.db (~/.local/share/bmk/results.db), into
   `buf` (`len` bytes). Returns buf. */
const char *sb_resultsdb_path(const char *option, char *buf, size_t len);

/* True when `path` names a PostgreSQL store (postgresql:// or
   postgres://). Thread-safe. */
bool sb_resultsdb_is_url(const char *path);

/* Opens (creating the file and its directory when needed; connecting,
   with a 10 s connect_timeout unless the URL sets one) and migrates.
   NULL with the reason in `err` (naming the file or URL, password
   masked, and what to do). */
sb_resultsdb_t *sb_resultsdb_open(const char *path, char *err, size_t errlen);
void sb_resultsdb_close(sb_resultsdb_t *s);

/* The store's file or URL as messages show it (password masked); valid
   until sb_resultsdb_close. */
const char *sb_resultsdb_name(const sb_resultsdb_t *s);

/* Stores a --results document; the new run's id, or -1 with the reason
   in `err`. The document must be a bmk-results one (sb_rdoc checks). */
int64_t sb_resultsdb_save(sb_resultsdb_t *s, const json_t *doc, char *err, size_t errlen);

/* One line of a listing. */
typedef struct {
  int64_t id;
  const char *started, *test, *tags; /* tags: "k=v,k2=v2" */
  unsigned threads;
  double tps, p95_ms, p99_ms;        /* NAN when not known */
  bool completed;
} sb_resultsdb_row_t;

/* Filters of a listing: NULL / 0 = any. `tags`: "key=value" items, all
   of which a run must have; `since`: an ISO date or time prefix compared
   with the start (UTC); `series`: the runs of one series id (bmk series,
   --series-id); `last`: only the newest N (listed oldest first). */
typedef struct {
  const char *test;
  const char *series;
  char **tags;
  unsigned ntags;
  const char *since;
  unsigned last;
} sb_resultsdb_filter_t;

/* Calls `fn` for each run matching `f`, oldest first. Returns the number
   of runs, or -1 with the reason in `err`. */
int sb_resultsdb_list(sb_resultsdb_t *s, const sb_resultsdb_filter_t *f,
                  void (*fn)(const sb_resultsdb_row_t *row, void *arg), void *arg,
                  char *err, size_t errlen);

/* The ids of the runs matching `f` (malloc'ed, *n of them, oldest first),
   or NULL with *n = 0 (none, or an error in `err`). */
int64_t *sb_resultsdb_ids(sb_resultsdb_t *s, const sb_resultsdb_filter_t *f, unsigned *n,
                      char *err, size_t errlen);

/* The document of run `id` (a new reference), or NULL: *found false when
   there is no such run, else an error in `err`. */
json_t *sb_resultsdb_get(sb_resultsdb_t *s, int64_t id, bool *found, char *err, size_t errlen);

/* Deletes run `id`: 0, 1 when there is no such run, -1 with `err`. */
int sb_resultsdb_delete(sb_resultsdb_t *s, int64_t id, char *err, size_t errlen);

#endif
