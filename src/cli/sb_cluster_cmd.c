/* `bmk cluster run`; see cli/sb_cluster_cmd.h and docs/cluster.md. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/sb_cli_usage.h"
#include "cli/sb_cluster_cmd.h"
#include "cli/sb_cluster_proc.h"
#include "core/sb_logger.h"
#include "core/sb_version.h"
#include "results/sb_cluster_merge.h"

#define MAX_PROCS 1024

static const char usage[] =
  "usage: bmk cluster run --hosts=FILE [--launcher=TEMPLATE] [--remote-bmk=PATH]\n"
  "           [--cluster-on-failure=continue|stop] [--cluster-verbose] [--results=FILE]\n"
  "           [--max-clock-offset=MS] [--ready-timeout=S] -- <bmk run arguments>\n"
  "  --hosts=FILE        one entry per line: HOST [PROCESSES] (default 1; '#' comments)\n"
  "  --launcher=T        command starting a process on {host}; default: ssh -o BatchMode=yes\n"
  "                      with one multiplexed connection per host; 'local': on this host\n"
  "  --remote-bmk=PATH   the bmk to run on the hosts (default: this binary's path)\n"
  "  --cluster-on-failure=continue|stop  a process lost mid-run: go on (default) or stop all\n"
  "  --cluster-verbose   a line per process under each merged interval line\n"
  "  --results=FILE      the cluster's JSON document (exact merge, per-process section)\n"
  "  --max-clock-offset=MS  refuse hosts whose clock is further off (default 50)\n"
  "  --ready-timeout=S   how long the processes may take to connect and init (default 120)\n"
  "See docs/cluster.md.\n";

typedef struct {
  const char *hosts, *launcher, *remote_bmk, *results;
  bool stop_on_failure, verbose;
  double max_offset_ms, ready_timeout_s;
  int nargs;
  char **args;                 /* the bmk run arguments */
  /* from the run arguments */
  double interval_s;
  bool intervals;
  unsigned threads, percentile;
} cl_opts_t;

typedef struct {
  cl_opts_t o;
  clp_t *p;
  unsigned n;
  char dir[256];               /* logs and ssh control sockets */
  sb_cl_merge_t *merge;
  double start_epoch;          /* the start time, Unix s */
  int failures;                /* processes lost during the run */
  bool stopping;
} cl_t;

static int sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
  got_signal = sig;
  char c = 1;
  ssize_t r = write(sig_pipe[1], &c, 1);
  (void) r;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bad(const char *fmt, const char *a)
{
  char msg[512];
  snprintf(msg, sizeof(msg), fmt, a);
  return sb_cli_usage_error("bmk cluster run", usage, "%s", msg);
}

/* The run arguments' values the coordinator needs too. */
static void scan_run_args(cl_opts_t *o)
{
  o->interval_s = 1;
  o->threads = 1;
  o->percentile = 95;
  for (int i = 0; i < o->nargs; i++)
  {
    const char *a = o->args[i];
    if (strncmp(a, "--report-interval=", 18) == 0 && atof(a + 18) > 0)
    {
      o->interval_s = atof(a + 18);
      o->intervals = true;
    }
    else if (strncmp(a, "--threads=", 10) == 0 && atoi(a + 10) > 0)
      o->threads = (unsigned) atoi(a + 10);
    else if (strncmp(a, "--percentile=", 13) == 0)
      o->percentile = (unsigned) atoi(a + 13);
    else if (strncmp(a, "--results=", 10) == 0 && o->results == NULL)
      o->results = a + 10;
  }
}

