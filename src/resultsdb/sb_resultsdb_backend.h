/*
 * The results database's backends (SQLite, PostgreSQL) behind
 * store/sb_store.h: sb_store.c holds the logic and the SQL both share;
 * a backend runs statements. Private to src/store/.
 */
#ifndef SB_STORE_BACKEND_H
#define SB_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resultsdb/sb_resultsdb.h"

/* One result row: v[i] is column i as text, NULL for SQL NULL. */
typedef void (*sb_resultsdb_row_fn)(const char *const *v, void *arg);

typedef struct {
  const char *name;       /* "SQLite", "PostgreSQL" */
  char ph;                /* parameter i is written ?i (SQLite) or $i (PostgreSQL) */
  const char *tags_agg;   /* SQL: run r's tags as "k=v,k2=v2", keys sorted */
  /* STEPS[v]: the statements taking the schema from version v to v + 1 */
  const char *const *steps;
  /* Connects to / opens `target` (a file or a URL); `shown` names it in
     messages (its password masked). A handle, or NULL with `err`. */
  void *(*open)(const char *target, const char *shown, char *err, size_t errlen);
  void (*close)(void *h);
  /* Starts a write transaction; `schema`: one that may change the schema
     (serialised with every other bmk doing so). 0 or -1 with `err`. */
  int (*begin)(void *h, bool schema, char *err, size_t errlen);
  /* Ends it: COMMIT when `commit`, else ROLLBACK (no error then). */
  int (*end)(void *h, bool commit, char *err, size_t errlen);
  /* Runs `sql` (one or more statements, no parameters). 0 or -1. */
  int (*exec)(void *h, const char *sql, char *err, size_t errlen);
  /* Runs one statement with text parameters (NULL = SQL NULL), calling
     `fn` (may be NULL) per row. The number of rows, or -1 with `err`. */
  int64_t (*query)(void *h, const char *sql, const char *const *params, unsigned np,
                   sb_resultsdb_row_fn fn, void *arg, char *err, size_t errlen);
} sb_resultsdb_ops_t;

extern const sb_resultsdb_ops_t sb_resultsdb_sqlite_ops;
#ifdef USE_PGSQL
extern const sb_resultsdb_ops_t sb_resultsdb_pgsql_ops;
#endif

#endif
