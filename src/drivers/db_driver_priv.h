/* Internal helpers shared by db_driver.c, db_stmt.c and db_bulk.c. */
#ifndef DB_DRIVER_PRIV_H
#define DB_DRIVER_PRIV_H

#include "drivers/db_driver.h"

/* Frees the connection's live result, if any. */
void db_rs_release(db_result_t *rs);

/* Counts a statement's outcome and returns the connection's result, or
   NULL on error (rebuilding a lost connection in place when the error is
   ignorable). `rc` is the driver call's return value. */
db_result_t *db_finish(db_conn_t *con, int rc, db_stmt_t *stmt);

/* A failed pipeline send: counted like a failed statement; returns -1. */
int db_pipeline_queue_failed(db_conn_t *con);

/* False (with the "already closed" ALERT) for a closed connection. */
bool db_usable(db_conn_t *con);

#endif
