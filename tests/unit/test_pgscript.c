/*
 * Unit tests: pgbench's script language in src/pgscript/ (its random
 * functions and expressions). The random figures were recorded from
 * pgbench 15.20 (Debian 15.20-0+deb12u1): `pgbench -n -c 1 -t 2
 * --random-seed=42 -f r.sql` with `\set x debug(...)` lines, one per
 * figure, as tests/unit/test_pgscript.c's comments name them; the other
 * results are pgbench 15's documented ones (its manual page, "Built-in
 * Operators" and "Built-in Functions").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgscript/pgs_expr.h"
#include "pgscript/pgs_random.h"

/* One client as pgbench 15 seeds it with --random-seed=42 and -c 1: its
   function generator from the base sequence's first draw, :default_seed
   from the second. */
typedef struct {
  pgs_prng_t base, rs;
  int64_t default_seed;
  char debug[64];
} client_t;

static void client_init(client_t *c, uint64_t seed)
{
  memset(c, 0, sizeof(*c));
  pgs_prng_seed(&c->base, seed);
  pgs_prng_seed(&c->rs, pgs_prng_u64(&c->base));
  c->default_seed = (int64_t) pgs_prng_u64(&c->base);
}

static bool lookup(void *ctx, const char *name, pgs_value_t *out, char *err, size_t errlen)
{
  client_t *c = ctx;
  if (strcmp(name, "default_seed") == 0)
  {
    out->type = PGS_INT;
    out->u.i = c->default_seed;
    return true;
  }
  if (strcmp(name, "scale") == 0)
  {
    out->type = PGS_INT;
    out->u.i = 10;
    return true;
  }
  if (strcmp(name, "s") == 0)
    return pgs_value_from_text("2.5", out);
  snprintf(err, errlen, "undefined variable \"%s\"", name);
  return false;
}

static void debug_fn(void *ctx, const char *text)
{
  client_t *c = ctx;
  snprintf(c->debug, sizeof(c->debug), "%s", text);
}

/* Evaluates `text` for client `c`: true with *v, or false with err. */
static bool run(client_t *c, const char *text, pgs_value_t *v, char *err, size_t errlen)
{
  int pos;
  pgs_expr_t *e = pgs_expr_parse(text, err, errlen, &pos);
  if (e == NULL)
    return false;
  pgs_env_t env = {.lookup = lookup, .ctx = c, .rs = &c->rs,
                   .default_seed = c->default_seed, .debug = debug_fn};
  bool ok = pgs_expr_eval(e, &env, v, err, errlen);
  pgs_expr_free(e);
  return ok;
}

static int64_t ival(client_t *c, const char *text)
{
  pgs_value_t v;
  char err[128] = "";
  bool ok = run(c, text, &v, err, sizeof(err));
  if (!ok)
    fail_msg("%s: %s", text, err);
  if (v.type != PGS_INT)
    fail_msg("%s: not an int (type %d)", text, (int) v.type);
  return v.u.i;
}

static const char *text_of(const char *expr)
{
  static char buf[160];
  client_t c;
  pgs_value_t v;
  char err[128];
  client_init(&c, 1);
  if (!run(&c, expr, &v, err, sizeof(err)))
    snprintf(buf, sizeof(buf), "ERROR: %s", err);
  else if (v.type == PGS_NULL)
    snprintf(buf, sizeof(buf), "NULL");
  else
    pgs_value_text(&v, buf, sizeof(buf));
  return buf;
}

