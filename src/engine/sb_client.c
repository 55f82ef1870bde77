/*
 * The load generator's own CPU (sb_engine_priv.h, "sb_client.c"): the
 * process's CPU time and, in event mode, each worker thread's time on a
 * CPU and waiting for one, sampled by the reporter thread once per tick,
 * so that a run in which bmk rather than the server set the pace says so
 * (docs/results.md "The client's own CPU").
 *
 * Why "runnable" and not only "on a CPU": an event-loop worker that
 * always has ready virtual users never waits for the server; whether it
 * spends that time running or queued behind other threads for a CPU (the
 * server's, on a shared machine), its VUs wait for it. The kernel's
 * per-thread schedstat (/proc/self/task/TID/schedstat: ns on a CPU, ns
 * runnable on a run queue) gives both, so the judgement does not depend
 * on how much of the machine bmk got.
 */
#define _GNU_SOURCE            /* sched_getaffinity, CPU_COUNT */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ck_pr.h>

#include "core/sb_timer.h"
#include "drivers/db_driver.h"
#include "engine/sb_engine_priv.h"

/* One worker's schedstat figures (ns). */
typedef struct {
  uint64_t run, wait;
  bool ok;
} sched_t;

/* The reporter thread's state (its own from eng_client_begin on). */
static struct {
  bool on;
  unsigned cpus;                /* CPUs the process may use */
  uint64_t t_ns, t0_ns;         /* the last sample's time, the first's */
  uint64_t proc_ns, proc0_ns;   /* process CPU at the last sample, the first */
  sched_t *w;                   /* event mode: per worker at the last sample */
  double busiest_max, busiest_cpu_max;
  unsigned intervals, saturated;
} cl;

/* The process's CPU time (user + system of every thread), ns. */
static uint64_t process_ns(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t) ts.tv_sec * NS_PER_SEC + (uint64_t) ts.tv_nsec;
}

/* Worker i's schedstat now (ok false when it cannot be read: not started
   yet, exited, or a kernel without it). */
static sched_t worker_sched(unsigned i)
{
  sched_t s = { 0, 0, false };
  int tid = ck_pr_load_int(&eng_workers[i].os_tid);
  if (tid <= 0)
    return s;
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return s;
  unsigned long long run, wait;
  s.ok = fscanf(f, "%llu %llu", &run, &wait) == 2;
  fclose(f);
  s.run = run;
  s.wait = wait;
  return s;
}

void eng_client_worker_exit(sb_worker_t *w)
{
  FILE *f = fopen("/proc/thread-self/schedstat", "r");
  unsigned long long run, wait;
  bool ok = f != NULL && fscanf(f, "%llu %llu", &run, &wait) == 2;
  if (f != NULL)
    fclose(f);
  if (!ok)
    return;
  w->exit_run_ns = run;
  w->exit_wait_ns = wait;
  w->exit_ns = sb_now_ns();
  ck_pr_store_int(&w->exit_set, 1);
}

/* The cgroup v2 CPU quota of the process in CPUs (cpu.max: "QUOTA
   PERIOD"), or 0 when there is none or it cannot be read. */
static double cgroup_quota(void)
{
  char path[600] = "", line[512];
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (f == NULL)
    return 0;
  while (fgets(line, sizeof(line), f))
    if (strncmp(line, "0::", 3) == 0)
    {
      line[strcspn(line, "\n")] = '\0';
      snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", line + 3);
    }
  fclose(f);
  if (path[0] == '\0' || (f = fopen(path, "r")) == NULL)
    return 0;
  double quota = 0, period = 0;
  char q[32];
  if (fscanf(f, "%31s %lf", q, &period) == 2 && strcmp(q, "max") != 0 && period > 0)
    quota = strtod(q, NULL) / period;
  fclose(f);
  return quota;
}

unsigned sb_engine_cpus(void)
{
  cpu_set_t set;
  unsigned n = 0;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    n = (unsigned) CPU_COUNT(&set);
  if (n == 0)
    n = 1;
  double quota = cgroup_quota();
  if (quota > 0 && quota < n)
    n = quota < 1 ? 1 : (unsigned) (quota + 0.5);
  return n;
}

void eng_client_begin(void)
{
  free(cl.w);
  memset(&cl, 0, sizeof(cl));
  /* a built-in test's events are the client's own work: its CPU is what
     is measured, never a limit of the measurement */
  if (eng_ctest != NULL)
    return;
  if (eng_cfg.event_mode)
  {
    cl.w = calloc(eng_cfg.workers, sizeof(*cl.w));
    if (cl.w == NULL)
      return;
    for (unsigned i = 0; i < eng_cfg.workers; i++)
      cl.w[i] = worker_sched(i);
  }
  cl.cpus = sb_engine_cpus();
  cl.t_ns = cl.t0_ns = sb_now_ns();
  cl.proc_ns = cl.proc0_ns = process_ns();
  cl.on = true;
}

