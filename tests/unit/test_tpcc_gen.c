/* Unit tests: TPC-C load rows (TPC-C clause 4.3; same rows for one seed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "datagen/sb_tpcc_gen.h"
#include "datagen/sb_tpcc_rand.h"

#define BUFSZ (1 << 20)

static sb_tpcc_unit_t unit(int set, int w, int d, int null_variant)
{
  sb_tpcc_unit_t u;
  memset(&u, 0, sizeof(u));
  u.seed = 42;
  u.set = set;
  u.w = w;
  u.d = d;
  u.c_load = 157;
  u.null_variant = null_variant;
  strcpy(u.load_time, "2026-01-02 03:04:05");
  return u;
}

/* All rows of table t as one text, batches of `batch` rows. */
static char *all_rows(sb_tpcc_gen_t *g, int t, int fmt, int batch, size_t *out_len)
{
  size_t cap = 64 << 20, len = 0;
  char *buf = malloc(cap);
  int n;
  do
  {
    size_t before = len;
    n = sb_tpcc_gen_rows(g, t, fmt, buf, cap, &len, batch);
    /* batches are separate statements: keep them apart with a newline */
    if (fmt == SB_TPCC_FMT_SQL && n > 0)
      buf[len++] = '\n';
    (void) before;
  } while (n > 0);
  buf[len] = '\0';
  *out_len = len;
  return buf;
}

/* Splits TSV text into rows and calls fn(fields, nfields, arg). */
static int each_row(char *text, void (*fn)(char **f, int n, void *arg), void *arg)
{
  int rows = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
  {
    char *f[32];
    int n = 0;
    char *p = line;
    f[n++] = p;
    while ((p = strchr(p, '\t')) != NULL && n < 32)
    {
      *p++ = '\0';
      f[n++] = p;
    }
    fn(f, n, arg);
    rows++;
  }
  return rows;
}

static void count_original(char **f, int n, void *arg)
{
  int *c = arg;
  if (strstr(f[n - 1], "ORIGINAL"))
    (*c)++;
}

static void test_item_unit(void **state)
{
  (void) state;
  sb_tpcc_unit_t u = unit(1, 0, -1, 1);
  sb_tpcc_gen_t *g = sb_tpcc_gen_new(&u);
  assert_non_null(g);
  assert_int_equal(sb_tpcc_gen_total(g, SB_TPCC_ITEM), 100000);
  assert_int_equal(sb_tpcc_gen_total(g, SB_TPCC_STOCK), 0);
  size_t len;
  char *t = all_rows(g, SB_TPCC_ITEM, SB_TPCC_FMT_TSV, 1000, &len);
  int orig = 0;
  assert_int_equal(each_row(t, count_original, &orig), 100000);
  assert_int_equal(orig, 10000);
  assert_int_equal(sb_tpcc_gen_left(g, SB_TPCC_ITEM), 0);
  free(t);
  sb_tpcc_gen_free(g);
}

static void test_warehouse_unit(void **state)
{
  (void) state;
  sb_tpcc_unit_t u = unit(2, 3, 0, 1);
  sb_tpcc_gen_t *g = sb_tpcc_gen_new(&u);
  size_t len;
  char *t = all_rows(g, SB_TPCC_WAREHOUSE, SB_TPCC_FMT_SQL, 10, &len);
  /* w_id, name, 3 address strings, state, zip, tax, ytd */
  assert_true(strncmp(t, "(3,'", 4) == 0);
  assert_non_null(strstr(t, "11111',0."));
  assert_non_null(strstr(t, ",300000.00)"));
  free(t);
  t = all_rows(g, SB_TPCC_DISTRICT, SB_TPCC_FMT_TSV, 100, &len);
  int rows = 0;
  for (char *p = t; *p; p++)
    rows += *p == '\n';
  assert_int_equal(rows, 10);
  assert_non_null(strstr(t, "\t30000.00\t3001\n"));
  free(t);
  t = all_rows(g, SB_TPCC_STOCK, SB_TPCC_FMT_TSV, 5000, &len);
  int orig = 0;
  assert_int_equal(each_row(t, count_original, &orig), 100000);
  assert_int_equal(orig, 10000);
  free(t);
  sb_tpcc_gen_free(g);
}

