/* Server-side statistics per endpoint; see server/sb_endpoint_stats.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_endpoints.h"
#include "core/sb_logger.h"
#include "core/sb_version.h"
#include "endpoints/sb_endpoint_probe.h"
#include "endpoints/sb_endpoint_stats.h"

/* Per endpoint: its connection (NULL: none) and the start sample. */
typedef struct {
  db_conn_t *con;
  bool started;
  uint64_t stmts0, xacts0;
  char gtid0[512];
  uint64_t routed_stmts0, own_stmts0, routed_xacts0, own_xacts0;
  sb_ep_server_t fig;
} ep_stats_t;

static ep_stats_t *eps;
static unsigned neps;
static bool is_pg;

void sb_endpoint_stats_open(db_driver_t *drv)
{
  sb_endpoint_stats_close();
  neps = sb_endpoints_count();
  if (neps == 0 || drv == NULL)
    return;
  eps = calloc(neps, sizeof(*eps));
  if (eps == NULL)
  {
    neps = 0;
    return;
  }
  is_pg = strcmp(db_driver_name(drv), "pgsql") == 0;
  int saved_tid = sb_tls_tid;
  sb_tls_tid = SB_TID_UNCOUNTED;   /* its statements are no VU's */
  db_quiet_connect_errors(1);
  for (unsigned i = 0; i < neps; i++)
  {
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    eps[i].con = db_connection_create_route(drv, ep->name, 0);
    if (eps[i].con == NULL)
      log_text(LOG_WARNING, "server statistics: cannot connect to endpoint '%s' (%s); "
               "no server-side figures for it", ep->name, db_last_connect_errmsg());
    else
      db_connection_uncounted(eps[i].con);
  }
  db_quiet_connect_errors(0);
  sb_tls_tid = saved_tid;
}

/* Copies the first row's column `col` of `sql` into buf; 0, or -1. */
static int query_text(db_conn_t *con, const char *sql, unsigned col, char *buf, size_t len)
{
  buf[0] = '\0';
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    db_clear_error(con);
    return -1;
  }
  int rc = -1;
  db_row_t *row = db_fetch_row(rs);
  size_t n = 0;
  const char *v = row != NULL && col < db_result_nfields(rs) ? db_row_value(row, rs, col, &n)
                                                              : NULL;
  if (row != NULL && (v != NULL || n == 0) && n < len)
  {
    if (v != NULL)
      memcpy(buf, v, n);
    buf[n] = '\0';
    rc = 0;
  }
  db_free_results(rs);
  return rc;
}

/* MySQL: Questions and Com_commit + Com_rollback, one statement. */
static int my_counters(db_conn_t *con, uint64_t *stmts, uint64_t *xacts)
{
  static const char sql[] = "SHOW GLOBAL STATUS WHERE Variable_name IN "
                            "('Questions','Com_commit','Com_rollback')";
  db_result_t *rs = db_query(con, sql, sizeof(sql) - 1);
  if (rs == NULL)
  {
    db_clear_error(con);
    return -1;
  }
  int found = 0;
  *stmts = *xacts = 0;
  db_row_t *row;
  while ((row = db_fetch_row(rs)) != NULL)
  {
    size_t nl = 0, vl = 0;
    const char *name = db_row_value(row, rs, 0, &nl);
    const char *val = db_row_value(row, rs, 1, &vl);
    if (name == NULL || val == NULL)
      continue;
    uint64_t v = strtoull(val, NULL, 10);
    if (nl == 9 && strncasecmp(name, "Questions", 9) == 0)
      *stmts = v;
    else
      *xacts += v;
    found++;
  }
  db_free_results(rs);
  return found == 3 ? 0 : -1;
}

