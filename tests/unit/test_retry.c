/* Unit tests: transaction retry counts (src/core/sb_retry.c), their
   report block (sb_report_cumulative) and their --results merge
   (src/results/sb_results_retry.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sb_counter.h"
#include "core/sb_retry.h"
#include "results/sb_report.h"
#include "results/sb_results_retry.h"

static int setup(void **state)
{
  (void) state;
  sb_retry_reset();
  return sb_counters_init(2);
}

static int teardown(void **state)
{
  (void) state;
  sb_counters_done();
  sb_retry_reset();
  return 0;
}

static void test_kinds(void **state)
{
  (void) state;
  assert_int_equal(sb_retry_kind_of("40001"), SB_RETRY_SERIALIZATION);
  assert_int_equal(sb_retry_kind_of("40P01"), SB_RETRY_DEADLOCK);
  assert_int_equal(sb_retry_kind_of("1213"), SB_RETRY_DEADLOCK);
  assert_int_equal(sb_retry_kind_of("1205"), SB_RETRY_DEADLOCK);
  assert_int_equal(sb_retry_kind_of("23505"), SB_RETRY_OTHER);
  assert_int_equal(sb_retry_kind_of(NULL), SB_RETRY_OTHER);
  assert_string_equal(sb_retry_kind_name(SB_RETRY_DEADLOCK), "deadlock");
}

static void test_counts(void **state)
{
  (void) state;
  sb_retry_configure(true, 3);
  assert_int_equal(sb_retry_max_tries(), 3);
  sb_retry_count(0, "40001", SB_RETRY_RETRIED);
  sb_retry_count(0, "40001", SB_RETRY_RETRIES);
  sb_retry_count(0, "40001", SB_RETRY_RETRIES);
  sb_retry_count(1, "1213", SB_RETRY_FAILURES);
  sb_retry_count(1, "", SB_RETRY_FAILURES);
  sb_retry_count(1, "1213", 7);                      /* ignored */
  sb_retry_snap_t s;
  sb_retry_snapshot(&s, true);
  assert_int_equal(s.ncodes, 3);
  assert_string_equal(s.code[0], "40001");
  assert_string_equal(s.code[2], "none");
  assert_int_equal(s.kind[1], SB_RETRY_DEADLOCK);
  assert_int_equal(s.by_code[0].n[SB_RETRY_RETRIES], 2);
  assert_int_equal(s.by_kind[SB_RETRY_DEADLOCK].n[SB_RETRY_FAILURES], 1);
  assert_int_equal(s.by_kind[SB_RETRY_OTHER].n[SB_RETRY_FAILURES], 1);
  assert_int_equal(s.total.n[SB_RETRY_FAILURES], 2);
  /* the engine's counters carry the same totals */
  assert_int_equal(sb_counter_val(0, SB_CNT_RETRY), 2);
  assert_int_equal(sb_counter_val(1, SB_CNT_FAILED), 2);
  sb_retry_rebase();
  sb_retry_count(0, "40001", SB_RETRY_RETRIES);
  sb_retry_snapshot(&s, true);
  assert_int_equal(s.total.n[SB_RETRY_RETRIES], 1);
  sb_retry_snapshot(&s, false);
  assert_int_equal(s.total.n[SB_RETRY_RETRIES], 3);
  sb_retry_configure(false, 1);
  assert_int_equal(sb_retry_max_tries(), -1);
}

static void test_more_codes(void **state)
{
  (void) state;
  char code[8];
  for (int i = 0; i < SB_RETRY_CODES + 5; i++)
  {
    snprintf(code, sizeof(code), "%d", 3000 + i);
    sb_retry_count(0, code, SB_RETRY_FAILURES);
  }
  sb_retry_snap_t s;
  sb_retry_snapshot(&s, false);
  assert_int_equal(s.ncodes, SB_RETRY_CODES);
  assert_string_equal(s.code[SB_RETRY_CODES - 1], "more");
  assert_int_equal(s.by_code[SB_RETRY_CODES - 1].n[SB_RETRY_FAILURES], 6);
  assert_int_equal(s.total.n[SB_RETRY_FAILURES], SB_RETRY_CODES + 5);
}

/* The cumulative report of `st` as text (static buffer). */
static const char *report_of(const sb_stat_t *st)
{
  static char buf[8192];
  FILE *f = fmemopen(buf, sizeof(buf), "w");
  sb_report_cumulative(f, st, true);
  fclose(f);
  return buf;
}

static void test_report_block(void **state)
{
  (void) state;
  sb_stat_t st;
  memset(&st, 0, sizeof(st));
  st.time_interval = 2;
  assert_null(strstr(report_of(&st), "retries"));  /* sysbench's report */
  sb_retry_count(0, "40P01", SB_RETRY_RETRIED);
  sb_retry_count(0, "40P01", SB_RETRY_RETRIES);
  sb_retry_snap_t s;
  sb_retry_snapshot(&s, true);
  st.retries_on = true;
  st.max_tries = 0;
  st.tx_retries = 1;
  st.retry = &s;
  const char *r = report_of(&st);
  assert_non_null(strstr(r, "Transaction retries (max tries: unlimited):\n"
                            "    retried transactions:                1      (0.50 per sec.)\n"
                            "    retries:                             1      (0.50 per sec.)\n"
                            "    failed transactions:                 0      (0.00 per sec.)\n"));
  assert_non_null(strstr(r, "        40P01 (deadlock):             retried 1, retries 1, failed 0\n"));
}

static void test_merge(void **state)
{
  (void) state;
  json_t *a = json_pack("{s:i,s:i,s:i,s:i,s:{s:{s:s,s:i,s:i,s:i}}}", "max_tries", 3,
                        "retried", 1, "retries", 2, "failures", 1, "by_code", "40001",
                        "kind", "serialization", "retried", 1, "retries", 2, "failures", 1);
  json_t *b = json_pack("{s:n,s:i,s:i,s:i}", "max_tries", "retried", 2, "retries", 5,
                        "failures", 0);
  json_t *acc = sb_results_retry_merge(NULL, a);
  acc = sb_results_retry_merge(acc, b);
  json_t *none = json_object();
  acc = sb_results_retry_merge(acc, none);             /* none: unchanged */
  json_decref(none);
  assert_true(json_is_null(json_object_get(acc, "max_tries")));
  assert_int_equal(json_integer_value(json_object_get(acc, "retries")), 7);
  assert_int_equal(json_integer_value(json_object_get(acc, "retried")), 3);
  json_t *c = json_object_get(json_object_get(acc, "by_code"), "40001");
  assert_string_equal(json_string_value(json_object_get(c, "kind")), "serialization");
  assert_int_equal(json_integer_value(json_object_get(c, "retries")), 2);
  json_t *row = json_object();
  sb_results_retry_interval_from(row, acc);
  assert_int_equal(json_integer_value(json_object_get(row, "failures")), 1);
  json_decref(row);
  json_decref(acc);
  json_decref(a);
  json_decref(b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
    cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
    cmocka_unit_test_setup_teardown(test_more_codes, setup, teardown),
    cmocka_unit_test_setup_teardown(test_report_block, setup, teardown),
    cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
