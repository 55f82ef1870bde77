/*
 * What a set of processes costs the host, read from the kernel
 * (docs/capacity.md): the operating-system half of the server-cost
 * measurement (sb_server_cost.h is the other half: options, finding the
 * server, reports).
 *
 *   - CPU time of process trees from /proc/PID/stat: a process's own user
 *     and system time (all its threads, dead ones included) plus cutime and
 *     cstime, where the kernel adds the times of children the process has
 *     waited for. Summed over a root and every descendant alive at the
 *     sample, the difference of two samples is the CPU the tree used in
 *     between, including children that were forked and reaped in the
 *     window (a PostgreSQL backend that exits lands in the postmaster's
 *     cutime/cstime). Resolution: one clock tick (1/CLK_TCK s, 10 ms on
 *     Linux) per process and sample, except for single-threaded processes,
 *     whose time is read in nanoseconds from /proc/PID/schedstat (sched
 *     run time, proc(5)); reaped children stay in ticks.
 *   - CPU time of a cgroup v2 directory from its cpu.stat (user_usec,
 *     system_usec; microseconds).
 *   - Host CPU (/proc/stat) and this process's own CPU (getrusage).
 * (Hardware instruction counts are in sb_perf_count.h.)
 *
 * Everything here is plain reading of kernel files: no global state,
 * thread-safe.
 */
#ifndef SB_CPU_PROBE_H
#define SB_CPU_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields of /proc/PID/stat bmk uses. Times in clock ticks. */
typedef struct {
  pid_t pid;
  pid_t ppid;
  char state;                  /* 'R', 'S', 'Z', ... */
  uint64_t utime, stime;       /* the process (all its threads) */
  uint64_t cutime, cstime;     /* children it has waited for */
  uint64_t starttime;          /* ticks after boot */
  unsigned num_threads;        /* threads of the process */
  uint64_t run_ns;             /* ns on a CPU from /proc/PID/schedstat when the
                                  process has one thread (sb_proc_stat_read
                                  only); 0 when not read */
} sb_proc_stat_t;

/* Parses the text of a /proc/PID/stat file (`buf`, NUL-terminated; the
   command name may hold spaces and parentheses) up to field 22; run_ns is
   left 0. Returns 0, or -1 when the text is not in that format. Pure
   function. */
int sb_proc_stat_parse(const char *buf, sb_proc_stat_t *out);

/* Reads /proc/<pid>/stat, and for a single-threaded process the
   nanoseconds it ran from /proc/<pid>/schedstat (run_ns). Returns 0, or -1
   with errno (ENOENT: no such process). */
int sb_proc_stat_read(pid_t pid, sb_proc_stat_t *out);

/* Seconds since the epoch at which process `pid` started (from its
   starttime and the boot time in /proc/stat), or -1 when unknown. */
double sb_proc_start_epoch(pid_t pid);

/* The command name of `pid` (/proc/PID/comm, without the newline) into
   `buf`; "?" when unreadable. */
void sb_proc_comm(pid_t pid, char *buf, size_t len);

/* CPU time of a process tree: user and system microseconds. */
typedef struct {
  uint64_t user_us;
  uint64_t system_us;
  unsigned nprocs;             /* processes in the tree at the sample */
} sb_tree_cpu_t;

/*
 * Sums the CPU time of `roots` (n process ids) and all their descendants,
 * found by walking /proc/PID/task/TID/children from the roots (only the
 * tree's files are read: about 0.2 ms for a database server, where a scan
 * of every process of a busy host takes milliseconds), or by scanning all
 * of /proc on kernels without those files. A root that is also a
 * descendant of another root is counted once. Returns 0, or -1 with errno
 * when /proc cannot be read or none of the roots exists any more (ESRCH).
 */
int sb_tree_cpu(const pid_t *roots, unsigned n, sb_tree_cpu_t *out);

/* The same, always by scanning every process of /proc (the fallback;
   exposed for the unit tests). */
int sb_tree_cpu_scan(const pid_t *roots, unsigned n, sb_tree_cpu_t *out);

/*
 * The process ids of `roots` and all their descendants, at most `cap`,
 * into `out`; returns how many (or -1 with errno when /proc cannot be
 * read). Used to attach counters to every existing thread.
 */
int sb_tree_pids(const pid_t *roots, unsigned n, pid_t *out, unsigned cap);

/* Reads user_usec and system_usec of `<dir>/cpu.stat` (cgroup v2).
   Returns 0, or -1 with errno. */
int sb_cgroup_cpu(const char *dir, uint64_t *user_us, uint64_t *system_us);

/* Parses the text of a cgroup v2 cpu.stat file. Returns 0 when both
   user_usec and system_usec were found, else -1. Pure function. */
int sb_cgroup_cpu_parse(const char *buf, uint64_t *user_us, uint64_t *system_us);

/*
 * Checks that `path` is a cgroup v2 directory, turning a path relative to
 * the v2 mount point (e.g. "system.slice/mariadb.service") into an
 * absolute one in `resolved` (cap bytes). Returns 0, or -1 with a
 * one-line reason in `why` (what the path is instead, where cgroup v2 is
 * mounted, what to use on a cgroup v1-only machine).
 */
int sb_cgroup_resolve(const char *path, char *resolved, size_t cap, char *why, size_t whylen);

/* Host CPU from the first line of /proc/stat: busy and total clock ticks
   (busy = total - idle - iowait) and the number of online CPUs. */
typedef struct {
  uint64_t busy;
  uint64_t total;
  unsigned ncpus;
} sb_host_cpu_t;

/* Returns 0, or -1 with errno. */
int sb_host_cpu(sb_host_cpu_t *out);

/* Parses the "cpu " line of /proc/stat text. Returns 0 or -1. Pure. */
int sb_host_cpu_parse(const char *buf, sb_host_cpu_t *out);

/* This process's own CPU (getrusage RUSAGE_SELF, all threads): user and
   system microseconds. */
void sb_self_cpu(uint64_t *user_us, uint64_t *system_us);

#endif
