/* Latency histograms; see sb_histogram.h. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_histogram.h"

/* HDR layout: values are counted in ns (unit 2^UNIT_SHIFT = 1 ns, so the
   resolution is 0.1 % already at 1 us); each bucket covers a power-of-two
   range split into SUB_HALF linear sub-buckets, so the relative resolution
   is 1/SUB_HALF (< 0.1 %) over the whole range. Blocks are allocated on
   first use, so the extra low buckets cost nothing unless used. */
#define UNIT_SHIFT 0
#define SUB_BITS 11                       /* 2048 sub-buckets: 3 digits */
#define SUB_COUNT (1u << SUB_BITS)
#define SUB_HALF (SUB_COUNT / 2)

static uint32_t bucket_count(void)
{
  /* Smallest number of buckets whose range covers the highest value. */
  uint64_t limit = (uint64_t) SUB_COUNT << UNIT_SHIFT;
  uint32_t n = 1;
  while (limit <= SB_HDR_HIGHEST_NS)
  {
    limit <<= 1;
    n++;
  }
  return n;
}

static uint32_t counts_len(void)
{
  return (bucket_count() + 1) * SUB_HALF;
}

static uint32_t index_of(uint64_t v)
{
  if (v < SB_HDR_LOWEST_NS)
    v = SB_HDR_LOWEST_NS;
  if (v > SB_HDR_HIGHEST_NS)
    v = SB_HDR_HIGHEST_NS;
  uint64_t u = v >> UNIT_SHIFT;
  /* bucket = how far the highest set bit is above the sub-bucket range */
  int msb = 63 - __builtin_clzll(u | 1);
  int bucket = msb - (SUB_BITS - 1);
  if (bucket < 0)
    bucket = 0;
  uint32_t sub = (uint32_t) (u >> bucket);
  return (uint32_t) (bucket + 1) * SUB_HALF + sub - SUB_HALF;
}

uint64_t sb_hdr_value_lo(uint32_t i)
{
  int bucket = (int) (i / SUB_HALF) - 1;
  uint32_t sub = i % SUB_HALF + SUB_HALF;
  if (bucket < 0)
  {
    bucket = 0;
    sub -= SUB_HALF;
  }
  return ((uint64_t) sub << bucket) << UNIT_SHIFT;
}

uint64_t sb_hdr_value_hi(uint32_t i)
{
  int bucket = (int) (i / SUB_HALF) - 1;
  if (bucket < 0)
    bucket = 0;
  return sb_hdr_value_lo(i) + (((uint64_t) 1 << bucket) << UNIT_SHIFT) - 1;
}

_Static_assert(sizeof(sb_hdr_t) <= 64, "sb_hdr_t must fit the line sb_hdr_new gives it");

sb_hdr_t *sb_hdr_new(void)
{
  /* A cache line of its own: workers bump `total` on every event, and
     their histograms are allocated one after another by the main thread;
     sharing a line would make every record a cross-core miss. */
  sb_hdr_t *h = aligned_alloc(64, 64);
  if (h == NULL)
    return NULL;
  memset(h, 0, 64);
  h->counts_len = counts_len();
  h->nblocks = h->counts_len / SB_HDR_BLOCK;
  h->blocks = calloc(h->nblocks, sizeof(uint64_t *));
  if (h->blocks == NULL)
  {
    free(h);
    return NULL;
  }
  return h;
}

void sb_hdr_free(sb_hdr_t *h)
{
  if (h == NULL)
    return;
  for (uint32_t b = 0; b < h->nblocks; b++)
    free(h->blocks[b]);
  free(h->blocks);
  free(h);
}

static uint64_t *block_get(const sb_hdr_t *h, uint32_t b)
{
  return __atomic_load_n(&h->blocks[b], __ATOMIC_ACQUIRE);
}

/* Returns block b, allocating it (zeroed) if needed; NULL on OOM. Only the
   histogram's single writer may call it. */
static uint64_t *block_make(sb_hdr_t *h, uint32_t b)
{
  uint64_t *p = block_get(h, b);
  if (p == NULL)
  {
    p = calloc(SB_HDR_BLOCK, sizeof(uint64_t));
    if (p != NULL)
      __atomic_store_n(&h->blocks[b], p, __ATOMIC_RELEASE);
  }
  return p;
}

