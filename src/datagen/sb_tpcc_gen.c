/* TPC-C load rows; see sb_tpcc_gen.h. Population rules: TPC-C clause 4.3.3. */
#include <stdlib.h>
#include <string.h>

#include "datagen/sb_tpcc_gen.h"
#include "datagen/sb_tpcc_rand.h"

/* Stream ids beyond the tables: the unit's shared draws (order line
   counts, the o_c_id permutation). */
#define STREAM_META SB_TPCC_NTABLES

struct sb_tpcc_gen {
  sb_tpcc_unit_t u;
  sb_rand_stream_t rs[SB_TPCC_NTABLES];
  int64_t total[SB_TPCC_NTABLES];
  int64_t next[SB_TPCC_NTABLES];     /* rows generated so far */
  int64_t k_left[SB_TPCC_NTABLES];   /* selection sampling: still to pick */
  int32_t ol_order, ol_line;         /* order_line cursor (0-based order,
                                        1-based line) */
  int32_t perm[SB_TPCC_ORD_PER_DIST];
  uint8_t ol_cnt[SB_TPCC_ORD_PER_DIST];
};

static const char *const table_names[SB_TPCC_NTABLES] = {
  "warehouse", "district", "customer", "history", "orders", "new_orders",
  "order_line", "stock", "item"
};

static const char *const columns[SB_TPCC_NTABLES] = {
  "w_id,w_name,w_street_1,w_street_2,w_city,w_state,w_zip,w_tax,w_ytd",
  "d_id,d_w_id,d_name,d_street_1,d_street_2,d_city,d_state,d_zip,d_tax,"
  "d_ytd,d_next_o_id",
  "c_id,c_d_id,c_w_id,c_first,c_middle,c_last,c_street_1,c_street_2,c_city,"
  "c_state,c_zip,c_phone,c_since,c_credit,c_credit_lim,c_discount,c_balance,"
  "c_ytd_payment,c_payment_cnt,c_delivery_cnt,c_data",
  "h_c_id,h_c_d_id,h_c_w_id,h_d_id,h_w_id,h_date,h_amount,h_data",
  "o_id,o_d_id,o_w_id,o_c_id,o_entry_d,o_carrier_id,o_ol_cnt,o_all_local",
  "no_o_id,no_d_id,no_w_id",
  "ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id,ol_delivery_d,"
  "ol_quantity,ol_amount,ol_dist_info",
  "s_i_id,s_w_id,s_quantity,s_dist_01,s_dist_02,s_dist_03,s_dist_04,"
  "s_dist_05,s_dist_06,s_dist_07,s_dist_08,s_dist_09,s_dist_10,s_ytd,"
  "s_order_cnt,s_remote_cnt,s_data",
  "i_id,i_im_id,i_name,i_price,i_data"
};

const char *sb_tpcc_gen_columns(int t)
{
  return t >= 0 && t < SB_TPCC_NTABLES ? columns[t] : "";
}

const char *sb_tpcc_table_name(int t)
{
  return t >= 0 && t < SB_TPCC_NTABLES ? table_names[t] : "";
}

/* ---- writer: one row in either format ----------------------------------- */

typedef struct {
  char *p;
  size_t n;
  int fmt;
  int col;                 /* columns written in the current row */
} wr_t;

static void sep(wr_t *w)
{
  if (w->col++ > 0)
    w->p[w->n++] = w->fmt == SB_TPCC_FMT_SQL ? ',' : '\t';
}

static void put_int(wr_t *w, int64_t v)
{
  char tmp[24];
  size_t k = 0;
  uint64_t u = v < 0 ? -(uint64_t) v : (uint64_t) v;
  sep(w);
  if (v < 0)
    w->p[w->n++] = '-';
  do
    tmp[k++] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  while (k)
    w->p[w->n++] = tmp[--k];
}

static void put_fixed(wr_t *w, int64_t v, int scale)
{
  sep(w);
  w->n += sb_tpcc_fmt_fixed(w->p + w->n, v, scale);
}

/* Text column: the generated strings are alphanumeric (plus the fixed
   date and "OE"/"GC"/"BC"), so neither format needs escaping. */
