/*
 * SQL driver abstraction: the generic layer (db_driver.c: registry and
 * options; db_conn.c: connections, errors, reconnect; db_query.c: text
 * queries, results, pipelining; db_stmt.c, db_bulk.c, db_load.c,
 * db_async.c) and the ops table every database driver implements
 * (src/drivers/<db>/). The fast load API is declared in db_load.h, the
 * asynchronous API in db_async.h.
 *
 * Ownership and threading
 * -----------------------
 * A connection (db_conn_t) belongs to the thread that created it; nothing in
 * this layer is shared between threads except the driver descriptor and the
 * endpoint round-robin cursor (locked). A connection holds at most one live
 * result (db_result_t embedded in the connection); running the next
 * statement frees it, as in sysbench.
 *
 * Blocking and asynchronous operation
 * -----------------------------------
 * Every operation that talks to the server exists in two forms in the ops
 * table:
 *   - a blocking form (`connect`, `query`, `prepare`, `execute`, ...), which
 *     thread mode calls (one thread per virtual user blocks in the client
 *     library exactly like sysbench does, so client CPU per query stays at
 *     the library's minimum);
 *   - an optional start / continue pair (`query_start` + `query_cont`, ...)
 *     returning DB_STEP_DONE or DB_STEP_WAIT. On DB_STEP_WAIT the driver
 *     has set con->wait_events (DB_WAIT_READ/WRITE/TIMEOUT), con->wait_fd
 *     and con->wait_timeout_ms; the caller waits on that socket (poll,
 *     epoll, ...) and calls the `_cont` function with the events that
 *     occurred. The event loop (engine/sb_loop.c) multiplexes many
 *     connections on one thread this way, through the generic asynchronous
 *     layer of db_async.h (MariaDB's non-blocking API, libpq's PQsend* /
 *     PQconsumeInput).
 *     db_step_blocking() drives a start/continue pair with poll() and is
 *     what the tests use to check that both forms give the same results.
 * When a driver leaves a pair NULL, only the blocking form exists.
 *
 * Errors
 * ------
 * Each operation stores its outcome in con->error (db_error_t) and, on
 * failure, con->err (errno, SQLSTATE, message, failing API name, query).
 * The driver classifies: DB_ERROR_IGNORABLE when the error is in its
 * --<db>-ignore-errors list, with con->lost set when the connection itself
 * is gone (the generic layer then rebuilds it in place and counts a
 * reconnect instead of an error). Everything else is DB_ERROR_FATAL.
 */
#ifndef DB_DRIVER_H
#define DB_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sb_counter.h"
#include "core/sb_endpoints.h"
#include "core/sb_options.h"

/* sysbench's sql_error_t */
typedef enum {
  DB_ERROR_NONE = 0,
  DB_ERROR_IGNORABLE = 1,
  DB_ERROR_FATAL = 2
} db_error_t;

/* sysbench's sql_bind_type_t (SQL_TYPE_*) */
typedef enum {
  DB_TYPE_NONE = 0,
  DB_TYPE_TINYINT,
  DB_TYPE_SMALLINT,
  DB_TYPE_INT,
  DB_TYPE_BIGINT,
  DB_TYPE_FLOAT,
  DB_TYPE_DOUBLE,
  DB_TYPE_TIME,
  DB_TYPE_DATE,
  DB_TYPE_DATETIME,
  DB_TYPE_TIMESTAMP,
  DB_TYPE_CHAR,
  DB_TYPE_VARCHAR,
  DB_TYPE_MAX
} db_bind_type_t;

/* Result of a step of an asynchronous operation. */
typedef enum {
  DB_STEP_DONE = 0,   /* finished; outcome in con->error */
  DB_STEP_WAIT = 1    /* wait for con->wait_events on con->wait_fd */
} db_step_t;

#define DB_WAIT_READ    1
#define DB_WAIT_WRITE   2
#define DB_WAIT_TIMEOUT 4

/*
 * A bound parameter. Buffers are owned by the statement (db_stmt_t.binds).
 * Integer types hold an int64_t, FLOAT/DOUBLE a double, everything else
 * text of `len` bytes (at most max_len). The driver converts as it needs.
 */
typedef struct {
  db_bind_type_t type;
  bool is_null;
  unsigned long max_len;   /* capacity of `buf` for text types (bytes) */
  unsigned long len;       /* current text length (bytes) */
  int64_t i;               /* integer value */
  double d;                /* floating value */
  char *buf;               /* text value: max_len + 1 bytes; db_bind_set_str
                              ends it with a NUL, other writers need not */
} db_bind_t;

/* One value of a fetched row: text (not necessarily NUL-terminated) or
   ptr == NULL for SQL NULL. sysbench's sql_value. */
typedef struct {
  unsigned long len;
  const char *ptr;
} db_value_t;

/* A fetched row: nfields values, valid until the next fetch or free. */
typedef struct {
  db_value_t *values;
  void *ptr;               /* driver-private */
} db_row_t;

typedef struct db_driver db_driver_t;
typedef struct db_conn db_conn_t;
typedef struct db_load db_load_t;      /* fast load in progress (db_load.c) */
typedef struct db_stmt db_stmt_t;
typedef struct db_result db_result_t;

/* db_query_each's function: one result of a compound text query that is
   not the last, valid only during the call; `arg` is the caller's. */
typedef void (*db_each_result_fn)(db_result_t *rs, void *arg);

typedef enum {
  DB_RS_FREE = 0,          /* no result (freed or never used) */
  DB_RS_READY              /* holds a result; fetch_row may be called */
} db_rs_state_t;

