/*
 * Row making of the TPC-H-derived generator (see sb_tpch_gen.h): scale,
 * chunks, streams, and one function per table family. Every constant and
 * the order of the draws are dbgen 2.17.3's behaviour; the column rules
 * are TPC-H specification v3.0.1 clause 4.2.3.
 */
#include "datagen/sb_tpch_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datagen/sb_tpch_row.h"
#include "datagen/sb_tpch_text.h"

/* The streams: start seed, family, draws per parent row (dbgen 2.17.3). */
enum {
  S_P_MFGR = 0, S_P_BRAND, S_P_TYPE, S_P_SIZE, S_P_CONTAINER, S_POOL,
  S_P_COMMENT, S_PS_QTY, S_PS_COST, S_PS_COMMENT, S_O_UNUSED, S_O_CLERK,
  S_O_COMMENT, S_O_DATE, S_L_QTY, S_L_DISCOUNT, S_L_TAX, S_L_INSTRUCT,
  S_L_MODE, S_L_PARTKEY, S_L_SUPPNUM, S_L_SHIP, S_L_COMMIT, S_L_RECEIPT,
  S_L_RFLAG, S_L_COMMENT, S_C_ADDRESS, S_C_NATION, S_C_PHONE, S_C_ACCTBAL,
  S_C_SEGMENT, S_C_COMMENT, S_S_ADDRESS, S_S_NATION, S_S_PHONE,
  S_S_ACCTBAL, S_S_COMMENT, S_P_NAME, S_O_PRIORITY, S_L_UNUSED,
  S_O_CUSTKEY, S_N_COMMENT, S_R_COMMENT, S_O_LINES, S_BBB_NOISE,
  S_BBB_TYPE, S_BBB_PRESS, S_BBB_OFFSET, NSTREAMS
};

static const struct {
  int32_t seed;
  int8_t family;       /* parent table whose rows use it; -1: none */
  int8_t per_row;
} streams[NSTREAMS] = {
  {1, SB_TPCH_PART, 1}, {46831694, SB_TPCH_PART, 1},
  {1841581359, SB_TPCH_PART, 1}, {1193163244, SB_TPCH_PART, 1},
  {727633698, SB_TPCH_PART, 1}, {933588178, -1, 1},
  {804159733, SB_TPCH_PART, 2}, {1671059989, SB_TPCH_PART, 4},
  {1051288424, SB_TPCH_PART, 4}, {1961692154, SB_TPCH_PART, 8},
  {1227283347, SB_TPCH_ORDERS, 1}, {1171034773, SB_TPCH_ORDERS, 1},
  {276090261, SB_TPCH_ORDERS, 2}, {1066728069, SB_TPCH_ORDERS, 1},
  {209208115, SB_TPCH_ORDERS, 7}, {554590007, SB_TPCH_ORDERS, 7},
  {721958466, SB_TPCH_ORDERS, 7}, {1371272478, SB_TPCH_ORDERS, 7},
  {675466456, SB_TPCH_ORDERS, 7}, {1808217256, SB_TPCH_ORDERS, 7},
  {2095021727, SB_TPCH_ORDERS, 7}, {1769349045, SB_TPCH_ORDERS, 7},
  {904914315, SB_TPCH_ORDERS, 7}, {373135028, SB_TPCH_ORDERS, 7},
  {717419739, SB_TPCH_ORDERS, 7}, {1095462486, SB_TPCH_ORDERS, 14},
  {881155353, SB_TPCH_CUSTOMER, 9}, {1489529863, SB_TPCH_CUSTOMER, 1},
  {1521138112, SB_TPCH_CUSTOMER, 3}, {298370230, SB_TPCH_CUSTOMER, 1},
  {1140279430, SB_TPCH_CUSTOMER, 1}, {1335826707, SB_TPCH_CUSTOMER, 2},
  {706178559, SB_TPCH_SUPPLIER, 9}, {110356601, SB_TPCH_SUPPLIER, 1},
  {884434366, SB_TPCH_SUPPLIER, 3}, {962338209, SB_TPCH_SUPPLIER, 1},
  {1341315363, SB_TPCH_SUPPLIER, 2}, {709314158, SB_TPCH_PART, 92},
  {591449447, SB_TPCH_ORDERS, 1}, {431918286, SB_TPCH_ORDERS, 1},
  {851767375, SB_TPCH_ORDERS, 1}, {606179079, SB_TPCH_NATION, 2},
  {1500869201, SB_TPCH_REGION, 2}, {1434868289, SB_TPCH_ORDERS, 1},
  {263032577, SB_TPCH_SUPPLIER, 1}, {753643799, SB_TPCH_SUPPLIER, 1},
  {202794285, SB_TPCH_SUPPLIER, 1}, {715851524, SB_TPCH_SUPPLIER, 1},
};

