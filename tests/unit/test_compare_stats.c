/* Unit tests: the run-comparison statistics (sb_compare_stats.c), against
   textbook values: Student's t tables (NIST/SEMATECH e-Handbook 1.3.6.7.2),
   the closed forms of the t CDF for df = 1 and 2, Wikipedia's "Welch's
   t-test" example 1 cross-checked by the formulas written out here, and
   hand-computed batch means. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "commands/compare/sb_compare_stats.h"

/* |got - want| <= tol * |want|: table values are given to 4-5 digits */
static void assert_rel(double got, double want, double tol)
{
  if (!(fabs(got - want) <= tol * fabs(want)))
    fail_msg("got %.10g, want %.10g (relative tolerance %g)", got, want, tol);
}

static void assert_abs(double got, double want, double tol)
{
  if (!(fabs(got - want) <= tol))
    fail_msg("got %.10g, want %.10g (absolute tolerance %g)", got, want, tol);
}

static void test_sample_of(void **state)
{
  (void) state;
  /* the classic population-sd example: mean 5, sum of squares 32 */
  const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
  sb_sample_t s;
  sb_sample_of(x, 8, &s);
  assert_int_equal(s.n, 8);
  assert_abs(s.mean, 5.0, 1e-12);
  assert_abs(s.var, 32.0 / 7.0, 1e-12);

  /* same spread around a large mean: the two-pass algorithm keeps it */
  double y[8];
  for (int i = 0; i < 8; i++)
    y[i] = 1e9 + x[i];
  sb_sample_of(y, 8, &s);
  assert_abs(s.mean, 1e9 + 5.0, 1e-6);
  assert_abs(s.var, 32.0 / 7.0, 1e-6);

  sb_sample_of(x, 1, &s);
  assert_int_equal(s.n, 1);
  assert_abs(s.mean, 2.0, 0);
  assert_abs(s.var, 0.0, 0);

  sb_sample_of(NULL, 0, &s);
  assert_int_equal(s.n, 0);
  assert_abs(s.mean, 0.0, 0);
  assert_abs(s.var, 0.0, 0);
}

static void test_t_critical_table(void **state)
{
  (void) state;
  assert_rel(sb_t_critical(0.95, 1), 12.7062, 1e-3);
  assert_rel(sb_t_critical(0.95, 10), 2.2281, 1e-3);
  assert_rel(sb_t_critical(0.95, 20), 2.0860, 1e-3);
  assert_rel(sb_t_critical(0.99, 30), 2.7500, 1e-3);
  assert_rel(sb_t_critical(0.95, 1e6), 1.9600, 1e-3);
  assert_rel(sb_t_critical(0.95, INFINITY), 1.959964, 1e-5);
  /* tighter, to 5 table digits */
  assert_rel(sb_t_critical(0.95, 10), 2.22814, 1e-5);
  assert_rel(sb_t_critical(0.90, 5), 2.01505, 1e-5);
  assert_rel(sb_t_critical(0.99, 1), 63.6567, 1e-5);
  /* between the table's df = 24 (2.0639) and 25 (2.0595) */
  double t = sb_t_critical(0.95, 24.5);
  assert_true(t > 2.0595 && t < 2.0639);
}

static void test_t_critical_invalid(void **state)
{
  (void) state;
  assert_true(isnan(sb_t_critical(0.0, 10)));
  assert_true(isnan(sb_t_critical(1.0, 10)));
  assert_true(isnan(sb_t_critical(0.95, 0)));
  assert_true(isnan(sb_t_critical(0.95, -3)));
  assert_true(isnan(sb_t_critical(NAN, 10)));
  /* a quantile beyond the double range (df far below Welch's minimum 1) */
  assert_true(isinf(sb_t_critical(0.95, 0.001)));
  assert_true(isnan(sb_t_pvalue(1.0, 0)));
  assert_true(isnan(sb_t_pvalue(NAN, 10)));
}