static void put_str(wr_t *w, const char *s, size_t len)
{
  sep(w);
  if (w->fmt == SB_TPCC_FMT_SQL)
    w->p[w->n++] = '\'';
  memcpy(w->p + w->n, s, len);
  w->n += len;
  if (w->fmt == SB_TPCC_FMT_SQL)
    w->p[w->n++] = '\'';
}

static void put_null(wr_t *w)
{
  sep(w);
  if (w->fmt == SB_TPCC_FMT_SQL)
  {
    memcpy(w->p + w->n, "NULL", 4);
    w->n += 4;
  }
  else
  {
    memcpy(w->p + w->n, "\\N", 2);
    w->n += 2;
  }
}

/* A random a-string column written in place (no copy). */
static void put_astring(wr_t *w, sb_rand_stream_t *r, int min, int max)
{
  char buf[512];
  size_t n = sb_tpcc_astring(r, buf, min, max);
  put_str(w, buf, n);
}

/* --data-profile=compressible: one random character repeated. */
static size_t repeated(sb_rand_stream_t *r, char *buf, int min, int max)
{
  char c;
  size_t n = (size_t) sb_tpcc_rand(r, min, max);
  sb_tpcc_astring(r, &c, 1, 1);
  memset(buf, c, n);
  return n;
}

static void put_dated(wr_t *w, const sb_tpcc_unit_t *u)
{
  put_str(w, u->load_time, strlen(u->load_time));
}

static void row_begin(wr_t *w)
{
  w->col = 0;
  if (w->fmt == SB_TPCC_FMT_SQL)
    w->p[w->n++] = '(';
}

static void row_end(wr_t *w)
{
  w->p[w->n++] = w->fmt == SB_TPCC_FMT_SQL ? ')' : '\n';
}

/* Name, two streets, city, state, zip: shared by warehouse and district,
   and (without the name) by customer. */
static void put_address(wr_t *w, sb_rand_stream_t *r)
{
  char buf[16];
  put_astring(w, r, 10, 20);
  put_astring(w, r, 10, 20);
  put_astring(w, r, 10, 20);
  sb_tpcc_letters(r, buf, 2);
  put_str(w, buf, 2);
  sb_tpcc_zip(r, buf);
  put_str(w, buf, 9);
}

/* ---- rows ------------------------------------------------------------------ */

static void row_warehouse(sb_tpcc_gen_t *g, wr_t *w)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_WAREHOUSE];
  put_int(w, g->u.w);
  put_astring(w, r, 6, 10);
  put_address(w, r);
  put_fixed(w, sb_tpcc_rand(r, 0, 2000), 4);
  put_fixed(w, 30000000, 2);
}

static void row_district(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_DISTRICT];
  put_int(w, i + 1);
  put_int(w, g->u.w);
  put_astring(w, r, 6, 10);
  put_address(w, r);
  put_fixed(w, sb_tpcc_rand(r, 0, 2000), 4);
  put_fixed(w, 3000000, 2);
  put_int(w, SB_TPCC_ORD_PER_DIST + 1);
}

/* i_data / s_data: a-string[26..50], "ORIGINAL" in the selected rows. */
static void put_data50(sb_tpcc_gen_t *g, wr_t *w, int t, int64_t i, int64_t n)
{
  sb_rand_stream_t *r = &g->rs[t];
  char buf[64];
  size_t len = g->u.compressible && t == SB_TPCC_STOCK ? repeated(r, buf, 26, 50)
    : sb_tpcc_astring(r, buf, 26, 50);
  if (sb_tpcc_select(r, &g->k_left[t], n - i))
    sb_tpcc_original(r, buf, len);
  put_str(w, buf, len);
}

static void row_stock(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_STOCK];
  char buf[32];
  put_int(w, i + 1);
  put_int(w, g->u.w);
  put_int(w, sb_tpcc_rand(r, 10, 100));
  for (int k = 0; k < 10; k++)
  {
    if (g->u.compressible)
      repeated(r, buf, 24, 24);
    else
      sb_tpcc_astring(r, buf, 24, 24);
    put_str(w, buf, 24);
  }
  put_int(w, 0);
  put_int(w, 0);
  put_int(w, 0);
  put_data50(g, w, SB_TPCC_STOCK, i, SB_TPCC_STOCK_PER_WH);
}

static void row_item(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_ITEM];
  put_int(w, i + 1);
  put_int(w, sb_tpcc_rand(r, 1, 10000));
  put_astring(w, r, 14, 24);
  put_fixed(w, sb_tpcc_rand(r, 100, 10000), 2);
  put_data50(g, w, SB_TPCC_ITEM, i, SB_TPCC_ITEMS);
}

