/*
 * Random streams of the TPC-H-derived data generator: dbgen 2.17.3's
 * arithmetic (see sb_tpch_rand.h).
 */
#include "datagen/sb_tpch_rand.h"

#define PM_A 16807LL
#define LCG_A 6364136223846793005ULL
#define LCG_C 1ULL

/* Product mod M with dbgen's 64-bit signed wrap (only reachable for
   values above 2^31, i.e. never with Park-Miller values). */
static int64_t mulmod(int64_t a, int64_t b)
{
  return (int64_t)((uint64_t)a * (uint64_t)b) % SB_TPCH_RAND_M;
}

int64_t sb_tpch_skip(int64_t value, int64_t n)
{
  int64_t mult = PM_A;
  while (n > 0) {
    if (n & 1)
      value = mulmod(mult, value);
    n >>= 1;
    mult = mulmod(mult, mult);
  }
  return value;
}

void sb_tpch_row_end(sb_tpch_stream_t *s, int64_t per_row)
{
  if (per_row > s->used)
    s->value = sb_tpch_skip(s->value, per_row - s->used);
  s->used = 0;
}

int64_t sb_tpch_unif(sb_tpch_stream_t *s, int64_t lo, int64_t hi)
{
  double range;
  if (lo == 0 && hi == SB_TPCH_RAND_M)
    range = -2147483648.0;  /* dbgen's int32 range wraps here */
  else
    range = (double)(hi - lo + 1);
  s->value = (s->value * PM_A) % SB_TPCH_RAND_M;
  s->used++;
  return lo + (int64_t)(((double)s->value / 2147483647.0) * range);
}

int64_t sb_tpch_unif64(sb_tpch_stream_t *s, int64_t lo, int64_t hi)
{
  int64_t v;
  if (lo > hi) {
    int64_t t = lo;
    lo = hi;
    hi = t;
  }
  s->value = (int64_t)((uint64_t)s->value * LCG_A + LCG_C);
  s->used++;
  v = s->value;
  if (v < 0)
    v = (int64_t)(0 - (uint64_t)v);  /* INT64_MIN stays itself, as in dbgen */
  v %= (hi - lo + 1);
  return lo + v;
}

int sb_tpch_pick(sb_tpch_stream_t *s, const sb_tpch_dist_t *d)
{
  int64_t j = sb_tpch_unif(s, 1, d->total);
  int64_t run = 0;
  int i;
  for (i = 0; i < d->count - 1; i++) {
    run += d->words[i].weight;
    if (run >= j)
      break;
  }
  return i;
}

int sb_tpch_vstring(sb_tpch_stream_t *s, int min, int max, char *dst)
{
  static const char alphabet[65] =
    "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,";
  int len = (int)sb_tpch_unif(s, min, max);
  int64_t bits = 0;
  for (int i = 0; i < len; i++) {
    if (i % 5 == 0)
      bits = sb_tpch_unif(s, 0, SB_TPCH_RAND_M);
    dst[i] = alphabet[bits & 63];
    bits >>= 6;   /* arithmetic shift of a value <= 0, as dbgen */
  }
  dst[len] = '\0';
  return len;
}

void sb_tpch_permute(sb_tpch_stream_t *s, int32_t *perm, int n)
{
  for (int i = 0; i < n; i++) {
    int64_t j = sb_tpch_unif(s, i, n - 1);
    int32_t t = perm[j];
    perm[j] = perm[i];
    perm[i] = t;
  }
}
