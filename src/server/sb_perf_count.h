/*
 * Hardware instruction counts of a database server (server cost): the
 * seed's `perf stat -e instructions:u`, done with perf_event_open.
 *
 * A process tree gets one counter per thread that exists when counting
 * starts, each with `inherit` set, so the threads and processes those
 * threads create afterwards are counted too (a new PostgreSQL backend, a
 * new MariaDB connection thread); the counts of children that exit are
 * folded into their parent's counter by the kernel. A thread created
 * between the listing of /proc/PID/task and the attaching of its creator
 * is missed; at the engine's start line the server is idle, so this does
 * not happen in practice. A cgroup gets one counter per online CPU with
 * PERF_FLAG_PID_CGROUP (perf stat -a -G), which needs root or
 * CAP_PERFMON.
 *
 * Failures (no PMU, as on most VMs; not permitted by
 * kernel.perf_event_paranoid; the open-files limit) leave a one-line
 * explanation in the set; nothing here prints. A set is used by one
 * thread at a time.
 */
#ifndef SB_PERF_COUNT_H
#define SB_PERF_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>


/* What is counted: the seed's user-space instructions, or (for checking
   the counter plumbing on machines without a PMU, environment variable
   BMK_COST_PERF_EVENT=task-clock) the software task clock in ns. */
typedef enum {
  SB_PERF_INSTRUCTIONS_U = 0,
  SB_PERF_TASK_CLOCK
} sb_perf_event_t;

/* Counters attached to a process tree or a cgroup. Owned by the caller;
   zero-initialise, then sb_perf_open_*; sb_perf_close frees. */
typedef struct {
  sb_perf_event_t event;
  int *fds;
  uint64_t *base_val, *base_enabled, *base_running;  /* at sb_perf_start */
  unsigned nfds, cap;
  bool ok;                     /* counting */
  char why[320];               /* when !ok: one line saying why not and how
                                  to allow it */
} sb_perf_set_t;

/* Name of the counted event for reports: "instructions:u" or
   "task-clock". */
const char *sb_perf_event_name(sb_perf_event_t ev);

/* The event chosen by BMK_COST_PERF_EVENT (default instructions:u). */
sb_perf_event_t sb_perf_event_from_env(void);

/*
 * Attaches one counter to every existing thread of `roots` and their
 * descendants, each inherited by the threads and processes that thread
 * creates from now on. Returns 0 when counting (set->ok), -1 with
 * set->why otherwise (no PMU, not permitted, too many threads for the
 * open-files limit, ...). Threads that exit meanwhile are skipped.
 */
int sb_perf_open_tree(sb_perf_set_t *set, sb_perf_event_t ev, const pid_t *roots, unsigned n);

/* Attaches one counter per online CPU to cgroup v2 directory `dir`
   (perf stat -a -G). Same return as sb_perf_open_tree. */
int sb_perf_open_cgroup(sb_perf_set_t *set, sb_perf_event_t ev, const char *dir);

/* Records the current counts as the start of the window. */
void sb_perf_start(sb_perf_set_t *set);

/* Events counted since sb_perf_start, scaled when the kernel multiplexed
   the counter (value * enabled / running). Returns 0, or -1 when a read
   failed. */
int sb_perf_read(const sb_perf_set_t *set, uint64_t *count);

/* Closes the counters and frees the arrays. Safe on a zeroed set. */
void sb_perf_close(sb_perf_set_t *set);

/* One line saying why perf_event_open failed with `err` (an errno) for
   this event and target kind (a cgroup, or processes), given the value of
   kernel.perf_event_paranoid (-99 when unknown), and how to allow it.
   Pure text building, exposed for the unit tests. */
void sb_perf_explain(int err, sb_perf_event_t ev, bool cgroup, int paranoid,
                     char *buf, size_t len);

#endif
