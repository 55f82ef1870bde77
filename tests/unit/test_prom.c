/* Unit tests: the Prometheus exposition (metrics/sb_prom.c): bucket
   placement from the HDR histogram, cumulative buckets, counters that
   only grow, the end replacing the interval sums, both formats, label
   escaping, the run's figures as gauges, the per-statement families. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sb_figure.h"
#include "core/sb_histogram.h"
#include "metrics/sb_prom.h"

/* The value of the sample line starting with `prefix` in `page`, or -1. */
static double value_of(const char *page, const char *prefix)
{
  const char *p = page;
  size_t n = strlen(prefix);
  while (p && *p)
  {
    if (strncmp(p, prefix, n) == 0)
    {
      const char *sp = strchr(p + n, ' ');
      return sp ? atof(sp + 1) : -1;
    }
    p = strchr(p, '\n');
    if (p)
      p++;
  }
  return -1;
}

static void interval(sb_prom_t *p, sb_hdr_t *h, uint64_t events, uint64_t reads)
{
  sb_stat_t st;
  memset(&st, 0, sizeof(st));
  st.events = events;
  st.reads = reads;
  st.time_interval = 1;
  sb_out_interval_t iv = { .st = &st, .hist = h, .types = NULL, .vus_running = 4 };
  sb_prom_add_interval(p, &iv);
}

static void test_buckets(void **state)
{
  (void) state;
  sb_prom_t *p = sb_prom_new("test=\"t\"");
  assert_non_null(p);
  sb_prom_set_config(p, 4, 0);
  sb_hdr_t *h = sb_hdr_new();
  sb_hdr_record(h, 120000);          /* 0.12 ms: le 0.00015 */
  sb_hdr_record(h, 2900000);         /* 2.9 ms: le 0.003 */
  sb_hdr_record(h, 2900000);
  sb_hdr_record(h, 200000000000ULL); /* 200 s: +Inf only */
  interval(p, h, 4, 4);
  size_t len = 0;
  char *page = sb_prom_render(p, false, &len);
  assert_non_null(page);
  assert_int_equal(len, strlen(page));
  assert_true(value_of(page, "bmk_latency_seconds_bucket{test=\"t\",le=\"0.0001\"}") == 0);
  assert_true(value_of(page, "bmk_latency_seconds_bucket{test=\"t\",le=\"0.00015\"}") == 1);
  assert_true(value_of(page, "bmk_latency_seconds_bucket{test=\"t\",le=\"0.002\"}") == 1);
  assert_true(value_of(page, "bmk_latency_seconds_bucket{test=\"t\",le=\"0.003\"}") == 3);
  assert_true(value_of(page, "bmk_latency_seconds_bucket{test=\"t\",le=\"100\"}") == 3);
  assert_true(value_of(page, "bmk_latency_seconds_bucket{test=\"t\",le=\"+Inf\"}") == 4);
  assert_true(value_of(page, "bmk_latency_seconds_count{test=\"t\"}") == 4);
  double sum = value_of(page, "bmk_latency_seconds_sum{test=\"t\"}");
  double exact = 0.00012 + 2 * 0.0029 + 200;
  assert_true(sum > exact * 0.999 && sum < exact * 1.001);
  assert_true(value_of(page, "bmk_vus{test=\"t\"}") == 4);
  assert_non_null(strstr(page, "# TYPE bmk_events_total counter\n"));
  assert_null(strstr(page, "# EOF"));
  free(page);
  sb_hdr_free(h);
  sb_prom_free(p);
}

static void test_counters_and_end(void **state)
{
  (void) state;
  sb_prom_t *p = sb_prom_new("test=\"t\",env=\"a\"");
  sb_hdr_t *h = sb_hdr_new();
  sb_hdr_record_n(h, 1000000, 10);
  interval(p, h, 10, 20);
  interval(p, h, 10, 20);
  size_t len;
  char *page = sb_prom_render(p, false, &len);
  assert_true(value_of(page, "bmk_events_total{test=\"t\",env=\"a\"}") == 20);
  assert_true(value_of(page, "bmk_queries_total{test=\"t\",env=\"a\",kind=\"read\"}") == 40);
  assert_true(value_of(page, "bmk_run_finished{test=\"t\",env=\"a\"}") == 0);
  free(page);
  /* the end: the final report's numbers (the partial last interval
     included) replace the sums */
  sb_stat_t st;
  memset(&st, 0, sizeof(st));
  st.events = 23;
  st.reads = 46;
  sb_hdr_t *run = sb_hdr_new();
  sb_hdr_record_n(run, 1000000, 23);
  sb_out_end_t e = { .st = &st, .hist = run };
  sb_prom_set_end(p, &e);
  page = sb_prom_render(p, true, &len);
  assert_true(value_of(page, "bmk_events_total{test=\"t\",env=\"a\"}") == 23);
  assert_true(value_of(page, "bmk_latency_seconds_count{test=\"t\",env=\"a\"}") == 23);
  assert_true(value_of(page, "bmk_run_finished{test=\"t\",env=\"a\"}") == 1);
  /* OpenMetrics: a counter family is named without _total; # EOF ends it */
  assert_non_null(strstr(page, "# TYPE bmk_events counter\n"));
  assert_non_null(strstr(page, "\n# EOF\n"));
  free(page);
  /* a smaller end (a checkpoint restarted the report) never lowers a counter */
  st.events = 5;
  sb_prom_set_end(p, &e);
  page = sb_prom_render(p, false, &len);
  assert_true(value_of(page, "bmk_events_total{test=\"t\",env=\"a\"}") == 23);
  free(page);
  sb_hdr_free(h);
  sb_hdr_free(run);
  sb_prom_free(p);
}

