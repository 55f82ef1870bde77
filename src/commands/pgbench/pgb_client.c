/*
 * One pgbench client running one transaction (its variables:
 * pgb_vars.c): the meta-commands (\set, \sleep, \if, \shell,
 * \setshell), the SQL commands in the three query modes with \gset and
 * \aset, and what it counts, with pgbench 15's error
 * messages and outcomes: a serialization failure (40001) or a deadlock
 * (40P01) fails the transaction (the driver rolls it back) and the client
 * goes on, as after MySQL's lock wait timeout (the client rolls it back);
 * any other error aborts the client. See pgb_client.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands/pgbench/pgb_client.h"
#include "commands/pgbench/pgb_report.h"
#include "drivers/db_async.h"
#include "engine/sb_engine.h"
#include "engine/sb_loop.h"

int64_t pgb_now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* \sleep: the pause in microseconds, or -1 after the messages. */
static int64_t sleep_us(pgb_client_t *c, unsigned s, unsigned i, const pgb_cmd_t *cmd)
{
  const char *a = cmd->argv[0];
  int64_t n;
  if (a[0] == ':')
  {
    const char *t = pgb_var_text(c, a + 1);
    if (t == NULL)
    {
      pgb_error("%s: undefined variable \"%s\"", "sleep", a + 1);
      pgb_error("client %d aborted in command %u (sleep) of script %u; execution of meta-command failed",
                c->id, i, s);
      return -1;
    }
    n = strtoll(t, NULL, 10);
  }
  else
    n = strtoll(a, NULL, 10);
  return n * cmd->sleep_unit_us;
}

/* \shell and \setshell: the words joined (":var" substituted, "::x" is
   ":x"), run by the shell; \setshell stores its integer output. */
static bool run_shell(pgb_client_t *c, const pgb_cmd_t *cmd)
{
  bool set = cmd->type == PGB_SETSHELL;
  /* pgbench names the shell command in its messages */
  const char *name = cmd->argv[set ? 1 : 0];
  char line[256];
  size_t len = 0;
  for (int k = set ? 1 : 0; k < cmd->argc; k++)
  {
    const char *w = cmd->argv[k];
    if (w[0] == ':' && w[1] == ':')
      w++;
    else if (w[0] == ':' && (w = pgb_var_text(c, w + 1)) == NULL)
    {
      pgb_error("%s: undefined variable \"%s\"", name, cmd->argv[k]);
      return false;
    }
    size_t wl = strlen(w);
    if (len + wl + 1 >= sizeof(line) - 1)
    {
      pgb_error("%s: shell command is too long", name);
      return false;
    }
    if (len)
      line[len++] = ' ';
    memcpy(line + len, w, wl);
    len += wl;
  }
  line[len] = '\0';
  fflush(NULL);
  if (!set)
  {
    if (system(line) != 0)
    {
      pgb_error("%s: could not launch shell command", name);
      return false;
    }
    return true;
  }
  FILE *p = popen(line, "r");
  char res[64];
  if (p == NULL)
  {
    pgb_error("%s: could not launch shell command", name);
    return false;
  }
  if (fgets(res, sizeof(res), p) == NULL)
  {
    pgb_error("%s: could not read result of shell command", name);
    pclose(p);
    return false;
  }
  pclose(p);
  char *end;
  long v = strtol(res, &end, 10);
  while (*end && isspace((unsigned char) *end))
    end++;
  if (*res == '\0' || *end != '\0')
  {
    pgb_error("%s: shell command must return an integer (not \"%s\")", name, res);
    return false;
  }
  pgs_value_t val = {.type = PGS_INT, .u.i = (int) v};
  if (!pgb_var_set_value(c, cmd->argv[0], &val))
    return false;
  /* pgbench names the shell command's first two words here (glibc's
     "(null)" for a missing second one) and shows the output as read,
     its newline included */
  PGB_DEBUG("%s: shell parameter name: \"%s\", value: \"%s\"", name,
            cmd->argc > 2 ? cmd->argv[2] : "(null)", res);
  return true;
}

typedef pgb_results_t results_t;