/* Day numbers (0 = 1992-01-01): the last order date (1998-08-02, so that
   every line item ships and is received by 1998-12-31) and the "current
   date" 1995-06-17 that splits shipped/returned from open items. */
#define ORDER_DATE_MAX 2405
#define CURRENT_DAY 1263

/* Average lengths of the text columns; a column's length is uniform in
   [0.4 x avg, 1.6 x avg] (clause 4.2.2.7, 4.2.2.10). */
#define LEN_P_COMMENT 14
#define LEN_PS_COMMENT 124
#define LEN_S_COMMENT 63
#define LEN_C_COMMENT 73
#define LEN_O_COMMENT 49
#define LEN_L_COMMENT 27
#define LEN_NR_COMMENT 72
#define LEN_ADDRESS 25

struct sb_tpch_gen {
  sb_tpch_scale_t sc;
  int table;
  int64_t next, last;          /* parent rows next..last remain */
  int64_t key_seq;             /* ORDERS: the sparse key's set bits (0:
                                  base data, 1: update sets 1..999) */
  int64_t total;
  int64_t child_rows;
  sb_tpch_stream_t s[NSTREAMS];
};

static const char *const names[SB_TPCH_NTABLES] = {
  "region", "nation", "part", "supplier", "partsupp", "customer", "orders",
  "lineitem"
};

static const char *const columns[SB_TPCH_NTABLES] = {
  "r_regionkey,r_name,r_comment",
  "n_nationkey,n_name,n_regionkey,n_comment",
  "p_partkey,p_name,p_mfgr,p_brand,p_type,p_size,p_container,"
  "p_retailprice,p_comment",
  "s_suppkey,s_name,s_address,s_nationkey,s_phone,s_acctbal,s_comment",
  "ps_partkey,ps_suppkey,ps_availqty,ps_supplycost,ps_comment",
  "c_custkey,c_name,c_address,c_nationkey,c_phone,c_acctbal,"
  "c_mktsegment,c_comment",
  "o_orderkey,o_custkey,o_orderstatus,o_totalprice,o_orderdate,"
  "o_orderpriority,o_clerk,o_shippriority,o_comment",
  "l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,"
  "l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,"
  "l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode,"
  "l_comment"
};

const char *sb_tpch_table_name(int t)
{
  return (t >= 0 && t < SB_TPCH_NTABLES) ? names[t] : "";
}

const char *sb_tpch_columns(int t)
{
  return (t >= 0 && t < SB_TPCH_NTABLES) ? columns[t] : "";
}

int sb_tpch_child(int t)
{
  if (t == SB_TPCH_PART)
    return SB_TPCH_PARTSUPP;
  if (t == SB_TPCH_ORDERS)
    return SB_TPCH_LINEITEM;
  return -1;
}

int sb_tpch_scale(double sf, sb_tpch_scale_t *out)
{
  static const int64_t base[4] = { 10000, 200000, 150000, 1500000 };
  int64_t rows[4];
  if (!(sf > 0) || sf > SB_TPCH_SF_MAX)
    return -1;
  if (sf >= 1 && sf != floor(sf))
    return -1;
  memset(out, 0, sizeof(*out));
  out->sf = sf;
  if (sf < 1) {
    /* dbgen: (int)(1000 x SF) thousandths of each base count */
    int milli = (int)(1000 * sf);
    out->scale = 1;
    for (int i = 0; i < 4; i++) {
      rows[i] = (int64_t)milli * base[i] / 1000;
      if (rows[i] < 1)
        rows[i] = 1;
    }
  } else {
    out->scale = (int64_t)sf;
    for (int i = 0; i < 4; i++)
      rows[i] = base[i];
  }
  out->supp = rows[0] * out->scale;
  out->part = rows[1] * out->scale;
  out->cust = rows[2] * out->scale;
  out->orders = rows[3] * out->scale;
  return 0;
}

