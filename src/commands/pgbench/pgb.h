/*
 * The `pgbench` persona (docs/pgbench.md): bmk run under the name
 * pgbench takes pgbench 15's command line, runs its initialisation and
 * its scripts (the built-in ones and -f files in its script language,
 * src/pgscript/) on bmk's engine, and prints pgbench 15's output.
 *
 * Files: pgb_main.c (the command line), pgb_script.c (scripts: parsing,
 * the built-in ones), pgb_init.c (-i), pgb_client.c (one client running
 * a script's commands; pgb_client_count.c: what it counts), pgb_vars.c (its variables), pgb_pipeline.c
 * (\startpipeline, \endpipeline), pgb_run.c (the run on the engine,
 * seeding, -R, -C, progress lines), pgb_report.c (the final report),
 * pgb_log.c (-l), pgb_debug.c (-d's trace), pgb_additions.c (bmk's
 * own options on the persona's command line).
 *
 * Threads: the configuration and the parsed scripts are written by the
 * main thread before the run and only read afterwards; each client's
 * state belongs to the thread that runs its VU (its own, or the event
 * loop of its -j thread), apart from its counters,
 * which the progress reporter reads under the client's mutex.
 */
#ifndef PGB_H
#define PGB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "drivers/db_driver.h"
#include "pgscript/pgs_expr.h"

#define PGB_MAX_SCRIPTS 128
#define PGB_MAX_ARGS 256         /* arguments of a meta-command, parameters of a query */

typedef enum { PGB_QUERY_SIMPLE, PGB_QUERY_EXTENDED, PGB_QUERY_PREPARED } pgb_qmode_t;

typedef enum {
  PGB_SQL, PGB_SET, PGB_SLEEP, PGB_SETSHELL, PGB_SHELL,
  PGB_IF, PGB_ELIF, PGB_ELSE, PGB_ENDIF, PGB_STARTPIPELINE, PGB_ENDPIPELINE
} pgb_ctype_t;

/* One command of a script. */
typedef struct {
  pgb_ctype_t type;
  char *first_line;        /* as the per-statement report shows it */
  /* PGB_SQL */
  char *sql;               /* the text, :variables in place (simple mode) */
  char *psql;              /* the text with ? for each :variable (MySQL's
                              placeholders) */
  char *nsql;              /* pgbench's text: $1, $2... for the :variables
                              in order of appearance, quoted parts too
                              (PostgreSQL's placeholders) */
  char **params;           /* those variables' names, in order */
  unsigned nparams;
  unsigned prep_no;        /* its number among all scripts' SQL commands
                              (pgbench's prepared statement name P_N) */
  char *gset_prefix;       /* \gset or \aset [prefix] after it, or NULL */
  bool aset;               /* \aset: every result's last row (\gset: the
                              last result's one row) */
  /* PGB_SET, PGB_IF, PGB_ELIF */
  char *var;
  pgs_expr_t *expr;
  /* PGB_SLEEP, PGB_SETSHELL, PGB_SHELL: words after the command name */
  char **argv;
  int argc;
  int64_t sleep_unit_us;   /* \sleep: microseconds per unit */
  /* PGB_IF, PGB_ELIF, PGB_ELSE: index of the next branch (ELIF, ELSE or
     ENDIF) of the same \if */
  unsigned next_branch;
  unsigned endif;          /* the matching \endif */
} pgb_cmd_t;

typedef struct {
  char *desc;              /* "<builtin: TPC-B (sort of)>" or the file name */
  const char *name;        /* the built-in's name ("tpcb-like") or the file
                              name: bmk's event type of its transactions */
  int evtype;              /* that event type's id (bmk's face), else 0 */
  int weight;
  pgb_cmd_t *cmds;
  unsigned ncmds;
  unsigned first;          /* index of its first command among all scripts' */
} pgb_script_t;

/* Latency sums in microseconds, as pgbench keeps them. */
typedef struct {
  int64_t count;
  double min, max, sum, sum2;
} pgb_sstats_t;

/* Transaction counts and latencies (pgbench's StatsData). */
typedef struct {
  int64_t cnt;             /* successful transactions */
  int64_t serialization_failures, deadlock_failures;
  int64_t retries;         /* retries of all transactions */
  int64_t retried;         /* transactions retried at least once */
  int64_t late;            /* successful ones over -L */
  int64_t skipped;         /* -R with -L: started too late, skipped */
  pgb_sstats_t lag;        /* -R: from the schedule to the start */
  pgb_sstats_t latency;
} pgb_stats_t;

