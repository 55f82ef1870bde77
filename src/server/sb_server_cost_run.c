/* Server cost over the engine's window: start/end hooks, the report block
   and the results-file object; see sb_server_cost.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_counter.h"
#include "core/sb_endpoints.h"
#include "core/sb_logger.h"
#include "server/sb_server_cost.h"
#include "server/sb_perf_count.h"
#include "server/sb_server_cost_priv.h"

/* The engine's measurement. Main thread only. */
static struct {
  bool begun;                  /* begin chose to measure: a block follows */
  bool have_end;               /* the end sample was taken */
  sb_cost_meas_t *meas;
  sb_cost_reading_t r;
  sb_counters_t c0;
  uint64_t events, queries;    /* client's, in the window */
  char counter_note[400];
  char server_note[256];
} run;

bool sb_server_cost_active(void)
{
  return run.begun && run.meas != NULL && !run.have_end;
}

/* ---- finding the server at the start line ---------------------------------- */

/* With --endpoints only a connection to the default route's first
   endpoint, the server the report's single-server figures are of: a
   connection a workload opened on a replica (chbench's analytic streams)
   would name the replica's process. */
static void locate_on(db_conn_t *c, void *arg)
{
  bool *done = arg;
  if (*done || c->state != DB_CONN_READY || c->lost || c->bulk_active)
    return;
  if (c->endpoint != NULL && c->endpoint != sb_endpoints_default_first())
    return;
  const char *name = db_driver_name(c->driver);
  if (strcmp(name, "mysql") != 0 && strcmp(name, "pgsql") != 0)
    return;
  char buf[8];
  sb_cost_locate(c, buf, sizeof(buf));
  *done = true;
}

/* Through a parked worker's connection when there is one: no extra
   connection, and on PostgreSQL its transactions are published by the
   sampler's start-line flush, before its start sample. Otherwise through a
   connection of our own (a script that connects per event). */
static void locate_server(void)
{
  bool done = false;
  db_each_connection(locate_on, &done);
  if (done)
    return;
  char buf[8];
  db_driver_t *drv = db_last_driver();
  int saved_tid = sb_tls_tid;
  sb_tls_tid = SB_TID_UNCOUNTED;
  db_quiet_connect_errors(1);
  db_conn_t *con = drv ? db_connection_create(drv) : NULL;
  db_quiet_connect_errors(0);
  if (con == NULL)
  {
    sb_cost_locate(NULL, buf, sizeof(buf));
    snprintf(sb_cost_tgt.reason, sizeof(sb_cost_tgt.reason), "cannot connect to ask the "
             "server where it runs: %s", db_last_connect_errmsg());
    for (char *p = sb_cost_tgt.reason; *p; p++)
      if (*p == '\n' || *p == '\t')
        *p = ' ';
  }
  else
  {
    sb_cost_locate(con, buf, sizeof(buf));
    db_connection_close(con);
    db_connection_free(con);
  }
  sb_tls_tid = saved_tid;
}

void sb_server_cost_begin(void)
{
  sb_cost_free(run.meas);
  memset(&run, 0, sizeof(run));
  if (!sb_cost_tgt.enabled)
    return;
  if (!sb_cost_tgt.explicit_target)
  {
    if (db_last_driver() == NULL)
      return;                   /* not a database test: nothing to find */
    locate_server();
  }
  if (sb_cost_tgt.kind != SB_COST_NONE)
    log_text(LOG_NOTICE, "Server cost: measuring %s", sb_cost_tgt.desc);
  else
    log_text(LOG_NOTICE, "Server cost: the server's CPU is not measured: %s; give "
             "--server-pid=PID or --server-cgroup=PATH (--server-cost=off turns this off)",
             sb_cost_tgt.reason);
  run.meas = sb_cost_start();
  if (run.meas == NULL)
    return;
  run.begun = true;
  sb_counters_snapshot(&run.c0);
}