/* The sequence pgbench 15 draws: two transactions of 14 \set lines. */
static void test_pgbench15_sequence(void **state)
{
  (void) state;
  static const char *const exprs[] = {
    "random(1, 1000)", "random(-5000, 5000)", "random(1, 100000 * 10)",
    "random_exponential(1, 1000, 2.5)", "random_gaussian(1, 1000, 3.0)",
    "random_zipfian(1, 1000, 1.07)", "random_zipfian(1, 1000, 2.5)",
    "hash(12345)", "hash_fnv1a(12345, 7)", "hash_murmur2(-3, 99)",
    "permute(7, 100)", "permute(12345, 1000000, 5432)", ":default_seed",
    "random(1, 9223372036854775806)",
  };
  static const int64_t want[2][14] = {
    {653, -4040, 309154, 372, 370, 134, 1, -9195922694672952628LL,
     2149476180460578507LL, -2006615096986536493LL, 28, 91145,
     4306334408478191133LL, 2820811652046976947LL},
    {424, -1696, 516663, 284, 638, 735, 1, -9195922694672952628LL,
     2149476180460578507LL, -2006615096986536493LL, 28, 91145,
     4306334408478191133LL, 6107740839868474800LL},
  };
  client_t c;
  client_init(&c, 42);
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 14; i++)
    {
      int64_t got = ival(&c, exprs[i]);
      if (got != want[t][i])
        fail_msg("transaction %d, %s: %lld, pgbench 15 gives %lld", t + 1, exprs[i],
                 (long long) got, (long long) want[t][i]);
    }
}

static void test_operators(void **state)
{
  (void) state;
  assert_string_equal(text_of("1 + 2 * 3"), "7");
  assert_string_equal(text_of("(1 + 2) * 3"), "9");
  assert_string_equal(text_of("7 / 2"), "3");
  assert_string_equal(text_of("-7 / 2"), "-3");
  assert_string_equal(text_of("7 % 3"), "1");
  assert_string_equal(text_of("-7 % 3"), "-1");
  assert_string_equal(text_of("7.0 / 2"), "3.5");
  assert_string_equal(text_of("5 % -1"), "0");
  assert_string_equal(text_of("1 / 0"), "ERROR: division by zero");
  assert_string_equal(text_of("1 % 0"), "ERROR: division by zero");
  assert_string_equal(text_of("9223372036854775807 + 1"), "ERROR: bigint add out of range");
  assert_string_equal(text_of("-9223372036854775807 - 2"), "ERROR: bigint sub out of range");
  assert_string_equal(text_of("4611686018427387904 * 2"), "ERROR: bigint mul out of range");
  assert_string_equal(text_of("(-9223372036854775807 - 1) / -1"),
                      "ERROR: bigint div out of range");
  assert_string_equal(text_of("1 < 2"), "true");
  assert_string_equal(text_of("2 <= 1"), "false");
  assert_string_equal(text_of("2 > 1.5"), "true");
  assert_string_equal(text_of("1 >= 1"), "true");
  assert_string_equal(text_of("1 = 1.0"), "true");
  assert_string_equal(text_of("1 <> 2"), "true");
  assert_string_equal(text_of("1 != 1"), "false");
  assert_string_equal(text_of("5 & 3"), "1");
  assert_string_equal(text_of("5 | 3"), "7");
  assert_string_equal(text_of("5 # 3"), "6");
  assert_string_equal(text_of("~5"), "-6");
  assert_string_equal(text_of("1 << 4"), "16");
  assert_string_equal(text_of("-16 >> 2"), "-4");
  assert_string_equal(text_of("1 + 2 << 1"), "6");
  assert_string_equal(text_of("-2.5 * 2"), "-5");
  assert_string_equal(text_of("+3"), "3");
}

