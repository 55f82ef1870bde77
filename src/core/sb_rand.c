/* Pseudo-random numbers; see sb_rand.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sb_cluster.h"
#include "core/sb_rand.h"

static sb_rand_params_t params = {
  .dist = SB_RAND_UNIFORM, .seed = 1, .spec_iter = 12, .spec_pct = 1,
  .spec_res = 75, .pareto_h = 0.2, .zipf_exp = 0.8
};
static _Thread_local uint64_t state[2] = { 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL };
static uint32_t unique_index;
static uint32_t unique_offset;

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int sb_rand_parse_type(const char *name, sb_rand_dist_t *dist)
{
  static const struct { const char *n; sb_rand_dist_t d; } t[] = {
    { "uniform", SB_RAND_UNIFORM }, { "gaussian", SB_RAND_GAUSSIAN },
    { "special", SB_RAND_SPECIAL }, { "pareto", SB_RAND_PARETO },
    { "zipfian", SB_RAND_ZIPFIAN }
  };
  for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
    if (strcmp(name, t[i].n) == 0)
    {
      *dist = t[i].d;
      return 0;
    }
  return -1;
}

void sb_rand_init(const sb_rand_params_t *p)
{
  params = *p;
  if (params.seed == 0)
  {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    params.seed = (uint64_t) ts.tv_sec * 1000000007ULL + (uint64_t) ts.tv_nsec;
    if (params.seed == 0)
      params.seed = 1;
    params.seed_from_clock = true;
  }
  if (params.spec_iter == 0)
    params.spec_iter = 1;
  uint64_t x = params.seed ^ 0xa5a5a5a5ULL;
  unique_offset = (uint32_t) splitmix64(&x);
  sb_rand_thread_init(0);
}

const sb_rand_params_t *sb_rand_params(void)
{
  return &params;
}

void sb_rand_thread_init(int tid)
{
  /* global across a cluster run: no two processes share a stream */
  tid = sb_cluster_global_tid(tid);
  uint64_t x = params.seed * 0x100000001b3ULL ^ ((uint64_t) (uint32_t) tid + 1) * 0x9e3779b97f4a7c15ULL;
  state[0] = splitmix64(&x);
  state[1] = splitmix64(&x);
  if ((state[0] | state[1]) == 0)
    state[1] = 1;
}

void sb_rand_state_get(uint64_t s[2])
{
  s[0] = state[0];
  s[1] = state[1];
}

void sb_rand_state_set(const uint64_t s[2])
{
  state[0] = s[0];
  state[1] = s[1];
}

static inline uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

/* One xoroshiro128+ step (Blackman & Vigna 2016, parameters 24/16/37). */
static inline uint64_t xoro_next(uint64_t *s)
{
  uint64_t s0 = s[0], s1 = s[1], r = s0 + s1;
  s1 ^= s0;
  s[0] = rotl(s0, 24) ^ s1 ^ (s1 << 16);
  s[1] = rotl(s1, 37);
  return r;
}

uint64_t sb_rand_uniform_uint64(void)
{
  return xoro_next(state);
}

uint64_t sb_rand_mix64(uint64_t x)
{
  return splitmix64(&x);
}

void sb_rand_stream_seed(sb_rand_stream_t *st, uint64_t key)
{
  uint64_t x = key;
  st->s[0] = splitmix64(&x);
  st->s[1] = splitmix64(&x);
  if ((st->s[0] | st->s[1]) == 0)
    st->s[1] = 1;
}

uint64_t sb_rand_stream_next(sb_rand_stream_t *st)
{
  return xoro_next(st->s);
}

double sb_rand_uniform_double(void)
{
  return (double) (sb_rand_uniform_uint64() >> 11) * 0x1.0p-53;
}

uint32_t sb_rand_uniform(uint32_t a, uint32_t b)
{
  if (a >= b)
    return a;
  /* 64x32 fixed-point multiply: floor(u * range) without float rounding. */
  uint64_t range = (uint64_t) b - a + 1;
  return a + (uint32_t) (((sb_rand_uniform_uint64() >> 32) * range) >> 32);
}

uint32_t sb_rand_gaussian(uint32_t a, uint32_t b)
{
  if (a >= b)
    return a;
  double range = (double) b - a + 1, sum = 0;
  for (unsigned i = 0; i < params.spec_iter; i++)
    sum += sb_rand_uniform_double() * range;
  uint64_t v = (uint64_t) (sum / params.spec_iter);
  return a + (uint32_t) (v >= range ? range - 1 : v);
}

