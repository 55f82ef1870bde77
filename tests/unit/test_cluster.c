/* Unit tests: a cluster run's arithmetic (core/sb_cluster.h: exact shares,
   global thread ids) and the coordinator's merge (results/
   sb_cluster_merge.h): stream lines parsed back exactly, an interval
   printed only once every process delivered it, counters summed and
   percentiles taken from the union of the histograms. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/sb_cluster.h"
#include "core/sb_histogram.h"
#include "commands/cluster/sb_cluster_merge.h"
#include "commands/cluster/sb_cluster_pack.h"
#include "results/sb_hdrlog.h"

static uint64_t lcg = 4242;
static uint64_t rnd64(void)
{
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg >> 11;
}

static void test_share(void **state)
{
  (void) state;
  const uint64_t totals[] = { 1, 5, 6, 7, 1000, 1001, 999999 };
  for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++)
    for (unsigned n = 1; n <= 7; n++)
    {
      uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
      for (unsigned i = 0; i < n; i++)
      {
        uint64_t s = sb_cluster_share(totals[t], i, n);
        sum += s;
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
      }
      assert_int_equal(sum, totals[t]);
      assert_true(hi - lo <= 1);
    }
  assert_int_equal(sb_cluster_share(7, 0, 3), 3);
  assert_int_equal(sb_cluster_share(7, 2, 3), 2);
}

static void test_global_tid(void **state)
{
  (void) state;
  sb_cluster_set(0, 1, 8);
  assert_int_equal(sb_cluster_global_tid(5), 5);
  sb_cluster_set(2, 3, 4);
  assert_int_equal(sb_cluster_index(), 2);
  assert_int_equal(sb_cluster_size(), 3);
  assert_int_equal(sb_cluster_global_tid(0), 8);
  assert_int_equal(sb_cluster_global_tid(3), 11);
  assert_int_equal(sb_cluster_global_tid(-1), -1);
  sb_cluster_set(0, 1, 1);
}

/* "bmkc iv ..." for interval k of a process with `events` values in h. */
static char *iv_line(long long k, uint64_t events, const sb_hdr_t *h)
{
  char *b64 = sb_hdr_encode_v2_base64(h), *line = NULL;
  assert_non_null(b64);
  assert_true(asprintf(&line, "bmkc iv %lld 1.000000 2 %llu 10 20 30 0 0 0 %s", k,
                       (unsigned long long) events, b64) > 0);
  free(b64);
  return line;
}

static sb_hdr_t *random_hist(uint64_t n, uint64_t spread_ns)
{
  sb_hdr_t *h = sb_hdr_new();
  for (uint64_t i = 0; i < n; i++)
    sb_hdr_record(h, 1000 + rnd64() % spread_ns);
  return h;
}

/* Notes: recorded once per distinct pair, malformed ones refused. */
static void collect(void *ctx, const char *key, const char *value)
{
  char *buf = ctx;
  size_t n = strlen(buf);
  snprintf(buf + n, 256 - n, "%s=%s;", key, value);
}

static void test_notes(void **state)
{
  (void) state;
  assert_int_equal(sb_cluster_note("homes", "1:2"), 0);
  assert_int_equal(sb_cluster_note("homes", "1:2"), 0);
  assert_int_equal(sb_cluster_note("homes", "1:4 x"), 0);
  assert_int_equal(sb_cluster_note("bad key", "1"), -1);
  assert_int_equal(sb_cluster_note("", "1"), -1);
  assert_int_equal(sb_cluster_note("k", "two\nlines"), -1);
  char buf[256] = "";
  sb_cluster_notes_each(collect, buf);
  assert_string_equal(buf, "homes=1:2;homes=1:4 x;");
  sb_cluster_msg_t m;
  char err[128];
  assert_int_equal(sb_cluster_parse("bmkc note homes 1:4 x", &m, err, sizeof(err)), 1);
  assert_string_equal(m.note_key, "homes");
  assert_string_equal(m.note_value, "1:4 x");
  assert_int_equal(sb_cluster_parse("bmkc note homes", &m, err, sizeof(err)), -1);
}

