/* `bmk report`; see sb_report_cmd.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sb_command_usage.h"
#include "commands/report/sb_report_cmd.h"
#include "commands/sb_run_select.h"
#include "results/sb_report_file.h"
#include "results/sb_html.h"
#include "results/sb_merge.h"
#include "results/sb_results_file.h"
#include "results/sb_series_table.h"

static const char USAGE[] =
  "Usage:\n"
  "  bmk report [--series=ID] [--html=FILE.html [--svg-dir=DIR]] RUNS...\n"
  "  bmk report --merge [--output=MERGED.json] [--html=FILE.html [--svg-dir=DIR]] RUNS...\n"
  "RUNS: --results files (FILE.json), run ids of the results database (17, or 17,18),\n"
  "tag:KEY=VALUE (every saved run with that tag) or series:ID (every saved run of that\n"
  "series); --results-db=FILE|URL names the database. --series=ID without RUNS: the\n"
  "series' runs from the database.\n"
  "The series table of the runs (one table per series; runs\n"
  "without a series id are grouped by test), or with --merge the runs that ran at the\n"
  "same time (a split kit run, several load hosts) combined into one report.\n"
  "--html writes one self-contained page of charts (gnuplot: apt-get install gnuplot-nox);\n"
  "--svg-dir also writes each chart as DIR/chart-<n>.svg (listed in DIR/charts.txt).\n"
  "See docs/report.md.\n";

typedef struct {
  bool merge;
  const char *output, *html, *series, *svg_dir, *db;
  const char **files;
  unsigned nfiles;
} report_args_t;

/* Parses argv[2..]; returns 0, 1 on a usage error, -1 for --help. */
static int parse_args(int argc, char **argv, report_args_t *a)
{
  memset(a, 0, sizeof(*a));
  a->files = calloc((size_t) argc, sizeof(char *));
  if (a->files == NULL)
    return sb_command_usage_error("bmk report", USAGE, "%s", "out of memory");
  bool options_done = false;
  for (int i = 2; i < argc; i++)
  {
    const char *x = argv[i];
    if (options_done || strncmp(x, "--", 2) != 0)
      a->files[a->nfiles++] = x;
    else if (strcmp(x, "--") == 0)
      options_done = true;
    else if (strcmp(x, "--help") == 0 || strcmp(x, "-h") == 0)
      return -1;
    else if (strcmp(x, "--merge") == 0)
      a->merge = true;
    else if (strncmp(x, "--output=", 9) == 0 && x[9])
      a->output = x + 9;
    else if (strncmp(x, "--html=", 7) == 0 && x[7])
      a->html = x + 7;
    else if (strncmp(x, "--series=", 9) == 0 && x[9])
      a->series = x + 9;
    else if (strncmp(x, "--svg-dir=", 10) == 0 && x[10])
      a->svg_dir = x + 10;
    else if (strncmp(x, "--results-db=", 13) == 0 && x[13])
      a->db = x + 13;
    else
      return sb_command_usage_error("bmk report", USAGE, "unknown option or missing value: '%s'", x);
  }
  /* --series=ID alone: that series' runs from the results database */
  static char series_spec[512];
  if (a->nfiles == 0 && a->series && !a->merge)
  {
    snprintf(series_spec, sizeof(series_spec), "series:%s", a->series);
    a->files[a->nfiles++] = series_spec;
  }
  if (a->nfiles == 0)
    return sb_command_usage_error("bmk report", USAGE,
                              "%s", "no result files given (nor run ids, nor tag:KEY=VALUE)");
  if (a->output && !a->merge)
    return sb_command_usage_error("bmk report", USAGE,
                              "%s", "--output writes the merged file: it needs --merge");
  if (a->svg_dir && !a->html)
    return sb_command_usage_error("bmk report", USAGE,
                              "%s", "--svg-dir copies the charts of --html: it needs --html");
  if (a->series && a->merge)
    return sb_command_usage_error("bmk report", USAGE,
                              "%s", "--series selects runs for the series table; --merge "
                              "takes the files to combine");
  return 0;
}

/* The documents loaded so far. */
typedef struct {
  sb_results_file_t *docs;
  unsigned n, cap;
} loaded_t;

/* sb_run_select's callback: one more document. */
static int add_doc(json_t *doc, int64_t id, const char *name, void *arg)
{
  (void) id;
  loaded_t *l = arg;
  if (l->n == l->cap)
  {
    unsigned cap = l->cap ? l->cap * 2 : 16;
    sb_results_file_t *t = realloc(l->docs, cap * sizeof(*t));
    if (t == NULL)
    {
      json_decref(doc);
      fprintf(stderr, "bmk report: out of memory\n");
      return 1;
    }
    l->docs = t;
    l->cap = cap;
  }
  char err[1024];
  memset(&l->docs[l->n], 0, sizeof(l->docs[0]));
  if (sb_results_file_adopt(&l->docs[l->n], name, doc, err, sizeof(err)) != 0)
  {
    fprintf(stderr, "bmk report: %s\n", err);
    return 1;
  }
  l->n++;
  return 0;
}

/* Loads every file, run id and tag selector (cli/sb_run_select.h);
   prints the first error. Returns 0 or 1. */
