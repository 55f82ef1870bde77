/* The table of bmk's commands; see sb_commands.h. */
#include <string.h>

#include "commands/cluster/sb_cluster_cmd.h"
#include "commands/compare/sb_compare_cmd.h"
#include "commands/pgbench/pgb_cmd.h"
#include "commands/report/sb_report_cmd.h"
#include "commands/runs/sb_runs_cmd.h"
#include "commands/sandbox/sb_sandbox_cmd.h"
#include "commands/sb_commands.h"
#include "commands/sb_lua_command.h"

static const sb_command_t commands[] = {
  { "kit", "...", "the benchmark kit: named sb11-* scripts, dbSTRESS, split runs "
    "(docs/kit.md)", NULL, "bmk.kit", NULL },
  { "series", "--users=LIST -- CMD", "runs a command once per user count (--users=1,2,4,...) "
    "and prints one table (docs/report.md)", NULL, "bmk.series", NULL },
  { "capacity", "--slo=SLO -- CMD", "searches the highest --rate (or user count) "
    "meeting latency SLOs (docs/capacity.md)", NULL, "bmk.capacity", NULL },
  { "report", "RUNS...", "series table of --results files or saved runs, --merge of "
    "concurrent runs, --html charts (docs/report.md)", sb_report_main, NULL, NULL },
  { "runs", "list|show|...", "the results database of saved runs: list, "
    "show, export, import, delete (docs/results-db.md)", sb_runs_main, NULL, NULL },
  { "compare", "A B", "B against A with confidence intervals, --json, --fail-if gates "
    "(docs/results-db.md)", sb_compare_main, NULL, NULL },
  { "cluster", "run ...", "one run from many processes and load hosts (ssh), merged live "
    "and exactly (docs/cluster.md)", sb_cluster_main, NULL, NULL },
  { "sandbox", "ACTION SERVER", "throwaway MariaDB, PostgreSQL and PgBouncer servers to "
    "try bmk on: start, stop, env (docs/usage.md)", sb_sandbox_main, NULL, NULL },
  { "pgbench", "[OPTION]... [DBNAME]", "pgbench 15's command line, scripts and output, also as a "
    "link named pgbench (docs/pgbench.md)", pgb_cmd_main, NULL, NULL },
  { "tpcc", "prepare|run|...", "the TPROC-C-style workload derived from TPC-C "
    "(docs/tpcc.md)", NULL, NULL, "tpcc" },
  { "tpch", "generate|prepare|run|...", "the TPC-H-derived workload: dbgen's data as "
    "files or loaded, qgen's parameters, power and throughput tests (docs/tpch.md)", NULL, NULL, "tpch" },
  { "chbench", "prepare|run|...", "CH-benCHmark: TPC-C VUs and the 22 analytic queries in "
    "streams at the same time, on TPC-C's tables (docs/chbench.md)", NULL, NULL, "chbench" },
  { "dbl", "prepare|run|...", "database load tests: rows per commit, bulk and fast "
    "loads (docs/capacity.md)", NULL, NULL, "dbl" },
  { "dml_cost", "run|cleanup", "what simple DML costs the server per row "
    "(docs/capacity.md)", NULL, NULL, "dml_cost" },
};

const sb_command_t *sb_commands(size_t *n)
{
  *n = sizeof(commands) / sizeof(commands[0]);
  return commands;
}

const sb_command_t *sb_command_find(const char *name)
{
  for (size_t i = 0; name != NULL && i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

int sb_command_run(const sb_command_t *cmd, int argc, char **argv)
{
  if (cmd->main != NULL)
    return cmd->main(argc, argv);
  return sb_lua_command_run(cmd->lua_module, cmd->name, argc, argv);
}