struct cust_check {
  int rows, bc;
  int bad_last;
};

static void check_customer(char **f, int n, void *arg)
{
  struct cust_check *c = arg;
  assert_int_equal(n, 21);
  int id = atoi(f[0]);
  c->rows++;
  c->bc += strcmp(f[13], "BC") == 0;
  if (id <= 1000)
  {
    char buf[SB_TPCC_LASTNAME_MAX + 1];
    sb_tpcc_lastname(id - 1, buf);
    c->bad_last += strcmp(buf, f[5]) != 0;
  }
  size_t data = strlen(f[20]);
  assert_in_range(data, 300, 500);
  int64_t disc = sb_tpcc_parse_fixed(f[15], strlen(f[15]), 4, NULL);
  assert_in_range(disc, 0, 5000);
  assert_string_equal(f[16], "-10.00");
  assert_string_equal(f[17], "10.00");
  assert_string_equal(f[12], "2026-01-02 03:04:05");
}

struct orders_check {
  char seen[3001];
  int rows, null_carrier;
  long ol_cnt_sum;
};

static void check_orders(char **f, int n, void *arg)
{
  struct orders_check *o = arg;
  assert_int_equal(n, 8);
  int id = atoi(f[0]), c = atoi(f[3]);
  assert_in_range(c, 1, 3000);
  assert_false(o->seen[c]);
  o->seen[c] = 1;
  o->rows++;
  if (id >= 2101)
  {
    assert_string_equal(f[5], "\\N");
    o->null_carrier++;
  }
  else
    assert_in_range(atoi(f[5]), 1, 10);
  o->ol_cnt_sum += atoi(f[6]);
}

struct ol_check {
  long rows;
  int zero_amount_delivered, bad;
};

static void check_order_line(char **f, int n, void *arg)
{
  struct ol_check *o = arg;
  assert_int_equal(n, 10);
  o->rows++;
  int oid = atoi(f[0]);
  bool zero = strcmp(f[8], "0.00") == 0;
  if (oid < 2101)
  {
    o->zero_amount_delivered += zero;
    o->bad += strcmp(f[6], "2026-01-02 03:04:05") != 0;
  }
  else
    o->bad += zero || strcmp(f[6], "\\N") != 0;
}

static void test_district_unit(void **state)
{
  (void) state;
  sb_tpcc_unit_t u = unit(1, 2, 7, 1);
  sb_tpcc_gen_t *g = sb_tpcc_gen_new(&u);
  size_t len;
  char *t = all_rows(g, SB_TPCC_CUSTOMER, SB_TPCC_FMT_TSV, 333, &len);
  struct cust_check cc = { 0, 0, 0 };
  each_row(t, check_customer, &cc);
  assert_int_equal(cc.rows, 3000);
  assert_int_equal(cc.bc, 300);
  assert_int_equal(cc.bad_last, 0);
  free(t);

  t = all_rows(g, SB_TPCC_HISTORY, SB_TPCC_FMT_TSV, 1000, &len);
  assert_true(strncmp(t, "1\t7\t2\t7\t2\t2026-01-02 03:04:05\t10.00\t", 36) == 0);
  free(t);

  static struct orders_check oc;
  memset(&oc, 0, sizeof(oc));
  t = all_rows(g, SB_TPCC_ORDERS, SB_TPCC_FMT_TSV, 1000, &len);
  each_row(t, check_orders, &oc);
  assert_int_equal(oc.rows, 3000);
  assert_int_equal(oc.null_carrier, 900);
  free(t);

  assert_int_equal(sb_tpcc_gen_total(g, SB_TPCC_NEW_ORDERS), 900);
  assert_int_equal(sb_tpcc_gen_total(g, SB_TPCC_ORDER_LINE), oc.ol_cnt_sum);
  t = all_rows(g, SB_TPCC_NEW_ORDERS, SB_TPCC_FMT_TSV, 1000, &len);
  assert_true(strncmp(t, "2101\t7\t2\n", 9) == 0);
  free(t);

  struct ol_check olc = { 0, 0, 0 };
  t = all_rows(g, SB_TPCC_ORDER_LINE, SB_TPCC_FMT_TSV, 777, &len);
  each_row(t, check_order_line, &olc);
  assert_int_equal(olc.rows, oc.ol_cnt_sum);
  assert_int_equal(olc.bad, 0);
  assert_true(olc.zero_amount_delivered > 0);
  free(t);
  sb_tpcc_gen_free(g);
}