int64_t sb_tpch_table_rows(const sb_tpch_scale_t *sc, int t)
{
  switch (t) {
  case SB_TPCH_REGION: return SB_TPCH_REGIONS;
  case SB_TPCH_NATION: return SB_TPCH_NATIONS;
  case SB_TPCH_PART: return sc->part;
  case SB_TPCH_SUPPLIER: return sc->supp;
  case SB_TPCH_PARTSUPP: return sc->part * SB_TPCH_SUPP_PER_PART;
  case SB_TPCH_CUSTOMER: return sc->cust;
  case SB_TPCH_ORDERS: return sc->orders;
  default: return -1;
  }
}

int sb_tpch_chunk(const sb_tpch_scale_t *sc, int t, int chunk, int chunks,
                  int64_t *first, int64_t *count)
{
  int64_t total = sb_tpch_table_rows(sc, t), per;
  if (total < 0 || t == SB_TPCH_PARTSUPP || chunks < 1 || chunk < 1 ||
      chunk > chunks)
    return -1;
  if (t == SB_TPCH_REGION || t == SB_TPCH_NATION) {
    *first = 1;
    *count = chunk == 1 ? total : 0;
    return 0;
  }
  per = total / chunks;
  *first = per * (chunk - 1) + 1;
  *count = chunk == chunks ? per + total % chunks : per;
  return 0;
}

/* A generator of parent rows first..first+count-1 of table t whose
   streams start `ahead` rows further on. */
static sb_tpch_gen_t *gen_new(const sb_tpch_scale_t *sc, int t, int64_t first,
                              int64_t count, int64_t ahead, int64_t key_seq)
{
  sb_tpch_gen_t *g;
  if (sb_tpch_text_pool() == NULL)
    return NULL;
  g = calloc(1, sizeof(*g));
  if (g == NULL)
    return NULL;
  g->sc = *sc;
  g->table = t;
  g->next = first;
  g->last = first + count - 1;
  g->total = count;
  g->key_seq = key_seq;
  /* row r starts (r - 1) x per_row draws into each stream */
  for (int i = 0; i < NSTREAMS; i++) {
    g->s[i].value = streams[i].seed;
    if (streams[i].family == t)
      g->s[i].value = sb_tpch_skip(streams[i].seed,
                                   (first - 1 + ahead) * streams[i].per_row);
  }
  return g;
}

sb_tpch_gen_t *sb_tpch_gen_new(double sf, int t, int chunk, int chunks)
{
  int64_t first, count;
  sb_tpch_scale_t sc;
  if (sb_tpch_scale(sf, &sc) != 0 ||
      sb_tpch_chunk(&sc, t, chunk, chunks, &first, &count) != 0)
    return NULL;
  return gen_new(&sc, t, first, count, 0, 0);
}

int64_t sb_tpch_update_rows(const sb_tpch_scale_t *sc)
{
  /* dbgen: orders per SF-1 base / 10000 (integer) x scale x 10 */
  return sc->orders / sc->scale / 10000 * sc->scale * 10;
}

/* The sparse order key of order index n with set bits `seq` (dbgen:
   keep the low 3 bits, insert 2 bits of seq, the rest above). */
static int64_t sparse_key(int64_t n, int64_t seq)
{
  return (((n >> 3) << 2) + seq) * 8 + (n & 7);
}

sb_tpch_gen_t *sb_tpch_gen_new_update(double sf, int set)
{
  sb_tpch_scale_t sc;
  int64_t rows;
  if (sb_tpch_scale(sf, &sc) != 0 || set < 1 || set > SB_TPCH_UPDATE_SETS_MAX)
    return NULL;
  rows = sb_tpch_update_rows(&sc);
  /* the update sets' orders follow the base data's in every stream */
  return gen_new(&sc, SB_TPCH_ORDERS, (int64_t)(set - 1) * rows + 1, rows,
                 sc.orders, 1 + set / 1000);
}

int64_t sb_tpch_delete_key(double sf, int set, int64_t k)
{
  sb_tpch_scale_t sc;
  int64_t rows;
  if (sb_tpch_scale(sf, &sc) != 0 || set < 1 || set > SB_TPCH_UPDATE_SETS_MAX)
    return -1;
  rows = sb_tpch_update_rows(&sc);
  if (k < 1 || k > rows)
    return -1;
  return sparse_key((int64_t)(set - 1) * rows + k, set / 1000);
}

void sb_tpch_gen_free(sb_tpch_gen_t *g)
{
  free(g);
}

int64_t sb_tpch_gen_total(const sb_tpch_gen_t *g)
{
  return g->total;
}

int64_t sb_tpch_gen_left(const sb_tpch_gen_t *g)
{
  return g->last - g->next + 1;
}