struct db_result {
  db_rs_state_t state;
  sb_counter_type counter; /* set by the driver: SB_CNT_READ when the
                              statement returned a result set, SB_CNT_WRITE
                              when it affected rows, SB_CNT_OTHER otherwise */
  uint64_t nrows;          /* rows in the (stored) result set, or affected */
  uint32_t nfields;        /* columns; 0 when no result set */
  db_conn_t *con;
  db_stmt_t *stmt;         /* NULL for text queries */
  db_row_t row;            /* current row (driver fills it in fetch_row) */
  void *ptr;               /* driver-private native result */
};

/* Last error of a connection. Strings are owned by the connection. */
typedef struct {
  int sql_errno;           /* MySQL errno; 0 for PostgreSQL */
  char sql_state[6];       /* SQLSTATE, NUL-terminated ("" if none) */
  char *msg;               /* server or client message */
  const char *api;         /* failing call for the FATAL line, e.g.
                              "mysql_drv_query", "PQexec" */
  const char *status;      /* pgsql: result status name for the FATAL line */
  char *query;             /* failing query text, or "<prepared statement>" */
  char *full;              /* the client library's whole text of the error
                              (libpq: severity, message, DETAIL, HINT, LINE
                              and caret, CONTEXT lines), or NULL */
} db_err_t;

typedef enum {
  DB_CONN_READY = 0,
  DB_CONN_INVALID          /* closed / disconnected */
} db_conn_state_t;

struct db_conn {
  const db_driver_t *driver;
  void *ptr;               /* driver-private connection handle */
  /* during db_query_each, or set by the caller around a db_query_start
     and its steps: where a driver hands the results of a compound text
     query that are not the last (NULL: it drops them) */
  db_each_result_fn each_result;
  void *each_arg;
  int thread_id;           /* creator's thread id (counters go there) */
  struct db_conn *reg_prev, *reg_next;   /* registry of live connections */
  db_conn_state_t state;
  db_error_t error;        /* outcome of the last operation */
  bool lost;               /* driver: the connection is gone */
  bool timed_out;          /* the last operation got no answer within
                              --db-query-timeout / --db-connect-timeout
                              (then `lost` is set too) */
  uint64_t op_start_ns;    /* generic layer: start of the blocking
                              operation (only while a timeout is set) */
  db_err_t err;
  db_result_t rs;          /* the connection's single live result */
  /* bulk insert (generic layer) */
  char *bulk_buf;
  size_t bulk_len, bulk_cap, bulk_prefix_len, bulk_values;
  bool bulk_active;
  /* asynchronous wait request (driver fills on DB_STEP_WAIT) */
  int wait_fd;
  int wait_events;
  int wait_timeout_ms;
  /* generic layer: an id of the socket behind wait_fd, unique in the
     process, set when a connect completes and 0 from the disconnect of a
     rebuild or close on (and during a connect, when a driver may replace
     its socket at any call). While it stays the same non-zero value the
     socket is the same, so a waiter may keep it registered (epoll) across
     waits; a new value may come with the same descriptor number. */
  uint64_t sock_id;
  /* statements created on this connection, re-prepared after reconnect */
  db_stmt_t *stmts;
  /* fast load in progress (db_load_start .. db_load_finish), or NULL */
  db_load_t *load;
  /* the operation in progress in the asynchronous API (db_async.c);
     NULL until the connection first uses it */
  struct db_async *async;
  /* --endpoints: the server this connection goes to (address,
     credentials, per-endpoint counters); NULL: the driver's options */
  sb_endpoint_t *endpoint;
  bool routed;             /* db_connection_route chose it */
  sb_endpoint_t *home_ep;  /* during a rebuild under --on-endpoint-failure=
                              next: the endpoint the connection was lost on */
  unsigned failover_k;     /* the next failover candidate to try */
  sb_endpoint_t *route_from; /* con:route()'s last move: the endpoint it left */
  bool route_moving;         /* between db_route_begin and db_route_end */
  struct sb_hdr *ep_lat;   /* --endpoints: this connection's statement
                              latencies (its thread records; the endpoint
                              probe reads them with the workers parked) */
  bool is_private;         /* its thread is never parked: db_each_connection
                              skips it (db_private_connections) */
  int in_txn;              /* ops.txn_status after the last statement (0
                              after a connect) */
  /* generic layer, pipelines: a statement was queued since the batch's
     transaction was last counted (db_pipeline_batch_done), and when the
     batch was sent (db_pipeline_sync; 0: not yet), the start of each of
     its statements' latency */
  bool pl_batch;
  uint64_t pl_sync_ns;
  /* set by the caller: the asynchronous forms go straight to the wait
     after a send, without first trying to read an answer already in
     (the drivers that try: pgsql). A Lua VU's wait is a yield through
     interpreted frames, dearer than the recv that fails with EAGAIN when
     the answer is not in yet; a C test's wait is not (docs/performance.md,
     "pgbench scripts: no read before the wait") */
  bool skip_early_read;
};