static void row_customer(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_CUSTOMER];
  char buf[512];
  int32_t c = (int32_t) i + 1;
  put_int(w, c);
  put_int(w, g->u.d);
  put_int(w, g->u.w);
  put_astring(w, r, 8, 16);
  put_str(w, "OE", 2);
  int32_t num = c <= 1000 ? c - 1 : sb_tpcc_nurand(r, 255, 0, 999, g->u.c_load);
  put_str(w, buf, sb_tpcc_lastname(num, buf));
  put_address(w, r);
  put_str(w, buf, sb_tpcc_nstring(r, buf, 16, 16));
  put_dated(w, &g->u);
  bool bc = sb_tpcc_select(r, &g->k_left[SB_TPCC_CUSTOMER], SB_TPCC_CUST_PER_DIST - i);
  put_str(w, bc ? "BC" : "GC", 2);
  put_fixed(w, 5000000, 2);
  put_fixed(w, sb_tpcc_rand(r, 0, 5000), 4);
  put_fixed(w, -1000, 2);
  put_fixed(w, 1000, 2);
  put_int(w, 1);
  put_int(w, 0);
  size_t n = g->u.compressible ? repeated(r, buf, 300, 500) : sb_tpcc_astring(r, buf, 300, 500);
  put_str(w, buf, n);
}

static void row_history(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_HISTORY];
  put_int(w, i + 1);
  put_int(w, g->u.d);
  put_int(w, g->u.w);
  put_int(w, g->u.d);
  put_int(w, g->u.w);
  put_dated(w, &g->u);
  put_fixed(w, 1000, 2);
  put_astring(w, r, 12, 24);
}

static void row_orders(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_ORDERS];
  int32_t o = (int32_t) i + 1;
  put_int(w, o);
  put_int(w, g->u.d);
  put_int(w, g->u.w);
  put_int(w, g->perm[i]);
  put_dated(w, &g->u);
  if (o < SB_TPCC_FIRST_NEW_ORDER)
    put_int(w, sb_tpcc_rand(r, 1, 10));
  else if (g->u.null_variant)
    put_null(w);
  else
    put_int(w, 0);
  put_int(w, g->ol_cnt[i]);
  put_int(w, 1);
}

static void row_new_orders(sb_tpcc_gen_t *g, wr_t *w, int64_t i)
{
  put_int(w, SB_TPCC_FIRST_NEW_ORDER + i);
  put_int(w, g->u.d);
  put_int(w, g->u.w);
}

static void row_order_line(sb_tpcc_gen_t *g, wr_t *w)
{
  sb_rand_stream_t *r = &g->rs[SB_TPCC_ORDER_LINE];
  int32_t o = g->ol_order + 1;
  bool delivered = o < SB_TPCC_FIRST_NEW_ORDER;
  put_int(w, o);
  put_int(w, g->u.d);
  put_int(w, g->u.w);
  put_int(w, g->ol_line);
  put_int(w, sb_tpcc_rand(r, 1, SB_TPCC_ITEMS));
  put_int(w, g->u.w);
  if (delivered)
    put_dated(w, &g->u);
  else if (g->u.null_variant)
    put_null(w);
  else
    put_str(w, "2000-01-01 00:00:00", 19);
  put_int(w, 5);
  put_fixed(w, delivered ? 0 : sb_tpcc_rand(r, 1, 999999), 2);
  put_astring(w, r, 24, 24);
  if (++g->ol_line > g->ol_cnt[g->ol_order])
  {
    g->ol_line = 1;
    g->ol_order++;
  }
}

/* ---- generator ---------------------------------------------------------------- */

