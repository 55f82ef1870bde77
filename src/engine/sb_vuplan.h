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

/* VUs at or below which --workers=auto keeps one OS thread per VU. */
#define SB_PLAN_THREAD_MODE_MAX 1024

/* Descriptors bmk keeps for itself besides one connection per VU (stdio,
   epoll and eventfds, result files, the server-statistics connection,
   client-library files). */
#define SB_PLAN_FD_RESERVE 64

typedef struct {
  unsigned threads;            /* --threads */
  const char *workers;         /* --workers text: "auto" or a number */
  const char *async_sessions;  /* --async-sessions text: "1", "K" or "auto" */
  unsigned terminals;          /* sessions "auto" asks for: the workload's
                                  terminals (--terminals-per-warehouse x
                                  warehouses), else 0 */
  bool workers_given;          /* --workers was on the command line */
  unsigned ncpu;               /* online CPUs */
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
 * needs 1 <= N <= VUs; auto = one worker per VU up to
 * SB_PLAN_THREAD_MODE_MAX VUs, else min(ncpu, VUs) workers.
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
