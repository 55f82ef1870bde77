/*
 * Unit tests: the TPC-H-derived generator (src/datagen/sb_tpch_*) gives
 * dbgen 2.17.3's rows. The SHA-256 figures below were taken from the .tbl
 * files of the reference dbgen 2.17.3 (TPC-H tools, built from its public
 * source with the official trailing-'|' layout): `dbgen -s 0.01` for the
 * whole tables and `dbgen -s 0.01 -C 4 -S 2` / `-S 3` for the chunks; the
 * MD5 figures of the update sets those of `dbgen -s 0.01 -U 3` and
 * `dbgen -s 1 -U 2` (orders.tbl.uN, lineitem.tbl.uN, delete.N).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "datagen/sb_tpch_gen.h"
#include "datagen/sb_tpch_rand.h"
#include "datagen/sb_tpch_text.h"

/* All rows of chunk k of n of parent table t (or of its child table when
   child is set) in format fmt, in batches of `batch` rows. */
static char *chunk_text(double sf, int t, int child, int k, int n, int fmt,
                        int batch, size_t *out_len)
{
  size_t cap = 16 << 20, len = 0, clen = 0;
  char *buf = malloc(cap), *cbuf = malloc(cap);
  sb_tpch_gen_t *g = sb_tpch_gen_new(sf, t, k, n);
  assert_non_null(g);
  while (sb_tpch_gen_rows(g, fmt, buf, cap, &len, cbuf, cap, &clen, batch) > 0)
    ;
  assert_int_equal(sb_tpch_gen_left(g), 0);
  sb_tpch_gen_free(g);
  if (child) {
    free(buf);
    *out_len = clen;
    return cbuf;
  }
  free(cbuf);
  *out_len = len;
  return buf;
}

/* The text starts with exactly the row `want` (ending in '\n' or "),"). */
static void row_equal(const char *s, size_t len, const char *want)
{
  size_t n = strlen(want);
  assert_true(len >= n);
  assert_memory_equal(s, want, n);
}

static void sha_hex(const char *data, size_t len, char hex[65])
{
  unsigned char md[32];
  unsigned int mdlen = 0;
  assert_true(EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) == 1);
  for (unsigned i = 0; i < 32; i++)
    sprintf(hex + 2 * i, "%02x", md[i]);
}

static void md5_hex(const char *data, size_t len, char hex[33])
{
  unsigned char md[16];
  unsigned int mdlen = 0;
  assert_true(EVP_Digest(data, len, md, &mdlen, EVP_md5(), NULL) == 1);
  for (unsigned i = 0; i < 16; i++)
    sprintf(hex + 2 * i, "%02x", md[i]);
}

static int count_lines(const char *s, size_t len)
{
  int n = 0;
  for (size_t i = 0; i < len; i++)
    n += s[i] == '\n';
  return n;
}

static const struct {
  int table, child;
  int rows;
  const char *sha;          /* dbgen -s 0.01 */
  const char *sha_c2, *sha_c3;   /* dbgen -s 0.01 -C 4 -S 2, -S 3 */
} sf001[] = {
  { SB_TPCH_REGION, 0, 5,
    "6022658d673924389b54dcb70fa8c3d6da1b0d7afa3c1c017bab62a019df404f", NULL, NULL },
  { SB_TPCH_NATION, 0, 25,
    "66f96949939fa8fdf1c4ffed1e5f6c2842fe11a14b51fdc6ed1e17460031e8c5", NULL, NULL },
  { SB_TPCH_PART, 0, 2000,
    "896e14465325110dd9cf05a16972028a58be0010959262176ecd97f4db1702f8",
    "45daa46091c20f3aa9df4a3cf3f1b07c5f1512f7ac039a59eeefa4961c1deadd",
    "7efd34b7a17097558e033255349344a1180715604dbf237836122e1fb2104af9" },
  { SB_TPCH_PART, 1, 8000,
    "5947b5ebab042b49148f82c1324ad122f7e0d98cfadcbef12da0a5e239e09e79",
    "391a6a761a3620ad68604aa80c9dabdba0b1082a9574bbd560cd3f85322df113",
    "e126806a2a499166328f65662bf40a64049507c99cbcd8e8ea1d0a88eb63b279" },
  { SB_TPCH_SUPPLIER, 0, 100,
    "9dc1002ee774699a092ed83ba278caf466d62a15d7e35bb6ed9293475528734b",
    "5d77c25705268e93b234354e7ea373c76c1063529f3854d9f47d337f044a0325",
    "865284f12dc1ff338df8eb1eb3126c64361657003456e06231f701a55fc72d54" },
  { SB_TPCH_CUSTOMER, 0, 1500,
    "6b690cce995cb715861ebf2c77aa02c61406e3a0ddcd3326d1ecfa969b9163f8",
    "46fb06d89f7778f352d0b4d36fe89daee1da8aa22f0507ec6138b9869d887d92",
    "390cc5d2ceb6a914567dfb34490fe880c8aca080eb156485d1357a028473a5cf" },
  { SB_TPCH_ORDERS, 0, 15000,
    "07cc8b362fda6d0b503c4d6c5d228817548e0688a3b21b590c52bb47b7b79c0f",
    "41819a3868bb8b57fb22fc3e4695bbe7660f79c4ccaa1dafe2beba0dd8691e59",
    "31536f6c4cef9f7a84a3d1c2d1b2f7055b51269b860e3e4b92b7c8051a2f114c" },
  { SB_TPCH_ORDERS, 1, 60175,
    "ee411d23efcd2943ef70489799e37dfc24543dbd03b461a88e16fd82a95765e4",
    "eca15883813ac816a902c8d1eb17c2d66e02d7b112c59164c61de4e04862f91d",
    "386fc2c0392e251618cee043f41fe791ccafb5a2c0a9a1bd72842e2b2096e00b" },
};