/* Result number r->qry of the command: \gset stores the last one's only
   row (none or several: pgbench's error), \aset every one's last row (no
   row: nothing), into variables PREFIXcolumn. False after the message. */
static bool store_result(results_t *r, db_result_t *rs, bool last)
{
  const pgb_cmd_t *cmd = r->cmd;
  if (r->failed || cmd->gset_prefix == NULL || (!cmd->aset && !last))
    return !r->failed;
  uint64_t rows = db_result_nfields(rs) > 0 ? db_result_nrows(rs) : 0;
  if (!cmd->aset && rows != 1)
  {
    pgb_error("client %d script %u command %u query %u: expected one row, got %" PRIu64,
              r->c->id, r->s, r->i, r->qry, rows);
    return !(r->failed = true);
  }
  db_row_t *row = NULL;
  for (uint64_t k = 0; k < rows; k++)
    row = db_fetch_row(rs);
  for (uint32_t f = 0; row && f < db_result_nfields(rs); f++)
  {
    const char *col = db_result_field_name(rs, f);
    char name[256];
    size_t len;
    const char *v = db_row_value(row, rs, f, &len);
    snprintf(name, sizeof(name), "%s%s", cmd->gset_prefix, col ? col : "?column?");
    char *val = strndup(v ? v : "", v ? len : 0);
    bool ok = val && pgb_var_set_str(r->c, cmd->aset ? "aset" : "gset", name, val);
    free(val);
    if (!ok)
    {
      pgb_error("client %d script %u command %u query %u: error storing into variable %s",
                r->c->id, r->s, r->i, r->qry, name);
      return !(r->failed = true);
    }
  }
  return true;
}

/* db_query_each's function: a result before the last. */
static void each_result(db_result_t *rs, void *arg)
{
  results_t *r = arg;
  store_result(r, rs, false);
  r->qry++;
}

/* Command `cmd`'s statement on the client's connection: -M extended an
   unnamed one, -M prepared one prepared under pgbench's name P_N. Its
   text is the driver's own: pgbench's, with $1, $2... (PostgreSQL),
   sent as written, or ? for each :variable (MySQL). As in pgbench, a
   statement the server refuses to prepare is reported on a line of its
   own and then executed by that name all the same (the server's error
   then aborts the client). NULL when it cannot be made. */
static db_stmt_t *make_stmt(pgb_client_t *c, const pgb_cmd_t *cmd)
{
  const char *text = pgb_cfg.mysql ? cmd->psql : cmd->nsql;
  size_t len = strlen(text);
  if (pgb_cfg.querymode == PGB_QUERY_EXTENDED)
    return db_prepare_native(c->con, DB_PREP_UNNAMED, NULL, text, len, cmd->nparams);
  char name[24];
  snprintf(name, sizeof(name), "P_%u", cmd->prep_no);
  db_stmt_t *st = db_prepare_native(c->con, DB_PREP_AS, name, text, len, cmd->nparams);
  if (st != NULL || db_conn_sql_state(c->con)[0] == '\0')
    return st;
  pgb_error("%s", pgb_sql_error(c->con));
  return db_prepare_native(c->con, DB_PREP_ELSEWHERE, name, text, len, cmd->nparams);
}

db_stmt_t *pgb_client_stmt(pgb_client_t *c, unsigned gi, const pgb_cmd_t *cmd)
{
  db_stmt_t *st = c->stmts[gi];
  if (st == NULL)
  {
    if (pgb_cfg.querymode == PGB_QUERY_PREPARED)
      PGB_DEBUG("client %d preparing P_%u", c->id, cmd->prep_no);
    st = make_stmt(c, cmd);
    if (st == NULL)
      return NULL;
    int handles[PGB_MAX_ARGS];
    for (unsigned k = 0; k < cmd->nparams; k++)
      handles[k] = db_bind_create(st, DB_TYPE_VARCHAR, 65536);
    if (cmd->nparams && db_bind_order(st, handles, cmd->nparams) != 0)
    {
      db_close(st);
      return NULL;
    }
    c->stmts[gi] = st;
  }
  for (unsigned k = 0; k < cmd->nparams; k++)
  {
    const char *t = pgb_var_text(c, cmd->params[k]);
    if (t)
      db_bind_set_str(st, (int) k, t, strlen(t));
    else
      db_bind_set_null(st, (int) k);
  }
  return st;
}