static int parse_opts(int argc, char **argv, cl_opts_t *o)
{
  memset(o, 0, sizeof(*o));
  o->max_offset_ms = 50;
  o->ready_timeout_s = 120;
  if (argc < 3 || strcmp(argv[2], "run") != 0)
    return bad("%s", "the only subcommand is 'run'");
  int i = 3;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++)
  {
    const char *a = argv[i], *v = strchr(a, '=');
    v = v ? v + 1 : "";
    if (strncmp(a, "--hosts=", 8) == 0)
      o->hosts = v;
    else if (strncmp(a, "--launcher=", 11) == 0)
      o->launcher = v;
    else if (strncmp(a, "--remote-bmk=", 13) == 0)
      o->remote_bmk = v;
    else if (strncmp(a, "--results=", 10) == 0)
      o->results = v;
    else if (strcmp(a, "--cluster-verbose") == 0)
      o->verbose = true;
    else if (strncmp(a, "--cluster-on-failure=", 21) == 0)
    {
      if (strcmp(v, "stop") != 0 && strcmp(v, "continue") != 0)
        return bad("--cluster-on-failure=%s: give continue or stop", v);
      o->stop_on_failure = strcmp(v, "stop") == 0;
    }
    else if (strncmp(a, "--max-clock-offset=", 19) == 0)
      o->max_offset_ms = atof(v);
    else if (strncmp(a, "--ready-timeout=", 16) == 0)
      o->ready_timeout_s = atof(v);
    else
      return bad("unknown option %s (the bmk run arguments come after --)", a);
  }
  if (o->hosts == NULL || !*o->hosts)
    return bad("%s", "--hosts=FILE is required");
  if (i >= argc - 1)
    return bad("%s", "no bmk run arguments after --");
  o->args = argv + i + 1;
  o->nargs = argc - i - 1;
  scan_run_args(o);
  return 0;
}

/* One hosts-file entry into c->p. Returns 0, or 1 (message printed). */
static int add_entry(cl_t *c, const char *file, int lineno, char *line, int *first_line)
{
  char host[64] = "", extra[64] = "";
  long procs = 1;
  char pbuf[32] = "";
  int n = sscanf(line, "%63s %31s %63s", host, pbuf, extra);
  if (n <= 0)
    return 0;
  if (n == 3)
  {
    log_text(LOG_FATAL, "%s line %d: '%s': expected HOST [PROCESSES]", file, lineno, line);
    return 1;
  }
  for (const char *h = host; *h; h++)
    if (!isalnum((unsigned char) *h) && !strchr(".-_@:[]", *h))
    {
      log_text(LOG_FATAL, "%s line %d: '%s' is not a host name", file, lineno, host);
      return 1;
    }
  if (n == 2)
  {
    char *end;
    procs = strtol(pbuf, &end, 10);
    if (*end || procs < 1 || procs > 256)
    {
      log_text(LOG_FATAL, "%s line %d: '%s': the process count must be 1 to 256", file,
               lineno, pbuf);
      return 1;
    }
  }
  for (unsigned i = 0; i < c->n; i++)
    if (strcmp(c->p[i].host, host) == 0)
    {
      log_text(LOG_FATAL, "%s line %d: host '%s' is already listed on line %d: its process "
               "slots would be started twice; give one entry 'HOST PROCESSES'", file, lineno,
               host, first_line[i]);
      return 1;
    }
  for (long s = 0; s < procs; s++)
  {
    if (c->n >= MAX_PROCS)
    {
      log_text(LOG_FATAL, "%s: more than %d processes", file, MAX_PROCS);
      return 1;
    }
    clp_t *p = &c->p[c->n];
    memset(p, 0, sizeof(*p));
    snprintf(p->host, sizeof(p->host), "%s", host);
    p->slot = (unsigned) s;
    snprintf(p->name, sizeof(p->name), "%s#%ld", host, s);
    p->in_fd = p->out_fd = -1;
    first_line[c->n++] = lineno;
  }
  return 0;
}

static int read_hosts(cl_t *c)
{
  FILE *f = fopen(c->o.hosts, "r");
  if (f == NULL)
  {
    log_text(LOG_FATAL, "cannot read the hosts file %s: %s", c->o.hosts, strerror(errno));
    return 1;
  }
  c->p = calloc(MAX_PROCS, sizeof(*c->p));
  int *first = calloc(MAX_PROCS, sizeof(int));
  char line[512];
  int lineno = 0, rc = c->p && first ? 0 : 1;
  while (rc == 0 && fgets(line, sizeof(line), f))
  {
    lineno++;
    line[strcspn(line, "#\r\n")] = '\0';
    rc = add_entry(c, c->o.hosts, lineno, line, first);
  }
  fclose(f);
  free(first);
  if (rc == 0 && c->n == 0)
  {
    log_text(LOG_FATAL, "the hosts file %s lists no host", c->o.hosts);
    rc = 1;
  }
  return rc;
}

/* Appends `w` to the growing argv (*v, *n); 0 or -1 on OOM. */
static int push(char ***v, size_t *n, char *w)
{
  char **nv = realloc(*v, (*n + 2) * sizeof(char *));
  if (nv == NULL || w == NULL)
  {
    if (nv)
      *v = nv;
    return -1;
  }
  *v = nv;
  nv[(*n)++] = w;
  nv[*n] = NULL;
  return 0;
}