static void test_parse(void **state)
{
  (void) state;
  sb_cluster_msg_t m;
  char err[128];
  assert_int_equal(sb_cluster_parse("bmk 1.1.0 (using system LuaJIT)", &m, err, sizeof(err)), 0);
  assert_int_equal(sb_cluster_parse("bmkc ready 3 4711 1.1.0", &m, err, sizeof(err)), 1);
  assert_int_equal(m.kind, SB_CL_READY);
  assert_int_equal(m.index, 3);
  assert_int_equal(m.pid, 4711);
  assert_string_equal(m.version, "1.1.0");
  assert_false(m.generic);
  assert_int_equal(sb_cluster_parse("bmkc ready 0 1 1.1.0 generic", &m, err, sizeof(err)), 1);
  assert_true(m.generic);
  assert_int_equal(sb_cluster_parse("bmkc hb", &m, err, sizeof(err)), 1);
  assert_int_equal(m.kind, SB_CL_HB);
  assert_int_equal(sb_cluster_parse("bmkc pong 1795732470982954", &m, err, sizeof(err)), 1);
  assert_int_equal(m.pong_us, 1795732470982954ULL);
  assert_int_equal(sb_cluster_parse("bmkc iv 1 1.0 2 5", &m, err, sizeof(err)), -1);
  assert_int_equal(sb_cluster_parse("bmkc iv 1 1.0 2 5 1 1 1 0 0 0 notbase64!", &m, err,
                               sizeof(err)), -1);
  sb_hdr_t *h = random_hist(500, 50000000);
  char *line = iv_line(7, 500, h);
  assert_int_equal(sb_cluster_parse(line, &m, err, sizeof(err)), 1);
  assert_int_equal(m.kind, SB_CL_IV);
  assert_int_equal(m.k, 7);
  assert_int_equal(m.c.events, 500);
  assert_int_equal(m.c.other, 30);
  assert_int_equal(m.hist->total, 500);
  for (uint32_t i = 0; i < sb_hdr_counts_len(h); i++)
    assert_int_equal(sb_hdr_count_at(h, i), sb_hdr_count_at(m.hist, i));
  sb_cluster_msg_free(&m);
  free(line);
  sb_hdr_free(h);
}

/* Feeds process p's interval k to the merge. */
static void feed(sb_cluster_merge_t *mg, unsigned p, long long k, const sb_hdr_t *h)
{
  char *line = iv_line(k, h->total, h), err[128];
  sb_cluster_msg_t m;
  assert_int_equal(sb_cluster_parse(line, &m, err, sizeof(err)), 1);
  assert_int_equal(sb_cluster_merge_add(mg, p, &m), 0);
  sb_cluster_msg_free(&m);
  free(line);
}

/* A document packed for the stream comes back equal; a "bmkc doc" line
   parses into it; damaged text is refused with a reason. */
static void test_doc_pack(void **state)
{
  (void) state;
  json_t *doc = json_pack("{s:s,s:i,s:[{s:s,s:I}],s:f}", "format", "bmk-results",
                          "format_version", 1, "event_types", "name", "new_order", "events",
                          (json_int_t) 12345678901LL, "x", 0.125);
  char *packed = sb_cluster_pack(doc);
  assert_non_null(packed);
  assert_null(strchr(packed, '\n'));        /* one line of the stream */
  char err[200];
  json_t *back = sb_cluster_unpack(packed, err, sizeof(err));
  assert_non_null(back);
  assert_true(json_equal(doc, back));
  json_decref(back);

  size_t len = strlen(packed) + 16;
  char *line = malloc(len);
  snprintf(line, len, "bmkc doc %s", packed);
  sb_cluster_msg_t m;
  assert_int_equal(sb_cluster_parse(line, &m, err, sizeof(err)), 1);
  assert_int_equal(m.kind, SB_CL_DOC);
  assert_true(json_equal(doc, m.doc));
  sb_cluster_msg_free(&m);
  assert_null(m.doc);

  packed[10] = packed[10] == 'A' ? 'B' : 'A';  /* a damaged stream */
  back = sb_cluster_unpack(packed, err, sizeof(err));
  assert_null(back);
  assert_true(strlen(err) > 0);
  assert_null(sb_cluster_unpack("not base64!", err, sizeof(err)));
  assert_string_equal(err, "the document is not base64 text");
  assert_int_equal(sb_cluster_parse("bmkc doc !!!!", &m, err, sizeof(err)), -1);
  free(line);
  free(packed);
  json_decref(doc);
}

/* A process of the summary whose document did not arrive: the cluster's
   document is the live merge only (never a merge of fewer processes than
   the summary counts). */
static void test_document_needs_all(void **state)
{
  (void) state;
  const char *names[] = { "a#0", "b#0" };
  sb_cluster_merge_cfg_t cfg = { .names = names, .nprocs = 2, .interval_s = 1, .threads = 1,
                            .percentile = 95 };
  sb_cluster_merge_t *mg = sb_cluster_merge_new(&cfg);
  for (unsigned p = 0; p < 2; p++)
  {
    sb_cluster_msg_t m;
    memset(&m, 0, sizeof(m));
    m.kind = SB_CL_END;
    m.time_s = 1;
    m.c.events = 10;
    m.hist = random_hist(10, 1000000);
    assert_int_equal(sb_cluster_merge_add(mg, p, &m), 0);
    sb_cluster_msg_free(&m);
    sb_cluster_merge_finish(mg, p, -1, NULL);
  }
  sb_cluster_msg_t d;
  memset(&d, 0, sizeof(d));
  d.kind = SB_CL_DOC;
  d.doc = json_pack("{s:s}", "format", "bmk-results");
  assert_int_equal(sb_cluster_merge_add(mg, 0, &d), 0);    /* a#0's only */
  assert_null(d.doc);                                 /* taken over */
  const json_t *doc = sb_cluster_merge_document(mg);
  assert_non_null(doc);
  assert_null(json_object_get(doc, "format"));
  assert_string_equal(json_string_value(json_object_get(doc, "kind")), "bmk-cluster");
  assert_int_equal(json_integer_value(json_object_get(doc, "processes_in_summary")), 2);
  sb_cluster_merge_free(mg);
}

