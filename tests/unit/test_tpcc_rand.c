/* Unit tests: TPC-C random primitives (TPC-C clauses 2.1.6, 4.3.2, 5.2.5.4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "datagen/sb_tpcc_rand.h"

static sb_rand_stream_t stream(int64_t k)
{
  sb_rand_stream_t r;
  sb_tpcc_seed(&r, 12345, k, 0, 0, 0);
  return r;
}

static void test_seed_determinism(void **state)
{
  (void) state;
  sb_rand_stream_t a, b, c;
  sb_tpcc_seed(&a, 7, 1, 2, 3, 4);
  sb_tpcc_seed(&b, 7, 1, 2, 3, 4);
  sb_tpcc_seed(&c, 7, 2, 1, 3, 4);
  int same = 0;
  for (int i = 0; i < 100; i++)
  {
    uint64_t x = sb_rand_stream_next(&a), y = sb_rand_stream_next(&b);
    assert_true(x == y);
    same += x == sb_rand_stream_next(&c);
  }
  assert_int_equal(same, 0);
}

static void test_rand_bounds(void **state)
{
  (void) state;
  sb_rand_stream_t r = stream(1);
  int seen[11] = { 0 };
  for (int i = 0; i < 100000; i++)
  {
    int64_t v = sb_tpcc_rand(&r, 5, 15);
    assert_in_range(v, 5, 15);
    seen[v - 5]++;
  }
  for (int i = 0; i < 11; i++)
    assert_in_range(seen[i], 100000 / 11 * 95 / 100, 100000 / 11 * 105 / 100);
  assert_int_equal(sb_tpcc_rand(&r, 3, 3), 3);
}

/* The formula of clause 2.1.6, recomputed from a copy of the stream. */
static void test_nurand_formula_and_bounds(void **state)
{
  (void) state;
  static const int32_t A[3] = { 255, 1023, 8191 };
  static const int32_t lo[3] = { 0, 1, 1 }, hi[3] = { 999, 3000, 100000 };
  for (int k = 0; k < 3; k++)
  {
    sb_rand_stream_t r = stream(10 + k), copy = r;
    int32_t C = A[k] / 3;
    for (int i = 0; i < 20000; i++)
    {
      int64_t a = sb_tpcc_rand(&copy, 0, A[k]);
      int64_t b = sb_tpcc_rand(&copy, lo[k], hi[k]);
      int64_t expect = ((a | b) + C) % (hi[k] - lo[k] + 1) + lo[k];
      int32_t v = sb_tpcc_nurand(&r, A[k], lo[k], hi[k], C);
      assert_int_equal(v, expect);
      assert_in_range(v, lo[k], hi[k]);
    }
  }
}

/* NURand is non-uniform: with C fixed, the most frequent customer id is
   drawn far more often than the uniform share; re-drawing C per call (the
   sysbench-tpcc bug) flattens that. */
static void test_nurand_nonuniform_with_fixed_c(void **state)
{
  (void) state;
  sb_rand_stream_t r = stream(20);
  static int count[3001];
  memset(count, 0, sizeof(count));
  const int n = 300000;
  for (int i = 0; i < n; i++)
    count[sb_tpcc_nurand(&r, 1023, 1, 3000, 259)]++;
  int mx = 0;
  for (int i = 1; i <= 3000; i++)
    mx = count[i] > mx ? count[i] : mx;
  /* uniform would give about 100 per id */
  assert_true(mx > 3 * n / 3000);
}

static void test_c_delta_rule(void **state)
{
  (void) state;
  assert_true(sb_tpcc_c_delta_ok(100, 165));
  assert_true(sb_tpcc_c_delta_ok(165, 100));
  assert_true(sb_tpcc_c_delta_ok(0, 119));
  assert_false(sb_tpcc_c_delta_ok(0, 64));
  assert_false(sb_tpcc_c_delta_ok(0, 120));
  assert_false(sb_tpcc_c_delta_ok(10, 106));   /* 96 */
  assert_false(sb_tpcc_c_delta_ok(10, 122));   /* 112 */
  sb_rand_stream_t r = stream(30);
  for (int c_load = 0; c_load < 256; c_load++)
    for (int i = 0; i < 50; i++)
    {
      int32_t c = sb_tpcc_c_run(&r, c_load);
      assert_in_range(c, 0, 255);
      assert_true(sb_tpcc_c_delta_ok(c_load, c));
    }
}

