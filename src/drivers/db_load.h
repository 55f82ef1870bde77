/* Fast load API of the generic SQL layer (implemented in db_load.c). */
#ifndef DB_LOAD_H
#define DB_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/db_driver.h"

/* ---- fast load (db_load.c; docs/drivers.md "Fast load") -----------------
 * Loads rows into one table through the driver's bulk path: PostgreSQL
 * COPY FROM STDIN (one statement per load, rows streamed as they come) or
 * MySQL LOAD DATA LOCAL INFILE fed from memory (one statement per
 * load_chunk_bytes of rows). One load at a time per connection; it does
 * not begin or commit a transaction. Each finished statement is counted
 * like any other (write when it loaded rows, else other).
 * Returns: 0 ok; 1 SQL error (con->error / con->err set, the load is over
 * and counted like a failed query: ignorable error, reconnect); -1 misuse
 * (ALERT printed, con->error NONE; the load, if any, goes on).
 * Not thread-safe for one connection (its owner's thread only). */

/* Starts a load into `table` (SQL text as given, e.g. "sbtest1" or
   "s.t") of the `ncols` columns `cols` (SQL text, joined with ", "). */
int db_load_start(db_conn_t *con, const char *table, const char *const *cols,
                  unsigned ncols);
/* Appends the next column value of the current row: text of `len` bytes
   (escaped for the format), SQL NULL, an integer, or a double (%.17g). */
int db_load_text(db_conn_t *con, const char *s, size_t len);
int db_load_null(db_conn_t *con);
int db_load_int(db_conn_t *con, int64_t v);
int db_load_double(db_conn_t *con, double v);
/* Ends the current row; misuse when it has not exactly ncols values. May
   send data (SQL errors possible). */
int db_load_end_row(db_conn_t *con);
/* Appends `len` bytes of rows already in the load format (each line one
   row, ending in a newline); misuse in the middle of a row or when the
   text does not end with a newline. May send data. */
int db_load_rows(db_conn_t *con, const char *text, size_t len);
/* Sends what is left and ends the load: *rows = rows the server loaded,
   *statements = load statements it took (either may be NULL). */
int db_load_finish(db_conn_t *con, uint64_t *rows, unsigned *statements);
/* True while a load is in progress on `con`. */
bool db_load_active(const db_conn_t *con);
/* Abandons a load in progress (nothing when none); `why` names the call
   that interrupted it for the ALERT, NULL for no message. The rows sent
   so far in an unfinished statement are discarded by the server. */
void db_load_cancel(db_conn_t *con, const char *why);
/* True when the connection's driver has a fast load path. */
bool db_load_supported(const db_conn_t *con);
/* Escapes `len` bytes of `src` into `dst` (capacity 2*len) for the load
   text format: backslash, tab, newline, carriage return and NUL become
   \\, \t, \n, \r and \0. Returns the escaped length. Thread-safe. */
size_t db_load_escape(char *dst, const char *src, size_t len);

#endif
