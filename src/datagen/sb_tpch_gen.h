/*
 * Row generation for the TPC-H-derived workload (`bmk tpch`): the rows of
 * TPC-H's eight tables (specification v3.0.1, clause 4.2.3), byte for
 * byte those of TPC-H's reference generator dbgen 2.17.3 for the same
 * scale factor, generated in chunks (as `dbgen -C n -S k`) whose union is
 * the same whatever the number of chunks.
 *
 * A generator makes the rows of one *family* in one chunk: REGION,
 * NATION, SUPPLIER, CUSTOMER, PART with its four PARTSUPP rows per part,
 * or ORDERS with its one to seven LINEITEM rows per order (a parent and
 * its children come from the same draws: an order's o_totalprice is the
 * sum over its line items). Rows are written as text (sb_tpch_fmt.c).
 *
 * Row counts (clause 4.2.5, dbgen 2.17.3's behaviour for SF < 1): SF >= 1
 * must be a whole number: SUPPLIER 10,000 x SF, PART 200,000 x SF,
 * PARTSUPP 4 per part, CUSTOMER 150,000 x SF, ORDERS 1,500,000 x SF, about
 * 4 line items per order, NATION 25, REGION 5. Below SF 1 each base count
 * is multiplied by floor(1000 x SF) and divided by 1000 (integer; at least
 * 1 row). Order keys are sparse: 8 keys used of every 32.
 *
 * A generator is used by one thread at a time; distinct generators are
 * independent (the shared text pool is built once, thread-safely).
 * Exported for LuaJIT FFI (src/workloads/tpch_common.lua).
 */
#ifndef SB_TPCH_GEN_H
#define SB_TPCH_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "datagen/sb_tpch_rand.h"

/* Tables, in the order the schema creates them. */
typedef enum {
  SB_TPCH_REGION = 0,
  SB_TPCH_NATION,
  SB_TPCH_PART,
  SB_TPCH_SUPPLIER,
  SB_TPCH_PARTSUPP,
  SB_TPCH_CUSTOMER,
  SB_TPCH_ORDERS,
  SB_TPCH_LINEITEM,
  SB_TPCH_NTABLES
} sb_tpch_table_t;

/* Text formats of a row. */
typedef enum {
  SB_TPCH_FMT_TBL = 0,   /* dbgen's .tbl: every column followed by '|' */
  SB_TPCH_FMT_CSV = 1,   /* ',' between columns; a field with ',' or '"'
                            quoted ("" for a quote), RFC 4180 */
  SB_TPCH_FMT_TSV = 2,   /* tab between columns: COPY text / LOAD DATA */
  SB_TPCH_FMT_SQL = 3    /* "(1,'AFRICA','...')," tuples for a multi-row
                            INSERT (the caller drops the last ',') */
} sb_tpch_fmt_t;

/* Bytes a parent row, or all the child rows of one parent, take at most
   in any format. A caller keeps this much room in each buffer. */
#define SB_TPCH_ROW_MAX 2048

/* Largest scale factor accepted (dbgen's own limit of support). */
#define SB_TPCH_SF_MAX 100000.0

/* A scale factor resolved to dbgen's integers. */
typedef struct {
  double sf;          /* as given */
  int64_t scale;      /* dbgen's multiplier: SF for SF >= 1, else 1 */
  int64_t supp, part, cust, orders;   /* rows (ORDERS: of the base data) */
} sb_tpch_scale_t;

/* Resolves `sf` into *out. Returns 0, or -1 for a bad scale factor (not
   > 0, a fraction above 1, above SB_TPCH_SF_MAX, NaN). Thread-safe. */
int sb_tpch_scale(double sf, sb_tpch_scale_t *out);

/* Rows of table `t` at `sc`, or -1 for LINEITEM (random: 1 to 7 per order)
   and unknown tables. Thread-safe. */
int64_t sb_tpch_table_rows(const sb_tpch_scale_t *sc, int t);

/* Lower-case table name ("lineitem"), or "" when unknown. */
const char *sb_tpch_table_name(int t);

/* Column list of table `t` in file order ("l_orderkey,l_partkey,..."),
   or "" when unknown. */
const char *sb_tpch_columns(int t);

/* The table whose rows a generator of table `t` also makes (PARTSUPP for
   PART, LINEITEM for ORDERS), or -1. */
