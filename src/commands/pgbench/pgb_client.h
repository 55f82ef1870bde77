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
  char *str;               /* its text (heap), or NULL: see num_text */
  bool has_value;          /* value is known (else parse str on use) */
  bool num_text;           /* value's text is in num (str is NULL) */
  pgs_value_t value;
  /* the text of a value, made on first use when it fits: a \set then
     costs no malloc/free per transaction */
  char num[32];
} pgb_var_t;

/* Slots of a client's variable lookup cache (pgb_vars.c). */
#define PGB_VAR_CACHE 64

/* Per-command counters for -r (microseconds). */
typedef struct {
  int64_t count;
  double sum;
  double sum_ns;           /* the same in nanoseconds (bmk's face) */
  int64_t failures;
  int64_t retries;
} pgb_cmdstat_t;

struct pgb_client;

/* The results of the SQL command being run, as they come (db_query_each's
   function): where the command is, how many results came before, and
   the first failure of storing them. */
typedef struct {
  struct pgb_client *c;
  const pgb_cmd_t *cmd;
  unsigned s, i, qry;
  bool failed;
} pgb_results_t;

/* What a paused transaction waits for (pgb_tx_t.wait). */
enum { PGB_W_NONE, PGB_W_SQL, PGB_W_SLEEP, PGB_W_PIPE, PGB_W_ROLLBACK };

/* A transaction's progress through its script (pgb_client.c), kept in
   the client so that it can pause on an event loop and go on later. */
typedef struct {
  unsigned s, i, tries;
  int64_t start_us;
  int64_t t0;              /* the current command's start (ns, -r) */
  pgs_prng_t start_rs;     /* the random state at its first try */
  bool in_block;           /* -d: a transaction block was open when the
                              current SQL command was sent */
  int wait;                /* PGB_W_*: what it waits for */
  pgb_results_t r;         /* the current SQL command's results */
  char *sql;               /* -M simple: the text sent, until its end */
  db_result_t *rs;         /* thread mode: the last operation's result */
  /* \endpipeline (pgb_pipeline.c): the result read next (the sync point
     after the last), whether the ROLLBACK after a failure is under way,
     and the first failure: its SQLSTATE, message and command */
  unsigned pk;
  bool prollback;
  char pstate[8];
  char *pmsg;
  unsigned pfailed_at;
  /* a MySQL lock wait timeout (PGB_LOCK_WAIT_TIMEOUT) while the
     client's ROLLBACK runs (PGB_W_ROLLBACK): its kind; its message is
     in pmsg */
  int fkind;
} pgb_tx_t;

/* MySQL/MariaDB's lock wait timeout (ER_LOCK_WAIT_TIMEOUT). InnoDB ends
   only the statement that waited (innodb_rollback_on_timeout is off by
   default), so the client rolls its transaction back itself before the
   retry or the failure; it is retried and counted as a deadlock failure
   (docs/pgbench.md "pgbench scripts as a bmk workload"). */
#define PGB_LOCK_WAIT_TIMEOUT 1205

typedef struct pgb_client {
  int id;                  /* pgbench's client id (0-based) */
  int tid;                 /* the engine's VU running it */
  int thread;              /* the pgbench thread (-j) it belongs to */
  db_conn_t *con;
  db_stmt_t **stmts;       /* prepared statements by command index */
  pgb_var_t *vars;
  unsigned nvars, capvars;
  /* variable lookups by the name's address (pgb_vars.c): the address
     and the variable's index; a hit is checked with strcmp, so a reused
     address costs a miss only */
  struct { const char *key; unsigned idx; } vcache[PGB_VAR_CACHE];
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
  /* the transaction under way, and where its event is (pgb_run.c:
     PGB_EV_*, the script chosen, the -R slot waited for) */
  pgb_tx_t tx;
  int ev_wait;
  unsigned ev_script;
  int64_t ev_slot;
  /* bmk's face: each command's latencies (ns),
     written by the client's thread only (readers: sb_hdr_add) */
  sb_hdr_t **cmd_hist;
} pgb_client_t;

/* Outcome of one transaction. */
/* DROPPED: an error when the run's time was up (neither retried nor
   counted, as pgbench does). */
/* WAIT: on an event loop, it waits (the wait is armed on the loop);
   pgb_client_resume goes on with it. */
typedef enum { PGB_TX_OK, PGB_TX_FAILED, PGB_TX_ABORTED, PGB_TX_DROPPED,
               PGB_TX_WAIT } pgb_txres_t;

