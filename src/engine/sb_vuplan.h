/*
 * How virtual users (VUs) map onto worker threads (event mode): pure
 * functions, so the rules can be unit-tested without threads or servers.
 *
 * VU t runs on worker t % W and is the (t / W)-th VU of that worker; with
 * --login-delay=MS that VU starts m x MS after its worker.
 */
#ifndef SB_VUPLAN_H
#define SB_VUPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --workers=auto (the default): below this many VUs one OS thread per VU
   (thread mode, sysbench's model); from it on the event loop on one
   worker thread per CPU the client may use (never fewer workers than
   that: a worker is one CPU at most). From here up the event loop drives
   at least the throughput of one thread per VU at less client CPU per
   query (bench/engine_vs_sysbench.sh; docs/design.md "Which engine by
   default"). */
#define SB_PLAN_EVENT_MIN_VUS 16

/* The same threshold for the mysql driver. MariaDB and MySQL serve a
   connection with a thread of its own by default, and against such a
   server on the same machine the event loop delivered less than one
   thread per VU up to about 32 VUs (docs/design.md "Which engine by
   default"). */
#define SB_PLAN_EVENT_MIN_VUS_MYSQL 64

/* --workers=auto for built-in tests (cpu, memory, ...), whose events are
   work of their own rather than waits on a server: one OS thread per VU
   up to this many VUs, else one worker per CPU. */
#define SB_PLAN_OWN_WORK_THREADS_MAX 1024

/* Descriptors bmk keeps for itself besides one connection per VU (stdio,
   epoll and eventfds, result files, the server-statistics connection,
   client-library files). */
#define SB_PLAN_FD_RESERVE 64

typedef struct {
  unsigned threads;            /* --threads */
  const char *workers;         /* --workers text: "auto", "threads" or a number */
  const char *async_sessions;  /* --async-sessions text: "1", "K" or "auto" */
  unsigned terminals;          /* sessions "auto" asks for: the workload's
                                  terminals (--terminals-per-warehouse x
                                  warehouses), else 0 */
  bool workers_given;          /* --workers was on the command line */
  bool own_work;               /* a built-in test: events are CPU or file
                                  work, not waits on a server */
  unsigned event_min_vus;      /* auto: the VU count from which the event
                                  loop runs (SB_PLAN_EVENT_MIN_VUS[_MYSQL]);
                                  0 = SB_PLAN_EVENT_MIN_VUS */
  unsigned ncpu;               /* CPUs the process may use */
} sb_plan_in_t;

typedef struct {
  unsigned vus;                /* virtual users (what --threads reports) */
  unsigned workers;            /* OS threads */
  bool event_mode;             /* workers < vus */
} sb_plan_t;

/*
 * Resolves the options into VUs and workers. Returns 0, or -1 with a
 * one-line message naming the option and what to do in `err` (size
 * `errlen`). Rules: --async-sessions=K runs threads x K VUs on `threads`
 * workers (an explicit --workers must then equal --threads); --workers=N
 * needs 1 <= N <= VUs; --workers=threads = one worker per VU; auto = one
 * worker per VU below event_min_vus VUs, else min(ncpu, VUs) workers (with
 * own_work: one per VU up to SB_PLAN_OWN_WORK_THREADS_MAX VUs, else
 * min(ncpu, VUs)).
 */
int sb_plan_resolve(const sb_plan_in_t *in, sb_plan_t *out, char *err, size_t errlen);

/* The worker of VU `tid` among `workers`. */
static inline unsigned sb_plan_worker_of(unsigned tid, unsigned workers)
{
  return tid % workers;
}

/* The position of VU `tid` among its worker's VUs (0-based). */
static inline unsigned sb_plan_index_in_worker(unsigned tid, unsigned workers)
{
  return tid / workers;
}

/* Number of VUs worker `w` runs out of `vus` on `workers` workers. */
static inline unsigned sb_plan_vus_of_worker(unsigned w, unsigned vus, unsigned workers)
{
  return w < vus ? (vus - w + workers - 1) / workers : 0;
}

/* When the m-th VU of a worker starts, in ns after the worker started
   (--login-delay, ms). */
static inline uint64_t sb_plan_login_offset_ns(unsigned m, double delay_ms)
{
  return delay_ms > 0 ? (uint64_t) ((double) m * delay_ms * 1e6) : 0;
}

/* File descriptors a run of `vus` VUs needs (one connection each plus
   the reserve). */
static inline uint64_t sb_plan_fds_needed(unsigned vus)
{
  return (uint64_t) vus + SB_PLAN_FD_RESERVE;
}

#endif
