/* `bmk cluster run ... -- <workload> ... prepare`: the command split over
   the processes; see cli/sb_cluster_priv.h and docs/cluster.md. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "commands/cluster/sb_cluster_priv.h"
#include "core/sb_logger.h"

static double mono_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts process i. 0, or 1 (message printed). */
static int start_one(cl_t *c, unsigned i)
{
  cluster_proc_t *p = &c->p[i];
  snprintf(p->log, sizeof(p->log), "%s/%s.log", c->dir, p->name);
  char **argv = cluster_opts_build_argv(c, p, i);
  int rc = argv == NULL || cluster_proc_launch(p, argv) != 0;
  cluster_opts_free_argv(argv);
  return rc;
}

/* Reads what process i said: each line printed as "[NAME] line"; the
   line `bmkc go` sets *go instead. The end of its output reaps it. */
static void drain(cl_t *c, unsigned i, bool *go)
{
  cluster_proc_t *p = &c->p[i];
  char *line;
  while (cluster_proc_fill(p) > 0)
    while ((line = cluster_proc_next_line(p)) != NULL)
    {
      if (strcmp(line, "bmkc go") == 0)
        *go = true;
      else
        printf("[%s] %s\n", p->name, line);
    }
  fflush(stdout);
  if (p->eof && !p->finished)
  {
    p->finished = true;
    cluster_proc_reap(p, 5000);
  }
}

/* Waits up to timeout_ms for output and reads it. */
static void pump_all(cl_t *c, int sig_fd, int timeout_ms, bool *go)
{
  struct pollfd fds[MAX_PROCS + 1];
  unsigned idx[MAX_PROCS];
  nfds_t n = 0;
  fds[n++] = (struct pollfd) { .fd = sig_fd, .events = POLLIN };
  for (unsigned i = 0; i < c->n; i++)
    if (c->p[i].pid > 0 && !c->p[i].finished && c->p[i].out_fd >= 0)
    {
      idx[n - 1] = i;
      fds[n++] = (struct pollfd) { .fd = c->p[i].out_fd, .events = POLLIN };
    }
  if (poll(fds, n, timeout_ms) <= 0)
    return;
  for (nfds_t k = 1; k < n; k++)
    if (fds[k].revents)
      drain(c, idx[k - 1], go);
}

/* The exit code of process p (reaped): its bmk's, 255 for a launcher
   that failed, 128 + N for a signal. */
static int exit_of(const cluster_proc_t *p)
{
  if (!p->reaped)
    return 255;
  if (WIFEXITED(p->status))
    return WEXITSTATUS(p->status);
  return WIFSIGNALED(p->status) ? 128 + WTERMSIG(p->status) : 255;
}

/* Whether every started process has ended, or one has failed (then the
   others are not waited for: the caller ends them). */
static bool all_done(const cl_t *c)
{
  bool all = true;
  for (unsigned i = 0; i < c->n; i++)
  {
    if (c->p[i].pid > 0 && c->p[i].finished && exit_of(&c->p[i]) != 0)
      return true;
    if (c->p[i].pid > 0 && !c->p[i].finished)
      all = false;
  }
  return all;
}

/* Names every process that failed; returns the highest exit code (0
   when all exited 0). */
static int verdict(cl_t *c)
{
  int rc = 0;
  unsigned ok = 0;
  for (unsigned i = 0; i < c->n; i++)
  {
    cluster_proc_t *p = &c->p[i];
    if (p->pid <= 0)
      continue;
    int ex = exit_of(p);
    if (ex == 0)
    {
      ok++;
      continue;
    }
    char last[300];
    cluster_proc_last_log_line(p, last, sizeof(last));
    log_text(LOG_FATAL, "cluster: host %s (%s): prepare failed (exit %d)%s%s (log: %s)",
             p->host, p->name, ex, last[0] ? ": " : "", last, p->log);
    if (ex > rc)
      rc = ex;
  }
  log_text(LOG_NOTICE, "cluster: prepare: %u of %u processes ended normally", ok, c->n);
  return rc;
}

int clc_prepare(cl_t *c, volatile sig_atomic_t *sig, int sig_fd)
{
  /* process 0 first: it creates the schema and says `bmkc go` (or ends)
     before the others start */
  if (start_one(c, 0) != 0)
    return 1;
  bool go = false;
  double deadline = mono_s() + c->o.ready_timeout_s;
  while (!go && !c->p[0].finished && !*sig && mono_s() < deadline)
    pump_all(c, sig_fd, 200, &go);
  int rc = 0;
  if (*sig)
    rc = *sig == SIGTERM ? 143 : 130;
  else if (!go && !c->p[0].finished)
  {
    log_text(LOG_FATAL, "cluster: host %s (%s) did not get the schema ready within %.0f s "
             "(--ready-timeout; log: %s)", c->p[0].host, c->p[0].name, c->o.ready_timeout_s,
             c->p[0].log);
    rc = 1;
  }
  else if (c->p[0].finished && exit_of(&c->p[0]) != 0)
    return verdict(c);
  for (unsigned i = 1; rc == 0 && i < c->n; i++)
    rc = start_one(c, i);
  while (rc == 0 && !all_done(c) && !*sig)
    pump_all(c, sig_fd, 500, &go);
  if (*sig && rc == 0)
  {
    rc = *sig == SIGTERM ? 143 : 130;
    log_text(LOG_NOTICE, "cluster: interrupted: stopping every process");
  }
  if (rc != 0)
    return rc;
  return verdict(c);
}
