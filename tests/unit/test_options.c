/* Unit tests: option parsing (sysbench 1.1's rules). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sb_options.h"

static void test_parse_bool(void **state)
{
  (void) state;
  bool b;
  const char *yes[] = { "on", "ON", "true", "True", "1" };
  const char *no[] = { "off", "OFF", "false", "FALSE", "0" };
  for (unsigned i = 0; i < 5; i++)
  {
    assert_int_equal(sb_parse_bool(yes[i], &b), 0);
    assert_true(b);
    assert_int_equal(sb_parse_bool(no[i], &b), 0);
    assert_false(b);
  }
  assert_int_equal(sb_parse_bool("5", &b), -1);
  assert_int_equal(sb_parse_bool("yes", &b), -1);
  assert_int_equal(sb_parse_bool("", &b), -1);
}

static void test_parse_size(void **state)
{
  (void) state;
  uint64_t v;
  assert_int_equal(sb_parse_size("64", &v), 0);
  assert_int_equal(v, 64);
  assert_int_equal(sb_parse_size("64K", &v), 0);
  assert_int_equal(v, 65536);
  assert_int_equal(sb_parse_size("2g", &v), 0);
  assert_int_equal(v, 2ULL << 30);
  assert_int_equal(sb_parse_size("1T", &v), 0);
  assert_int_equal(v, 1ULL << 40);
  assert_int_equal(sb_parse_size("16KiB", &v), 0);
  assert_int_equal(v, 16384);
  assert_int_equal(sb_parse_size("1MB", &v), 0);
  assert_int_equal(v, 1 << 20);
  assert_int_equal(sb_parse_size("100B", &v), 0);
  assert_int_equal(v, 100);
  assert_int_equal(sb_parse_size("10X", &v), -1);
  assert_int_equal(sb_parse_size("K", &v), -1);
  assert_int_equal(sb_parse_size("-1", &v), -1);
}

static void test_parse_int_double(void **state)
{
  (void) state;
  int i;
  double d;
  assert_int_equal(sb_parse_int("42", &i), 0);
  assert_int_equal(i, 42);
  assert_int_equal(sb_parse_int("-7", &i), 0);
  assert_int_equal(i, -7);
  assert_int_equal(sb_parse_int("4x", &i), -1);
  assert_int_equal(sb_parse_int("99999999999", &i), -1);
  assert_int_equal(sb_parse_double("0.5", &d), 0);
  assert_true(d == 0.5);
  assert_int_equal(sb_parse_double("1e3", &d), 0);
  assert_true(d == 1000.0);
  assert_int_equal(sb_parse_double("abc", &d), -1);
}

static int setup(void **state)
{
  (void) state;
  sb_opt_init();
  return 0;
}

static int teardown(void **state)
{
  (void) state;
  sb_opt_done();
  return 0;
}

static void parse(int argc, const char **argv)
{
  char *pos[8];
  unsigned npos;
  assert_int_equal(sb_opt_parse_argv(argc, (char **) argv, pos, 8, &npos), 0);
}

static void test_dash_underscore_last_wins(void **state)
{
  (void) state;
  const char *argv[] = { "bmk", "--table-size=5", "oltp", "--table_size=7", "run",
                         "--skip-trx", "--my_list=a,,b,", "--str=" };
  char *pos[8];
  unsigned npos;
  assert_int_equal(sb_opt_parse_argv(8, (char **) argv, pos, 8, &npos), 0);
  assert_int_equal(npos, 2);
  assert_string_equal(pos[0], "oltp");
  assert_string_equal(pos[1], "run");
  assert_int_equal(sb_opt_register("table_size", "rows", "10000", SB_ARG_TYPE_INT, SB_GROUP_TEST, NULL), 0);
  assert_int_equal(sb_opt_int("table-size"), 7);
  assert_int_equal(sb_opt_register("skip_trx", "x", "off", SB_ARG_TYPE_BOOL, SB_GROUP_TEST, NULL), 0);
  assert_true(sb_opt_bool("skip_trx"));
  assert_int_equal(sb_opt_register("my-list", "x", "", SB_ARG_TYPE_LIST, SB_GROUP_TEST, NULL), 0);
  unsigned n;
  char **items = sb_opt_list("my_list", &n);
  assert_int_equal(n, 2);
  assert_string_equal(items[0], "a");
  assert_string_equal(items[1], "b");
  assert_int_equal(sb_opt_register("str", "x", "dflt", SB_ARG_TYPE_STRING, SB_GROUP_TEST, NULL), 0);
  assert_null(sb_opt_str("str"));
  assert_int_equal(sb_opt_check_unknown(), 0);
}

static void test_bad_bool_and_int(void **state)
{
  (void) state;
  const char *argv[] = { "bmk", "--flag=5", "--num=abc" };
  parse(3, argv);
  assert_int_equal(sb_opt_register("flag", "x", "off", SB_ARG_TYPE_BOOL, SB_GROUP_TEST, NULL), -1);
  assert_int_equal(sb_opt_register("num", "x", "1", SB_ARG_TYPE_INT, SB_GROUP_TEST, NULL), -1);
}

static void test_unknown_option(void **state)
{
  (void) state;
  const char *argv[] = { "bmk", "--x=3" };
  parse(2, argv);
  sb_opt_register("threads", "t", "1", SB_ARG_TYPE_INT, SB_GROUP_GENERAL, NULL);
  assert_int_equal(sb_opt_check_unknown(), -1);
}

static void test_size_suffix_option(void **state)
{
  (void) state;
  const char *argv[] = { "bmk", "--stack=128k" };
  parse(2, argv);
  assert_int_equal(sb_opt_register("stack", "s", "64K", SB_ARG_TYPE_SIZE, SB_GROUP_GENERAL, NULL), 0);
  assert_int_equal(sb_opt_size("stack"), 131072);
}

static void test_config_file_precedence(void **state)
{
  (void) state;
  char path[] = "/tmp/bmk-test-config-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *text =
    "threads = 4   # a comment\n"
    "table_size=100\n"
    "name='quoted # not a comment'\n"
    "list_opt=1,2,3\n"
    "no equals sign here\n"
    "unknown_thing=1\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
  close(fd);
  char arg[64];
  snprintf(arg, sizeof(arg), "--config-file=%s", path);
  const char *argv[] = { "bmk", "--table-size=5", arg };
  parse(3, argv);
  sb_opt_register("threads", "t", "1", SB_ARG_TYPE_INT, SB_GROUP_GENERAL, NULL);
  sb_opt_register("table_size", "t", "10000", SB_ARG_TYPE_INT, SB_GROUP_TEST, NULL);
  sb_opt_register("name", "t", NULL, SB_ARG_TYPE_STRING, SB_GROUP_TEST, NULL);
  sb_opt_register("list_opt", "t", "", SB_ARG_TYPE_LIST, SB_GROUP_TEST, NULL);
  sb_opt_register("config_file", "t", NULL, SB_ARG_TYPE_FILE, SB_GROUP_GENERAL, NULL);
  assert_int_equal(sb_opt_int("threads"), 4);          /* from the file */
  assert_int_equal(sb_opt_int("table_size"), 5);       /* command line wins */
  assert_string_equal(sb_opt_str("name"), "quoted # not a comment");
  unsigned n;
  sb_opt_list("list_opt", &n);
  assert_int_equal(n, 3);
  /* Unknown names in the file only warn. */
  assert_int_equal(sb_opt_check_unknown(), 0);
  unlink(path);
}