struct db_stmt {
  db_conn_t *con;
  char *query;             /* original SQL with '?' placeholders */
  size_t query_len;
  bool emulated;           /* client-side emulation (--db-ps-mode=disable
                              or the server refused to prepare it) */
  bool unnamed;            /* db_prepare_unnamed: nothing kept on the
                              server, text and parameters sent each time */
  char server_name[24];    /* db_prepare_as: its name on the server ("":
                              the driver's own) */
  bool adopted;            /* db_prepared_elsewhere: never prepared by this
                              layer, executed by server_name */
  bool native;             /* db_prepare_native: query has the driver's own
                              placeholders, sent as written; nparams given
                              by the caller; --db-ps-mode=disable does not
                              emulate it */
  void *ptr;               /* driver-private handle (server-side stmt) */
  db_bind_t *binds;        /* parameters created by bind_create, in
                              creation order */
  unsigned nbinds, binds_cap;
  unsigned *order;         /* bind_param order: order[k] = index into binds
                              of the k-th placeholder */
  unsigned norder;
  unsigned order_gen;      /* bumped whenever binds or order change, so a
                              driver can keep its native bindings */
  unsigned nparams;        /* number of '?' placeholders in query (native:
                              the parameters each execution binds) */
  bool closed;
  bool stale;              /* generic layer: the server-side handle was
                              released (reconnect); prepared again before
                              the next execute */
  char *emu_buf;           /* generic layer: emulation scratch buffer */
  size_t emu_cap;
  db_stmt_t *next;         /* in con->stmts */
};

/* The ops table a driver implements. All pointers not marked optional are
   required. Unless stated, functions return 0 on success, non-zero on
   failure, and store the outcome in con->error / con->err. */
typedef struct {
  /* Called once in the main thread after options are parsed. 0 = ok. */
  int (*init)(void);
  /* Called once at exit. Optional. */
  void (*done)(void);
  /* Per-thread client library setup / teardown (e.g. mysql_thread_init).
     Optional. */
  int (*thread_init)(int thread_id);
  void (*thread_done)(int thread_id);

  /* Opens con->ptr using the driver's options and the endpoint cursor.
     On failure prints the FATAL connect lines and returns non-zero. */
  int (*connect)(db_conn_t *con);
  /* Closes con->ptr (and frees it). Must not fail. */
  void (*disconnect)(db_conn_t *con);

  /* Runs `sql` (len bytes) and stores its complete result into `rs`
     (counter, nrows, nfields, ptr). */
  int (*query)(db_conn_t *con, const char *sql, size_t len, db_result_t *rs);
  /* Prepares stmt->query on the server (placeholders are '?'; the pgsql
     driver rewrites them to $n, unless stmt->native). Returns 0, or
     non-zero with con->error.
     Setting stmt->emulated and returning 0 means "server refused; emulate"
     (MySQL ER_UNSUPPORTED_PS). */
  int (*prepare)(db_stmt_t *stmt);
  /* Executes a server-side prepared statement with its current binds
     (stmt->binds through stmt->order) and stores the full result in `rs`. */
  int (*execute)(db_stmt_t *stmt, db_result_t *rs);
  /* Releases the server-side statement. Must not fail. */
  void (*close)(db_stmt_t *stmt);

  /* Fills rs->row with the next row; returns 1 when a row was fetched, 0
     when none is left. Row values are text (binary results converted). */
  int (*fetch_row)(db_result_t *rs);
  /* Frees the native result (rs->ptr). Must not fail. */
  void (*free_results)(db_result_t *rs);

  /* Multiple result sets (MySQL CALL / multi-statements). Optional: NULL
     means never more results. more_results returns true if another result
     is pending; next_result reads it into rs (0 ok). */
  bool (*more_results)(db_conn_t *con);
  int (*next_result)(db_conn_t *con, db_result_t *rs);

  /* Escapes `len` bytes of `src` into `dst` (capacity 2*len+1) for a
     quoted string literal; returns the escaped length. Used by prepared
     statement emulation. */
  size_t (*escape)(db_conn_t *con, char *dst, const char *src, size_t len);

  /* Pipelining (optional; NULL when the driver has none; PostgreSQL via
     libpq's pipeline mode, src/drivers/pgsql/drv_pgsql_pipeline.c).
     Statements are queued without waiting for their results, a sync
     point ends the batch, and the results are read back in queue order;
     see db_pipeline_begin below and docs/drivers.md.
     pipeline_begin enters the mode; pipeline_queue sends `stmt` with its
     current binds (prepared on this session beforehand), or the text
     `sql` when stmt is NULL; pipeline_sync marks the end of the batch and
     flushes it; pipeline_fetch reads the next result into `rs` and
     returns 0, or 1 with con->error set (the statement failed, or the
     connection), or 2 at the sync point, or 3 with con->error set: the
     statement failed and the rest of its batch was read through the sync
     point (then every fetch returns 2 until the next pipeline_begin or
     pipeline_end); statements skipped because an earlier one of the
     batch failed are consumed silently, and no ROLLBACK is sent.
     pipeline_end leaves the mode (every result read). */
  int (*pipeline_begin)(db_conn_t *con);
  int (*pipeline_queue)(db_conn_t *con, db_stmt_t *stmt, const char *sql, size_t len);
  int (*pipeline_sync)(db_conn_t *con);
  int (*pipeline_fetch)(db_conn_t *con, db_result_t *rs);
  int (*pipeline_end)(db_conn_t *con);
  /* pipeline_fetch's asynchronous form (optional): *rc as pipeline_fetch
     returns it, once the step is DB_STEP_DONE */
  db_step_t (*pipeline_fetch_start)(db_conn_t *con, db_result_t *rs, int *rc);
  db_step_t (*pipeline_fetch_cont)(db_conn_t *con, int ready_events, int *rc);

  /* Asynchronous forms (optional; see the header comment). */
  db_step_t (*connect_start)(db_conn_t *con);
  db_step_t (*connect_cont)(db_conn_t *con, int ready_events);
  db_step_t (*query_start)(db_conn_t *con, const char *sql, size_t len,
                           db_result_t *rs);
  db_step_t (*query_cont)(db_conn_t *con, int ready_events);
  db_step_t (*execute_start)(db_stmt_t *stmt, db_result_t *rs);
  db_step_t (*execute_cont)(db_stmt_t *stmt, int ready_events);

  /* Fast load (optional: all four or none; docs/drivers.md "Fast load").
     The generic layer (db_load.c) formats rows in the load text format
     (tab-separated, newline-terminated, \N = NULL, backslash escapes) and
     hands them over in pieces of complete rows of about
     db_driver_t.load_chunk_bytes.
     load_start: begins loading `table` (SQL text) with the column list
       `cols` ("a, b, c"); pgsql sends COPY ... FROM STDIN, mysql only
       remembers the statement. 0 ok, non-zero with the error recorded.
     load_send: `len` bytes (len may be 0) of complete rows. Returns -1 on
       error (recorded), 0 when the data was accepted without finishing a
       statement (pgsql: PQputCopyData), 1 when a statement finished and
       its outcome is in `rs` (mysql: one LOAD DATA LOCAL INFILE per call;
       rs->nrows = rows loaded, rs->counter set).
     load_end: ends the load; same returns (pgsql: PQputCopyEnd and the
       COPY's result, 1; mysql: nothing left, 0).
     load_abort: forgets the load after an error or a cancel (pgsql ends
       the COPY with an error); must not fail. */
  int (*load_start)(db_conn_t *con, const char *table, const char *cols);
  int (*load_send)(db_conn_t *con, const char *data, size_t len, db_result_t *rs);
  int (*load_end)(db_conn_t *con, db_result_t *rs);
  void (*load_abort)(db_conn_t *con);
  /* Same contract as `prepare` (outcome in con->error; stmt->emulated set
     when the server refuses to prepare it). */
  db_step_t (*prepare_start)(db_stmt_t *stmt);
  db_step_t (*prepare_cont)(db_stmt_t *stmt, int ready_events);
  /* Same contract as `next_result`. */
  db_step_t (*next_result_start)(db_conn_t *con, db_result_t *rs);
  db_step_t (*next_result_cont)(db_conn_t *con, int ready_events);
  /* Same contract as `close` (must not fail). A driver whose close never
     waits for the server leaves these NULL. */
  db_step_t (*close_start)(db_stmt_t *stmt);
  db_step_t (*close_cont)(db_stmt_t *stmt, int ready_events);
  /* True when a timeout (--db-query-timeout) is ignorable: its
     --<db>-ignore-errors list has "timeout", "lost" (or the driver's
     lost-connection codes) or "all". Optional: NULL = never. */
  bool (*timeout_ignorable)(void);
  /* The name of column i (0-based, i < rs->nfields) of a result set
     whose rs->ptr the driver set (a text query's; a prepared statement's
     when the driver keeps it there), or NULL. Optional: NULL = no names. */
  const char *(*field_name)(const db_result_t *rs, unsigned i);
  /* 1 while the connection is inside a transaction block (after BEGIN,
     before COMMIT / ROLLBACK), 0 when it is not, -1 when the driver cannot
     tell (a pipeline in progress). Read after each statement to count
     the transactions each endpoint's server sees (--endpoints; see
     autocommit_is_xact). Optional: NULL = not counted. */
  int (*txn_status)(db_conn_t *con);
} db_driver_ops_t;

