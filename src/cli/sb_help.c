/* `--help` output; see sb_help.h. */
#include <stdbool.h>
#include <stdio.h>

#include "drivers/db_driver.h"
#include "builtin/sb_builtin.h"
#include "cli/sb_help.h"
#include "commands/sb_commands.h"
#include "core/sb_options.h"
#include "core/sb_version.h"
#include "lua/sb_workloads.h"

static bool group_has(int group, const char *name)
{
  for (unsigned i = 0; i < sb_opt_count(); i++)
    if (sb_opt_at(i)->group == group)
    {
      (void) name;
      return true;
    }
  return false;
}

void sb_print_help(void)
{
  const char *p = sb_progname();
  const db_driver_t *const *drv = db_drivers();

  printf("Usage:\n");
  printf("  %s [options]... [testname] [command]\n\n", p);
  printf("Commands implemented by most tests: prepare run cleanup help\n\n");
  printf("General options:\n");
  sb_opt_print_group(SB_GROUP_GENERAL, NULL, false);
  printf("\nPseudo-Random Numbers Generator options:\n");
  sb_opt_print_group(SB_GROUP_RAND, NULL, false);
  printf("\nLog options:\n");
  sb_opt_print_group(SB_GROUP_LOG, NULL, false);
  printf("\n");
  sb_opt_print_group(SB_GROUP_REPORT, NULL, false);
  printf("\nGeneral database options:\n\n");
  sb_opt_print_group(SB_GROUP_DB, NULL, false);
  printf("\n\nCompiled-in database drivers:\n");
  for (unsigned i = 0; drv[i]; i++)
    printf("  %s - %s\n", drv[i]->name, drv[i]->description);
  printf("\n");
  for (unsigned i = 0; drv[i]; i++)
  {
    printf("%s options:\n", drv[i]->name);
    sb_opt_print_group(SB_GROUP_DRIVER, drv[i]->name, false);
    printf("\n");
  }

  if (group_has(SB_GROUP_EXT_GENERAL, NULL))
  {
    printf("bmk extensions (general):\n");
    sb_opt_print_group(SB_GROUP_EXT_GENERAL, NULL, false);
    printf("\n");
  }
  for (unsigned i = 0; drv[i]; i++)
    if (drv[i]->ext_options && drv[i]->ext_options[0].name)
    {
      printf("bmk extensions (%s):\n", drv[i]->name);
      sb_opt_print_group(SB_GROUP_EXT_DRIVER, drv[i]->name, false);
      printf("\n");
    }

  /* bmk's commands (commands/sb_commands.c), beside sysbench's blocks */
  printf("bmk extensions (commands):\n");
  size_t n;
  const sb_command_t *cmd = sb_commands(&n);
  for (size_t i = 0; i < n; i++)
  {
    char head[96];
    snprintf(head, sizeof(head), "%s %s %s", p, cmd[i].name, cmd[i].usage);
    printf("  %-34s %s\n", head, cmd[i].summary);
  }
  printf("\n");

  /* the bundled workloads run by name (Makefile.am's LUA_TESTS) */
  printf("bmk extensions (bundled workloads):\n");
  for (const char *const *w = sb_lua_workload_tests; *w; w++)
    printf("  %s\n", *w);
  printf("\n");

  printf("Compiled-in tests:\n");
  for (const sb_builtin_t *const *t = sb_builtins(); *t; t++)
    printf("  %s - %s\n", (*t)->name, (*t)->description);
  /* pgbench scripts run as a built-in test (commands/pgbench/pgb_bmk.c) */
  printf("  pgbench_script - pgbench scripts: FILE.sql as the test name, or --script=FILE[@W] "
         "and --builtin=NAME[@W] (docs/pgbench.md)\n");
  printf("\nSee '%s <testname> help' for a list of options for each test.\n\n", p);
  fflush(stdout);
}
