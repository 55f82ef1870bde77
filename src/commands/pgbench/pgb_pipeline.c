/*
 * \startpipeline and \endpipeline for the pgbench persona, on the SQL
 * layer's pipeline (db_pipeline_*): the statements between them are
 * prepared first (as pgbench does in -M prepared, and bmk also in -M
 * extended), queued without waiting, and their results read at
 * \endpipeline, one round trip. pgbench 15's rules and messages: no
 * pipeline with -M simple, none nested, an \endpipeline needs one open.
 * See pgb_client.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/pgbench/pgb_client.h"

static bool abort_msg(const pgb_client_t *c, unsigned s, unsigned i, const char *cmd,
                      const char *why)
{
  pgb_error("client %d aborted in command %u (%s) of script %u; %s", c->id, i, cmd, s, why);
  return false;
}

bool pgb_pipe_start(pgb_client_t *c, unsigned s, unsigned i)
{
  const pgb_script_t *sc = &pgb_cfg.scripts[s];
  if (pgb_cfg.querymode == PGB_QUERY_SIMPLE)
    return abort_msg(c, s, i, "startpipeline",
                     "cannot use pipeline mode with the simple query protocol");
  if (c->in_pipeline)
    return abort_msg(c, s, i, "startpipeline", "already in pipeline mode");
  /* prepared before the pipeline starts: a BEGIN ISOLATION LEVEL in it
     must not find a snapshot taken by a prepare */
  for (unsigned j = i + 1; j < sc->ncmds && sc->cmds[j].type != PGB_ENDPIPELINE; j++)
    if (sc->cmds[j].type == PGB_SQL && pgb_client_stmt(c, sc->first + j, &sc->cmds[j]) == NULL)
    {
      const char *m = db_conn_sql_errmsg(c->con);
      pgb_error("%s", m ? m : "could not prepare a statement");
      return abort_msg(c, s, i, "startpipeline", "failed to enter pipeline mode");
    }
  if (c->pipe_cmds == NULL)
  {
    c->pipe_cmds = calloc(pgb_cfg.ncmds ? pgb_cfg.ncmds : 1, sizeof(*c->pipe_cmds));
    if (c->pipe_cmds == NULL)
      return abort_msg(c, s, i, "startpipeline", "out of memory");
  }
  if (db_pipeline_begin(c->con) != 0)
    return abort_msg(c, s, i, "startpipeline", "failed to enter pipeline mode");
  c->in_pipeline = true;
  c->npipe = 0;
  return true;
}

bool pgb_pipe_queue(pgb_client_t *c, unsigned s, unsigned i, const pgb_cmd_t *cmd)
{
  if (cmd->gset_prefix != NULL)
    return abort_msg(c, s, i, cmd->aset ? "aset" : "gset", cmd->aset
                     ? "\\aset is not allowed in pipeline mode"
                     : "\\gset is not allowed in pipeline mode");
  unsigned gi = pgb_cfg.scripts[s].first + i;
  db_stmt_t *st = pgb_client_stmt(c, gi, cmd);
  if (st != NULL && pgb_cfg.debug)
    pgb_debug_sending(c, cmd, NULL);
  if (st == NULL || db_pipeline_execute(st) != 0)
  {
    const char *m = db_conn_sql_errmsg(c->con);
    pgb_error("client %d script %u aborted in command %u query %d: %s", c->id, s, i, 0,
              m ? m : "could not send the query");
    return false;
  }
  if (c->npipe < pgb_cfg.ncmds)
    c->pipe_cmds[c->npipe++] = i;
  return true;
}

/* The result of queued statement tx->pk (the sync point at npipe) is
   in: the first failure is kept. */
static void fetched(pgb_client_t *c)
{
  pgb_tx_t *tx = &c->tx;
  db_result_t *rs = pgb_client_result(c);
  if (rs != NULL && db_result_nfields(rs) > 0)
    db_free_results(rs);
  else if (rs == NULL && tx->pk < c->npipe && db_conn_error(c->con) != 0 &&
           tx->pstate[0] == '\0')
  {
    const char *st = db_conn_sql_state(c->con);
    snprintf(tx->pstate, sizeof(tx->pstate), "%s", st && *st ? st : "?");
    free(tx->pmsg);
    tx->pmsg = strdup(pgb_sql_error(c->con));
    tx->pfailed_at = c->pipe_cmds[tx->pk];
  }
}

/* The ROLLBACK after a failure is done: pgb_pipe_end's 1 or -1. */
static int rolled_back(pgb_client_t *c, unsigned s, int *kind)
{
  pgb_tx_t *tx = &c->tx;
  db_result_t *rs = pgb_client_result(c);
  tx->prollback = false;
  PGB_DEBUG("client %d receiving", c->id);
  PGB_DEBUG("client %d receiving", c->id);
  if (rs && db_result_nfields(rs) > 0)
    db_free_results(rs);
  if (strcmp(tx->pstate, "40001") == 0 || strcmp(tx->pstate, "40P01") == 0)
  {
    *kind = tx->pstate[2] == '0' ? 1 : 2;
    return 1;                 /* tx->pmsg is the caller's to print */
  }
  pgb_error("client %d script %u aborted in command %u query %d: %s", c->id, s,
            tx->pfailed_at, 0, tx->pmsg ? tx->pmsg : "out of memory");
  free(tx->pmsg);
  tx->pmsg = NULL;
  return -1;
}

int pgb_pipe_end(pgb_client_t *c, unsigned s, unsigned i, int *kind, bool resume)
{
  static const char rollback[] = "ROLLBACK";
  pgb_tx_t *tx = &c->tx;
  if (resume && tx->prollback)
    return rolled_back(c, s, kind);
  if (resume)
  {
    fetched(c);
    tx->pk++;
  }
  else
  {
    if (!c->in_pipeline)
    {
      abort_msg(c, s, i, "endpipeline", "not in pipeline mode");
      return -1;
    }
    c->in_pipeline = false;
    if (db_pipeline_sync(c->con) != 0)
    {
      abort_msg(c, s, i, "endpipeline", "failed to send a pipeline sync");
      return -1;
    }
    tx->pk = 0;
    tx->pstate[0] = '\0';
    tx->prollback = false;
    /* -d: pgbench's "receiving" once before the results have come */
    PGB_DEBUG("client %d receiving", c->id);
  }
  /* one result per queued statement, then the sync point. With -d:
     pgbench's "receiving" once per result it reads up to a failed one
     (it discards the rest), and its "pipeline ending" at the sync when
     none failed */
  for (; tx->pk <= c->npipe; tx->pk++)
  {
    if (pgb_cfg.debug && tx->pstate[0] == '\0')
    {
      pgb_debug("client %d receiving", c->id);
      if (tx->pk == c->npipe)
        pgb_debug("client %d pipeline ending", c->id);
    }
    if (pgb_client_op(c, PGB_OP_FETCH, NULL, NULL, false))
      return 2;
    fetched(c);
  }
  db_pipeline_end(c->con);
  if (tx->pstate[0] == '\0')
    return 0;
  /* the failed statement left its transaction aborted (-d: pgbench's
     wait for its ROLLBACK) */
  tx->prollback = true;
  if (pgb_client_op(c, PGB_OP_QUERY, NULL, rollback, false))
    return 2;
  return rolled_back(c, s, kind);
}
