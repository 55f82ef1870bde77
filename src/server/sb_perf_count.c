/* Instruction counters of a process tree or a cgroup; see sb_perf_count.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server/sb_cpu_usage.h"
#include "server/sb_perf_count.h"

/* At most this many processes in a measured tree (PostgreSQL: one per
   connection). */
#define MAX_TREE_PROCS 65536

/* What read() returns with PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING. */
typedef struct {
  uint64_t value, enabled, running;
} perf_reading_t;

const char *sb_perf_event_name(sb_perf_event_t ev)
{
  return ev == SB_PERF_TASK_CLOCK ? "task-clock" : "instructions:u";
}

sb_perf_event_t sb_perf_event_from_env(void)
{
  const char *e = getenv("BMK_COST_PERF_EVENT");
  return e && strcmp(e, "task-clock") == 0 ? SB_PERF_TASK_CLOCK : SB_PERF_INSTRUCTIONS_U;
}

static int read_paranoid(void)
{
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
  int v = -99;
  if (f)
  {
    if (fscanf(f, "%d", &v) != 1)
      v = -99;
    fclose(f);
  }
  return v;
}

void sb_perf_explain(int err, sb_perf_event_t ev, bool cgroup, int paranoid,
                     char *buf, size_t len)
{
  char par[64] = "";
  if (paranoid != -99)
    snprintf(par, sizeof(par), "; kernel.perf_event_paranoid=%d", paranoid);
  switch (err)
  {
  case ENOENT:
  case EOPNOTSUPP:
  case ENODEV:
    snprintf(buf, len, "this machine offers no %s counter (perf_event_open: %s): no hardware "
             "performance counters are visible, as on most virtual machines without a "
             "virtual PMU ('perf stat -e instructions:u' says <not supported> too)",
             sb_perf_event_name(ev), strerror(err));
    break;
  case EACCES:
  case EPERM:
    if (cgroup)
      snprintf(buf, len, "not permitted (perf_event_open: %s%s): counting a cgroup on every "
               "CPU needs root or CAP_PERFMON, or kernel.perf_event_paranoid<=0",
               strerror(err), par);
    else
      snprintf(buf, len, "not permitted (perf_event_open: %s%s): counting the server's "
               "processes needs root or CAP_PERFMON (setcap cap_perfmon+ep on the bmk "
               "binary), or running bmk as the server's OS user with "
               "kernel.perf_event_paranoid<=2", strerror(err), par);
    break;
  case EMFILE:
  case ENFILE:
    snprintf(buf, len, "one counter per server thread exceeds the open-files limit "
             "(perf_event_open: %s): raise it (ulimit -n) and run again", strerror(err));
    break;
  case EBUSY:
    snprintf(buf, len, "the counters are in use by another tool (perf_event_open: %s)",
             strerror(err));
    break;
  default:
    snprintf(buf, len, "perf_event_open: %s", strerror(err));
    break;
  }
}

static void set_failed(sb_perf_set_t *set, int err, bool cgroup)
{
  sb_perf_explain(err, set->event, cgroup, read_paranoid(), set->why, sizeof(set->why));
  for (unsigned i = 0; i < set->nfds; i++)
    close(set->fds[i]);
  set->nfds = 0;
  set->ok = false;
}

static void init_attr(struct perf_event_attr *a, sb_perf_event_t ev, bool inherit)
{
  memset(a, 0, sizeof(*a));
  a->size = sizeof(*a);
  if (ev == SB_PERF_TASK_CLOCK)
  {
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_TASK_CLOCK;
  }
  else
  {
    a->type = PERF_TYPE_HARDWARE;
    a->config = PERF_COUNT_HW_INSTRUCTIONS;
    a->exclude_kernel = 1;      /* the ":u" of instructions:u */
    a->exclude_hv = 1;
  }
  a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  a->inherit = inherit ? 1 : 0;
}

static int add_fd(sb_perf_set_t *set, int fd)
{
  if (set->nfds == set->cap)
  {
    unsigned cap = set->cap ? set->cap * 2 : 256;
    int *f = realloc(set->fds, cap * sizeof(int));
    if (f == NULL)
      return -1;
    set->fds = f;
    set->cap = cap;
  }
  set->fds[set->nfds++] = fd;
  return 0;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, unsigned long flags)
{
  return (int) syscall(SYS_perf_event_open, a, pid, cpu, -1, flags | PERF_FLAG_FD_CLOEXEC);
}

/* The soft open-files limit up to the hard one: a server with thousands of
   connection threads needs one descriptor per thread. Returns true when
   it was raised. */
