/*
 * One pgbench client: its variables, its connection and what it has
 * measured, and running one transaction (a script's commands) on it
 * (pgb_client.c). Used by pgb_run.c; see pgb.h for the threads.
 */
#ifndef PGB_CLIENT_H
#define PGB_CLIENT_H

#include "commands/pgbench/pgb.h"
#include "core/sb_histogram.h"

typedef struct {
  char *name;
  char *str;               /* its text, or NULL until needed */
  bool has_value;          /* value is known (else parse str on use) */
  pgs_value_t value;
} pgb_var_t;

/* Per-command counters for -r (microseconds). */
typedef struct {
  int64_t count;
  double sum;
  double sum_ns;           /* the same in nanoseconds (bmk's face) */
  int64_t failures;
  int64_t retries;
} pgb_cmdstat_t;

typedef struct {
  int id;                  /* pgbench's client id (0-based) */
  int thread;              /* the pgbench thread (-j) it belongs to */
  db_conn_t *con;
  db_stmt_t **stmts;       /* prepared statements by command index */
  pgb_var_t *vars;
  unsigned nvars, capvars;
  pgs_prng_t rs;           /* the random functions' generator */
  int64_t xacts_done;      /* -t: transactions run so far */
  bool aborted;
  int64_t first_start_us;  /* when its first transaction started */
  int64_t last_end_us;     /* when its last transaction ended */
  double last_latency_us;  /* the last transaction's latency */
  int last_kind;           /* its outcome: 0 ok, 1 serialization, 2 deadlock */
  unsigned last_tries;     /* its tries (1: no retry) */
  double lag_us;           /* -R: the current transaction's schedule lag */
  int64_t conn_us;         /* -C: time spent connecting and disconnecting */
  /* \startpipeline ... \endpipeline: the queued commands (all scripts'
     indexes) */
  bool in_pipeline;
  unsigned *pipe_cmds;
  unsigned npipe;
  /* counters, read by the progress reporter: under `lock` */
  pthread_mutex_t lock;
  pgb_stats_t stats;
  pgb_stats_t *script_stats;   /* per script */
  pgb_cmdstat_t *cmd_stats;    /* per command (all scripts) */
  /* bmk's face: each command's latencies (ns),
     written by the client's thread only (readers: sb_hdr_add) */
  sb_hdr_t **cmd_hist;
} pgb_client_t;

/* Outcome of one transaction. */
/* DROPPED: an error when the run's time was up (neither retried nor
   counted, as pgbench does). */
typedef enum { PGB_TX_OK, PGB_TX_FAILED, PGB_TX_ABORTED, PGB_TX_DROPPED } pgb_txres_t;

/* Sets variable `name` to a value / a string. False (after pgbench's
   message "CONTEXT: invalid variable name", `context` naming who set
   it: "set", "option", "gset") when the name is invalid or memory runs
   out. Owner thread. */
bool pgb_var_set_value(pgb_client_t *c, const char *name, const pgs_value_t *v);
bool pgb_var_set_str(pgb_client_t *c, const char *context, const char *name, const char *s);

/* ---- pgb_vars.c: the rest of the variables ---- */

/* Variable `name`'s text (made from its value when needed), or NULL when
   it is not set. Owner thread. */
const char *pgb_var_text(pgb_client_t *c, const char *name);

/* Evaluates the expression of command `i` (`cmd`, \set, \if or \elif)
   of script `s` with the client's variables and random state: true with
   *out, or false after pgbench's error lines (the client must abort).
   Owner thread. */
bool pgb_var_eval(pgb_client_t *c, unsigned s, unsigned i, const pgb_cmd_t *cmd,
                  pgs_value_t *out);

/* The text of simple-mode SQL command `cmd` with its known :variables
   replaced by their text: a malloc'd string, NULL when memory is short.
   Owner thread. */
char *pgb_var_substitute(pgb_client_t *c, const pgb_cmd_t *cmd);

/* Runs one transaction of script `s` on client `c`, measuring it and its
   commands from `start_us` (microseconds, pgb_now_us). A serialization
   failure or a deadlock is retried from the first command with the
   random state the transaction started with, while --max-tries, -L and
   the run's time allow (pgbench 15's rules), else the transaction
   fails. Returns its outcome: ABORTED after pgbench's "client N aborted"
   message (the client must stop). Owner thread. */
pgb_txres_t pgb_client_run(pgb_client_t *c, unsigned s, int64_t start_us);

/* The statement of SQL command `gi` (all scripts' index) on the client's
   connection, made on first use (-M prepared: prepared on the server;
   -M extended: unnamed, sent with its text at each execution), with the
   values of its variables bound (NULL for one undefined). NULL when it
   cannot be prepared (the error on the connection). Owner thread. */
db_stmt_t *pgb_client_stmt(pgb_client_t *c, unsigned gi, const pgb_cmd_t *cmd);

/* ---- pgb_pipeline.c: \startpipeline and \endpipeline ---------------------- */

/* \startpipeline at command `i` of script `s`: prepares the commands up
   to the \endpipeline and enters pipeline mode. False after pgbench's
   "client N aborted" message. */
bool pgb_pipe_start(pgb_client_t *c, unsigned s, unsigned i);

/* Queues SQL command `i` of script `s` in the pipeline. False after the
   abort message. */
bool pgb_pipe_queue(pgb_client_t *c, unsigned s, unsigned i, const pgb_cmd_t *cmd);

/* \endpipeline at command `i`: sends the sync and reads every result.
   0 when all succeeded; 1 when one failed with a serialization failure
   or a deadlock (*kind 1 or 2; an open transaction is rolled back); -1
   after the abort message (another error). */
int pgb_pipe_end(pgb_client_t *c, unsigned s, unsigned i, int *kind);

/* Counts a transaction of script `s` that -R with -L skipped. */
void pgb_client_skip(pgb_client_t *c, unsigned s);

/* Closes the client's prepared statements and its connection (both
   may be reopened later, -C). The client's own thread. */
void pgb_client_disconnect(pgb_client_t *c);

/* Frees what the client holds (closes its connection). */
void pgb_client_free(pgb_client_t *c);

/* ---- pgb_debug.c: the -d trace of a client (callers test pgb_cfg.debug) -- */

/* "client N executing \NAME ARGS" for meta-command `cmd`: \set shows its
   variable, \sleep and the shell commands their words, the others their
   name alone. One write per line; any thread. */
void pgb_debug_meta(const pgb_client_t *c, const pgb_cmd_t *cmd);

/* "client N sending ..." for SQL command `cmd`: -M simple `text` (the
   command with its variables substituted), -M extended the command with
   $1, $2... for its variables, -M prepared its statement's name P_N.
   One write per line; any thread. */
void pgb_debug_sending(const pgb_client_t *c, const pgb_cmd_t *cmd, const char *text);

/* Monotonic time in microseconds. Thread-safe. */
int64_t pgb_now_us(void);

#endif