uint32_t sb_rand_special(uint32_t a, uint32_t b)
{
  if (a >= b)
    return a;
  double t = (double) b - a;
  double res = params.spec_res, pct = params.spec_pct;
  double u = sb_rand_uniform_double();
  if (res >= 100 || u * t * 100.0 / (100.0 - res) < t)
  {
    /* outside the special part: bell-shaped over the whole range */
    double sum = 0;
    for (unsigned i = 0; i < params.spec_iter; i++)
      sum += sb_rand_uniform_double();
    return a + (uint32_t) (t * sum / params.spec_iter);
  }
  double v = u * (t * pct / 100.0 + 1) + t / 2 - t * pct / 200.0;
  if (v < 0)
    v = 0;
  if (v > t)
    v = t;
  return a + (uint32_t) v;
}

uint32_t sb_rand_pareto(uint32_t a, uint32_t b)
{
  if (a >= b)
    return a;
  double h = params.pareto_h;
  double power = log(h) / log(1.0 - h);
  double range = (double) b - a + 1;
  double v = floor(range * pow(sb_rand_uniform_double(), power));
  if (v >= range)
    v = range - 1;
  return a + (uint32_t) v;
}

/* Zipf by rejection-inversion (W. Hormann, G. Derflinger, "Rejection-
   inversion to generate variates from monotone discrete distributions",
   ACM TOMACS 6(3), 1996). H is an antiderivative of the hat function
   x^-s; helper functions keep precision near s = 1. */
static double helper1(double x)  /* log1p(x)/x */
{
  return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)  /* expm1(x)/x */
{
  return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3.0 * (1 + 0.25 * x));
}

static double zipf_h(double x, double s)
{
  double lx = log(x);
  return helper2((1 - s) * lx) * lx;
}

static double zipf_h_inv(double x, double s)
{
  double t = x * (1 - s);
  if (t < -1)
    t = -1;
  return exp(helper1(t) * x);
}

uint32_t sb_rand_zipfian(uint32_t a, uint32_t b)
{
  if (a >= b)
    return a;
  double n = (double) b - a + 1;
  double s = params.zipf_exp;
  if (s <= 0)
    return sb_rand_uniform(a, b);
  double h_x1 = zipf_h(1.5, s) - 1.0;          /* h(1) = 1 */
  double h_n = zipf_h(n + 0.5, s);
  double sq = 2 - zipf_h_inv(zipf_h(2.5, s) - exp(-s * log(2.0)), s);
  for (;;)
  {
    double u = h_n + sb_rand_uniform_double() * (h_x1 - h_n);
    double x = zipf_h_inv(u, s);
    double k = floor(x + 0.5);
    if (k < 1)
      k = 1;
    else if (k > n)
      k = n;
    if (k - x <= sq || u >= zipf_h(k + 0.5, s) - exp(-s * log(k)))
      return a - 1 + (uint32_t) k;
  }
}

uint32_t sb_rand_default(uint32_t a, uint32_t b)
{
  switch (params.dist)
  {
  case SB_RAND_GAUSSIAN: return sb_rand_gaussian(a, b);
  case SB_RAND_SPECIAL: return sb_rand_special(a, b);
  case SB_RAND_PARETO: return sb_rand_pareto(a, b);
  case SB_RAND_ZIPFIAN: return sb_rand_zipfian(a, b);
  default: return sb_rand_uniform(a, b);
  }
}

/* Quadratic residues modulo a prime p = 3 (mod 4) form a permutation of
   [0, p) (J. Preshing, "How to Generate a Sequence of Unique Random
   Integers", 2012); applying it twice with an offset scrambles the order. */
static uint32_t permute_qpr(uint32_t x)
{
  static const uint32_t prime = 4294967291u;
  if (x >= prime)
    return x;   /* the 5 values above the prime map to themselves */
  uint32_t r = (uint32_t) (((uint64_t) x * x) % prime);
  return x <= prime / 2 ? r : prime - r;
}

uint32_t sb_rand_unique(void)
{
  uint32_t i = __atomic_fetch_add(&unique_index, 1, __ATOMIC_RELAXED);
  return permute_qpr((permute_qpr(i) + unique_offset) ^ 0x5bf03635u);
}

void sb_rand_str(const char *fmt, char *buf)
{
  size_t i;
  for (i = 0; fmt[i]; i++)
  {
    if (fmt[i] == '#')
      buf[i] = (char) ('0' + sb_rand_uniform(0, 9));
    else if (fmt[i] == '@')
      buf[i] = (char) ('a' + sb_rand_uniform(0, 25));
    else
      buf[i] = fmt[i];
  }
  buf[i] = '\0';
}

uint32_t sb_rand_varstr(char *buf, uint32_t min_len, uint32_t max_len)
{
  uint32_t len = sb_rand_uniform(min_len, max_len);
  for (uint32_t i = 0; i < len; i++)
    buf[i] = (char) sb_rand_uniform('0', 'z');
  return len;
}