bool pgb_client_op(pgb_client_t *c, pgb_op_t op, db_stmt_t *st, const char *sql, bool each)
{
  db_conn_t *con = c->con;
  size_t len = sql ? strlen(sql) : 0;
  if (!pgb_cfg.evloop)
  {
    c->tx.rs = op == PGB_OP_EXECUTE ? db_execute(st)
      : op == PGB_OP_FETCH ? db_pipeline_fetch(con)
      : db_query_each(con, sql, len, each ? each_result : NULL, &c->tx.r);
    return false;
  }
  con->each_result = each ? each_result : NULL;
  con->each_arg = &c->tx.r;
  int step = op == PGB_OP_EXECUTE ? db_execute_start(st)
    : op == PGB_OP_FETCH ? db_pipeline_fetch_start(con) : db_query_start(con, sql, len);
  return step != DB_STEP_DONE && sb_vu_await(con, step, true) != 0;
}

db_result_t *pgb_client_result(pgb_client_t *c)
{
  if (!pgb_cfg.evloop)
    return c->tx.rs;
  c->con->each_result = NULL;
  c->con->each_arg = NULL;
  return db_async_result(c->con);
}

/* A pause of `us` microseconds (> 0) of the client: true when it is
   armed on the event loop (the transaction pauses), false when it was
   waited in place (thread mode) or the run is stopping. */
static bool pause_us(pgb_client_t *c, int64_t us)
{
  if (pgb_cfg.evloop)
    return sb_vu_sleep((double) us / 1e6) == 1;
  sb_engine_sleep(c->tid, (double) us / 1e6);
  return false;
}

/* Runs SQL command `gi` (index among all scripts' commands), as
   pgb_client_op: -M simple its text, the results before the last to
   each_result; else its statement. Returns 1 when it waits (event loop),
   0 when it is done, -1 when it could not start (the error is on the
   connection). With -d, pgbench's "receiving" line is printed twice,
   here and when the result is read: its client looks for the result
   once right after sending, when it has not come yet, and again when it
   has. */
static int sql_start(pgb_client_t *c, unsigned gi, const pgb_cmd_t *cmd)
{
  pgb_tx_t *tx = &c->tx;
  if (pgb_cfg.querymode == PGB_QUERY_SIMPLE)
  {
    tx->sql = pgb_var_substitute(c, cmd);
    if (tx->sql == NULL)
      return -1;
    if (pgb_cfg.debug)
    {
      pgb_debug_sending(c, cmd, tx->sql);
      pgb_debug("client %d receiving", c->id);
    }
    return pgb_client_op(c, PGB_OP_QUERY, NULL, tx->sql, true);
  }
  db_stmt_t *st = pgb_client_stmt(c, gi, cmd);
  if (st == NULL)
    return -1;
  if (pgb_cfg.debug)
  {
    pgb_debug_sending(c, cmd, NULL);
    pgb_debug("client %d receiving", c->id);
  }
  return pgb_client_op(c, PGB_OP_EXECUTE, st, NULL, false);
}

/* The outcome of the SQL command tx->i sent (`started`: an operation
   was started and is done): 0 ok, 1 failed transaction (serialization
   or deadlock, counted in *kind: 1 or 2; MySQL's lock wait timeout is
   a deadlock), -1 aborted. */
static int sql_result(pgb_client_t *c, bool started, int *kind)
{
  pgb_tx_t *tx = &c->tx;
  results_t *r = &tx->r;
  db_result_t *rs = started ? pgb_client_result(c) : NULL;
  free(tx->sql);
  tx->sql = NULL;
  if (started)
    PGB_DEBUG("client %d receiving", c->id);
  if (rs != NULL)
  {
    bool ok = store_result(r, rs, true);
    if (db_result_nfields(rs) > 0)
      db_free_results(rs);
    return ok ? 0 : -1;
  }
  if (r->failed)
    return -1;
  const char *state = db_conn_sql_state(c->con);
  if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0))
  {
    *kind = state[2] == '0' ? 1 : 2;
    return 1;
  }
  if (db_conn_sql_errno(c->con) == PGB_LOCK_WAIT_TIMEOUT)
  {
    *kind = 2;
    return 1;
  }
  pgb_error("client %d script %u aborted in command %u query %u: %s", c->id, tx->s, tx->i,
            r->qry, pgb_sql_error(c->con));
  return -1;
}