struct db_driver {
  const char *name;            /* "mysql", "pgsql" */
  const char *description;     /* "MySQL driver" */
  const sb_option_t *options;  /* driver options, terminated by {NULL} */
  const sb_option_t *ext_options; /* bmk extension options of this driver
                                     (printed in "bmk extensions (<name>):"),
                                     terminated by {NULL}; may be NULL */
  db_driver_ops_t ops;
  bool needs_commit_in_bulk;   /* COMMIT every 1000 bulk rows */
  bool autocommit_is_xact;     /* a statement outside a transaction block is
                                  a transaction in the server's counters
                                  (PostgreSQL xact_commit); false: only the
                                  end of a block is (MySQL Com_commit) */
  bool connect_is_xact;        /* a new session's start-up is a transaction in
                                  those counters (PostgreSQL reads the
                                  catalogs in one) */
  bool unnamed_is_local;       /* db_prepare_unnamed and db_prepared_elsewhere
                                  send nothing to the server (PostgreSQL:
                                  the text, or the name, goes with each
                                  execution), so they are no blocking call;
                                  false: they prepare as db_prepare (MySQL) */
  size_t load_chunk_bytes;     /* fast load: bytes of rows gathered before
                                  each ops.load_send */
  const char *port_option;     /* the option naming the server's TCP
                                  port(s) ("mysql-port"), checked up front
                                  by db_check_options; may be NULL */
};

/* ---- driver registry ---------------------------------------------------- */

/* Compiled-in drivers, NULL-terminated, in help order (mysql, pgsql). */
const db_driver_t *const *db_drivers(void);

/* Registers every compiled-in driver's options (call once at startup). */
int db_register_options(void);

/* Checks the database options that can be judged before any driver starts,
   so a bad value is refused before the run's header, not later among the
   workers' thread-init failures: --db-connect-timeout and
   --db-query-timeout (whole seconds, 0..86400) and each compiled-in
   driver's port option (every item of its comma list an integer from 1 to
   65535). Call once after the options are parsed. Returns 0, or 1 with one
   FATAL line naming the option, the value and the valid range. Not
   thread-safe (startup only). */