static void test_merge_intervals(void **state)
{
  (void) state;
  const char *names[] = { "a#0", "b#0" };
  sb_cluster_merge_cfg_t cfg = { .names = names, .nprocs = 2, .interval_s = 1, .threads = 2,
                            .percentile = 95, .print_intervals = true };
  sb_cluster_merge_t *mg = sb_cluster_merge_new(&cfg);
  /* different shapes: the union's p95 is neither one's nor their mean */
  sb_hdr_t *h0 = random_hist(3000, 2000000), *h1 = random_hist(1000, 90000000);
  sb_hdr_t *u = sb_hdr_new();
  sb_hdr_add(u, h0);
  sb_hdr_add(u, h1);
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  feed(mg, 0, 1, h0);
  const char *notes[] = { "bmkc note tpcc_home_warehouses 1:1", "bmkc note tpcc_home_warehouses 1:3" };
  for (int i = 0; i < 2; i++)
  {
    sb_cluster_msg_t m;
    char err[128];
    assert_int_equal(sb_cluster_parse(notes[i], &m, err, sizeof(err)), 1);
    assert_int_equal(m.kind, SB_CL_NOTE);
    assert_int_equal(sb_cluster_merge_add(mg, 0, &m), 0);
  }
  sb_cluster_merge_flush(mg, out, false);
  fflush(out);
  assert_int_equal(len, 0);           /* b#0 has not delivered interval 1 */
  feed(mg, 1, 1, h1);
  sb_cluster_merge_flush(mg, out, false);
  fflush(out);
  char want[64];
  snprintf(want, sizeof(want), "lat (ms,95%%): %4.2f ", (double) sb_hdr_percentile(u, 95) / 1e6);
  assert_non_null(strstr(buf, want));
  assert_non_null(strstr(buf, "[ 1s ] thds: 4 tps: 4000.00 "));
  assert_non_null(strstr(buf, " procs: 2/2\n"));
  /* b#0 is lost: interval 2 prints with a alone (a second message of
     a's for it is a's still: one process) */
  feed(mg, 0, 2, h0);
  feed(mg, 0, 2, h0);
  sb_cluster_merge_finish(mg, 1, 1.5, "killed by signal 9");
  sb_cluster_merge_flush(mg, out, false);
  fflush(out);
  assert_non_null(strstr(buf, "[ 2s ] thds: 4 tps: 6000.00 "));
  assert_non_null(strstr(buf, " procs: 1/2\n"));
  fclose(out);
  free(buf);

  char path[] = "/tmp/bmk-unit-cluster-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(sb_cluster_merge_write_json(mg, path), 0);
  json_error_t jerr;
  json_t *doc = json_load_file(path, 0, &jerr);
  unlink(path);
  assert_non_null(doc);
  json_t *ivs = json_object_get(doc, "intervals");
  assert_int_equal(json_array_size(ivs), 2);
  json_t *iv0 = json_array_get(ivs, 0);
  assert_int_equal(json_integer_value(json_object_get(iv0, "events")), 4000);
  assert_int_equal(json_integer_value(json_object_get(iv0, "pct_ns")), sb_hdr_percentile(u, 95));
  assert_int_equal(json_object_size(json_object_get(iv0, "hist_by_process")), 2);
  json_t *pp = json_array_get(json_object_get(doc, "per_process"), 0);
  json_t *homes = json_object_get(json_object_get(pp, "notes"), "tpcc_home_warehouses");
  assert_int_equal(json_array_size(homes), 2);
  assert_string_equal(json_string_value(json_array_get(homes, 1)), "1:3");
  assert_null(json_object_get(json_array_get(json_object_get(doc, "per_process"), 1), "notes"));
  pp = json_array_get(json_object_get(doc, "per_process"), 1);
  assert_string_equal(json_string_value(json_object_get(pp, "failure")), "killed by signal 9");
  json_decref(doc);
  sb_hdr_free(h0);
  sb_hdr_free(h1);
  sb_hdr_free(u);
  sb_cluster_merge_free(mg);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_share),
    cmocka_unit_test(test_global_tid),
    cmocka_unit_test(test_parse),
    cmocka_unit_test(test_notes),
    cmocka_unit_test(test_merge_intervals),
    cmocka_unit_test(test_doc_pack),
    cmocka_unit_test(test_document_needs_all),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