/* Where a false \if / \elif goes: the next branch (an \elif is
   evaluated, an \else entered), or past the \endif. */
static int branch(pgb_client_t *c, unsigned s, unsigned i, const pgb_cmd_t *cmds, unsigned *next)
{
  for (;;)
  {
    const pgb_cmd_t *cmd = &cmds[i];
    pgs_value_t v;
    if (cmd->type == PGB_ELIF || cmd->type == PGB_IF)
    {
      int64_t t0 = pgb_cmd_clock();
      if (pgb_cfg.debug)
        pgb_debug_meta(c, cmd);
      if (!pgb_var_eval(c, s, i, cmd, &v))
        return -1;
      pgb_count_cmd(c, pgb_cfg.scripts[s].first + i, t0);
      bool t = v.type == PGS_BOOL ? v.u.b : v.type == PGS_INT ? v.u.i != 0
        : v.type == PGS_DOUBLE ? v.u.d != 0.0 : false;
      if (t)
      {
        *next = i + 1;
        return 0;
      }
      i = cmd->next_branch;
      continue;
    }
    *next = i + 1;              /* \else or \endif */
    return 0;
  }
}

/* pgbench's doRetry: may a transaction that failed on its try `tries`
   (started at start_us) be run again? */
static bool may_retry(unsigned tries, int64_t start_us)
{
  if (pgb_cfg.max_tries == 1 || (pgb_cfg.max_tries > 0 && tries >= pgb_cfg.max_tries))
    return false;
  if (pgb_cfg.latency_limit_us > 0 && pgb_now_us() - start_us > pgb_cfg.latency_limit_us)
    return false;
  return !sb_engine_stopping();
}

/* --verbose-errors: what happens to the transaction after its error. */
static void verbose_error(const pgb_client_t *c, bool retry, unsigned tries, int64_t start_us)
{
  char buf[256];
  int n = snprintf(buf, sizeof(buf), "client %d %s (try %u", c->id,
                   retry ? "repeats the transaction after the error" : "ends the failed transaction",
                   tries);
  if (pgb_cfg.max_tries)
    n += snprintf(buf + n, sizeof(buf) - (size_t) n, "/%u", pgb_cfg.max_tries);
  if (pgb_cfg.latency_limit_us)
    n += snprintf(buf + n, sizeof(buf) - (size_t) n,
                  ", %.3f%% of the maximum time of tries was used",
                  100.0 * (double) (pgb_now_us() - start_us) / (double) pgb_cfg.latency_limit_us);
  snprintf(buf + n, sizeof(buf) - (size_t) n, ")");
  pgb_info("%s", buf);
}

typedef pgb_tx_t tx_t;

/* After a serialization failure or a deadlock (kind 1 or 2, MySQL's
   error number `sql_errno` or 0, its message `msg`) in command tx->i (an
   SQL command, or the \endpipeline of a failed pipeline): the
   transaction is retried (tx back at its first command, true) or it
   ends (*res set, false). */
static bool sql_error(pgb_client_t *c, tx_t *tx, int kind, int sql_errno, const char *msg,
                      pgb_txres_t *res)
{
  unsigned gi = pgb_cfg.scripts[tx->s].first + tx->i;
  if (pgb_cfg.verbose_errors)
    pgb_info("client %d got an error in command %u (SQL) of script %u; %s", c->id,
             tx->i, tx->s, msg);
  /* the error left the block failed: pgbench sends ROLLBACK and waits
     for its result (the driver has rolled back already) */
  if (tx->in_block)
  {
    pgb_debug("client %d receiving", c->id);
    pgb_debug("client %d receiving", c->id);
  }
  if (sb_engine_stopping() && pgb_cfg.duration > 0)
  {
    *res = PGB_TX_DROPPED;
    return false;
  }
  bool retry = may_retry(tx->tries, tx->start_us);
  if (pgb_cfg.verbose_errors)
    verbose_error(c, retry, tx->tries, tx->start_us);
  pgb_count_cmd_error(c, gi, retry);
  pgb_count_retry(c, kind, sql_errno, tx->tries, retry);
  if (!retry)
  {
    pgb_count_tx(c, tx->s, tx->start_us, kind, tx->tries);
    *res = PGB_TX_FAILED;
    return false;
  }
  /* again from the start, drawing the same random numbers */
  tx->tries++;
  c->rs = tx->start_rs;
  tx->i = 0;
  return true;
}

