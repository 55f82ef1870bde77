/* `bmk runs`: the results database's runs (docs/results-db.md); see
   cli/sb_runs_cmd.h. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/sb_command_usage.h"
#include "commands/runs/sb_runs_cmd.h"
#include "results/sb_report_file.h"
#include "results/sb_results_file.h"
#include "resultsdb/sb_resultsdb.h"

static const char USAGE[] =
  "Usage:\n"
  "  bmk runs list [--test=NAME] [--tag=KEY=VALUE]... [--series=ID] [--since=DATE] [--last=N]\n"
  "                [--ids]         (--ids: the matching runs' ids only, one per line)\n"
  "  bmk runs show ID\n"
  "  bmk runs export ID            (the run's --results JSON on stdout)\n"
  "  bmk runs import FILE.json...  (result files of earlier runs)\n"
  "  bmk runs delete ID\n"
  "Every form takes --results-db=FILE or postgresql://USER@HOST[:PORT]/DB (default\n"
  "$BMK_RESULTS_DB, else $XDG_DATA_HOME/bmk/results.db). See docs/results-db.md.\n";

typedef struct {
  const char *db;
  sb_resultsdb_filter_t f;
  char *tags[32];
  const char *args[256];
  unsigned nargs;
  bool ids;                    /* list --ids */
} runs_args_t;

/* Options (anywhere) and the other words; 0, or 1 after a message. */
static int parse(int argc, char **argv, runs_args_t *a)
{
  memset(a, 0, sizeof(*a));
  a->f.tags = a->tags;
  for (int i = 3; i < argc; i++)
  {
    const char *s = argv[i];
    if (strncmp(s, "--results-db=", 13) == 0)
      a->db = s + 13;
    else if (strncmp(s, "--test=", 7) == 0)
      a->f.test = s + 7;
    else if (strncmp(s, "--since=", 8) == 0)
      a->f.since = s + 8;
    else if (strncmp(s, "--series=", 9) == 0 && s[9])
      a->f.series = s + 9;
    else if (strncmp(s, "--last=", 7) == 0)
    {
      char *end;
      long n = strtol(s + 7, &end, 10);
      if (end == s + 7 || *end || n <= 0)
        return sb_command_usage_error("bmk runs", USAGE,
                                  "--last takes a positive number, not '%s'", s + 7);
      a->f.last = (unsigned) n;
    }
    else if (strncmp(s, "--tag=", 6) == 0)
    {
      if (strchr(s + 6, '=') == NULL)
        return sb_command_usage_error("bmk runs", USAGE, "--tag takes KEY=VALUE, not '%s'", s + 6);
      if (a->f.ntags < 32)
        a->tags[a->f.ntags++] = (char *) s + 6;
    }
    else if (strcmp(s, "--ids") == 0)
      a->ids = true;
    else if (strncmp(s, "--", 2) == 0)
      return sb_command_usage_error("bmk runs", USAGE, "unknown option '%s'", s);
    else if (a->nargs < 256)
      a->args[a->nargs++] = s;
  }
  return 0;
}

static void print_row(const sb_resultsdb_row_t *r, void *arg)
{
  (void) arg;
  char tps[32], p95[32], p99[32];
  snprintf(tps, sizeof(tps), isnan(r->tps) ? "-" : "%.2f", r->tps);
  snprintf(p95, sizeof(p95), isnan(r->p95_ms) ? "-" : "%.2f", r->p95_ms);
  snprintf(p99, sizeof(p99), isnan(r->p99_ms) ? "-" : "%.2f", r->p99_ms);
  printf("%6lld  %-20s  %-24s %7u %12s %10s %10s%s  %s\n", (long long) r->id,
         r->started ? r->started : "", r->test ? r->test : "", r->threads, tps, p95, p99,
         r->completed ? "" : " (interrupted)", r->tags ? r->tags : "");
}

static void print_id(const sb_resultsdb_row_t *r, void *arg)
{
  (void) arg;
  printf("%lld\n", (long long) r->id);
}

static void print_header(void)
{
  printf("%6s  %-20s  %-24s %7s %12s %10s %10s  %s\n", "id", "start (UTC)", "test", "VUs",
         "tps", "p95 (ms)", "p99 (ms)", "tags");
}

/* The run id in `s`, or -1 after a message. */
static long long parse_id(const char *s)
{
  char *end;
  long long id = s ? strtoll(s, &end, 10) : 0;
  if (s == NULL || end == s || *end || id <= 0)
  {
    sb_command_usage_error("bmk runs", USAGE,
                       "a run id is a positive number, not '%s'", s ? s : "(none)");
    return -1;
  }
  return id;
}

