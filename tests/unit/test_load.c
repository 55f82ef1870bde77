/* Unit tests: the fast-load text format and the generic load layer
   (src/drivers/db_load.c) against a recording driver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sb_counter.h"
#include "drivers/db_driver.h"
#include "drivers/db_load.h"

/* ---- a driver that records what it is given -------------------------- */

static char sent[65536];          /* every byte handed to load_send */
static size_t sent_len;
static unsigned sends, starts, ends, aborts;
static char started_cols[256];
static bool statement_per_send;   /* mysql-like: each send is a statement */
static int fail_send_at;          /* 1-based send that fails, 0 = none */

static int rec_start(db_conn_t *con, const char *table, const char *cols)
{
  (void) con;
  (void) table;
  starts++;
  snprintf(started_cols, sizeof(started_cols), "%s", cols);
  return 0;
}

static unsigned count_rows(const char *d, size_t len)
{
  unsigned n = 0;
  for (size_t i = 0; i < len; i++)
    n += d[i] == '\n';
  return n;
}

static int rec_send(db_conn_t *con, const char *data, size_t len, db_result_t *rs)
{
  sends++;
  if (fail_send_at && (int) sends == fail_send_at)
  {
    db_set_error(con, DB_ERROR_FATAL, 1, "HY000", "boom", "rec_send", "LOAD", 4);
    return -1;
  }
  /* only complete rows are ever handed over */
  assert_true(len == 0 || data[len - 1] == '\n');
  assert_non_null(data);
  memcpy(sent + sent_len, data, len);
  sent_len += len;
  if (!statement_per_send)
    return 0;
  rs->nrows = count_rows(data, len);
  rs->counter = rs->nrows ? SB_CNT_WRITE : SB_CNT_OTHER;
  return 1;
}

static int rec_end(db_conn_t *con, db_result_t *rs)
{
  (void) con;
  ends++;
  if (statement_per_send)
    return 0;
  rs->nrows = count_rows(sent, sent_len);
  rs->counter = SB_CNT_WRITE;
  return 1;
}

static void rec_abort(db_conn_t *con)
{
  (void) con;
  aborts++;
}

static void rec_free_results(db_result_t *rs)
{
  (void) rs;
}

static db_driver_t rec_driver = {
  .name = "rec",
  .ops = {
    .free_results = rec_free_results,
    .load_start = rec_start,
    .load_send = rec_send,
    .load_end = rec_end,
    .load_abort = rec_abort,
  },
  .load_chunk_bytes = 64,
};

static db_conn_t con;

static int setup(void **state)
{
  (void) state;
  memset(&con, 0, sizeof(con));
  con.driver = &rec_driver;
  con.thread_id = 0;
  sent_len = 0;
  sends = starts = ends = aborts = 0;
  statement_per_send = false;
  fail_send_at = 0;
  sb_counters_init(1);
  return 0;
}

static int teardown(void **state)
{
  (void) state;
  db_load_cancel(&con, NULL);
  free(con.err.msg);
  free(con.err.query);
  sb_counters_done();
  return 0;
}

static void test_escape(void **state)
{
  (void) state;
  const char src[] = "a\tb\nc\\d\re\0f";
  char dst[64];
  size_t n = db_load_escape(dst, src, sizeof(src) - 1);
  assert_int_equal(n, 16);
  assert_memory_equal(dst, "a\\tb\\nc\\\\d\\re\\0f", 16);
  assert_int_equal(db_load_escape(dst, "plain", 5), 5);
}

static void test_rows_format(void **state)
{
  (void) state;
  const char *cols[] = { "id", "s", "d", "n" };
  assert_int_equal(db_load_start(&con, "t", cols, 4), 0);
  assert_string_equal(started_cols, "id, s, d, n");
  assert_true(db_load_active(&con));
  assert_int_equal(db_load_int(&con, -42), 0);
  assert_int_equal(db_load_text(&con, "x\ty", 3), 0);
  assert_int_equal(db_load_double(&con, 0.5), 0);
  assert_int_equal(db_load_null(&con), 0);
  assert_int_equal(db_load_end_row(&con), 0);
  const char raw[] = "1\t\\N\t2\t3\n";
  assert_int_equal(db_load_rows(&con, raw, sizeof(raw) - 1), 0);
  uint64_t rows = 0;
  unsigned stmts = 0;
  assert_int_equal(db_load_finish(&con, &rows, &stmts), 0);
  assert_int_equal(rows, 2);
  assert_int_equal(stmts, 1);
  assert_false(db_load_active(&con));
  const char expect[] = "-42\tx\\ty\t0.5\t\\N\n1\t\\N\t2\t3\n";
  assert_int_equal(sent_len, sizeof(expect) - 1);
  assert_memory_equal(sent, expect, sent_len);
  assert_int_equal(sb_counter_val(0, SB_CNT_WRITE), 1);
}