bool eng_client_saturated(const sb_client_t *c)
{
  /* an event-loop worker that was always runnable (its VUs waited for it,
     not for the server), or every CPU of the process busy */
  return (c->event_mode && c->busiest >= SB_CLIENT_SATURATED) ||
         c->cpu >= SB_CLIENT_SATURATED * c->cpus;
}

/* Fills the figures common to an interval and the run. */
static void fill(sb_client_t *c, double wall_s, uint64_t proc_ns)
{
  c->measured = true;
  c->workers = eng_cfg.workers;
  c->event_mode = eng_cfg.event_mode;
  c->cpus = cl.cpus;
  c->cpu = wall_s > 0 ? (double) proc_ns / 1e9 / wall_s : 0;
  c->blocking_calls = db_loop_blocking_calls();
}

/* The busiest worker since the last sample: the largest share of the
   time it was runnable (on a CPU or queued for one), and its share on a
   CPU. A worker that exited since is judged on the part of the interval
   it lived (its own last figures). Updates the per-worker figures. */
static void busiest_worker(double wall_s, double *busy, double *on_cpu)
{
  *busy = *on_cpu = 0;
  for (unsigned i = 0; cl.w && i < eng_cfg.workers; i++)
  {
    sched_t s = worker_sched(i);
    bool live = s.ok;
    double lived = wall_s;
    if (!live && cl.w[i].ok && ck_pr_load_int(&eng_workers[i].exit_set))
    {
      s = (sched_t) { eng_workers[i].exit_run_ns, eng_workers[i].exit_wait_ns, true };
      lived = eng_workers[i].exit_ns > cl.t_ns ? (double) (eng_workers[i].exit_ns - cl.t_ns) / 1e9
                                                : 0;
      if (lived < 0.05)
        s.ok = false;         /* too short a part to judge */
    }
    if (s.ok && cl.w[i].ok && s.run >= cl.w[i].run && s.wait >= cl.w[i].wait)
    {
      double run = (double) (s.run - cl.w[i].run) / 1e9 / lived;
      double b = run + (double) (s.wait - cl.w[i].wait) / 1e9 / lived;
      if (b > *busy)
      {
        *busy = b;
        *on_cpu = run;
      }
    }
    /* an exited worker is judged once */
    cl.w[i] = live ? s : (sched_t) { 0, 0, false };
  }
}

void eng_client_sample(sb_client_t *c)
{
  memset(c, 0, sizeof(*c));
  if (!cl.on)
    return;
  uint64_t now = sb_now_ns();
  double wall = (double) (now - cl.t_ns) / 1e9;
  if (wall <= 0)
    return;
  uint64_t proc = process_ns();
  fill(c, wall, proc >= cl.proc_ns ? proc - cl.proc_ns : 0);
  busiest_worker(wall, &c->busiest, &c->busiest_cpu);
  c->saturated = eng_client_saturated(c);
  cl.t_ns = now;
  cl.proc_ns = proc;
  cl.intervals++;
  if (c->saturated)
    cl.saturated++;
  if (c->busiest > cl.busiest_max)
  {
    cl.busiest_max = c->busiest;
    cl.busiest_cpu_max = c->busiest_cpu;
  }
  c->intervals = cl.intervals;
  c->saturated_intervals = cl.saturated;
}

void eng_client_total(sb_client_t *c)
{
  memset(c, 0, sizeof(*c));
  if (!cl.on)
  {
    c->blocking_calls = db_loop_blocking_calls();
    return;
  }
  /* up to the last sample: the workers are gone by the final report */
  uint64_t now = cl.intervals > 0 ? cl.t_ns : sb_now_ns();
  uint64_t proc = cl.intervals > 0 ? cl.proc_ns : process_ns();
  double wall = (double) (now - cl.t0_ns) / 1e9;
  fill(c, wall, proc >= cl.proc0_ns ? proc - cl.proc0_ns : 0);
  c->busiest = cl.busiest_max;
  c->busiest_cpu = cl.busiest_cpu_max;
  c->intervals = cl.intervals;
  c->saturated_intervals = cl.saturated;
  /* the run as a whole: limited when more than a tenth of its intervals
     were (a single busy second, a start-up hiccup, is not the run) */
  c->saturated = cl.saturated > 0 && cl.saturated * 10 > cl.intervals;
}
