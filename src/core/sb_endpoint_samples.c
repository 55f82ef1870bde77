/* The per-endpoint figures of --endpoints that need no table: counters,
   the replica lag and "behind" samples, and what an endpoint is; see
   core/sb_endpoints.h (the table, routing and the measured windows are
   in core/sb_endpoints.c). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/sb_endpoints.h"

void sb_endpoint_count(sb_endpoint_t *ep, sb_ep_counter_t c, uint64_t n)
{
  if (ep != NULL)
    __atomic_fetch_add(&ep->counters[c], n, __ATOMIC_RELAXED);
}

uint64_t sb_endpoint_counter(const sb_endpoint_t *ep, sb_ep_counter_t c)
{
  return __atomic_load_n(&ep->counters[c], __ATOMIC_RELAXED);
}

bool sb_endpoint_is_replica(const sb_endpoint_t *ep)
{
  return strcmp(ep->role, "primary") != 0;
}

static int64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A sample: *last = v and *at = now, *max raised to v (atomics: the lag
   sampler writes, outputs and routes read). */
static void store_sample(int64_t *last, int64_t *at, int64_t *max, int64_t v)
{
  __atomic_store_n(last, v, __ATOMIC_RELAXED);
  __atomic_store_n(at, mono_ns(), __ATOMIC_RELAXED);
  int64_t m = __atomic_load_n(max, __ATOMIC_RELAXED);
  while (v > m && !__atomic_compare_exchange_n(max, &m, v, false, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED))
    ;
}

void sb_endpoint_set_lag(sb_endpoint_t *ep, double seconds)
{
  store_sample(&ep->lag_us, &ep->lag_at_ns, &ep->lag_max_us,
               seconds < 0 ? -1 : (int64_t) (seconds * 1e6 + 0.5));
}

double sb_endpoint_lag(const sb_endpoint_t *ep)
{
  if (mono_ns() - __atomic_load_n(&ep->lag_at_ns, __ATOMIC_RELAXED) > 5000000000LL)
    return -1;
  int64_t us = __atomic_load_n(&ep->lag_us, __ATOMIC_RELAXED);
  return us < 0 ? -1 : (double) us / 1e6;
}

double sb_endpoint_lag_max(const sb_endpoint_t *ep)
{
  int64_t us = __atomic_load_n(&ep->lag_max_us, __ATOMIC_RELAXED);
  return us < 0 ? -1 : (double) us / 1e6;
}

void sb_endpoint_set_behind(sb_endpoint_t *ep, int64_t behind)
{
  store_sample(&ep->behind, &ep->behind_at_ns, &ep->behind_max, behind < 0 ? -1 : behind);
}

int64_t sb_endpoint_behind(const sb_endpoint_t *ep)
{
  if (mono_ns() - __atomic_load_n(&ep->behind_at_ns, __ATOMIC_RELAXED) > 5000000000LL)
    return -1;
  return __atomic_load_n(&ep->behind, __ATOMIC_RELAXED);
}

int64_t sb_endpoint_behind_max(const sb_endpoint_t *ep)
{
  return __atomic_load_n(&ep->behind_max, __ATOMIC_RELAXED);
}

bool sb_endpoint_has_tls(const sb_endpoint_t *ep)
{
  return ep->tls_mode || ep->tls_ca || ep->tls_cert || ep->tls_key;
}
