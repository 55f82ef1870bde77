/*
 * Row generation for the TPC-C-derived load (TPC-C clause 4.3).
 *
 * The data of one *load unit* (the item table of a set; a warehouse with
 * its districts and stock; one district's customers, history, orders, new
 * orders and order lines) is produced here, in C, as SQL tuples for a
 * multi-row INSERT or as tab-separated lines for COPY / LOAD DATA, straight
 * into the caller's buffer: the Lua loader never builds row strings, which
 * is most of the client CPU a load costs.
 *
 * Determinism: each table of a unit draws from its own stream, seeded from
 * (--rand-seed, set, warehouse, part, table), so a unit's rows are the same
 * whatever thread loads it, in whatever batch sizes, and a resumed load
 * equals an uninterrupted one.
 *
 * A generator is used by one thread at a time; distinct generators are
 * independent. Exported for LuaJIT FFI (src/workloads/tpcc_load.lua).
 */
#ifndef SB_TPCC_GEN_H
#define SB_TPCC_GEN_H

#include <stddef.h>
#include <stdint.h>

/* Tables, in the order of TABLES in src/workloads/tpcc_common.lua. */
typedef enum {
  SB_TPCC_WAREHOUSE = 0,
  SB_TPCC_DISTRICT,
  SB_TPCC_CUSTOMER,
  SB_TPCC_HISTORY,
  SB_TPCC_ORDERS,
  SB_TPCC_NEW_ORDERS,
  SB_TPCC_ORDER_LINE,
  SB_TPCC_STOCK,
  SB_TPCC_ITEM,
  SB_TPCC_NTABLES
} sb_tpcc_table_t;

/* Output formats. */
typedef enum {
  SB_TPCC_FMT_SQL = 0,     /* "(1,'abc',NULL)" tuples joined by ',' */
  SB_TPCC_FMT_TSV = 1      /* "1\tabc\t\N\n": COPY text / LOAD DATA */
} sb_tpcc_fmt_t;

/* Bytes one row can take in either format (the longest is a customer:
   c_data alone is up to 500). A caller appending rows keeps at least this
   much room. */
#define SB_TPCC_ROW_MAX 1024

/* Cardinalities (clause 4.3.1). */
#define SB_TPCC_ITEMS 100000
#define SB_TPCC_STOCK_PER_WH 100000
#define SB_TPCC_DIST_PER_WH 10
#define SB_TPCC_CUST_PER_DIST 3000
#define SB_TPCC_ORD_PER_DIST 3000
#define SB_TPCC_FIRST_NEW_ORDER 2101   /* orders 2101..3000 are undelivered */

/* What a unit is. d: -1 = the item table of `set`, 0 = warehouse `w`
   (warehouse row, 10 districts, stock), 1..10 = district d of warehouse
   w. */
typedef struct {
  uint64_t seed;             /* --rand-seed in force (never 0) */
  int32_t set, w, d;
  int32_t c_load;            /* C for C_LAST at load (0..255) */
  int32_t null_variant;      /* 1: undelivered o_carrier_id/ol_delivery_d
                                are NULL; 0: 0 and 2000-01-01 00:00:00 */
  int32_t compressible;      /* 1: --data-profile=compressible */
  char load_time[20];        /* "YYYY-MM-DD HH:MM:SS": c_since, h_date,
                                o_entry_d, delivered ol_delivery_d */
} sb_tpcc_unit_t;

typedef struct sb_tpcc_gen sb_tpcc_gen_t;

/* Creates the generator of unit `u` (copied). NULL on bad parameters
   (d outside -1..10, w or set < 1) or allocation failure. */
sb_tpcc_gen_t *sb_tpcc_gen_new(const sb_tpcc_unit_t *u);

/* Frees it (NULL is fine). */
void sb_tpcc_gen_free(sb_tpcc_gen_t *g);

/* Rows table `t` gets from this unit in total (0 when the unit has no
   rows of that table). */
int64_t sb_tpcc_gen_total(const sb_tpcc_gen_t *g, int t);

/* Rows of table `t` not yet generated. */
int64_t sb_tpcc_gen_left(const sb_tpcc_gen_t *g, int t);

/*
 * Appends up to `max_rows` next rows of table `t` in format `fmt` to
 * buf[*len..cap), stopping early when less than SB_TPCC_ROW_MAX bytes are
 * left; SQL tuples after the first one written by this call are preceded
 * by ','. Advances *len and returns the number of rows written (0 when
 * the table is done for this unit or nothing fits). The buffer is not
 * NUL-terminated.
 */
int sb_tpcc_gen_rows(sb_tpcc_gen_t *g, int t, int fmt, char *buf, size_t cap,
                     size_t *len, int max_rows);

/* Column list of table `t` in generated order, for "INSERT INTO x (...)"
   and COPY ("w_id,w_name,..."). "" for an unknown table. */
const char *sb_tpcc_gen_columns(int t);

/* Table name without the set suffix ("order_line"), or "" when unknown. */
const char *sb_tpcc_table_name(int t);

#endif
