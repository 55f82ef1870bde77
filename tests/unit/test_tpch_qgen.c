/*
 * Unit tests: TPC-H query parameters (src/datagen/sb_tpch_qgen.c) are
 * qgen 2.17.3's. The expected lines are the parameter logs (`-l`) of the
 * reference qgen 2.17.3 (TPC-H tools, built from its public source):
 * `qgen -r 101 -s 1` and `qgen -r 1130235959 -s 10`; the stream orders
 * are the TPC-H specification's Appendix A (and qgen -p 41 -r 101 gives
 * stream 0's order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "datagen/sb_tpch_qgen.h"

/* "q<TAB>p1<TAB>p2..." of query q as qgen's log writes it. */
static void log_line(const sb_tpch_params_t *p, char *dst, size_t cap)
{
  size_t n = (size_t)snprintf(dst, cap, "%d", p->query);
  for (int i = 1; i <= p->n; i++)
    n += (size_t)snprintf(dst + n, cap - n, "\t%s", p->p[i]);
}

static const char *const seed101_sf1[SB_TPCH_QUERIES] = {
  "1\t77", "2\t16\tSTEEL\tMIDDLE EAST", "3\tBUILDING\t1995-03-26", "4\t1996-11-01",
  "5\tAFRICA\t1996-01-01", "6\t1996-01-01\t0.06\t25", "7\tKENYA\tMOROCCO",
  "8\tMOROCCO\tAFRICA\tMEDIUM PLATED TIN", "9\tindian", "10\t1994-07-01",
  "11\tIRAQ\t0.0001000000", "12\tSHIP\tTRUCK\t1994-01-01", "13\tpending\trequests",
  "14\t1994-12-01", "15\t1995-05-01",
  "16\tBrand#44\tECONOMY BURNISHED\t38\t10\t20\t26\t49\t4\t16\t3",
  "17\tBrand#44\tJUMBO CAN", "18\t314", "19\tBrand#41\tBrand#23\tBrand#53\t3\t13\t20",
  "20\tchocolate\t1994-01-01\tJAPAN", "21\tINDONESIA", "22\t22\t34\t10\t17\t20\t15\t16",
};

static const char *const seed1130235959_sf10[SB_TPCH_QUERIES] = {
  "1\t67", "2\t48\tCOPPER\tASIA", "3\tHOUSEHOLD\t1995-03-16", "4\t1995-06-01",
  "5\tMIDDLE EAST\t1997-01-01", "6\t1997-01-01\t0.04\t25", "7\tGERMANY\tPERU",
  "8\tPERU\tAMERICA\tLARGE POLISHED BRASS", "9\tnavy", "10\t1993-09-01",
  "11\tIRAN\t0.0000100000", "12\tSHIP\tTRUCK\t1994-01-01", "13\tpending\trequests",
  "14\t1994-10-01", "15\t1997-10-01",
  "16\tBrand#45\tECONOMY BURNISHED\t22\t36\t11\t40\t46\t49\t18\t29",
  "17\tBrand#54\tMED CASE", "18\t314", "19\tBrand#34\tBrand#14\tBrand#55\t3\t15\t25",
  "20\tplum\t1993-01-01\tROMANIA", "21\tEGYPT", "22\t29\t32\t34\t18\t24\t14\t16",
};

static void check_seed(int64_t seed, double sf, const char *const *want)
{
  for (int q = 1; q <= SB_TPCH_QUERIES; q++) {
    sb_tpch_params_t p;
    char line[512];
    assert_int_equal(sb_tpch_qgen_params(seed, q, sf, &p), 0);
    log_line(&p, line, sizeof(line));
    assert_string_equal(line, want[q - 1]);
  }
}

static void test_qgen_seeds(void **state)
{
  (void) state;
  check_seed(101, 1, seed101_sf1);
  check_seed(1130235959, 10, seed1130235959_sf10);
}

/* qgen -d: the validation parameters; Q11's fraction follows SF. */
static void test_defaults(void **state)
{
  sb_tpch_params_t p;
  char line[512];
  (void) state;
  assert_int_equal(sb_tpch_qgen_defaults(16, 1, &p), 0);
  log_line(&p, line, sizeof(line));
  assert_string_equal(line, "16\tBrand#45\tMEDIUM POLISHED\t49\t14\t23\t45\t19\t3\t36\t9");
  assert_int_equal(sb_tpch_qgen_defaults(11, 0.01, &p), 0);
  log_line(&p, line, sizeof(line));
  assert_string_equal(line, "11\tGERMANY\t0.0100000000");
  assert_int_equal(sb_tpch_qgen_defaults(6, 1, &p), 0);
  log_line(&p, line, sizeof(line));
  assert_string_equal(line, "6\t1994-01-01\t.06\t24");
  assert_int_equal(sb_tpch_qgen_defaults(23, 1, &p), -1);
  assert_int_equal(sb_tpch_qgen_params(0, 1, 1, &p), -1);
  assert_int_equal(sb_tpch_qgen_params(101, 0, 1, &p), -1);
}

/* Appendix A: each stream is a permutation of 1..22; stream 41 wraps to
   stream 0; a few rows. */
static void test_orders(void **state)
{
  static const int s0[SB_TPCH_QUERIES] = { 14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22,
                                           16, 4, 11, 15, 1, 10, 19, 5, 7, 12 };
  static const int s40[SB_TPCH_QUERIES] = { 13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21,
                                            9, 8, 2, 18, 16, 6, 10, 12, 5, 19 };
  (void) state;
  for (int s = 0; s < SB_TPCH_PERMUTATIONS; s++) {
    int seen[SB_TPCH_QUERIES + 1] = { 0 };
    for (int pos = 1; pos <= SB_TPCH_QUERIES; pos++)
      seen[sb_tpch_qgen_order(s, pos)]++;
    for (int q = 1; q <= SB_TPCH_QUERIES; q++)
      assert_int_equal(seen[q], 1);
  }
  for (int pos = 1; pos <= SB_TPCH_QUERIES; pos++) {
    assert_int_equal(sb_tpch_qgen_order(0, pos), s0[pos - 1]);
    assert_int_equal(sb_tpch_qgen_order(41, pos), s0[pos - 1]);
    assert_int_equal(sb_tpch_qgen_order(40, pos), s40[pos - 1]);
  }
  assert_int_equal(sb_tpch_qgen_order(3, 1), 8);
  assert_int_equal(sb_tpch_qgen_order(-1, 1), 0);
  assert_int_equal(sb_tpch_qgen_order(0, 23), 0);
  assert_int_equal(sb_tpch_qgen_rowcount(3), 10);
  assert_int_equal(sb_tpch_qgen_rowcount(1), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_qgen_seeds),
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_orders),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
