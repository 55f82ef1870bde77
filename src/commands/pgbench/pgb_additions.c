/*
 * bmk's additions on the pgbench persona's command line; see
 * pgb_additions.h and docs/pgbench.md "bmk's additions".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb.h"
#include "commands/pgbench/pgb_additions.h"

/* The options taken, as bmk spells them (bmk's '_' for '-' too). */
static const char *const names[] = {
  "db-server-stats", "results", "hdr-log", "save", "results-db", "tag",
  "metrics-listen", "percentile", "statement-percentiles", NULL
};

static pgb_additions_fn installer;
static char **taken;           /* [0] the program name, then the options */
static int ntaken;
static char **whole;           /* the command line before the taking */
static int nwhole;

void pgb_set_additions(pgb_additions_fn fn)
{
  installer = fn;
}

int pgb_additions_count(void)
{
  return ntaken > 0 ? ntaken - 1 : 0;
}

/* True when `arg` ("--NAME" or "--NAME=VALUE") names one of bmk's
   options above. */
static bool is_addition(const char *arg)
{
  if (strncmp(arg, "--", 2) != 0)
    return false;
  const char *name = arg + 2;
  size_t n = strcspn(name, "=");
  for (int i = 0; names[i]; i++)
  {
    if (strlen(names[i]) != n)
      continue;
    size_t k = 0;
    while (k < n && (name[k] == names[i][k] || (name[k] == '_' && names[i][k] == '-')))
      k++;
    if (k == n)
      return true;
  }
  return false;
}

void pgb_additions_take(int *argc, char **argv)
{
  nwhole = *argc;
  whole = malloc(sizeof(char *) * (size_t) (*argc + 1));
  taken = malloc(sizeof(char *) * (size_t) (*argc + 1));
  if (whole == NULL || taken == NULL)
    return;                     /* nothing taken: pgbench's parser refuses them */
  memcpy(whole, argv, sizeof(char *) * (size_t) (*argc + 1));
  taken[0] = argv[0];
  ntaken = 1;
  int out = 1;
  bool rest = false;
  for (int i = 1; i < *argc; i++)
  {
    if (!rest && strcmp(argv[i], "--") == 0)
      rest = true;
    if (!rest && is_addition(argv[i]))
      taken[ntaken++] = argv[i];
    else
      argv[out++] = argv[i];
  }
  argv[out] = NULL;
  *argc = out;
}

int pgb_additions_install(sb_run_config_t *cfg, const sb_output_t *report, bool *statements)
{
  if (installer == NULL)
  {
    pgb_error("bmk's options (%s) are not available in this program", taken[1]);
    return 1;
  }
  pgb_additions_t a = { .argc = nwhole, .argv = whole, .nopts = ntaken, .opts = taken,
                        .cfg = cfg, .report = report, .statements = statements };
  return installer(&a);
}
