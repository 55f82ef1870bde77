/* Run ids, tag and series selectors and result files; see cli/sb_run_select.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sb_run_select.h"
#include "results/sb_results_file.h"

/* True when `spec` names runs of the database rather than a file. */
static bool is_db_spec(const char *spec)
{
  if (strncmp(spec, "tag:", 4) == 0 || strncmp(spec, "series:", 7) == 0)
    return true;
  if (*spec == '\0' || *spec == ',')
    return false;
  return strspn(spec, "0123456789,") == strlen(spec);
}

static int from_file(const char *prog, const char *spec, sb_run_select_fn fn, void *arg)
{
  char err[1024];
  sb_results_file_t d;
  memset(&d, 0, sizeof(d));
  if (sb_results_file_load(spec, &d, err, sizeof(err)) != 0)
  {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 1;
  }
  int rc = fn(json_incref(d.doc), 0, spec, arg) != 0 ? 1 : 0;
  sb_results_file_free(&d);
  return rc;
}

/* The ids `spec` names (malloc'ed, *n), or NULL after a message. */
static int64_t *ids_of(const char *prog, const char *spec, sb_resultsdb_t *st, unsigned *n)
{
  char err[512] = "";
  *n = 0;
  if (strncmp(spec, "tag:", 4) == 0 || strncmp(spec, "series:", 7) == 0)
  {
    bool tagged = spec[0] == 't';
    char *tag = (char *) spec + 4;
    sb_resultsdb_filter_t f = { .tags = tagged ? &tag : NULL, .ntags = tagged ? 1 : 0,
                            .series = tagged ? NULL : spec + 7 };
    int64_t *ids = sb_resultsdb_ids(st, &f, n, err, sizeof(err));
    if (ids == NULL)
    {
      if (*err)
        fprintf(stderr, "%s: %s\n", prog, err);
      else
        fprintf(stderr, "%s: '%s' selects no run in the results database\n", prog, spec);
    }
    return ids;
  }
  int64_t *ids = calloc(strlen(spec) / 2 + 1, sizeof(*ids));
  char *copy = strdup(spec), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); ids && t; t = strtok_r(NULL, ",", &save))
  {
    long long id = strtoll(t, NULL, 10);
    if (id <= 0)
    {
      fprintf(stderr, "%s: '%s': a run id is a positive number\n", prog, t);
      free(ids);
      ids = NULL;
      break;
    }
    ids[(*n)++] = id;
  }
  free(copy);
  return ids;
}

int sb_run_select(const char *prog, const char *spec, const char *db, sb_resultsdb_t **st,
                  sb_run_select_fn fn, void *arg)
{
  if (!is_db_spec(spec))
    return from_file(prog, spec, fn, arg);
  char err[512], path[4096];
  if (*st == NULL &&
      (*st = sb_resultsdb_open(sb_resultsdb_path(db, path, sizeof(path)), err, sizeof(err))) == NULL)
  {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 1;
  }
  unsigned n;
  int64_t *ids = ids_of(prog, spec, *st, &n);
  if (ids == NULL)
    return 1;
  int rc = 0;
  for (unsigned i = 0; rc == 0 && i < n; i++)
  {
    bool found;
    json_t *doc = sb_resultsdb_get(*st, ids[i], &found, err, sizeof(err));
    if (doc == NULL)
    {
      if (found)
        fprintf(stderr, "%s: %s\n", prog, err);
      else
        fprintf(stderr, "%s: no run %lld in the results database (bmk runs list shows "
                "the runs)\n", prog, (long long) ids[i]);
      rc = 1;
      break;
    }
    char name[32];
    snprintf(name, sizeof(name), "run %lld", (long long) ids[i]);
    rc = fn(doc, ids[i], name, arg) != 0 ? 1 : 0;
  }
  free(ids);
  return rc;
}