static void test_default_variant(void **state)
{
  (void) state;
  sb_tpcc_unit_t u = unit(1, 1, 1, 0);
  sb_tpcc_gen_t *g = sb_tpcc_gen_new(&u);
  size_t len;
  char *t = all_rows(g, SB_TPCC_ORDERS, SB_TPCC_FMT_SQL, 3000, &len);
  assert_null(strstr(t, ",NULL"));
  assert_non_null(strstr(t, "(2101,1,1,"));
  free(t);
  t = all_rows(g, SB_TPCC_ORDER_LINE, SB_TPCC_FMT_SQL, 100000, &len);
  assert_null(strstr(t, ",NULL"));
  assert_non_null(strstr(t, "'2000-01-01 00:00:00',5,"));
  free(t);
  sb_tpcc_gen_free(g);
}

/* Same unit, different batch sizes and a fresh generator: same bytes. */
static void test_determinism(void **state)
{
  (void) state;
  sb_tpcc_unit_t u = unit(3, 5, 4, 1);
  sb_tpcc_gen_t *a = sb_tpcc_gen_new(&u), *b = sb_tpcc_gen_new(&u);
  size_t la, lb;
  char *ta = all_rows(a, SB_TPCC_ORDER_LINE, SB_TPCC_FMT_TSV, 1, &la);
  char *tb = all_rows(b, SB_TPCC_ORDER_LINE, SB_TPCC_FMT_TSV, 5000, &lb);
  assert_int_equal(la, lb);
  assert_memory_equal(ta, tb, la);
  free(ta);
  free(tb);
  /* another district differs */
  sb_tpcc_unit_t v = unit(3, 5, 5, 1);
  sb_tpcc_gen_t *c = sb_tpcc_gen_new(&v);
  ta = all_rows(a, SB_TPCC_CUSTOMER, SB_TPCC_FMT_TSV, 3000, &la);
  tb = all_rows(c, SB_TPCC_CUSTOMER, SB_TPCC_FMT_TSV, 3000, &lb);
  assert_true(la != lb || memcmp(ta, tb, la) != 0);
  free(ta);
  free(tb);
  sb_tpcc_gen_free(a);
  sb_tpcc_gen_free(b);
  sb_tpcc_gen_free(c);
}

static void test_bad_units_and_small_buffers(void **state)
{
  (void) state;
  sb_tpcc_unit_t u = unit(0, 1, 1, 1);
  assert_null(sb_tpcc_gen_new(&u));
  u = unit(1, 1, 11, 1);
  assert_null(sb_tpcc_gen_new(&u));
  u = unit(1, 1, 1, 1);
  sb_tpcc_gen_t *g = sb_tpcc_gen_new(&u);
  char small[100];
  size_t len = 0;
  assert_int_equal(sb_tpcc_gen_rows(g, SB_TPCC_CUSTOMER, 0, small, sizeof(small), &len, 10), 0);
  assert_int_equal(len, 0);
  assert_int_equal(sb_tpcc_gen_rows(g, SB_TPCC_STOCK, 0, small, sizeof(small), &len, 10), 0);
  assert_string_equal(sb_tpcc_gen_columns(SB_TPCC_NEW_ORDERS), "no_o_id,no_d_id,no_w_id");
  assert_string_equal(sb_tpcc_table_name(SB_TPCC_ORDER_LINE), "order_line");
  assert_string_equal(sb_tpcc_table_name(99), "");
  sb_tpcc_gen_free(g);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_item_unit),
    cmocka_unit_test(test_warehouse_unit),
    cmocka_unit_test(test_district_unit),
    cmocka_unit_test(test_default_variant),
    cmocka_unit_test(test_determinism),
    cmocka_unit_test(test_bad_units_and_small_buffers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
