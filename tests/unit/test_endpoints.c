/* Unit tests: the --endpoints file and its routes (core/sb_endpoints.c):
   defaults, the choices within a role (least_lag from set lag samples),
   passwords from the environment
   and from a file, and the refusals (docs/endpoints.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sb_endpoints.h"
#include "endpoints/sb_endpoint_probe.h"

static char path[] = "/tmp/bmk-unit-endpoints-XXXXXX";

/* Writes `json` to the test's file and loads it; returns the load's rc. */
static int load(const char *json)
{
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(json, f);
  fclose(f);
  sb_endpoints_free();
  return sb_endpoints_load(path);
}

static const char *pick(const char *what, int who)
{
  bool known;
  sb_endpoint_t *ep = sb_endpoints_pick(what, who, &known);
  return ep ? ep->name : known ? "?" : "(unknown)";
}

#define THREE \
  "{\"endpoints\": [" \
  "{\"name\": \"p\", \"driver\": \"mysql\", \"port\": 3306, \"password_env\": \"BMK_UNIT_PW\"}," \
  "{\"name\": \"r1\", \"driver\": \"mysql\", \"role\": \"replica\"}," \
  "{\"name\": \"r2\", \"driver\": \"mysql\", \"role\": \"replica\"}]"

static void test_defaults(void **state)
{
  (void) state;
  setenv("BMK_UNIT_PW", "s3cret", 1);
  assert_int_equal(load(THREE "}"), 0);
  assert_int_equal(sb_endpoints_count(), 3);
  assert_string_equal(sb_endpoints_driver(), "mysql");
  assert_string_equal(sb_endpoint_get(0)->password, "s3cret");
  assert_string_equal(sb_endpoint_get(0)->role, "primary");
  assert_int_equal(sb_endpoint_get(0)->port, 3306);
  /* default and write: the primary; read: the replicas in turn */
  assert_string_equal(pick(NULL, 0), "p");
  assert_string_equal(pick("write", 5), "p");
  assert_string_equal(pick("read", 0), "r1");
  assert_string_equal(pick("read", 0), "r2");
  assert_string_equal(pick("read", 0), "r1");
  /* an endpoint by name; a role: sticky per VU */
  assert_string_equal(pick("r2", 0), "r2");
  assert_string_equal(pick("replica", 0), "r1");
  assert_string_equal(pick("replica", 3), "r2");
  assert_string_equal(pick("nothing", 0), "(unknown)");
  assert_true(sb_endpoints_have_replicas());
}

static void test_choices(void **state)
{
  (void) state;
  setenv("BMK_UNIT_PW", "x", 1);
  assert_int_equal(load(THREE ", \"routing\": {\"read\": {\"to\": \"replica\", \"choose\": \"sticky\"},"
                        " \"write\": {\"to\": \"replica\", \"choose\": \"first\"},"
                        " \"types\": {\"order_status\": \"r2\"}}}"), 0);
  for (int who = 0; who < 6; who++)
    assert_string_equal(pick("read", who), who % 2 ? "r2" : "r1");
  assert_string_equal(pick("write", 1), "r1");
  assert_string_equal(pick("order_status", 0), "r2");
  assert_int_equal(load(THREE ", \"routing\": {\"read\": {\"to\": \"replica\", \"choose\": \"random\"}}}"), 0);
  for (int i = 0; i < 20; i++)
  {
    const char *n = pick("read", 0);
    assert_true(strcmp(n, "r1") == 0 || strcmp(n, "r2") == 0);
  }
}

/* least_lag: the replica with the smaller latest sample; equal ones and
   none sampled take turns; a replica without a sample comes after one with */
static void test_least_lag(void **state)
{
  (void) state;
  setenv("BMK_UNIT_PW", "x", 1);
  assert_int_equal(load(THREE ", \"routing\": {\"read\": {\"to\": \"replica\", "
                        "\"choose\": \"least_lag\"}}}"), 0);
  sb_endpoint_t *r1 = sb_endpoint_get(1), *r2 = sb_endpoint_get(2);
  const char *a = pick("read", 0), *b = pick("read", 0);
  assert_string_not_equal(a, b);                 /* no sample: round robin */
  sb_endpoint_set_lag(r1, 2.0);
  sb_endpoint_set_lag(r2, 0.5);
  for (int i = 0; i < 4; i++)
    assert_string_equal(pick("read", i), "r2");
  sb_endpoint_set_lag(r2, 3.0);
  for (int i = 0; i < 4; i++)
    assert_string_equal(pick("read", i), "r1");
  sb_endpoint_set_lag(r1, -1);                   /* r1: none (not replicating) */
  for (int i = 0; i < 4; i++)
    assert_string_equal(pick("read", i), "r2");
  /* the same samples for Lua (sb_endpoints_replica_lag): none for the primary,
     r1's none, r2's; -1 past the last endpoint */
  assert_true(sb_endpoints_replica_lag(0) < 0);
  assert_true(sb_endpoints_replica_lag(1) < 0);
  assert_true(sb_endpoints_replica_lag(2) == 3.0);
  assert_true(sb_endpoints_replica_lag(3) < 0);
  sb_endpoint_set_lag(r1, 3.0);                  /* equal: in turn */
  a = pick("read", 0), b = pick("read", 0);
  assert_string_not_equal(a, b);
}