void sb_hdr_reset(sb_hdr_t *h)
{
  for (uint32_t b = 0; b < h->nblocks; b++)
    if (h->blocks[b])
      memset(h->blocks[b], 0, SB_HDR_BLOCK * sizeof(uint64_t));
  h->total = 0;
}

/* Single writer: plain load + store with relaxed atomics so concurrent
   readers see whole values. */
static void bump(uint64_t *p, uint64_t n)
{
  __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

void sb_hdr_record_n(sb_hdr_t *h, uint64_t ns, uint64_t count)
{
  uint32_t i = index_of(ns);
  uint64_t *blk = block_make(h, i / SB_HDR_BLOCK);
  if (blk == NULL)
    return;   /* out of memory: the value is lost rather than the run */
  bump(&blk[i % SB_HDR_BLOCK], count);
  bump(&h->total, count);
}

int sb_hdr_add_count_at(sb_hdr_t *h, uint32_t i, uint64_t count)
{
  if (i >= h->counts_len)
    return -1;
  uint64_t *blk = block_make(h, i / SB_HDR_BLOCK);
  if (blk == NULL)
    return -1;
  bump(&blk[i % SB_HDR_BLOCK], count);
  bump(&h->total, count);
  return 0;
}

void sb_hdr_record(sb_hdr_t *h, uint64_t ns)
{
  sb_hdr_record_n(h, ns, 1);
}

void sb_hdr_add(sb_hdr_t *dst, const sb_hdr_t *src)
{
  uint64_t total = 0;
  for (uint32_t b = 0; b < src->nblocks; b++)
  {
    const uint64_t *sp = block_get(src, b);
    if (sp == NULL)
      continue;
    uint64_t *dp = block_make(dst, b);
    if (dp == NULL)
      continue;
    for (uint32_t k = 0; k < SB_HDR_BLOCK; k++)
    {
      uint64_t c = __atomic_load_n(&sp[k], __ATOMIC_RELAXED);
      dp[k] += c;
      total += c;
    }
  }
  /* The total is recomputed from the counters so it always matches them,
     even when src is being recorded into. */
  dst->total += total;
}

void sb_hdr_sub(sb_hdr_t *dst, const sb_hdr_t *src)
{
  uint64_t total = 0;
  for (uint32_t b = 0; b < dst->nblocks; b++)
  {
    uint64_t *dp = dst->blocks[b];
    if (dp == NULL)
      continue;
    const uint64_t *sp = block_get(src, b);
    for (uint32_t k = 0; k < SB_HDR_BLOCK; k++)
    {
      uint64_t c = sp ? sp[k] : 0;
      dp[k] = dp[k] >= c ? dp[k] - c : 0;
      total += dp[k];
    }
  }
  dst->total = total;
}

void sb_hdr_copy(sb_hdr_t *dst, const sb_hdr_t *src)
{
  uint64_t total = 0;
  for (uint32_t b = 0; b < dst->nblocks; b++)
  {
    const uint64_t *sp = block_get(src, b);
    if (sp == NULL)
    {
      if (dst->blocks[b])
        memset(dst->blocks[b], 0, SB_HDR_BLOCK * sizeof(uint64_t));
      continue;
    }
    uint64_t *dp = block_make(dst, b);
    if (dp == NULL)
      continue;
    for (uint32_t k = 0; k < SB_HDR_BLOCK; k++)
    {
      dp[k] = __atomic_load_n(&sp[k], __ATOMIC_RELAXED);
      total += dp[k];
    }
  }
  dst->total = total;
}

uint64_t sb_hdr_count_at(const sb_hdr_t *h, uint32_t i)
{
  if (i >= h->counts_len)
    return 0;
  const uint64_t *blk = block_get(h, i / SB_HDR_BLOCK);
  return blk ? __atomic_load_n(&blk[i % SB_HDR_BLOCK], __ATOMIC_RELAXED) : 0;
}

uint64_t sb_hdr_percentile(const sb_hdr_t *h, double pct)
{
  if (h->total == 0)
    return 0;
  if (pct > 100)
    pct = 100;
  uint64_t want = (uint64_t) ceil(pct / 100.0 * (double) h->total);
  if (want < 1)
    want = 1;
  uint64_t seen = 0;
  for (uint32_t b = 0; b < h->nblocks; b++)
  {
    const uint64_t *blk = block_get(h, b);
    if (blk == NULL)
      continue;
    for (uint32_t k = 0; k < SB_HDR_BLOCK; k++)
    {
      seen += blk[k];
      if (seen >= want)
        return sb_hdr_value_hi(b * SB_HDR_BLOCK + k);
    }
  }
  return sb_hdr_max(h);
}

double sb_hdr_stddev(const sb_hdr_t *h)
{
  if (h->total < 2)
    return 0;
  /* Two passes (mean, then squared deviations): no cancellation. */
  double n = 0, sum = 0;
  for (uint32_t b = 0; b < h->nblocks; b++)
  {
    const uint64_t *blk = block_get(h, b);
    for (uint32_t k = 0; blk && k < SB_HDR_BLOCK; k++)
      if (blk[k])
      {
        uint32_t i = b * SB_HDR_BLOCK + k;
        double mid = ((double) sb_hdr_value_lo(i) + (double) sb_hdr_value_hi(i)) / 2;
        sum += mid * (double) blk[k];
        n += (double) blk[k];
      }
  }
  if (n < 2)
    return 0;
  double mean = sum / n, sq = 0;
  for (uint32_t b = 0; b < h->nblocks; b++)
  {
    const uint64_t *blk = block_get(h, b);
    for (uint32_t k = 0; blk && k < SB_HDR_BLOCK; k++)
      if (blk[k])
      {
        uint32_t i = b * SB_HDR_BLOCK + k;
        double d = ((double) sb_hdr_value_lo(i) + (double) sb_hdr_value_hi(i)) / 2 - mean;
        sq += d * d * (double) blk[k];
      }
  }
  return sqrt(sq / n);
}

uint64_t sb_hdr_min(const sb_hdr_t *h)
{
  for (uint32_t i = 0; i < h->counts_len; i++)
    if (sb_hdr_count_at(h, i))
      return sb_hdr_value_lo(i);
  return 0;
}

uint64_t sb_hdr_max(const sb_hdr_t *h)
{
  for (uint32_t i = h->counts_len; i-- > 0;)
    if (sb_hdr_count_at(h, i))
      return sb_hdr_value_hi(i);
  return 0;
}

uint32_t sb_hdr_counts_len(const sb_hdr_t *h)
{
  return h->counts_len;
}


/* ---- sysbench --histogram display ----------------------------------------- */

#define DISPLAY_RATIO_LOG (1.0 / 55.5)      /* bucket width: e^(1/55.5) */
#define DISPLAY_MIN_MS 0.001
#define DISPLAY_MAX_MS 3600000.0

/* The column header and one row per non-empty bucket (sysbench's
   sb_histogram_print); nothing when all counts are 0. Returns false then. */
static bool print_rows(FILE *out, const uint64_t *counts, size_t n,
                       double (*value)(size_t, const void *), const void *arg)
{
  uint64_t max = 0;
  for (size_t i = 0; i < n; i++)
    if (counts[i] > max)
      max = counts[i];
  if (max == 0)
    return false;
  fprintf(out, "       value  ------------- distribution ------------- count\n");
  for (size_t i = 0; i < n; i++)
  {
    if (counts[i] == 0)
      continue;
    char stars[41];
    int k = (int) floor((double) counts[i] * 40.0 / (double) max + 0.5);
    if (k > 40)
      k = 40;
    memset(stars, '*', (size_t) k);
    stars[k] = '\0';
    fprintf(out, "%12.3f |%-40s %lu\n", value(i, arg), stars, (unsigned long) counts[i]);
  }
  return true;
}

static double display_value(size_t i, const void *arg)
{
  (void) arg;
  /* geometric midpoint of [min*r^i, min*r^(i+1)) */
  return DISPLAY_MIN_MS * exp(((double) i + 0.5) * DISPLAY_RATIO_LOG);
}

void sb_hdr_print_sysbench(const sb_hdr_t *h, FILE *out)
{
  size_t n = (size_t) ceil(log(DISPLAY_MAX_MS / DISPLAY_MIN_MS) / DISPLAY_RATIO_LOG) + 1;
  uint64_t *counts = calloc(n, sizeof(uint64_t));
  if (counts == NULL)
    return;
  for (uint32_t i = 0; i < h->counts_len; i++)
  {
    uint64_t c = sb_hdr_count_at(h, i);
    if (c == 0)
      continue;
    double mid_ms = ((double) sb_hdr_value_lo(i) + (double) sb_hdr_value_hi(i)) / 2.0 / 1e6;
    double pos = log(mid_ms / DISPLAY_MIN_MS) / DISPLAY_RATIO_LOG;
    size_t k = pos < 0 ? 0 : (size_t) pos;
    if (k >= n)
      k = n - 1;
    counts[k] += c;
  }
  /* sysbench.c wraps the rows in a title and a line holding one space */
  uint64_t any = 0;
  for (size_t i = 0; i < n; i++)
    any |= counts[i];
  if (any)
  {
    fprintf(out, "Latency histogram (values are in milliseconds)\n");
    print_rows(out, counts, n, display_value, NULL);
    fprintf(out, " \n");
  }
  free(counts);
}

/* ---- sysbench.histogram ---------------------------------------------------- */

/* sysbench's bounded histogram (src/sb_histogram.c): `size` buckets whose
   values are spread evenly in log space from min to max, the first at min
   and the last at max; a value goes to the nearest bucket in log space:
     mult   = (size - 1) / (ln max - ln min)
     bucket = floor(mult * (ln v - ln min) + 0.5), clamped to [0, size-1]
     value  = exp(bucket / mult + ln min)   (what print() shows) */
struct sb_histogram {
  pthread_mutex_t lock;
  size_t size;
  double log_min;              /* ln min */
  double mult;                 /* buckets per unit of ln */
  uint64_t *counts;
};

sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max)
{
  if (size == 0 || !(range_min > 0) || !(range_max > range_min))
    return NULL;
  sb_histogram_t *h = calloc(1, sizeof(*h));
  if (h == NULL)
    return NULL;
  h->counts = calloc(size, sizeof(uint64_t));
  if (h->counts == NULL)
  {
    free(h);
    return NULL;
  }
  pthread_mutex_init(&h->lock, NULL);
  h->size = size;
  h->log_min = log(range_min);
  h->mult = (double) (size - 1) / (log(range_max) - h->log_min);
  return h;
}