static void test_config_unterminated_quote(void **state)
{
  (void) state;
  char path[] = "/tmp/bmk-test-config-XXXXXX";
  int fd = mkstemp(path);
  const char *text = "a=1\nname='oops\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
  close(fd);
  assert_int_equal(sb_opt_read_config(path), -1);
  unlink(path);
}

static void test_core_wins_over_redeclaration(void **state)
{
  (void) state;
  assert_int_equal(sb_opt_register("sync-file", "core", "", SB_ARG_TYPE_STRING, SB_GROUP_EXT_GENERAL, NULL), 0);
  assert_int_equal(sb_opt_register("sync_file", "script", "x", SB_ARG_TYPE_STRING, SB_GROUP_TEST, NULL), 0);
  sb_opt_t *o = sb_opt_find("sync_file");
  assert_non_null(o);
  assert_string_equal(o->desc, "core");
  assert_int_equal(o->group, SB_GROUP_EXT_GENERAL);
}

static void test_help_layout(void **state)
{
  (void) state;
  sb_opt_register("threads", "number of threads to use", "1", SB_ARG_TYPE_INT, SB_GROUP_GENERAL, NULL);
  sb_opt_register("report-checkpoints", "dump", "", SB_ARG_TYPE_LIST, SB_GROUP_GENERAL, NULL);
  sb_opt_register("config-file", "File containing command line options", NULL, SB_ARG_TYPE_FILE, SB_GROUP_GENERAL, NULL);
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  FILE *saved = stdout;
  stdout = mem;
  sb_opt_print_group(SB_GROUP_GENERAL, NULL, false);
  fflush(mem);
  stdout = saved;
  fclose(mem);
  assert_string_equal(buf,
    "  --threads=N                     number of threads to use [1]\n"
    "  --report-checkpoints=[LIST,...] dump []\n"
    "  --config-file=FILENAME          File containing command line options\n");
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_bool),
    cmocka_unit_test(test_parse_size),
    cmocka_unit_test(test_parse_int_double),
    cmocka_unit_test_setup_teardown(test_dash_underscore_last_wins, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_bool_and_int, setup, teardown),
    cmocka_unit_test_setup_teardown(test_unknown_option, setup, teardown),
    cmocka_unit_test_setup_teardown(test_size_suffix_option, setup, teardown),
    cmocka_unit_test_setup_teardown(test_config_file_precedence, setup, teardown),
    cmocka_unit_test_setup_teardown(test_config_unterminated_quote, setup, teardown),
    cmocka_unit_test_setup_teardown(test_core_wins_over_redeclaration, setup, teardown),
    cmocka_unit_test_setup_teardown(test_help_layout, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
