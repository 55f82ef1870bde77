/* Unit tests: HDR latency histogram and the sysbench.histogram object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "core/sb_histogram.h"

static int cmp_u64(const void *x, const void *y)
{
  uint64_t a = *(const uint64_t *) x, b = *(const uint64_t *) y;
  return a < b ? -1 : a > b;
}

/* Exact percentile: the ceil(p/100*n)-th smallest value. */
static uint64_t exact(uint64_t *sorted, size_t n, double p)
{
  size_t k = (size_t) ceil(p / 100.0 * (double) n);
  if (k < 1)
    k = 1;
  return sorted[k - 1];
}

static uint64_t lcg_state = 12345;
static double rnd(void)
{
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double) (lcg_state >> 11) * 0x1.0p-53;
}

static void check_accuracy(uint64_t *v, size_t n)
{
  sb_hdr_t *h = sb_hdr_new();
  assert_non_null(h);
  for (size_t i = 0; i < n; i++)
    sb_hdr_record(h, v[i]);
  qsort(v, n, sizeof(uint64_t), cmp_u64);
  const double pcts[] = { 50, 90, 95, 99, 99.9, 100 };
  for (unsigned i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
  {
    double want = (double) exact(v, n, pcts[i]);
    double got = (double) sb_hdr_percentile(h, pcts[i]);
    if (want < SB_HDR_LOWEST_NS)
      want = SB_HDR_LOWEST_NS;
    assert_true(fabs(got - want) / want <= 0.01);
  }
  assert_int_equal(h->total, n);
  sb_hdr_free(h);
}

static void test_uniform(void **state)
{
  (void) state;
  size_t n = 100000;
  uint64_t *v = malloc(n * sizeof(uint64_t));
  for (size_t i = 0; i < n; i++)
    v[i] = 1000 + (uint64_t) (rnd() * 10e6);            /* 1 us .. 10 ms */
  check_accuracy(v, n);
  free(v);
}

static void test_microseconds(void **state)
{
  (void) state;
  size_t n = 100000;
  uint64_t *v = malloc(n * sizeof(uint64_t));
  for (size_t i = 0; i < n; i++)
    v[i] = 1000 + (uint64_t) (rnd() * 19000);            /* 1 us .. 20 us */
  check_accuracy(v, n);
  free(v);
}

static void test_bimodal(void **state)
{
  (void) state;
  size_t n = 100000;
  uint64_t *v = malloc(n * sizeof(uint64_t));
  for (size_t i = 0; i < n; i++)
    v[i] = rnd() < 0.9 ? 200000 + (uint64_t) (rnd() * 50000)  /* ~0.2 ms */
                       : 50000000 + (uint64_t) (rnd() * 5e6); /* ~50 ms */
  check_accuracy(v, n);
  free(v);
}

static void test_long_tail(void **state)
{
  (void) state;
  size_t n = 100000;
  uint64_t *v = malloc(n * sizeof(uint64_t));
  for (size_t i = 0; i < n; i++)
    v[i] = (uint64_t) (1000.0 * exp(rnd() * log(3.6e9)));  /* 1 us .. 1 h */
  check_accuracy(v, n);
  free(v);
}

static void test_merge_equals_single(void **state)
{
  (void) state;
  sb_hdr_t *all = sb_hdr_new(), *a = sb_hdr_new(), *b = sb_hdr_new(), *m = sb_hdr_new();
  for (int i = 0; i < 50000; i++)
  {
    uint64_t x = (uint64_t) (1000.0 * exp(rnd() * 15));
    sb_hdr_record(all, x);
    sb_hdr_record(i % 3 ? a : b, x);
  }
  sb_hdr_add(m, a);
  sb_hdr_add(m, b);
  assert_int_equal(m->total, all->total);
  for (uint32_t i = 0; i < all->counts_len; i++)
    assert_int_equal(sb_hdr_count_at(m, i), sb_hdr_count_at(all, i));
  /* subtraction gives the interval */
  sb_hdr_sub(m, b);
  for (uint32_t i = 0; i < a->counts_len; i++)
    assert_int_equal(sb_hdr_count_at(m, i), sb_hdr_count_at(a, i));
  assert_int_equal(m->total, a->total);
  sb_hdr_free(all);
  sb_hdr_free(a);
  sb_hdr_free(b);
  sb_hdr_free(m);
}

static void test_clamp_and_empty(void **state)
{
  (void) state;
  sb_hdr_t *h = sb_hdr_new();
  assert_int_equal(sb_hdr_percentile(h, 95), 0);
  assert_int_equal(sb_hdr_max(h), 0);
  sb_hdr_record(h, 5);                               /* below 1 us */
  sb_hdr_record(h, 10 * SB_HDR_HIGHEST_NS);          /* above 1 h */
  assert_int_equal(h->total, 2);
  assert_true(sb_hdr_min(h) <= SB_HDR_LOWEST_NS);
  assert_true(fabs((double) sb_hdr_max(h) - SB_HDR_HIGHEST_NS) / SB_HDR_HIGHEST_NS < 0.001);
  sb_hdr_free(h);
}

static void test_print_layout(void **state)
{
  (void) state;
  sb_hdr_t *h = sb_hdr_new();
  sb_hdr_record_n(h, 1000000, 7);        /* 1 ms */
  sb_hdr_record_n(h, 2000000, 3);        /* 2 ms */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sb_hdr_print_sysbench(h, f);
  fclose(f);
  const char *head = "Latency histogram (values are in milliseconds)\n"
                     "       value  ------------- distribution ------------- count\n";
  assert_true(strncmp(buf, head, strlen(head)) == 0);
  char *row1 = buf + strlen(head);
  double v1;
  char stars[64];
  unsigned long c1;
  assert_int_equal(sscanf(row1, "%lf |%40[*] %lu", &v1, stars, &c1), 3);
  assert_int_equal(strlen(stars), 40);
  assert_int_equal(c1, 7);
  assert_true(fabs(v1 - 1.0) < 0.02);
  assert_int_equal(row1[12], ' ');
  assert_int_equal(row1[13], '|');
  char *row2 = strchr(row1, '\n') + 1;
  unsigned long c2;
  assert_int_equal(sscanf(row2, "%lf |%40[*] %lu", &v1, stars, &c2), 3);
  assert_int_equal(strlen(stars), 17);                 /* floor(3*40/7+0.5) */
  assert_int_equal(c2, 3);
  char *last = strchr(row2, '\n') + 1;
  assert_string_equal(last, " \n");
  free(buf);
  /* empty: nothing */
  sb_hdr_reset(h);
  buf = NULL;
  f = open_memstream(&buf, &len);
  sb_hdr_print_sysbench(h, f);
  fclose(f);
  assert_int_equal(len, 0);
  free(buf);
  sb_hdr_free(h);
}

static void test_lazy_blocks(void **state)
{
  (void) state;
  sb_hdr_t *h = sb_hdr_new();
  unsigned used = 0;
  for (uint32_t b = 0; b < h->nblocks; b++)
    used += h->blocks[b] != NULL;
  assert_int_equal(used, 0);
  sb_hdr_record(h, 150000);       /* 0.15 ms */
  sb_hdr_record(h, 160000);
  used = 0;
  for (uint32_t b = 0; b < h->nblocks; b++)
    used += h->blocks[b] != NULL;
  assert_int_equal(used, 1);
  assert_true(fabs((double) sb_hdr_percentile(h, 100) - 160000) / 160000 < 0.001);
  sb_hdr_free(h);
}

/* sysbench.histogram: sysbench's bucket formula and print layout (its
   tests/t/api_histogram.t: new(1000, 1, 10) updated with 1, 2, 0, 10, 100,
   5.001). */
static void test_user_histogram(void **state)
{
  (void) state;
  assert_null(sb_histogram_new(10, 0, 1));
  assert_null(sb_histogram_new(0, 1, 10));
  sb_histogram_t *h = sb_histogram_new(1000, 1, 10);
  assert_non_null(h);
  assert_int_equal(sb_histogram_bucket(h, 1), 0);
  assert_int_equal(sb_histogram_bucket(h, 2), 301);     /* 999/ln 10 * ln 2 + .5 */
  assert_int_equal(sb_histogram_bucket(h, 0), 0);
  assert_int_equal(sb_histogram_bucket(h, -5), 0);
  assert_int_equal(sb_histogram_bucket(h, NAN), 0);
  assert_int_equal(sb_histogram_bucket(h, 10), 999);
  assert_int_equal(sb_histogram_bucket(h, 100), 999);
  assert_int_equal(sb_histogram_bucket(h, 5.001), 698);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sb_histogram_fprint(h, f);      /* empty: nothing */
  fclose(f);
  assert_int_equal(len, 0);
  free(buf);
  const double v[] = { 1, 2, 0, 10, 100, 5.001 };
  for (unsigned i = 0; i < 6; i++)
    sb_histogram_update(h, v[i]);
  buf = NULL;
  f = open_memstream(&buf, &len);
  sb_histogram_fprint(h, f);
  fclose(f);
  assert_string_equal(buf,
    "       value  ------------- distribution ------------- count\n"
    "       1.000 |**************************************** 2\n"
    "       2.001 |********************                     1\n"
    "       4.997 |********************                     1\n"
    "      10.000 |**************************************** 2\n");
  free(buf);
  sb_histogram_delete(h);
  /* one bucket stands for min */
  h = sb_histogram_new(1, 2, 3);
  sb_histogram_update(h, 5);
  buf = NULL;
  f = open_memstream(&buf, &len);
  sb_histogram_fprint(h, f);
  fclose(f);
  assert_non_null(strstr(buf, "       2.000 |"));
  free(buf);
  sb_histogram_delete(h);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_uniform),
    cmocka_unit_test(test_microseconds),
    cmocka_unit_test(test_bimodal),
    cmocka_unit_test(test_long_tail),
    cmocka_unit_test(test_merge_equals_single),
    cmocka_unit_test(test_clamp_and_empty),
    cmocka_unit_test(test_print_layout),
    cmocka_unit_test(test_lazy_blocks),
    cmocka_unit_test(test_user_histogram),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