int db_check_options(void);

/* The name connections give the server when nothing else names them
   (PostgreSQL's fallback_application_name: application_name unless
   PGAPPNAME or a connection string sets one), e.g. "pgbench" for the
   persona, as pgbench does; NULL (the default): none. `name` must live as
   long as the connections made after the call. Not thread-safe (startup
   only); other drivers ignore it. */
void db_set_application_name(const char *name);

/* Drivers: the name db_set_application_name set, or NULL. */
const char *db_application_name(void);

/* ---- generic API (exported; called from Lua through FFI) ------------------
 * Names follow sysbench's C API so scripts that call them through FFI work.
 * Unless noted: thread-safe for distinct connections; a connection must be
 * used by one thread at a time. */

/* Returns the driver `name` (NULL or "" = --db-driver), initialising it on
   first use (ops.init). NULL with a FATAL message when unknown or its init
   fails. Marks "a SQL driver is in use" (the DB report format is used). */
db_driver_t *db_create(const char *name);

/* Driver name ("mysql" / "pgsql"). */
const char *db_driver_name(const db_driver_t *drv);

/* True once any driver was created in this process (selects the DB
   interval/final report layout). */
bool db_driver_used(void);

/* The driver most recently returned by db_create (NULL if none): the
   server-statistics sampler connects with it. Thread-safe. */
db_driver_t *db_last_driver(void);

/* Opens a new connection for the calling thread (sysbench.tid). NULL on
   failure (the driver has printed why). */
db_conn_t *db_connection_create(db_driver_t *drv);

/* --endpoints (docs/endpoints.md): points a connection that is not
   connected yet (db_connection_new) at the endpoint for `what` (a route:
   "default", "read", "write", an event type; an endpoint's name; a role),
   chosen for VU or thread `who` (the sticky choice). Returns 0; without
   an endpoints file 0 (the driver's options) for NULL, "", "default",
   "read" and "write", and -1 with a FATAL line for any other name; -1 with a FATAL line when `what` names nothing in the
   file or the endpoint's driver is not the connection's. Thread-safe. */
int db_connection_route(db_conn_t *con, const char *what, int who);

/* db_connection_create for route `what` and VU/thread `who`
   (db_connection_route). NULL on failure (printed). Exported for FFI. */
db_conn_t *db_connection_create_route(db_driver_t *drv, const char *what, int who);

/* con:route(what) (docs/lua-api.md): moves an open connection to the
   endpoint that route, endpoint name or role `what` picks for VU/thread
   `who` (the blocking form; db_route_start is the event loop's). Closes
   the connection's statements and session, connects to the new endpoint
   and prepares the statements again there (the rebuild of a lost
   connection, without its retries). Nothing happens when the connection
   is already on that endpoint. Returns 0, or -1 with db_route_error()
   saying why: no --endpoints, `what` names nothing in the file, the
   connection is in a transaction, a bulk insert or a fast load, or the new endpoint
   refused the connection (then the connection is closed; the driver has
   printed its FATAL lines). The connection's thread only. */
int db_connection_move(db_conn_t *con, const char *what, int who);

/* The steps of db_connection_move, for the asynchronous form:
   db_route_begin checks and points the connection at the new endpoint
   (its latencies so far handed to the old one): 1 = the connection must
   now be rebuilt (db_reconnect's steps), 0 = already there, -1 = refused
   (db_route_error). db_route_end(con, status) completes it once the
   rebuild ended with `status` (0 connected): counts a connect on the new
   endpoint, or sets the error; returns 0 or -1. db_route_error: the
   calling thread's last refusal or failure, one line ("" when none). */
int db_route_begin(db_conn_t *con, const char *what, int who);
int db_route_end(db_conn_t *con, int status);
const char *db_route_error(void);

/* The endpoint name of a connection ("" without --endpoints). Exported
   for FFI (con:endpoint()). */
const char *db_connection_endpoint(const db_conn_t *con);

/* Closes the connection (statements and results first). Returns 0, or 1
   with "ALERT: attempt to close an already closed connection". */
int db_connection_close(db_conn_t *con);

/* Closes and reopens the connection with a fresh client handle, counting
   one reconnect. Server-side statements must be prepared again by the
   caller (sysbench semantics). Returns 0 ok, non-zero on failure. */
int db_connection_reconnect(db_conn_t *con);

/* Counts one reconnect for worker thread thread_id (0-based) without
   touching any connection: for workloads that open a fresh connection
   per event themselves (kit reconnect workloads). Thread-safe when called
   from the worker's own thread (single-writer counters). Exported for
   LuaJIT FFI. */
void db_count_reconnect(int thread_id);

/* The calling thread's last db_connection_create(): returns 1 if it
   failed, 0 if it succeeded (or none was made). On failure *sql_errno is
   the MySQL error (client 2002/2003..., server 1045...; 0 for PostgreSQL)
   and *sql_state the SQLSTATE ("08001" for every PostgreSQL connect
   failure; "" if none); either pointer may be NULL. The string is
   thread-local and valid until the thread's next connect. For workloads
   that connect per event and must tell an ignorable connect failure
   (--mysql-ignore-errors / --pgsql-ignore-errors) from a fatal one.
   Exported for LuaJIT FFI. */
int db_last_connect_error(int *sql_errno, const char **sql_state);

