/*
 * Internal interface of the MySQL driver, shared by drv_mysql.c (options,
 * connections, queries, prepared statements) and drv_mysql_async.c (the
 * start / continue forms of db_driver.h on MariaDB's non-blocking API).
 */
#ifndef DRV_MYSQL_H
#define DRV_MYSQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mysql.h>

#include "drivers/db_driver.h"
#include "core/sb_logger.h"

/* MySQL 8.0's libmysqlclient dropped the my_bool type. */
#if !defined(MARIADB_BASE_VERSION) && defined(MYSQL_VERSION_ID) && MYSQL_VERSION_ID >= 80000
typedef bool my_bool;
#endif

#define MYSQL_CLIENT_FLAGS (CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS)

/* --mysql-debug: sysbench logs every client library call at debug level. */
extern bool mydrv_trace;
#define MY_TRACE(...) \
  do { if (__builtin_expect(mydrv_trace, 0)) log_text(LOG_DEBUG, __VA_ARGS__); } while (0)

/* --mysql-dry-run */
extern bool mydrv_dry_run;

/* Per-connection state. */
typedef struct {
  MYSQL *mysql;
  /* endpoint and credentials of this connection (messages, async connect) */
  const char *host, *socket, *user, *password, *db;
  unsigned port;
  /* TLS of this connection: the mode (drv_mysql.c's ssl_mode_t) and files,
     from --mysql-ssl* or the endpoint's "tls" */
  int tls;
  const char *tls_key, *tls_cert, *tls_ca;
  const char *tls_endpoint;  /* the endpoint whose "tls" they are; NULL: options */
  /* the statement executed last, while its results may still be pending:
     next_result must then go through mysql_stmt_next_result */
  db_stmt_t *last_stmt;
  db_value_t *values;      /* row values handed out by fetch_row */
  unsigned values_cap;
  /* asynchronous operation in progress (drv_mysql_async.c) */
  int aphase;
  MYSQL *aret;
  MYSQL_RES *ares;
  int aerr;
  db_result_t *ars;
  const char *asql;        /* text of the query in progress, for errors */
  size_t alen;
  /* fast load (drv_mysql_infile.c): the LOAD DATA statement of the load
     in progress, and the rows the local-infile callbacks serve while it
     runs (load_data NULL: no statement of ours is running) */
  char *load_sql;
  size_t load_sql_len;
  const char *load_data;
  size_t load_len, load_pos;
  db_stmt_t *astmt;        /* statement being prepared / read (async) */
} my_conn_t;

/* A result column fetched as text. */
typedef struct {
  char *buf;
  unsigned long cap, len;
  my_bool null;
} my_col_t;

/* Per-statement state: parameter and result bindings kept across
   executions so that executing allocates nothing. */
typedef struct {
  MYSQL_STMT *stmt;
  unsigned nparams;
  MYSQL_BIND *params;
  unsigned long *param_len;
  my_bool *param_null;
  bool params_bound;
  unsigned bound_gen;        /* stmt->order_gen the parameters were bound at */
  /* result columns, bound as text on the first fetch of each result */
  unsigned nresults;
  MYSQL_BIND *results;
  my_col_t *cols;
  bool results_bound;
} my_stmt_t;

/* ---- drv_mysql.c ---- */

/* Chooses the next endpoint (stored in mc) and returns a client handle with
   the SSL and compression options set; `nonblocking` enables MariaDB's
   non-blocking API on it. With --endpoints (con->endpoint set) the
   address and credentials are the endpoint's. NULL (FATAL printed) on
   allocation failure. */
MYSQL *mydrv_new_handle(const db_conn_t *con, my_conn_t *mc, bool nonblocking);

/* Checks a freshly connected handle `m` of connection `mc` against its
   TLS mode (--mysql-ssl, or its endpoint's tls.mode: REQUIRED and
   stricter need a TLS session): 0 ok, non-zero to fail the connection
   with mydrv_connect_failed. */
int mydrv_check_tls(const my_conn_t *mc, MYSQL *m);

/* Prints the connect FATAL lines, records the error, closes `m` and frees
   the connection state. With no error on `m` (a connection refused by
   mydrv_check_tls) the error is the missing TLS. Returns 1. */
int mydrv_connect_failed(db_conn_t *con, MYSQL *m);

/* Records error `e` on `con`: ignorable when listed, lost for 2006 etc. */
void mydrv_set_error(db_conn_t *con, unsigned e, const char *state, const char *msg,
                     const char *api, const char *sql, size_t len);

