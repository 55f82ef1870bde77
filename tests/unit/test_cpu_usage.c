/* Unit tests: reading CPU time of process trees, cgroups and the host
   (src/server/sb_cpu_probe.c) and the instruction counters' plumbing
   (src/server/sb_perf_count.c). The CPU bounds are CPU time the test's
   own children burn (measured on their own CPU clock), not wall-clock
   time, so a busy machine does not change them. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/sb_cpu_usage.h"
#include "server/sb_perf_count.h"

#define BURN_MS 300

/* In a forked child: die with the parent, so a failed assertion (which
   skips the test's clean-up) never leaves children blocked on a pipe. */
static void die_with_parent(void)
{
  prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* Burns `ms` of this process's CPU time. */
static void burn_cpu(unsigned ms)
{
  struct timespec ts;
  volatile uint64_t x = 0;
  for (;;)
  {
    for (int i = 0; i < 100000; i++)
      x += (uint64_t) i;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if ((uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000 >= ms)
      break;
  }
}

static void test_stat_parse(void **state)
{
  (void) state;
  /* a command name with blanks and parentheses, as a process may set */
  const char *text = "4242 (my (odd) name) S 17 4242 4242 0 -1 4194560 500 0 0 0 "
                     "123 45 6 7 20 0 3 0 98765 1000000 200 18446744073709551615\n";
  sb_proc_stat_t st;
  assert_int_equal(sb_proc_stat_parse(text, &st), 0);
  assert_int_equal(st.pid, 4242);
  assert_int_equal(st.ppid, 17);
  assert_int_equal(st.state, 'S');
  assert_int_equal(st.utime, 123);
  assert_int_equal(st.stime, 45);
  assert_int_equal(st.cutime, 6);
  assert_int_equal(st.cstime, 7);
  assert_int_equal(st.starttime, 98765);
  assert_int_equal(st.num_threads, 3);
  assert_int_equal(st.run_ns, 0);          /* parse only: not read */

  assert_int_equal(sb_proc_stat_parse("", &st), -1);
  assert_int_equal(sb_proc_stat_parse("12 (x) S 1 2 3", &st), -1);   /* truncated */
  assert_int_equal(sb_proc_stat_parse("x (y) S 1", &st), -1);
  assert_int_equal(sb_proc_stat_read(getpid(), &st), 0);
  assert_int_equal(st.pid, getpid());
  assert_int_equal(st.ppid, getppid());
}

/* A single-threaded process's CPU in nanoseconds (/proc/PID/schedstat),
   the clock CLOCK_PROCESS_CPUTIME_ID reads: 3 ms of burning, a third of
   a clock tick, shows in full between two reads. The kernel brings a
   task's figure up to date when it is switched out, so each read follows
   a sleep; then, exactly: burned <= b - a <= the CPU clock around both. */
static uint64_t cpu_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static void test_stat_read_ns(void **state)
{
  (void) state;
  sb_proc_stat_t a, b;
  uint64_t pre = cpu_ns();
  usleep(20000);
  assert_int_equal(sb_proc_stat_read(getpid(), &a), 0);
  if (a.num_threads != 1)
  {
    /* a sanitizer runtime's own thread (ThreadSanitizer's) makes the
       process multi-threaded: then ticks are used, as for mysqld */
    assert_int_equal(a.run_ns, 0);
    skip();
  }
  assert_true(a.run_ns > 0);
  uint64_t t0 = cpu_ns(), burned;
  while ((burned = cpu_ns() - t0) < 3000000u)
    ;
  usleep(20000);
  assert_int_equal(sb_proc_stat_read(getpid(), &b), 0);
  uint64_t around = cpu_ns() - pre;
  assert_true(b.run_ns - a.run_ns >= burned);
  assert_true(b.run_ns - a.run_ns <= around);
}

static void test_cgroup_and_host_parse(void **state)
{
  (void) state;
  uint64_t u = 0, s = 0;
  assert_int_equal(sb_cgroup_cpu_parse("usage_usec 900\nuser_usec 600\nsystem_usec 300\n"
                                       "nice_usec 0\n", &u, &s), 0);
  assert_int_equal(u, 600);
  assert_int_equal(s, 300);
  assert_int_equal(sb_cgroup_cpu_parse("usage_usec 900\n", &u, &s), -1);

  sb_host_cpu_t h;
  /* user nice system idle iowait irq softirq steal guest guest_nice */
  assert_int_equal(sb_host_cpu_parse("cpu  100 10 50 800 20 5 5 10 7 0\ncpu0 1 2 3\n", &h), 0);
  assert_int_equal(h.total, 1000);
  assert_int_equal(h.busy, 180);
  assert_int_equal(sb_host_cpu_parse("cpu0 1 2 3 4\n", &h), -1);
  assert_int_equal(sb_host_cpu(&h), 0);
  assert_true(h.ncpus >= 1);
  assert_true(h.busy <= h.total);
}

/* A child that forks a grandchild burning BURN_MS of CPU. reap: the child
   waits for it (its time moves into the child's cutime), else the
   grandchild stays alive until killed. The child then waits on `go`. */
static pid_t spawn_tree(bool reap, int go_fd, int ready_fd)
{
  pid_t child = fork();
  if (child != 0)
    return child;
  die_with_parent();
  pid_t gc = fork();
  if (gc == 0)
  {
    die_with_parent();
    burn_cpu(BURN_MS);
    if (!reap)
    {
      char c = 1;
      if (write(ready_fd, &c, 1) != 1)
        _exit(2);
      pause();
    }
    _exit(0);
  }
  if (reap)
  {
    waitpid(gc, NULL, 0);
    char c = 1;
    if (write(ready_fd, &c, 1) != 1)
      _exit(2);
  }
  char c;
  if (read(go_fd, &c, 1) < 0)
    _exit(2);
  if (!reap)
    kill(gc, SIGKILL);
  _exit(0);
}

/* The tree's CPU grows by the grandchild's burn, whether the grandchild
   is still alive or already reaped by its parent; through the children
   files or by scanning /proc. */
static void check_tree(bool reap, int (*tree_cpu)(const pid_t *, unsigned, sb_tree_cpu_t *))
{
  int go[2], ready[2];
  assert_int_equal(pipe(go), 0);
  assert_int_equal(pipe(ready), 0);
  sb_tree_cpu_t before, after;
  pid_t child = spawn_tree(reap, go[0], ready[1]);
  assert_true(child > 0);
  /* the tree right after the fork: the burn has barely started */
  assert_int_equal(tree_cpu(&child, 1, &before), 0);
  char c;
  assert_int_equal(read(ready[0], &c, 1), 1);
  assert_int_equal(tree_cpu(&child, 1, &after), 0);
  assert_int_equal(after.nprocs, reap ? 1 : 2);
  if (!reap)
  {
    /* the grandchild given as a root too (inside the child's tree): once */
    pid_t both[2];
    assert_int_equal(sb_tree_pids(&child, 1, both, 2), 2);
    sb_tree_cpu_t twice;
    assert_int_equal(tree_cpu(both, 2, &twice), 0);
    assert_int_equal(twice.nprocs, 2);
  }
  uint64_t used = (after.user_us + after.system_us) - (before.user_us + before.system_us);
  uint64_t total = after.user_us + after.system_us;
  /* clock ticks truncate: allow two ticks (20 ms) below, and the fork and
     exit work above */
  assert_true(total >= (BURN_MS - 20) * 1000u);
  assert_true(used <= (BURN_MS + 150) * 1000u);
  assert_int_equal(write(go[1], &c, 1), 1);
  waitpid(child, NULL, 0);
  close(go[0]);
  close(go[1]);
  close(ready[0]);
  close(ready[1]);
}

static void test_tree_live_descendant(void **state)
{
  (void) state;
  check_tree(false, sb_tree_cpu);
  check_tree(false, sb_tree_cpu_scan);
}

static void test_tree_reaped_descendant(void **state)
{
  (void) state;
  check_tree(true, sb_tree_cpu);
  check_tree(true, sb_tree_cpu_scan);
}

static void test_tree_errors(void **state)
{
  (void) state;
  /* a pid beyond pid_max never exists */
  pid_t none = 0x7ffffff0;
  sb_tree_cpu_t t;
  assert_int_equal(sb_tree_cpu(&none, 1, &t), -1);
  assert_int_equal(errno, ESRCH);
  assert_int_equal(sb_tree_cpu_scan(&none, 1, &t), -1);
  assert_int_equal(errno, ESRCH);
  /* a root listed twice, or inside another root's tree, counts once */
  pid_t me[2] = { getpid(), getpid() };
  pid_t self[1] = { getpid() };
  sb_tree_cpu_t a, b;
  assert_int_equal(sb_tree_cpu(self, 1, &a), 0);
  assert_int_equal(sb_tree_cpu(me, 2, &b), 0);
  assert_int_equal(a.nprocs, b.nprocs);
  assert_int_equal(sb_tree_cpu_scan(me, 2, &b), 0);
  assert_int_equal(a.nprocs, b.nprocs);
  pid_t pids[8];
  assert_int_equal(sb_tree_pids(me, 2, pids, 8), 1);
  assert_int_equal(pids[0], getpid());
}

static void test_cgroup_resolve(void **state)
{
  (void) state;
  char res[4096], why[1024];
  assert_int_equal(sb_cgroup_resolve("/tmp", res, sizeof(res), why, sizeof(why)), -1);
  assert_non_null(strstr(why, "not a cgroup"));
  assert_int_equal(sb_cgroup_resolve("/etc/hostname", res, sizeof(res), why, sizeof(why)), -1);
  assert_non_null(strstr(why, "not a directory"));
  assert_int_equal(sb_cgroup_resolve("/no/such/dir", res, sizeof(res), why, sizeof(why)), -1);
  assert_non_null(strstr(why, "No such file"));
  assert_int_equal(sb_cgroup_resolve("", res, sizeof(res), why, sizeof(why)), -1);
  /* every message says where cgroup v2 is, or that there is none */
  assert_true(strstr(why, "cgroup v2 is mounted at") || strstr(why, "no cgroup v2"));
}

static void test_perf_explain(void **state)
{
  (void) state;
  char buf[400];
  sb_perf_explain(ENOENT, SB_PERF_INSTRUCTIONS_U, false, 2, buf, sizeof(buf));
  assert_non_null(strstr(buf, "instructions:u"));
  assert_non_null(strstr(buf, "PMU"));
  sb_perf_explain(EACCES, SB_PERF_INSTRUCTIONS_U, false, 3, buf, sizeof(buf));
  assert_non_null(strstr(buf, "kernel.perf_event_paranoid=3"));
  assert_non_null(strstr(buf, "CAP_PERFMON"));
  assert_non_null(strstr(buf, "paranoid<=2"));
  sb_perf_explain(EPERM, SB_PERF_INSTRUCTIONS_U, true, -99, buf, sizeof(buf));
  assert_null(strstr(buf, "=-99"));
  assert_non_null(strstr(buf, "paranoid<=0"));
  sb_perf_explain(EMFILE, SB_PERF_INSTRUCTIONS_U, false, 2, buf, sizeof(buf));
  assert_non_null(strstr(buf, "ulimit -n"));
  /* no newline: the reports print it as one line */
  assert_null(strchr(buf, '\n'));
}

/* The counters follow the tree: a grandchild forked after the counters
   were attached is counted through inheritance, and its count survives
   its exit. task-clock (ns) works without a PMU; skipped where even that
   is not permitted. */
static void test_perf_inherit(void **state)
{
  (void) state;
  int go[2], ready[2];
  assert_int_equal(pipe(go), 0);
  assert_int_equal(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0)
  {
    die_with_parent();
    char c;
    if (read(go[0], &c, 1) != 1)   /* wait until the counters are attached */
      _exit(2);
    pid_t gc = fork();
    if (gc == 0)
    {
      die_with_parent();
      burn_cpu(BURN_MS);
      _exit(0);
    }
    waitpid(gc, NULL, 0);
    if (write(ready[1], &c, 1) != 1)
      _exit(2);
    if (read(go[0], &c, 1) < 0)
      _exit(2);
    _exit(0);
  }
  sb_perf_set_t set;
  int rc = sb_perf_open_tree(&set, SB_PERF_TASK_CLOCK, &child, 1);
  char c = 1;
  if (rc != 0)
  {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    print_message("perf_event_open not usable here: %s\n", set.why);
    sb_perf_close(&set);
    skip();
  }
  assert_true(set.nfds >= 1);
  sb_perf_start(&set);
  assert_int_equal(write(go[1], &c, 1), 1);
  assert_int_equal(read(ready[0], &c, 1), 1);
  uint64_t ns = 0;
  assert_int_equal(sb_perf_read(&set, &ns), 0);
  assert_true(ns >= (uint64_t) BURN_MS * 1000000u * 95 / 100);
  assert_int_equal(write(go[1], &c, 1), 1);
  waitpid(child, NULL, 0);
  sb_perf_close(&set);
  assert_int_equal(set.nfds, 0);
  close(go[0]);
  close(go[1]);
  close(ready[0]);
  close(ready[1]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stat_parse),
    cmocka_unit_test(test_stat_read_ns),
    cmocka_unit_test(test_cgroup_and_host_parse),
    cmocka_unit_test(test_tree_live_descendant),
    cmocka_unit_test(test_tree_reaped_descendant),
    cmocka_unit_test(test_tree_errors),
    cmocka_unit_test(test_cgroup_resolve),
    cmocka_unit_test(test_perf_explain),
    cmocka_unit_test(test_perf_inherit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