int64_t sb_tpch_gen_child_rows(const sb_tpch_gen_t *g)
{
  return g->child_rows;
}

/* Ends a row: every stream of the family skips to the next row's start. */
static void row_end(sb_tpch_gen_t *g)
{
  for (int i = 0; i < NSTREAMS; i++)
    if (streams[i].family == g->table)
      sb_tpch_row_end(&g->s[i], streams[i].per_row);
}

/* A text column of average length `avg` from stream `sd`. */
static int32_t text(sb_tpch_gen_t *g, int sd, int avg, char *dst)
{
  return sb_tpch_text(&g->s[sd], (int)(avg * 0.4), (int)(avg * 1.6), dst);
}

/* Writes the `n` last decimal digits of v (>= 0) at dst. */
static void digits(char *dst, int64_t v, int n)
{
  while (n-- > 0) {
    dst[n] = (char)('0' + v % 10);
    v /= 10;
  }
}

/* "CC-AAA-EEE-NNNN": country code 10 + nation, three draws. */
static void phone(sb_tpch_gen_t *g, int sd, int64_t nation, char *dst)
{
  int64_t a = sb_tpch_unif(&g->s[sd], 100, 999);
  int64_t e = sb_tpch_unif(&g->s[sd], 100, 999);
  int64_t n = sb_tpch_unif(&g->s[sd], 1000, 9999);
  digits(dst, 10 + nation % 90, 2);
  dst[2] = '-';
  digits(dst + 3, a, 3);
  dst[6] = '-';
  digits(dst + 7, e, 3);
  dst[10] = '-';
  digits(dst + 11, n, 4);
  dst[15] = '\0';
}

/* p_retailprice in cents of part `p` (clause 4.2.3). */
static int64_t retail_price(int64_t p)
{
  return 90000 + (p / 10) % 20001 + (p % 1000) * 100;
}

/* The key of supplier `i` (0..3) of part `p` (clause 4.2.3). */
static int64_t part_supplier(const sb_tpch_gen_t *g, int64_t p, int64_t i)
{
  int64_t s = g->sc.supp;
  return (p + i * (s / SB_TPCH_SUPP_PER_PART + (p - 1) / s)) % s + 1;
}

static void make_code(sb_tpch_gen_t *g, int64_t n, sb_tpch_code_row_t *r)
{
  int sd = g->table == SB_TPCH_NATION ? S_N_COMMENT : S_R_COMMENT;
  r->key = n - 1;
  r->clen = text(g, sd, LEN_NR_COMMENT, r->comment);
}

static void make_part(sb_tpch_gen_t *g, int64_t n, sb_tpch_part_row_t *r)
{
  int32_t perm[92];
  const sb_tpch_dist_t *colors = &sb_tpch_dists[SB_TPCH_D_COLORS];
  size_t pos = 0;
  r->key = n;
  for (int i = 0; i < colors->count; i++)
    perm[i] = i;
  sb_tpch_permute(&g->s[S_P_NAME], perm, colors->count);
  for (int i = 0; i < 5; i++) {
    const char *w = colors->words[perm[i]].text;
    size_t l = strlen(w);
    memcpy(r->name + pos, w, l);
    pos += l;
    r->name[pos++] = ' ';
  }
  r->name[pos - 1] = '\0';
  r->mfgr = (int32_t)sb_tpch_unif(&g->s[S_P_MFGR], 1, 5);
  r->brand = r->mfgr * 10 + (int32_t)sb_tpch_unif(&g->s[S_P_BRAND], 1, 5);
  r->type = sb_tpch_pick(&g->s[S_P_TYPE], &sb_tpch_dists[SB_TPCH_D_TYPES]);
  r->size = sb_tpch_unif(&g->s[S_P_SIZE], 1, 50);
  r->container = sb_tpch_pick(&g->s[S_P_CONTAINER],
                              &sb_tpch_dists[SB_TPCH_D_CONTAINERS]);
  r->price = retail_price(n);
  r->clen = text(g, S_P_COMMENT, LEN_P_COMMENT, r->comment);
  for (int i = 0; i < SB_TPCH_SUPP_PER_PART; i++) {
    sb_tpch_ps_row_t *ps = &r->ps[i];
    ps->suppkey = part_supplier(g, n, i);
    ps->qty = sb_tpch_unif(&g->s[S_PS_QTY], 1, 9999);
    ps->cost = sb_tpch_unif(&g->s[S_PS_COST], 100, 100000);
    ps->clen = text(g, S_PS_COMMENT, LEN_PS_COMMENT, ps->comment);
  }
}

