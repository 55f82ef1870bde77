/*
 * bmk entry point: option parsing, test resolution and command dispatch
 * (as sysbench 1.1's src/sysbench.c does them).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/db_driver.h"
#include "builtin/sb_builtin.h"
#include "commands/sb_commands.h"
#include "commands/pgbench/pgb_bmk.h"
#include "commands/pgbench/pgb_cmd.h"
#include "cli/sb_core_options.h"
#include "core/sb_counter.h"
#include "core/sb_metric.h"
#include "engine/sb_engine.h"
#include "cli/sb_help.h"
#include "core/sb_cluster.h"
#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "core/sb_options.h"
#include "results/sb_results.h"
#include "results/sb_results_manifest.h"
#include "results/sb_threshold.h"
#include "cli/sb_cmd_outputs.h"
#include "cli/sb_outputs.h"
#include "cli/sb_pgb_additions.h"
#include "cli/sb_repeat.h"
#include "resultsdb/sb_resultsdb_output.h"
#include "metrics/sb_metrics.h"
#include "server/sb_server_cost.h"
#include "core/sb_version.h"

#define MAX_POSITIONAL 8

static int run_builtin(const sb_builtin_t *bt, const char *command,
                       sb_run_config_t *cfg)
{
  if (sb_opt_register_table(bt->options, SB_GROUP_TEST, NULL) != 0)
    return 1;
  if (sb_opt_check_unknown() != 0)
    return 1;
  if (command == NULL)
  {
    fprintf(stderr, "The '%s' test requires a command argument. See '%s %s help'\n",
            bt->name, sb_progname(), bt->name);
    return 1;
  }
  if (strcmp(command, "help") == 0)
  {
    printf("%s options:\n", bt->name);
    sb_opt_print_group(SB_GROUP_TEST, NULL, false);
    printf("\n");
    return 0;
  }
  if (strcmp(command, "prepare") == 0 || strcmp(command, "cleanup") == 0)
  {
    int (*fn)(const sb_run_config_t *) =
      command[0] == 'p' ? bt->prepare : bt->cleanup;
    if (fn == NULL)
    {
      fprintf(stderr, "'%s' test does not implement the '%s' command.\n", bt->name, command);
      return 1;
    }
    return fn(cfg);
  }
  if (strcmp(command, "run") == 0)
  {
    if (sb_cli_register_outputs(bt->name, cfg, &bt->run) != 0)
      return 1;
    if (bt->init && bt->init(cfg) != 0)
      return 1;
    int rc = sb_engine_run(cfg, &bt->run);
    if (bt->done)
      bt->done();
    return rc;
  }
  fprintf(stderr, "Unknown command: %s\n", command);
  return 1;
}

static int run_script_command(const char *command, sb_run_config_t *cfg)
{
  lua_State *G = sb_lua_global();
  bool ret_false = false;

  if (sb_lua_command_defined(command))
  {
    if (sb_lua_command_parallel(command) && cfg->threads > 1)
      return sb_engine_parallel_command(cfg, command);
    if (sb_lua_call_command(G, command, &ret_false) != 0)
      return 1;
    return ret_false ? 1 : 0;
  }
  if (strcmp(command, "run") == 0)
  {
    if (sb_cli_register_outputs(sb_lua_workload_name(), cfg, NULL) != 0)
      return 1;
    return sb_engine_run(cfg, NULL);
  }
  if (strcmp(command, "prepare") == 0 || strcmp(command, "cleanup") == 0 ||
      strcmp(command, "help") == 0)
  {
    if (sb_lua_has_function(G, command))
    {
      if (sb_lua_call(G, command, -1, &ret_false) != 0)
        return 1;
      return ret_false ? 1 : 0;
    }
    if (strcmp(command, "help") == 0 && sb_lua_print_test_options())
      return 0;
    fprintf(stderr, "'%s' test does not implement the '%s' command.\n",
            sb_lua_test_name(), command);
    return 1;
  }
  fprintf(stderr, "Unknown command: %s\n", command);
  return 1;
}

/* pgbench scripts (FILE.sql, pgbench_script: commands/pgbench/pgb_bmk.h)
   as a built-in test, or NULL when `test` names none. Main thread. */
static const sb_builtin_t *pgbench_scripts(const char *test)
{
  static sb_builtin_t t;
  if (!pgb_bmk_match(test))
    return NULL;
  /* named as the command line names it (FILE.sql): the manifest's test
     and the metrics' label agree */
  t = (sb_builtin_t) { .name = test, .description = "pgbench scripts",
                       .options = pgb_bmk_options, .init = pgb_bmk_init,
                       .prepare = pgb_bmk_prepare, .cleanup = pgb_bmk_cleanup,
                       .run = pgb_bmk_test, .done = pgb_bmk_done };
  return &t;
}

/* SIGINT/SIGTERM before a run (loading the script, prepare, init, thread
   start): one FATAL line and the shell's exit code instead of a silent
   death. A run blocks both and reports (sb_engine.c). Async-signal-safe. */