#define NSF001 (sizeof(sf001) / sizeof(sf001[0]))

/* Whole tables at SF 0.01: dbgen's bytes and row counts. */
static void test_sf001_tables(void **state)
{
  (void) state;
  for (size_t i = 0; i < NSF001; i++) {
    size_t len;
    char hex[65];
    char *s = chunk_text(0.01, sf001[i].table, sf001[i].child, 1, 1,
                         SB_TPCH_FMT_TBL, 1000, &len);
    sha_hex(s, len, hex);
    assert_string_equal(hex, sf001[i].sha);
    assert_int_equal(count_lines(s, len), sf001[i].rows);
    free(s);
  }
}

/* Chunks 2 and 3 of 4 are dbgen's -C 4 -S 2 / -S 3 files. */
static void test_sf001_chunks(void **state)
{
  (void) state;
  for (size_t i = 0; i < NSF001; i++) {
    if (sf001[i].sha_c2 == NULL)
      continue;
    for (int k = 2; k <= 3; k++) {
      size_t len;
      char hex[65];
      char *s = chunk_text(0.01, sf001[i].table, sf001[i].child, k, 4,
                           SB_TPCH_FMT_TBL, 7, &len);
      sha_hex(s, len, hex);
      assert_string_equal(hex, k == 2 ? sf001[i].sha_c2 : sf001[i].sha_c3);
      free(s);
    }
  }
}

/* The union of 3 chunks (REGION/NATION only in chunk 1) is the table. */
static void test_union_of_chunks(void **state)
{
  (void) state;
  for (size_t i = 0; i < NSF001; i++) {
    size_t cap = 16 << 20, len = 0;
    char *all = malloc(cap), hex[65];
    for (int k = 1; k <= 3; k++) {
      size_t n;
      char *s = chunk_text(0.01, sf001[i].table, sf001[i].child, k, 3,
                           SB_TPCH_FMT_TBL, 100, &n);
      memcpy(all + len, s, n);
      len += n;
      free(s);
    }
    sha_hex(all, len, hex);
    assert_string_equal(hex, sf001[i].sha);
    free(all);
  }
}