/* Address, nation, phone and balance, common to SUPPLIER and CUSTOMER. */
static void make_party(sb_tpch_gen_t *g, int64_t n, int sd_addr, int sd_nat,
                       int sd_phone, int sd_bal, sb_tpch_party_row_t *r)
{
  r->key = n;
  sb_tpch_vstring(&g->s[sd_addr], (int)(LEN_ADDRESS * 0.4),
                  (int)(LEN_ADDRESS * 1.6), r->address);
  r->nation = sb_tpch_unif(&g->s[sd_nat], 0, SB_TPCH_NATIONS - 1);
  phone(g, sd_phone, r->nation, r->phone);
  r->acctbal = sb_tpch_unif(&g->s[sd_bal], -99999, 999999);
}

/* Suppliers: about 5 per 10,000 get "Customer ...Complaints" and 5
   "Customer ...Recommends" in their comment (clause 4.2.3, for Q16). */
static void make_supplier(sb_tpch_gen_t *g, int64_t n, sb_tpch_party_row_t *r)
{
  int64_t press, type, noise, offset;
  make_party(g, n, S_S_ADDRESS, S_S_NATION, S_S_PHONE, S_S_ACCTBAL, r);
  r->segment = 0;
  r->clen = text(g, S_S_COMMENT, LEN_S_COMMENT, r->comment);
  press = sb_tpch_unif(&g->s[S_BBB_PRESS], 1, 10000);
  type = sb_tpch_unif(&g->s[S_BBB_TYPE], 0, 100);
  noise = sb_tpch_unif(&g->s[S_BBB_NOISE], 0, r->clen - 19);
  offset = sb_tpch_unif(&g->s[S_BBB_OFFSET], 0, r->clen - (19 + noise));
  if (press <= 10) {
    memcpy(r->comment + offset, "Customer ", 9);
    memcpy(r->comment + offset + 9 + noise,
           type < 50 ? "Complaints" : "Recommends", 10);
  }
}

static void make_customer(sb_tpch_gen_t *g, int64_t n, sb_tpch_party_row_t *r)
{
  make_party(g, n, S_C_ADDRESS, S_C_NATION, S_C_PHONE, S_C_ACCTBAL, r);
  r->segment = sb_tpch_pick(&g->s[S_C_SEGMENT],
                            &sb_tpch_dists[SB_TPCH_D_SEGMENTS]);
  r->clen = text(g, S_C_COMMENT, LEN_C_COMMENT, r->comment);
}

/* Line item `i` of order `o`; returns its share of o_totalprice. */
static int64_t make_line(sb_tpch_gen_t *g, sb_tpch_order_row_t *o, int i)
{
  sb_tpch_line_row_t *l = &o->line[i];
  int64_t sup;
  l->number = i + 1;
  l->qty = sb_tpch_unif(&g->s[S_L_QTY], 1, 50);
  l->discount = sb_tpch_unif(&g->s[S_L_DISCOUNT], 0, 10);
  l->tax = sb_tpch_unif(&g->s[S_L_TAX], 0, 8);
  l->instruct = sb_tpch_pick(&g->s[S_L_INSTRUCT],
                             &sb_tpch_dists[SB_TPCH_D_INSTRUCT]);
  l->mode = sb_tpch_pick(&g->s[S_L_MODE], &sb_tpch_dists[SB_TPCH_D_SHIPMODES]);
  l->clen = text(g, S_L_COMMENT, LEN_L_COMMENT, l->comment);
  if (g->sc.scale >= 30000)
    l->partkey = sb_tpch_unif64(&g->s[S_L_PARTKEY], 1, g->sc.part);
  else
    l->partkey = sb_tpch_unif(&g->s[S_L_PARTKEY], 1, g->sc.part);
  sup = sb_tpch_unif(&g->s[S_L_SUPPNUM], 0, 3);
  l->suppkey = part_supplier(g, l->partkey, sup);
  l->price = retail_price(l->partkey) * l->qty;
  l->ship = o->date + (int32_t)sb_tpch_unif(&g->s[S_L_SHIP], 1, 121);
  l->commit = o->date + (int32_t)sb_tpch_unif(&g->s[S_L_COMMIT], 30, 90);
  l->receipt = l->ship + (int32_t)sb_tpch_unif(&g->s[S_L_RECEIPT], 1, 30);
  if (l->receipt <= CURRENT_DAY)
    l->rflag = sb_tpch_dists[SB_TPCH_D_RFLAGS].words[
      sb_tpch_pick(&g->s[S_L_RFLAG], &sb_tpch_dists[SB_TPCH_D_RFLAGS])].text[0];
  else
    l->rflag = 'N';
  l->status = l->ship <= CURRENT_DAY ? 'F' : 'O';
  /* integer cents, truncated at each step as dbgen does */
  return l->price * (100 - l->discount) / 100 * (100 + l->tax) / 100;
}