/* Runs the meta-command tx->i that is no conditional and no \sleep:
   false after pgbench's messages (the client aborts). */
static bool run_meta(pgb_client_t *c, tx_t *tx, const pgb_cmd_t *cmd)
{
  pgs_value_t v;
  if (pgb_cfg.debug)
    pgb_debug_meta(c, cmd);
  switch (cmd->type)
  {
    case PGB_SET:
      if (!pgb_var_eval(c, tx->s, tx->i, cmd, &v))
        return false;
      if (!pgb_var_set_value(c, cmd->var, &v))
      {
        pgb_error("client %d aborted in command %u (set) of script %u; assignment of meta-command failed",
                  c->id, tx->i, tx->s);
        return false;
      }
      return true;
    default:                    /* \shell, \setshell */
      if (run_shell(c, cmd))
        return true;
      pgb_error("client %d aborted in command %u (%s) of script %u; execution of meta-command failed",
                c->id, tx->i, cmd->type == PGB_SHELL ? "shell" : "setshell", tx->s);
      return false;
  }
}

/* Command tx->i is done: counted (-r), the transaction goes to the next. */
static void cmd_done(pgb_client_t *c)
{
  pgb_count_cmd(c, pgb_cfg.scripts[c->tx.s].first + c->tx.i, c->tx.t0);
  c->tx.i++;
}

/* The ROLLBACK after a lock wait timeout is done (now, or after its
   wait on the loop): the failure goes on as sql_error's (true: retried),
   or the client aborts when the ROLLBACK failed (false, *res). */
static bool timeout_rolled_back(pgb_client_t *c, pgb_txres_t *res)
{
  tx_t *tx = &c->tx;
  db_result_t *rs = pgb_client_result(c);
  bool go = false;
  *res = PGB_TX_ABORTED;
  if (rs == NULL)
    pgb_error("client %d script %u aborted in command %u query %u: %s", c->id, tx->s, tx->i,
              0, pgb_sql_error(c->con));
  else
  {
    if (db_result_nfields(rs) > 0)
      db_free_results(rs);
    go = sql_error(c, tx, tx->fkind, PGB_LOCK_WAIT_TIMEOUT,
                   tx->pmsg ? tx->pmsg : "out of memory", res);
  }
  free(tx->pmsg);
  tx->pmsg = NULL;
  return go;
}

/* MySQL's lock wait timeout (kind `kind`) in SQL command tx->i: InnoDB
   keeps the transaction open, so ROLLBACK is sent first (the message
   kept in tx->pmsg meanwhile); as sql_done, *res PGB_TX_WAIT while the
   ROLLBACK waits on the loop. */
static bool lock_timeout(pgb_client_t *c, tx_t *tx, int kind, pgb_txres_t *res)
{
  static const char rollback[] = "ROLLBACK";
  free(tx->pmsg);
  tx->pmsg = strdup(pgb_sql_error(c->con));
  tx->fkind = kind;
  if (pgb_client_op(c, PGB_OP_QUERY, NULL, rollback, false))
  {
    tx->wait = PGB_W_ROLLBACK;
    *res = PGB_TX_WAIT;
    return false;
  }
  return timeout_rolled_back(c, res);
}

/* SQL command tx->i's outcome is in (`started`: see sql_result): true
   when the transaction goes on (tx->i at the next command, or at the
   first for a retry), false when it ends with *res. */
