/* CPU time and instruction counts of processes, cgroups and the host; see
   sb_cpu_usage.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "server/sb_cpu_usage.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif

/* Reads a small kernel file into buf (NUL-terminated). Returns the length
   or -1 with errno. Kernel files are read in one go: their content is
   generated at the read. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t n = 0;
  for (;;)
  {
    ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
    {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    if (r == 0 || n + (size_t) r >= cap - 1)
    {
      n += (size_t) r;
      break;
    }
    n += (size_t) r;
  }
  close(fd);
  buf[n] = '\0';
  return (ssize_t) n;
}

/* Reads a whole kernel file of any size into *buf (grown with realloc,
   NUL-terminated; *cap its size). Returns the length or -1 with errno. */
static ssize_t read_grow(const char *path, char **buf, size_t *cap)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t n = 0;
  for (;;)
  {
    if (*cap - n < 4096)
    {
      size_t c = *cap ? *cap * 2 : 16384;
      char *b = realloc(*buf, c);
      if (b == NULL)
      {
        close(fd);
        errno = ENOMEM;
        return -1;
      }
      *buf = b;
      *cap = c;
    }
    ssize_t r = read(fd, *buf + n, *cap - 1 - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
    {
      int e = errno;
      close(fd);
      if (r < 0)
      {
        errno = e;
        return -1;
      }
      break;
    }
    n += (size_t) r;
  }
  (*buf)[n] = '\0';
  return (ssize_t) n;
}

static long clock_ticks(void)
{
  long t = sysconf(_SC_CLK_TCK);
  return t > 0 ? t : 100;
}

/* ---- /proc/PID/stat ------------------------------------------------------ */

int sb_proc_stat_parse(const char *buf, sb_proc_stat_t *out)
{
  memset(out, 0, sizeof(*out));
  const char *open_paren = strchr(buf, '(');
  const char *close_paren = strrchr(buf, ')');
  if (open_paren == NULL || close_paren == NULL || close_paren < open_paren)
    return -1;
  char *end;
  long pid = strtol(buf, &end, 10);
  if (end == buf || pid <= 0)
    return -1;
  out->pid = (pid_t) pid;
  /* Fields after the command name, counted from 3 (state) as in proc(5). */
  const char *p = close_paren + 1;
  uint64_t f[23] = { 0 };
  for (int field = 3; field <= 22; field++)
  {
    while (*p == ' ')
      p++;
    if (*p == '\0')
      return -1;
    if (field == 3)
    {
      out->state = *p;
      while (*p && *p != ' ')
        p++;
      continue;
    }
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || errno != 0)
      return -1;
    f[field] = v < 0 ? 0 : (uint64_t) v;
    p = end;
  }
  out->ppid = (pid_t) f[4];
  out->utime = f[14];
  out->stime = f[15];
  out->cutime = f[16];
  out->cstime = f[17];
  out->starttime = f[22];
  out->num_threads = (unsigned) f[20];
  return 0;
}

/* The first field of /proc/PID/schedstat: the nanoseconds the task has
   run on a CPU (the scheduler's sum_exec_runtime, the clock that
   CLOCK_PROCESS_CPUTIME_ID reads). For a single-threaded process the task
   is the process. The kernel brings the figure up to date when the task
   is switched out or at a scheduler tick, so a task running at the read
   shows up to one tick late (a later read catches up: nothing is lost).
   Returns 0, or -1 when unreadable (no CONFIG_SCHED_INFO, or the process
   is gone). */
static int schedstat_run_ns(pid_t pid, uint64_t *ns)
{
  char path[64], buf[128];
  snprintf(path, sizeof(path), "/proc/%d/schedstat", (int) pid);
  if (read_small(path, buf, sizeof(buf)) <= 0)
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(buf, &end, 10);
  if (end == buf || errno != 0)
    return -1;
  *ns = (uint64_t) v;
  return 0;
}

int sb_proc_stat_read(pid_t pid, sb_proc_stat_t *out)
{
  char path[64], buf[1024];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
  if (read_small(path, buf, sizeof(buf)) < 0)
    return -1;
  if (sb_proc_stat_parse(buf, out) != 0)
  {
    errno = EINVAL;
    return -1;
  }
  /* Read after stat: a thread started in between leaves num_threads at 1
     and the figure is then the main thread's, at most a tick short of
     the ticks it replaces. */
  if (out->num_threads == 1 && schedstat_run_ns(pid, &out->run_ns) != 0)
    out->run_ns = 0;
  return 0;
}