/* Message of the calling thread's last failed connect ("" if none);
   thread-local, valid until the thread's next connect. Exported for FFI. */
const char *db_last_connect_errmsg(void);

/* on != 0: the calling thread's connect failures are not logged by the
   drivers (FATAL lines), only recorded for db_last_connect_error(). For a
   workload that decides itself whether a failed connect is an ignorable
   error or fatal (and then prints it). Exported for FFI. */
void db_quiet_connect_errors(int on);

/* on != 0: nothing the calling thread's connections do is printed (the
   drivers' FATAL lines for connects and statements), without touching the
   script's own db_quiet_connect_errors() setting. The event-loop engine
   sets it for virtual users still initialising after another one failed,
   whose identical failures would flood the output. Thread-local. */
void db_quiet_all_errors(int on);

/* Drivers: true while the calling thread asked for quiet connects (or the
   engine for no messages at all). */
bool db_connect_errors_quiet(void);

/* Drivers: true while the calling thread asked for no messages at all
   (db_quiet_all_errors). */
bool db_all_errors_quiet(void);

/* on: the calling thread is an event-loop worker running a virtual user
   (the engine sets it around each resume, off otherwise). While it is on,
   every blocking call of the SQL API (db_query, db_execute, db_prepare,
   db_next_result, db_close, connecting, bulk and fast-load flushes,
   pipeline syncs and fetches, the end of an abandoned batch) counts as
   one blocking call (not a db_prepare_unnamed or db_prepared_elsewhere
   that sends nothing: db_driver_t.unnamed_is_local)
   (db_loop_blocking_calls): it stops every other VU of the worker until
   the server answers. Thread-local. */
void db_loop_thread(bool on);

/* Counts one blocking call of an event-loop worker (the engine, for an
   asynchronous operation it had to drive in place). Any thread. */
void db_loop_count_blocking(void);

/* Blocking calls counted in the process since it started (all threads).
   Any thread. */
uint64_t db_loop_blocking_calls(void);

/* Calls fn(con, arg) for every open connection of the process, under the
   registry lock (fn must not create or free connections). For the engine's
   start line, while the workers owning the connections are parked; not
   safe while they use them. Private connections are left out. */
void db_each_connection(void (*fn)(db_conn_t *con, void *arg), void *arg);

/* on != 0: the connections the calling thread creates from now on are
   private: a thread that runs beside the workers and is not parked with
   them (the replica lag sampler) keeps them out of db_each_connection.
   Thread-local. */
void db_private_connections(int on);

/* For drivers: after a protocol step other than a statement that the
   server counts as a transaction of its own when the connection is not in
   a block (a PostgreSQL prepare: Parse + Sync), counts it on the
   connection's endpoint as db_endpoint_after_stmt counts a statement's
   (--endpoints; nothing without one). The connection's thread. */
void db_endpoint_count_xact(db_conn_t *con);

/* Frees a closed connection's memory. */
void db_connection_free(db_conn_t *con);

/* Runs a text query. Returns the connection's result when the statement
   produced one or succeeded (check db_result_nfields: 0 = no result set,
   nothing to fetch or free, nrows = affected rows), NULL on error (see
   db_conn_error). Counts read/write/other or error/reconnect. */
db_result_t *db_query(db_conn_t *con, const char *query, size_t len);

/* db_query for a compound text query ("SELECT 1; SELECT 2", one round
   trip): calls `each(rs, arg)` with every result but the last, in order
   (the PostgreSQL driver; a driver that returns one result never calls
   it), then returns the last as db_query does; a result before an error
   is handed over too. `each` must not use the connection. Same thread
   rules as db_query. */
db_result_t *db_query_each(db_conn_t *con, const char *query, size_t len,
                           db_each_result_fn each, void *arg);

/* Prepares `query` (len bytes, '?' placeholders). NULL on error. */
db_stmt_t *db_prepare(db_conn_t *con, const char *query, size_t len);

/* Like db_prepare, but nothing is prepared on the server: each execution
   sends the text and its parameters in one go (PostgreSQL: an unnamed
   statement, Parse, Bind and Execute, as PQexecParams does; an error in
   the text shows at the execution). Drivers without such a form prepare
   as db_prepare does; --db-ps-mode=disable still emulates. NULL on
   error. */
db_stmt_t *db_prepare_unnamed(db_conn_t *con, const char *query, size_t len);

/* db_prepare under the name `name` on the server (PostgreSQL; at most 23
   bytes, unique on the connection) instead of the driver's own; other
   drivers ignore the name. NULL on error. */
db_stmt_t *db_prepare_as(db_conn_t *con, const char *name, const char *query, size_t len);

/* A handle for a statement that may be prepared on the server under
   `name` by other means (PostgreSQL): nothing is sent now; each execution
   binds its parameters to `name` (the server's error when it holds no
   such statement), and closing it leaves the server's statement alone.
   `query` gives the parameters ('?' placeholders). Other drivers prepare
   `query` as db_prepare does. NULL on allocation failure. */
db_stmt_t *db_prepared_elsewhere(db_conn_t *con, const char *name, const char *query,
                                 size_t len);

/* How db_prepare_native makes its statement: as db_prepare, as
   db_prepare_unnamed, as db_prepare_as or as db_prepared_elsewhere. */
typedef enum {
  DB_PREP_DRIVER, DB_PREP_UNNAMED, DB_PREP_AS, DB_PREP_ELSEWHERE
} db_prep_kind_t;