static void make_order(sb_tpch_gen_t *g, int64_t n, sb_tpch_order_row_t *o)
{
  int64_t delta = 1, shipped = 0;
  /* sparse key: bits 0-2 kept, 2 bits for the update sets, the rest */
  o->key = sparse_key(n, g->key_seq);
  if (g->sc.scale >= 30000)
    o->custkey = sb_tpch_unif64(&g->s[S_O_CUSTKEY], 1, g->sc.cust);
  else
    o->custkey = sb_tpch_unif(&g->s[S_O_CUSTKEY], 1, g->sc.cust);
  while (o->custkey % 3 == 0) {   /* a third of the customers: no orders */
    o->custkey += delta;
    if (o->custkey > g->sc.cust)
      o->custkey = g->sc.cust;
    delta = -delta;
  }
  o->date = (int32_t)sb_tpch_unif(&g->s[S_O_DATE], 0, ORDER_DATE_MAX);
  o->priority = sb_tpch_pick(&g->s[S_O_PRIORITY],
                             &sb_tpch_dists[SB_TPCH_D_PRIORITIES]);
  o->clerk = sb_tpch_unif(&g->s[S_O_CLERK], 1,
                          g->sc.scale * 1000 > 1000 ? g->sc.scale * 1000 : 1000);
  o->clen = text(g, S_O_COMMENT, LEN_O_COMMENT, o->comment);
  o->total = 0;
  o->nlines = (int32_t)sb_tpch_unif(&g->s[S_O_LINES], 1, SB_TPCH_LINES_MAX);
  for (int i = 0; i < o->nlines; i++) {
    o->total += make_line(g, o, i);
    shipped += o->line[i].status == 'F';
  }
  o->status = shipped == 0 ? 'O' : shipped == o->nlines ? 'F' : 'P';
}

int sb_tpch_gen_rows(sb_tpch_gen_t *g, int fmt, char *buf, size_t cap,
                     size_t *len, char *cbuf, size_t ccap, size_t *clen,
                     int max_rows)
{
  char scratch[SB_TPCH_ROW_MAX];
  int done = 0;
  while (done < max_rows && g->next <= g->last &&
         cap - *len >= SB_TPCH_ROW_MAX &&
         (cbuf == NULL || ccap - *clen >= SB_TPCH_ROW_MAX)) {
    char *cdst = cbuf ? cbuf + *clen : scratch;
    size_t cn = 0;
    switch (g->table) {
    case SB_TPCH_REGION:
    case SB_TPCH_NATION: {
      sb_tpch_code_row_t r;
      make_code(g, g->next, &r);
      *len += sb_tpch_fmt_code(&r, g->table, fmt, buf + *len);
      break;
    }
    case SB_TPCH_PART: {
      sb_tpch_part_row_t r;
      make_part(g, g->next, &r);
      *len += sb_tpch_fmt_part(&r, fmt, buf + *len);
      cn = cbuf ? sb_tpch_fmt_partsupp(&r, fmt, cdst) : 0;
      g->child_rows += SB_TPCH_SUPP_PER_PART;
      break;
    }
    case SB_TPCH_SUPPLIER: {
      sb_tpch_party_row_t r;
      make_supplier(g, g->next, &r);
      *len += sb_tpch_fmt_supplier(&r, fmt, buf + *len);
      break;
    }
    case SB_TPCH_CUSTOMER: {
      sb_tpch_party_row_t r;
      make_customer(g, g->next, &r);
      *len += sb_tpch_fmt_customer(&r, fmt, buf + *len);
      break;
    }
    default: {
      sb_tpch_order_row_t r;
      make_order(g, g->next, &r);
      *len += sb_tpch_fmt_order(&r, fmt, buf + *len);
      cn = cbuf ? sb_tpch_fmt_lines(&r, fmt, cdst) : 0;
      g->child_rows += r.nlines;
      break;
    }
    }
    if (cbuf)
      *clen += cn;
    row_end(g);
    g->next++;
    done++;
  }
  return done;
}