static void test_lastname(void **state)
{
  (void) state;
  char buf[SB_TPCC_LASTNAME_MAX + 1];
  assert_int_equal(sb_tpcc_lastname(371, buf), 13);
  assert_string_equal(buf, "PRICALLYOUGHT");
  sb_tpcc_lastname(0, buf);
  assert_string_equal(buf, "BARBARBAR");
  sb_tpcc_lastname(999, buf);
  assert_string_equal(buf, "EINGEINGEING");
  sb_tpcc_lastname(40, buf);
  assert_string_equal(buf, "BARPRESBAR");
  size_t mx = 0;
  for (int i = 0; i < 1000; i++)
  {
    size_t n = sb_tpcc_lastname(i, buf);
    assert_int_equal(n, strlen(buf));
    mx = n > mx ? n : mx;
  }
  assert_int_equal(mx, SB_TPCC_LASTNAME_MAX);
}

static void test_strings(void **state)
{
  (void) state;
  sb_rand_stream_t r = stream(40);
  char buf[64];
  int lens[64] = { 0 };
  for (int i = 0; i < 20000; i++)
  {
    size_t n = sb_tpcc_astring(&r, buf, 26, 50);
    assert_in_range(n, 26, 50);
    lens[n]++;
    for (size_t k = 0; k < n; k++)
      assert_true((buf[k] >= '0' && buf[k] <= '9') || (buf[k] >= 'A' && buf[k] <= 'Z') ||
                  (buf[k] >= 'a' && buf[k] <= 'z'));
  }
  assert_true(lens[26] > 0 && lens[50] > 0);
  size_t n = sb_tpcc_nstring(&r, buf, 16, 16);
  assert_int_equal(n, 16);
  for (size_t k = 0; k < n; k++)
    assert_true(buf[k] >= '0' && buf[k] <= '9');
  sb_tpcc_zip(&r, buf);
  for (int k = 0; k < 4; k++)
    assert_true(buf[k] >= '0' && buf[k] <= '9');
  assert_memory_equal(buf + 4, "11111", 5);
  sb_tpcc_letters(&r, buf, 2);
  assert_true(buf[0] >= 'A' && buf[0] <= 'Z' && buf[1] >= 'A' && buf[1] <= 'Z');
  memset(buf, 'x', 30);
  sb_tpcc_original(&r, buf, 30);
  buf[30] = '\0';
  assert_non_null(strstr(buf, "ORIGINAL"));
}

static void test_remote_warehouse(void **state)
{
  (void) state;
  sb_rand_stream_t r = stream(50);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(sb_tpcc_remote_wh(&r, 1, 1), 1);     /* scale 1: never remote */
  for (int i = 0; i < 1000; i++)
    assert_int_equal(sb_tpcc_remote_wh(&r, 1, 2), 2);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(sb_tpcc_remote_wh(&r, 2, 2), 1);
  int seen[11] = { 0 };
  for (int i = 0; i < 90000; i++)
  {
    int32_t w = sb_tpcc_remote_wh(&r, 4, 10);
    assert_in_range(w, 1, 10);
    assert_int_not_equal(w, 4);
    seen[w]++;
  }
  assert_int_equal(seen[4], 0);
  for (int w = 1; w <= 10; w++)
    if (w != 4)
      assert_in_range(seen[w], 9000, 11000);
}

