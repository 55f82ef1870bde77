/* The generic SQL layer's side of --endpoints: per-endpoint statement
   latency, transaction counting and the --on-endpoint-failure=next steps
   of a rebuild; see db_driver_priv.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "core/sb_timer.h"
#include "drivers/db_driver.h"
#include "drivers/db_driver_priv.h"

void db_endpoint_latency(db_conn_t *con)
{
  if (con->op_start_ns == 0)
    return;
  if (con->ep_lat == NULL && (con->ep_lat = sb_hdr_new()) == NULL)
    return;
  sb_hdr_record(con->ep_lat, sb_now_ns() - con->op_start_ns);
}

void db_endpoint_connected(db_conn_t *con)
{
  con->in_txn = 0;
  if (con->endpoint != NULL && con->driver->connect_is_xact)
    sb_endpoint_count(con->endpoint, con->thread_id == SB_TID_UNCOUNTED ? SB_EPC_OWN_XACTS
                      : SB_EPC_XACTS, 1);
}

void db_endpoint_after_stmt(db_conn_t *con)
{
  sb_endpoint_t *ep = con->endpoint;
  if (ep == NULL)
    return;
  if (con->thread_id == SB_TID_UNCOUNTED)
    sb_endpoint_count(ep, SB_EPC_OWN_STMTS, 1);
  db_endpoint_count_xact(con);
}

void db_endpoint_count_xact(db_conn_t *con)
{
  sb_endpoint_t *ep = con->endpoint;
  bool own = con->thread_id == SB_TID_UNCOUNTED;
  if (ep == NULL || con->driver->ops.txn_status == NULL || con->lost)
    return;
  int now = con->driver->ops.txn_status(con);
  if (now < 0)
    return;
  if (now == 0 && (con->in_txn == 1 || con->driver->autocommit_is_xact))
    sb_endpoint_count(ep, own ? SB_EPC_OWN_XACTS : SB_EPC_XACTS, 1);
  con->in_txn = now;
}

void db_endpoint_retire_latency(db_conn_t *con, sb_endpoint_t *ep)
{
  if (con->ep_lat == NULL)
    return;
  sb_endpoint_latency_retire(ep, con->ep_lat);
  sb_hdr_reset(con->ep_lat);
}

void db_failover_begin(db_conn_t *con)
{
  con->home_ep = NULL;
  con->failover_k = 0;
  if (sb_endpoints_failure() == SB_EP_FAIL_NEXT && db_counted_endpoint(con) != NULL)
    con->home_ep = con->endpoint;
}

bool db_failover_next(db_conn_t *con)
{
  if (con->home_ep == NULL)
    return false;
  sb_endpoint_t *n = sb_endpoints_failover(con->home_ep, con->failover_k++);
  if (n == NULL)
  {
    con->endpoint = con->home_ep;
    con->failover_k = 0;
    return false;
  }
  con->endpoint = n;
  return true;
}

void db_failover_end(db_conn_t *con, bool ok)
{
  sb_endpoint_t *home = con->home_ep;
  con->home_ep = NULL;
  if (home == NULL || con->endpoint == home)
    return;
  if (!ok)
  {
    con->endpoint = home;
    return;
  }
  sb_endpoint_count(home, SB_EPC_FAILOVERS, 1);
  db_endpoint_retire_latency(con, home);
  log_text(LOG_NOTICE, "thread %d: endpoint '%s' does not answer; the connection moved to "
           "'%s' (--on-endpoint-failure=next)", con->thread_id, home->name, con->endpoint->name);
}
