/* Unit tests: decoding the V2 compressed histogram (sb_hdr_decode_v2_base64)
   back into an sb_hdr_t, exactly, and refusing what is not one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <zlib.h>

#include "core/sb_histogram.h"
#include "results/sb_hdrlog.h"

static uint64_t lcg = 777;
static uint64_t rnd64(void)
{
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg >> 11;
}

/* Compressed V2 framing + base64 of a raw V2 encoding (as the encoder
   does), so tests can hand the decoder doctored payloads. */
static char *pack(const uint8_t *raw, size_t len)
{
  uLongf zlen = compressBound((uLong) len);
  uint8_t *p = malloc(8 + zlen);
  assert_int_equal(compress2(p + 8, &zlen, raw, (uLong) len, 6), Z_OK);
  uint32_t cookie = 0x1c849314u;
  for (int i = 0; i < 4; i++)
  {
    p[i] = (uint8_t) (cookie >> (24 - 8 * i));
    p[4 + i] = (uint8_t) ((uint32_t) zlen >> (24 - 8 * i));
  }
  char *b64 = malloc(4 * ((8 + zlen + 2) / 3) + 1);
  EVP_EncodeBlock((unsigned char *) b64, p, (int) (8 + zlen));
  free(p);
  return b64;
}

/* Every counter of a equals the one of b. */
static void assert_same(const sb_hdr_t *a, const sb_hdr_t *b)
{
  assert_int_equal(a->total, b->total);
  for (uint32_t i = 0; i < sb_hdr_counts_len(a); i++)
    if (sb_hdr_count_at(a, i) != sb_hdr_count_at(b, i))
      fail_msg("counter %u: %llu != %llu", i, (unsigned long long) sb_hdr_count_at(a, i),
               (unsigned long long) sb_hdr_count_at(b, i));
}

static void test_round_trip(void **state)
{
  (void) state;
  sb_hdr_t *h = sb_hdr_new(), *back = sb_hdr_new();
  /* spread over the whole range: 1 us .. 1 h, with big counts too */
  for (int i = 0; i < 20000; i++)
    sb_hdr_record(h, 1000 + rnd64() % (rnd64() % 2 ? 5000000ULL : 3600000000000ULL));
  sb_hdr_record_n(h, 123456, 5000000000ULL);
  sb_hdr_record(h, SB_HDR_HIGHEST_NS);
  char *b64 = sb_hdr_encode_v2_base64(h);
  assert_non_null(b64);
  char err[256] = "";
  assert_int_equal(sb_hdr_decode_v2_base64(b64, back, err, sizeof(err)), 0);
  assert_same(h, back);
  assert_int_equal(sb_hdr_percentile(h, 95), sb_hdr_percentile(back, 95));
  free(b64);
  sb_hdr_free(h);
  sb_hdr_free(back);
}

/* Decoding adds: two decoded halves equal the histogram of the union. */
static void test_decode_adds(void **state)
{
  (void) state;
  sb_hdr_t *a = sb_hdr_new(), *b = sb_hdr_new(), *all = sb_hdr_new(), *m = sb_hdr_new();
  for (int i = 0; i < 5000; i++)
  {
    uint64_t v = 1000 + rnd64() % 100000000ULL;
    sb_hdr_record(i % 3 ? a : b, v);
    sb_hdr_record(all, v);
  }
  char *ea = sb_hdr_encode_v2_base64(a), *eb = sb_hdr_encode_v2_base64(b);
  assert_int_equal(sb_hdr_decode_v2_base64(ea, m, NULL, 0), 0);
  assert_int_equal(sb_hdr_decode_v2_base64(eb, m, NULL, 0), 0);
  assert_same(all, m);
  free(ea);
  free(eb);
  sb_hdr_free(a);
  sb_hdr_free(b);
  sb_hdr_free(all);
  sb_hdr_free(m);
}

static void test_empty(void **state)
{
  (void) state;
  sb_hdr_t *h = sb_hdr_new(), *back = sb_hdr_new();
  char *b64 = sb_hdr_encode_v2_base64(h);
  assert_int_equal(sb_hdr_decode_v2_base64(b64, back, NULL, 0), 0);
  assert_int_equal(back->total, 0);
  free(b64);
  sb_hdr_free(h);
  sb_hdr_free(back);
}

/* Bad input fails with a reason and adds nothing. */
static void test_bad_input(void **state)
{
  (void) state;
  sb_hdr_t *h = sb_hdr_new(), *back = sb_hdr_new();
  sb_hdr_record(h, 5000);
  sb_hdr_record(back, 7000);
  char *b64 = sb_hdr_encode_v2_base64(h);
  char err[256];
  err[0] = '\0';
  assert_int_equal(sb_hdr_decode_v2_base64("not base64!", back, err, sizeof(err)), -1);
  assert_string_equal(err, "histogram is not base64 text");
  assert_int_equal(sb_hdr_decode_v2_base64("", back, err, sizeof(err)), -1);
  assert_int_equal(sb_hdr_decode_v2_base64("AAAAAAAAAAAA", back, err, sizeof(err)), -1);
  assert_string_equal(err, "not a compressed HdrHistogram V2 encoding");
  /* truncated: the compressed length says more than there is */
  char *cut = strdup(b64);
  cut[strlen(cut) / 2 & ~3u] = '\0';
  assert_int_equal(sb_hdr_decode_v2_base64(cut, back, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "truncated"));
  /* another layout: 2 significant digits */
  uint8_t *raw;
  size_t len;
  assert_int_equal(sb_hdr_encode_v2(h, &raw, &len), 0);
  char *same = pack(raw, len);
  assert_int_equal(sb_hdr_decode_v2_base64(same, back, err, sizeof(err)), 0);
  assert_int_equal(back->total, 2);
  raw[15] = 2;
  char *other = pack(raw, len);
  assert_int_equal(sb_hdr_decode_v2_base64(other, back, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "layout differs"));
  /* payload length past the end */
  raw[15] = 3;
  raw[7] = (uint8_t) (raw[7] + 50);
  char *longer = pack(raw, len);
  assert_int_equal(sb_hdr_decode_v2_base64(longer, back, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "truncated"));
  free(same);
  free(other);
  free(longer);
  free(raw);
  /* only the one good decode was added */
  assert_int_equal(back->total, 2);
  free(cut);
  free(b64);
  sb_hdr_free(h);
  sb_hdr_free(back);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_decode_adds),
    cmocka_unit_test(test_empty),
    cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
