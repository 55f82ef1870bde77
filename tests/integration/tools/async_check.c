/*
 * Drives the current --db-driver's asynchronous start / continue forms with
 * db_step_blocking() against a real server and checks they give what the
 * blocking forms give: connect, a text SELECT (values), DML counting, a
 * prepared statement with a parameter, and a failing query.
 * Usage: async_check --db-driver=... <connection options>
 * Prints one line per check and "N passed, M failed"; exit 1 on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/db_driver.h"
#include "cli/sb_core_options.h"
#include "core/sb_counter.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"

static int pass, fail;
static const db_driver_ops_t *ops;

static void check(const char *name, int ok)
{
  printf("%s - async %s\n", ok ? "ok" : "not ok", name);
  if (ok)
    pass++;
  else
    fail++;
}

static db_step_t c_connect(void *o, int r) { return ops->connect_cont(o, r); }
static db_step_t c_query(void *o, int r) { return ops->query_cont(o, r); }
static db_step_t c_execute(void *o, int r) { return ops->execute_cont(o, r); }

static int run_query(db_conn_t *con, const char *sql, db_result_t *rs)
{
  memset(rs, 0, sizeof(*rs));
  rs->con = con;
  db_clear_error(con);
  db_step_t st = ops->query_start(con, sql, strlen(sql), rs);
  db_step_blocking(con, st, c_query, con);
  if (con->error == DB_ERROR_NONE)
    rs->state = DB_RS_READY;
  return con->error;
}

static void value_is(const char *name, db_result_t *rs, unsigned i, const char *want)
{
  const db_value_t *v = &rs->row.values[i];
  check(name, v->ptr != NULL && v->len == strlen(want) && memcmp(v->ptr, want, v->len) == 0);
}

int main(int argc, char **argv)
{
  char *pos[4];
  unsigned npos;
  sb_opt_init();
  if (sb_opt_parse_argv(argc, argv, pos, 4, &npos) != 0 ||
      sb_core_register_options() != 0 || db_register_options() != 0)
    return 2;
  sb_core_init_rand();
  sb_counters_init(1);
  db_driver_t *drv = db_create(NULL);
  if (drv == NULL)
    return 2;
  ops = &drv->ops;
  check("forms present", ops->connect_start && ops->query_start && ops->execute_start);
  if (!ops->connect_start)
    goto out;

  db_conn_t *con = calloc(1, sizeof(*con));
  con->driver = drv;
  con->wait_fd = -1;
  db_step_t st = ops->connect_start(con);
  db_step_blocking(con, st, c_connect, con);
  check("connect", con->error == DB_ERROR_NONE && con->ptr != NULL);
  if (con->error != DB_ERROR_NONE)
    goto out;

  db_result_t rs;
  check("text SELECT", run_query(con, "SELECT 42, 'abc'", &rs) == DB_ERROR_NONE);
  check("SELECT counts as read", rs.counter == SB_CNT_READ && rs.nfields == 2 && rs.nrows == 1);
  check("fetch_row", ops->fetch_row(&rs) == 1);
  value_is("value 1", &rs, 0, "42");
  value_is("value 2", &rs, 1, "abc");
  ops->free_results(&rs);

  run_query(con, "DROP TABLE IF EXISTS bmk_async", &rs);
  check("CREATE TABLE", run_query(con, "CREATE TABLE bmk_async (id INTEGER PRIMARY KEY, v INTEGER)", &rs) == DB_ERROR_NONE
        && rs.counter == SB_CNT_OTHER);
  check("INSERT counts as write",
        run_query(con, "INSERT INTO bmk_async VALUES (1, 10), (2, 20)", &rs) == DB_ERROR_NONE &&
        rs.counter == SB_CNT_WRITE && rs.nrows == 2);

  db_stmt_t *stmt = db_prepare(con, "SELECT v FROM bmk_async WHERE id = ?", 36);
  check("prepare", stmt != NULL);
  if (stmt)
  {
    int h = db_bind_create(stmt, DB_TYPE_INT, 0);
    db_bind_order(stmt, &h, 1);
    db_bind_set_int(stmt, h, 2);
    memset(&rs, 0, sizeof(rs));
    rs.con = con;
    db_clear_error(con);
    st = ops->execute_start(stmt, &rs);
    db_step_blocking(con, st, c_execute, stmt);
    check("execute", con->error == DB_ERROR_NONE && rs.counter == SB_CNT_READ && rs.nrows == 1);
    rs.state = DB_RS_READY;
    check("fetch prepared row", ops->fetch_row(&rs) == 1);
    value_is("prepared value", &rs, 0, "20");
    ops->free_results(&rs);
    rs.state = DB_RS_FREE;
    db_close(stmt);
  }
  check("failing query is FATAL", run_query(con, "SELEKT 1", &rs) == DB_ERROR_FATAL);
  run_query(con, "DROP TABLE bmk_async", &rs);
  ops->disconnect(con);
  /* a connection made by hand: its last error's texts are ours to free */
  free(con->err.msg);
  free(con->err.query);
  free(con);

out:
  printf("%d passed, %d failed\n", pass, fail);
  return fail ? 1 : 0;
}