void sb_server_cost_end(void)
{
  if (!sb_server_cost_active())
    return;
  sb_cost_read(run.meas, &run.r);
  sb_counters_t c1;
  sb_counters_snapshot(&c1);
  run.events = c1.v[SB_CNT_EVENT] - run.c0.v[SB_CNT_EVENT];
  run.queries = (c1.v[SB_CNT_READ] - run.c0.v[SB_CNT_READ]) +
                (c1.v[SB_CNT_WRITE] - run.c0.v[SB_CNT_WRITE]) +
                (c1.v[SB_CNT_OTHER] - run.c0.v[SB_CNT_OTHER]);
  snprintf(run.counter_note, sizeof(run.counter_note), "%s", sb_cost_counter_note(run.meas));
  snprintf(run.server_note, sizeof(run.server_note), "%s", sb_cost_server_note(run.meas));
  run.have_end = true;
  /* close the counters now: one descriptor per server thread */
  sb_cost_free(run.meas);
  run.meas = NULL;
}

/* ---- report block -------------------------------------------------------------- */

static void line(const char *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(const char *label, const char *fmt, ...)
{
  char head[96];
  snprintf(head, sizeof(head), "    %s:", label);
  printf("%-38s ", head);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* value / n in `unit` scale, or "-" when there is nothing to divide by */
static void per(char *buf, size_t len, double value, uint64_t n, double scale, const char *fmt)
{
  if (n == 0 || value < 0)
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, fmt, value * scale / (double) n);
}

static void print_server(const sb_cost_reading_t *r)
{
  char a[64], b[64];
  if (sb_cost_tgt.kind == SB_COST_NONE)
  {
    line("server", "not measured: %s", sb_cost_tgt.reason);
    return;
  }
  line("server", "%s", sb_cost_tgt.what);
  if (!r->has_server_cpu)
  {
    line("server CPU", "not measured: %s", run.server_note[0] ? run.server_note
         : "the server's processes could not be read at the end");
    return;
  }
  double cpu = r->server_user_s + r->server_system_s;
  line("server CPU", "%.3fs  (user %.3fs, system %.3fs; %.2f CPUs busy)", cpu,
       r->server_user_s, r->server_system_s, r->elapsed_s > 0 ? cpu / r->elapsed_s : 0);
  per(a, sizeof(a), cpu, run.events, 1e6, "%.2f us");
  per(b, sizeof(b), cpu, run.queries, 1e6, "%.2f us");
  line("server CPU per transaction", "%s", a);
  line("server CPU per query", "%s", b);
  const char *ev = run.counter_note;
  if (!r->has_counter)
  {
    line(sb_perf_event_name(sb_perf_event_from_env()), "not counted: %s", run.counter_note);
    return;
  }
  char label[64];
  line(ev, "%.0f", r->counter);
  per(a, sizeof(a), r->counter, run.events, 1, "%.0f");
  per(b, sizeof(b), r->counter, run.queries, 1, "%.0f");
  snprintf(label, sizeof(label), "%.40s per transaction", ev);
  line(label, "%s", a);
  snprintf(label, sizeof(label), "%.40s per query", ev);
  line(label, "%s", b);
}

void sb_server_cost_print(void)
{
  if (!run.begun)
    return;
  log_lock();
  if (!run.have_end)
    printf("Server cost: no end sample (the run ended with workers inside an event)\n\n");
  else
  {
    const sb_cost_reading_t *r = &run.r;
    printf("Server cost (%.2fs from the start of the workers to their end):\n", r->elapsed_s);
    line("transactions / queries", "%" PRIu64 " / %" PRIu64 "  (the client's, in the window)",
         run.events, run.queries);
    print_server(r);
    char a[64];
    double cli = r->client_user_s + r->client_system_s;
    per(a, sizeof(a), cli, run.events, 1e6, "%.2f us");
    if (run.events)
      line("client CPU (bmk) per transaction", "%s  (user %.2f us, system %.2f us)", a,
           r->client_user_s * 1e6 / (double) run.events,
           r->client_system_s * 1e6 / (double) run.events);
    else
      line("client CPU (bmk) per transaction", "-");
    if (r->host_busy_pct >= 0)
      line("host CPU busy", "%.1f%% of %d CPUs", r->host_busy_pct, r->host_cpus);
    printf("\n");
  }
  fflush(stdout);
  log_unlock();
}

/* ---- results file ---------------------------------------------------------------- */

static json_t *num_or_null(bool ok, double v)
{
  return ok ? json_real(v) : json_null();
}

static json_t *per_json(const sb_cost_reading_t *r, uint64_t n)
{
  if (n == 0)
    return json_null();
  bool instr = r->has_counter && strcmp(run.counter_note, "instructions:u") == 0;
  bool clock = r->has_counter && strcmp(run.counter_note, "task-clock") == 0;
  json_t *o = json_object();
  json_object_set_new(o, "server_cpu_us", num_or_null(r->has_server_cpu,
    (r->server_user_s + r->server_system_s) * 1e6 / (double) n));
  json_object_set_new(o, "instructions", num_or_null(instr, r->counter / (double) n));
  if (clock)
    json_object_set_new(o, "task_clock_ns", json_real(r->counter / (double) n));
  json_object_set_new(o, "client_cpu_us",
                      json_real((r->client_user_s + r->client_system_s) * 1e6 / (double) n));
  return o;
}

static json_t *cpu_json(double user, double sys)
{
  json_t *o = json_object();
  json_object_set_new(o, "user", json_real(user));
  json_object_set_new(o, "system", json_real(sys));
  json_object_set_new(o, "total", json_real(user + sys));
  return o;
}

static json_t *target_json(void)
{
  if (sb_cost_tgt.kind == SB_COST_NONE)
    return json_null();
  json_t *t = json_object();
  json_object_set_new(t, "kind", json_string(sb_cost_tgt.kind == SB_COST_CGROUP
                                             ? "cgroup" : "processes"));
  json_t *pids = json_array();
  for (unsigned i = 0; i < sb_cost_tgt.npids; i++)
    json_array_append_new(pids, json_integer(sb_cost_tgt.pids[i]));
  json_object_set_new(t, "pids", sb_cost_tgt.kind == SB_COST_PIDS ? pids : json_null());
  if (sb_cost_tgt.kind != SB_COST_PIDS)
    json_decref(pids);
  json_object_set_new(t, "cgroup", sb_cost_tgt.kind == SB_COST_CGROUP
                      ? json_string(sb_cost_tgt.cgroup) : json_null());
  json_object_set_new(t, "found_by", json_string(sb_cost_tgt.found_by));
  json_object_set_new(t, "description", json_string(sb_cost_tgt.what));
  return t;
}

json_t *sb_server_cost_json(void)
{
  if (!run.begun)
    return NULL;
  const sb_cost_reading_t *r = &run.r;
  bool end = run.have_end;
  json_t *o = json_object();
  json_object_set_new(o, "complete", json_boolean(end));
  json_object_set_new(o, "window_s", num_or_null(end, r->elapsed_s));
  json_object_set_new(o, "target", target_json());
  json_object_set_new(o, "server_unavailable", sb_cost_tgt.kind == SB_COST_NONE
                      ? json_string(sb_cost_tgt.reason) : json_null());
  json_object_set_new(o, "transactions", json_integer((json_int_t) run.events));
  json_object_set_new(o, "queries", json_integer((json_int_t) run.queries));
  json_object_set_new(o, "server_cpu_s", end && r->has_server_cpu
                      ? cpu_json(r->server_user_s, r->server_system_s) : json_null());
  /* totals in the units of per_transaction, so a merge of several
     processes' files can divide them by the summed transactions */
  json_object_set_new(o, "server_cpu_us", num_or_null(end && r->has_server_cpu,
                      (r->server_user_s + r->server_system_s) * 1e6));
  bool instr = end && r->has_counter && strcmp(run.counter_note, "instructions:u") == 0;
  json_object_set_new(o, "instructions", instr ? json_integer((json_int_t) r->counter)
                                               : json_null());
  json_t *ctr = json_null();
  if (end && r->has_counter)
  {
    ctr = json_object();
    json_object_set_new(ctr, "event", json_string(run.counter_note));
    json_object_set_new(ctr, "count", json_integer((json_int_t) r->counter));
  }
  json_object_set_new(o, "counter", ctr);
  json_object_set_new(o, "counter_unavailable", end && !r->has_counter
                      ? json_string(run.counter_note) : json_null());
  json_object_set_new(o, "client_cpu_s", end ? cpu_json(r->client_user_s, r->client_system_s)
                                              : json_null());
  bool host = end && r->host_busy_pct >= 0;
  json_object_set_new(o, "host_cpu_busy_pct", num_or_null(host, r->host_busy_pct));
  json_object_set_new(o, "host_cpus", host ? json_integer(r->host_cpus) : json_null());
  json_object_set_new(o, "per_transaction", end ? per_json(r, run.events) : json_null());
  json_object_set_new(o, "per_query", end ? per_json(r, run.queries) : json_null());
  return o;
}