/* /proc/stat grows with the CPU count: one line per CPU. */
#define PROC_STAT_MAX (256 * 1024)

static double boot_epoch(void)
{
  char *buf = malloc(PROC_STAT_MAX);
  if (buf == NULL || read_small("/proc/stat", buf, PROC_STAT_MAX) < 0)
  {
    free(buf);
    return -1;
  }
  const char *b = strstr(buf, "\nbtime ");
  double v = b ? strtod(b + 7, NULL) : -1;
  free(buf);
  return v;
}

double sb_proc_start_epoch(pid_t pid)
{
  sb_proc_stat_t st;
  double boot = boot_epoch();
  if (boot < 0 || sb_proc_stat_read(pid, &st) != 0)
    return -1;
  return boot + (double) st.starttime / (double) clock_ticks();
}

void sb_proc_comm(pid_t pid, char *buf, size_t len)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/comm", (int) pid);
  char tmp[64];
  if (read_small(path, tmp, sizeof(tmp)) <= 0)
  {
    snprintf(buf, len, "?");
    return;
  }
  tmp[strcspn(tmp, "\n")] = '\0';
  snprintf(buf, len, "%s", tmp);
}

/* ---- process trees ------------------------------------------------------- */

typedef struct {
  sb_proc_stat_t *procs;
  size_t n, cap;
} proc_list_t;

static int list_add(proc_list_t *l, const sb_proc_stat_t *st)
{
  if (l->n == l->cap)
  {
    size_t cap = l->cap ? l->cap * 2 : 256;
    sb_proc_stat_t *p = realloc(l->procs, cap * sizeof(*p));
    if (p == NULL)
    {
      errno = ENOMEM;
      return -1;
    }
    l->procs = p;
    l->cap = cap;
  }
  l->procs[l->n++] = *st;
  return 0;
}

static int cmp_pid(const void *a, const void *b)
{
  pid_t x = ((const sb_proc_stat_t *) a)->pid, y = ((const sb_proc_stat_t *) b)->pid;
  return x < y ? -1 : x > y;
}

static bool is_root(pid_t pid, const pid_t *roots, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    if (roots[i] == pid)
      return true;
  return false;
}

/* Appends the children of every thread of `pid` (/proc/PID/task/TID/
   children) to l->procs as stat entries still to be read (pid only).
   `buf` is scratch space (grown as needed). Returns 0, 1 when the kernel
   has no children files, -1 on ENOMEM. */
static int add_children(proc_list_t *l, pid_t pid, const pid_t *roots, unsigned n,
                        char **buf, size_t *cap)
{
  char path[96];
  snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return 0;                   /* exited meanwhile */
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL)
  {
    if (!isdigit((unsigned char) e->d_name[0]))
      continue;
    char file[400];
    snprintf(file, sizeof(file), "%s/%s/children", path, e->d_name);
    if (read_grow(file, buf, cap) < 0)
    {
      if (errno == ENOMEM)
        rc = -1;
      else if (errno == ENOENT && access(path, F_OK) == 0)
        rc = 1;                 /* no CONFIG_PROC_CHILDREN */
      continue;
    }
    for (char *p = *buf, *end; *p; p = end)
    {
      long c = strtol(p, &end, 10);
      if (end == p)
        break;
      sb_proc_stat_t st = { .pid = (pid_t) c, .ppid = pid };
      /* a root inside another root's tree is walked once, as a root */
      if (c > 0 && !is_root((pid_t) c, roots, n) && list_add(l, &st) != 0)
        rc = -1;
    }
  }
  closedir(d);
  return rc;
}

/* The tree walked from the roots through the children files: reads only
   the tree's processes. Returns the number of roots found, -1 on error,
   -2 when the kernel has no children files. */