static bool sql_done(pgb_client_t *c, bool started, pgb_txres_t *res)
{
  tx_t *tx = &c->tx;
  int kind = 0, rc = sql_result(c, started, &kind);
  *res = PGB_TX_ABORTED;
  if (rc < 0)
    return false;
  if (rc > 0)
  {
    int e = db_conn_sql_errno(c->con);
    if (e == PGB_LOCK_WAIT_TIMEOUT)
      return lock_timeout(c, tx, kind, res);
    return sql_error(c, tx, kind, e, pgb_sql_error(c->con), res);
  }
  cmd_done(c);
  return true;
}

/* Runs SQL command tx->i (queued when a pipeline is open): true when
   the transaction goes on, false when it ends with *res or waits
   (*res PGB_TX_WAIT). */
static bool sql_step(pgb_client_t *c, tx_t *tx, const pgb_cmd_t *cmd, pgb_txres_t *res)
{
  unsigned gi = pgb_cfg.scripts[tx->s].first + tx->i;
  *res = PGB_TX_ABORTED;
  if (c->in_pipeline)
  {
    if (!pgb_pipe_queue(c, tx->s, tx->i, cmd))
      return false;
    cmd_done(c);
    return true;
  }
  tx->in_block = pgb_cfg.debug && db_conn_in_txn(c->con) == 1;
  tx->r = (results_t) {.c = c, .cmd = cmd, .s = tx->s, .i = tx->i};
  int st = sql_start(c, gi, cmd);
  if (st > 0)
  {
    tx->wait = PGB_W_SQL;
    *res = PGB_TX_WAIT;
    return false;
  }
  return sql_done(c, st >= 0, res);
}

/* \sleep: true when the transaction goes on, false when it ends with
   *res or waits (*res PGB_TX_WAIT). */
static bool sleep_step(pgb_client_t *c, tx_t *tx, const pgb_cmd_t *cmd, pgb_txres_t *res)
{
  if (pgb_cfg.debug)
    pgb_debug_meta(c, cmd);
  int64_t us = sleep_us(c, tx->s, tx->i, cmd);
  *res = PGB_TX_ABORTED;
  if (us < 0)
    return false;
  if (us > 0 && pause_us(c, us))
  {
    tx->wait = PGB_W_SLEEP;
    *res = PGB_TX_WAIT;
    return false;
  }
  cmd_done(c);
  return true;
}

/* \endpipeline (pgb_pipe_end, first or `resume`d): as sql_done. */
static bool pipe_done(pgb_client_t *c, bool resume, pgb_txres_t *res)
{
  tx_t *tx = &c->tx;
  unsigned gi = pgb_cfg.scripts[tx->s].first + tx->i;
  int kind = 0, rc = pgb_pipe_end(c, tx->s, tx->i, &kind, resume);
  *res = PGB_TX_ABORTED;
  if (rc == 2)
  {
    tx->wait = PGB_W_PIPE;
    *res = PGB_TX_WAIT;
    return false;
  }
  if (rc < 0)
    return false;
  pgb_count_cmd(c, gi, tx->t0);
  if (rc == 0)
  {
    tx->i++;
    return true;
  }
  /* a serialization failure or a deadlock in the pipeline: retried as
     one of an SQL command, as pgbench 15 does (the ROLLBACK is done) */
  tx->in_block = false;
  bool go = sql_error(c, tx, kind, 0, tx->pmsg ? tx->pmsg : "out of memory", res);
  free(tx->pmsg);
  tx->pmsg = NULL;
  return go;
}

