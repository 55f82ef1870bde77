/* Unit tests: report layouts, byte for byte (sysbench 1.1's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "results/sb_report.h"

typedef void (*fmt_fn)(FILE *out, const sb_stat_t *s);

/* open_memstream keeps the addresses it is given until fclose: static
   storage keeps GCC's -Wdangling-pointer quiet. */
static char *mem_buf;
static size_t mem_len;

static char *capture_cumulative(const sb_stat_t *s, bool db)
{
  mem_buf = NULL;
  mem_len = 0;
  FILE *f = open_memstream(&mem_buf, &mem_len);
  sb_report_cumulative(f, s, db);
  fclose(f);
  return mem_buf;
}

static sb_stat_t sample(void)
{
  sb_stat_t s;
  memset(&s, 0, sizeof(s));
  s.threads = 1;
  s.time_interval = 0.2425;
  s.time_total = 0.2425;
  s.percentile = 95;
  s.events = 100;
  s.reads = 1400;
  s.writes = 400;
  s.other = 200;
  s.latency_min = 0.00191;
  s.latency_avg = 0.00242;
  s.latency_max = 0.00937;
  s.latency_pct = 0.00349;
  s.latency_sum = 0.24244;
  s.events_avg = 100;
  s.events_stddev = 0;
  s.exec_avg = 0.2424;
  s.exec_stddev = 0;
  return s;
}

static void test_cumulative_db(void **state)
{
  (void) state;
  sb_stat_t s = sample();
  char *out = capture_cumulative(&s, true);
  assert_string_equal(out,
    "SQL statistics:\n"
    "    queries performed:\n"
    "        read:                            1400\n"
    "        write:                           400\n"
    "        other:                           200\n"
    "        total:                           2000\n"
    "    transactions:                        100    (412.37 per sec.)\n"
    "    queries:                             2000   (8247.42 per sec.)\n"
    "    ignored errors:                      0      (0.00 per sec.)\n"
    "    reconnects:                          0      (0.00 per sec.)\n"
    "\n"
    "Throughput:\n"
    "    events/s (eps):                      412.3711\n"
    "    time elapsed:                        0.2425s\n"
    "    total number of events:              100\n"
    "\n"
    "Latency (ms):\n"
    "         min:                                    1.91\n"
    "         avg:                                    2.42\n"
    "         max:                                    9.37\n"
    "         95th percentile:                        3.49\n"
    "         sum:                                  242.44\n"
    "\n"
    "Threads fairness:\n"
    "    events (avg/stddev):           100.0000/0.00\n"
    "    execution time (avg/stddev):   0.2424/0.00\n"
    "\n");
  free(out);
}

static void test_cumulative_generic_and_percentiles(void **state)
{
  (void) state;
  sb_stat_t s = sample();
  s.npct = 2;
  s.pct[0] = 99;
  s.pct[1] = 99.9;
  s.pct_val[0] = 0.0081;
  s.pct_val[1] = 0.0081;
  char *out = capture_cumulative(&s, false);
  assert_true(strncmp(out, "\nThroughput:\n", 13) == 0);
  assert_non_null(strstr(out,
    "         95th percentile:                        3.49\n"
    "         99th percentile:                        8.10\n"
    "       99.9th percentile:                        8.10\n"
    "         sum:                                  242.44\n"));
  /* Every latency line is 53 characters wide. */
  char *p = strstr(out, "Latency (ms):\n") + 14;
  for (int i = 0; i < 6; i++)
  {
    char *nl = strchr(p, '\n');
    assert_int_equal(nl - p, 53);
    p = nl + 1;
  }
  free(out);
}

static void test_percentile_disabled(void **state)
{
  (void) state;
  sb_stat_t s = sample();
  s.percentile = 0;
  char *out = capture_cumulative(&s, true);
  assert_non_null(strstr(out, "\n         percentile stats:               disabled\n"));
  free(out);
}

static void test_interval_lines(void **state)
{
  (void) state;
  sb_stat_t s;
  memset(&s, 0, sizeof(s));
  s.time_total = 3;
  s.time_interval = 1.0;
  s.threads_running = 8;
  s.events = 100;
  s.reads = 1400;
  s.writes = 400;
  s.other = 200;
  s.percentile = 95;
  s.latency_pct = 0.01234;
  s.errors = 1;
  s.queue_length = 5;
  s.concurrency = 8;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  s.schedule_lag = 0.0125;
  sb_report_interval_db(f, &s, true, true);
  sb_report_interval_generic(f, &s, true, true);
  fclose(f);
  assert_string_equal(buf,
    "[ 3s ] thds: 8 tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) "
    "lat (ms,95%): 12.34 err/s: 1.00 reconn/s: 0.00\n"
    "[ 3s ] queue length: 5, concurrency: 8, lag (ms): 12.50\n"
    "[ 3s ] thds: 8 eps: 100.00 lat (ms,95%): 12.34\n"
    "[ 3s ] queue length: 5 concurrency: 8 lag (ms): 12.50\n");
  free(buf);
  /* without the lag field: sysbench's lines (sysbench.c, db_driver.c) */
  buf = NULL;
  f = open_memstream(&buf, &len);
  sb_report_interval_db(f, &s, true, false);
  sb_report_interval_generic(f, &s, true, false);
  sb_report_interval_generic(f, &s, false, true);
  fclose(f);
  assert_string_equal(buf,
    "[ 3s ] thds: 8 tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) "
    "lat (ms,95%): 12.34 err/s: 1.00 reconn/s: 0.00\n"
    "[ 3s ] queue length: 5, concurrency: 8\n"
    "[ 3s ] thds: 8 eps: 100.00 lat (ms,95%): 12.34\n"
    "[ 3s ] queue length: 5 concurrency: 8\n"
    "[ 3s ] thds: 8 eps: 100.00 lat (ms,95%): 12.34\n");
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cumulative_db),
    cmocka_unit_test(test_cumulative_generic_and_percentiles),
    cmocka_unit_test(test_percentile_disabled),
    cmocka_unit_test(test_interval_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
