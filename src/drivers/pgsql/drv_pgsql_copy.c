/*
 * PostgreSQL driver: fast load with COPY <table> (<cols>) FROM STDIN
 * (libpq PQputCopyData / PQputCopyEnd); see db_driver.h "Fast load".
 *
 * One load is one COPY statement: load_start sends it and waits for the
 * server's CopyInResponse, load_send streams the rows as the generic layer
 * formats them (so the server parses while the client produces), and
 * load_end finishes it and reads the result ("COPY n"). The rows are in
 * the COPY text format, which is what db_load.c produces.
 *
 * Errors: the server checks the rows as they arrive but reports a bad one
 * only in the final result, so most errors surface at load_end. A broken
 * connection makes PQputCopyData fail (lost, like any lost connection).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "drivers/db_driver.h"
#include "drv_pgsql.h"

int pgd_load_start(db_conn_t *con, const char *table, const char *cols)
{
  pg_conn_t *pc = con->ptr;
  size_t n = strlen(table) + strlen(cols) + 32;
  free(pc->copy_sql);
  pc->copy_sql = pgd_xrealloc(NULL, n);
  pc->copy_len = (size_t) snprintf(pc->copy_sql, n, "COPY %s (%s) FROM STDIN", table, cols);

  PGresult *res = pgd_collect(pc, PQsendQuery(pc->pg, pc->copy_sql));
  if (res != NULL && PQresultStatus(res) == PGRES_COPY_IN)
  {
    PQclear(res);
    pgd_succeeded(con);
    return 0;
  }
  /* e.g. no such table or column: an error like any query's */
  bool rollback = pgd_set_pg_error(con, res, "PQexec", pc->copy_sql, pc->copy_len);
  PQclear(res);
  if (rollback)
    PQclear(PQexec(pc->pg, "ROLLBACK"));
  free(pc->copy_sql);
  pc->copy_sql = NULL;
  return 1;
}

int pgd_load_send(db_conn_t *con, const char *data, size_t len, db_result_t *rs)
{
  pg_conn_t *pc = con->ptr;
  (void) rs;
  if (len == 0)
    return 0;
  /* A blocking connection: returns 1 once libpq has queued (and, when its
     buffer is full, sent) the data; -1 when the connection is broken. */
  if (PQputCopyData(pc->pg, data, (int) len) == 1)
    return 0;
  pgd_set_pg_error(con, NULL, "PQputCopyData", pc->copy_sql, pc->copy_len);
  return -1;
}

int pgd_load_end(db_conn_t *con, db_result_t *rs)
{
  pg_conn_t *pc = con->ptr;
  pgd_reset_rs(rs);
  if (PQputCopyEnd(pc->pg, NULL) != 1)
  {
    pgd_set_pg_error(con, NULL, "PQputCopyEnd", pc->copy_sql, pc->copy_len);
    return -1;
  }
  /* The COPY is over whatever its result: nothing to abort any more. */
  char *sql = pc->copy_sql;
  size_t len = pc->copy_len;
  pc->copy_sql = NULL;
  PGresult *res = pgd_collect(pc, 1);
  int rc = pgd_finish(con, res, rs, "PQputCopyEnd", sql, len);
  free(sql);
  return rc == 0 ? 1 : -1;
}

void pgd_load_abort(db_conn_t *con)
{
  pg_conn_t *pc = con->ptr;
  if (pc == NULL || pc->copy_sql == NULL)
    return;
  free(pc->copy_sql);
  pc->copy_sql = NULL;
  if (PQstatus(pc->pg) != CONNECTION_OK)
    return;
  /* An error message makes the server fail the COPY (the transaction it
     belongs to is then aborted); read its result to leave COPY mode. */
  if (PQputCopyEnd(pc->pg, "load cancelled by the client") == 1)
  {
    PGresult *res;
    while ((res = PQgetResult(pc->pg)) != NULL)
      PQclear(res);
  }
}
