/* Unit tests: bmk compare's gates (sb_compare_gate.c) and metric names
   (sb_compare_metrics.c): parsing, the three verdicts on hand-made rows,
   and the "needed" phrase's arithmetic (half-width over distance,
   squared, times the samples now). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "commands/compare/sb_compare_gate.h"

static sb_cmp_gate_t gate(const char *text)
{
  sb_cmp_gate_t g;
  char err[256];
  if (sb_cmp_gate_parse(text, &g, err, sizeof(err)) != 0)
    fail_msg("'%s' refused: %s", text, err);
  return g;
}

/* A row with an interval: change pct in [lo, hi], n samples a side. */
static sb_cmp_row_t row(double pct, double lo, double hi, unsigned n, bool by_runs)
{
  sb_cmp_row_t r;
  memset(&r, 0, sizeof(r));
  r.have = true;
  r.pct = pct;
  r.lo = lo;
  r.hi = hi;
  r.significant = lo > 0 || hi < 0;
  r.by_runs = by_runs;
  r.na = r.nb = n;
  r.ia = r.ib = by_runs ? 0 : n;
  return r;
}

static void test_parse(void **state)
{
  (void) state;
  sb_cmp_gate_t g = gate("tps<-5%");
  assert_int_equal(g.metric.kind, CM_TPS);
  assert_int_equal(g.op, '<');
  assert_true(g.pct == -5);
  g = gate("p99.9>+10%");
  assert_int_equal(g.metric.kind, CM_PCT);
  assert_true(g.metric.pct == 99.9);
  assert_string_equal(g.metric.name, "p99.9");
  g = gate("nopm<-1%");
  assert_int_equal(g.metric.kind, CM_FIGURE);
  assert_string_equal(g.metric.figure, "tpcc_nopm");
  assert_string_equal(g.metric.label, "NOPM");
  g = gate("qps<-2.5%");
  assert_int_equal(g.metric.kind, CM_QPS);
  g = gate("errors>+0%");
  assert_int_equal(g.metric.kind, CM_ERRORS);
  g = gate("server_commits<-5%");
  assert_string_equal(g.metric.figure, "server_commits");
  const char *bad[] = { "tps<5", "tps", "p101>+1%", "p0>+1%", "Tps<-5%", "tps<-x%", "tps<-5%%",
                        "<-5%", "p99>+inf%" };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
  {
    sb_cmp_gate_t b;
    char err[256] = "";
    if (sb_cmp_gate_parse(bad[i], &b, err, sizeof(err)) == 0)
      fail_msg("'%s' accepted", bad[i]);
    assert_non_null(strstr(err, "--fail-if="));
  }
}

static void test_decide(void **state)
{
  (void) state;
  sb_cmp_gate_t drop = gate("tps<-5%"), rise = gate("p99>+10%");
  sb_cmp_row_t r;
  /* the whole interval on the safe side: pass */
  r = row(-1, -3, +1, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&drop, &r, false), GATE_PASS);
  r = row(+2, -4, +9.9, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, false), GATE_PASS);
  /* past the threshold and significant: fail */
  r = row(-8, -11, -5.5, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&drop, &r, false), GATE_FAIL);
  r = row(+400, +300, +500, 5, false);
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, false), GATE_FAIL);
  /* an interval holding the threshold: inconclusive, on either side of it */
  r = row(-3, -7, +1, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&drop, &r, false), GATE_INCONCLUSIVE);
  r = row(+12, -2, +26, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, false), GATE_INCONCLUSIVE);
  /* no interval at all: inconclusive, never pass */
  memset(&r, 0, sizeof(r));
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, false), GATE_INCONCLUSIVE);
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, true), GATE_INCONCLUSIVE);
  /* --ignore-noise: the point estimate alone */
  r = row(+12, -2, +26, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, true), GATE_FAIL);
  r = row(-3, -7, +1, 5, true);
  assert_int_equal(sb_cmp_gate_decide(&drop, &r, true), GATE_PASS);
  /* an exact change (no spread): decided at once */
  r = row(0, 0, 0, 2, true);
  assert_int_equal(sb_cmp_gate_decide(&rise, &r, false), GATE_PASS);
}

static void test_needed(void **state)
{
  (void) state;
  char buf[256];
  sb_cmp_gate_t rise = gate("p99>+10%");
  /* half-width 14 around +12, threshold +10: the distance is 2, so
     (14/2)^2 = 49 times the 3 runs now: 147 runs a side */
  sb_cmp_row_t r = row(+12, -2, +26, 3, true);
  sb_cmp_gate_needed(&rise, &r, buf, sizeof(buf));
  assert_non_null(strstr(buf, "about 147 runs a side"));
  assert_non_null(strstr(buf, "(now 3 and 3)"));
  /* by intervals: half-width 6 around +4, distance 6: (6/6)^2 = 1, at
     least one more batch; 10 intervals in 10 batches: 11 intervals */
  r = row(+4, -2, +10.5, 10, false);
  r.hi = 10;
  sb_cmp_gate_needed(&rise, &r, buf, sizeof(buf));
  assert_non_null(strstr(buf, "about 11 intervals a side"));
  assert_non_null(strstr(buf, "--repeat"));
  /* no interval: what gives one */
  memset(&r, 0, sizeof(r));
  r.by_runs = true;
  sb_cmp_gate_needed(&rise, &r, buf, sizeof(buf));
  assert_non_null(strstr(buf, "at least 2 runs a side"));
  r.by_runs = false;
  r.ia = 1;
  r.ib = 4;
  sb_cmp_gate_needed(&rise, &r, buf, sizeof(buf));
  assert_non_null(strstr(buf, "at least 2 intervals a side"));
  r.ia = 0;
  sb_cmp_gate_needed(&rise, &r, buf, sizeof(buf));
  assert_non_null(strstr(buf, "no per-interval samples"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse),
    cmocka_unit_test(test_decide),
    cmocka_unit_test(test_needed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