/* `tmpl` with every {host} replaced by `host` (malloc'd). */
static char *subst_host(const char *tmpl, const char *host)
{
  size_t cap = strlen(tmpl) * 2 + strlen(host) * 4 + 1, o = 0;
  char *r = malloc(cap);
  if (r == NULL)
    return NULL;
  for (const char *s = tmpl; *s;)
  {
    if (strncmp(s, "{host}", 6) == 0 && o + strlen(host) < cap)
    {
      o += (size_t) sprintf(r + o, "%s", host);
      s += 6;
    }
    else if (o + 1 < cap)
      r[o++] = *s++;
    else
      break;
  }
  r[o] = '\0';
  return r;
}

/* The launcher's words for p, then the remote bmk's (shell-quoted when
   the launcher is ssh, which hands one command line to the remote
   shell). NULL on OOM. */
static char **build_argv(cl_t *c, const clp_t *p, unsigned index)
{
  char **v = NULL;
  size_t n = 0;
  char tmpl[1024];
  if (c->o.launcher == NULL)
    snprintf(tmpl, sizeof(tmpl), "ssh -o BatchMode=yes -o ControlMaster=auto "
             "-o ControlPath=%s/cm-%%C -o ControlPersist=no {host}", c->dir);
  else
    snprintf(tmpl, sizeof(tmpl), "%s", strcmp(c->o.launcher, "local") == 0 ? "" : c->o.launcher);
  char *save = NULL;
  for (char *w = strtok_r(tmpl, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
    if (push(&v, &n, subst_host(w, p->host)) != 0)
      return NULL;
  const char *base = n ? strrchr(v[0], '/') : NULL;
  bool quote = n && strcmp(base ? base + 1 : v[0], "ssh") == 0;
  char buf[64];
  size_t first = n;
  if (push(&v, &n, strdup(c->o.remote_bmk)) != 0)
    return NULL;
  for (int i = 0; i < c->o.nargs; i++)
    if (strncmp(c->o.args[i], "--results=", 10) != 0 &&
        strncmp(c->o.args[i], "--hdr-log=", 10) != 0 &&
        push(&v, &n, strdup(c->o.args[i])) != 0)
      return NULL;
  snprintf(buf, sizeof(buf), "--cluster-index=%u", index);
  if (push(&v, &n, strdup(buf)) != 0)
    return NULL;
  snprintf(buf, sizeof(buf), "--cluster-size=%u", c->n);
  if (push(&v, &n, strdup(buf)) != 0 || push(&v, &n, strdup("--cluster-stream")) != 0)
    return NULL;
  for (size_t i = first; quote && i < n; i++)
  {
    char *q = clp_shell_quote(v[i]);
    if (q == NULL)
      return NULL;
    free(v[i]);
    v[i] = q;
  }
  return v;
}

static void free_argv(char **v)
{
  for (size_t i = 0; v && v[i]; i++)
    free(v[i]);
  free(v);
}

/* Why p ended, from its exit status and its stderr's last line. */
static void why_ended(clp_t *p, char *buf, size_t size)
{
  char last[300];
  clp_reap(p, 2000);
  clp_last_log_line(p, last, sizeof(last));
  if (!last[0])
    snprintf(last, sizeof(last), "%s", p->last_out);
  char st[64] = "still running";
  if (p->reaped && WIFEXITED(p->status))
    snprintf(st, sizeof(st), "exit %d", WEXITSTATUS(p->status));
  else if (p->reaped && WIFSIGNALED(p->status))
    snprintf(st, sizeof(st), "killed by signal %d", WTERMSIG(p->status));
  snprintf(buf, size, "%s%s%s", st, last[0] ? ": " : "", last);
}

/* Sends "stop" to every process still running (once). */
static void stop_all(cl_t *c)
{
  if (c->stopping)
    return;
  c->stopping = true;
  for (unsigned i = 0; i < c->n; i++)
    if (!c->p[i].finished)
      clp_send(&c->p[i], "stop\n");
}

/* Whatever is still running is ended: stdin closed (the children stop),
   then SIGTERM and SIGKILL to the launchers' process groups; all reaped. */
static void end_all(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
    clp_close_in(&c->p[i]);
  double deadline = now_s() + 3;
  for (unsigned i = 0; i < c->n; i++)
  {
    int left = (int) ((deadline - now_s()) * 1000);
    clp_reap(&c->p[i], left > 0 ? left : 0);
  }
  for (unsigned i = 0; i < c->n; i++)
    if (!clp_reap(&c->p[i], 0))
      clp_kill(&c->p[i], SIGTERM);
  for (unsigned i = 0; i < c->n; i++)
    if (!clp_reap(&c->p[i], 2000))
    {
      clp_kill(&c->p[i], SIGKILL);
      clp_reap(&c->p[i], 2000);
    }
  for (unsigned i = 0; i < c->n; i++)
  {
    if (c->p[i].out_fd >= 0)
      close(c->p[i].out_fd);
    c->p[i].out_fd = -1;
    free(c->p[i].buf);
    c->p[i].buf = NULL;
  }
}

/* A process's stream ended: before its end line that is a failure,
   named with the time. */
static void proc_eof(cl_t *c, unsigned i)
{
  clp_t *p = &c->p[i];
  if (p->finished)
    return;
  p->finished = true;
  char why[400];
  why_ended(p, why, sizeof(why));
  if (!p->ready)
  {
    log_text(LOG_FATAL, "cluster: host %s (%s) failed before it was ready: %s (log: %s)",
             p->host, p->name, why, p->log);
    return;
  }
  if (p->ended)
    return;
  double at = c->start_epoch > 0 ? now_s() - c->start_epoch : 0;
  if (c->start_epoch > 0)
  {
    c->failures++;
    log_text(LOG_ALERT, "cluster: host %s (%s): connection lost at %.0f s: %s", p->host,
             p->name, at < 0 ? 0 : at, why);
  }
  if (c->merge)
    sb_cl_merge_finish(c->merge, i, at < 0 ? 0 : at, why);
}

/* Handles one stream line of process i. Returns 0, or 1 when the run
   must end (message printed). */
static int on_line(cl_t *c, unsigned i, const char *line)
{
  clp_t *p = &c->p[i];
  sb_cl_msg_t m;
  char err[200];
  int r = sb_cl_parse(line, &m, err, sizeof(err));
  if (r == 0)
  {
    if (line[0])
      snprintf(p->last_out, sizeof(p->last_out), "%s", line);
    return 0;
  }
  if (r < 0)
  {
    log_text(LOG_FATAL, "cluster: host %s (%s): %s", p->host, p->name, err);
    return 1;
  }
  if (m.kind == SB_CL_READY)
  {
    p->ready = true;
    p->remote_pid = m.pid;
    if (strcmp(m.version, sb_bmk_release()) != 0)
    {
      log_text(LOG_FATAL, "cluster: host %s (%s) runs bmk %s, this is bmk %s: install the "
               "same version there (or give its path with --remote-bmk)", p->host, p->name,
               m.version, sb_bmk_release());
      return 1;
    }
  }
  else if (m.kind == SB_CL_PONG)
    p->pong_us = m.pong_us;
  else if (c->merge)
  {
    if (m.kind == SB_CL_END)
    {
      p->ended = true;
      if (sb_cl_merge_add(c->merge, i, &m) != 0)
        return 1;
      sb_cl_merge_finish(c->merge, i, -1, NULL);
      p->finished = true;
    }
    else if (sb_cl_merge_add(c->merge, i, &m) != 0)
      return 1;
    sb_cl_merge_flush(c->merge, stdout, false);
  }
  sb_cl_msg_free(&m);
  return 0;
}

/* Waits up to timeout_ms for output of the processes and handles it.
   Returns 0, or 1 when the run must end (message printed). */
static int pump(cl_t *c, int timeout_ms)
{
  struct pollfd fds[MAX_PROCS + 1];
  unsigned idx[MAX_PROCS];
  nfds_t n = 0;
  fds[n++] = (struct pollfd) { .fd = sig_pipe[0], .events = POLLIN };
  for (unsigned i = 0; i < c->n; i++)
    if (!c->p[i].eof && c->p[i].out_fd >= 0)
    {
      idx[n - 1] = i;
      fds[n++] = (struct pollfd) { .fd = c->p[i].out_fd, .events = POLLIN };
    }
  int r = poll(fds, n, timeout_ms);
  if (r <= 0)
    return 0;
  if (fds[0].revents)
  {
    char buf[16];
    ssize_t rr = read(sig_pipe[0], buf, sizeof(buf));
    (void) rr;
  }
  for (nfds_t k = 1; k < n; k++)
  {
    if (!fds[k].revents)
      continue;
    unsigned i = idx[k - 1];
    clp_t *p = &c->p[i];
    int got;
    while ((got = clp_fill(p)) > 0)
    {
      char *line;
      while ((line = clp_next_line(p)) != NULL)
        if (on_line(c, i, line) != 0)
          return 1;
    }
    if (p->eof)
      proc_eof(c, i);
  }
  return 0;
}

static bool all(const cl_t *c, bool ready)
{
  for (unsigned i = 0; i < c->n; i++)
    if (ready ? !c->p[i].ready : !c->p[i].finished)
      return false;
  return true;
}

/* Starts every process and waits for their ready lines. 0, or the exit
   code (message printed). */
static int launch_and_wait(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
  {
    clp_t *p = &c->p[i];
    snprintf(p->log, sizeof(p->log), "%s/%s.log", c->dir, p->name);
    char **argv = build_argv(c, p, i);
    if (argv == NULL || clp_launch(p, argv) != 0)
    {
      free_argv(argv);
      return 1;
    }
    free_argv(argv);
  }
  double deadline = now_s() + c->o.ready_timeout_s;
  while (!all(c, true))
  {
    if (pump(c, 200) != 0)
      return 1;
    if (got_signal)
      return got_signal == SIGTERM ? 143 : 130;
    for (unsigned i = 0; i < c->n; i++)
      if (c->p[i].finished && !c->p[i].ready)
        return 1;
    if (now_s() > deadline)
    {
      for (unsigned i = 0; i < c->n; i++)
        if (!c->p[i].ready)
          log_text(LOG_FATAL, "cluster: host %s (%s) not ready after %.0f s (--ready-timeout; "
                   "log: %s)", c->p[i].host, c->p[i].name, c->o.ready_timeout_s, c->p[i].log);
      return 1;
    }
  }
  return 0;
}

/* Clock offsets: three pings per process over its stream, the one with
   the shortest round trip kept. 0, or 1 when a host is too far off or
   does not answer (message printed). */
static int measure_offsets(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
  {
    clp_t *p = &c->p[i];
    p->rtt_ms = -1;
    for (int k = 0; k < 3; k++)
    {
      p->pong_us = 0;
      double t0 = now_s();
      clp_send(p, "ping\n");
      while (p->pong_us == 0 && !p->finished && now_s() - t0 < 10 && !got_signal)
        if (pump(c, 100) != 0)
          return 1;
      double t1 = now_s();
      if (p->pong_us == 0)
      {
        if (!p->finished)
          log_text(LOG_FATAL, "cluster: host %s (%s) did not answer the clock probe",
                   p->host, p->name);
        return 1;
      }
      double rtt = (t1 - t0) * 1000, off = ((double) p->pong_us / 1e6 - (t0 + t1) / 2) * 1000;
      if (p->rtt_ms < 0 || rtt < p->rtt_ms)
      {
        p->rtt_ms = rtt;
        p->offset_ms = off;
      }
    }
    log_text(LOG_NOTICE, "cluster: %s ready (pid %ld), clock offset %+.2f ms (round trip "
             "%.2f ms)", p->name, p->remote_pid, p->offset_ms, p->rtt_ms);
    if (fabs(p->offset_ms) > c->o.max_offset_ms)
    {
      log_text(LOG_FATAL, "cluster: host %s: its clock is %+.1f ms off this host's, above "
               "--max-clock-offset=%g ms: synchronise the clocks (chrony or NTP) and run again",
               p->host, p->offset_ms, c->o.max_offset_ms);
      return 1;
    }
  }
  return 0;
}

/* Sends the start time: late enough for the slowest round trip. */
static void send_start(cl_t *c)
{
  double rtt = 0;
  for (unsigned i = 0; i < c->n; i++)
    if (c->p[i].rtt_ms > rtt)
      rtt = c->p[i].rtt_ms;
  c->start_epoch = now_s() + 0.2 + 2 * rtt / 1000;
  char line[64];
  snprintf(line, sizeof(line), "start %llu\n",
           (unsigned long long) llround(c->start_epoch * 1e6));
  for (unsigned i = 0; i < c->n; i++)
    clp_send(&c->p[i], line);
  log_text(LOG_NOTICE, "cluster: %u processes start together\n", c->n);
}

/* The run: merges until every process has ended or was lost. Returns
   the exit code so far (0, or 130/143 after a signal). */
static int run_loop(cl_t *c)
{
  int rc = 0;
  double stop_deadline = 0;
  while (!all(c, false))
  {
    if (pump(c, 500) != 0)
    {
      rc = 1;
      stop_all(c);
    }
    if (got_signal && !c->stopping)
    {
      rc = got_signal == SIGTERM ? 143 : 130;
      log_text(LOG_NOTICE, "cluster: interrupted: stopping every process");
      stop_all(c);
    }
    if (c->failures > 0 && c->o.stop_on_failure && !c->stopping)
    {
      log_text(LOG_NOTICE, "cluster: --cluster-on-failure=stop: stopping every process");
      stop_all(c);
    }
    if (c->stopping && stop_deadline == 0)
      stop_deadline = now_s() + 15;
    if (stop_deadline > 0 && now_s() > stop_deadline)
    {
      for (unsigned i = 0; i < c->n; i++)
        if (!c->p[i].finished)
        {
          log_text(LOG_ALERT, "cluster: host %s (%s) did not stop within 15 s: ended",
                   c->p[i].host, c->p[i].name);
          sb_cl_merge_finish(c->merge, i, now_s() - c->start_epoch, "did not stop");
          c->p[i].finished = true;
        }
    }
  }
  sb_cl_merge_flush(c->merge, stdout, true);
  return rc;
}

static void setup_signals(void)
{
  if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    sig_pipe[0] = sig_pipe[1] = -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

/* The merge for the run's processes; 0 or 1 on OOM. */
static int make_merge(cl_t *c, const char **names)
{
  for (unsigned i = 0; i < c->n; i++)
    names[i] = c->p[i].name;
  sb_cl_merge_cfg_t mc = { .names = names, .nprocs = c->n, .interval_s = c->o.interval_s,
                           .threads = c->o.threads, .percentile = c->o.percentile,
                           .print_intervals = c->o.intervals, .verbose = c->o.verbose };
  c->merge = sb_cl_merge_new(&mc);
  return c->merge ? 0 : 1;
}

/* The exit code of a run that started (docs/cluster.md "Exit codes"). */
static int final_code(const cl_t *c, int rc)
{
  if (rc != 0)
    return rc;
  if (c->failures > 0)
    return 4;
  for (unsigned i = 0; i < c->n; i++)
    if (c->p[i].reaped && WIFEXITED(c->p[i].status) && WEXITSTATUS(c->p[i].status) > rc)
      rc = WEXITSTATUS(c->p[i].status);
  return rc;
}

/* Removes the logs and the directory of a run that went well. */
static void remove_dir(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
    unlink(c->p[i].log);
  rmdir(c->dir);
}

int sb_cluster_main(int argc, char **argv)
{
  cl_t c;
  memset(&c, 0, sizeof(c));
  for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
        strcmp(argv[i], "help") == 0)
    {
      fputs(usage, stdout);
      return 0;
    }
  if (parse_opts(argc, argv, &c.o) != 0)
    return 1;
  if (read_hosts(&c) != 0)
  {
    free(c.p);
    return 1;
  }
  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[sl > 0 ? sl : 0] = '\0';
  if (c.o.remote_bmk == NULL)
    c.o.remote_bmk = self;
  const char *tmp = getenv("TMPDIR");
  snprintf(c.dir, sizeof(c.dir), "%s/bmk-cluster-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(c.dir) == NULL)
  {
    log_text(LOG_FATAL, "cluster: cannot create a directory in %s: %s",
             tmp && *tmp ? tmp : "/tmp", strerror(errno));
    free(c.p);
    return 1;
  }
  setup_signals();
  const char **names = calloc(c.n, sizeof(char *));
  int rc = names ? launch_and_wait(&c) : 1;
  if (rc == 0)
    rc = make_merge(&c, names);
  if (rc == 0)
    rc = measure_offsets(&c);
  if (rc == 0)
  {
    send_start(&c);
    rc = final_code(&c, run_loop(&c));
    end_all(&c);
    rc = final_code(&c, rc);
    sb_cl_merge_report(c.merge, stdout);
    if (c.o.results && sb_cl_merge_write_json(c.merge, c.o.results) != 0 && rc == 0)
      rc = 1;
  }
  else
  {
    stop_all(&c);
    end_all(&c);
  }
  if (rc == 0)
    remove_dir(&c);
  else
    log_text(LOG_NOTICE, "cluster: the processes' logs are in %s", c.dir);
  sb_cl_merge_free(c.merge);
  free(names);
  free(c.p);
  return rc;
}