static int load_all(const report_args_t *a, loaded_t *l)
{
  sb_resultsdb_t *st = NULL;
  int rc = 0;
  for (unsigned i = 0; rc == 0 && i < a->nfiles; i++)
    rc = sb_run_select("bmk report", a->files[i], a->db, &st, add_doc, l);
  sb_resultsdb_close(st);
  return rc;
}

static void print_merge_header(const json_t *doc, const char *note)
{
  const json_t *from = sb_json_at(doc, "manifest", "merged_from", NULL);
  const char *drv = sb_json_str(doc, "manifest", "server", "driver", NULL);
  printf("Merged report: %zu runs of %s%s%s, %.0f threads in all\n", json_array_size(from),
         sb_json_str(doc, "manifest", "test", NULL) ? sb_json_str(doc, "manifest", "test", NULL)
                                                    : "?",
         drv ? " on " : "", drv ? drv : "", sb_json_num(doc, "summary", "threads", NULL));
  size_t i;
  const json_t *r;
  double base = sb_json_num(doc, "manifest", "start_epoch_us", NULL);
  json_array_foreach(from, i, r)
    printf("    %s: host %s, %.0f threads, started %+.3f s, %.0f events in %.2f s\n",
           sb_json_str(r, "file", NULL), sb_json_str(r, "host", NULL),
           sb_json_num(r, "threads", NULL), (sb_json_num(r, "start_epoch_us", NULL) - base) / 1e6,
           sb_json_num(r, "events", NULL), sb_json_num(r, "time_s", NULL));
  if (note && *note)
    printf("NOTE: %s\n", note);
  printf("\n");
}

static int do_merge(const report_args_t *a, sb_results_file_t *docs, unsigned ndocs)
{
  char err[1024], note[1024];
  json_t *doc = sb_merge_docs(docs, ndocs, note, sizeof(note), err, sizeof(err));
  if (doc == NULL)
  {
    fprintf(stderr, "bmk report --merge: %s\n", err);
    return 1;
  }
  print_merge_header(doc, note);
  sb_report_file_print(stdout, doc);
  int rc = 0;
  if (a->output)
  {
    if (sb_merge_write(doc, a->output, err, sizeof(err)) != 0)
    {
      fprintf(stderr, "bmk report --merge: --output: %s\n", err);
      rc = 1;
    }
    else
      printf("Merged results written to %s\n", a->output);
  }
  if (rc == 0 && a->html)
  {
    /* the page charts the merged run; `merged` takes over `doc` */
    sb_results_file_t merged;
    rc = sb_results_file_adopt(&merged, a->output ? a->output : "merged runs", doc, err, sizeof(err));
    doc = NULL;
    if (rc == 0)
      rc = sb_html_write(a->html, &merged, 1, err, sizeof(err)) == 0 ? 0 : 1;
    if (rc != 0)
      fprintf(stderr, "bmk report: --html: %s\n", err);
    else
      printf("Charts written to %s\n", a->html);
    sb_results_file_free(&merged);
  }
  json_decref(doc);
  return rc;
}

static int do_table(const report_args_t *a, sb_results_file_t *docs, unsigned ndocs)
{
  /* --series: only that series' runs */
  unsigned n = 0;
  for (unsigned i = 0; i < ndocs; i++)
  {
    if (a->series && !(docs[i].series_id && strcmp(docs[i].series_id, a->series) == 0))
      sb_results_file_free(&docs[i]);
    else if (n++ != i)
    {
      docs[n - 1] = docs[i];
      memset(&docs[i], 0, sizeof(docs[i]));
    }
  }
  if (n == 0)
  {
    fprintf(stderr, "bmk report: no run of series '%s' among the files\n", a->series);
    return 1;
  }
  char err[1024];
  sb_series_t *s;
  unsigned ns;
  if (sb_series_build(docs, n, &s, &ns, err, sizeof(err)) != 0)
  {
    fprintf(stderr, "bmk report: %s\n", err);
    return 1;
  }
  for (unsigned g = 0; g < ns; g++)
    sb_series_print(stdout, &s[g]);
  sb_series_free(s, ns);
  if (a->html)
  {
    if (sb_html_write(a->html, docs, n, err, sizeof(err)) != 0)
    {
      fprintf(stderr, "bmk report: --html: %s\n", err);
      return 1;
    }
    printf("Charts written to %s\n", a->html);
  }
  return 0;
}

int sb_report_main(int argc, char **argv)
{
  report_args_t a;
  int rc = parse_args(argc, argv, &a);
  if (rc != 0)
  {
    if (rc < 0)
      fputs(USAGE, stdout);
    free(a.files);
    return rc < 0 ? 0 : 1;
  }
  sb_html_set_svg_dir(a.svg_dir);
  loaded_t l = { NULL, 0, 0 };
  rc = load_all(&a, &l);
  if (rc == 0)
    rc = a.merge ? do_merge(&a, l.docs, l.n) : do_table(&a, l.docs, l.n);
  for (unsigned i = 0; i < l.n; i++)
    sb_results_file_free(&l.docs[i]);
  free(l.docs);
  free(a.files);
  return rc;
}