/* Reads endpoint i's server counters; 0, or -1. */
static int read_server(ep_stats_t *e, const sb_endpoint_t *ep, uint64_t *stmts,
                       uint64_t *xacts, char *gtid, size_t gtid_len)
{
  gtid[0] = '\0';
  if (is_pg)
  {
    char v[64];
    *stmts = 0;
    if (query_text(e->con, "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                   "WHERE datname = current_database()", 0, v, sizeof(v)) != 0 || !*v)
      return -1;
    *xacts = strtoull(v, NULL, 10);
    return 0;
  }
  if (my_counters(e->con, stmts, xacts) != 0)
    return -1;
  /* MariaDB: the applier's commits count in Com_commit too */
  if (sb_endpoint_is_replica(ep) &&
      query_text(e->con, "SHOW GLOBAL VARIABLES LIKE 'gtid_slave_pos'", 1, gtid, gtid_len) != 0)
    gtid[0] = '\0';
  return 0;
}

static uint64_t counter(const sb_endpoint_t *ep, sb_ep_counter_t c)
{
  return __atomic_load_n(&ep->counters[c], __ATOMIC_RELAXED);
}

static uint64_t routed_statements(const sb_endpoint_t *ep)
{
  return counter(ep, SB_EPC_READS) + counter(ep, SB_EPC_WRITES) + counter(ep, SB_EPC_OTHER) +
         counter(ep, SB_EPC_ERRORS);
}

/* The end sample of one endpoint: its figures. */
static void end_one(ep_stats_t *e, const sb_endpoint_t *ep, uint64_t stmts, uint64_t xacts,
                    const char *gtid)
{
  sb_ep_server_t *f = &e->fig;
  memset(f, 0, sizeof(*f));
  f->has_statements = !is_pg;
  f->server_statements = stmts >= e->stmts0 ? stmts - e->stmts0 : 0;
  f->server_xacts = xacts >= e->xacts0 ? xacts - e->xacts0 : 0;
  if (*gtid && *e->gtid0)
  {
    long long applied = sb_gtid_behind(gtid, e->gtid0);
    if (applied >= 0)
    {
      f->has_replicated = true;
      f->replicated = (uint64_t) applied;
      f->server_xacts -= f->replicated < f->server_xacts ? f->replicated : f->server_xacts;
    }
  }
  f->routed_statements = routed_statements(ep) - e->routed_stmts0;
  f->own_statements = counter(ep, SB_EPC_OWN_STMTS) - e->own_stmts0;
  f->routed_xacts = counter(ep, SB_EPC_XACTS) - e->routed_xacts0;
  f->own_xacts = counter(ep, SB_EPC_OWN_XACTS) - e->own_xacts0;
  f->have = true;
}

void sb_endpoint_stats_sample(bool first)
{
  for (unsigned i = 0; i < neps; i++)
  {
    ep_stats_t *e = &eps[i];
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    if (e->con == NULL || (!first && !e->started))
      continue;
    uint64_t stmts, xacts;
    char gtid[512];
    if (read_server(e, ep, &stmts, &xacts, gtid, sizeof(gtid)) != 0)
    {
      log_text(LOG_WARNING, "server statistics: cannot read the counters of endpoint '%s'%s; "
               "no server-side figures for it", ep->name,
               db_conn_closed(e->con) ? " (its connection was lost)" : "");
      e->started = false;
      continue;
    }
    if (!first)
    {
      end_one(e, ep, stmts, xacts, gtid);
      continue;
    }
    /* bmk's counters after the reads: they include the reads themselves,
       as the server's do (MySQL counts a statement in Questions when it
       starts) or will (PostgreSQL counts a transaction when it ends,
       which the end sample's own transaction has not yet done: the
       start sample's one stands in for it) */
    e->stmts0 = stmts;
    e->xacts0 = xacts;
    snprintf(e->gtid0, sizeof(e->gtid0), "%s", gtid);
    e->routed_stmts0 = routed_statements(ep);
    e->own_stmts0 = counter(ep, SB_EPC_OWN_STMTS);
    e->routed_xacts0 = counter(ep, SB_EPC_XACTS);
    e->own_xacts0 = counter(ep, SB_EPC_OWN_XACTS);
    e->started = true;
  }
}

const sb_ep_server_t *sb_endpoint_stats_get(unsigned i)
{
  return i < neps && eps[i].fig.have ? &eps[i].fig : NULL;
}

/* "+0.000%" of server against bmk's, or "-" when bmk sent none. */
static const char *diff_text(uint64_t server, uint64_t bmk, char *buf, size_t len)
{
  if (bmk == 0)
    snprintf(buf, len, server == 0 ? "+0.000%%" : "-");
  else
    snprintf(buf, len, "%+.3f%%", ((double) server - (double) bmk) * 100.0 / (double) bmk);
  return buf;
}

void sb_endpoint_stats_print(void)
{
  bool any = false;
  for (unsigned i = 0; i < neps; i++)
    any |= eps[i].fig.have;
  if (!any || sb_persona_sysbench() || log_get_verbosity() < LOG_NOTICE)
    return;
  log_lock();
  printf("Server-side statistics per endpoint (the server's own counters against bmk's "
         "statements to it; docs/endpoints.md):\n");
  if (is_pg)
    printf("    (server xacts: xact_commit + xact_rollback; bmk: the transactions of the "
           "statements routed to the endpoint + of bmk's own sampling)\n");
  else
    printf("    (server stmts: Questions; server xacts: Com_commit + Com_rollback, a replica's "
           "less those its replication applied; bmk: routed + bmk's own sampling)\n");
  printf("    %-16s %-10s %12s %12s %9s %12s %12s %9s\n", "endpoint", "role", "server stmts",
         "bmk stmts", "diff", "server xacts", "bmk xacts", "diff");
  for (unsigned i = 0; i < neps; i++)
  {
    const sb_ep_server_t *f = &eps[i].fig;
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    if (!f->have)
      continue;
    char s1[32] = "-", s2[32] = "-", d1[32] = "", d2[32];
    uint64_t bs = f->routed_statements + f->own_statements, bx = f->routed_xacts + f->own_xacts;
    if (f->has_statements)
    {
      snprintf(s1, sizeof(s1), "%" PRIu64, f->server_statements);
      snprintf(s2, sizeof(s2), "%" PRIu64, bs);
      diff_text(f->server_statements, bs, d1, sizeof(d1));
    }
    printf("    %-16s %-10s %12s %12s %9s %12" PRIu64 " %12" PRIu64 " %9s\n", ep->name, ep->role,
           s1, s2, d1, f->server_xacts, bx, diff_text(f->server_xacts, bx, d2, sizeof(d2)));
  }
  printf("\n");
  fflush(stdout);
  log_unlock();
}

void sb_endpoint_stats_close(void)
{
  int saved_tid = sb_tls_tid;
  sb_tls_tid = SB_TID_UNCOUNTED;
  for (unsigned i = 0; i < neps; i++)
    if (eps[i].con != NULL)
    {
      db_connection_free(eps[i].con);
      eps[i].con = NULL;
    }
  sb_tls_tid = saved_tid;
  free(eps);
  eps = NULL;
  neps = 0;
}