/* Records the connection's last error with `api` and `sql`. Returns 1. */
int mydrv_conn_failed(db_conn_t *con, const char *api, const char *sql, size_t len);

/* Reads and discards the results still pending on the connection (a
   CALL's later result sets and its trailing status) before the next
   statement, so that a script that never calls next_result() does not get
   "Commands out of sync" (sysbench GH-304). Not counted. Blocking; called
   at the start of every statement on the connection. */
void mydrv_drain_results(my_conn_t *mc);

/* Fills `rs` after a text statement whose stored result is `res` (NULL: no
   result set, or an error when mysql_errno is set). 0 ok, 1 error recorded. */
int mydrv_text_result(db_conn_t *con, MYSQL_RES *res, db_result_t *rs);

/* Counts a statement without a result set from its affected rows: write when
   it changed rows, other otherwise (sysbench's counting). */
void mydrv_no_result_set(db_result_t *rs, uint64_t affected);

/* Binds the statement's parameters (only when they changed). 0 ok, else
   the error is recorded. */
int mydrv_bind_params(db_stmt_t *stmt, my_stmt_t *ms);
/* Records the statement's last error with `api` (and the statement's SQL
   when `with_sql`). Returns 1. */
int mydrv_stmt_failed(db_stmt_t *stmt, my_stmt_t *ms, const char *api, bool with_sql);
/* Fills `rs` for an executed statement, storing its rows when it has a
   result set and `stored` is false. 0 ok. */
int mydrv_stmt_result(db_stmt_t *stmt, db_result_t *rs, bool stored);

/* ---- drv_mysql_infile.c: fast load (LOAD DATA LOCAL INFILE) ---- */

/* Lets handle `m` of connection state `mc` run LOAD DATA LOCAL INFILE
   with data served from memory by bmk's callbacks (never from a file: a
   request the client did not start is refused). Call before connecting. */
void mydrv_infile_setup(MYSQL *m, my_conn_t *mc);

/* The fast-load entries of db_driver_ops_t (same contracts). */
int mydrv_load_start(db_conn_t *con, const char *table, const char *cols);
int mydrv_load_send(db_conn_t *con, const char *data, size_t len, db_result_t *rs);
int mydrv_load_end(db_conn_t *con, db_result_t *rs);
void mydrv_load_abort(db_conn_t *con);

/* ---- drv_mysql_async.c (only with MariaDB Connector/C) ---- */
db_step_t mydrv_connect_start(db_conn_t *con);
db_step_t mydrv_connect_cont(db_conn_t *con, int ready);
db_step_t mydrv_query_start(db_conn_t *con, const char *sql, size_t len, db_result_t *rs);
db_step_t mydrv_query_cont(db_conn_t *con, int ready);
db_step_t mydrv_execute_start(db_stmt_t *stmt, db_result_t *rs);
db_step_t mydrv_execute_cont(db_stmt_t *stmt, int ready);
db_step_t mydrv_prepare_start(db_stmt_t *stmt);
db_step_t mydrv_prepare_cont(db_stmt_t *stmt, int ready);
db_step_t mydrv_next_result_start(db_conn_t *con, db_result_t *rs);
db_step_t mydrv_next_result_cont(db_conn_t *con, int ready);


/* Prepared statements (drv_mysql_stmt.c): the ops-table entries prepare,
   execute and close, and the fetch / next-result paths that
   drv_mysql.c's generic fetch_row and next_result delegate to when the
   connection's last result came from a statement. Same contracts as the
   db_driver_ops_t members; called only from the connection's thread. */
int mydrv_prepare(db_stmt_t *stmt);
/* Allocates the statement state and MYSQL_STMT for `stmt` (NULL with the
   error recorded when the client library refuses). */
my_stmt_t *mydrv_stmt_new(db_stmt_t *stmt);
/* Completes a prepare whose mysql_stmt_prepare returned `err`: binds the
   statement on success, falls back to emulation for ER_UNSUPPORTED_PS,
   records the error otherwise. Same return as mydrv_prepare. */
int mydrv_prepare_done(db_stmt_t *stmt, my_stmt_t *ms, int err);
int mydrv_execute(db_stmt_t *stmt, db_result_t *rs);
void mydrv_close(db_stmt_t *stmt);
int mydrv_stmt_fetch(db_result_t *rs, my_conn_t *mc);
int mydrv_stmt_next_result(db_stmt_t *stmt, db_result_t *rs);

#endif
