/* Unit tests: passwords masked in URLs and conninfo strings
   (core/sb_redact.c), as bmk prints and stores --results-db. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/sb_redact.h"

static void check(const char *in, const char *want)
{
  char out[256];
  assert_string_equal(sb_redact(in, out, sizeof(out)), want);
}

static void test_url_password(void **state)
{
  (void) state;
  check("postgresql://u:secret@h:5432/db", "postgresql://u:***@h:5432/db");
  check("--results-db=postgres://u:p%40ss@h/db?sslmode=require",
        "--results-db=postgres://u:***@h/db?sslmode=require");
  /* a password holding '@' (not percent-encoded): up to the last '@' */
  check("postgresql://u:a@b@h/db", "postgresql://u:***@h/db");
}

static void test_no_password(void **state)
{
  (void) state;
  check("postgresql://u@h:5432/db", "postgresql://u@h:5432/db");
  check("postgresql://h/db", "postgresql://h/db");
  check("/home/me/.local/share/bmk/results.db", "/home/me/.local/share/bmk/results.db");
  check("--time=10", "--time=10");
  /* a ':' in the path, not in the authority, is no password */
  check("postgresql://h/db?options=a:b@c", "postgresql://h/db?options=a:b@c");
}

static void test_password_parameter(void **state)
{
  (void) state;
  check("postgresql://u@h/db?password=secret&sslmode=disable",
        "postgresql://u@h/db?password=***&sslmode=disable");
  check("host=h password=secret dbname=db", "host=h password=*** dbname=db");
  check("mypassword=x", "mypassword=x");
}

static void test_truncation(void **state)
{
  (void) state;
  char out[12];
  sb_redact("postgresql://u:secret@h/db", out, sizeof(out));
  assert_string_equal(out, "postgresql:");
  assert_null(strstr(out, "secret"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_url_password),
    cmocka_unit_test(test_no_password),
    cmocka_unit_test(test_password_parameter),
    cmocka_unit_test(test_truncation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