/* Prepares `query` (len bytes) whose placeholders are already the
   driver's own: $1..$n on PostgreSQL, sent as written (no '?' of it is
   taken for a parameter: jsonb's ? operators stay operators, and a $n in
   a quoted part stays where it is for the server to judge); '?' on MySQL,
   as db_prepare. `nparams` is the number of parameters each execution
   binds (db_bind_order's n), whatever the text holds: the server refuses
   a mismatch at the execution. `kind` and `name` (DB_PREP_AS,
   DB_PREP_ELSEWHERE; else ignored) as the db_prepare* functions of that
   kind. --db-ps-mode=disable does not apply (a native text cannot be
   emulated by substituting '?'). Same thread rules as db_prepare. NULL on error (see
   db_conn_error). */
db_stmt_t *db_prepare_native(db_conn_t *con, db_prep_kind_t kind, const char *name,
                             const char *query, size_t len, unsigned nparams);

/* Like db_prepare, but the statement always runs as literal SQL with its
   parameters substituted on the client (as --db-ps-mode=disable does for
   every statement), whatever --db-ps-mode says: for a workload's text
   mode, or to fall back to text when the server refuses to prepare
   (e.g. max_prepared_stmt_count). NULL on allocation failure. */
db_stmt_t *db_prepare_text(db_conn_t *con, const char *query, size_t len);

/* Statements run on `con` from now on are counted nowhere (neither the
   client's reads/writes nor its errors): for a workload's monitor
   connection, whose queries are not part of what it measures. Call from
   the connection's thread. */
void db_connection_uncounted(db_conn_t *con);

/* Creates a parameter of `type` (text types need max_len > 0, bytes) on
   `stmt`; returns its handle (>= 0) or -1 (unsupported type, message
   printed). */
int db_bind_create(db_stmt_t *stmt, int type, unsigned long max_len);

/* Sets the placeholder order: the k-th '?' takes bind `handles[k]`.
   Returns 0, or non-zero if a handle is invalid or n differs from the
   number of placeholders. */
int db_bind_order(db_stmt_t *stmt, const int *handles, unsigned n);

/* Parameter setters by handle. Text is cut to max_len. */
void db_bind_set_null(db_stmt_t *stmt, int handle);
void db_bind_set_int(db_stmt_t *stmt, int handle, int64_t v);
void db_bind_set_double(db_stmt_t *stmt, int handle, double v);
void db_bind_set_str(db_stmt_t *stmt, int handle, const char *s, size_t len);
/* Fills a text parameter from a sb_rand_str() pattern. */
void db_bind_set_rand_str(db_stmt_t *stmt, int handle, const char *fmt);

/* Executes the statement with its current parameters. Result/NULL as
   db_query. */
db_result_t *db_execute(db_stmt_t *stmt);

/* The connection a statement belongs to. */
db_conn_t *db_stmt_connection(db_stmt_t *stmt);

/* True once the connection was closed (API misuse checks). */
bool db_conn_closed(const db_conn_t *con);

/* Whether `con` is inside a transaction block (open or failed) after its
   last statement: 1 yes, 0 no, -1 when the driver cannot tell (no status,
   a pipeline in progress, a closed connection). Owner thread only. */
int db_conn_in_txn(db_conn_t *con);

/* Closes (and frees) a statement. Returns 0. */
int db_close(db_stmt_t *stmt);

/* Next row of `rs` or NULL when none is left. */
db_row_t *db_fetch_row(db_result_t *rs);

/* Frees the result. Returns 0, or 1 with "ALERT: attempt to free an invalid
   result set" if it was not live. */
int db_free_results(db_result_t *rs);

/* Multiple result sets: true if another is pending; db_next_result reads it
   (NULL when none or on error). */
bool db_more_results(db_conn_t *con);
db_result_t *db_next_result(db_conn_t *con);

/*
 * Pipelining (bmk extension; drivers with the pipeline ops, i.e.
 * PostgreSQL). A batch is: db_pipeline_begin, any number of
 * db_pipeline_query / db_pipeline_execute, db_pipeline_sync, then
 * db_pipeline_fetch once per queued statement, in queue order, and once
 * more to reach the sync point, then db_pipeline_end. One round trip per
 * batch. Statements must be prepared before db_pipeline_begin (emulated
 * ones are sent as text). No ROLLBACK is sent on errors: an error aborts
 * the rest of the batch (those statements are skipped silently) and
 * leaves an explicit transaction failed, to be rolled back by the caller
 * after db_pipeline_end.
 * Return values: begin/query/execute/sync/end 0 ok, -1 on error (see
 * db_conn_error; "this driver has no pipeline mode" when unsupported).
 * db_pipeline_fetch returns the next statement's result (counted like
 * db_query's), or NULL: with db_conn_error(con) != 0 when that statement
 * failed, with no error at the sync point. One connection, one thread.
 * Accounting: each statement of the batch is counted when its result is
 * fetched (read/write/other, or an error; the statements an error made
 * the server skip are not counted); with --endpoints each counts one
 * latency value, from the batch's db_pipeline_sync to its result, and the
 * batch counts as one transaction at its sync point (read by the last
 * fetch, by a failing statement's fetch, which reads the rest of the
 * batch first, or by db_pipeline_end for an abandoned batch) when it left
 * the connection outside a transaction block.
 */
int db_pipeline_begin(db_conn_t *con);
int db_pipeline_query(db_conn_t *con, const char *sql, size_t len);
int db_pipeline_execute(db_stmt_t *stmt);
int db_pipeline_sync(db_conn_t *con);
db_result_t *db_pipeline_fetch(db_conn_t *con);
int db_pipeline_end(db_conn_t *con);

