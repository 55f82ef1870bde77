/*
 * Internal interface of the MySQL driver, shared by drv_mysql.c (options,
 * blocking operations, statements) and drv_mysql_async.c (the start /
 * continue forms of db_driver.h on MariaDB's non-blocking API).
 */
#ifndef DRV_MYSQL_H
#define DRV_MYSQL_H

#include <stdbool.h>
#include <stddef.h>

#include <mysql.h>

#include "db_driver.h"

/* MySQL 8.0's libmysqlclient dropped the my_bool type. */
#if !defined(MARIADB_BASE_VERSION) && defined(MYSQL_VERSION_ID) && MYSQL_VERSION_ID >= 80000
typedef bool my_bool;
#endif

#define MYSQL_CLIENT_FLAGS (CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS)

/* Per-connection state. */
typedef struct {
  MYSQL *mysql;
  /* endpoint and credentials of this connection (for messages, async) */
  const char *host, *socket, *user, *password, *db;
  unsigned port;
  /* asynchronous operation in progress (drv_mysql_async.c) */
  int aphase;
  MYSQL *aret;
  MYSQL_RES *ares;
  int aerr;
  db_result_t *ars;
  db_stmt_t *astmt;
  MYSQL_ROW row;
  unsigned long *lengths;
  db_value_t *values;      /* nfields entries, reused */
  unsigned values_cap;
} my_conn_t;

/* Per-statement state: parameter and result bindings kept across
   executions so an execute allocates nothing. */
typedef struct {
  MYSQL_STMT *stmt;
  MYSQL_BIND *params;
  unsigned long *param_len;
  my_bool *param_null;
  unsigned nparams;
  MYSQL_BIND *results;       /* text bindings of the result columns */
  char **res_buf;
  unsigned long *res_len;
  my_bool *res_null;
  unsigned long *res_cap;
  unsigned nresults;
  bool results_bound;        /* text bindings set for the current result */
  unsigned bound_gen;        /* stmt->order_gen the parameters were bound at */
  bool params_bound;
} my_stmt_t;

/* drv_mysql.c */

/* Chooses the next endpoint (stored in mc) and returns a client handle with
   the SSL and compression options set; `nonblocking` enables MariaDB's
   non-blocking API on it. NULL (FATAL printed) on allocation failure. */
MYSQL *mydrv_new_handle(my_conn_t *mc, bool nonblocking);

/* Prints the connect FATAL lines, records the error, frees `m` and the
   connection state. Returns 1. */
int mydrv_connect_failed(db_conn_t *con, MYSQL *m);

/* Records error `e` on `con`: ignorable when listed, lost for 2006 etc. */
void mydrv_set_error(db_conn_t *con, unsigned e, const char *state,
                     const char *msg, const char *api, const char *sql, size_t len);

/* Fills `rs` after a text query whose result is `res` (NULL: none, or an
   error when mysql_errno is set). 0 ok, 1 error recorded. */
int mydrv_store_text_result(db_conn_t *con, db_result_t *rs, const char *sql,
                            size_t len, const char *api);

/* Classifies a statement without a result set from its affected rows:
   write when it changed rows, other otherwise (sysbench's counting). */
void mydrv_no_result_set(db_result_t *rs, my_ulonglong affected);

/* Binds the statement's parameters (only when they changed). 0 ok. */
int mydrv_bind_params(db_stmt_t *stmt, my_stmt_t *ms);

/* Records the statement's last error with `api`. Returns 1. */
int mydrv_stmt_failed(db_conn_t *con, my_stmt_t *ms, const char *api);

/* Fills `rs` for an executed statement (stores its rows when it has a
   result set: `stored` says the rows were already stored). 0 ok. */
int mydrv_stmt_result(db_stmt_t *stmt, db_result_t *rs, bool stored);

/* drv_mysql_async.c (NULL-free only with MariaDB Connector/C) */
db_step_t mydrv_connect_start(db_conn_t *con);
db_step_t mydrv_connect_cont(db_conn_t *con, int ready);
db_step_t mydrv_query_start(db_conn_t *con, const char *sql, size_t len, db_result_t *rs);
db_step_t mydrv_query_cont(db_conn_t *con, int ready);
db_step_t mydrv_execute_start(db_stmt_t *stmt, db_result_t *rs);
db_step_t mydrv_execute_cont(db_stmt_t *stmt, int ready);

#endif
