/* The server block of a --results document; see sb_results_server.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "results/sb_results_server.h"
#include "server/sb_server_cost.h"
#include "server/sb_server_stats.h"

static double rate(uint64_t n, double s)
{
  return s > 0 ? (double) n / s : 0.0;
}

/* A server counter's delta, or null when the server has no such counter. */
static json_t *srv_count(const sb_srv_stats_t *sv, int i)
{
  return sv->has[i] ? json_integer((json_int_t) sv->delta[i]) : json_null();
}

static json_t *srv_rate(const sb_srv_stats_t *sv, int i)
{
  return sv->has[i] ? json_real(rate(sv->delta[i], sv->window_s)) : json_null();
}

/* Average ms per operation from a us time sum and a count. */
static json_t *srv_avg_ms(const sb_srv_stats_t *sv, int time_us, int count)
{
  if (!sv->has[time_us] || !sv->has[count])
    return json_null();
  uint64_t n = sv->delta[count];
  return json_real(n ? (double) sv->delta[time_us] / 1000.0 / (double) n : 0.0);
}

/* Redo / WAL writes over the window (null when the server has none). */
static json_t *redo_json(const sb_srv_stats_t *sv, bool pg)
{
  if (!sv->has[SB_SRV_REDO_BYTES])
    return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "source", json_string(pg ? "pg_stat_wal" : "SHOW GLOBAL STATUS"));
  json_object_set_new(o, "bytes", srv_count(sv, SB_SRV_REDO_BYTES));
  json_object_set_new(o, "bytes_per_s", srv_rate(sv, SB_SRV_REDO_BYTES));
  json_object_set_new(o, "writes", srv_count(sv, SB_SRV_REDO_WRITES));
  json_object_set_new(o, "writes_per_s", srv_rate(sv, SB_SRV_REDO_WRITES));
  json_object_set_new(o, "syncs", srv_count(sv, SB_SRV_REDO_SYNCS));
  json_object_set_new(o, "syncs_per_s", srv_rate(sv, SB_SRV_REDO_SYNCS));
  json_object_set_new(o, "write_time_ms", sv->has[SB_SRV_REDO_WRITE_US]
                      ? json_real((double) sv->delta[SB_SRV_REDO_WRITE_US] / 1000.0) : json_null());
  json_object_set_new(o, "sync_time_ms", sv->has[SB_SRV_REDO_SYNC_US]
                      ? json_real((double) sv->delta[SB_SRV_REDO_SYNC_US] / 1000.0) : json_null());
  json_object_set_new(o, "avg_write_ms", srv_avg_ms(sv, SB_SRV_REDO_WRITE_US, SB_SRV_REDO_WRITES));
  json_object_set_new(o, "avg_sync_ms", srv_avg_ms(sv, SB_SRV_REDO_SYNC_US, SB_SRV_REDO_SYNCS));
  json_object_set_new(o, "io_timing", sv->wal_timing < 0 ? json_null()
                      : json_boolean(sv->wal_timing == 1));
  return o;
}

/* Data-file writes over the window (null when the server has none). */
static json_t *data_writes_json(const sb_srv_stats_t *sv)
{
  if (!sv->has[SB_SRV_DATA_BYTES] && !sv->has[SB_SRV_DATA_WRITES])
    return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "source", json_string(sv->counter_source[SB_SRV_DATA_WRITES]
                                               ? sv->counter_source[SB_SRV_DATA_WRITES] : ""));
  json_object_set_new(o, "bytes", srv_count(sv, SB_SRV_DATA_BYTES));
  json_object_set_new(o, "bytes_per_s", srv_rate(sv, SB_SRV_DATA_BYTES));
  json_object_set_new(o, "writes", srv_count(sv, SB_SRV_DATA_WRITES));
  json_object_set_new(o, "writes_per_s", srv_rate(sv, SB_SRV_DATA_WRITES));
  return o;
}

/* The reconciliation block (null when it is off or failed). */
static json_t *reconciliation_json(void)
{
  const sb_srv_stats_t *sv = sb_server_stats();
  if (!sv->have_delta)
    return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "source", json_string(strcmp(sv->driver, "pgsql") == 0
                                               ? "pg_stat_database" : "SHOW GLOBAL STATUS"));
  json_object_set_new(o, "window_s", json_real(sv->window_s));
  json_object_set_new(o, "sampler_reconnected", json_boolean(sv->reconnected));
  json_object_set_new(o, "counters_restarted", json_boolean(sv->counters_restarted));
  json_t *d = json_object();
  for (int i = 0; i < SB_SRV_NCOUNTERS; i++)
    if (sv->has[i])
      json_object_set_new(d, sv->counter_source[i], json_integer((json_int_t) sv->delta[i]));
  json_object_set_new(o, "counter_deltas", d);
  uint64_t trx = sv->delta[SB_SRV_COMMITS] + sv->delta[SB_SRV_ROLLBACKS];
  json_object_set_new(o, "commits", json_integer((json_int_t) sv->delta[SB_SRV_COMMITS]));
  json_object_set_new(o, "rollbacks", json_integer((json_int_t) sv->delta[SB_SRV_ROLLBACKS]));
  json_object_set_new(o, "transactions", json_integer((json_int_t) trx));
  json_object_set_new(o, "tps", json_real(rate(trx, sv->window_s)));
  json_object_set_new(o, "queries", sv->has[SB_SRV_QUERIES]
                      ? json_integer((json_int_t) sv->delta[SB_SRV_QUERIES]) : json_null());
  json_object_set_new(o, "qps", sv->has[SB_SRV_QUERIES]
                      ? json_real(rate(sv->delta[SB_SRV_QUERIES], sv->window_s)) : json_null());
  json_object_set_new(o, "client_events", json_integer((json_int_t) sv->client.v[SB_CNT_EVENT]));
  json_object_set_new(o, "client_statements", json_integer((json_int_t) sv->client_statements));
  bool pg = strcmp(sv->driver, "pgsql") == 0;
  json_object_set_new(o, "redo", redo_json(sv, pg));
  json_object_set_new(o, "data_writes", data_writes_json(sv));
  return o;
}

json_t *sb_results_server_json(void)
{
  json_t *s = reconciliation_json();
  json_t *cost = sb_server_cost_json();
  if (cost == NULL)
    return s;
  if (json_is_null(s))
  {
    json_decref(s);
    s = json_object();
  }
  json_object_set_new(s, "cost", cost);
  return s;
}
