/*
 * pgbench -i: the initialisation steps d (drop), t (create tables), g
 * (client-side data, COPY), G (server-side data, generate_series), v
 * (vacuum), p (primary keys), f (foreign keys), with pgbench 15's
 * messages, tables and rows (its manual page, "Initialization Options").
 * See pgb.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb.h"
#include "commands/pgbench/pgb_client.h"
#include "drivers/db_load.h"

#define NBRANCHES 1
#define NTELLERS 10
#define NACCOUNTS 100000
#define LOG_STEP_SECONDS 5

int pgb_init_check_steps(const char *steps)
{
  if (*steps == '\0')
  {
    pgb_error("no initialization steps specified");
    return 1;
  }
  for (const char *p = steps; *p; p++)
    if (strchr("dtgGvpf ", *p) == NULL)
    {
      pgb_error("unrecognized initialization step \"%c\"", *p);
      fprintf(stderr, "pgbench: detail: Allowed step characters are: \"dtgGvpf\".\n");
      return 1;
    }
  return 0;
}

bool pgb_exec(db_conn_t *con, const char *sql, int shown)
{
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    pgb_error("query failed: %s", pgb_sql_error(con));
    if (shown < 0)
      fprintf(stderr, "pgbench: detail: Query was: %s\n", sql);
    else
      fprintf(stderr, "pgbench: detail: Query was: %.*s\n", shown, sql);
    return false;
  }
  if (db_result_nfields(rs) > 0)
    db_free_results(rs);
  return true;
}

/* Runs `sql`; false after pgbench's "query failed" lines. */
static bool exec(db_conn_t *con, const char *sql)
{
  return pgb_exec(con, sql, -1);
}

/* `name` as an SQL identifier the way pgbench 15 writes a tablespace's
   name (libpq's PQescapeIdentifier: always in double quotes, each double
   quote in it doubled, so the case and any character are kept):
   malloc'd, NULL when memory is short. */
static char *quote_ident(const char *name)
{
  size_t n = 3;
  for (const char *p = name; *p; p++)
    n += *p == '"' ? 2 : 1;
  char *q = malloc(n), *o = q;
  if (q == NULL)
    return NULL;
  *o++ = '"';
  for (const char *p = name; *p; p++)
  {
    if (*p == '"')
      *o++ = '"';
    *o++ = *p;
  }
  *o++ = '"';
  *o = '\0';
  return q;
}

/* Runs `sql`, with " `clause` NAME" after it when `name` is given
   (--tablespace, --index-tablespace: NAME quoted by quote_ident). False
   after pgbench's "query failed" lines, or "out of memory". */
static bool exec_in(db_conn_t *con, const char *sql, const char *clause, const char *name)
{
  if (name == NULL)
    return exec(con, sql);
  char *q = quote_ident(name);
  size_t n = strlen(sql) + strlen(clause) + (q ? strlen(q) : 0) + 3;
  char *full = q ? malloc(n) : NULL;
  bool ok = false;
  if (full == NULL)
    pgb_error("out of memory");
  else
  {
    snprintf(full, n, "%s %s %s", sql, clause, q);
    ok = exec(con, full);
  }
  free(full);
  free(q);
  return ok;
}

static const char *const tables[] = {
  "pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"
};

/* The server's notices for DROP TABLE IF EXISTS of tables that are not
   there, as libpq prints them (the driver keeps notices quiet). */
static bool drop_tables(db_conn_t *con)
{
  fprintf(stderr, "dropping old tables...\n");
  for (size_t i = 0; i < 4; i++)
  {
    char sql[128];
    snprintf(sql, sizeof(sql), "select to_regclass('%s') is null", tables[i]);
    db_result_t *rs = db_query(con, sql, strlen(sql));
    if (rs == NULL)
      return exec(con, sql);
    db_row_t *row = db_fetch_row(rs);
    size_t len;
    const char *v = row ? db_row_value(row, rs, 0, &len) : NULL;
    if (v && v[0] == 't')
      fprintf(stderr, "NOTICE:  table \"%s\" does not exist, skipping\n", tables[i]);
    db_free_results(rs);
  }
  return exec(con, "drop table if exists pgbench_accounts, pgbench_branches, "
              "pgbench_history, pgbench_tellers");
}

/* --partitions: pgbench_accounts' parts, ranges of equal size (the
   first from MINVALUE, the last to MAXVALUE) or hash remainders. No
   tablespace clause, as pgbench's: a part goes where its partitioned
   table is (--tablespace). */
