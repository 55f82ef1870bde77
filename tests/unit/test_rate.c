/* Unit tests: the --rate arrival schedule (sb_rate.c). A fixed seed gives
   the same schedule: checked here on the schedule itself, exactly, since
   two runs of bmk can differ by an event at the --time boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "engine/sb_rate.h"

#define N 20000
#define START 1000000000ULL

/* A new array of the first N arrivals of the schedule (rate, seed). */
static uint64_t *schedule(double rate, uint64_t seed)
{
  uint64_t *out = malloc(N * sizeof(*out));
  assert_non_null(out);
  sb_rate_init(rate, START, seed);
  for (int i = 0; i < N; i++)
    out[i] = sb_rate_take();
  return out;
}

static void test_same_seed_same_schedule(void **state)
{
  (void) state;
  uint64_t *a = schedule(1000, 7), *b = schedule(1000, 7);
  assert_memory_equal(a, b, N * sizeof(*a));
  free(b);
  b = schedule(1000, 8);
  int same = 0;
  for (int i = 0; i < N; i++)
    same += a[i] == b[i];
  assert_true(same < N / 100);        /* another seed, another schedule */
  free(a);
  free(b);
}

static void test_arrivals_ordered_after_start_at_rate(void **state)
{
  (void) state;
  uint64_t *a = schedule(1000, 42);
  assert_true(a[0] >= START);
  for (int i = 1; i < N; i++)
    assert_true(a[i] >= a[i - 1]);
  /* mean gap 1 ms: N exponential gaps (sd of the mean 1/sqrt(N) = 0.7 %)
     for this fixed seed */
  double mean_ms = (double) (a[N - 1] - START) / N / 1e6;
  assert_true(mean_ms > 0.97 && mean_ms < 1.03);
  free(a);
}

static void test_backlog_counts_due_arrivals(void **state)
{
  (void) state;
  uint64_t *a = schedule(1000, 3);
  sb_rate_init(1000, START, 3);
  /* before anything is taken, the arrivals due 1 ns after a[99] are
     a[0..99] (a[] holds the exact times rounded down) */
  assert_int_equal(sb_rate_backlog(a[99] + 1), 100);
  assert_int_equal(sb_rate_backlog(START - 1), 0);
  for (int i = 0; i < 40; i++)
    assert_int_equal(sb_rate_take(), a[i]);
  assert_int_equal(sb_rate_backlog(a[99] + 1), 60);
  free(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_seed_same_schedule),
    cmocka_unit_test(test_arrivals_ordered_after_start_at_rate),
    cmocka_unit_test(test_backlog_counts_due_arrivals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
