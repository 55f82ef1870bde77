/* Server cost: the target (options and automatic discovery) and
   measurements; see sb_server_cost.h. The engine's window, its report
   block and JSON are in sb_server_cost_run.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_timer.h"
#include "server/sb_cpu_usage.h"
#include "server/sb_perf_count.h"
#include "server/sb_server_cost.h"
#include "server/sb_server_cost_priv.h"

/* A pid file's process must have started within this many seconds of the
   server's own start time (MySQL Uptime has 1 s steps; the server sets its
   start time after the process has started, before the storage engines
   load) to be taken as the server bmk is connected to. */
#define START_TOLERANCE_S 10.0

sb_cost_target_t sb_cost_tgt;

/* ---- options ------------------------------------------------------------ */

static int parse_pids(char **list, unsigned n)
{
  if (n > SB_COST_MAX_PIDS)
  {
    log_text(LOG_FATAL, "--server-pid: at most %d process ids", SB_COST_MAX_PIDS);
    return -1;
  }
  for (unsigned i = 0; i < n; i++)
  {
    char *end;
    errno = 0;
    long v = strtol(list[i], &end, 10);
    if (end == list[i] || *end != '\0' || v <= 0 || v > 0x7fffffffL || errno)
    {
      log_text(LOG_FATAL, "--server-pid: '%s' is not a process id (a positive number, or "
               "a comma-separated list of them)", list[i]);
      return -1;
    }
    sb_proc_stat_t st;
    if (sb_proc_stat_read((pid_t) v, &st) != 0 || st.state == 'Z')
    {
      log_text(LOG_FATAL, "--server-pid: no process %ld on this host (%s); bmk measures "
               "a local server only: give the pid of the database server running here "
               "(e.g. pidof mariadbd, or the first line of PostgreSQL's postmaster.pid)",
               v, st.state == 'Z' ? "it has exited" : strerror(errno));
      return -1;
    }
    sb_cost_tgt.pids[sb_cost_tgt.npids++] = (pid_t) v;
  }
  return 0;
}

/* "pid 12 (mariadbd)" / "pids 12 (postgres), 34 (postgres)" */
static void describe_pids(char *buf, size_t len)
{
  size_t n = (size_t) snprintf(buf, len, "pid%s ", sb_cost_tgt.npids > 1 ? "s" : "");
  for (unsigned i = 0; i < sb_cost_tgt.npids && n < len; i++)
  {
    char comm[64];
    sb_proc_comm(sb_cost_tgt.pids[i], comm, sizeof(comm));
    n += (size_t) snprintf(buf + n, len - n, "%s%d (%s)", i ? ", " : "",
                           (int) sb_cost_tgt.pids[i], comm);
  }
}

int sb_server_cost_configure(void)
{
  memset(&sb_cost_tgt, 0, sizeof(sb_cost_tgt));
  sb_cost_tgt.enabled = sb_opt_bool("server-cost");
  unsigned n = 0;
  char **pids = sb_opt_list("server-pid", &n);
  const char *cg = sb_opt_str("server-cgroup");
  bool have_cg = cg && *cg;
  if (n > 0 && have_cg)
  {
    log_text(LOG_FATAL, "--server-pid and --server-cgroup both given: measure either the "
             "server's processes or its cgroup, not both");
    return -1;
  }
  if (n > 0)
  {
    if (parse_pids(pids, n) != 0)
      return -1;
    sb_cost_tgt.kind = SB_COST_PIDS;
    sb_cost_tgt.explicit_target = true;
    char who[400];
    describe_pids(who, sizeof(who));
    snprintf(sb_cost_tgt.what, sizeof(sb_cost_tgt.what), "%s and %s child processes", who,
             n > 1 ? "their" : "its");
    snprintf(sb_cost_tgt.found_by, sizeof(sb_cost_tgt.found_by), "--server-pid");
    snprintf(sb_cost_tgt.desc, sizeof(sb_cost_tgt.desc), "%s (--server-pid)",
             sb_cost_tgt.what);
  }
  else if (have_cg)
  {
    char why[1024];
    if (sb_cgroup_resolve(cg, sb_cost_tgt.cgroup, sizeof(sb_cost_tgt.cgroup), why,
                          sizeof(why)) != 0)
    {
      log_text(LOG_FATAL, "--server-cgroup: %s", why);
      return -1;
    }
    sb_cost_tgt.kind = SB_COST_CGROUP;
    sb_cost_tgt.explicit_target = true;
    snprintf(sb_cost_tgt.what, sizeof(sb_cost_tgt.what), "cgroup %s", sb_cost_tgt.cgroup);
    snprintf(sb_cost_tgt.found_by, sizeof(sb_cost_tgt.found_by), "--server-cgroup");
    snprintf(sb_cost_tgt.desc, sizeof(sb_cost_tgt.desc), "%s (--server-cgroup)",
             sb_cost_tgt.what);
  }
  if (sb_cost_tgt.explicit_target)
  {
    /* a target asks for the measurement (also under the sysbench persona,
       where --server-cost defaults to off) unless it was turned off */
    if (!sb_cost_tgt.enabled && sb_opt_given("server-cost"))
    {
      log_text(LOG_FATAL, "--server-cost=off contradicts --server-%s",
               have_cg ? "cgroup" : "pid");
      return -1;
    }
    sb_cost_tgt.enabled = true;
  }
  return 0;
}