static bool create_partitions(db_conn_t *con)
{
  int n = pgb_cfg.partitions;
  int64_t size = ((int64_t) NACCOUNTS * pgb_cfg.scale + n - 1) / n;
  fprintf(stderr, "creating %d partitions...\n", n);
  for (int p = 1; p <= n; p++)
  {
    char bound[128], sql[512];
    if (strcmp(pgb_cfg.partition_method, "range") == 0)
    {
      char lb[32], ub[32];
      if (p == 1)
        snprintf(lb, sizeof(lb), "minvalue");
      else
        snprintf(lb, sizeof(lb), "%" PRId64, (p - 1) * size + 1);
      if (p == n)
        snprintf(ub, sizeof(ub), "maxvalue");
      else
        snprintf(ub, sizeof(ub), "%" PRId64, p * size + 1);
      snprintf(bound, sizeof(bound), "for values from (%s) to (%s)", lb, ub);
    }
    else
      snprintf(bound, sizeof(bound), "for values with (modulus %d, remainder %d)", n, p - 1);
    snprintf(sql, sizeof(sql), "create%s table pgbench_accounts_%d partition of pgbench_accounts "
             "%s with (fillfactor=%d)", pgb_cfg.unlogged ? " unlogged" : "", p, bound,
             pgb_cfg.fillfactor);
    if (!exec(con, sql))
      return false;
  }
  return true;
}

static bool create_tables(db_conn_t *con)
{
  static const struct { const char *table, *cols; bool fillfactor; } ddl[] = {
    {"pgbench_history", "tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)", false},
    {"pgbench_tellers", "tid int not null,bid int,tbalance int,filler char(84)", true},
    {"pgbench_accounts", "aid    int not null,bid int,abalance int,filler char(84)", true},
    {"pgbench_branches", "bid int not null,bbalance int,filler char(88)", true},
  };
  fprintf(stderr, "creating tables...\n");
  for (size_t i = 0; i < 4; i++)
  {
    char sql[512], ff[64] = "";
    bool parted = pgb_cfg.partitions > 0 && strcmp(ddl[i].table, "pgbench_accounts") == 0;
    if (parted)
      snprintf(ff, sizeof(ff), " partition by %s (aid)", pgb_cfg.partition_method);
    else if (ddl[i].fillfactor)
      snprintf(ff, sizeof(ff), " with (fillfactor=%d)", pgb_cfg.fillfactor);
    snprintf(sql, sizeof(sql), "create%s table %s(%s)%s",
             pgb_cfg.unlogged && !parted ? " unlogged" : "", ddl[i].table, ddl[i].cols, ff);
    /* --tablespace: last, after the options or the partitioning */
    if (!exec_in(con, sql, "tablespace", pgb_cfg.tablespace))
      return false;
  }
  return pgb_cfg.partitions == 0 || create_partitions(con);
}

/* Branches and tellers, one INSERT each, as pgbench does. */
static bool insert_small(db_conn_t *con)
{
  char sql[160];
  for (int i = 0; i < NBRANCHES * pgb_cfg.scale; i++)
  {
    snprintf(sql, sizeof(sql), "insert into pgbench_branches(bid,bbalance) values(%d,0)", i + 1);
    if (!exec(con, sql))
      return false;
  }
  for (int i = 0; i < NTELLERS * pgb_cfg.scale; i++)
  {
    snprintf(sql, sizeof(sql), "insert into pgbench_tellers(tid,bid,tbalance) values (%d,%d,0)",
             i + 1, i / NTELLERS + 1);
    if (!exec(con, sql))
      return false;
  }
  return true;
}

/* One progress line of the accounts' load. */
static void load_progress(int64_t j, int64_t total, int64_t start_us)
{
  double elapsed = (double) (pgb_now_us() - start_us) / 1e6;
  double remaining = (double) (total - j) * elapsed / (double) j;
  fprintf(stderr, "%" PRId64 " of %" PRId64 " tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)\n",
          j, total, (int) ((j * 100) / total), elapsed, remaining);
}

static bool generate_client(db_conn_t *con)
{
  static const char *const cols[] = {"aid", "bid", "abalance", "filler"};
  fprintf(stderr, "generating data (client-side)...\n");
  if (!exec(con, "begin") ||
      !exec(con, "truncate table pgbench_accounts, pgbench_branches, pgbench_history, "
            "pgbench_tellers") || !insert_small(con))
    return false;
  if (db_load_start(con, "pgbench_accounts", cols, 4) != 0)
  {
    pgb_error("COPY failed: %s", db_conn_sql_errmsg(con) ? db_conn_sql_errmsg(con) : "");
    return false;
  }
  int64_t total = (int64_t) NACCOUNTS * pgb_cfg.scale, start = pgb_now_us();
  int log_interval = 1;
  char row[96];
  for (int64_t j = 1; j <= total; j++)
  {
    int n = snprintf(row, sizeof(row), "%" PRId64 "\t%" PRId64 "\t0\t\n", j,
                     (j - 1) / NACCOUNTS + 1);
    if (db_load_rows(con, row, (size_t) n) != 0)
    {
      pgb_error("COPY failed: %s", db_conn_sql_errmsg(con) ? db_conn_sql_errmsg(con) : "");
      return false;
    }
    if (!pgb_cfg.quiet && j % 100000 == 0)
      load_progress(j, total, start);
    else if (pgb_cfg.quiet && (j % 100 == 0 || j == total))
    {
      double elapsed = (double) (pgb_now_us() - start) / 1e6;
      if (elapsed >= log_interval * LOG_STEP_SECONDS || j == total)
      {
        load_progress(j, total, start);
        log_interval = (int) (elapsed / LOG_STEP_SECONDS) + 1;
      }
    }
  }
  if (db_load_finish(con, NULL, NULL) != 0)
  {
    pgb_error("COPY failed: %s", db_conn_sql_errmsg(con) ? db_conn_sql_errmsg(con) : "");
    return false;
  }
  return exec(con, "commit");
}

