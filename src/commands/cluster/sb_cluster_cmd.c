/* `bmk cluster run`; see cli/sb_cluster_cmd.h and docs/cluster.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands/cluster/sb_cluster_cmd.h"
#include "commands/cluster/sb_cluster_priv.h"
#include "commands/cluster/sb_cluster_proc.h"
#include "core/sb_logger.h"
#include "core/sb_version.h"
#include "commands/cluster/sb_cluster_merge.h"

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

/* Why p ended, from its exit status and its stderr's last line. */
static void why_ended(cluster_proc_t *p, char *buf, size_t size)
{
  char last[300];
  cluster_proc_reap(p, 2000);
  cluster_proc_last_log_line(p, last, sizeof(last));
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
      cluster_proc_send(&c->p[i], "stop\n");
}

/* Whatever is still running is ended: stdin closed (the children stop),
   then SIGTERM and SIGKILL to the launchers' process groups; all reaped.
   A process that sent its end line is only tearing down (its Lua `done`
   hook, the sanitizers' exit checks: seconds on a busy machine), so it
   gets 30 s, a hang guard; one that did not (lost, stopped before its
   start) 3 s. */
static void end_all(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
    cluster_proc_close_in(&c->p[i]);
  double t0 = now_s();
  for (unsigned i = 0; i < c->n; i++)
  {
    int left = (int) ((t0 + (c->p[i].ended ? 30 : 3) - now_s()) * 1000);
    cluster_proc_reap(&c->p[i], left > 0 ? left : 0);
  }
  for (unsigned i = 0; i < c->n; i++)
    if (!cluster_proc_reap(&c->p[i], 0))
    {
      if (c->p[i].ended)
        log_text(LOG_WARNING, "cluster: host %s (%s) did not exit within 30 s of its end "
                 "line: ended with SIGTERM", c->p[i].host, c->p[i].name);
      cluster_proc_kill(&c->p[i], SIGTERM);
    }
  for (unsigned i = 0; i < c->n; i++)
    if (!cluster_proc_reap(&c->p[i], 2000))
    {
      cluster_proc_kill(&c->p[i], SIGKILL);
      cluster_proc_reap(&c->p[i], 2000);
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
  cluster_proc_t *p = &c->p[i];
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
    sb_cluster_merge_finish(c->merge, i, at < 0 ? 0 : at, why);
}

/* Handles one stream line of process i. Returns 0, or 1 when the run
   must end (message printed). */
static int on_line(cl_t *c, unsigned i, const char *line)
{
  cluster_proc_t *p = &c->p[i];
  sb_cluster_msg_t m;
  char err[200];
  int r = sb_cluster_parse(line, &m, err, sizeof(err));
  if (r == 0)
  {
    if (line[0])
      snprintf(p->last_out, sizeof(p->last_out), "%s", line);
    return 0;
  }
  if (r < 0 && strncmp(line, "bmkc doc ", 9) == 0)
  {
    /* the run is over and measured: only the merged document lacks it */
    log_text(LOG_ALERT, "cluster: host %s (%s): %s; it is left out of the merged document",
             p->host, p->name, err);
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
    c->generic = m.generic;
    if (strcmp(m.version, sb_bmk_release()) != 0)
    {
      log_text(LOG_FATAL, "cluster: host %s (%s) runs bmk %s, this is bmk %s: copy this "
               "release's static binary there with --copy-bmk=bmk-x64, install the same version "
               "there, or give its path with --remote-bmk", p->host, p->name, m.version,
               sb_bmk_release());
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
      if (sb_cluster_merge_add(c->merge, i, &m) != 0)
        return 1;
      sb_cluster_merge_finish(c->merge, i, -1, NULL);
      p->finished = true;
    }
    else if (sb_cluster_merge_add(c->merge, i, &m) != 0)
      return 1;
    sb_cluster_merge_flush(c->merge, stdout, false);
  }
  sb_cluster_msg_free(&m);
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
    cluster_proc_t *p = &c->p[i];
    int got;
    while ((got = cluster_proc_fill(p)) > 0)
    {
      p->last_seen = now_s();
      char *line;
      while ((line = cluster_proc_next_line(p)) != NULL)
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

/* Starts the processes of slot 0 (first) or of the other slots. 0, or 1
   (message printed). */
static int launch_slots(cl_t *c, bool first)
{
  for (unsigned i = 0; i < c->n; i++)
  {
    cluster_proc_t *p = &c->p[i];
    if ((p->slot == 0) != first)
      continue;
    snprintf(p->log, sizeof(p->log), "%s/%s.log", c->dir, p->name);
    char **argv = cluster_opts_build_argv(c, p, i);
    if (argv == NULL || cluster_proc_launch(p, argv) != 0)
    {
      cluster_opts_free_argv(argv);
      return 1;
    }
    cluster_opts_free_argv(argv);
  }
  return 0;
}

/* Whether the launched processes are all ready (`heard`: have said
   anything at all). */
static bool launched_all(const cl_t *c, bool heard)
{
  for (unsigned i = 0; i < c->n; i++)
    if (c->p[i].pid > 0 && !c->p[i].ready && !(heard && c->p[i].last_seen > 0))
      return false;
  return true;
}

/* Waits until launched_all(heard). 0, or the exit code (message
   printed). */
static int wait_launched(cl_t *c, bool heard, double deadline)
{
  while (!launched_all(c, heard))
  {
    if (pump(c, 100) != 0)
      return 1;
    if (got_signal)
      return got_signal == SIGTERM ? 143 : 130;
    for (unsigned i = 0; i < c->n; i++)
      if (c->p[i].finished && !c->p[i].ready)
        return 1;
    if (now_s() > deadline)
    {
      for (unsigned i = 0; i < c->n; i++)
        if (c->p[i].pid > 0 && !c->p[i].ready)
          log_text(LOG_FATAL, "cluster: host %s (%s) not ready after %.0f s (--ready-timeout; "
                   "log: %s)", c->p[i].host, c->p[i].name, c->o.ready_timeout_s, c->p[i].log);
      return 1;
    }
  }
  return 0;
}

/* Starts every process and waits for their ready lines. With ssh's
   ControlMaster in the launcher, a host's other slots start once its
   first has said something (its connection, the master, is up), so they
   share it instead of racing to become the master. 0, or the exit code
   (message printed). */
static int launch_and_wait(cl_t *c)
{
  double deadline = now_s() + c->o.ready_timeout_s;
  bool staged = c->o.launcher == NULL || strstr(c->o.launcher, "ControlMaster") != NULL;
  int rc = launch_slots(c, true);
  if (rc == 0 && staged)
    rc = wait_launched(c, true, deadline);
  if (rc == 0)
    rc = launch_slots(c, false);
  if (rc == 0)
    rc = wait_launched(c, false, deadline);
  return rc;
}

/* Clock offsets: three pings per process over its stream, the one with
   the shortest round trip kept. 0, or 1 when a host is too far off or
   does not answer (message printed). */
static int measure_offsets(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
  {
    cluster_proc_t *p = &c->p[i];
    p->rtt_ms = -1;
    for (int k = 0; k < 3; k++)
    {
      p->pong_us = 0;
      double t0 = now_s();
      cluster_proc_send(p, "ping\n");
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
  {
    cluster_proc_send(&c->p[i], line);
    c->p[i].last_seen = c->start_epoch;
  }
  sb_cluster_merge_set_t0(c->merge, c->start_epoch + c->o.warmup_s);
  log_text(LOG_NOTICE, "cluster: %u processes start together\n", c->n);
}

/* A running process whose stream said nothing for --cluster-timeout
   (a heartbeat comes every second) is lost: named, its launcher killed. */
static void check_silence(cl_t *c)
{
  double now = now_s();
  for (unsigned i = 0; i < c->n; i++)
  {
    cluster_proc_t *p = &c->p[i];
    if (p->finished || now - p->last_seen <= c->o.silence_s)
      continue;
    p->finished = true;
    c->failures++;
    char why[96];
    snprintf(why, sizeof(why), "nothing heard for %.0f s (--cluster-timeout)", now - p->last_seen);
    log_text(LOG_ALERT, "cluster: host %s (%s): connection lost at %.0f s: %s", p->host, p->name,
             now - c->start_epoch, why);
    sb_cluster_merge_finish(c->merge, i, now - c->start_epoch, why);
    cluster_proc_kill(p, SIGKILL);
  }
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
    check_silence(c);
    if (c->stopping && stop_deadline == 0)
      stop_deadline = now_s() + 15;
    if (stop_deadline > 0 && now_s() > stop_deadline)
    {
      for (unsigned i = 0; i < c->n; i++)
        if (!c->p[i].finished)
        {
          log_text(LOG_ALERT, "cluster: host %s (%s) did not stop within 15 s: ended",
                   c->p[i].host, c->p[i].name);
          sb_cluster_merge_finish(c->merge, i, now_s() - c->start_epoch, "did not stop");
          c->p[i].finished = true;
        }
    }
  }
  sb_cluster_merge_flush(c->merge, stdout, true);
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
  sb_cluster_merge_cfg_t mc = { .names = names, .nprocs = c->n, .interval_s = c->o.interval_s,
                           .generic = c->generic,
                           .threads = c->o.threads, .percentile = c->o.percentile,
                           .print_intervals = c->o.intervals, .verbose = c->o.verbose,
                           .observer = c->metrics.close ? &c->metrics : NULL };
  c->merge = sb_cluster_merge_new(&mc);
  return c->merge ? 0 : 1;
}

/* The exit code of a run that started (docs/cluster.md "Exit codes"). */
static int final_code(const cl_t *c, int rc)
{
  if (rc != 0)
    return rc;
  if (c->failures > 0)
    return 5;                   /* a process lost: its own code (4 is an undecided gate) */
  /* the processes' worst: an error (1, 2, a signal's) before a failed gate
     (3), before an undecided one (4) */
  int worst = 0;
  for (unsigned i = 0; i < c->n; i++)
    if (c->p[i].reaped && WIFEXITED(c->p[i].status))
    {
      int x = WEXITSTATUS(c->p[i].status);
      int rx = x == 0 ? 0 : x == 4 ? 1 : x == 3 ? 2 : 3 + x;
      int rw = worst == 0 ? 0 : worst == 4 ? 1 : worst == 3 ? 2 : 3 + worst;
      if (rx > rw)
        worst = x;
    }
  return worst;
}

/* Removes the logs and the directory of a run that went well. */
static void remove_dir(cl_t *c)
{
  for (unsigned i = 0; i < c->n; i++)
    unlink(c->p[i].log);
  rmdir(c->dir);
}

/* Closes the coordinator's endpoint (after a last scrape of the final
   numbers, --metrics-linger). */
static void close_metrics(cl_t *c)
{
  if (c->metrics.close)
    c->metrics.close(c->metrics.ctx);
  c->metrics.close = NULL;
  cluster_metrics_statements_free();
}

/* A run: every process launched and ready, their clocks measured, one
   start, the merge until all ended, the report and --results. Returns
   the exit code (docs/cluster.md). */
static int run_mode(cl_t *c, const char **names)
{
  /* the endpoint first: a port in use stops the run before any process */
  if (cluster_metrics_open(c) != 0)
    return 1;
  int rc = launch_and_wait(c);
  if (rc == 0)
    rc = make_merge(c, names);
  if (rc == 0)
    rc = measure_offsets(c);
  if (rc != 0)
  {
    stop_all(c);
    end_all(c);
    close_metrics(c);
    return rc;
  }
  send_start(c);
  rc = final_code(c, run_loop(c));
  end_all(c);
  rc = final_code(c, rc);
  sb_cluster_merge_report(c->merge, stdout);
  cluster_metrics_statements(c);
  if (cluster_opts_write_outputs(c) != 0 && rc == 0)
    rc = 1;
  close_metrics(c);
  return rc;
}

int sb_cluster_main(int argc, char **argv)
{
  cl_t c;
  memset(&c, 0, sizeof(c));
  for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
        strcmp(argv[i], "help") == 0)
    {
      fputs(cluster_opts_usage, stdout);
      return 0;
    }
  if (cluster_opts_parse_opts(argc, argv, &c.o) != 0)
    return 1;
  if (cluster_opts_read_hosts(&c) != 0)
  {
    free(c.p);
    return 1;
  }
  if (c.o.copy_bmk && access(c.o.copy_bmk, R_OK) != 0)
  {
    log_text(LOG_FATAL, "cluster: cannot read --copy-bmk=%s: %s", c.o.copy_bmk, strerror(errno));
    free(c.p);
    return 1;
  }
  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[sl > 0 ? sl : 0] = '\0';
  if (c.o.remote_bmk == NULL)
    c.o.remote_bmk = self;
  if (cluster_opts_expand_kit(&c.o, self) != 0)
  {
    free(c.p);
    return 1;
  }
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
  int rc = names ? 0 : 1;
  if (rc == 0 && c.o.copy_bmk)
    rc = cluster_files_copy_bmk(&c);
  if (rc == 0 && (c.o.copy_bmk || c.o.copy_script))
    rc = cluster_files_copy_script(&c);
  if (rc == 0 && c.o.command)
  {
    rc = clc_prepare(&c, &got_signal, sig_pipe[0]);
    end_all(&c);
  }
  else if (rc == 0)
    rc = run_mode(&c, names);
  else
  {
    stop_all(&c);
    end_all(&c);
  }
  if (rc == 0)
    remove_dir(&c);
  else
    log_text(LOG_NOTICE, "cluster: the processes' logs are in %s", c.dir);
  sb_cluster_merge_free(c.merge);
  free(names);
  free(c.p);
  free(c.script_arg);
  free(c.lua_path);
  cluster_opts_free_argv(c.o.kit_argv);
  return rc;
}