static void test_logic_and_null(void **state)
{
  (void) state;
  assert_string_equal(text_of("true and false"), "false");
  assert_string_equal(text_of("TRUE OR false"), "true");
  assert_string_equal(text_of("not true"), "false");
  assert_string_equal(text_of("NOT 1 = 2"), "true");
  assert_string_equal(text_of("false and 1 / 0 = 1"), "false");
  assert_string_equal(text_of("true or 1 / 0 = 1"), "true");
  assert_string_equal(text_of("null and true"), "NULL");
  assert_string_equal(text_of("true and null"), "NULL");
  assert_string_equal(text_of("false or null"), "NULL");
  assert_string_equal(text_of("true or null"), "true");
  assert_string_equal(text_of("true and 2"), "ERROR: cannot coerce int to boolean");
  assert_string_equal(text_of("1 and true"), "ERROR: cannot coerce int to boolean");
  assert_string_equal(text_of("null + 1"), "NULL");
  assert_string_equal(text_of("null is null"), "true");
  assert_string_equal(text_of("1 is null"), "false");
  assert_string_equal(text_of("1 isnull"), "false");
  assert_string_equal(text_of("1 notnull"), "true");
  assert_string_equal(text_of("null is not null"), "false");
  assert_string_equal(text_of("true is true"), "true");
  assert_string_equal(text_of("false is not true"), "true");
  assert_string_equal(text_of("case when 1 > 2 then 10 when 2 > 1 then 20 else 30 end"), "20");
  assert_string_equal(text_of("case when false then 1 end"), "NULL");
  assert_string_equal(text_of("case when 0 then 1 else 2 end"), "2");
  assert_string_equal(text_of("case when 3 then 1 else 2 end"), "1");
}

static void test_functions(void **state)
{
  (void) state;
  assert_string_equal(text_of("abs(-17)"), "17");
  assert_string_equal(text_of("abs(-17.5)"), "17.5");
  assert_string_equal(text_of("double(5432)"), "5432");
  assert_string_equal(text_of("int(5.4) + int(5.6) + int(-5.5)"), "5");
  assert_string_equal(text_of("int(1e30)"),
                      "ERROR: double to int overflow for 1000000000000000019884624838656.000000");
  assert_string_equal(text_of("greatest(5, 4, 3, 2)"), "5");
  assert_string_equal(text_of("greatest(1, 2.5)"), "2.5");
  assert_string_equal(text_of("least(5, 4, 3, 2.0)"), "2");
  assert_string_equal(text_of("least(7, -3)"), "-3");
  assert_string_equal(text_of("greatest(-1.5)"), "-1.5");
  assert_string_equal(text_of("greatest(2, 2.0, 1)"), "2");
  assert_string_equal(text_of("least(3, true)"), "ERROR: cannot coerce boolean to int");
  assert_string_equal(text_of("least(3.5, true)"), "ERROR: cannot coerce boolean to double");
  assert_string_equal(text_of("ln(exp(1))"), "1");
  assert_string_equal(text_of("exp(1.0)"), "2.71828182845905");
  assert_string_equal(text_of("mod(54, 32)"), "22");
  assert_string_equal(text_of("pi()"), "3.14159265358979");
  assert_string_equal(text_of("pow(2.0, 10)"), "1024");
  assert_string_equal(text_of("power(2, 0.5)"), "1.4142135623731");
  assert_string_equal(text_of("sqrt(2.0)"), "1.4142135623731");
  assert_string_equal(text_of("hash_fnv1a(10, 5432)"), "-7793829335365542153");
  assert_string_equal(text_of("hash_murmur2(10, 5432)"), "-5817877081768721676");
  assert_string_equal(text_of("permute(0, 4, 5432)"), text_of("permute(0, 4, 5432)"));
  assert_string_equal(text_of("permute(1, 0)"),
                      "ERROR: permute size parameter must be greater than zero");
  assert_string_equal(text_of("random(5, 1)"), "ERROR: empty range given to random");
  assert_string_equal(text_of("random(-9223372036854775807 - 1, 9223372036854775807)"),
                      "ERROR: random range is too large");
  assert_string_equal(text_of("random_gaussian(1, 10, 1.5)"),
                      "ERROR: gaussian parameter must be at least 2.000000 (not 1.500000)");
  assert_string_equal(text_of("random_exponential(1, 10, 0)"),
                      "ERROR: exponential parameter must be greater than zero (not 0.000000)");
  assert_string_equal(text_of("random_zipfian(1, 10, 1.0)"),
                      "ERROR: zipfian parameter must be in range [1.001, 1000] (not 1.000000)");
  assert_string_equal(text_of("random(1, :scale) <= 10"), "true");
  assert_string_equal(text_of(":s * 2"), "5");
  assert_string_equal(text_of(":nosuch + 1"), "ERROR: undefined variable \"nosuch\"");
  assert_string_equal(text_of("true + 1"), "ERROR: cannot coerce boolean to int");
}

