/* pgbench's generator and distributions; see pgs_random.h for the sources. */
#include <math.h>

#include "pgscript/pgs_random.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static inline uint64_t rotl64(uint64_t x, int bits)
{
  return (x << bits) | (x >> (64 - bits));
}

/* splitmix64: only used to spread a seed over the state. */
static uint64_t splitmix64(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void pgs_prng_seed(pgs_prng_t *st, uint64_t seed)
{
  st->s0 = splitmix64(&seed);
  st->s1 = splitmix64(&seed);
  if (st->s0 == 0 && st->s1 == 0)
  {
    /* an all-zero state is a fixed point: PostgreSQL puts Knuth's MMIX
       LCG constants there */
    st->s0 = 0x5851F42D4C957F2DULL;
    st->s1 = 0x14057B7EF767814FULL;
  }
}

uint64_t pgs_prng_u64(pgs_prng_t *st)
{
  uint64_t s0 = st->s0;
  uint64_t sx = st->s1 ^ s0;
  uint64_t val = rotl64(s0 * 5, 7) * 9;
  st->s0 = rotl64(s0, 24) ^ sx ^ (sx << 16);
  st->s1 = rotl64(sx, 37);
  return val;
}

uint64_t pgs_prng_u64_range(pgs_prng_t *st, uint64_t rmin, uint64_t rmax)
{
  if (rmax <= rmin)
    return rmin;
  uint64_t range = rmax - rmin;
  /* shift so that the top set bit of range is the top bit kept */
  int rshift = __builtin_clzll(range);
  uint64_t val;
  do
    val = pgs_prng_u64(st) >> rshift;
  while (val > range);
  return rmin + val;
}

double pgs_prng_double(pgs_prng_t *st)
{
  uint64_t v = pgs_prng_u64(st);
  return ldexp((double) (v >> 12), -52);
}

double pgs_prng_normal(pgs_prng_t *st)
{
  /* both uniforms in (0, 1]: log(0) is impossible */
  double u1 = 1.0 - pgs_prng_double(st);
  double u2 = 1.0 - pgs_prng_double(st);
  return sqrt(-2.0 * log(u1)) * sin(2.0 * M_PI * u2);
}

int64_t pgs_rand_uniform(pgs_prng_t *st, int64_t min, int64_t max)
{
  return min + (int64_t) pgs_prng_u64_range(st, 0, (uint64_t) (max - min));
}

int64_t pgs_rand_exponential(pgs_prng_t *st, int64_t min, int64_t max, double param)
{
  double cut = exp(-param);
  double uniform = 1.0 - pgs_prng_double(st);     /* (0, 1] */
  double r = -log(cut + (1.0 - cut) * uniform) / param;   /* [0, 1) */
  return min + (int64_t) ((max - min + 1) * r);
}

int64_t pgs_rand_gaussian(pgs_prng_t *st, int64_t min, int64_t max, double param)
{
  double stdev;
  /* redraw until within [-param, param) */
  do
    stdev = pgs_prng_normal(st);
  while (stdev < -param || stdev >= param);
  double r = (stdev + param) / (param * 2.0);
  return min + (int64_t) ((max - min + 1) * r);
}

/* Devroye's rejection method for the Zipf distribution on [1, n]. */
static int64_t zipfian_1n(pgs_prng_t *st, int64_t n, double s)
{
  double b = pow(2.0, s - 1.0);
  double x, t, u, v;
  if (n <= 1)
    return 1;
  for (;;)
  {
    u = pgs_prng_double(st);
    v = pgs_prng_double(st);
    x = floor(pow(u, -1.0 / (s - 1.0)));
    t = pow(1.0 + 1.0 / x, s - 1.0);
    if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= n)
      break;
  }
  return (int64_t) x;
}

int64_t pgs_rand_zipfian(pgs_prng_t *st, int64_t min, int64_t max, double s)
{
  return min - 1 + zipfian_1n(st, max - min + 1, s);
}

int64_t pgs_rand_poisson(pgs_prng_t *st, double center)
{
  double uniform = 1.0 - pgs_prng_double(st);
  return (int64_t) (-log(uniform) * center + 0.5);
}

#define FNV_PRIME 0x100000001b3ULL
#define FNV_OFFSET_BASIS 0xcbf29ce484222325ULL
#define MM2_MUL 0xc6a4a7935bd1e995ULL
#define MM2_MUL_TIMES_8 0x35253c9ade8f4ca8ULL
#define MM2_ROT 47

int64_t pgs_hash_fnv1a(int64_t v, uint64_t seed)
{
  uint64_t result = FNV_OFFSET_BASIS ^ seed;
  uint64_t val = (uint64_t) v;
  for (int i = 0; i < 8; i++)
  {
    /* pgbench shifts a signed value: an arithmetic shift, so the octets
       past the sign are 0xff for a negative value */
    uint64_t octet = val & 0xff;
    val = (uint64_t) ((int64_t) val >> 8);
    result ^= octet;
    result *= FNV_PRIME;
  }
  return (int64_t) result;
}

int64_t pgs_hash_murmur2(int64_t v, uint64_t seed)
{
  uint64_t result = seed ^ MM2_MUL_TIMES_8;      /* 8 = sizeof(int64) */
  uint64_t k = (uint64_t) v;
  k *= MM2_MUL;
  k ^= k >> MM2_ROT;
  k *= MM2_MUL;
  result ^= k;
  result *= MM2_MUL;
  result ^= result >> MM2_ROT;
  result *= MM2_MUL;
  result ^= result >> MM2_ROT;
  return (int64_t) result;
}

int64_t pgs_permute(int64_t val, int64_t isize, int64_t seed)
{
  if (isize < 2)
    return 0;
  pgs_prng_t st;
  pgs_prng_seed(&st, (uint64_t) seed);
  uint64_t size = (uint64_t) isize;
  uint64_t v = (uint64_t) val % size;
  /* work modulo the largest power of 2 <= size */
  int masklen = 63 - __builtin_clzll(size);
  uint64_t mask = (((uint64_t) 1) << masklen) - 1;

  for (int i = 0; i < 6; i++)
  {
    uint64_t m, r, t;
    /* odd multiplier, xor and rotate on the lower half */
    m = (pgs_prng_u64(&st) & mask) | 1;
    r = pgs_prng_u64(&st) & mask;
    if (v <= mask)
    {
      v = ((v * m) ^ r) & mask;
      v = ((v << 1) & mask) | (v >> (masklen - 1));
    }
    /* the same on the upper half */
    m = (pgs_prng_u64(&st) & mask) | 1;
    r = pgs_prng_u64(&st) & mask;
    t = size - 1 - v;
    if (t <= mask)
    {
      t = ((t * m) ^ r) & mask;
      t = ((t << 1) & mask) | (t >> (masklen - 1));
      v = size - 1 - t;
    }
    /* random offset */
    r = pgs_prng_u64_range(&st, 0, size - 1);
    v = (v + r) % size;
  }
  return (int64_t) v;
}
