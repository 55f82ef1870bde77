/*
 * bmk's additions on the pgbench persona's command line; see
 * pgb_additions.h and docs/pgbench.md "bmk's additions".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb.h"
#include "commands/pgbench/pgb_additions.h"
#include "core/sb_options.h"

/* The options taken, as bmk spells them (bmk's '_' for '-' too), and
   whether each takes a value (the others are switches: on alone, or a
   value of on/off with '=' or as the next argument). */
static const struct {
  const char *name;
  bool value;
} names[] = {
  { "db-server-stats", false }, { "results", true }, { "hdr-log", true },
  { "save", false }, { "results-db", true }, { "tag", true },
  { "metrics-listen", true }, { "percentile", true },
  { "statement-percentiles", false }, { NULL, false }
};

static pgb_additions_fn installer;
static char **taken;           /* [0] the program name, then the options */
static int ntaken;
static char **whole;           /* the command line before the taking */
static int nwhole;
static char **joined;          /* "--NAME=VALUE" made of "--NAME VALUE" */
static int njoined;

void pgb_set_additions(pgb_additions_fn fn)
{
  installer = fn;
}

int pgb_additions_count(void)
{
  return ntaken > 0 ? ntaken - 1 : 0;
}

/* The index in names[] of the option `arg` ("--NAME" or "--NAME=VALUE")
   names, or -1 when it is none of bmk's options above. */
static int addition_of(const char *arg)
{
  if (strncmp(arg, "--", 2) != 0)
    return -1;
  const char *name = arg + 2;
  size_t n = strcspn(name, "=");
  for (int i = 0; names[i].name; i++)
  {
    if (strlen(names[i].name) != n)
      continue;
    size_t k = 0;
    while (k < n && (name[k] == names[i].name[k] ||
                     (name[k] == '_' && names[i].name[k] == '-')))
      k++;
    if (k == n)
      return i;
  }
  return -1;
}

/* "--NAME=VALUE" from "--NAME" and VALUE, kept in `joined` for the
   run (as `taken`); NULL when out of memory. */
static char *join(const char *opt, const char *value)
{
  size_t n = strlen(opt) + strlen(value) + 2;
  char *s = malloc(n);
  if (s == NULL)
    return NULL;
  snprintf(s, n, "%s=%s", opt, value);
  joined[njoined++] = s;
  return s;
}

int pgb_additions_take(int *argc, char **argv)
{
  nwhole = *argc;
  whole = malloc(sizeof(char *) * (size_t) (*argc + 1));
  taken = malloc(sizeof(char *) * (size_t) (*argc + 1));
  joined = malloc(sizeof(char *) * (size_t) (*argc + 1));
  if (whole == NULL || taken == NULL || joined == NULL)
    return 0;                   /* nothing taken: pgbench's parser refuses them */
  memcpy(whole, argv, sizeof(char *) * (size_t) (*argc + 1));
  taken[0] = argv[0];
  ntaken = 1;
  int out = 1;
  bool rest = false, b;
  for (int i = 1; i < *argc; i++)
  {
    if (!rest && strcmp(argv[i], "--") == 0)
      rest = true;
    int k = rest ? -1 : addition_of(argv[i]);
    if (k < 0)
    {
      argv[out++] = argv[i];
      continue;
    }
    const char *opt = argv[i];
    if (strchr(opt, '=') == NULL && names[k].value)
    {
      /* "--NAME VALUE", as getopt_long takes pgbench's own options */
      if (i + 1 >= *argc)
      {
        fprintf(stderr, "%s: option '%s' requires an argument\n", argv[0], opt);
        return -1;
      }
      opt = join(opt, argv[++i]);
    }
    else if (strchr(opt, '=') == NULL && i + 1 < *argc && sb_parse_bool(argv[i + 1], &b) == 0)
      opt = join(opt, argv[++i]);     /* a switch's "--NAME on" */
    if (opt == NULL)
    {
      fprintf(stderr, "%s: out of memory\n", argv[0]);
      return -1;
    }
    taken[ntaken++] = (char *) opt;
  }
  argv[out] = NULL;
  *argc = out;
  return 0;
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
