/*
 * Rows of the TPC-H-derived generator as values, between their making
 * (sb_tpch_gen.c) and their text (sb_tpch_fmt.c). Private to datagen/ and
 * its unit tests. Money is in cents, dates are day numbers from
 * 1992-01-01 (day 0), coded columns are indexes into their word lists
 * (sb_tpch_dists.h).
 */
#ifndef SB_TPCH_ROW_H
#define SB_TPCH_ROW_H

#include <stdint.h>

#define SB_TPCH_LINES_MAX 7     /* line items per order */
#define SB_TPCH_SUPP_PER_PART 4

typedef struct {
  int64_t key;
  int32_t clen;
  char comment[160];
} sb_tpch_code_row_t;            /* REGION and NATION */

typedef struct {
  int64_t suppkey;
  int64_t qty;
  int64_t cost;                  /* ps_supplycost, cents */
  int32_t clen;
  char comment[200];
} sb_tpch_ps_row_t;

typedef struct {
  int64_t key;
  char name[64];                 /* five colours */
  int32_t mfgr;                  /* 1..5 */
  int32_t brand;                 /* mfgr x 10 + 1..5 */
  int32_t type, container;       /* word indexes */
  int64_t size;
  int64_t price;                 /* p_retailprice, cents */
  int32_t clen;
  char comment[32];
  sb_tpch_ps_row_t ps[SB_TPCH_SUPP_PER_PART];
} sb_tpch_part_row_t;

typedef struct {
  int64_t key;
  int64_t nation;
  char address[48];
  char phone[16];
  int64_t acctbal;               /* cents */
  int32_t segment;               /* CUSTOMER only: word index */
  int32_t clen;
  char comment[128];
} sb_tpch_party_row_t;           /* SUPPLIER and CUSTOMER */

typedef struct {
  int64_t partkey, suppkey, number, qty;
  int64_t price;                 /* l_extendedprice, cents */
  int64_t discount, tax;         /* hundredths */
  char rflag, status;
  int32_t ship, commit, receipt; /* day numbers */
  int32_t instruct, mode;        /* word indexes */
  int32_t clen;
  char comment[48];
} sb_tpch_line_row_t;

typedef struct {
  int64_t key, custkey;
  char status;
  int64_t total;                 /* o_totalprice, cents */
  int32_t date;                  /* day number */
  int32_t priority;              /* word index */
  int64_t clerk;
  int32_t clen;
  char comment[88];
  int32_t nlines;
  sb_tpch_line_row_t line[SB_TPCH_LINES_MAX];
} sb_tpch_order_row_t;

/* Writes "YYYY-MM-DD" of day number `day` (0 = 1992-01-01) to dst (11
   bytes with the NUL). Thread-safe. */
void sb_tpch_date(int32_t day, char *dst);

/* Formatting of one row (and its children) in `fmt` at dst, which has
   SB_TPCH_ROW_MAX bytes; each returns the bytes written. */
size_t sb_tpch_fmt_code(const sb_tpch_code_row_t *r, int t, int fmt,
                        char *dst);
size_t sb_tpch_fmt_part(const sb_tpch_part_row_t *r, int fmt, char *dst);
size_t sb_tpch_fmt_partsupp(const sb_tpch_part_row_t *r, int fmt, char *dst);
size_t sb_tpch_fmt_supplier(const sb_tpch_party_row_t *r, int fmt, char *dst);
size_t sb_tpch_fmt_customer(const sb_tpch_party_row_t *r, int fmt, char *dst);
size_t sb_tpch_fmt_order(const sb_tpch_order_row_t *r, int fmt, char *dst);
size_t sb_tpch_fmt_lines(const sb_tpch_order_row_t *r, int fmt, char *dst);

#endif
