/* Open-loop arrival schedule; see sb_rate.h. */
#include <math.h>
#include <pthread.h>

#include "engine/sb_rate.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double mean_gap_ns;
static uint64_t next_ns;        /* intended time of the next arrival */
static double next_exact;       /* same, unrounded, so gaps do not drift */
static uint64_t rng[2];

/* xoroshiro128+ (separate from the workload generators so the schedule does
   not depend on what scripts draw). */
static uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static uint64_t next_u64(void)
{
  uint64_t s0 = rng[0], s1 = rng[1], r = s0 + s1;
  s1 ^= s0;
  rng[0] = rotl(s0, 24) ^ s1 ^ (s1 << 16);
  rng[1] = rotl(s1, 37);
  return r;
}

static uint64_t splitmix(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Exponential gap: -ln(1-u) * mean, u in [0,1). */
static double gap(void)
{
  double u = (double) (next_u64() >> 11) * 0x1.0p-53;
  return -log1p(-u) * mean_gap_ns;
}

void sb_rate_init(double rate, uint64_t start_ns, uint64_t seed)
{
  uint64_t s = seed ^ 0x5ca1ab1eULL;
  pthread_mutex_lock(&lock);
  rng[0] = splitmix(&s);
  rng[1] = splitmix(&s);
  mean_gap_ns = 1e9 / rate;
  next_exact = (double) start_ns + gap();
  next_ns = (uint64_t) next_exact;
  pthread_mutex_unlock(&lock);
}

void sb_rate_reset(uint64_t start_ns)
{
  pthread_mutex_lock(&lock);
  next_exact = (double) start_ns + gap();
  next_ns = (uint64_t) next_exact;
  pthread_mutex_unlock(&lock);
}

uint64_t sb_rate_take(void)
{
  pthread_mutex_lock(&lock);
  uint64_t t = next_ns;
  next_exact += gap();
  next_ns = (uint64_t) next_exact;
  pthread_mutex_unlock(&lock);
  return t;
}

uint64_t sb_rate_backlog(uint64_t now_ns)
{
  uint64_t n = 0;
  pthread_mutex_lock(&lock);
  if (next_ns <= now_ns)
  {
    /* Walk a copy of the generator forward without consuming it. */
    uint64_t save0 = rng[0], save1 = rng[1];
    double t = next_exact;
    while (t <= (double) now_ns && n < 1000000)
    {
      n++;
      t += gap();
    }
    if (t <= (double) now_ns)
      n += (uint64_t) (((double) now_ns - t) / mean_gap_ns);
    rng[0] = save0;
    rng[1] = save1;
  }
  pthread_mutex_unlock(&lock);
  return n;
}

uint64_t sb_rate_lag_ns(uint64_t now_ns)
{
  pthread_mutex_lock(&lock);
  uint64_t lag = now_ns > next_ns ? now_ns - next_ns : 0;
  pthread_mutex_unlock(&lock);
  return lag;
}
