/* Asynchronous API of the generic SQL layer (implemented in db_async.c;
   db_connection_new in db_conn.c). */
#ifndef DB_ASYNC_H
#define DB_ASYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "drivers/db_driver.h"

/* ---- asynchronous API (db_async.c; exported for LuaJIT FFI) --------------
 * The same operations as the blocking API with the same results, counting
 * and errors, in a start / step form for an event loop: a *_start function
 * begins the operation on the connection and returns DB_STEP_DONE or
 * DB_STEP_WAIT; on WAIT the caller waits for con->wait_events on
 * con->wait_fd (at most con->wait_timeout_ms when DB_WAIT_TIMEOUT is set;
 * wait_fd may be -1 for a pure timer, e.g. a reconnect back-off) and calls
 * db_async_step(con, ready_events) until it returns DB_STEP_DONE. Then the
 * outcome is read with db_async_result / db_async_stmt / db_async_status.
 * One operation at a time per connection; the connection's thread only.
 * A lost connection with an ignorable error is rebuilt inside the
 * operation (reconnect with back-off timers, statements prepared again)
 * before it completes with the original error, as the blocking layer does.
 */

/* A new, unconnected connection of `drv` for the calling thread (NULL as
   db_connection_create would fail before connecting). Start it with
   db_connect_start and complete it with db_connect_finish. */
db_conn_t *db_connection_new(db_driver_t *drv);
db_step_t db_connect_start(db_conn_t *con);
/* 0: connected (registered like db_connection_create's); non-zero: the
   connect failed (driver messages printed) and `con` was freed. */
int db_connect_finish(db_conn_t *con);

/* Asynchronous db_query / db_execute / db_next_result: the result (or
   NULL) is db_async_result(con) once done. `query` must stay valid until
   the operation completes. */
db_step_t db_query_start(db_conn_t *con, const char *query, size_t len);
db_step_t db_execute_start(db_stmt_t *stmt);
db_step_t db_next_result_start(db_conn_t *con);
db_result_t *db_async_result(db_conn_t *con);

/* Asynchronous db_pipeline_fetch: db_async_result(con) is then the next
   statement's result, or NULL: db_conn_error(con) != 0 when it failed, no
   error at the sync point. A driver without the asynchronous form is
   called in its blocking form. */
db_step_t db_pipeline_fetch_start(db_conn_t *con);

/* Asynchronous db_prepare: the statement (or NULL) is db_async_stmt(con). */
db_step_t db_prepare_start(db_conn_t *con, const char *query, size_t len);
db_stmt_t *db_async_stmt(db_conn_t *con);

/* Asynchronous db_connection_reconnect and db_close; db_async_status(con)
   is then what the blocking form returns (0 ok). */
db_step_t db_reconnect_start(db_conn_t *con);
db_step_t db_close_start(db_stmt_t *stmt);

/* Asynchronous db_connection_move (con:route in the event loop): checks
   and starts the move (db_route_begin, then the rebuild's steps); when it
   is done, db_route_end(con, db_async_status(con)) completes it and says
   whether it worked (db_route_error). The connection's thread only. */
db_step_t db_route_start(db_conn_t *con, const char *what, int who);

/* Bulk insert: true when the next row of `len` bytes would flush the
   buffer first; db_bulk_flush_start sends the buffered rows (status 0 ok,
   also when nothing was buffered). */
bool db_bulk_needs_flush(const db_conn_t *con, size_t len);
db_step_t db_bulk_flush_start(db_conn_t *con);

/* Continues the operation in progress with the events that occurred. */
db_step_t db_async_step(db_conn_t *con, int ready_events);

/* Outcome of the last completed operation: 0 success, non-zero failure. */
int db_async_status(const db_conn_t *con);

#endif
