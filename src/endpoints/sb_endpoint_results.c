/* --endpoints in the --results document; see results/sb_results_endpoints.h. */
#include "core/sb_endpoints.h"
#include "endpoints/sb_endpoint_results.h"
#include "endpoints/sb_endpoint_probe.h"
#include "endpoints/sb_endpoint_stats.h"

/* seconds, or null for no sample */
static json_t *lag_value(double s)
{
  return s < 0 ? json_null() : json_real(s);
}

/* The endpoint's server-side figures (server/sb_endpoint_stats.h), or
   null without them. */
static json_t *server_json(const sb_ep_server_t *f)
{
  if (f == NULL)
    return json_null();
  return json_pack("{s:o,s:I,s:o,s:I,s:I,s:I,s:I}",
                   "statements", f->has_statements ? json_integer((json_int_t) f->server_statements)
                                                   : json_null(),
                   "transactions", (json_int_t) f->server_xacts,
                   "replicated", f->has_replicated ? json_integer((json_int_t) f->replicated)
                                                   : json_null(),
                   "bmk_statements", (json_int_t) f->routed_statements,
                   "bmk_own_statements", (json_int_t) f->own_statements,
                   "bmk_transactions", (json_int_t) f->routed_xacts,
                   "bmk_own_transactions", (json_int_t) f->own_xacts);
}

json_t *sb_endpoint_results_json(void)
{
  unsigned n = sb_endpoints_count();
  if (n == 0)
    return NULL;
  static const struct {
    const char *key;
    sb_ep_counter_t c;
  } counts[] = {
    { "reads", SB_EPC_READS }, { "writes", SB_EPC_WRITES }, { "other", SB_EPC_OTHER },
    { "errors", SB_EPC_ERRORS }, { "reconnects", SB_EPC_RECONNECTS },
    { "failovers", SB_EPC_FAILOVERS }, { "connects", SB_EPC_CONNECTS },
    { "transactions", SB_EPC_XACTS }, { "own_statements", SB_EPC_OWN_STMTS },
    { "own_transactions", SB_EPC_OWN_XACTS },
  };
  json_t *a = json_array();
  for (unsigned i = 0; i < n; i++)
  {
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(ep->name));
    json_object_set_new(o, "driver", json_string(ep->driver));
    json_object_set_new(o, "role", json_string(ep->role));
    for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
      json_object_set_new(o, counts[k].key,
                          json_integer(ep->has_window ? (json_int_t) ep->window[counts[k].c] : 0));
    uint64_t n = sb_endpoint_latency_count(ep);
    json_object_set_new(o, "latency_ms", json_pack("{s:I,s:o,s:o}", "count", (json_int_t) n,
      "p95", n ? json_real((double) sb_endpoint_latency_pct(ep, 95) / 1e6) : json_null(),
      "max", n ? json_real((double) sb_endpoint_latency_pct(ep, 100) / 1e6) : json_null()));
    json_object_set_new(o, "lag_max_s", sb_endpoint_is_replica(ep)
                        ? lag_value(sb_endpoint_lag_max(ep)) : json_null());
    int64_t bm = sb_endpoint_behind_max(ep);
    json_object_set_new(o, "behind_max", sb_endpoint_is_replica(ep) && bm >= 0
                        ? json_integer((json_int_t) bm) : json_null());
    json_object_set_new(o, "behind_unit", json_string(sb_endpoints_behind_unit()));
    json_object_set_new(o, "replay_lag_max_s", sb_endpoint_is_replica(ep)
                        ? lag_value(sb_endpoint_replay_lag_max(ep)) : json_null());
    json_object_set_new(o, "server", server_json(sb_endpoint_stats_get(i)));
    json_array_append_new(a, o);
  }
  return a;
}

static json_t *behind_value(const sb_endpoint_t *ep)
{
  int64_t b = sb_endpoint_behind(ep);
  return b < 0 ? json_null() : json_integer((json_int_t) b);
}

static json_t *latest_lag(const sb_endpoint_t *ep)
{
  return lag_value(sb_endpoint_lag(ep));
}

/* {replica name: value(replica)}; NULL without replicas. */
static json_t *per_replica(json_t *(*value)(const sb_endpoint_t *))
{
  if (!sb_endpoints_have_replicas())
    return NULL;
  json_t *o = json_object();
  for (unsigned i = 0; i < sb_endpoints_count(); i++)
  {
    const sb_endpoint_t *ep = sb_endpoint_get(i);
    if (sb_endpoint_is_replica(ep))
      json_object_set_new(o, ep->name, value(ep));
  }
  return o;
}

json_t *sb_endpoint_results_behind_json(void)
{
  return per_replica(behind_value);
}

json_t *sb_endpoint_results_lag_json(void)
{
  return per_replica(latest_lag);
}

static json_t *latest_replay_lag(const sb_endpoint_t *ep)
{
  return lag_value(sb_endpoint_replay_lag(ep));
}

json_t *sb_endpoint_results_replay_lag_json(void)
{
  return sb_endpoints_replay_lag_sampled() ? per_replica(latest_replay_lag) : NULL;
}