static int walk_tree(const pid_t *roots, unsigned n, proc_list_t *l)
{
  memset(l, 0, sizeof(*l));
  for (unsigned i = 0; i < n; i++)
  {
    sb_proc_stat_t st = { .pid = roots[i] };
    if (!is_root(roots[i], roots, i) && list_add(l, &st) != 0)
      return -1;
  }
  size_t nroots = l->n;
  int found = 0;
  char *buf = NULL;
  size_t cap = 0;
  /* l->procs grows while it is walked: entries are (pid only) until read */
  size_t w = 0;
  for (size_t i = 0; i < l->n; i++)
  {
    sb_proc_stat_t st;
    if (sb_proc_stat_read(l->procs[i].pid, &st) != 0)
      continue;                 /* gone: reaped into its parent's cutime */
    if (i < nroots)
      found++;
    int rc = add_children(l, st.pid, roots, n, &buf, &cap);
    if (rc != 0)
    {
      free(buf);
      free(l->procs);
      l->procs = NULL;
      return rc > 0 ? -2 : -1;
    }
    l->procs[w++] = st;
  }
  free(buf);
  l->n = w;
  qsort(l->procs, l->n, sizeof(*l->procs), cmp_pid);
  return found;
}

/* Every process of /proc, sorted by pid: the fallback without children
   files. */
static int scan_procs(proc_list_t *l)
{
  memset(l, 0, sizeof(*l));
  DIR *d = opendir("/proc");
  if (d == NULL)
    return -1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
  {
    if (!isdigit((unsigned char) e->d_name[0]))
      continue;
    sb_proc_stat_t st;
    /* gone since readdir, or not readable: not part of any tree we see */
    if (sb_proc_stat_read((pid_t) atol(e->d_name), &st) != 0)
      continue;
    if (list_add(l, &st) != 0)
    {
      closedir(d);
      free(l->procs);
      return -1;
    }
  }
  closedir(d);
  qsort(l->procs, l->n, sizeof(*l->procs), cmp_pid);
  return 0;
}