/* The run's figures become gauges at the end, per-minute ones divided by
   the window's minutes; before the end there are none. Figure names are
   checked. */
static void test_figures(void **state)
{
  (void) state;
  sb_figure_reset();
  assert_int_equal(sb_figure_set("server_commits", "Commits", 0, 1234), 0);
  assert_int_equal(sb_figure_set("tpcc_nopm", "NOPM", 1, 300), 0);
  assert_int_equal(sb_figure_set("tpcc_nopm", "NOPM", 1, 600), 0);   /* replaces */
  assert_int_equal(sb_figure_set("Bad", NULL, 0, 1), -1);
  assert_int_equal(sb_figure_set("a-b", NULL, 0, 1), -1);
  assert_int_equal(sb_figure_set("", NULL, 0, 1), -1);
  sb_figure_t f[SB_FIGURE_MAX];
  assert_int_equal(sb_figure_list(f, SB_FIGURE_MAX), 2);
  assert_true(sb_figure_shown(&f[1], 120) == 300);     /* 600 in 2 minutes */
  assert_true(sb_figure_shown(&f[1], 0) == 0);
  assert_true(sb_figure_shown(&f[0], 120) == 1234);

  sb_prom_t *p = sb_prom_new("test=\"t\"");
  size_t len;
  char *page = sb_prom_render(p, false, &len);
  assert_null(strstr(page, "bmk_server_commits"));
  free(page);
  sb_stat_t st;
  memset(&st, 0, sizeof(st));
  st.time_total = 120;
  sb_hdr_t *run = sb_hdr_new();
  sb_out_end_t e = { .st = &st, .hist = run };
  sb_prom_set_end(p, &e);
  page = sb_prom_render(p, false, &len);
  assert_true(value_of(page, "bmk_server_commits{test=\"t\"}") == 1234);
  assert_true(value_of(page, "bmk_tpcc_nopm{test=\"t\"}") == 300);
  assert_non_null(strstr(page, "# HELP bmk_tpcc_nopm NOPM\n# TYPE bmk_tpcc_nopm gauge\n"));
  free(page);
  sb_hdr_free(run);
  sb_prom_free(p);
  sb_figure_reset();
  assert_int_equal(sb_figure_list(f, SB_FIGURE_MAX), 0);
}

static void test_escape(void **state)
{
  (void) state;
  char buf[32] = "x=\"";
  assert_true(sb_prom_escape(buf, sizeof(buf), "a\"b\\c\nd"));
  assert_string_equal(buf, "x=\"a\\\"b\\\\c\\nd");
  char small[6] = "";
  assert_false(sb_prom_escape(small, sizeof(small), "abcdefgh"));
}

static void test_statements(void **state)
{
  (void) state;
  sb_prom_stmt_t st[2] = {
    { .script = 0, .command = 3, .script_name = "a \"b\".sql", .text = "SELECT 1", .count = 7,
      .failures = 1, .retries = 2, .sum_s = 0.5, .p50_s = 0.001, .p95_s = 0.002, .p99_s = 0.004 },
    { .script = 1, .command = 0, .script_name = "tpcb-like", .text = NULL, .count = 0 } };
  size_t len = 0;
  char *page = sb_prom_render_statements(st, 2, "test=\"t\"", false, false, &len);
  assert_non_null(page);
  assert_int_equal(len, strlen(page));
  assert_non_null(strstr(page, "bmk_statement_command{test=\"t\",script=\"0\",command=\"3\","
                               "script_name=\"a \\\"b\\\".sql\",text=\"SELECT 1\"} 1\n"));
  assert_non_null(strstr(page, "script_name=\"tpcb-like\",text=\"\"} 1\n"));
  assert_true(value_of(page, "bmk_statement_latency_seconds{test=\"t\",script=\"0\",command=\"3\","
                             "quantile=\"0.95\"}") == 0.002);
  assert_true(value_of(page, "bmk_statement_latency_seconds_count{test=\"t\",script=\"0\","
                             "command=\"3\"}") == 7);
  assert_true(value_of(page, "bmk_statement_failures_total{test=\"t\",script=\"0\",command=\"3\"}")
              == 1);
  assert_true(value_of(page, "bmk_statement_retries_total{test=\"t\",script=\"0\",command=\"3\"}")
              == 2);
  assert_true(value_of(page, "bmk_statement_retries_total{test=\"t\",script=\"1\",command=\"0\"}")
              == 0);
  assert_non_null(strstr(page, "# TYPE bmk_statement_retries_total counter\n"));
  free(page);
  /* OpenMetrics: a counter family is named without _total; merged help */
  page = sb_prom_render_statements(st, 1, "test=\"t\"", true, true, &len);
  assert_non_null(page);
  assert_non_null(strstr(page, "# TYPE bmk_statement_failures counter\n"));
  assert_non_null(strstr(page, "merged over the processes"));
  assert_null(strstr(page, "script=\"1\""));
  free(page);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_buckets),
    cmocka_unit_test(test_counters_and_end),
    cmocka_unit_test(test_escape),
    cmocka_unit_test(test_figures),
    cmocka_unit_test(test_statements),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