/* Sets variable `name` to a value / a string. False (after pgbench's
   message "CONTEXT: invalid variable name", `context` naming who set
   it: "set", "option", "gset") when the name is invalid or memory runs
   out. Owner thread. */
bool pgb_var_set_value(pgb_client_t *c, const char *name, const pgs_value_t *v);
bool pgb_var_set_str(pgb_client_t *c, const char *context, const char *name, const char *s);

/* ---- pgb_vars.c: the rest of the variables ---- */

/* Variable `name`'s text (made from its value when needed), or NULL when
   it is not set. The text may live in the variables' array: use or copy
   it before the next variable is created. Owner thread. */
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
   message (the client must stop). In thread mode every wait is waited
   in place; on an event loop (pgb_cfg.evloop) a statement's answer or a
   \sleep is armed on the loop and PGB_TX_WAIT returned: the loop calls
   pgb_client_resume when it is over. Owner thread. */
pgb_txres_t pgb_client_run(pgb_client_t *c, unsigned s, int64_t start_us);

/* Goes on with the transaction that returned PGB_TX_WAIT once its wait
   is over (`value` 0: the run's stop cut a \sleep short, which ends it
   as thread mode's early wake does). Same returns as pgb_client_run.
   Owner thread. */
pgb_txres_t pgb_client_resume(pgb_client_t *c, int value);

/* The client's SQL operations (pgb_client_op). */
typedef enum { PGB_OP_QUERY, PGB_OP_EXECUTE, PGB_OP_FETCH } pgb_op_t;

/* Runs SQL operation `op` on the client's connection: text `sql` (with
   `each`, the results before the last go to the running command's
   \gset/\aset, -M simple), statement `st`, or the next result of a
   pipeline. In thread mode the blocking form, false (done). On an event
   loop the asynchronous form (db_async.h): true when the loop waits for
   it (the transaction pauses), false when it is done. Either way the
   outcome is then pgb_client_result's. `sql` must stay valid until it
   is done. Owner thread. */
bool pgb_client_op(pgb_client_t *c, pgb_op_t op, db_stmt_t *st, const char *sql, bool each);

/* The result of the client's last pgb_client_op once done (NULL on an
   error, on the connection). Owner thread. */
db_result_t *pgb_client_result(pgb_client_t *c);

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

/* \endpipeline at command `i`: sends the sync and reads every result
   (`resume` false), or goes on reading them after a wait (`resume`
   true). 0 when all succeeded; 1 when one failed with a serialization
   failure or a deadlock (*kind 1 or 2, its message in c->tx.pmsg, which
   the caller frees; an open transaction is rolled back); -1 after the
   abort message (another error); 2 when it waits (pgb_client_op). */
int pgb_pipe_end(pgb_client_t *c, unsigned s, unsigned i, int *kind, bool resume);

/* ---- pgb_client_count.c: what a client counts (its own thread; the
   counters the reporter reads are taken under c->lock) ---------------- */

/* A command's start and end: CLOCK_MONOTONIC in nanoseconds (divided by
   1000: pgb_now_us's microseconds). Any thread. */
int64_t pgb_cmd_clock(void);

/* -r: global command `gi` ran from `t0` (pgb_cmd_clock) to now: its sum
   in microseconds as pgbench keeps it, its histogram (bmk's face) in
   nanoseconds. Nothing without pgb_cfg.report_per_command. The client's
   thread (c->lock taken). */
void pgb_count_cmd(pgb_client_t *c, unsigned gi, int64_t t0);

/* -r: command `gi` failed its transaction (`retried` false), or had it
   retried. The client's thread (c->lock taken). */
void pgb_count_cmd_error(pgb_client_t *c, unsigned gi, bool retried);

/* Counts the finished transaction of script `s` begun at `start_us`
   (pgb_now_us): kind 0 success, 1 serialization, 2 deadlock failure,
   after `tries` tries; sets c->last_end_us (now), last_latency_us,
   last_kind and last_tries. The client's thread (c->lock taken). */
void pgb_count_tx(pgb_client_t *c, unsigned s, int64_t start_us, int kind, unsigned tries);

/* bmk's retry counts (core/sb_retry.h: the report's, --results' and the
   metrics' retries and failures per code) of an error of kind `kind`
   (1 serialization, 2 deadlock) that ended try `tries`: a failure when
   it is not retried (`retry` false), else a retry, and a retried
   transaction at its first. The code is MySQL's error number `sql_errno`
   when it is not 0, else the kind's SQLSTATE (40001, 40P01). The
   client's thread (sb_retry_count's counters). */
void pgb_count_retry(const pgb_client_t *c, int kind, int sql_errno, unsigned tries, bool retry);

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