/* A few rows byte for byte (dbgen -s 0.01), and the other formats. */
static void test_fixed_rows(void **state)
{
  size_t len;
  char *s;
  (void) state;
  s = chunk_text(0.01, SB_TPCH_CUSTOMER, 0, 1, 1, SB_TPCH_FMT_TBL, 1, &len);
  row_equal(s, len, "1|Customer#000000001|IVhzIApeRb ot,c,E|15|"
                      "25-989-741-2988|711.56|BUILDING|to the even, regular "
                      "platelets. regular, ironic epitaphs nag e|\n");
  free(s);
  s = chunk_text(0.01, SB_TPCH_CUSTOMER, 0, 1, 1, SB_TPCH_FMT_CSV, 1, &len);
  row_equal(s, len, "1,Customer#000000001,\"IVhzIApeRb ot,c,E\",15,"
                      "25-989-741-2988,711.56,BUILDING,\"to the even, regular "
                      "platelets. regular, ironic epitaphs nag e\"\n");
  free(s);
  s = chunk_text(0.01, SB_TPCH_ORDERS, 1, 1, 1, SB_TPCH_FMT_TSV, 1, &len);
  row_equal(s, len, "1\t1552\t93\t1\t17\t24710.35\t0.04\t0.02\tN\tO\t"
                      "1996-03-13\t1996-02-12\t1996-03-22\tDELIVER IN PERSON\t"
                      "TRUCK\tegular courts above the\n");
  free(s);
  s = chunk_text(0.01, SB_TPCH_ORDERS, 0, 1, 1, SB_TPCH_FMT_SQL, 1, &len);
  row_equal(s, len, "(1,370,'O',172799.49,'1996-01-02','5-LOW',"
                      "'Clerk#000000951',0,'nstructions sleep furiously among '),");
  free(s);
  s = chunk_text(0.01, SB_TPCH_REGION, 0, 1, 1, SB_TPCH_FMT_TBL, 1, &len);
  row_equal(s, len, "0|AFRICA|lar deposits. blithely final packages "
                      "cajole. regular waters are final requests. regular "
                      "accounts are according to |\n");
  free(s);
}

/* Update sets: new orders, their line items and the deleted keys are
   dbgen -U's files. */
static void test_update_sets(void **state)
{
  static const struct {
    double sf;
    int set;
    const char *orders, *lines, *deletes;
  } u[] = {
    { 0.01, 1, "3c31b94f1bd15a67d8101b0d63f9eb58", "3309ecc7e015d92ca35249f91f303a71",
      "079060433d8301aaa3783456ed18c7f0" },
    { 0.01, 2, "bb402163444b211c9d4a24a8029d2907", "257dcf795b5959aad60bbdde88b743e0",
      "6861e53624044eb66a27c4d51eff4a83" },
    { 0.01, 3, "4342daf00f0f7d1748d322cbd88eb501", "b74c4ec1fcbfa3f4cc607b1b47aec8ca",
      "db1f9b91d446638c574e91b4aad802e8" },
    { 1, 2, "5b54a90e70c77f99e147d565297f0b54", "3fa1b217cda621f8fb8ab126349443a1",
      "20c3344abed96fd2040a6aa4988dc6d2" },
  };
  sb_tpch_scale_t sc;
  (void) state;
  assert_int_equal(sb_tpch_scale(0.01, &sc), 0);
  assert_int_equal(sb_tpch_update_rows(&sc), 10);    /* dbgen's, not 15 */
  assert_int_equal(sb_tpch_scale(3, &sc), 0);
  assert_int_equal(sb_tpch_update_rows(&sc), 4500);
  assert_int_equal(sb_tpch_delete_key(1, 2, 1), 5989);
  assert_int_equal(sb_tpch_delete_key(1, 2, 0), -1);
  assert_null(sb_tpch_gen_new_update(0.01, 0));
  for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
    size_t cap = 4 << 20, len = 0, clen = 0;
    char *buf = malloc(cap), *cbuf = malloc(cap), hex[33];
    sb_tpch_gen_t *g = sb_tpch_gen_new_update(u[i].sf, u[i].set);
    FILE *f = tmpfile();
    long n;
    assert_non_null(g);
    while (sb_tpch_gen_rows(g, SB_TPCH_FMT_TBL, buf, cap, &len, cbuf, cap, &clen, 100) > 0)
      ;
    sb_tpch_gen_free(g);
    md5_hex(buf, len, hex);
    assert_string_equal(hex, u[i].orders);
    md5_hex(cbuf, clen, hex);
    assert_string_equal(hex, u[i].lines);
    assert_non_null(f);
    assert_true(sb_tpch_write_deletes(u[i].sf, u[i].set, SB_TPCH_FMT_TBL, fileno(f)) > 0);
    n = (long)lseek(fileno(f), 0, SEEK_END);
    assert_true(n > 0);
    assert_int_equal(pread(fileno(f), buf, (size_t)n, 0), n);
    md5_hex(buf, (size_t)n, hex);
    assert_string_equal(hex, u[i].deletes);
    fclose(f);
    free(buf);
    free(cbuf);
  }
}