/* ---- finding the server behind a connection --------------------------------- */

/* Runs `sql` on `con` and copies the first row's first `n` values into
   vals[i] (cap bytes each; "" for NULL). Returns 0, or -1 when the query
   failed or returned no row (the error is cleared: the connection stays
   usable). */
static int query_row(db_conn_t *con, const char *sql, unsigned n, char vals[][512])
{
  db_result_t *rs = db_query(con, sql, strlen(sql));
  if (rs == NULL)
  {
    db_clear_error(con);
    return -1;
  }
  db_row_t *r = db_fetch_row(rs);
  int rc = r ? 0 : -1;
  for (unsigned i = 0; r && i < n; i++)
  {
    size_t l = 0;
    const char *v = i < db_result_nfields(rs) ? db_row_value(r, rs, i, &l) : NULL;
    snprintf(vals[i], 512, "%.*s", (int) l, v ? v : "");
  }
  db_free_results(rs);
  return rc;
}

/* First line of `path` as a pid: > 0, or 0 with a reason in `why`. */
static pid_t pid_from_file(const char *path, const char *what, char *why, size_t len)
{
  FILE *f = fopen(path, "re");
  if (f == NULL)
  {
    snprintf(why, len, "the server's %s '%s' is not readable here (%s): the server runs on "
             "another host, in a container, or as a user whose files bmk cannot read",
             what, path, strerror(errno));
    return 0;
  }
  long v = 0;
  if (fscanf(f, "%ld", &v) != 1 || v <= 0)
    v = 0;
  fclose(f);
  if (v == 0)
    snprintf(why, len, "the server's %s '%s' holds no process id", what, path);
  return (pid_t) v;
}

/* The pid in the pid file must be a live process that started when the
   server bmk talks to did: a pid file of another server (or of a remote
   server's path that happens to exist here) must not be measured. */
static bool pid_matches(pid_t pid, double server_start, const char *path, char *why, size_t len)
{
  sb_proc_stat_t st;
  if (sb_proc_stat_read(pid, &st) != 0 || st.state == 'Z')
  {
    snprintf(why, len, "'%s' names pid %d, which is not running on this host (a stale pid "
             "file, or the server runs on another host)", path, (int) pid);
    return false;
  }
  double started = sb_proc_start_epoch(pid);
  if (server_start > 0 && started > 0 && fabs(started - server_start) > START_TOLERANCE_S)
  {
    snprintf(why, len, "'%s' names pid %d, which started %.0f s %s the server bmk is "
             "connected to: not the same server (another host, or another instance)",
             path, (int) pid, fabs(started - server_start),
             started < server_start ? "before" : "after");
    return false;
  }
  return true;
}

static void join_path(char *out, size_t len, const char *dir, const char *file)
{
  size_t d = strlen(dir);
  snprintf(out, len, "%s%s%s", dir, d && dir[d - 1] == '/' ? "" : "/", file);
}

static pid_t locate_mysql(db_conn_t *con, char *path, size_t plen, char *why, size_t wlen)
{
  char v[2][512];
  if (query_row(con, "SELECT @@pid_file, @@datadir", 2, v) != 0)
  {
    snprintf(why, wlen, "cannot read @@pid_file from the server: %s",
             db_conn_sql_errmsg(con) ? db_conn_sql_errmsg(con) : "no row");
    return 0;
  }
  if (v[0][0] == '\0')
  {
    snprintf(why, wlen, "the server has no pid file (@@pid_file is empty)");
    return 0;
  }
  /* a relative pid_file is relative to the data directory */
  if (v[0][0] == '/')
    snprintf(path, plen, "%s", v[0]);
  else
    join_path(path, plen, v[1], v[0]);
  char up[2][512];
  double server_start = -1;
  if (query_row(con, "SHOW GLOBAL STATUS LIKE 'Uptime'", 2, up) == 0)
    server_start = (double) time(NULL) - strtod(up[1], NULL);
  pid_t pid = pid_from_file(path, "pid file (@@pid_file)", why, wlen);
  if (pid > 0 && !pid_matches(pid, server_start, path, why, wlen))
    return 0;
  return pid;
}