static void test_think_time(void **state)
{
  (void) state;
  sb_rand_stream_t r = stream(60);
  const int n = 200000;
  double sum = 0;
  int64_t mx = 0;
  for (int i = 0; i < n; i++)
  {
    int64_t t = sb_tpcc_think_ms(&r, 12000);
    assert_true(t >= 0 && t <= 120000);
    sum += (double) t;
    mx = t > mx ? t : mx;
  }
  /* truncation at 10 mu lowers the mean by e^-10 mu: negligible */
  assert_true(fabs(sum / n - 12000) < 12000 * 0.01);
  assert_true(mx > 60000);
  assert_int_equal(sb_tpcc_think_ms(&r, 0), 0);
}

static void test_permutation_and_shuffle(void **state)
{
  (void) state;
  sb_rand_stream_t r = stream(70);
  int32_t p[3000];
  char seen[3001];
  sb_tpcc_permutation(&r, p, 3000);
  memset(seen, 0, sizeof(seen));
  int fixed = 0;
  for (int i = 0; i < 3000; i++)
  {
    assert_in_range(p[i], 1, 3000);
    assert_false(seen[p[i]]);
    seen[p[i]] = 1;
    fixed += p[i] == i + 1;
  }
  assert_true(fixed < 20);
}

static void test_selection_exact(void **state)
{
  (void) state;
  for (int s = 0; s < 20; s++)
  {
    sb_rand_stream_t r = stream(80 + s);
    int64_t k = 300;
    int picked = 0, first_half = 0;
    for (int64_t i = 0; i < 3000; i++)
      if (sb_tpcc_select(&r, &k, 3000 - i))
      {
        picked++;
        first_half += i < 1500;
      }
    assert_int_equal(picked, 300);
    assert_int_equal(k, 0);
    assert_in_range(first_half, 100, 200);
  }
}

static void test_fixed_point(void **state)
{
  (void) state;
  bool ok;
  assert_int_equal(sb_tpcc_parse_fixed("-12.5", 5, 2, &ok), -1250);
  assert_true(ok);
  assert_int_equal(sb_tpcc_parse_fixed("0.0750", 6, 4, &ok), 750);
  assert_int_equal(sb_tpcc_parse_fixed("3", 1, 2, &ok), 300);
  assert_int_equal(sb_tpcc_parse_fixed("99.999", 6, 2, &ok), 9999);
  assert_int_equal(sb_tpcc_parse_fixed("300000.00", 9, 2, &ok), 30000000);
  sb_tpcc_parse_fixed("", 0, 2, &ok);
  assert_false(ok);
  sb_tpcc_parse_fixed("1x", 2, 2, &ok);
  assert_false(ok);
  char buf[32];
  sb_tpcc_fmt_fixed(buf, -1250, 2);
  assert_string_equal(buf, "-12.50");
  sb_tpcc_fmt_fixed(buf, 5, 2);
  assert_string_equal(buf, "0.05");
  sb_tpcc_fmt_fixed(buf, 750, 4);
  assert_string_equal(buf, "0.0750");
  sb_tpcc_fmt_fixed(buf, 30000000, 2);
  assert_string_equal(buf, "300000.00");
  sb_tpcc_fmt_fixed(buf, 7, 0);
  assert_string_equal(buf, "7");
  for (int64_t v = -100000; v <= 100000; v += 37)
  {
    size_t n = sb_tpcc_fmt_fixed(buf, v, 2);
    assert_int_equal(sb_tpcc_parse_fixed(buf, n, 2, &ok), v);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_seed_determinism),
    cmocka_unit_test(test_rand_bounds),
    cmocka_unit_test(test_nurand_formula_and_bounds),
    cmocka_unit_test(test_nurand_nonuniform_with_fixed_c),
    cmocka_unit_test(test_c_delta_rule),
    cmocka_unit_test(test_lastname),
    cmocka_unit_test(test_strings),
    cmocka_unit_test(test_remote_warehouse),
    cmocka_unit_test(test_think_time),
    cmocka_unit_test(test_permutation_and_shuffle),
    cmocka_unit_test(test_selection_exact),
    cmocka_unit_test(test_fixed_point),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