static void test_debug(void **state)
{
  (void) state;
  client_t c;
  pgs_value_t v;
  char err[64];
  client_init(&c, 1);
  assert_true(run(&c, "debug(1.5)", &v, err, sizeof(err)));
  assert_string_equal(c.debug, "double 1.5");
  assert_true(run(&c, "debug(null)", &v, err, sizeof(err)));
  assert_string_equal(c.debug, "null");
  assert_true(run(&c, "debug(1 < 2)", &v, err, sizeof(err)));
  assert_string_equal(c.debug, "boolean true");
}

/* `text` is refused with the message `msg`, at byte `pos` of it (-1:
   any place). */
static void refused(const char *text, const char *msg, int pos)
{
  char err[128];
  int at;
  assert_null(pgs_expr_parse(text, err, sizeof(err), &at));
  assert_string_equal(err, msg);
  if (pos >= 0)
    assert_int_equal(at, pos);
}

static void test_syntax_errors(void **state)
{
  (void) state;
  refused("1 +", "syntax error", 3);
  refused("nosuch(1)", "unexpected function name: nosuch", 5);
  /* a name is looked up as it is read (pgbench: "-- x" is no comment) */
  refused("5 -- five", "unexpected function name: five", 8);
  refused("random(1)", "unexpected number of arguments: random", -1);
  refused("least()", "at least one argument expected: least", -1);
  refused("1 < 2 < 3", "syntax error", -1);
  refused("(1", "syntax error", -1);
  refused("1 2", "syntax error", 2);
  refused("99999999999999999999", "bigint constant overflow: 99999999999999999999", -1);
  /* figures below from pgbench 15.20 (Debian's), run on the same text:
     a grammar error is at the last character of the token that does
     not fit, and a scanner error later on the line takes its place */
  refused("1 abc", "syntax error", 4);
  refused("1 2 @", "unexpected character: @", 4);
  refused("1 2 1e999", "double constant overflow: 1e999", 8);
  refused("1e-400", "double constant overflow: 1e-400", 5);
  /* any error: the last scanner error on the rest of the line wins */
  refused("1 2 @ 99999999999999999999", "bigint constant overflow: 99999999999999999999", 25);
  refused("nosuch(1) @", "unexpected character: @", 10);
  refused("'a' 'b'", "unexpected character: '", 6);
  /* 2^63 is a constant only after a unary minus */
  refused("9223372036854775808", "syntax error", 18);
  refused("1 - 9223372036854775808", "syntax error", 22);
}

static void test_edges(void **state)
{
  (void) state;
  client_t c = {.default_seed = 1};
  pgs_value_t v;
  char err[128] = "", buf[64];
  assert_true(ival(&c, "-9223372036854775808") == INT64_MIN);
  assert_true(ival(&c, "(- 9223372036854775808) + 1") == INT64_MIN + 1);
  assert_int_equal(ival(&c, "-9223372036854775808 % -1"), 0);
  assert_true(ival(&c, "abs(-9223372036854775808)") == INT64_MIN);
  assert_false(run(&c, "-9223372036854775808 / -1", &v, err, sizeof(err)));
  assert_string_equal(err, "bigint div out of range");
  assert_false(run(&c, "--9223372036854775808", &v, err, sizeof(err)));
  assert_string_equal(err, "bigint sub out of range");
  /* what is not a number, as PostgreSQL's printf prints it */
  assert_true(run(&c, "debug(-5.0 / 0)", &v, err, sizeof(err)));
  assert_string_equal(c.debug, "double -Infinity");
  assert_string_equal(pgs_value_text(&v, buf, sizeof(buf)), "-Infinity");
  assert_true(run(&c, "sqrt(-1)", &v, err, sizeof(err)));
  assert_string_equal(pgs_value_text(&v, buf, sizeof(buf)), "NaN");
  assert_false(run(&c, "int(0.0 / 0)", &v, err, sizeof(err)));
  assert_string_equal(err, "double to int overflow for NaN");
  assert_false(run(&c, "random_gaussian(1, 10, -1.0 / 0)", &v, err, sizeof(err)));
  assert_string_equal(err, "gaussian parameter must be at least 2.000000 (not -Infinity)");
}

