/* Unit tests: the event loop's timer queue (sb_timerq.c), the VU-to-worker
   plan (sb_vuplan.c) and the grouped counter slots (sb_counter.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sb_counter.h"
#include "core/sb_rand.h"
#include "engine/sb_timerq.h"
#include "engine/sb_vuplan.h"

/* ---- timer queue ---- */

static void test_tq_order_and_fifo(void **state)
{
  (void) state;
  sb_timerq_t q;
  assert_int_equal(sb_tq_init(&q, 2), 0);   /* small: forces growth */
  sb_tq_ent_t e[8];
  const uint64_t due[8] = { 50, 10, 30, 10, 70, 20, 10, 60 };
  for (int i = 0; i < 8; i++)
  {
    sb_tq_ent_init(&e[i]);
    assert_false(sb_tq_armed(&e[i]));
    assert_int_equal(sb_tq_arm(&q, &e[i], due[i]), 0);
    assert_true(sb_tq_armed(&e[i]));
  }
  assert_int_equal(sb_tq_size(&q), 8);
  assert_null(sb_tq_pop_due(&q, 9));       /* nothing due yet */
  /* equal times come out in insertion order: e1, e3, e6 */
  const int want[8] = { 1, 3, 6, 5, 2, 0, 7, 4 };
  for (int i = 0; i < 8; i++)
  {
    sb_tq_ent_t *x = sb_tq_pop_due(&q, 1000);
    assert_ptr_equal(x, &e[want[i]]);
    assert_false(sb_tq_armed(x));
  }
  assert_null(sb_tq_first(&q));
  sb_tq_free(&q);
}

static void test_tq_cancel_and_rearm(void **state)
{
  (void) state;
  sb_timerq_t q;
  sb_tq_init(&q, 4);
  sb_tq_ent_t e[5];
  for (int i = 0; i < 5; i++)
  {
    sb_tq_ent_init(&e[i]);
    sb_tq_arm(&q, &e[i], (uint64_t) (i + 1) * 10);
  }
  sb_tq_cancel(&q, &e[0]);                 /* the head */
  sb_tq_cancel(&q, &e[3]);                 /* the middle */
  sb_tq_cancel(&q, &e[3]);                 /* twice: no-op */
  assert_int_equal(sb_tq_size(&q), 3);
  sb_tq_arm(&q, &e[4], 5);                 /* re-arm earlier */
  sb_tq_arm(&q, &e[1], 100);               /* re-arm later */
  assert_int_equal(sb_tq_size(&q), 3);
  assert_ptr_equal(sb_tq_pop_due(&q, 1000), &e[4]);
  assert_ptr_equal(sb_tq_pop_due(&q, 1000), &e[2]);
  assert_ptr_equal(sb_tq_pop_due(&q, 99), NULL);
  assert_ptr_equal(sb_tq_pop_due(&q, 100), &e[1]);
  assert_int_equal(sb_tq_size(&q), 0);
  sb_tq_free(&q);
}

/* Many random operations against a brute-force model. */
static void test_tq_random_against_model(void **state)
{
  (void) state;
  enum { N = 300 };
  sb_timerq_t q;
  sb_tq_init(&q, 1);
  sb_tq_ent_t e[N];
  bool armed[N];
  uint64_t when[N], seq[N], next_seq = 0;
  for (int i = 0; i < N; i++)
  {
    sb_tq_ent_init(&e[i]);
    armed[i] = false;
  }
  sb_rand_params_t p = { .dist = SB_RAND_UNIFORM, .seed = 7, .spec_iter = 12 };
  sb_rand_init(&p);
  for (int round = 0; round < 20000; round++)
  {
    int i = (int) sb_rand_uniform(0, N - 1);
    uint32_t op = sb_rand_uniform(0, 2);
    if (op == 0)
    {
      when[i] = sb_rand_uniform(0, 1000);
      seq[i] = next_seq++;
      armed[i] = true;
      sb_tq_arm(&q, &e[i], when[i]);
    }
    else if (op == 1)
    {
      armed[i] = false;
      sb_tq_cancel(&q, &e[i]);
    }
    else
    {
      /* pop the model's earliest (time, then arming order) */
      int best = -1;
      for (int k = 0; k < N; k++)
        if (armed[k] && (best < 0 || when[k] < when[best] ||
                         (when[k] == when[best] && seq[k] < seq[best])))
          best = k;
      sb_tq_ent_t *x = sb_tq_pop_due(&q, UINT64_MAX);
      if (best < 0)
        assert_null(x);
      else
      {
        assert_ptr_equal(x, &e[best]);
        armed[best] = false;
      }
    }
    uint32_t n = 0;
    for (int k = 0; k < N; k++)
      n += armed[k];
    assert_int_equal(sb_tq_size(&q), n);
  }
  sb_tq_free(&q);
}