static bool raise_nofile(void)
{
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
    return false;
  rl.rlim_cur = rl.rlim_max;
  return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Opens a counter on thread `tid`. 0 ok or skipped (the thread is gone),
   else the errno. */
static int attach_thread(sb_perf_set_t *set, struct perf_event_attr *a, pid_t tid,
                         bool *raised)
{
  for (;;)
  {
    int fd = perf_open(a, tid, -1, 0);
    if (fd >= 0)
    {
      if (add_fd(set, fd) != 0)
      {
        close(fd);
        return ENOMEM;
      }
      return 0;
    }
    if (errno == ESRCH)
      return 0;
    if ((errno == EMFILE) && !*raised)
    {
      *raised = true;
      if (raise_nofile())
        continue;
      errno = EMFILE;
    }
    return errno;
  }
}

int sb_perf_open_tree(sb_perf_set_t *set, sb_perf_event_t ev, const pid_t *roots, unsigned n)
{
  memset(set, 0, sizeof(*set));
  set->event = ev;
  pid_t *pids = malloc(MAX_TREE_PROCS * sizeof(pid_t));
  int np = pids ? sb_tree_pids(roots, n, pids, MAX_TREE_PROCS) : -1;
  if (np <= 0)
  {
    set_failed(set, np == 0 ? ESRCH : errno, false);
    free(pids);
    return -1;
  }
  struct perf_event_attr a;
  init_attr(&a, ev, true);
  bool raised = false;
  int err = 0;
  for (int i = 0; i < np && err == 0; i++)
  {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int) pids[i]);
    DIR *d = opendir(path);
    if (d == NULL)
      continue;                 /* exited since the scan */
    struct dirent *e;
    while (err == 0 && (e = readdir(d)) != NULL)
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
        err = attach_thread(set, &a, (pid_t) atol(e->d_name), &raised);
    closedir(d);
  }
  free(pids);
  if (err == 0 && set->nfds == 0)
    err = ESRCH;
  if (err != 0)
  {
    set_failed(set, err, false);
    return -1;
  }
  set->ok = true;
  return 0;
}

int sb_perf_open_cgroup(sb_perf_set_t *set, sb_perf_event_t ev, const char *dir)
{
  memset(set, 0, sizeof(*set));
  set->event = ev;
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
  {
    set_failed(set, errno, true);
    return -1;
  }
  struct perf_event_attr a;
  init_attr(&a, ev, false);
  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  int err = 0;
  for (long cpu = 0; cpu < ncpu && err == 0; cpu++)
  {
    int fd = perf_open(&a, dfd, (int) cpu, PERF_FLAG_PID_CGROUP);
    if (fd >= 0)
      err = add_fd(set, fd) == 0 ? 0 : ENOMEM;
    else if (errno != ENODEV || cpu == 0)   /* ENODEV: an offline CPU */
      err = errno;
  }
  close(dfd);
  if (err != 0)
  {
    set_failed(set, err, true);
    return -1;
  }
  set->ok = true;
  return 0;
}

static int read_one(int fd, perf_reading_t *r)
{
  ssize_t n;
  do
    n = read(fd, r, sizeof(*r));
  while (n < 0 && errno == EINTR);
  return n == (ssize_t) sizeof(*r) ? 0 : -1;
}

void sb_perf_start(sb_perf_set_t *set)
{
  if (!set->ok)
    return;
  free(set->base_val);
  free(set->base_enabled);
  free(set->base_running);
  set->base_val = calloc(set->nfds, sizeof(uint64_t));
  set->base_enabled = calloc(set->nfds, sizeof(uint64_t));
  set->base_running = calloc(set->nfds, sizeof(uint64_t));
  if (!set->base_val || !set->base_enabled || !set->base_running)
  {
    set_failed(set, ENOMEM, false);
    return;
  }
  for (unsigned i = 0; i < set->nfds; i++)
  {
    perf_reading_t r = { 0, 0, 0 };
    /* a counter of a thread that already exited reads as its final count */
    if (read_one(set->fds[i], &r) == 0)
    {
      set->base_val[i] = r.value;
      set->base_enabled[i] = r.enabled;
      set->base_running[i] = r.running;
    }
  }
}

int sb_perf_read(const sb_perf_set_t *set, uint64_t *count)
{
  *count = 0;
  if (!set->ok || set->base_val == NULL)
    return -1;
  long double sum = 0;
  for (unsigned i = 0; i < set->nfds; i++)
  {
    perf_reading_t r;
    if (read_one(set->fds[i], &r) != 0)
      return -1;
    uint64_t dv = r.value - set->base_val[i];
    uint64_t de = r.enabled - set->base_enabled[i];
    uint64_t dr = r.running - set->base_running[i];
    /* The kernel time-shares a PMU among more counters than it has: scale
       by the share of time this one was on it, as perf stat does. */
    if (dr > 0 && dr < de)
      sum += (long double) dv * (long double) de / (long double) dr;
    else
      sum += (long double) dv;
  }
  *count = (uint64_t) (sum + 0.5L);
  return 0;
}

void sb_perf_close(sb_perf_set_t *set)
{
  for (unsigned i = 0; i < set->nfds; i++)
    close(set->fds[i]);
  free(set->fds);
  free(set->base_val);
  free(set->base_enabled);
  free(set->base_running);
  set->fds = NULL;
  set->base_val = set->base_enabled = set->base_running = NULL;
  set->nfds = set->cap = 0;
  set->ok = false;
}
