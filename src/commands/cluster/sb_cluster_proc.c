/* The processes of `bmk cluster run`; see cli/sb_cluster_proc.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands/cluster/sb_cluster_proc.h"
#include "core/sb_logger.h"

int cluster_proc_launch(cluster_proc_t *p, char *const *argv)
{
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0)
    goto fail;
  if (pipe2(out, O_CLOEXEC) != 0)
  {
    close(in[0]);
    close(in[1]);
    goto fail;
  }
  int errfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pid_t pid = errfd < 0 ? -1 : fork();
  if (pid == 0)
  {
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(errfd, STDERR_FILENO);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (errfd >= 0)
    close(errfd);
  if (pid < 0)
  {
    close(in[1]);
    close(out[0]);
    goto fail;
  }
  setpgid(pid, pid);           /* also here: no race with a kill below */
  p->pid = pid;
  p->in_fd = in[1];
  p->out_fd = out[0];
  fcntl(p->out_fd, F_SETFL, fcntl(p->out_fd, F_GETFL) | O_NONBLOCK);
  return 0;
fail:
  log_text(LOG_FATAL, "cluster: cannot start the process for %s: %s", p->name, strerror(errno));
  return -1;
}

int cluster_proc_fill(cluster_proc_t *p)
{
  if (p->eof)
    return 0;
  if (p->cap - p->len < 65536)
  {
    size_t cap = p->cap * 2 + 131072;
    char *b = realloc(p->buf, cap);
    if (b == NULL)
      return -1;
    p->buf = b;
    p->cap = cap;
  }
  ssize_t r = read(p->out_fd, p->buf + p->len, p->cap - p->len - 1);
  if (r < 0)
    return errno == EAGAIN || errno == EINTR ? -1 : (p->eof = true, 0);
  if (r == 0)
  {
    p->eof = true;
    return 0;
  }
  p->len += (size_t) r;
  return (int) r;
}

char *cluster_proc_next_line(cluster_proc_t *p)
{
  static char *line;
  static size_t line_cap;
  char *nl = p->len ? memchr(p->buf, '\n', p->len) : NULL;
  if (nl == NULL)
    return NULL;
  size_t n = (size_t) (nl - p->buf);
  if (n + 1 > line_cap)
  {
    char *l = realloc(line, n + 1);
    if (l == NULL)
      return NULL;
    line = l;
    line_cap = n + 1;
  }
  memcpy(line, p->buf, n);
  line[n] = '\0';
  memmove(p->buf, nl + 1, p->len - n - 1);
  p->len -= n + 1;
  return line;
}

void cluster_proc_send(cluster_proc_t *p, const char *s)
{
  if (p->in_fd < 0)
    return;
  size_t len = strlen(s), off = 0;
  while (off < len)
  {
    ssize_t w = write(p->in_fd, s + off, len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    off += (size_t) w;
  }
}

void cluster_proc_close_in(cluster_proc_t *p)
{
  if (p->in_fd >= 0)
    close(p->in_fd);
  p->in_fd = -1;
}

bool cluster_proc_reap(cluster_proc_t *p, int wait_ms)
{
  if (p->reaped || p->pid <= 0)
    return true;
  for (int waited = 0;; waited += 10)
  {
    pid_t r = waitpid(p->pid, &p->status, WNOHANG);
    if (r == p->pid || (r < 0 && errno == ECHILD))
    {
      p->reaped = true;
      return true;
    }
    if (waited >= wait_ms)
      return false;
    struct timespec ts = { 0, 10000000 };
    nanosleep(&ts, NULL);
  }
}

void cluster_proc_kill(cluster_proc_t *p, int sig)
{
  if (p->pid > 0)
    kill(-p->pid, sig);
}

void cluster_proc_last_log_line(const cluster_proc_t *p, char *buf, size_t size)
{
  buf[0] = '\0';
  FILE *f = fopen(p->log, "r");
  if (f == NULL)
    return;
  char line[512];
  int fatal = 0;
  while (fgets(line, sizeof(line), f))
  {
    line[strcspn(line, "\r\n")] = '\0';
    /* the first two FATAL lines say why (a failed call, then the
       server's reason); else the last line */
    bool is_fatal = strncmp(line, "FATAL: ", 7) == 0;
    if (is_fatal && fatal == 1)
    {
      size_t n = strlen(buf);
      snprintf(buf + n, size - n, "; %s", line + 7);
    }
    else if (fatal == 0 && line[0])
      snprintf(buf, size, "%s", line);
    if (is_fatal)
      fatal++;
  }
  fclose(f);
}

char *cluster_proc_shell_quote(const char *s)
{
  size_t n = 3;
  for (const char *c = s; *c; c++)
    n += *c == '\'' ? 4 : 1;
  char *q = malloc(n), *o = q;
  if (q == NULL)
    return NULL;
  *o++ = '\'';
  for (const char *c = s; *c; c++)
  {
    if (*c == '\'')
    {
      memcpy(o, "'\\''", 4);
      o += 4;
    }
    else
      *o++ = *c;
  }
  *o++ = '\'';
  *o = '\0';
  return q;
}

pid_t cluster_proc_spawn_input(char *const *argv, const char *in_path, const char *log)
{
  int in = open(in_path, O_RDONLY | O_CLOEXEC);
  int out = in < 0 ? -1 : open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pid_t pid = out < 0 ? -1 : fork();
  if (pid == 0)
  {
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int err = errno;
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  if (pid < 0)
  {
    log_text(LOG_FATAL, "cluster: cannot run %s with input %s: %s", argv[0], in_path,
             strerror(err));
    return -1;
  }
  setpgid(pid, pid);
  return pid;
}

int cluster_proc_wait_exit(pid_t pid, int wait_ms)
{
  cluster_proc_t p = { .pid = pid };
  if (!cluster_proc_reap(&p, wait_ms))
  {
    cluster_proc_kill(&p, SIGKILL);
    cluster_proc_reap(&p, 2000);
    return -1;
  }
  return WIFEXITED(p.status) ? WEXITSTATUS(p.status) : -1;
}