static void early_signal(int sig)
{
  static const char intr[] = "FATAL: interrupted by SIGINT\n";
  static const char term[] = "FATAL: interrupted by SIGTERM\n";
  ssize_t rc = sig == SIGINT ? write(STDOUT_FILENO, intr, sizeof(intr) - 1)
                             : write(STDOUT_FILENO, term, sizeof(term) - 1);
  (void) rc;
  _exit(sig == SIGINT ? 130 : 143);
}

/* A command of bmk's table with a command line of its own (`bmk report
   ...`; commands/sb_commands.h): returns true, with its exit code in
   *rc, when argv names one. Workloads (`bmk tpcc prepare`) take the
   sysbench command line below. */
static bool other_command(int argc, char **argv, int *rc)
{
  const sb_command_t *cmd = argc > 1 ? sb_command_find(argv[1]) : NULL;
  if (cmd == NULL || cmd->workload != NULL)
    return false;
  *rc = sb_command_run(cmd, argc, argv);
  return true;
}

static void catch_early_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = early_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* --help and --version: prints what they ask for and returns true. */
static bool print_info(void)
{
  if (sb_opt_bool("help"))
  {
    sb_print_help();
    return true;
  }
  if (sb_opt_bool("version"))
  {
    printf("%s\n", sb_version_string());
    if (strcmp(sb_progname(), "sysbench") != 0)
      printf("bmk release %s\n", sb_bmk_release());
    return true;
  }
  return false;
}

/* The test and the command from the positional arguments (`pos`, `npos`
   of them), or from the deprecated --test. Returns 0, or 1 when an
   argument is left over (message on stderr). */
static int split_positional(char **pos, unsigned npos, const char **test,
                            const char **command)
{
  const char *extra;
  const char *test_opt = sb_opt_str("test");
  if (test_opt && *test_opt)
  {
    fprintf(stderr, "WARNING: the --test option is deprecated. You can pass a "
            "script name or path on the command line without any options.\n");
    *test = test_opt;
    *command = npos > 0 ? pos[0] : NULL;
    extra = npos > 1 ? pos[1] : NULL;
  }
  else
  {
    *test = npos > 0 ? pos[0] : NULL;
    *command = npos > 1 ? pos[1] : NULL;
    extra = npos > 2 ? pos[2] : NULL;
  }
  if (extra)
  {
    fprintf(stderr, "Unrecognized command line argument: %s\n", extra);
    return 1;
  }
  return 0;
}

/* The core options into `cfg`, the header line, the random numbers and
   the counters, before the test is resolved. Returns 0, or 1 (message
   printed). */
static int configure_run(const char *command, sb_run_config_t *cfg)
{
  sb_core_apply_aliases();
  if (sb_core_read_config(cfg) != 0 || db_check_options() != 0 ||
      sb_server_cost_configure() != 0)
    return 1;

  sb_print_header();
  if (cfg->events_limit == 0 && cfg->time_limit == 0 && command &&
      strcmp(command, "run") == 0)
    log_text(LOG_WARNING, "Both event and time limits are disabled, running an endless test");
  if (sb_core_init_rand() != 0)
    return 1;
  if (sb_counters_init(cfg->threads) != 0 || sb_metrics_init(cfg->threads) != 0)
  {
    log_text(LOG_FATAL, "out of memory");
    return 1;
  }
  return 0;
}

/* --async-sessions=auto, once the script's options exist: the session
   count the workload states through its sysbench.hooks.async_sessions
   (tpcc: one per terminal, 10 per warehouse by default). Returns 0, or 1 (FATAL
   printed). */
static int resolve_async_auto(sb_run_config_t *cfg)
{
  long terminals = sb_lua_hook_count(sb_lua_global(), "async_sessions");
  if (terminals < 0)
    return 1;
  if (terminals > 10000000L)
    terminals = 10000001L;      /* refused by the plan with its message */
  if (sb_core_resolve_vus(cfg, terminals > 0 ? (unsigned) terminals : 0) != 0)
    return 1;
  /* per-VU counters and metric slots for the VU count now known */
  if (sb_counters_init(cfg->threads) != 0 || sb_metrics_init(cfg->threads) != 0)
  {
    log_text(LOG_FATAL, "out of memory");
    return 1;
  }
  return 0;
}

/* `run` of a workload with VUs of its own beyond --threads (bmk chbench:
   its analytic streams), counted by sysbench.hooks.extra_vus: they are
   added to the plan and take the thread ids after the other VUs, while
   sysbench.opt.threads keeps counting only those. Thread mode only: each
   gets a thread. Returns 0, or 1 (FATAL printed). */