static bool generate_server(db_conn_t *con)
{
  char sql[256];
  fprintf(stderr, "generating data (server-side)...\n");
  if (!exec(con, "begin") ||
      !exec(con, "truncate table pgbench_accounts, pgbench_branches, pgbench_history, "
            "pgbench_tellers"))
    return false;
  snprintf(sql, sizeof(sql), "insert into pgbench_branches(bid,bbalance) "
           "select bid, 0 from generate_series(1, %d) as bid", NBRANCHES * pgb_cfg.scale);
  if (!exec(con, sql))
    return false;
  snprintf(sql, sizeof(sql), "insert into pgbench_tellers(tid,bid,tbalance) "
           "select tid, (tid - 1) / %d + 1, 0 from generate_series(1, %d) as tid",
           NTELLERS, NTELLERS * pgb_cfg.scale);
  if (!exec(con, sql))
    return false;
  snprintf(sql, sizeof(sql), "insert into pgbench_accounts(aid,bid,abalance,filler) "
           "select aid, (aid - 1) / %d + 1, 0, '' from generate_series(1, %" PRId64 ") as aid",
           NACCOUNTS, (int64_t) NACCOUNTS * pgb_cfg.scale);
  return exec(con, sql) && exec(con, "commit");
}

/* Prints `msg` and runs `sqls` (NULL-terminated), each with " `clause`
   NAME" when `name` is given (exec_in). */
static bool run_list(db_conn_t *con, const char *msg, const char *const *sqls,
                     const char *clause, const char *name)
{
  fprintf(stderr, "%s\n", msg);
  for (; *sqls; sqls++)
    if (!exec_in(con, *sqls, clause, name))
      return false;
  return true;
}

/* One step: false when it failed (message printed). */
static bool run_step(db_conn_t *con, char step)
{
  static const char *const vacuum[] = {
    "vacuum analyze pgbench_branches", "vacuum analyze pgbench_tellers",
    "vacuum analyze pgbench_accounts", "vacuum analyze pgbench_history", NULL};
  static const char *const pkeys[] = {
    "alter table pgbench_branches add primary key (bid)",
    "alter table pgbench_tellers add primary key (tid)",
    "alter table pgbench_accounts add primary key (aid)", NULL};
  static const char *const fkeys[] = {
    "alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
    "alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
    "alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
    "alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
    "alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
    NULL};
  switch (step)
  {
    case 'd': return drop_tables(con);
    case 't': return create_tables(con);
    case 'g': return generate_client(con);
    case 'G': return generate_server(con);
    case 'v': return run_list(con, "vacuuming...", vacuum, NULL, NULL);
    /* --index-tablespace: the primary keys' indexes */
    case 'p': return run_list(con, "creating primary keys...", pkeys, "using index tablespace",
                              pgb_cfg.index_tablespace);
    case 'f': return run_list(con, "creating foreign keys...", fkeys, NULL, NULL);
    default: return true;
  }
}

int pgb_init_run(void)
{
  static const struct { char step; const char *name; } names[] = {
    {'d', "drop tables"}, {'t', "create tables"}, {'g', "client-side generate"},
    {'G', "server-side generate"}, {'v', "vacuum"}, {'p', "primary keys"},
    {'f', "foreign keys"},
  };
  db_conn_t *con = pgb_connect();
  if (con == NULL)
    return 1;
  char stats[1024] = "";
  size_t n = 0;
  int64_t start = pgb_now_us();
  for (const char *p = pgb_cfg.init_steps; *p; p++)
  {
    int64_t t0 = pgb_now_us();
    if (!run_step(con, *p))
    {
      db_connection_close(con);
      db_connection_free(con);
      return 1;
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
      if (names[i].step == *p && n < sizeof(stats) - 64)
        n += (size_t) snprintf(stats + n, sizeof(stats) - n, "%s%s %.2f s", n ? ", " : "",
                               names[i].name, (double) (pgb_now_us() - t0) / 1e6);
  }
  fprintf(stderr, "done in %.2f s (%s).\n", (double) (pgb_now_us() - start) / 1e6, stats);
  db_connection_close(con);
  db_connection_free(con);
  return 0;
}