static pid_t locate_pgsql(db_conn_t *con, char *path, size_t plen, char *why, size_t wlen)
{
  /* pg_settings shows data_directory to superusers and members of
     pg_read_all_settings only; others get no row instead of an error. */
  char v[2][512];
  if (query_row(con, "SELECT (SELECT setting FROM pg_settings WHERE name = 'data_directory'), "
                "date_part('epoch', pg_postmaster_start_time())", 2, v) != 0)
  {
    snprintf(why, wlen, "cannot read data_directory from the server: %s",
             db_conn_sql_errmsg(con) ? db_conn_sql_errmsg(con) : "no row");
    return 0;
  }
  if (v[0][0] == '\0')
  {
    snprintf(why, wlen, "the server does not show this user its data_directory (needs a "
             "superuser or a member of pg_read_all_settings)");
    return 0;
  }
  join_path(path, plen, v[0], "postmaster.pid");
  pid_t pid = pid_from_file(path, "postmaster.pid", why, wlen);
  if (pid > 0 && !pid_matches(pid, strtod(v[1], NULL), path, why, wlen))
    return 0;
  return pid;
}

/* Finds the server behind `con` into sb_cost_tgt (kind PIDS) or leaves
   a reason. Its queries are counted nowhere. */
static void locate_auto(db_conn_t *con)
{
  char path[1024] = "", why[sizeof(sb_cost_tgt.reason)] = "";
  int owner = con->thread_id;
  con->thread_id = SB_TID_UNCOUNTED;
  bool pg = strcmp(db_driver_name(con->driver), "pgsql") == 0;
  pid_t pid = pg ? locate_pgsql(con, path, sizeof(path), why, sizeof(why))
                 : locate_mysql(con, path, sizeof(path), why, sizeof(why));
  con->thread_id = owner;
  if (pid <= 0)
  {
    snprintf(sb_cost_tgt.reason, sizeof(sb_cost_tgt.reason), "%s", why);
    return;
  }
  sb_cost_tgt.kind = SB_COST_PIDS;
  sb_cost_tgt.npids = 1;
  sb_cost_tgt.pids[0] = pid;
  char who[128];
  describe_pids(who, sizeof(who));
  snprintf(sb_cost_tgt.what, sizeof(sb_cost_tgt.what), "%s and its child processes", who);
  snprintf(sb_cost_tgt.found_by, sizeof(sb_cost_tgt.found_by), "%s %s",
           pg ? "postmaster.pid" : "@@pid_file", path);
  snprintf(sb_cost_tgt.desc, sizeof(sb_cost_tgt.desc), "%s (found through %s)",
           sb_cost_tgt.what, sb_cost_tgt.found_by);
}

int sb_cost_locate(db_conn_t *con, char *buf, size_t len)
{
  if (!sb_cost_tgt.enabled)
    snprintf(sb_cost_tgt.reason, sizeof(sb_cost_tgt.reason), "turned off (--server-cost=off)");
  else if (!sb_cost_tgt.explicit_target)
  {
    sb_cost_tgt.kind = SB_COST_NONE;
    sb_cost_tgt.desc[0] = '\0';
    if (con != NULL && con->state == DB_CONN_READY)
      locate_auto(con);
    else
      snprintf(sb_cost_tgt.reason, sizeof(sb_cost_tgt.reason), "no connection to ask the "
               "server where it runs");
  }
  int found = sb_cost_tgt.kind != SB_COST_NONE;
  snprintf(buf, len, "%s", found ? sb_cost_tgt.desc : sb_cost_tgt.reason);
  return found;
}

/* ---- measurements -------------------------------------------------------- */

struct sb_cost_meas {
  sb_cost_kind_t kind;
  unsigned npids;
  pid_t pids[SB_COST_MAX_PIDS];
  char cgroup[sizeof(sb_cost_tgt.cgroup)];
  bool have_server;            /* start sample of the server taken */
  char server_note[256];       /* why not */
  uint64_t srv_user0, srv_sys0;
  sb_perf_set_t perf;
  uint64_t t0_ns;
  uint64_t cli_user0, cli_sys0;
  bool have_host;
  sb_host_cpu_t host0;
  char counter_note[sizeof(((sb_perf_set_t *) 0)->why) + 32];
};