int sb_tpch_child(int t);

/* The rows chunk `chunk` of `chunks` holds of the parent table `t`, as
   dbgen -C chunks -S chunk splits them: *first (1-based) and *count (each
   chunk total / chunks rows, the last one the remainder as well; REGION
   and NATION wholly in chunk 1). Returns 0, or -1 for bad arguments
   (t a child table, chunk outside 1..chunks). Thread-safe. */
int sb_tpch_chunk(const sb_tpch_scale_t *sc, int t, int chunk, int chunks,
                  int64_t *first, int64_t *count);

typedef struct sb_tpch_gen sb_tpch_gen_t;

/* Creates the generator of chunk `chunk` of `chunks` of parent table `t`
   (not PARTSUPP or LINEITEM) at scale factor `sf`, building the text pool
   on first use. NULL on bad arguments or when memory runs out. */
sb_tpch_gen_t *sb_tpch_gen_new(double sf, int t, int chunk, int chunks);

/* Update sets (the refresh functions' data, TPC-H clause 4.2.4, as
   `dbgen -U N` makes them): set n (1..SB_TPCH_UPDATE_SETS_MAX) holds
   sb_tpch_update_rows() new orders with their line items (RF1), whose
   streams continue after the base data's and whose sparse keys fill the
   base data's gaps, and as many keys of base orders to delete (RF2). */
#define SB_TPCH_UPDATE_SETS_MAX 4000

/* New orders per update set: dbgen's (1,500,000 x min(SF, 1) / 10000,
   integer) x max(SF, 1) x 10; 1,500 x SF from SF 1 up, 10 at SF 0.01. */
int64_t sb_tpch_update_rows(const sb_tpch_scale_t *sc);

/* The generator of update set `set`'s new orders and line items (table
   ORDERS; one chunk). NULL on bad arguments or when memory runs out. */
sb_tpch_gen_t *sb_tpch_gen_new_update(double sf, int set);

/* The k-th (1..sb_tpch_update_rows) order key update set `set` deletes,
   or -1 for bad arguments. Thread-safe. */
int64_t sb_tpch_delete_key(double sf, int set, int64_t k);

/* Frees it (NULL is fine). */
void sb_tpch_gen_free(sb_tpch_gen_t *g);

/* Parent rows of the chunk in total, and not yet generated. */
int64_t sb_tpch_gen_total(const sb_tpch_gen_t *g);
int64_t sb_tpch_gen_left(const sb_tpch_gen_t *g);

/* Child rows (PARTSUPP, LINEITEM) generated so far. */
int64_t sb_tpch_gen_child_rows(const sb_tpch_gen_t *g);

/*
 * Appends up to `max_rows` next parent rows in format `fmt` to
 * buf[*len..cap) and their child rows to cbuf[*clen..ccap) (cbuf NULL:
 * the children are made, since the parent depends on them, and dropped),
 * stopping early when less than SB_TPCH_ROW_MAX bytes are left in either.
 * Every row ends in '\n' (SQL: in ','); the buffers are not
 * NUL-terminated. Advances *len and *clen and returns the parent rows
 * written (0 when the chunk is done or nothing fits).
 */
int sb_tpch_gen_rows(sb_tpch_gen_t *g, int fmt, char *buf, size_t cap,
                     size_t *len, char *cbuf, size_t ccap, size_t *clen,
                     int max_rows);

/*
 * Writes up to `max_rows` next parent rows in format `fmt` to file
 * descriptor `fd` and their child rows to `cfd` (-1: dropped). Returns the
 * parent rows written, or -1 when a write fails (errno set). Blocking.
 */
int64_t sb_tpch_gen_write(sb_tpch_gen_t *g, int fmt, int fd, int cfd,
                          int64_t max_rows);

/* Writes the keys update set `set` deletes to `fd`, one a line ("key|"
   in TBL, as dbgen's delete.N; "key" otherwise). Returns the keys
   written, or -1 when a write fails (errno set) or for bad arguments. */
int64_t sb_tpch_write_deletes(double sf, int set, int fmt, int fd);

/* Creates (or truncates) `path` for writing, mode 0644; the descriptor,
   or -1 with errno set. */
int sb_tpch_create(const char *path);

#endif
