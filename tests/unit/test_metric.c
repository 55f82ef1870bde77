/* Unit tests: workload metrics (src/core/sb_metric.c) and the
   "Workload metrics:" block (sb_report_metrics). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sb_counter.h"
#include "core/sb_metric.h"
#include "results/sb_report.h"

static int setup(void **state)
{
  (void) state;
  return sb_metrics_init(4);
}

static int teardown(void **state)
{
  (void) state;
  sb_metrics_done();
  sb_tls_tid = -1;
  return 0;
}

static void test_registry(void **state)
{
  (void) state;
  assert_int_equal(sb_metric_count(), 0);
  assert_int_equal(sb_metric_id("rows"), 0);
  assert_int_equal(sb_metric_id("commits"), 1);
  assert_int_equal(sb_metric_id("rows"), 0);       /* same name, same id */
  assert_int_equal(sb_metric_count(), 2);
  assert_string_equal(sb_metric_name(1), "commits");
  assert_null(sb_metric_name(2));
  assert_null(sb_metric_name(-1));
  assert_int_equal(sb_metric_id(""), -1);
  assert_int_equal(sb_metric_id(NULL), -1);
  char longname[SB_METRIC_NAME_MAX + 1];
  memset(longname, 'x', sizeof(longname) - 1);
  longname[SB_METRIC_NAME_MAX] = '\0';
  assert_int_equal(sb_metric_id(longname), -1);
  longname[SB_METRIC_NAME_MAX - 1] = '\0';        /* 63 bytes: allowed */
  assert_int_equal(sb_metric_id(longname), 2);
}

static void test_limit(void **state)
{
  (void) state;
  char name[16];
  for (int i = 0; i < SB_METRIC_MAX; i++)
  {
    snprintf(name, sizeof(name), "m%d", i);
    assert_int_equal(sb_metric_id(name), i);
  }
  assert_int_equal(sb_metric_id("one_too_many"), -1);
  assert_int_equal(sb_metric_id("m3"), 3);         /* known names still work */
}

/* Each worker writes its own slot; the snapshot is the sum. */
static void *adder(void *arg)
{
  sb_tls_tid = (int) (intptr_t) arg;
  for (int i = 0; i < 100000; i++)
  {
    sb_metric_add(0, 1);
    sb_metric_add(1, 3);
  }
  return NULL;
}

static void test_threads_sum(void **state)
{
  (void) state;
  assert_int_equal(sb_metric_id("a"), 0);
  assert_int_equal(sb_metric_id("b"), 1);
  pthread_t t[6];
  /* tids 0..3 are workers; 4 and -1 share the spare slot */
  int tids[6] = { 0, 1, 2, 3, 4, -1 };
  for (int i = 0; i < 6; i++)
    pthread_create(&t[i], NULL, adder, (void *) (intptr_t) tids[i]);
  for (int i = 0; i < 6; i++)
    pthread_join(t[i], NULL);
  uint64_t v[SB_METRIC_MAX];
  sb_metrics_snapshot(v);
  assert_int_equal(v[0], 600000);
  assert_int_equal(v[1], 1800000);
  assert_int_equal(v[2], 0);
  sb_metric_add(7, 5);                             /* unregistered id: kept, reads back */
  sb_metric_add(-1, 5);                            /* ignored */
  sb_metric_add(SB_METRIC_MAX, 5);                 /* ignored */
  sb_metrics_snapshot(v);
  assert_int_equal(v[0], 600000);
  assert_int_equal(v[7], 5);
}

static void test_block(void **state)
{
  (void) state;
  sb_stat_t s;
  memset(&s, 0, sizeof(s));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sb_report_metrics(f, &s);                        /* no metrics: nothing */
  fclose(f);
  assert_int_equal(len, 0);
  free(buf);

  assert_int_equal(sb_metric_id("rows"), 0);
  assert_int_equal(sb_metric_id("commit_time_us"), 1);
  s.nmetrics = 2;
  s.metrics[0] = 100000;
  s.metrics[1] = 1234;
  s.time_total = 8.0;
  buf = NULL;
  f = open_memstream(&buf, &len);
  sb_report_metrics(f, &s);
  fclose(f);
  assert_string_equal(buf,
                      "Workload metrics:\n"
                      "    rows:                                    100000  (12500.00 per sec.)\n"
                      "    commit_time_us:                            1234  (154.25 per sec.)\n"
                      "\n");
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_registry, setup, teardown),
    cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
    cmocka_unit_test_setup_teardown(test_threads_sum, setup, teardown),
    cmocka_unit_test_setup_teardown(test_block, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