static int server_cpu(const sb_cost_meas_t *m, uint64_t *user, uint64_t *sys)
{
  if (m->kind == SB_COST_CGROUP)
    return sb_cgroup_cpu(m->cgroup, user, sys);
  sb_tree_cpu_t t;
  if (sb_tree_cpu(m->pids, m->npids, &t) != 0)
    return -1;
  *user = t.user_us;
  *sys = t.system_us;
  return 0;
}

sb_cost_meas_t *sb_cost_start(void)
{
  sb_cost_meas_t *m = calloc(1, sizeof(*m));
  if (m == NULL)
    return NULL;
  m->kind = sb_cost_tgt.kind;
  m->npids = sb_cost_tgt.npids;
  memcpy(m->pids, sb_cost_tgt.pids, sizeof(m->pids));
  snprintf(m->cgroup, sizeof(m->cgroup), "%s", sb_cost_tgt.cgroup);
  sb_perf_event_t ev = sb_perf_event_from_env();
  /* The window opens with the server's CPU sample: attaching a counter to
     every server thread and scanning /proc take milliseconds, so the
     other samples sit right beside it, in the same order as in
     sb_cost_read. */
  if (m->kind == SB_COST_NONE)
    snprintf(m->counter_note, sizeof(m->counter_note), "no server to count");
  else
  {
    int rc = m->kind == SB_COST_CGROUP ? sb_perf_open_cgroup(&m->perf, ev, m->cgroup)
                                       : sb_perf_open_tree(&m->perf, ev, m->pids, m->npids);
    snprintf(m->counter_note, sizeof(m->counter_note), "%s",
             rc == 0 ? sb_perf_event_name(ev) : m->perf.why);
  }
  sb_perf_start(&m->perf);
  if (m->kind != SB_COST_NONE)
  {
    if (server_cpu(m, &m->srv_user0, &m->srv_sys0) == 0)
      m->have_server = true;
    else
      snprintf(m->server_note, sizeof(m->server_note), "cannot read the server's CPU time: %s",
               strerror(errno));
  }
  m->t0_ns = sb_now_ns();
  m->have_host = sb_host_cpu(&m->host0) == 0;
  sb_self_cpu(&m->cli_user0, &m->cli_sys0);
  return m;
}

int sb_cost_read(sb_cost_meas_t *m, sb_cost_reading_t *out)
{
  memset(out, 0, sizeof(*out));
  uint64_t count = 0;
  out->has_counter = m->perf.ok && sb_perf_read(&m->perf, &count) == 0;
  out->counter = out->has_counter ? (double) count : -1;
  uint64_t u = 0, s = 0;
  out->has_server_cpu = m->have_server && server_cpu(m, &u, &s) == 0;
  if (m->have_server && !out->has_server_cpu && m->server_note[0] == '\0')
  {
    /* a process's CPU time ends with it: after a restart there is no
       honest figure for the window, only this note */
    if (m->kind == SB_COST_PIDS)
      snprintf(m->server_note, sizeof(m->server_note), "pid %d is gone at the end of the "
               "run (the server exited or restarted during it), and its CPU time with it",
               (int) m->pids[0]);
    else
      snprintf(m->server_note, sizeof(m->server_note), "cannot read the server's CPU time "
               "at the end: %s", strerror(errno));
  }
  if (out->has_server_cpu)
  {
    /* ticks are truncated per process: never report a negative time */
    out->server_user_s = u >= m->srv_user0 ? (double) (u - m->srv_user0) / 1e6 : 0;
    out->server_system_s = s >= m->srv_sys0 ? (double) (s - m->srv_sys0) / 1e6 : 0;
  }
  else
    out->server_user_s = out->server_system_s = -1;
  out->elapsed_s = (double) (sb_now_ns() - m->t0_ns) / 1e9;
  sb_host_cpu_t h;
  out->host_busy_pct = -1;
  if (m->have_host && sb_host_cpu(&h) == 0)
  {
    out->host_cpus = (int) h.ncpus;
    if (h.total > m->host0.total)
      out->host_busy_pct = (double) (h.busy - m->host0.busy) * 100.0 /
                           (double) (h.total - m->host0.total);
  }
  sb_self_cpu(&u, &s);
  out->client_user_s = (double) (u - m->cli_user0) / 1e6;
  out->client_system_s = (double) (s - m->cli_sys0) / 1e6;
  return 0;
}

const char *sb_cost_counter_note(const sb_cost_meas_t *m)
{
  return m ? m->counter_note : "";
}

const char *sb_cost_server_note(const sb_cost_meas_t *m)
{
  return m ? m->server_note : "";
}

void sb_cost_free(sb_cost_meas_t *m)
{
  if (m == NULL)
    return;
  sb_perf_close(&m->perf);
  free(m);
}