/* show / export / delete of run `id`. */
static int one_run(sb_resultsdb_t *st, const char *cmd, long long id)
{
  char err[512] = "";
  if (strcmp(cmd, "delete") == 0)
  {
    int rc = sb_resultsdb_delete(st, id, err, sizeof(err));
    if (rc == 0)
      printf("run %lld deleted\n", id);
    else if (rc > 0)
      fprintf(stderr, "bmk runs: no run %lld in the results database\n", id);
    else
      fprintf(stderr, "bmk runs: %s\n", err);
    return rc == 0 ? 0 : 1;
  }
  bool found = false;
  json_t *doc = sb_resultsdb_get(st, id, &found, err, sizeof(err));
  if (doc == NULL)
  {
    if (found)
      fprintf(stderr, "bmk runs: %s\n", err);
    else
      fprintf(stderr, "bmk runs: no run %lld in the results database%s%s\n", id,
              *err ? ": " : "", err);
    return 1;
  }
  if (strcmp(cmd, "export") == 0)
  {
    json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    printf("\n");
  }
  else
    sb_report_file_print(stdout, doc);
  json_decref(doc);
  return 0;
}

static int import_files(sb_resultsdb_t *st, const runs_args_t *a)
{
  if (a->nargs == 0)
    return sb_command_usage_error("bmk runs", USAGE, "import: name the result files");
  int rc = 0;
  for (unsigned i = 0; i < a->nargs; i++)
  {
    sb_results_file_t d;
    char err[512];
    memset(&d, 0, sizeof(d));
    if (sb_results_file_load(a->args[i], &d, err, sizeof(err)) != 0)
    {
      fprintf(stderr, "bmk runs: %s\n", err);
      rc = 1;
      continue;
    }
    int64_t id = sb_resultsdb_save(st, d.doc, err, sizeof(err));
    if (id < 0)
    {
      fprintf(stderr, "bmk runs: %s: %s\n", a->args[i], err);
      rc = 1;
    }
    else
      printf("%s: run %lld\n", a->args[i], (long long) id);
    sb_results_file_free(&d);
  }
  return rc;
}

int sb_runs_main(int argc, char **argv)
{
  if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "help") == 0)
  {
    fputs(USAGE, argc < 3 ? stderr : stdout);
    return argc < 3 ? 1 : 0;
  }
  const char *cmd = argv[2];
  runs_args_t a;
  if (parse(argc, argv, &a) != 0)
    return 1;
  bool one = strcmp(cmd, "show") == 0 || strcmp(cmd, "export") == 0 ||
             strcmp(cmd, "delete") == 0;
  if (!one && strcmp(cmd, "list") != 0 && strcmp(cmd, "import") != 0)
    return sb_command_usage_error("bmk runs", USAGE, "unknown command '%s'", cmd);
  long long id = 0;
  if (one && (a.nargs != 1 || (id = parse_id(a.args[0])) < 0))
    return a.nargs != 1 ? sb_command_usage_error("bmk runs", USAGE, "%s takes one run id", cmd) : 1;
  char path[4096], err[512];
  sb_resultsdb_path(a.db, path, sizeof(path));
  /* Reading never creates a database: a SQLite file that is not there
     has no runs (only import, and --save, make one). */
  if (strcmp(cmd, "import") != 0 && !sb_resultsdb_is_url(path) && access(path, F_OK) != 0)
  {
    if (!one)
    {
      if (!a.ids)
        print_header();
      return 0;
    }
    fprintf(stderr, "bmk runs: no run %lld: there is no results database at %s (--save "
            "makes one)\n", id, path);
    return 1;
  }
  sb_resultsdb_t *st = sb_resultsdb_open(path, err, sizeof(err));
  if (st == NULL)
  {
    fprintf(stderr, "bmk runs: %s\n", err);
    return 1;
  }
  int rc = 0;
  if (one)
    rc = one_run(st, cmd, id);
  else if (strcmp(cmd, "import") == 0)
    rc = import_files(st, &a);
  else
  {
    if (!a.ids)
      print_header();
    if (sb_resultsdb_list(st, &a.f, a.ids ? print_id : print_row, NULL, err, sizeof(err)) < 0)
    {
      fprintf(stderr, "bmk runs: %s\n", err);
      rc = 1;
    }
  }
  sb_resultsdb_close(st);
  return rc;
}
