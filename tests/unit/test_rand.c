/* Unit tests: random number distributions (sysbench 1.1's formulas). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "core/sb_rand.h"

#define N 200000

static void init(sb_rand_dist_t dist, uint64_t seed)
{
  sb_rand_params_t p = {
    .dist = dist, .seed = seed, .spec_iter = 12, .spec_pct = 1,
    .spec_res = 75, .pareto_h = 0.2, .zipf_exp = 0.8
  };
  sb_rand_init(&p);
}

static void test_uniform_range_and_shape(void **state)
{
  (void) state;
  init(SB_RAND_UNIFORM, 1);
  unsigned counts[10] = { 0 };
  for (int i = 0; i < N; i++)
  {
    uint32_t v = sb_rand_uniform(10, 19);
    assert_in_range(v, 10, 19);
    counts[v - 10]++;
  }
  /* each bucket within 3 % of N/10 */
  for (int i = 0; i < 10; i++)
    assert_in_range(counts[i], N / 10 * 97 / 100, N / 10 * 103 / 100);
  assert_int_equal(sb_rand_uniform(7, 7), 7);
  /* full range does not overflow */
  for (int i = 0; i < 1000; i++)
    (void) sb_rand_uniform(0, UINT32_MAX);
  double d = sb_rand_uniform_double();
  assert_true(d >= 0 && d < 1);
}

static void test_gaussian(void **state)
{
  (void) state;
  init(SB_RAND_GAUSSIAN, 2);
  double sum = 0;
  uint32_t mn = UINT32_MAX, mx = 0;
  unsigned centre = 0;
  for (int i = 0; i < N; i++)
  {
    uint32_t v = sb_rand_gaussian(1, 1000);
    assert_in_range(v, 1, 1000);
    sum += v;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
    if (v > 400 && v <= 600)
      centre++;
  }
  double mean = sum / N;
  assert_true(fabs(mean - 500.5) < 5);
  assert_true(mx > mn + 300);            /* not constant */
  /* mean of 12 uniforms: sd ~ 83, so ~77 % within +-100 of the centre */
  assert_true(centre > N * 70 / 100 && centre < N * 85 / 100);
  /* --rand-type=gaussian is what default() uses */
  for (int i = 0; i < 1000; i++)
    assert_in_range(sb_rand_default(1, 1000), 1, 1000);
}

static void test_special(void **state)
{
  (void) state;
  init(SB_RAND_SPECIAL, 3);
  unsigned centre = 0;
  for (int i = 0; i < N; i++)
  {
    uint32_t v = sb_rand_special(1, 100000);
    assert_in_range(v, 1, 100000);
    if (v >= 49500 && v <= 50501)
      centre++;
  }
  /* 75 % of draws in the central 1 %, plus a few from the rest */
  assert_true(centre > N * 74 / 100);
  assert_true(centre < N * 80 / 100);
}

static void test_pareto(void **state)
{
  (void) state;
  init(SB_RAND_PARETO, 4);
  unsigned low = 0;
  for (int i = 0; i < N; i++)
  {
    uint32_t v = sb_rand_pareto(1, 1000);
    assert_in_range(v, 1, 1000);
    if (v <= 200)
      low++;
  }
  /* h = 0.2: about 80 % of values in the lowest 20 % */
  assert_true(low > N * 75 / 100 && low < N * 85 / 100);
}

static void zipf_shape(double s)
{
  sb_rand_params_t p = {
    .dist = SB_RAND_ZIPFIAN, .seed = 5, .spec_iter = 12, .spec_pct = 1,
    .spec_res = 75, .pareto_h = 0.2, .zipf_exp = s
  };
  sb_rand_init(&p);
  unsigned c[4] = { 0 };
  for (int i = 0; i < N; i++)
  {
    uint32_t v = sb_rand_zipfian(1, 1000);
    assert_in_range(v, 1, 1000);
    if (v <= 3)
      c[v]++;
  }
  /* P(1)/P(2) = 2^s, P(1)/P(3) = 3^s within 5 % */
  double r2 = (double) c[1] / c[2], r3 = (double) c[1] / c[3];
  assert_true(fabs(r2 / pow(2, s) - 1) < 0.05);
  assert_true(fabs(r3 / pow(3, s) - 1) < 0.05);
}

static void test_zipfian(void **state)
{
  (void) state;
  zipf_shape(0.8);
  zipf_shape(1.0);
  zipf_shape(1.5);
}

static void test_seed_reproducible(void **state)
{
  (void) state;
  uint32_t a[16], b[16], c[16];
  init(SB_RAND_UNIFORM, 42);
  sb_rand_thread_init(3);
  for (int i = 0; i < 16; i++)
    a[i] = sb_rand_uniform(0, 1000000);
  init(SB_RAND_UNIFORM, 42);
  sb_rand_thread_init(3);
  for (int i = 0; i < 16; i++)
    b[i] = sb_rand_uniform(0, 1000000);
  sb_rand_thread_init(4);
  for (int i = 0; i < 16; i++)
    c[i] = sb_rand_uniform(0, 1000000);
  assert_memory_equal(a, b, sizeof(a));
  assert_memory_not_equal(a, c, sizeof(a));
}

static int cmp_u32(const void *x, const void *y)
{
  uint32_t a = *(const uint32_t *) x, b = *(const uint32_t *) y;
  return a < b ? -1 : a > b;
}

static void test_unique(void **state)
{
  (void) state;
  init(SB_RAND_UNIFORM, 6);
  uint32_t *v = malloc(100000 * sizeof(uint32_t));
  for (int i = 0; i < 100000; i++)
    v[i] = sb_rand_unique();
  qsort(v, 100000, sizeof(uint32_t), cmp_u32);
  for (int i = 1; i < 100000; i++)
    assert_true(v[i] != v[i - 1]);
  free(v);
}

static void test_strings(void **state)
{
  (void) state;
  init(SB_RAND_UNIFORM, 7);
  char buf[32];
  sb_rand_str("##-@@ x", buf);
  assert_int_equal(strlen(buf), 7);
  assert_true(buf[0] >= '0' && buf[0] <= '9' && buf[1] >= '0' && buf[1] <= '9');
  assert_int_equal(buf[2], '-');
  assert_true(buf[3] >= 'a' && buf[3] <= 'z' && buf[4] >= 'a' && buf[4] <= 'z');
  assert_string_equal(buf + 5, " x");
  for (int i = 0; i < 1000; i++)
  {
    uint32_t n = sb_rand_varstr(buf, 5, 10);
    assert_in_range(n, 5, 10);
    for (uint32_t k = 0; k < n; k++)
      assert_in_range((unsigned char) buf[k], '0', 'z');
  }
}

static void test_parse_type(void **state)
{
  (void) state;
  sb_rand_dist_t d;
  assert_int_equal(sb_rand_parse_type("zipfian", &d), 0);
  assert_int_equal(d, SB_RAND_ZIPFIAN);
  assert_int_equal(sb_rand_parse_type("bogus", &d), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_uniform_range_and_shape),
    cmocka_unit_test(test_gaussian),
    cmocka_unit_test(test_special),
    cmocka_unit_test(test_pareto),
    cmocka_unit_test(test_zipfian),
    cmocka_unit_test(test_seed_reproducible),
    cmocka_unit_test(test_unique),
    cmocka_unit_test(test_strings),
    cmocka_unit_test(test_parse_type),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