/* ---- VU plan ---- */

static int plan(unsigned threads, const char *workers, bool given, const char *as,
                unsigned terminals, unsigned ncpu, sb_plan_t *out, char *err)
{
  sb_plan_in_t in = { .threads = threads, .workers = workers, .workers_given = given,
                      .async_sessions = as, .terminals = terminals, .ncpu = ncpu };
  return sb_plan_resolve(&in, out, err, 256);
}

/* auto with the mysql driver's threshold (SB_PLAN_EVENT_MIN_VUS_MYSQL) */
static int plan_mysql(unsigned threads, unsigned ncpu, sb_plan_t *out, char *err)
{
  sb_plan_in_t in = { .threads = threads, .workers = "auto", .async_sessions = "1",
                      .event_min_vus = SB_PLAN_EVENT_MIN_VUS_MYSQL, .ncpu = ncpu };
  return sb_plan_resolve(&in, out, err, 256);
}

static void test_plan_auto(void **state)
{
  (void) state;
  sb_plan_t p;
  char err[256];
  /* below SB_PLAN_EVENT_MIN_VUS (16): one thread per VU */
  assert_int_equal(plan(15, "auto", false, "1", 0, 2, &p, err), 0);
  assert_int_equal(p.vus, 15);
  assert_int_equal(p.workers, 15);
  assert_false(p.event_mode);
  assert_int_equal(plan(1, NULL, false, NULL, 0, 2, &p, err), 0);
  assert_int_equal(p.workers, 1);
  assert_false(p.event_mode);
  /* from 16 VUs the event loop on one worker per CPU */
  assert_int_equal(plan(16, "auto", false, "1", 0, 2, &p, err), 0);
  assert_true(p.event_mode);
  assert_int_equal(p.workers, 2);
  assert_int_equal(plan(64, "auto", false, "1", 0, 2, &p, err), 0);
  assert_int_equal(p.workers, 2);
  assert_int_equal(plan(1025, "auto", false, "1", 0, 2, &p, err), 0);
  assert_int_equal(p.workers, 2);
  assert_int_equal(plan(1025, "auto", false, "1", 0, 1, &p, err), 0);
  assert_int_equal(p.workers, 1);
  assert_true(p.event_mode);
  assert_int_equal(plan(300, NULL, false, NULL, 0, 8, &p, err), 0);
  assert_int_equal(p.workers, 8);
  /* never more workers than VUs: 16 VUs on a 64-CPU machine, 16 workers */
  assert_int_equal(plan(16, NULL, false, NULL, 0, 64, &p, err), 0);
  assert_int_equal(p.workers, 16);
  assert_false(p.event_mode);
  assert_int_equal(plan(20000, NULL, false, NULL, 0, 8, &p, err), 0);
  assert_int_equal(p.workers, 8);
  /* the mysql driver: threads below 64 VUs */
  assert_int_equal(plan_mysql(63, 2, &p, err), 0);
  assert_int_equal(p.workers, 63);
  assert_false(p.event_mode);
  assert_int_equal(plan_mysql(64, 2, &p, err), 0);
  assert_int_equal(p.workers, 2);
  assert_true(p.event_mode);
  /* asked for: one thread per VU stays available */
  assert_int_equal(plan(64, "64", true, "1", 0, 2, &p, err), 0);
  assert_int_equal(p.workers, 64);
  assert_false(p.event_mode);
  assert_int_equal(plan(300, "threads", true, "1", 0, 2, &p, err), 0);
  assert_int_equal(p.workers, 300);
  assert_false(p.event_mode);
  assert_int_equal(plan(4, "threads", true, "2", 0, 2, &p, err), -1);   /* 8 VUs on 4 */
  /* built-in tests (own work): one thread per VU up to 1,024 */
  sb_plan_in_t in = { .threads = 1024, .workers = "auto", .own_work = true, .ncpu = 2 };
  assert_int_equal(sb_plan_resolve(&in, &p, err, 256), 0);
  assert_int_equal(p.workers, 1024);
  assert_false(p.event_mode);
  in.threads = 1025;
  assert_int_equal(sb_plan_resolve(&in, &p, err, 256), 0);
  assert_int_equal(p.workers, 2);
  assert_true(p.event_mode);
}

static void test_plan_explicit_and_errors(void **state)
{
  (void) state;
  sb_plan_t p;
  char err[256];
  assert_int_equal(plan(64, "2", true, "1", 0, 2, &p, err), 0);
  assert_int_equal(p.workers, 2);
  assert_true(p.event_mode);
  assert_int_equal(plan(64, "64", true, "1", 0, 2, &p, err), 0);
  assert_false(p.event_mode);
  assert_int_equal(plan(64, "0", true, "1", 0, 2, &p, err), -1);
  assert_non_null(strstr(err, "--workers"));
  assert_int_equal(plan(4, "8", true, "1", 0, 2, &p, err), -1);
  assert_non_null(strstr(err, "more than --threads=4"));
  assert_int_equal(plan(4, "x", true, "1", 0, 2, &p, err), -1);
  assert_int_equal(plan(4, "auto", false, "0", 0, 2, &p, err), -1);
  assert_non_null(strstr(err, "--async-sessions"));
}