static void test_value_from_text(void **state)
{
  (void) state;
  pgs_value_t v;
  assert_true(pgs_value_from_text("42", &v));
  assert_int_equal(v.type, PGS_INT);
  assert_true(pgs_value_from_text(" -7", &v));
  assert_int_equal(v.u.i, -7);
  assert_true(pgs_value_from_text("1.5e3", &v));
  assert_int_equal(v.type, PGS_DOUBLE);
  assert_true(pgs_value_from_text("ye", &v));
  assert_int_equal(v.type, PGS_BOOL);
  assert_true(v.u.b);
  assert_true(pgs_value_from_text("of", &v));
  assert_false(v.u.b);
  assert_true(pgs_value_from_text("NULL", &v));
  assert_int_equal(v.type, PGS_NULL);
  assert_false(pgs_value_from_text("abc", &v));
  assert_false(pgs_value_from_text("", &v));
  /* pgbench 15.20: a trailing blank makes a value malformed; an integer
     out of bigint's range is refused as such */
  assert_false(pgs_value_from_text("7 ", &v));
  assert_false(pgs_value_from_text("1.5 ", &v));
  assert_false(pgs_value_from_text("9223372036854775808", &v));
  assert_true(pgs_text_is_int("9223372036854775808"));
  assert_false(pgs_text_is_int("7 "));
}

/* An integer's text is printf's "%" PRId64, whatever the digits (the
   formatting takes two at a time), and is cut to the buffer. */
static void test_int_text(void **state)
{
  (void) state;
  static const int64_t vals[] = {
    0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 100000, 999999, 1000000,
    -1, -9, -10, -99, -100, -101, -12345, INT64_MAX, INT64_MIN, INT64_MIN + 1,
    4294967296LL, 1000000000000000000LL, -1000000000000000000LL,
  };
  char want[32], got[32];
  pgs_value_t v = {.type = PGS_INT};
  for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++)
  {
    v.u.i = vals[k];
    snprintf(want, sizeof(want), "%" PRId64, vals[k]);
    assert_string_equal(pgs_value_text(&v, got, sizeof(got)), want);
  }
  uint64_t x = 88172645463325252ULL;     /* xorshift64: digits of every kind */
  for (int k = 0; k < 10000; k++)
  {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v.u.i = (int64_t) (x >> (k % 64));
    if (k % 2)
      v.u.i = (int64_t) (0 - (uint64_t) v.u.i);   /* no overflow at INT64_MIN */
    snprintf(want, sizeof(want), "%" PRId64, v.u.i);
    assert_string_equal(pgs_value_text(&v, got, sizeof(got)), want);
  }
  v.u.i = -12345;
  assert_string_equal(pgs_value_text(&v, got, 4), "-12");
  assert_string_equal(pgs_value_text(&v, got, 1), "");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pgbench15_sequence),
    cmocka_unit_test(test_operators),
    cmocka_unit_test(test_logic_and_null),
    cmocka_unit_test(test_functions),
    cmocka_unit_test(test_debug),
    cmocka_unit_test(test_syntax_errors),
    cmocka_unit_test(test_edges),
    cmocka_unit_test(test_value_from_text),
    cmocka_unit_test(test_int_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