/* Scale factors: counts, dbgen's rounding below 1, refusals. */
static void test_scale(void **state)
{
  sb_tpch_scale_t sc;
  int64_t first, count;
  (void) state;
  assert_int_equal(sb_tpch_scale(0.01, &sc), 0);
  assert_int_equal(sc.orders, 15000);
  assert_int_equal(sb_tpch_table_rows(&sc, SB_TPCH_PARTSUPP), 8000);
  assert_int_equal(sb_tpch_scale(100, &sc), 0);
  assert_int_equal(sc.cust, 15000000);
  assert_int_equal(sc.scale, 100);
  assert_int_equal(sb_tpch_scale(0.0001, &sc), 0);   /* floor(0.1) = 0 */
  assert_int_equal(sc.supp, 1);
  assert_int_equal(sb_tpch_scale(0, &sc), -1);
  assert_int_equal(sb_tpch_scale(-1, &sc), -1);
  assert_int_equal(sb_tpch_scale(1.5, &sc), -1);
  assert_int_equal(sb_tpch_scale(200000, &sc), -1);
  assert_int_equal(sb_tpch_scale(0.0 / 0.0, &sc), -1);
  assert_int_equal(sb_tpch_scale(0.01, &sc), 0);
  assert_int_equal(sb_tpch_chunk(&sc, SB_TPCH_ORDERS, 4, 4, &first, &count), 0);
  assert_int_equal(first, 11251);
  assert_int_equal(count, 3750);
  assert_int_equal(sb_tpch_chunk(&sc, SB_TPCH_NATION, 2, 4, &first, &count), 0);
  assert_int_equal(count, 0);
  assert_int_equal(sb_tpch_chunk(&sc, SB_TPCH_LINEITEM, 1, 1, &first, &count), -1);
  assert_int_equal(sb_tpch_chunk(&sc, SB_TPCH_PART, 5, 4, &first, &count), -1);
  assert_null(sb_tpch_gen_new(0.01, SB_TPCH_PARTSUPP, 1, 1));
  assert_null(sb_tpch_gen_new(-2, SB_TPCH_PART, 1, 1));
}

/* The Park-Miller generator and its skip-ahead. */
static void test_rand(void **state)
{
  sb_tpch_stream_t s = { 1, 0 };
  (void) state;
  /* Park and Miller (1988): 10,000 steps from 1 give 1043618065 */
  assert_int_equal(sb_tpch_skip(1, 10000), 1043618065);
  for (int i = 0; i < 10000; i++)
    sb_tpch_unif(&s, 1, 10);
  assert_int_equal(s.value, 1043618065);
  assert_int_equal(s.used, 10000);
  sb_tpch_row_end(&s, 10005);          /* skips the 5 draws not made */
  assert_int_equal(s.value, sb_tpch_skip(1, 10005));
  assert_int_equal(s.used, 0);
  s.used = 3;
  sb_tpch_row_end(&s, 2);              /* more drawn than per row: stays */
  assert_int_equal(s.value, sb_tpch_skip(1, 10005));
  /* dbgen's 0..2^31-1 range wraps negative */
  s.value = 1;
  assert_true(sb_tpch_unif(&s, 0, SB_TPCH_RAND_M) <= 0);
}

/* The text pool: a sentence ends in its end mark, the pool is full. */
static void test_text(void **state)
{
  sb_tpch_stream_t s = { 933588178, 0 };
  char sentence[SB_TPCH_SENTENCE_MAX + 1];
  const char *pool = sb_tpch_text_pool();
  int n = sb_tpch_sentence(&s, sentence);
  (void) state;
  assert_non_null(pool);
  assert_true(n > 0 && (size_t)n == strlen(sentence));
  assert_true(strchr(".;:?!-", sentence[n - 1]) != NULL);
  assert_memory_equal(pool, sentence, (size_t)n);
  assert_int_equal(pool[n], ' ');
  assert_int_equal(strlen(pool), SB_TPCH_POOL_SIZE);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rand),
    cmocka_unit_test(test_scale),
    cmocka_unit_test(test_text),
    cmocka_unit_test(test_fixed_rows),
    cmocka_unit_test(test_sf001_tables),
    cmocka_unit_test(test_sf001_chunks),
    cmocka_unit_test(test_union_of_chunks),
    cmocka_unit_test(test_update_sets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