/* The run's configuration (pgbench's globals). */
typedef struct {
  int nclients, nthreads, nxacts, duration, scale, progress;
  bool scale_given, is_connect, report_per_command, no_vacuum, vacuum_accounts;
  bool per_script_stats, internal_script_used, progress_timestamp;
  bool debug;              /* -d: pgbench's debug trace (pgb_debug.c) */
  bool evloop;             /* the clients run on event loops (fewer
                              threads than clients): their waits are
                              armed on the loop, not waited in place */
  bool mysql;              /* bmk's face on --db-driver=mysql: the built-in
                              scripts' MySQL dialect (COMMIT for END) */
  bool bmk_face;           /* run by bmk's command line (pgb_bmk.c): the
                              driver of --db-driver, each transaction an
                              engine event of its script's type, a
                              failed one uncounted, an aborted client a
                              failed run, per-command histograms */
  bool stmt_percentiles;   /* the persona with --statement-percentiles=on:
                              per-command histograms and bmk's Statements
                              block (pgb_bmk_stmt.c) after the report;
                              pgbench's -r lines only with -r */
  bool print_per_command;  /* -r: pgbench's per-command lines in its
                              report (report_per_command: the commands
                              are timed, for -r, bmk's face or
                              --statement-percentiles) */
  pgb_qmode_t querymode;
  const char *host, *port, *user, *dbname;
  uint64_t random_seed;    /* the base generator's seed (--random-seed) */
  /* -D NAME=VALUE */
  char **defines;
  unsigned ndefines;
  pgb_script_t scripts[PGB_MAX_SCRIPTS];
  unsigned nscripts;
  int64_t total_weight;
  unsigned ncmds;          /* commands of all scripts */
  unsigned nsql;           /* SQL commands of all scripts */
  /* -R: the delay between a thread's transactions in microseconds (0:
     no rate) */
  double throttle_delay;
  /* retries: --max-tries (0: unlimited), -L in microseconds (0: none) */
  uint32_t max_tries;
  int64_t latency_limit_us;
  bool verbose_errors;
  /* -l and its options */
  bool use_log, failures_detailed;
  int agg_interval;
  double sample_rate;
  const char *log_prefix;
  /* -i */
  bool init;
  char *init_steps;
  int fillfactor;
  bool unlogged, foreign_keys, quiet;
  /* --tablespace and --index-tablespace: the tables' and the primary
     keys' tablespace, as given (NULL: the database's default) */
  const char *tablespace, *index_tablespace;
  /* --partitions of pgbench_accounts (-i), or as found by the run */
  int partitions;
  const char *partition_method;  /* NULL (none), "range" or "hash" */
} pgb_config_t;

extern pgb_config_t pgb_cfg;

/* ---- pgb_main.c ---------------------------------------------------------- */

/* pgbench's messages on stderr, a newline appended: pgb_error prints
   "pgbench: error: " and the message, pgb_warning "pgbench: warning: ",
   pgb_info "pgbench: " (its informational ones). Any thread (one
   fprintf per part: lines of two threads may interleave, as pgbench's). */
