/*
 * pgbench scripts under bmk's command line (pgb_bmk.h, docs/pgbench.md
 * "pgbench scripts as a bmk workload"): the workload's options, the
 * scripts (files and built-ins, with weights), `prepare` and `cleanup`
 * of pgbench's tables, and the run as a C test of the engine with the
 * persona's clients (pgb_run.c). What differs from the persona: the
 * connections are bmk's (--db-driver and its options), the clients are
 * the engine's VUs (--threads; --time, --events, --rate and the rest
 * are bmk's), each VU chooses its scripts with a generator of its own,
 * the transactions are events of their script's type, a failed one is
 * not counted, and a client that aborts fails the run (exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb_bmk.h"
#include "commands/pgbench/pgb_bmk_priv.h"
#include "commands/pgbench/pgb_client.h"
#include "core/sb_cluster.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"

#define FACE_NAME PGB_BMK_NAME
#define MAX_VALUES 128

const sb_option_t pgb_bmk_options[] = {
  { "script", "a pgbench script file to run, FILE[@WEIGHT] (weight 1 by default); repeat the "
    "option for several scripts (a test name ending in .sql is one more)", NULL,
    SB_ARG_TYPE_STRING },
  { "builtin", "a built-in pgbench script to run, NAME[@WEIGHT]: tpcb-like, simple-update, "
    "select-only or a unique prefix; repeatable", NULL, SB_ARG_TYPE_STRING },
  { "protocol", "how the SQL commands are sent, as pgbench's -M: simple (variables "
    "substituted as text), extended (parameters) or prepared (prepared statements)",
    "simple", SB_ARG_TYPE_STRING },
  { "define", "NAME=VALUE: a variable of the scripts, as pgbench's -D; repeatable", NULL,
    SB_ARG_TYPE_STRING },
  { "scale", "the scripts' :scale, and the scale of the tables prepare makes (0: the rows of "
    "pgbench_branches when a built-in script runs, else 1; prepare: 1)", "0",
    SB_ARG_TYPE_INT },
  { NULL, NULL, NULL, 0 }
};

static const char *face_file;   /* a test name ending in .sql */

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The configuration both commands start from. */
static void face_defaults(void)
{
  memset(&pgb_cfg, 0, sizeof(pgb_cfg));
  pgb_cfg.bmk_face = true;
  pgb_cfg.nclients = pgb_cfg.nthreads = pgb_cfg.scale = 1;
  pgb_cfg.fillfactor = 100;
  pgb_cfg.max_tries = 1;
  pgb_cfg.report_per_command = true;
  const char *db = sb_opt_str("pgsql-db");
  pgb_cfg.mysql = strcmp(sb_opt_str("db-driver") ? sb_opt_str("db-driver") : "", "mysql") == 0;
  if (pgb_cfg.mysql)
    db = sb_opt_str("mysql-db");
  pgb_cfg.dbname = db ? db : "sbtest";
}

/* The scripts: the test's file, then --script and --builtin values in
   the order given. Exits 1 after pgbench's message on a file that cannot
   be read, a syntax error, an unknown built-in or a bad weight. */
static void add_scripts(void)
{
  const char *v[MAX_VALUES];
  char *name;
  if (face_file)
    pgb_script_add_file(face_file, 1);
  unsigned n = sb_opt_all_values("script", v, MAX_VALUES);
  for (unsigned i = 0; i < n; i++)
  {
    int w = pgb_parse_weight(v[i], &name);
    pgb_script_add_file(name, w);
    free(name);
  }
  n = sb_opt_all_values("builtin", v, MAX_VALUES);
  for (unsigned i = 0; i < n; i++)
  {
    int w = pgb_parse_weight(v[i], &name);
    pgb_script_add_builtin(name, w);
    free(name);
    pgb_cfg.internal_script_used = true;
  }
}

/* --protocol and --define. Returns 0, or 1 after a FATAL line. */
static int read_options(void)
{
  const char *mode = sb_opt_str("protocol");
  if (!pgb_parse_query_mode(mode, &pgb_cfg.querymode))
  {
    log_text(LOG_FATAL, "invalid --protocol=%s: simple, extended or prepared", mode);
    return 1;
  }
  const char *v[MAX_VALUES];
  unsigned n = sb_opt_all_values("define", v, MAX_VALUES);
  for (unsigned i = 0; i < n; i++)
  {
    const char *eq = strchr(v[i], '=');
    if (eq == NULL || eq == v[i] || eq[1] == '\0')
    {
      log_text(LOG_FATAL, "invalid --define=%s: NAME=VALUE", v[i]);
      return 1;
    }
    char **d = realloc(pgb_cfg.defines, (pgb_cfg.ndefines + 1) * sizeof(char *));
    if (d == NULL)
      return 1;
    pgb_cfg.defines = d;
    pgb_cfg.defines[pgb_cfg.ndefines++] = (char *) v[i];
  }
  int scale = sb_opt_int("scale");
  if (scale < 0)
  {
    log_text(LOG_FATAL, "invalid --scale=%d: 1 or more (0: from pgbench_branches)", scale);
    return 1;
  }
  pgb_cfg.scale_given = scale > 0;
  if (scale > 0)
    pgb_cfg.scale = scale;
  return 0;
}

/* :scale from pgbench_branches when a built-in script runs and --scale
   was not given. Returns 0, or 1 after the messages. */
static int find_scale(void)
{
  if (pgb_cfg.scale_given || !pgb_cfg.internal_script_used)
    return 0;
  db_conn_t *con = pgb_connect();
  if (con == NULL)
    return 1;
  int rc = pgb_run_table_info(con, "bmk --db-driver=pgsql pgbench_script prepare");
  db_connection_close(con);
  db_connection_free(con);
  return rc;
}