/* Bulk insert (sysbench's bulk_insert_*). Return 0 ok, non-zero on error. */
int db_bulk_insert_init(db_conn_t *con, const char *prefix, size_t len);
int db_bulk_insert_next(db_conn_t *con, const char *row, size_t len);
int db_bulk_insert_done(db_conn_t *con);

/* Accessors for FFI (the structs are opaque to scripts). */
int db_conn_error(const db_conn_t *con);          /* db_error_t */
int db_conn_sql_errno(const db_conn_t *con);
const char *db_conn_sql_state(const db_conn_t *con);
const char *db_conn_sql_errmsg(const db_conn_t *con);
/* The last error's whole text as the client library formats it (libpq's
   "ERROR:  message" with its DETAIL, HINT, LINE and caret, CONTEXT lines,
   no final newline), or NULL when the driver keeps none (MySQL, errors
   of the client). Valid until the connection's next operation. */
const char *db_conn_sql_errmsg_full(const db_conn_t *con);
/* 0 for a NULL result (Lua's NULL sql_result of a statement without a
   result set). */
uint64_t db_result_nrows(const db_result_t *rs);
uint32_t db_result_nfields(const db_result_t *rs);
/* The name of column i (0-based) of a result set while it is live, or
   NULL (no such column, a driver without names, a MySQL prepared
   statement's result). Same thread rules as the result. */
const char *db_result_field_name(const db_result_t *rs, uint32_t i);
/* Value i (0-based) of a fetched row: pointer and *len, or NULL for SQL
   NULL (then *len = 0). */
const char *db_row_value(const db_row_t *row, const db_result_t *rs,
                         uint32_t i, size_t *len);

/* Prints the driver's FATAL lines for the last error of `con`
   (in sysbench 1.1's wording). */
void db_print_error(const db_conn_t *con);

/* ---- helpers for drivers ---------------------------------------------- */

/* Records an error on `con`: errno, SQLSTATE (may be NULL), message (copied),
   API name and query (copied, or "<prepared statement>" when NULL). */
void db_set_error(db_conn_t *con, db_error_t error, int sql_errno,
                  const char *sql_state, const char *msg, const char *api,
                  const char *query, size_t query_len);

/* Keeps `text` (copied; its final newlines dropped) as the whole text of
   the error db_set_error just recorded (db_conn_sql_errmsg_full). */
void db_set_error_full(db_conn_t *con, const char *text);

/* Clears con->error / con->err / con->lost. */
void db_clear_error(db_conn_t *con);

/* Waits once (poll(), blocking the thread) for the request a start /
   continue step left in `con`; returns the ready events (DB_WAIT_*;
   DB_WAIT_TIMEOUT when the timeout passed, 0 when interrupted). */
int db_wait_ready(const db_conn_t *con);

/* Drives a start/continue pair to completion with poll() on con->wait_fd.
   `step` is the first step's return value; `cont` is called with the ready
   events. Returns when DB_STEP_DONE. */
void db_step_blocking(db_conn_t *con, db_step_t step,
                      db_step_t (*cont)(void *obj, int ready), void *obj);

/* Shared "next endpoint" cursor for host/port/socket lists: returns an index
   in [0, n) that advances by one per call, under a lock. Thread-safe. */
unsigned db_next_endpoint(unsigned n);

/* Registers the predicate that tells the generic layer whether a lost
   connection (an ignorable "lost" error) should still be rebuilt with
   back-off: the engine passes "running and not stopping", so reconnect attempts end
   with the run. The SQL layer never calls up into the engine itself.
   NULL (the default) = never retry. Thread-safe (atomic). */
void db_set_retry_predicate(bool (*fn)(void));

/* Registers the check made before every new connection (the engine's
   file-descriptor budget): it returns 0 to allow it, non-zero to refuse
   (it prints why, once). NULL (the default) = always allowed.
   Thread-safe (atomic). */
void db_set_connect_check(int (*fn)(void));

/* --db-connect-timeout / --db-query-timeout in whole seconds (0 = no
   limit), read when the first driver is created. Thread-safe. */
unsigned db_connect_timeout_s(void);
unsigned db_query_timeout_s(void);

/* Drivers and the generic layer: the operation in progress on `con` got
   no answer within the timeout (`connecting`: --db-connect-timeout, else
   --db-query-timeout) and its socket was shut down. Turns the error the
   driver recorded into a timeout: message "no answer from the server
   within N s (--db-...-timeout)", con->timed_out and con->lost set, class
   ignorable when the driver's timeout_ignorable() says so (else fatal).
   Keeps the driver's errno, SQLSTATE, API name and query text. The
   connection's thread only. */
void db_mark_timeout(db_conn_t *con, bool connecting);

/* Drivers, for a failed connect: true when it failed because it got no
   answer within --db-connect-timeout (the generic layer's deadline, or a
   blocking connect that lasted the whole limit; the driver set
   con->op_start_ns = sb_now_ns() when it began). */
bool db_connect_timed_out(const db_conn_t *con);

/* Drivers: prints "no answer from <where> within N s (--db-connect-timeout)
   ..." as a FATAL line when db_connect_timed_out(con), unless connect
   errors are quiet. `where` names the server ("host '...', port N"). */
void db_print_connect_timeout(const db_conn_t *con, const char *where);

/* True when --db-ps-mode=disable. */
bool db_ps_disabled(void);

/* Debug flag (--db-debug). */
bool db_debug(void);

#endif