void pgb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pgb_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pgb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* NAME[@WEIGHT] of -b and -f (and of bmk's --script, --builtin): the
   weight, 1 without one; *name is malloc'd. Exits 1 after pgbench's
   message on a bad or out-of-range weight. Main thread. */
int pgb_parse_weight(const char *opt, char **name);

/* The query mode named `name` (-M's and bmk's --protocol's simple,
   extended or prepared; NULL: simple, the default) into *mode. Returns
   true, or false, *mode untouched, for any other name (the caller's
   message). Any thread. */
bool pgb_parse_query_mode(const char *name, pgb_qmode_t *mode);

/* ---- pgb_debug.c: the -d trace ------------------------------------------- */

/* One line of pgbench's -d trace on stderr: "pgbench: ", the message and
   a newline, written whole in one write(2) (nothing on a failed
   allocation). Any thread. Call it through PGB_DEBUG, which costs one
   branch when -d is not given. */
void pgb_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define PGB_DEBUG(...) \
  do { if (__builtin_expect(pgb_cfg.debug, 0)) pgb_debug(__VA_ARGS__); } while (0)

/* The last SQL error of `con` as pgbench prints it: libpq's whole
   message ("ERROR:  " and the message, then its DETAIL, HINT, LINE and
   caret, CONTEXT lines), or when the driver kept none "ERROR:  " and
   the message (the message alone for an error without an SQLSTATE). A buffer of the calling thread, valid until its next call. */
const char *pgb_sql_error(const db_conn_t *con);

/* Runs `sql` on `con` (its result, if any, freed). Returns true, or false
   after pgbench's "query failed" lines on stderr, the query shown up to
   `shown` bytes (negative: whole, as pgbench shows it). Thread-safe for
   distinct connections. */
bool pgb_exec(db_conn_t *con, const char *sql, int shown);

/* Connects with the persona's libpq options (-h -p -U -d and the PG*
   environment): the connection, or NULL after pgbench's error line. On
   event loops (pgb_cfg.evloop) a MySQL connection is made through the
   asynchronous connect, driven in place, so that the asynchronous forms
   may use it. Any thread. */
db_conn_t *pgb_connect(void);

/* The persona's driver options, once: the process's option registry
   begun anew (sb_opt_init) with the driver's options, set to what -h -p
   -U and the database name give, else empty (libpq then reads PGHOST,
   PGUSER, PGPASSWORD, ... itself). pgb_connect calls it; bmk's additions
   register their options after it. Returns 0, or non-zero after the
   driver's message. Main thread. */
int pgb_setup_driver(void);

/* ---- pgb_script.c -------------------------------------------------------- */

/* Parses `text` (a script named `desc`, for messages) and adds it with
   `weight`. Exits with status 1 after pgbench's message on a syntax
   error, as pgbench does. Main thread. */
void pgb_script_add(const char *text, const char *desc, int weight);

/* Adds the built-in script `name` (a unique prefix of tpcb-like,
   simple-update, select-only): exits 1 with pgbench's message and the
   list when none or several match. */
void pgb_script_add_builtin(const char *name, int weight);

/* Reads and adds the script file `path` ("-" is stdin); exits 1 when it
   cannot be read. */
void pgb_script_add_file(const char *path, int weight);

/* Prints the built-in scripts' list (-b list) to stderr. */
void pgb_script_list(void);

/* Prints built-in script `name` (--show-script) to stderr; exits 1 when
   unknown. */
void pgb_script_show(const char *name);

/* ---- pgb_init.c ---------------------------------------------------------- */

/* Runs the -i steps (pgb_cfg.init_steps). Returns the exit status. */
int pgb_init_run(void);

/* Checks an -I value: 0, or 1 after pgbench's message. */
int pgb_init_check_steps(const char *steps);

/* ---- pgb_init_mysql.c ---------------------------------------------------- */

/* pgbench's tables and rows at pgb_cfg.scale on MySQL/MariaDB (bmk's
   face: drop, create with primary keys, client-side rows, ANALYZE).
   Returns the exit status (1 after pgbench's "query failed" lines). */
int pgb_init_mysql_run(void);

/* ---- pgb_run.c ----------------------------------------------------------- */

/* Runs the benchmark (after the options were checked). Returns the exit
   status: 0, 1 (setup failed), 2 (a client aborted). */
int pgb_run(void);

/* The scale of the built-in scripts from pgbench_branches' rows on `con`
   (pgb_cfg.scale; partitions noted for the report); does nothing when
   no built-in script runs. Returns 0, or 1 after pgbench's messages
   (`hint` the command that makes the tables). Main thread. */
int pgb_run_table_info(db_conn_t *con, const char *hint);

/* The clients (pgb_cfg.nclients), their seeds and variables as pgbench
   seeds them, before the engine starts; with pgb_cfg.bmk_face also a
   histogram per command. Returns 0, or 1 when memory is short. Main
   thread. */
int pgb_run_init_clients(void);

/* Frees the clients (after the run). Main thread. */
void pgb_run_free_clients(void);

/* The engine's test callbacks of a run (sb_c_test_t): a client's
   connection, one transaction as the VU's event (0 go on, 1 the client
   is done, -1 under bmk's face when it aborted), its disconnection. VU
   threads. On event loops (pgb_cfg.evloop) pgb_run_event is also the
   test's event_begin: it may return SB_CT_WAIT with a wait armed (a -R
   slot, a statement's answer, a \sleep), and pgb_run_event_resume
   (event_resume) goes on with the transaction once it is over. In
   thread mode no wait is armed: each is waited in place. */
int pgb_run_thread_init(int tid);
int pgb_run_event(int tid);
int pgb_run_event_resume(int tid, int value);
int pgb_run_thread_done(int tid);

/* Where a client's event is while it waits (pgb_client_t.ev_wait). */
enum { PGB_EV_NONE, PGB_EV_SLOT, PGB_EV_TX };

#endif