static void test_plan_async_sessions(void **state)
{
  (void) state;
  sb_plan_t p;
  char err[256];
  assert_int_equal(plan(4, "auto", false, "10", 0, 2, &p, err), 0);
  assert_int_equal(p.vus, 40);
  assert_int_equal(p.workers, 4);
  assert_true(p.event_mode);
  assert_int_equal(plan(4, "4", true, "10", 0, 2, &p, err), 0);
  assert_int_equal(plan(4, "2", true, "10", 0, 2, &p, err), -1);
  /* auto: one session per terminal over the --threads workers */
  assert_int_equal(plan(3, "auto", false, "auto", 20, 2, &p, err), 0);
  assert_int_equal(p.vus, 20);
  assert_int_equal(p.workers, 3);
  assert_true(p.event_mode);
  assert_int_equal(plan(8, "auto", false, "auto", 5, 2, &p, err), 0);
  assert_int_equal(p.vus, 5);
  assert_int_equal(p.workers, 5);
  assert_false(p.event_mode);
  assert_int_equal(plan(3, "auto", false, "auto", 0, 2, &p, err), -1);
  assert_non_null(strstr(err, "--terminals-per-warehouse"));
}

static void test_plan_mapping(void **state)
{
  (void) state;
  /* 10 VUs on 3 workers: 4, 3, 3; every VU exactly once */
  unsigned seen[10] = { 0 }, total = 0;
  for (unsigned w = 0; w < 3; w++)
  {
    unsigned n = sb_plan_vus_of_worker(w, 10, 3);
    assert_int_equal(n, w == 0 ? 4 : 3);
    for (unsigned m = 0; m < n; m++)
    {
      unsigned tid = w + m * 3;
      assert_int_equal(sb_plan_worker_of(tid, 3), w);
      assert_int_equal(sb_plan_index_in_worker(tid, 3), m);
      seen[tid]++;
      total++;
    }
  }
  assert_int_equal(total, 10);
  for (int i = 0; i < 10; i++)
    assert_int_equal(seen[i], 1);
  assert_int_equal(sb_plan_login_offset_ns(0, 1000), 0);
  assert_int_equal(sb_plan_login_offset_ns(3, 1000), 3000000000ULL);
  assert_int_equal(sb_plan_login_offset_ns(3, 0), 0);
  assert_int_equal(sb_plan_fds_needed(100), 100 + SB_PLAN_FD_RESERVE);
}

/* ---- grouped counters ---- */

static void test_counters_grouped(void **state)
{
  (void) state;
  assert_int_equal(sb_counters_init_grouped(10, 3), 0);
  assert_int_equal(sb_counters_slots(), 4);
  for (int tid = 0; tid < 10; tid++)
    sb_counter_inc(tid, SB_CNT_READ);
  sb_counter_inc(-1, SB_CNT_READ);           /* main thread: the spare */
  sb_counter_inc(SB_TID_UNCOUNTED, SB_CNT_READ);
  assert_int_equal(sb_counter_val(0, SB_CNT_READ), 4);   /* 0, 3, 6, 9 */
  assert_int_equal(sb_counter_val(1, SB_CNT_READ), 3);
  assert_int_equal(sb_counter_val(5, SB_CNT_READ), 3);   /* slot 2 */
  assert_int_equal(sb_counter_val(-1, SB_CNT_READ), 1);
  sb_counters_t all;
  sb_counters_snapshot(&all);
  assert_int_equal(all.v[SB_CNT_READ], 11);
  /* ungrouped: one slot per thread id */
  assert_int_equal(sb_counters_init(4), 0);
  sb_counter_inc(3, SB_CNT_WRITE);
  assert_int_equal(sb_counter_val(3, SB_CNT_WRITE), 1);
  assert_int_equal(sb_counter_val(2, SB_CNT_WRITE), 0);
  sb_counters_done();
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tq_order_and_fifo),
    cmocka_unit_test(test_tq_cancel_and_rearm),
    cmocka_unit_test(test_tq_random_against_model),
    cmocka_unit_test(test_plan_auto),
    cmocka_unit_test(test_plan_explicit_and_errors),
    cmocka_unit_test(test_plan_async_sessions),
    cmocka_unit_test(test_plan_mapping),
    cmocka_unit_test(test_counters_grouped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
