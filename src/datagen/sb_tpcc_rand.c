/* TPC-C random primitives; see sb_tpcc_rand.h. */
#include <math.h>
#include <string.h>

#include "datagen/sb_tpcc_rand.h"

void sb_tpcc_seed(sb_rand_stream_t *r, uint64_t seed, int64_t a, int64_t b,
                  int64_t c, int64_t d)
{
  /* Each field goes through the mixer before the next is folded in, so
     (1,2) and (2,1) give unrelated keys. */
  uint64_t k = sb_rand_mix64(seed ^ 0x7470636372616e64ULL);   /* "tpccrand" */
  k = sb_rand_mix64(k ^ (uint64_t) a);
  k = sb_rand_mix64(k ^ (uint64_t) b);
  k = sb_rand_mix64(k ^ (uint64_t) c);
  k = sb_rand_mix64(k ^ (uint64_t) d);
  sb_rand_stream_seed(r, k);
}

uint64_t sb_tpcc_run_seed(void)
{
  return sb_rand_params()->seed;
}

int64_t sb_tpcc_rand(sb_rand_stream_t *r, int64_t x, int64_t y)
{
  if (x >= y)
    return x;
  /* floor(u * range) by a 64x64 multiply: no modulo bias worth naming
     for ranges far below 2^64. */
  uint64_t range = (uint64_t) (y - x) + 1;
  unsigned __int128 m = (unsigned __int128) sb_rand_stream_next(r) * range;
  return x + (int64_t) (uint64_t) (m >> 64);
}

double sb_tpcc_rand_double(sb_rand_stream_t *r)
{
  return (double) (sb_rand_stream_next(r) >> 11) * 0x1.0p-53;
}

int32_t sb_tpcc_nurand(sb_rand_stream_t *r, int32_t A, int32_t x, int32_t y,
                       int32_t C)
{
  int64_t v = (sb_tpcc_rand(r, 0, A) | sb_tpcc_rand(r, x, y)) + C;
  return (int32_t) (v % ((int64_t) y - x + 1) + x);
}

static const char *const syllables[10] = {
  "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"
};

size_t sb_tpcc_lastname(int32_t num, char *buf)
{
  if (num < 0)
    num = -num;
  num %= 1000;
  int digit[3] = { num / 100, num / 10 % 10, num % 10 };
  size_t n = 0;
  for (int i = 0; i < 3; i++)
  {
    size_t l = strlen(syllables[digit[i]]);
    memcpy(buf + n, syllables[digit[i]], l);
    n += l;
  }
  buf[n] = '\0';
  return n;
}

static const char alnum[] =
  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

static size_t fill(sb_rand_stream_t *r, char *buf, int32_t min, int32_t max,
                   const char *set, int64_t nset)
{
  if (min < 0)
    min = 0;
  if (max < min)
    max = min;
  size_t len = (size_t) sb_tpcc_rand(r, min, max);
  for (size_t i = 0; i < len; i++)
    buf[i] = set[sb_tpcc_rand(r, 0, nset - 1)];
  return len;
}

size_t sb_tpcc_astring(sb_rand_stream_t *r, char *buf, int32_t min, int32_t max)
{
  return fill(r, buf, min, max, alnum, 62);
}

size_t sb_tpcc_nstring(sb_rand_stream_t *r, char *buf, int32_t min, int32_t max)
{
  return fill(r, buf, min, max, alnum, 10);
}

void sb_tpcc_letters(sb_rand_stream_t *r, char *buf, size_t n)
{
  for (size_t i = 0; i < n; i++)
    buf[i] = (char) ('A' + sb_tpcc_rand(r, 0, 25));
}

void sb_tpcc_zip(sb_rand_stream_t *r, char *buf)
{
  fill(r, buf, 4, 4, alnum, 10);
  memcpy(buf + 4, "11111", 5);
}

void sb_tpcc_original(sb_rand_stream_t *r, char *buf, size_t len)
{
  if (len < 8)
    return;
  size_t pos = (size_t) sb_tpcc_rand(r, 0, (int64_t) (len - 8));
  memcpy(buf + pos, "ORIGINAL", 8);
}