/* Rows are handed over once a chunk (64 bytes here) is complete, never a
   partial row; a mysql-like driver runs one statement per piece. */
static void test_chunks(void **state)
{
  (void) state;
  statement_per_send = true;
  const char *cols[] = { "s" };
  assert_int_equal(db_load_start(&con, "t", cols, 1), 0);
  char v[30];
  memset(v, 'v', sizeof(v));
  for (int i = 0; i < 10; i++)
  {
    assert_int_equal(db_load_text(&con, v, sizeof(v)), 0);
    assert_int_equal(db_load_end_row(&con), 0);
  }
  uint64_t rows = 0;
  unsigned stmts = 0;
  assert_int_equal(db_load_finish(&con, &rows, &stmts), 0);
  assert_int_equal(rows, 10);
  /* 31-byte rows, sent when >= 64 bytes are complete: 3 pieces of 3 rows
     and the last row at finish */
  assert_int_equal(stmts, 4);
  assert_int_equal(sends, 4);
  assert_int_equal(sent_len, 310);
  assert_int_equal(sb_counter_val(0, SB_CNT_WRITE), 4);
}

/* An empty load is still one statement (a missing table must show). */
static void test_empty_load(void **state)
{
  (void) state;
  statement_per_send = true;
  const char *cols[] = { "a" };
  assert_int_equal(db_load_start(&con, "t", cols, 1), 0);
  uint64_t rows = 9;
  unsigned stmts = 9;
  assert_int_equal(db_load_finish(&con, &rows, &stmts), 0);
  assert_int_equal(rows, 0);
  assert_int_equal(stmts, 1);
  assert_int_equal(sends, 1);
  assert_int_equal(sb_counter_val(0, SB_CNT_OTHER), 1);
}

static void test_misuse(void **state)
{
  (void) state;
  const char *cols[] = { "a", "b" };
  assert_int_equal(db_load_int(&con, 1), -1);              /* no load */
  assert_int_equal(db_load_start(&con, "t", cols, 0), -1);  /* no columns */
  assert_int_equal(db_load_start(&con, "t", cols, 2), 0);
  assert_int_equal(db_load_start(&con, "t", cols, 2), -1);  /* one at a time */
  assert_int_equal(db_load_int(&con, 1), 0);
  assert_int_equal(db_load_end_row(&con), -1);              /* 1 of 2 values */
  assert_int_equal(db_load_rows(&con, "1\t2\n", 4), -1);    /* mid-row */
  assert_int_equal(db_load_finish(&con, NULL, NULL), -1);   /* incomplete row */
  assert_int_equal(db_load_int(&con, 2), 0);
  assert_int_equal(db_load_int(&con, 3), -1);               /* too many */
  assert_int_equal(db_load_end_row(&con), 0);
  assert_int_equal(db_load_rows(&con, "1\t2", 3), -1);      /* no newline */
  assert_int_equal(con.error, DB_ERROR_NONE);
  assert_int_equal(db_load_finish(&con, NULL, NULL), 0);
  assert_memory_equal(sent, "1\t2\n", 4);
}

/* A failed send ends the load: aborted, counted as nothing written. */
static void test_send_error(void **state)
{
  (void) state;
  statement_per_send = true;
  fail_send_at = 2;
  const char *cols[] = { "s" };
  assert_int_equal(db_load_start(&con, "t", cols, 1), 0);
  char v[70];
  memset(v, 'v', sizeof(v));
  assert_int_equal(db_load_text(&con, v, sizeof(v)), 0);
  assert_int_equal(db_load_end_row(&con), 0);               /* send 1 */
  assert_int_equal(db_load_text(&con, v, sizeof(v)), 0);
  assert_int_equal(db_load_end_row(&con), 1);               /* send 2 fails */
  assert_int_equal(con.error, DB_ERROR_FATAL);
  assert_string_equal(con.err.msg, "boom");
  assert_false(db_load_active(&con));
  assert_int_equal(aborts, 1);
  assert_int_equal(db_load_finish(&con, NULL, NULL), -1);   /* nothing left */
}

/* A query in the middle of a load cancels it (tested on the servers);
   here: cancel aborts the driver's load and forgets it. */
static void test_cancel(void **state)
{
  (void) state;
  const char *cols[] = { "a" };
  con.ptr = &con;                                           /* "connected" */
  assert_int_equal(db_load_start(&con, "t", cols, 1), 0);
  assert_int_equal(db_load_int(&con, 1), 0);
  db_load_cancel(&con, NULL);
  assert_int_equal(aborts, 1);
  assert_false(db_load_active(&con));
  con.ptr = NULL;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_escape, setup, teardown),
    cmocka_unit_test_setup_teardown(test_rows_format, setup, teardown),
    cmocka_unit_test_setup_teardown(test_chunks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_empty_load, setup, teardown),
    cmocka_unit_test_setup_teardown(test_misuse, setup, teardown),
    cmocka_unit_test_setup_teardown(test_send_error, setup, teardown),
    cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