/* A driver without a pipeline mode (mysql) refuses the scripts'
   \startpipeline before the run. Returns 0, or 1 after a FATAL line. */
static int check_pipelines(void)
{
  const char *drv = sb_opt_str("db-driver");
  if (drv == NULL || strcmp(drv, "pgsql") == 0)
    return 0;
  for (unsigned s = 0; s < pgb_cfg.nscripts; s++)
    for (unsigned i = 0; i < pgb_cfg.scripts[s].ncmds; i++)
      if (pgb_cfg.scripts[s].cmds[i].type == PGB_STARTPIPELINE)
      {
        log_text(LOG_FATAL, "script \"%s\" command %u: \\startpipeline: this driver (%s) has "
                 "no pipeline mode", pgb_cfg.scripts[s].name, i + 1, drv);
        return 1;
      }
  return 0;
}

int pgb_bmk_init(sb_run_config_t *cfg)
{
  face_defaults();
  pgb_cfg.evloop = cfg->event_mode;
  if (read_options() != 0)
    return 1;
  add_scripts();
  if (pgb_cfg.nscripts == 0)
  {
    log_text(LOG_FATAL, "no pgbench script to run: give FILE.sql as the test, or "
             "--script=FILE[@W] or --builtin=NAME[@W] with the test " FACE_NAME);
    return 1;
  }
  if (check_pipelines() != 0)
    return 1;
  for (unsigned i = 0; i < pgb_cfg.nscripts; i++)
    pgb_cfg.total_weight += pgb_cfg.scripts[i].weight;
  if (pgb_cfg.total_weight == 0)
  {
    log_text(LOG_FATAL, "the scripts' total weight is 0");
    return 1;
  }
  pgb_cfg.nclients = pgb_cfg.nthreads = (int) cfg->threads;
  pgb_cfg.duration = (int) cfg->time_limit;
  if (sb_opt_given("max-tries"))
    pgb_cfg.max_tries = (uint32_t) sb_opt_int("max-tries");
  /* --rand-seed (the clock's when 0); a process of a cluster run seeds
     its clients among all processes' (pgb_run_init_clients), so the
     cluster draws what one pgbench with all clients draws */
  pgb_cfg.random_seed = sb_rand_params()->seed;
  sb_cluster_set(sb_cluster_index(), sb_cluster_size(), cfg->threads);
  /* several scripts: each its event type (the per-type table) */
  for (unsigned i = 0; pgb_cfg.nscripts > 1 && i < pgb_cfg.nscripts; i++)
    if ((pgb_cfg.scripts[i].evtype = sb_event_type_id(pgb_cfg.scripts[i].name)) < 0)
      return 1;
  if (find_scale() != 0)
    return 1;
  if (pgb_run_init_clients() != 0)
  {
    log_text(LOG_FATAL, "out of memory");
    return 1;
  }
  return pgb_bmk_stmt_register();
}

static void face_mode(void)
{
  static const char *const modes[] = {"simple", "extended", "prepared"};
  log_text(LOG_NOTICE, "pgbench scripts (protocol %s, scale %d):", modes[pgb_cfg.querymode],
           pgb_cfg.scale);
  for (unsigned i = 0; i < pgb_cfg.nscripts; i++)
    log_text(LOG_NOTICE, "    %s, weight %d, %u commands", pgb_cfg.scripts[i].name,
             pgb_cfg.scripts[i].weight, pgb_cfg.scripts[i].ncmds);
  log_text(LOG_NOTICE, "%s", "");
}

void pgb_bmk_done(void)
{
  pgb_run_free_clients();
  pgb_bmk_stmt_free();
}

/* prepare: pgbench -i's steps (drop, create, client-side data, vacuum,
   primary keys) at --scale; on MySQL/MariaDB the same tables and rows
   (pgb_init_mysql.c). */
int pgb_bmk_prepare(const sb_run_config_t *cfg)
{
  (void) cfg;
  face_defaults();
  if (read_options() != 0)
    return 1;
  if (pgb_cfg.mysql)
    return pgb_init_mysql_run();
  pgb_cfg.init_steps = strdup("dtgvp");
  int rc = pgb_init_run();
  free(pgb_cfg.init_steps);
  pgb_cfg.init_steps = NULL;
  return rc;
}

/* cleanup: drops pgbench's tables. */
int pgb_bmk_cleanup(const sb_run_config_t *cfg)
{
  (void) cfg;
  face_defaults();
  db_conn_t *con = pgb_connect();
  if (con == NULL)
    return 1;
  static const char sql[] = "drop table if exists pgbench_accounts, pgbench_branches, "
                            "pgbench_history, pgbench_tellers";
  log_text(LOG_NOTICE, "Dropping pgbench's tables...");
  db_result_t *rs = db_query(con, sql, sizeof(sql) - 1);
  int rc = rs == NULL;
  if (rc)
    log_text(LOG_FATAL, "cleanup failed: %s", db_conn_sql_errmsg(con));
  db_connection_close(con);
  db_connection_free(con);
  return rc;
}

const sb_c_test_t pgb_bmk_test = {
  .thread_init = pgb_run_thread_init, .event = pgb_run_event,
  .thread_done = pgb_run_thread_done, .print_mode = face_mode, .uses_db = true,
  .event_begin = pgb_run_event, .event_resume = pgb_run_event_resume,
};

bool pgb_bmk_match(const char *test)
{
  if (test == NULL)
    return false;
  if (ends_with(test, ".sql"))
  {
    face_file = test;
    return true;
  }
  return strcmp(test, FACE_NAME) == 0;
}
