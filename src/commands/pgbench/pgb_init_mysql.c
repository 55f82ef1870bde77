/*
 * pgbench's tables on MySQL/MariaDB, for the built-in scripts run under
 * bmk's command line (`bmk --db-driver=mysql pgbench_script prepare`,
 * docs/pgbench.md): the four tables with pgbench's columns and rows at
 * --scale (branches, 10 tellers and 100,000 accounts per unit of scale,
 * balances 0), InnoDB with their primary keys made with the tables, the
 * accounts inserted 1,000 rows per statement in one transaction, then
 * ANALYZE TABLE. Progress lines as the PostgreSQL steps print them. See
 * pgb.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb_client.h"

#define NTELLERS 10
#define NACCOUNTS 100000
#define ROWS_PER_INSERT 1000

/* Runs `sql`; false after pgbench's "query failed" lines (the query's
   first 200 bytes: the loads' INSERTs are long). */
static bool exec(db_conn_t *con, const char *sql)
{
  return pgb_exec(con, sql, 200);
}

static bool create_tables(db_conn_t *con)
{
  static const char *const ddl[] = {
    "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
    "create table pgbench_history(tid int,bid int,aid int,delta int,mtime datetime,"
    "filler char(22)) engine=innodb",
    "create table pgbench_tellers(tid int not null primary key,bid int,tbalance int,"
    "filler char(84)) engine=innodb",
    "create table pgbench_accounts(aid int not null primary key,bid int,abalance int,"
    "filler char(84)) engine=innodb",
    "create table pgbench_branches(bid int not null primary key,bbalance int,"
    "filler char(88)) engine=innodb",
    NULL
  };
  fprintf(stderr, "dropping old tables...\ncreating tables...\n");
  for (const char *const *q = ddl; *q; q++)
    if (!exec(con, *q))
      return false;
  return true;
}

/* `n` rows from k = 1 into `table` (columns `cols`), ROWS_PER_INSERT
   rows per INSERT: "(k,(k-1)/per+1,0)", or "(k,0)" when `per` is 0; a
   progress line every 100,000 rows when `progress`. */
static bool insert_rows(db_conn_t *con, const char *table, const char *cols, int64_t n,
                        int64_t per, bool progress)
{
  size_t cap = 64 + ROWS_PER_INSERT * 48;
  char *sql = malloc(cap);
  if (sql == NULL)
    return false;
  int64_t start = pgb_now_us();
  for (int64_t k = 1; k <= n;)
  {
    size_t len = (size_t) snprintf(sql, cap, "insert into %s(%s) values ", table, cols);
    for (int r = 0; r < ROWS_PER_INSERT && k <= n; r++, k++)
      len += per == 0
        ? (size_t) snprintf(sql + len, cap - len, "%s(%" PRId64 ",0)", r ? "," : "", k)
        : (size_t) snprintf(sql + len, cap - len, "%s(%" PRId64 ",%" PRId64 ",0)",
                            r ? "," : "", k, (k - 1) / per + 1);
    if (!exec(con, sql))
    {
      free(sql);
      return false;
    }
    if (progress && (k - 1) % 100000 == 0)
      fprintf(stderr, "%" PRId64 " of %" PRId64 " tuples (%d%%) done (elapsed %.2f s)\n",
              k - 1, n, (int) ((k - 1) * 100 / n), (double) (pgb_now_us() - start) / 1e6);
  }
  free(sql);
  return true;
}

int pgb_init_mysql_run(void)
{
  db_conn_t *con = pgb_connect();
  if (con == NULL)
    return 1;
  int64_t start = pgb_now_us(), scale = pgb_cfg.scale;
  bool ok = create_tables(con);
  if (ok)
  {
    fprintf(stderr, "generating data (client-side)...\n");
    ok = exec(con, "begin") &&
         insert_rows(con, "pgbench_branches", "bid,bbalance", scale, 0, false) &&
         insert_rows(con, "pgbench_tellers", "tid,bid,tbalance", NTELLERS * scale, NTELLERS,
                     false) &&
         insert_rows(con, "pgbench_accounts", "aid,bid,abalance", NACCOUNTS * scale,
                     NACCOUNTS, true) &&
         exec(con, "commit");
  }
  if (ok)
  {
    fprintf(stderr, "analyzing...\n");
    ok = exec(con, "analyze table pgbench_branches, pgbench_tellers, pgbench_accounts, "
              "pgbench_history");
  }
  if (ok)
    fprintf(stderr, "done in %.2f s.\n", (double) (pgb_now_us() - start) / 1e6);
  db_connection_close(con);
  db_connection_free(con);
  return ok ? 0 : 1;
}
