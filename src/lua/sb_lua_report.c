/* Report hooks of Lua scripts (sysbench.hooks.report_*); see sb_lua.h. */
#include <lauxlib.h>

#include "core/sb_logger.h"
#include "core/sb_metric.h"
#include "lua/sb_lua_priv.h"
#include "lua/sb_lua.h"

bool sb_lua_hook_defined(lua_State *L, const char *hook)
{
  lua_getglobal(L, "sysbench");
  lua_getfield(L, -1, "hooks");
  bool r = false;
  if (lua_istable(L, -1))
  {
    lua_getfield(L, -1, hook);
    r = lua_isfunction(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return r;
}


static void set_num(lua_State *L, const char *k, double v)
{
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* stat.metrics: name -> count of each workload metric (sb_metric.h) over
   the report's time (an interval, or the whole run). */
static void push_metrics(lua_State *L, const sb_stat_t *st)
{
  lua_newtable(L);
  for (unsigned i = 0; i < st->nmetrics; i++)
  {
    const char *name = sb_metric_name((int) i);
    if (name == NULL)
      continue;
    lua_pushnumber(L, (double) st->metrics[i]);
    lua_setfield(L, -2, name);
  }
  lua_setfield(L, -2, "metrics");
}

/* Pushes sysbench.hooks.<hook> with its message handler: leaves
   [handler, fn] on the stack. */
static void push_hook(lua_State *L, const char *hook)
{
  lua_pushcfunction(L, sb_lua_keep_message);
  lua_getglobal(L, "sysbench");
  lua_getfield(L, -1, "hooks");
  lua_getfield(L, -1, hook);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

long sb_lua_hook_count(lua_State *L, const char *hook)
{
  if (L == NULL || !sb_lua_hook_defined(L, hook))
    return 0;
  sb_lua_export_options(L);
  push_hook(L, hook);
  if (lua_pcall(L, 0, 1, -2) != 0)
  {
    log_text(LOG_FATAL, "`%s' hook failed: %s", hook, lua_tostring(L, -1));
    lua_pop(L, 2);
    return -1;
  }
  double v = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 0;
  lua_pop(L, 2);
  return v >= 1 && v <= 1e9 ? (long) v : (v > 1e9 ? 1000000000L : 0);
}

int sb_lua_call_hook(lua_State *L, const char *hook)
{
  if (L == NULL || !sb_lua_hook_defined(L, hook))
    return 0;
  push_hook(L, hook);
  if (lua_pcall(L, 0, 0, -2) != 0)
  {
    log_text(LOG_FATAL, "`%s' hook failed: %s", hook, lua_tostring(L, -1));
    lua_pop(L, 2);
    return -1;
  }
  lua_pop(L, 1);
  return 0;
}

/* stat.types: one table per event type (bmk extension), seconds. */
static void push_types(lua_State *L, const sb_stat_t *st)
{
  lua_newtable(L);
  for (unsigned i = 0; i < st->ntypes; i++)
  {
    const sb_type_row_t *r = &st->types[i];
    lua_newtable(L);
    lua_pushstring(L, r->name ? r->name : "");
    lua_setfield(L, -2, "name");
    set_num(L, "events", (double) r->events);
    set_num(L, "errors", (double) r->errors);
    set_num(L, "rollbacks", (double) r->rollbacks);
    set_num(L, "min", r->min);
    set_num(L, "avg", r->avg);
    set_num(L, "max", r->max);
    set_num(L, "p25", r->p25);
    set_num(L, "p50", r->p50);
    set_num(L, "p75", r->p75);
    set_num(L, "p90", r->p90);
    set_num(L, "p95", r->p95);
    set_num(L, "p99", r->p99);
    set_num(L, "stddev", r->stddev);
    set_num(L, "sum", r->sum);
    lua_rawseti(L, -2, (int) i + 1);
  }
  lua_setfield(L, -2, "types");
}

int sb_lua_call_report_hook(lua_State *L, const char *hook,
                            const sb_stat_t *st, bool cumulative)
{
  push_hook(L, hook);

  lua_newtable(L);
  set_num(L, "threads_running", st->threads_running);
  set_num(L, "threads", st->threads);
  set_num(L, "time_interval", st->time_interval);
  set_num(L, "time_total", st->time_total);
  set_num(L, "latency_pct", st->latency_pct);
  set_num(L, "events", (double) st->events);
  set_num(L, "reads", (double) st->reads);
  set_num(L, "writes", (double) st->writes);
  set_num(L, "other", (double) st->other);
  set_num(L, "errors", (double) st->errors);
  set_num(L, "reconnects", (double) st->reconnects);
  set_num(L, "timeouts", (double) st->timeouts);
  if (st->retries_on)
  {
    set_num(L, "retries", (double) st->tx_retries);
    set_num(L, "failures", (double) st->tx_failures);
  }
  if (cumulative)
  {
    set_num(L, "latency_min", st->latency_min);
    set_num(L, "latency_max", st->latency_max);
    set_num(L, "latency_avg", st->latency_avg);
    set_num(L, "latency_sum", st->latency_sum);
  }
  else
  {
    set_num(L, "queue_length", (double) st->queue_length);
    set_num(L, "concurrency", (double) st->concurrency);
  }
  lua_newtable(L);
  if (st->percentile > 0)
  {
    lua_pushnumber(L, st->latency_pct);
    lua_rawseti(L, -2, (int) st->percentile);
  }
  for (unsigned i = 0; i < st->npct; i++)
  {
    lua_pushnumber(L, st->pct[i]);
    lua_pushnumber(L, st->pct_val[i]);
    lua_settable(L, -3);
  }
  lua_setfield(L, -2, "percentiles");
  push_metrics(L, st);
  if (st->ntypes > 0)
    push_types(L, st);

  int rc = lua_pcall(L, 1, 0, -3);
  if (rc != 0)
  {
    log_text(LOG_FATAL, "`%s' hook failed: %s", hook, lua_tostring(L, -1));
    lua_pop(L, 2);
    return -1;
  }
  lua_pop(L, 1);
  return 0;
}
