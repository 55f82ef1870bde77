/*
 * Open-loop arrival schedule for --rate (sysbench 1.1's model).
 *
 * Arrivals form a Poisson process: exponential gaps with mean 1/rate,
 * drawn from a generator seeded by --rand-seed so a fixed seed gives the
 * same schedule. Workers pull the next arrival when idle; an event's
 * latency is measured from its arrival (intended start), so queueing delay
 * is included (no coordinated omission). The backlog is never stored: it is
 * the number of arrivals at or before "now" not yet taken, so memory stays
 * constant however far workers fall behind. Thread-safe (one mutex).
 */
#ifndef SB_RATE_H
#define SB_RATE_H

#include <stdint.h>

/* Starts the schedule at `start_ns` with `rate` events/s and RNG `seed`. */
void sb_rate_init(double rate, uint64_t start_ns, uint64_t seed);

/* Takes the next arrival; returns its intended start time (ns). */
uint64_t sb_rate_take(void);

/* Arrivals due at `now_ns` and not yet taken (counted exactly up to
   1,000,000, estimated from the rate beyond). */
uint64_t sb_rate_backlog(uint64_t now_ns);

/* Restarts the schedule at `start_ns` (after warmup the schedule keeps
   running; this is only used by tests). */
void sb_rate_reset(uint64_t start_ns);

/* Schedule lag at `now_ns`: how long the oldest arrival not yet taken by
   a worker has been due (ns), 0 when the workers keep up. Thread-safe. */
uint64_t sb_rate_lag_ns(uint64_t now_ns);

#endif