int32_t sb_tpcc_remote_wh(sb_rand_stream_t *r, int32_t home, int32_t scale)
{
  if (scale < 2)
    return home;
  int32_t w = (int32_t) sb_tpcc_rand(r, 1, scale - 1);
  return w < home ? w : w + 1;
}

bool sb_tpcc_c_delta_ok(int32_t c_load, int32_t c_run)
{
  int32_t d = c_run > c_load ? c_run - c_load : c_load - c_run;
  return d >= 65 && d <= 119 && d != 96 && d != 112;
}

int32_t sb_tpcc_c_run(sb_rand_stream_t *r, int32_t c_load)
{
  c_load = ((c_load % 256) + 256) % 256;
  /* At least 40 of the 256 values qualify for any c_load, so this ends
     after a few draws. */
  for (;;)
  {
    int32_t c = (int32_t) sb_tpcc_rand(r, 0, 255);
    if (sb_tpcc_c_delta_ok(c_load, c))
      return c;
  }
}

int64_t sb_tpcc_think_ms(sb_rand_stream_t *r, double mean_ms)
{
  if (!(mean_ms > 0))
    return 0;
  double u = 1.0 - sb_tpcc_rand_double(r);        /* (0,1] */
  double t = -log(u) * mean_ms;
  if (t > 10 * mean_ms)
    t = 10 * mean_ms;
  return (int64_t) llround(t);
}

void sb_tpcc_shuffle(sb_rand_stream_t *r, int32_t *a, int32_t n)
{
  for (int32_t i = n - 1; i > 0; i--)
  {
    int32_t j = (int32_t) sb_tpcc_rand(r, 0, i);
    int32_t t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

void sb_tpcc_permutation(sb_rand_stream_t *r, int32_t *out, int32_t n)
{
  for (int32_t i = 0; i < n; i++)
    out[i] = i + 1;
  sb_tpcc_shuffle(r, out, n);
}

bool sb_tpcc_select(sb_rand_stream_t *r, int64_t *k_left, int64_t n_left)
{
  if (*k_left <= 0 || n_left <= 0)
    return false;
  /* P(pick) = k_left / n_left, drawn as an integer so the count is exact
     even at the last items (k_left == n_left always picks). */
  if (sb_tpcc_rand(r, 1, n_left) <= *k_left)
  {
    (*k_left)--;
    return true;
  }
  return false;
}

int64_t sb_tpcc_parse_fixed(const char *p, size_t len, int scale, bool *ok)
{
  size_t i = 0;
  bool neg = false, digits = false;
  int64_t v = 0;
  int frac = -1;                   /* digits seen after the point */

  if (ok)
    *ok = false;
  while (i < len && p[i] == ' ')
    i++;
  if (i < len && (p[i] == '-' || p[i] == '+'))
    neg = p[i++] == '-';
  for (; i < len; i++)
  {
    char c = p[i];
    if (c == '.' && frac < 0)
      frac = 0;
    else if (c >= '0' && c <= '9')
    {
      digits = true;
      if (frac >= 0)
      {
        if (frac >= scale)
          continue;                /* truncated */
        frac++;
      }
      v = v * 10 + (c - '0');
    }
    else
      break;
  }
  if (!digits || i < len)
    return 0;
  for (int f = frac < 0 ? 0 : frac; f < scale; f++)
    v *= 10;
  if (ok)
    *ok = true;
  return neg ? -v : v;
}

size_t sb_tpcc_fmt_fixed(char *buf, int64_t v, int scale)
{
  char tmp[32];
  size_t n = 0, o = 0;
  uint64_t u = v < 0 ? -(uint64_t) v : (uint64_t) v;
  int d = 0;
  do
  {
    tmp[n++] = (char) ('0' + u % 10);
    u /= 10;
    if (++d == scale && scale > 0)
      tmp[n++] = '.';
  } while (u != 0 || d <= scale);
  if (v < 0)
    buf[o++] = '-';
  while (n)
    buf[o++] = tmp[--n];
  buf[o] = '\0';
  return o;
}
