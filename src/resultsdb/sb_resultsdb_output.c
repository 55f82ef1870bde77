/* --save as an output; see store/sb_resultsdb_output.h. */
#include <stdlib.h>
#include <string.h>

#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "results/sb_results.h"
#include "resultsdb/sb_resultsdb.h"
#include "resultsdb/sb_resultsdb_output.h"

static const sb_option_t store_options[] = {
  { "save", "store this run in the results database (docs/results-db.md; also when "
    "--results-db or $BMK_RESULTS_DB is given)", "off", SB_ARG_TYPE_BOOL },
  { "results-db", "the results database: a SQLite file (default $BMK_RESULTS_DB, else "
    "$XDG_DATA_HOME/bmk/results.db) or postgresql://USER[:PASSWORD]@HOST[:PORT]/DB, a shared "
    "PostgreSQL store (connect_timeout 10 s; the password is never printed)", NULL,
    SB_ARG_TYPE_STRING },
  { NULL, NULL, NULL, 0 }
};

int sb_resultsdb_register_options(void)
{
  return sb_opt_register_table(store_options, SB_GROUP_EXT_GENERAL, NULL);
}

bool sb_resultsdb_save_requested(void)
{
  const char *db = sb_opt_str("results-db"), *env = getenv("BMK_RESULTS_DB");
  return sb_opt_bool("save") || (db && *db) || (env && *env);
}

static struct {
  char path[4096];
  sb_resultsdb_t *store;
} so;

static int out_open(void *ctx)
{
  (void) ctx;
  char err[512];
  sb_resultsdb_path(sb_opt_str("results-db"), so.path, sizeof(so.path));
  so.store = sb_resultsdb_open(so.path, err, sizeof(err));
  if (so.store == NULL)
    log_text(LOG_WARNING, "--save: %s; the run goes on, and saving is tried again at its end",
             err);
  return 0;
}

/* Saves `doc` into `*store` (opened here when NULL) and says where;
   0, or -1 after an ERROR message. */
static int save_doc(sb_resultsdb_t **store, const char *path, const json_t *doc)
{
  char err[512] = "";
  if (*store == NULL)
    *store = sb_resultsdb_open(path, err, sizeof(err));
  int64_t id = *store ? sb_resultsdb_save(*store, doc, err, sizeof(err)) : -1;
  if (id < 0)
  {
    log_text(LOG_ALERT, "--save: the run was not saved: %s", err);
    return -1;
  }
  log_text(LOG_NOTICE, "Saved as run %lld in %s (bmk runs show %lld)", (long long) id,
           sb_resultsdb_name(*store), (long long) id);
  return 0;
}

static int out_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  (void) e;
  const json_t *doc = sb_results_document();
  if (doc == NULL)
  {
    log_text(LOG_ALERT, "--save: the run's document was not built; nothing saved");
    return -1;
  }
  return save_doc(&so.store, so.path, doc);
}

int sb_resultsdb_save_document(const json_t *doc)
{
  char path[4096];
  sb_resultsdb_t *store = NULL;
  sb_resultsdb_path(sb_opt_str("results-db"), path, sizeof(path));
  int rc = save_doc(&store, path, doc);
  sb_resultsdb_close(store);
  return rc;
}

static void out_close(void *ctx)
{
  (void) ctx;
  sb_resultsdb_close(so.store);
  so.store = NULL;
}

void sb_resultsdb_output(sb_output_t *out)
{
  sb_results_keep_document();
  *out = (sb_output_t) { .name = "--save", .open = out_open, .end = out_end,
                         .close = out_close };
}