static void test_t_pvalue(void **state)
{
  (void) state;
  assert_abs(sb_t_pvalue(2.2281, 10), 0.05, 1e-3);
  assert_abs(sb_t_pvalue(-2.2281, 10), 0.05, 1e-3);
  assert_abs(sb_t_pvalue(0, 10), 1.0, 1e-12);
  assert_abs(sb_t_pvalue(0, 2.5), 1.0, 1e-12);
  assert_abs(sb_t_pvalue(INFINITY, 10), 0.0, 0);
  /* closed forms: df = 1 is Cauchy, p = 1 - (2/pi) atan|t|;
     df = 2: p = 1 - |t| / sqrt(2 + t^2) */
  const double ts[] = { 0.1, 0.5, 1, 2, 5, 30, 300 };
  for (unsigned i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
  {
    double t = ts[i];
    assert_abs(sb_t_pvalue(t, 1), 1 - 2 / M_PI * atan(t), 1e-9);
    assert_abs(sb_t_pvalue(t, 2), 1 - t / sqrt(2 + t * t), 1e-9);
  }
  /* far tail, where t^2 would overflow: the Cauchy p ~ 2 / (pi t) */
  assert_rel(sb_t_pvalue(1e120, 1), 2 / M_PI * 1e-120, 1e-9);
  assert_rel(sb_t_pvalue(1e200, 1), 2 / M_PI * 1e-200, 1e-9);
  assert_rel(sb_t_pvalue(1e300, 0.5), sb_t_pvalue(1e100, 0.5) * 1e-100, 1e-9);
  /* normal limit: p(1.959964) = 0.05 */
  assert_abs(sb_t_pvalue(1.959964, INFINITY), 0.05, 1e-6);
  assert_abs(sb_t_pvalue(1.959964, 5e6), 0.05, 1e-5);
  /* the critical value and the p-value are inverses, non-integer df too */
  const double dfs[] = { 0.7, 1.5, 3.3, 24.99, 1234.5 };
  for (unsigned i = 0; i < sizeof(dfs) / sizeof(dfs[0]); i++)
    assert_abs(sb_t_pvalue(sb_t_critical(0.9, dfs[i]), dfs[i]), 0.1, 1e-9);
}

/* Wikipedia, "Welch's t-test", example 1: t = -2.46 (A - B),
   df = 24.99, p = 0.021. */
static const double WA[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
                             21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
static const double WB[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
                             24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
#define WN 15

/* mean and unbiased variance, written out plainly as the cross-check */
static void plain_stats(const double *x, int n, double *mean, double *var)
{
  double s = 0, ss = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  *mean = s / n;
  for (int i = 0; i < n; i++)
    ss += (x[i] - *mean) * (x[i] - *mean);
  *var = ss / (n - 1);
}

static void test_welch_wikipedia(void **state)
{
  (void) state;
  sb_sample_t a, b;
  sb_welch_t w;
  sb_sample_of(WA, WN, &a);
  sb_sample_of(WB, WN, &b);
  assert_int_equal(sb_welch(&a, &b, 0.95, &w), 0);

  double ma, va, mb, vb;
  plain_stats(WA, WN, &ma, &va);
  plain_stats(WB, WN, &mb, &vb);
  double se2 = va / WN + vb / WN;
  double t = (ma - mb) / sqrt(se2);
  double df = se2 * se2 / ((va / WN) * (va / WN) / (WN - 1)
                           + (vb / WN) * (vb / WN) / (WN - 1));
  assert_abs(t, -2.46, 0.005);                   /* the article's t */
  assert_abs(df, 24.99, 0.01);

  assert_abs(w.diff, mb - ma, 1e-12);
  assert_abs(w.df, df, 1e-9);
  assert_abs(w.df, 24.99, 0.01);
  assert_abs(w.p, 0.021, 0.002);
  assert_abs(w.p, sb_t_pvalue(t, df), 1e-12);
  /* 95 % interval: diff +- t(0.975, 24.99) * se, t between the table's
     2.0595 (df 25) and 2.0639 (df 24); it excludes 0 as p < 0.05 says */
  double half = (w.hi - w.lo) / 2;
  assert_true(half > 2.0595 * sqrt(se2) && half < 2.0639 * sqrt(se2));
  assert_abs((w.lo + w.hi) / 2, w.diff, 1e-12);
  assert_true(w.lo < w.diff && w.diff < w.hi);
  assert_true(w.lo > 0);

  /* swapping the sides negates the difference and mirrors the interval */
  sb_welch_t r;
  assert_int_equal(sb_welch(&b, &a, 0.95, &r), 0);
  assert_abs(r.diff, -w.diff, 1e-12);
  assert_abs(r.lo, -w.hi, 1e-12);
  assert_abs(r.hi, -w.lo, 1e-12);
  assert_abs(r.p, w.p, 1e-12);
  /* a 99 % interval is wider and, at p = 0.021, contains 0 */
  assert_int_equal(sb_welch(&a, &b, 0.99, &r), 0);
  assert_true(r.lo < w.lo && r.hi > w.hi && r.lo < 0);
}

static void test_welch_self(void **state)
{
  (void) state;
  sb_sample_t a;
  sb_welch_t w;
  sb_sample_of(WA, WN, &a);
  assert_int_equal(sb_welch(&a, &a, 0.95, &w), 0);
  assert_abs(w.diff, 0, 0);
  assert_abs(w.lo, -w.hi, 1e-12);
  assert_true(w.lo < 0 && w.hi > 0);
  assert_abs(w.p, 1.0, 1e-9);
  assert_abs(w.df, 2.0 * (WN - 1), 1e-9);      /* equal variances and n */
}

static void test_welch_degenerate(void **state)
{
  (void) state;
  sb_welch_t w, keep;
  memset(&w, 0x5a, sizeof(w));
  keep = w;
  sb_sample_t one = { 1, 3.0, 0 };
  sb_sample_t two = { 2, 3.0, 1.0 };
  assert_int_equal(sb_welch(&one, &two, 0.95, &w), -1);
  assert_int_equal(sb_welch(&two, &one, 0.95, &w), -1);
  assert_int_equal(sb_welch(&two, &two, 1.5, &w), -1);
  assert_memory_equal(&w, &keep, sizeof(w));

  /* no spread on either side */
  sb_sample_t c3 = { 3, 10.0, 0 }, c4 = { 4, 12.0, 0 };
  assert_int_equal(sb_welch(&c3, &c4, 0.95, &w), 0);
  assert_abs(w.diff, 2.0, 0);
  assert_abs(w.lo, 2.0, 0);
  assert_abs(w.hi, 2.0, 0);
  assert_abs(w.df, 5.0, 0);
  assert_abs(w.p, 0.0, 0);
  assert_int_equal(sb_welch(&c3, &c3, 0.95, &w), 0);
  assert_abs(w.p, 1.0, 0);
  assert_abs(w.df, 4.0, 0);

  /* spread on one side only: df = n - 1 of that side */
  sb_sample_t s5 = { 5, 12.0, 4.0 };
  assert_int_equal(sb_welch(&c3, &s5, 0.95, &w), 0);
  assert_abs(w.df, 4.0, 1e-12);
}

static void test_batch_means(void **state)
{
  (void) state;
  double x[103];
  sb_sample_t s;
  for (int i = 0; i < 100; i++)
    x[i] = i;
  /* 10 batches of 0..9, 10..19, ...: means 4.5, 14.5, ..., 94.5, whose
     variance is 100 * var(0..9) = 100 * 55/6 */
  assert_int_equal(sb_batch_means(x, 100, 10, &s), 10);
  assert_int_equal(s.n, 10);
  assert_abs(s.mean, 49.5, 1e-12);
  assert_abs(s.var, 5500.0 / 6.0, 1e-9);

  /* automatic: 100 / 5 = 20 batches of 5; means 2, 7, ..., 97 */
  assert_int_equal(sb_batch_means(x, 100, 0, &s), 20);
  assert_int_equal(s.n, 20);
  assert_abs(s.mean, 49.5, 1e-12);
  assert_abs(s.var, 25.0 * 35.0, 1e-9);       /* 25 * var(0..19) */
  /* automatic on short and long series */
  assert_int_equal(sb_batch_means(x, 2, 0, &s), 2);
  assert_int_equal(sb_batch_means(x, 9, 0, &s), 2);
  assert_int_equal(sb_batch_means(x, 10, 0, &s), 2);
  assert_int_equal(sb_batch_means(x, 15, 0, &s), 3);
  assert_int_equal(sb_batch_means(x, 99, 0, &s), 19);

  /* 103 values = 3 dropped warm-up values + the 0..99 above */
  x[0] = x[1] = x[2] = 1e6;
  for (int i = 0; i < 100; i++)
    x[i + 3] = i;
  assert_int_equal(sb_batch_means(x, 103, 10, &s), 10);
  assert_abs(s.mean, 49.5, 1e-12);
  assert_abs(s.var, 5500.0 / 6.0, 1e-9);

  /* more batches than values: one value per batch */
  assert_int_equal(sb_batch_means(x + 3, 4, 10, &s), 4);
  assert_abs(s.mean, 1.5, 1e-12);

  sb_sample_t keep = { 77, 7.0, 7.0 };
  s = keep;
  assert_int_equal(sb_batch_means(x, 1, 10, &s), -1);
  assert_int_equal(sb_batch_means(x, 1, 0, &s), -1);
  assert_int_equal(sb_batch_means(x, 0, 0, &s), -1);
  assert_int_equal(sb_batch_means(x, 100, 1, &s), -1);
  assert_memory_equal(&s, &keep, sizeof(s));
}

static void test_pct_of(void **state)
{
  (void) state;
  sb_welch_t w = { .diff = 10, .lo = 5, .hi = 15, .df = 20, .p = 0.01 };
  double pct = -1, lo = -1, hi = -1;
  assert_int_equal(sb_pct_of(&w, 200, &pct, &lo, &hi), 0);
  assert_abs(pct, 5.0, 1e-12);
  assert_abs(lo, 2.5, 1e-12);
  assert_abs(hi, 7.5, 1e-12);

  /* a negative baseline keeps lo <= hi */
  assert_int_equal(sb_pct_of(&w, -200, &pct, &lo, &hi), 0);
  assert_abs(pct, -5.0, 1e-12);
  assert_abs(lo, -7.5, 1e-12);
  assert_abs(hi, -2.5, 1e-12);

  pct = lo = hi = 42;
  assert_int_equal(sb_pct_of(&w, 0, &pct, &lo, &hi), -1);
  assert_int_equal(sb_pct_of(&w, NAN, &pct, &lo, &hi), -1);
  assert_true(pct == 42 && lo == 42 && hi == 42);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sample_of),
    cmocka_unit_test(test_t_critical_table),
    cmocka_unit_test(test_t_critical_invalid),
    cmocka_unit_test(test_t_pvalue),
    cmocka_unit_test(test_welch_wikipedia),
    cmocka_unit_test(test_welch_self),
    cmocka_unit_test(test_welch_degenerate),
    cmocka_unit_test(test_batch_means),
    cmocka_unit_test(test_pct_of),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