static int add_extra_vus(const char *command, sb_run_config_t *cfg)
{
  if (command == NULL || strcmp(command, "run") != 0)
    return 0;
  long extra = sb_lua_hook_count(sb_lua_global(), "extra_vus");
  if (extra < 0)
    return 1;
  if (extra == 0)
    return 0;
  if (extra > 10000 || cfg->threads + (unsigned) extra > 10000000U)
  {
    log_text(LOG_FATAL, "too many virtual users: %u and %ld of the workload's own",
             cfg->threads, extra);
    return 1;
  }
  if (cfg->event_mode)
  {
    log_text(LOG_FATAL, "the workload's own %ld VU(s) (chbench: --analytic-streams) block "
             "while their queries run, so they need thread mode, which %u VUs on "
             "--workers=%s did not choose: give --workers=threads",
             extra, cfg->threads, sb_opt_str("workers") ? sb_opt_str("workers") : "auto");
    return 1;
  }
  cfg->threads += (unsigned) extra;
  cfg->workers = cfg->threads;
  if (sb_counters_init(cfg->threads) != 0 || sb_metrics_init(cfg->threads) != 0)
  {
    log_text(LOG_FATAL, "out of memory");
    return 1;
  }
  return 0;
}

/* Runs `command` (none: only checks the options) of the loaded script.
   Returns the exit code. */
static int run_loaded_script(const char *command, sb_run_config_t *cfg)
{
  sb_results_set_test(sb_lua_workload_name());

  if (sb_core_async_auto() && resolve_async_auto(cfg) != 0)
    return 1;
  if (add_extra_vus(command, cfg) != 0)
    return 1;
  /* the VU count is final now: global thread ids count it */
  sb_cluster_set(sb_cluster_index(), sb_cluster_size(), cfg->threads);

  bool from_stdin = sb_lua_from_stdin();
  if (from_stdin && command == NULL)
    sb_opt_ignore_unknown();
  if (sb_opt_check_unknown() != 0)
    return 1;
  if (from_stdin || command == NULL)
    return 0;

  lua_State *G = sb_lua_global();
  sb_lua_export_options(G);
  return run_script_command(command, cfg);
}

/* Loads the Lua benchmark `test` and runs `command` (none: only checks
   the options). The script's state is closed on every path, so the
   finalizers of what it made (ffi.gc'd histograms, connections) run
   before exit. Returns the exit code. */
static int run_script(int argc, char **argv, const char *test, const char *command,
                      sb_run_config_t *cfg)
{
  sb_lua_set_cmdline(argc, argv, command);
  int rc = sb_lua_load(test);
  if (rc == 1)
    log_text(LOG_FATAL, "Cannot find benchmark '%s': no such built-in test, file or module",
             test);
  if (rc != 0)
  {
    sb_lua_done();
    return 1;
  }
  rc = run_loaded_script(command, cfg);
  log_flush();
  sb_lua_done();
  return rc;
}

int main(int argc, char **argv)
{
  char *pos[MAX_POSITIONAL];
  unsigned npos = 0;
  int rc;

  setvbuf(stdout, NULL, _IONBF, 0);
  /* bmk's additions asked for on the pgbench persona's command line */
  pgb_set_additions(sb_cli_pgbench_additions);
  /* under the name pgbench: pgbench 15's command line (docs/pgbench.md) */
  const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
  if (argc > 0 && strcmp(base ? base + 1 : argv[0], "pgbench") == 0)
    return pgb_main(argc, argv);
  if (other_command(argc, argv, &rc))
    return rc;
  catch_early_signals();
  sb_set_progname(argv[0]);
  sb_results_set_cmdline(argc, argv);
  sb_cli_install_cmd_outputs();
  sb_opt_init();

  if (sb_opt_parse_argv(argc, argv, pos, MAX_POSITIONAL, &npos) != 0)
    return 1;
  if (sb_core_register_options() != 0 || db_register_options() != 0 ||
      sb_metrics_register_options() != 0 || sb_resultsdb_register_options() != 0 ||
      sb_threshold_register_options() != 0)
    return 1;

  log_set_verbosity(sb_opt_int("verbosity"));
  if (sb_opt_bool("debug"))
    log_set_verbosity(LOG_DEBUG);
  if (print_info())
    return 0;

  const char *test, *command;
  if (split_positional(pos, npos, &test, &command) != 0)
    return 1;
  if (sb_repeat_wanted(command, &rc))
    return rc ? rc : sb_repeat_run(argc, argv);
  if (sb_repeat_child_setup() != 0)
    return 1;
  /* a built-in test, or pgbench scripts (FILE.sql, pgbench_script),
     which run as one */
  const sb_builtin_t *bt = test ? sb_builtin_find(test) : NULL;
  /* pgbench scripts' events wait for the server, as a Lua workload's:
     --workers=auto picks the event loop for them alike */
  sb_core_set_own_work(bt != NULL);
  if (bt == NULL)
    bt = pgbench_scripts(test);
  sb_run_config_t cfg;
  if (configure_run(command, &cfg) != 0)
    return 1;

  if (bt)
  {
    /* a built-in test has no terminals: auto gets the plan's message */
    if (sb_core_async_auto() && sb_core_resolve_vus(&cfg, 0) != 0)
      return 1;
    sb_results_set_test(test);
    return run_builtin(bt, command, &cfg);
  }
  return run_script(argc, argv, test, command, &cfg);
}
