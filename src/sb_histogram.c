/* Latency histograms; see sb_histogram.h. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sb_histogram.h"

/* HDR layout: values are counted in units of 2^UNIT_SHIFT ns (512 ns, the
   power of two below the lowest trackable 1 us); each bucket covers a
   power-of-two range split into SUB_HALF linear sub-buckets, so the
   relative resolution is 1/SUB_HALF (< 0.1 %). */
#define UNIT_SHIFT 9
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

sb_hdr_t *sb_hdr_new(void)
{
  sb_hdr_t *h = calloc(1, sizeof(*h));
  if (h == NULL)
    return NULL;
  h->counts_len = counts_len();
  h->counts = calloc(h->counts_len, sizeof(uint64_t));
  if (h->counts == NULL)
  {
    free(h);
    return NULL;
  }
  return h;
}

void sb_hdr_free(sb_hdr_t *h)
{
  if (h)
  {
    free(h->counts);
    free(h);
  }
}

void sb_hdr_reset(sb_hdr_t *h)
{
  memset(h->counts, 0, sizeof(uint64_t) * h->counts_len);
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
  bump(&h->counts[index_of(ns)], count);
  bump(&h->total, count);
}

void sb_hdr_record(sb_hdr_t *h, uint64_t ns)
{
  sb_hdr_record_n(h, ns, 1);
}

void sb_hdr_add(sb_hdr_t *dst, const sb_hdr_t *src)
{
  uint64_t total = 0;
  for (uint32_t i = 0; i < dst->counts_len; i++)
  {
    uint64_t c = __atomic_load_n(&src->counts[i], __ATOMIC_RELAXED);
    dst->counts[i] += c;
    total += c;
  }
  /* The total is recomputed from the counters so it always matches them,
     even when src is being recorded into. */
  dst->total += total;
}

void sb_hdr_sub(sb_hdr_t *dst, const sb_hdr_t *src)
{
  uint64_t total = 0;
  for (uint32_t i = 0; i < dst->counts_len; i++)
  {
    uint64_t c = src->counts[i];
    dst->counts[i] = dst->counts[i] >= c ? dst->counts[i] - c : 0;
    total += dst->counts[i];
  }
  dst->total = total;
}

void sb_hdr_copy(sb_hdr_t *dst, const sb_hdr_t *src)
{
  uint64_t total = 0;
  for (uint32_t i = 0; i < dst->counts_len; i++)
  {
    dst->counts[i] = __atomic_load_n(&src->counts[i], __ATOMIC_RELAXED);
    total += dst->counts[i];
  }
  dst->total = total;
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
  for (uint32_t i = 0; i < h->counts_len; i++)
  {
    seen += h->counts[i];
    if (seen >= want)
      return sb_hdr_value_hi(i);
  }
  return sb_hdr_max(h);
}

uint64_t sb_hdr_min(const sb_hdr_t *h)
{
  for (uint32_t i = 0; i < h->counts_len; i++)
    if (h->counts[i])
      return sb_hdr_value_lo(i);
  return 0;
}

uint64_t sb_hdr_max(const sb_hdr_t *h)
{
  for (uint32_t i = h->counts_len; i-- > 0;)
    if (h->counts[i])
      return sb_hdr_value_hi(i);
  return 0;
}

uint32_t sb_hdr_counts_len(const sb_hdr_t *h)
{
  return h->counts_len;
}

uint64_t sb_hdr_count_at(const sb_hdr_t *h, uint32_t i)
{
  return i < h->counts_len ? h->counts[i] : 0;
}

/* ---- sysbench --histogram display ----------------------------------------- */

#define DISPLAY_RATIO_LOG (1.0 / 55.5)      /* bucket width: e^(1/55.5) */
#define DISPLAY_MIN_MS 0.001
#define DISPLAY_MAX_MS 3600000.0

static void print_rows(FILE *out, const uint64_t *counts, size_t n,
                       double (*value)(size_t, const void *), const void *arg)
{
  uint64_t max = 0;
  for (size_t i = 0; i < n; i++)
    if (counts[i] > max)
      max = counts[i];
  if (max == 0)
    return;
  fprintf(out, "Latency histogram (values are in milliseconds)\n");
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
  fprintf(out, " \n");
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
    uint64_t c = h->counts[i];
    if (c == 0)
      continue;
    double mid_ms = ((double) sb_hdr_value_lo(i) + (double) sb_hdr_value_hi(i)) / 2.0 / 1e6;
    double pos = log(mid_ms / DISPLAY_MIN_MS) / DISPLAY_RATIO_LOG;
    size_t k = pos < 0 ? 0 : (size_t) pos;
    if (k >= n)
      k = n - 1;
    counts[k] += c;
  }
  print_rows(out, counts, n, display_value, NULL);
  free(counts);
}

/* ---- sysbench.histogram ---------------------------------------------------- */

struct sb_histogram {
  pthread_mutex_t lock;
  size_t size;
  double min, max;
  double log_min, log_step;    /* bucket i covers log_min + i*log_step */
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
  h->min = range_min;
  h->max = range_max;
  h->log_min = log(range_min);
  h->log_step = (log(range_max) - h->log_min) / (double) size;
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

void sb_histogram_update(sb_histogram_t *h, double value)
{
  if (value < h->min)
    value = h->min;
  if (value > h->max)
    value = h->max;
  double pos = (log(value) - h->log_min) / h->log_step;
  size_t i = pos < 0 ? 0 : (size_t) pos;
  if (i >= h->size)
    i = h->size - 1;
  pthread_mutex_lock(&h->lock);
  h->counts[i]++;
  pthread_mutex_unlock(&h->lock);
}

static double user_value(size_t i, const void *arg)
{
  const sb_histogram_t *h = arg;
  return exp(h->log_min + ((double) i + 0.5) * h->log_step);
}

void sb_histogram_print(sb_histogram_t *h)
{
  pthread_mutex_lock(&h->lock);
  uint64_t *copy = malloc(h->size * sizeof(uint64_t));
  if (copy)
    memcpy(copy, h->counts, h->size * sizeof(uint64_t));
  pthread_mutex_unlock(&h->lock);
  if (copy == NULL)
    return;
  print_rows(stdout, copy, h->size, user_value, h);
  fflush(stdout);
  free(copy);
}