static void test_password_file(void **state)
{
  (void) state;
  char pw[] = "/tmp/bmk-unit-pw-XXXXXX";
  int fd = mkstemp(pw);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "from-file\nrest\n", 15), 15);
  close(fd);
  char json[512];
  snprintf(json, sizeof(json),
           "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"pgsql\", \"password_file\": \"%s\","
           " \"tls\": {\"mode\": \"verify-full\", \"ca\": \"/ca.pem\"}}]}", pw);
  assert_int_equal(load(json), 0);
  assert_string_equal(sb_endpoint_get(0)->password, "from-file");
  assert_string_equal(sb_endpoint_get(0)->tls_mode, "verify-full");
  /* no replica: read is the default route */
  assert_string_equal(pick("read", 0), "p");
  assert_false(sb_endpoints_have_replicas());
  unlink(pw);
  /* MySQL endpoints take tls too (the driver checks the mode's name) */
  assert_int_equal(load("{\"endpoints\": [{\"name\": \"m\", \"driver\": \"mysql\","
                        " \"tls\": {\"mode\": \"VERIFY_CA\", \"ca\": \"/ca.pem\"}}]}"), 0);
  assert_string_equal(sb_endpoint_get(0)->tls_mode, "VERIFY_CA");
  assert_string_equal(sb_endpoint_get(0)->tls_ca, "/ca.pem");
}

/* GTIDs received and not applied: per domain, never below 0; lists as
   the server prints them; anything else is no figure. */
static void test_gtid_behind(void **state)
{
  (void) state;
  assert_int_equal(sb_gtid_behind("", ""), 0);
  assert_int_equal(sb_gtid_behind("0-1-120", "0-1-100"), 20);
  assert_int_equal(sb_gtid_behind("0-1-120", ""), 120);
  assert_int_equal(sb_gtid_behind("0-1-120,1-2-7", "1-2-5,0-1-120"), 2);
  assert_int_equal(sb_gtid_behind("0-1-100", "0-1-120"), 0);   /* applied ahead */
  assert_int_equal(sb_gtid_behind("0-1-10,\n1-3-4", "0-1-9"), 5);
  assert_int_equal(sb_gtid_behind("3E11FA47-71CA-11E1-9E33:1-5", ""), -1);  /* MySQL's form */
  assert_int_equal(sb_gtid_behind("0-1", "0-1-1"), -1);
}

/* The primary's pg_stat_replication row of a replica endpoint: by its
   standby_name, else the only row for the only replica. */
static void test_standby_row(void **state)
{
  (void) state;
  const char *rows[] = { "walreceiver", NULL, "r2" };
  assert_int_equal(sb_standby_row(NULL, rows, 1, 1), 0);
  assert_int_equal(sb_standby_row(NULL, rows, 1, 2), -1);    /* which replica's? */
  assert_int_equal(sb_standby_row(NULL, rows, 3, 1), -1);    /* which row? */
  assert_int_equal(sb_standby_row(NULL, rows, 0, 1), -1);
  assert_int_equal(sb_standby_row("r2", rows, 3, 2), 2);
  assert_int_equal(sb_standby_row("r3", rows, 3, 2), -1);
  assert_int_equal(sb_standby_row("other", rows, 1, 1), -1); /* a name given is the rule */
  assert_int_equal(load("{\"endpoints\": [{\"name\": \"p\", \"driver\": \"pgsql\"},"
                        " {\"name\": \"r\", \"driver\": \"pgsql\", \"role\": \"replica\","
                        " \"standby_name\": \"r_app\"}]}"), 0);
  assert_null(sb_endpoint_get(0)->standby_name);
  assert_string_equal(sb_endpoint_get(1)->standby_name, "r_app");
}

static void test_refusals(void **state)
{
  (void) state;
  static const char *const bad[] = {
    "[]",
    "{\"endpoints\": []}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"password\": \"x\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"rol\": \"x\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"}, {\"name\": \"p\", \"driver\": \"mysql\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"}, {\"name\": \"q\", \"driver\": \"pgsql\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"}], \"routing\": {\"read\": \"replicas\"}}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"}], \"routing\": {\"read\": {\"to\": \"p\", \"choose\": \"least\"}}}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"}], \"routing\": {\"reads\": \"p\"}}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"port\": 70000}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"oracle\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"password_env\": \"BMK_UNIT_UNSET\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"tls\": {\"mode\": \"on\", \"cipher\": \"x\"}}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"tls\": \"required\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"}], \"extra\": 1}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\"},]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"mysql\", \"standby_name\": \"s\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"pgsql\", \"standby_name\": \"\"}]}",
    "{\"endpoints\": [{\"name\": \"p\", \"driver\": \"pgsql\", \"standby_name\": 1}]}",
  };
  unsetenv("BMK_UNIT_UNSET");
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
  {
    assert_int_equal(load(bad[i]), 1);
    assert_int_equal(sb_endpoints_count(), 0);
  }
}

int main(void)
{
  int fd = mkstemp(path);
  if (fd < 0)
    return 1;
  close(fd);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_choices),
    cmocka_unit_test(test_least_lag),
    cmocka_unit_test(test_password_file),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_gtid_behind),
    cmocka_unit_test(test_standby_row),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  sb_endpoints_free();
  unlink(path);
  return rc;
}