/* Runs the transaction's commands from tx->i until it ends or waits. */
static pgb_txres_t run_cmds(pgb_client_t *c)
{
  tx_t *tx = &c->tx;
  const pgb_script_t *sc = &pgb_cfg.scripts[tx->s];
  pgb_txres_t res;
  while (tx->i < sc->ncmds)
  {
    const pgb_cmd_t *cmd = &sc->cmds[tx->i];
    /* the command's start, for -r (bmk's face: always) */
    tx->t0 = pgb_cfg.report_per_command ? pgb_cmd_clock() : 0;
    /* an \if or \elif is shown where it is evaluated (branch); an
       \else or \endif reached in a skipped branch is not shown, as
       pgbench skips it without executing it */
    if (pgb_cfg.debug && cmd->type >= PGB_ELIF && cmd->type <= PGB_ENDPIPELINE)
      pgb_debug_meta(c, cmd);
    switch (cmd->type)
    {
      case PGB_SQL:
        if (!sql_step(c, tx, cmd, &res))
          return res;
        break;
      case PGB_SLEEP:
        if (!sleep_step(c, tx, cmd, &res))
          return res;
        break;
      case PGB_IF:
        if (branch(c, tx->s, tx->i, sc->cmds, &tx->i) != 0)
          return PGB_TX_ABORTED;
        break;
      case PGB_ELIF: case PGB_ELSE:
        /* the end of a branch that ran: past the \endif */
        tx->i = cmd->endif + 1;
        break;
      case PGB_ENDIF:
        tx->i++;
        break;
      case PGB_STARTPIPELINE:
        if (!pgb_pipe_start(c, tx->s, tx->i))
          return PGB_TX_ABORTED;
        cmd_done(c);
        break;
      case PGB_ENDPIPELINE:
        if (!pipe_done(c, false, &res))
          return res;
        break;
      default:
        if (!run_meta(c, tx, cmd))
          return PGB_TX_ABORTED;
        cmd_done(c);
        break;
    }
  }
  if (c->in_pipeline)
  {
    pgb_error("client %d aborted: end of script reached with pipeline open", c->id);
    return PGB_TX_ABORTED;
  }
  pgb_count_tx(c, tx->s, tx->start_us, 0, tx->tries);
  return PGB_TX_OK;
}

pgb_txres_t pgb_client_run(pgb_client_t *c, unsigned s, int64_t start_us)
{
  c->tx = (tx_t) {.s = s, .i = 0, .tries = 1, .start_us = start_us, .start_rs = c->rs};
  PGB_DEBUG("client %d executing script \"%s\"", c->id, pgb_cfg.scripts[s].desc);
  return run_cmds(c);
}

pgb_txres_t pgb_client_resume(pgb_client_t *c, int value)
{
  tx_t *tx = &c->tx;
  int wait = tx->wait;
  pgb_txres_t res = PGB_TX_OK;
  bool go = true;
  (void) value;               /* a \sleep cut short ends as thread mode's */
  tx->wait = PGB_W_NONE;
  if (wait == PGB_W_SQL)
    go = sql_done(c, true, &res);
  else if (wait == PGB_W_PIPE)
    go = pipe_done(c, true, &res);
  else if (wait == PGB_W_ROLLBACK)
    go = timeout_rolled_back(c, &res);
  else if (wait == PGB_W_SLEEP)
    cmd_done(c);
  return go ? run_cmds(c) : res;
}

void pgb_client_disconnect(pgb_client_t *c)
{
  for (unsigned i = 0; c->stmts && i < pgb_cfg.ncmds; i++)
    if (c->stmts[i])
    {
      db_close(c->stmts[i]);
      c->stmts[i] = NULL;
    }
  if (c->con)
  {
    db_connection_close(c->con);
    db_connection_free(c->con);
    c->con = NULL;
  }
}

void pgb_client_free(pgb_client_t *c)
{
  pgb_client_disconnect(c);
  free(c->tx.sql);
  free(c->tx.pmsg);
  c->tx.sql = c->tx.pmsg = NULL;
  free(c->stmts);
  c->stmts = NULL;
  for (unsigned i = 0; i < c->nvars; i++)
  {
    free(c->vars[i].name);
    free(c->vars[i].str);
  }
  free(c->vars);
  c->vars = NULL;
  c->nvars = c->capvars = 0;
  free(c->script_stats);
  free(c->cmd_stats);
  for (unsigned i = 0; c->cmd_hist && i < pgb_cfg.ncmds; i++)
    sb_hdr_free(c->cmd_hist[i]);
  free(c->cmd_hist);
  c->cmd_hist = NULL;
  free(c->pipe_cmds);
  c->pipe_cmds = NULL;
  c->script_stats = NULL;
  c->cmd_stats = NULL;
}
