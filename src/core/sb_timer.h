/*
 * Monotonic clock helpers. All times are nanoseconds on CLOCK_MONOTONIC.
 * Thread-safe (stateless).
 */
#ifndef SB_TIMER_H
#define SB_TIMER_H

#include <stdint.h>
#include <time.h>

#define NS_PER_SEC 1000000000ULL
#define NS_PER_MS  1000000ULL
#define NS_PER_US  1000ULL

/* Current monotonic time in ns. */
static inline uint64_t sb_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * NS_PER_SEC + (uint64_t) ts.tv_nsec;
}

/* Sleeps until the absolute monotonic time `t_ns` (ns); returns at once if
   it has passed. Restarts after signals. */
static inline void sb_sleep_until_ns(uint64_t t_ns)
{
  struct timespec ts;
  ts.tv_sec = (time_t) (t_ns / NS_PER_SEC);
  ts.tv_nsec = (long) (t_ns % NS_PER_SEC);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
    ;
}

#endif