void sb_histogram_delete(sb_histogram_t *h)
{
  if (h == NULL)
    return;
  pthread_mutex_destroy(&h->lock);
  free(h->counts);
  free(h);
}

size_t sb_histogram_bucket(const sb_histogram_t *h, double value)
{
  double pos = floor((log(value) - h->log_min) * h->mult + 0.5);
  /* 0, negative values and NaN land in the first bucket, as in sysbench
     (where the conversion of -inf/NaN to an index gives a negative one) */
  if (!(pos > 0))
    return 0;
  if (pos >= (double) h->size)
    return h->size - 1;
  return (size_t) pos;
}

void sb_histogram_update(sb_histogram_t *h, double value)
{
  size_t i = sb_histogram_bucket(h, value);
  pthread_mutex_lock(&h->lock);
  h->counts[i]++;
  pthread_mutex_unlock(&h->lock);
}

static double user_value(size_t i, const void *arg)
{
  const sb_histogram_t *h = arg;
  /* one bucket: mult is 0, the bucket stands for min */
  if (h->mult == 0)
    return exp(h->log_min);
  return exp((double) i / h->mult + h->log_min);
}

void sb_histogram_fprint(sb_histogram_t *h, FILE *out)
{
  pthread_mutex_lock(&h->lock);
  uint64_t *copy = malloc(h->size * sizeof(uint64_t));
  if (copy)
    memcpy(copy, h->counts, h->size * sizeof(uint64_t));
  pthread_mutex_unlock(&h->lock);
  if (copy == NULL)
    return;
  print_rows(out, copy, h->size, user_value, h);
  fflush(out);
  free(copy);
}

void sb_histogram_print(sb_histogram_t *h)
{
  sb_histogram_fprint(h, stdout);
}