sb_tpcc_gen_t *sb_tpcc_gen_new(const sb_tpcc_unit_t *u)
{
  if (u == NULL || u->set < 1 || u->d < -1 || u->d > SB_TPCC_DIST_PER_WH ||
      (u->d >= 0 && u->w < 1))
    return NULL;
  sb_tpcc_gen_t *g = calloc(1, sizeof(*g));
  if (g == NULL)
    return NULL;
  g->u = *u;
  g->u.load_time[sizeof(g->u.load_time) - 1] = '\0';
  int32_t w = u->d < 0 ? 0 : u->w;
  for (int t = 0; t < SB_TPCC_NTABLES; t++)
    sb_tpcc_seed(&g->rs[t], u->seed, u->set, w, u->d, t);

  if (u->d < 0)
  {
    g->total[SB_TPCC_ITEM] = SB_TPCC_ITEMS;
    g->k_left[SB_TPCC_ITEM] = SB_TPCC_ITEMS / 10;
  }
  else if (u->d == 0)
  {
    g->total[SB_TPCC_WAREHOUSE] = 1;
    g->total[SB_TPCC_DISTRICT] = SB_TPCC_DIST_PER_WH;
    g->total[SB_TPCC_STOCK] = SB_TPCC_STOCK_PER_WH;
    g->k_left[SB_TPCC_STOCK] = SB_TPCC_STOCK_PER_WH / 10;
  }
  else
  {
    sb_rand_stream_t meta;
    sb_tpcc_seed(&meta, u->seed, u->set, w, u->d, STREAM_META);
    int64_t lines = 0;
    for (int i = 0; i < SB_TPCC_ORD_PER_DIST; i++)
    {
      g->ol_cnt[i] = (uint8_t) sb_tpcc_rand(&meta, 5, 15);
      lines += g->ol_cnt[i];
    }
    sb_tpcc_permutation(&meta, g->perm, SB_TPCC_ORD_PER_DIST);
    g->total[SB_TPCC_CUSTOMER] = SB_TPCC_CUST_PER_DIST;
    g->k_left[SB_TPCC_CUSTOMER] = SB_TPCC_CUST_PER_DIST / 10;
    g->total[SB_TPCC_HISTORY] = SB_TPCC_CUST_PER_DIST;
    g->total[SB_TPCC_ORDERS] = SB_TPCC_ORD_PER_DIST;
    g->total[SB_TPCC_NEW_ORDERS] = SB_TPCC_ORD_PER_DIST - SB_TPCC_FIRST_NEW_ORDER + 1;
    g->total[SB_TPCC_ORDER_LINE] = lines;
    g->ol_line = 1;
  }
  return g;
}

void sb_tpcc_gen_free(sb_tpcc_gen_t *g)
{
  free(g);
}

int64_t sb_tpcc_gen_total(const sb_tpcc_gen_t *g, int t)
{
  return g && t >= 0 && t < SB_TPCC_NTABLES ? g->total[t] : 0;
}

int64_t sb_tpcc_gen_left(const sb_tpcc_gen_t *g, int t)
{
  return g && t >= 0 && t < SB_TPCC_NTABLES ? g->total[t] - g->next[t] : 0;
}

int sb_tpcc_gen_rows(sb_tpcc_gen_t *g, int t, int fmt, char *buf, size_t cap,
                     size_t *len, int max_rows)
{
  if (g == NULL || t < 0 || t >= SB_TPCC_NTABLES || buf == NULL || len == NULL)
    return 0;
  wr_t w = { buf, *len, fmt == SB_TPCC_FMT_TSV ? SB_TPCC_FMT_TSV : SB_TPCC_FMT_SQL, 0 };
  int rows = 0;
  while (rows < max_rows && g->next[t] < g->total[t] && cap - w.n >= SB_TPCC_ROW_MAX + 1)
  {
    int64_t i = g->next[t];
    if (rows > 0 && w.fmt == SB_TPCC_FMT_SQL)
      w.p[w.n++] = ',';
    row_begin(&w);
    switch (t)
    {
    case SB_TPCC_WAREHOUSE: row_warehouse(g, &w); break;
    case SB_TPCC_DISTRICT: row_district(g, &w, i); break;
    case SB_TPCC_CUSTOMER: row_customer(g, &w, i); break;
    case SB_TPCC_HISTORY: row_history(g, &w, i); break;
    case SB_TPCC_ORDERS: row_orders(g, &w, i); break;
    case SB_TPCC_NEW_ORDERS: row_new_orders(g, &w, i); break;
    case SB_TPCC_ORDER_LINE: row_order_line(g, &w); break;
    case SB_TPCC_STOCK: row_stock(g, &w, i); break;
    default: row_item(g, &w, i); break;
    }
    row_end(&w);
    g->next[t]++;
    rows++;
  }
  *len = w.n;
  return rows;
}