static long find_pid(const proc_list_t *l, pid_t pid)
{
  size_t lo = 0, hi = l->n;
  while (lo < hi)
  {
    size_t mid = (lo + hi) / 2;
    if (l->procs[mid].pid == pid)
      return (long) mid;
    if (l->procs[mid].pid < pid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* Marks the roots and their descendants in `mark` (l->n bytes); returns
   the number of roots found. A pass marks one more generation, so this
   takes (tree depth + 1) passes: 2 or 3 for a database server. */
static unsigned mark_tree(const proc_list_t *l, const pid_t *roots, unsigned n, char *mark)
{
  unsigned found = 0;
  for (unsigned i = 0; i < n; i++)
  {
    long k = find_pid(l, roots[i]);
    if (k >= 0 && !mark[k])
    {
      mark[k] = 1;
      found++;
    }
  }
  bool changed = found > 0;
  while (changed)
  {
    changed = false;
    for (size_t i = 0; i < l->n; i++)
    {
      if (mark[i])
        continue;
      long parent = find_pid(l, l->procs[i].ppid);
      if (parent >= 0 && mark[parent])
      {
        mark[i] = 1;
        changed = true;
      }
    }
  }
  return found;
}

/* The stats of the roots and all their descendants, each once, into l
   (the caller frees l->procs): walked through the children files, or
   (`walk` false, or no such files) found by scanning all of /proc.
   Returns the number of roots found, or -1 with errno. */
static int tree_stats(const pid_t *roots, unsigned n, proc_list_t *l, bool walk)
{
  int found = walk ? walk_tree(roots, n, l) : -2;
  if (found != -2)
    return found;
  if (scan_procs(l) != 0)
    return -1;
  char *mark = calloc(l->n ? l->n : 1, 1);
  if (mark == NULL)
  {
    free(l->procs);
    errno = ENOMEM;
    return -1;
  }
  found = (int) mark_tree(l, roots, n, mark);
  size_t w = 0;
  for (size_t i = 0; i < l->n; i++)
    if (mark[i])
      l->procs[w++] = l->procs[i];
  l->n = w;
  free(mark);
  return found;
}

static int tree_cpu(const pid_t *roots, unsigned n, sb_tree_cpu_t *out, bool walk)
{
  memset(out, 0, sizeof(*out));
  proc_list_t l;
  int found = tree_stats(roots, n, &l, walk);
  if (found < 0)
    return -1;
  uint64_t user = 0, sys = 0, user_ns = 0, sys_ns = 0;
  for (size_t i = 0; i < l.n; i++)
  {
    const sb_proc_stat_t *p = &l.procs[i];
    /* A reaped child's time is in its parent's cutime/cstime; a live (or
       zombie) child is counted by itself: nothing twice. */
    user += p->cutime;
    sys += p->cstime;
    /* The main thread's figure is the process's only if no other thread
       ran: threads that ended are in the ticks, not in schedstat. */
    uint64_t tick_ns = 1000000000u / (uint64_t) clock_ticks();
    if (p->run_ns > 0 && p->run_ns + tick_ns >= (p->utime + p->stime) * tick_ns)
    {
      /* Nanoseconds for a single-threaded process (a PostgreSQL backend):
         in ticks, each of 100 backends that ran 5 ms in a step counts 0.
         The user/system split follows the ticks; below one tick it is
         counted as user time. */
      uint64_t t = p->utime + p->stime;
      uint64_t s_ns = t ? (uint64_t) ((double) p->run_ns * (double) p->stime / (double) t) : 0;
      sys_ns += s_ns;
      user_ns += p->run_ns - s_ns;
    }
    else
    {
      user += p->utime;
      sys += p->stime;
    }
  }
  out->nprocs = (unsigned) l.n;
  long hz = clock_ticks();
  out->user_us = user * 1000000u / (uint64_t) hz + user_ns / 1000u;
  out->system_us = sys * 1000000u / (uint64_t) hz + sys_ns / 1000u;
  free(l.procs);
  if (found == 0)
  {
    errno = ESRCH;
    return -1;
  }
  return 0;
}

int sb_tree_cpu(const pid_t *roots, unsigned n, sb_tree_cpu_t *out)
{
  return tree_cpu(roots, n, out, true);
}

int sb_tree_cpu_scan(const pid_t *roots, unsigned n, sb_tree_cpu_t *out)
{
  return tree_cpu(roots, n, out, false);
}

int sb_tree_pids(const pid_t *roots, unsigned n, pid_t *out, unsigned cap)
{
  proc_list_t l;
  if (tree_stats(roots, n, &l, true) < 0)
    return -1;
  unsigned k = 0;
  for (size_t i = 0; i < l.n && k < cap; i++)
    out[k++] = l.procs[i].pid;
  free(l.procs);
  return (int) k;
}

/* ---- cgroup v2 ----------------------------------------------------------- */

int sb_cgroup_cpu_parse(const char *buf, uint64_t *user_us, uint64_t *system_us)
{
  bool have_user = false, have_sys = false;
  const char *p = buf;
  while (*p)
  {
    if (strncmp(p, "user_usec ", 10) == 0)
    {
      *user_us = strtoull(p + 10, NULL, 10);
      have_user = true;
    }
    else if (strncmp(p, "system_usec ", 12) == 0)
    {
      *system_us = strtoull(p + 12, NULL, 10);
      have_sys = true;
    }
    const char *nl = strchr(p, '\n');
    if (nl == NULL)
      break;
    p = nl + 1;
  }
  return have_user && have_sys ? 0 : -1;
}

int sb_cgroup_cpu(const char *dir, uint64_t *user_us, uint64_t *system_us)
{
  char path[4096 + 16], buf[2048];
  snprintf(path, sizeof(path), "%s/cpu.stat", dir);
  if (read_small(path, buf, sizeof(buf)) < 0)
    return -1;
  if (sb_cgroup_cpu_parse(buf, user_us, system_us) != 0)
  {
    errno = EINVAL;
    return -1;
  }
  return 0;
}

/* mountinfo escapes blanks in paths as octal (\040). */
static void unescape_octal(char *s)
{
  char *w = s;
  for (char *r = s; *r; )
  {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
        r[3] >= '0' && r[3] <= '7')
    {
      *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
      r += 4;
    }
    else
      *w++ = *r++;
  }
  *w = '\0';
}

/* Mount point of the cgroup v2 hierarchy into `v2` ("" when none) and
   whether any cgroup v1 hierarchy is mounted. */
static void cgroup_mounts(char *v2, size_t len, bool *have_v1)
{
  v2[0] = '\0';
  *have_v1 = false;
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (f == NULL)
    return;
  char line[4096];
  while (fgets(line, sizeof(line), f))
  {
    /* id parent major:minor root mount-point options [optional...] - type ... */
    char *sep = strstr(line, " - ");
    if (sep == NULL)
      continue;
    char type[32] = "";
    sscanf(sep + 3, "%31s", type);
    char mnt[4096] = "";
    if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
      continue;
    if (strcmp(type, "cgroup2") == 0 && v2[0] == '\0')
    {
      unescape_octal(mnt);
      snprintf(v2, len, "%s", mnt);
    }
    else if (strcmp(type, "cgroup") == 0)
      *have_v1 = true;
  }
  fclose(f);
}

int sb_cgroup_resolve(const char *path, char *resolved, size_t cap, char *why, size_t whylen)
{
  char v2[4096];
  bool have_v1;
  cgroup_mounts(v2, sizeof(v2), &have_v1);
  char where[4200];
  if (v2[0])
    snprintf(where, sizeof(where), "cgroup v2 is mounted at %s", v2);
  else
    snprintf(where, sizeof(where), "this machine mounts no cgroup v2 hierarchy%s",
             have_v1 ? " (cgroup v1 only: use --server-pid with the server's process id)" : "");
  if (path == NULL || *path == '\0')
  {
    snprintf(why, whylen, "empty path (%s)", where);
    return -1;
  }
  if (path[0] == '/')
    snprintf(resolved, cap, "%s", path);
  else if (v2[0])
    snprintf(resolved, cap, "%s/%s", v2, path);
  else
  {
    snprintf(why, whylen, "'%s' is relative and %s", path, where);
    return -1;
  }
  size_t n = strlen(resolved);
  while (n > 1 && resolved[n - 1] == '/')
    resolved[--n] = '\0';
  struct stat sb;
  if (stat(resolved, &sb) != 0)
  {
    snprintf(why, whylen, "'%s': %s (%s)", resolved, strerror(errno), where);
    return -1;
  }
  if (!S_ISDIR(sb.st_mode))
  {
    snprintf(why, whylen, "'%s' is not a directory, so not a cgroup (%s)", resolved, where);
    return -1;
  }
  struct statfs fs;
  if (statfs(resolved, &fs) != 0)
  {
    snprintf(why, whylen, "'%s': %s", resolved, strerror(errno));
    return -1;
  }
  if ((unsigned long) fs.f_type == (unsigned long) CGROUP_SUPER_MAGIC)
  {
    snprintf(why, whylen, "'%s' is a cgroup v1 directory; bmk reads the cgroup v2 cpu.stat "
             "(%s); on a cgroup v1 machine give the server's process id with --server-pid",
             resolved, where);
    return -1;
  }
  if ((unsigned long) fs.f_type != (unsigned long) CGROUP2_SUPER_MAGIC)
  {
    snprintf(why, whylen, "'%s' is not a cgroup directory (%s)", resolved, where);
    return -1;
  }
  uint64_t u, s;
  if (sb_cgroup_cpu(resolved, &u, &s) != 0)
  {
    snprintf(why, whylen, "cannot read '%s/cpu.stat': %s", resolved, strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- host and self -------------------------------------------------------- */

int sb_host_cpu_parse(const char *buf, sb_host_cpu_t *out)
{
  memset(out, 0, sizeof(*out));
  if (strncmp(buf, "cpu ", 4) != 0)
    return -1;
  uint64_t v[8] = { 0 };
  const char *p = buf + 4;
  for (int i = 0; i < 8; i++)
  {
    char *end;
    v[i] = strtoull(p, &end, 10);
    if (end == p)
    {
      if (i < 4)
        return -1;
      break;        /* kernels before 2.6.11 stop after softirq or earlier */
    }
    p = end;
  }
  /* user nice system idle iowait irq softirq steal; guest time is already
     inside user. */
  uint64_t total = 0;
  for (int i = 0; i < 8; i++)
    total += v[i];
  out->total = total;
  out->busy = total - v[3] - v[4];
  return 0;
}

int sb_host_cpu(sb_host_cpu_t *out)
{
  /* Only the first line is needed: a short read is fine. */
  char buf[4096];
  if (read_small("/proc/stat", buf, sizeof(buf)) < 0)
    return -1;
  if (sb_host_cpu_parse(buf, out) != 0)
  {
    errno = EINVAL;
    return -1;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  out->ncpus = n > 0 ? (unsigned) n : 1;
  return 0;
}

void sb_self_cpu(uint64_t *user_us, uint64_t *system_us)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *user_us = (uint64_t) ru.ru_utime.tv_sec * 1000000u + (uint64_t) ru.ru_utime.tv_usec;
  *system_us = (uint64_t) ru.ru_stime.tv_sec * 1000000u + (uint64_t) ru.ru_stime.tv_usec;
}
