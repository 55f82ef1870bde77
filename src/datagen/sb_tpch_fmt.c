/*
 * Text of the TPC-H-derived generator's rows (see sb_tpch_gen.h for the
 * formats): dbgen 2.17.3's .tbl layout (money as dollars.cents, dates as
 * YYYY-MM-DD, every column followed by '|'), CSV, the tab-separated load
 * format and SQL tuples, and writing a chunk to files.
 */
#include "datagen/sb_tpch_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datagen/sb_tpch_row.h"

/* A row being written: destination, position, format, columns so far. */
typedef struct {
  char *p;
  int fmt;
  int n;
} out_t;

/* Starts a row at dst: "(" for an SQL tuple. */
static out_t start(char *dst, int fmt)
{
  out_t o = { dst, fmt, 0 };
  if (fmt == SB_TPCH_FMT_SQL)
    *o.p++ = '(';
  return o;
}

static void sep(out_t *o)
{
  if (o->n++ > 0 && o->fmt != SB_TPCH_FMT_TBL)
    *o->p++ = o->fmt == SB_TPCH_FMT_TSV ? '\t' : ',';
}

static void after(out_t *o)
{
  if (o->fmt == SB_TPCH_FMT_TBL)
    *o->p++ = '|';
}

static void put_str(out_t *o, const char *s, size_t len)
{
  sep(o);
  if (o->fmt == SB_TPCH_FMT_SQL) {
    *o->p++ = '\'';
    for (size_t i = 0; i < len; i++) {
      if (s[i] == '\'' || s[i] == '\\')
        *o->p++ = s[i];    /* doubled; dbgen's text has neither */
      *o->p++ = s[i];
    }
    *o->p++ = '\'';
  } else if (o->fmt == SB_TPCH_FMT_CSV && (memchr(s, ',', len) || memchr(s, '"', len))) {
    *o->p++ = '"';
    for (size_t i = 0; i < len; i++) {
      if (s[i] == '"')
        *o->p++ = '"';
      *o->p++ = s[i];
    }
    *o->p++ = '"';
  } else {
    memcpy(o->p, s, len);
    o->p += len;
  }
  after(o);
}

static void put_cstr(out_t *o, const char *s)
{
  put_str(o, s, strlen(s));
}

static void put_int(out_t *o, int64_t v)
{
  char tmp[24];
  int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
  sep(o);
  memcpy(o->p, tmp, (size_t)n);
  o->p += n;
  after(o);
}

/* Cents as "-d.cc"; dbgen prints them through a 32-bit int. */
static void put_money(out_t *o, int64_t cents)
{
  char tmp[24];
  int c = (int)cents, n;
  const char *sign = "";
  if (c < 0) {
    sign = "-";
    c = -c;
  }
  n = snprintf(tmp, sizeof(tmp), "%s%d.%02d", sign, c / 100, c % 100);
  sep(o);
  memcpy(o->p, tmp, (size_t)n);
  o->p += n;
  after(o);
}

static void put_char(out_t *o, char c)
{
  put_str(o, &c, 1);
}

static void put_date(out_t *o, int32_t day)
{
  char tmp[11];
  sb_tpch_date(day, tmp);
  put_str(o, tmp, 10);
}

static const char *word(int d, int i)
{
  return sb_tpch_dists[d].words[i].text;
}

/* Ends a row ("\n"; "),"" for an SQL tuple) and returns its bytes. */
static size_t end_row(out_t *o, char *begin)
{
  if (o->fmt == SB_TPCH_FMT_SQL) {
    *o->p++ = ')';
    *o->p++ = ',';
  } else {
    *o->p++ = '\n';
  }
  return (size_t)(o->p - begin);
}

void sb_tpch_date(int32_t day, char *dst)
{
  static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  int y = 1992, m = 0;
  for (;;) {
    int ylen = (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 366 : 365;
    if (day < ylen)
      break;
    day -= ylen;
    y++;
  }
  for (;;) {
    int ml = mdays[m] + (m == 1 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    if (day < ml)
      break;
    day -= ml;
    m++;
  }
  dst[0] = (char)('0' + y / 1000);
  dst[1] = (char)('0' + y / 100 % 10);
  dst[2] = (char)('0' + y / 10 % 10);
  dst[3] = (char)('0' + y % 10);
  dst[4] = dst[7] = '-';
  dst[5] = (char)('0' + (m + 1) / 10);
  dst[6] = (char)('0' + (m + 1) % 10);
  dst[8] = (char)('0' + (day + 1) / 10);
  dst[9] = (char)('0' + (day + 1) % 10);
  dst[10] = '\0';
}

size_t sb_tpch_fmt_code(const sb_tpch_code_row_t *r, int t, int fmt, char *dst)
{
  out_t o = start(dst, fmt);
  put_int(&o, r->key);
  if (t == SB_TPCH_NATION) {
    put_cstr(&o, sb_tpch_nations[r->key].name);
    put_int(&o, sb_tpch_nations[r->key].region);
  } else {
    put_cstr(&o, word(SB_TPCH_D_REGIONS, (int)r->key));
  }
  put_str(&o, r->comment, (size_t)r->clen);
  return end_row(&o, dst);
}

size_t sb_tpch_fmt_part(const sb_tpch_part_row_t *r, int fmt, char *dst)
{
  out_t o = start(dst, fmt);
  char tmp[24];
  put_int(&o, r->key);
  put_cstr(&o, r->name);
  snprintf(tmp, sizeof(tmp), "Manufacturer#%d", (int)r->mfgr);
  put_cstr(&o, tmp);
  snprintf(tmp, sizeof(tmp), "Brand#%02d", (int)r->brand);
  put_cstr(&o, tmp);
  put_cstr(&o, word(SB_TPCH_D_TYPES, r->type));
  put_int(&o, r->size);
  put_cstr(&o, word(SB_TPCH_D_CONTAINERS, r->container));
  put_money(&o, r->price);
  put_str(&o, r->comment, (size_t)r->clen);
  return end_row(&o, dst);
}

size_t sb_tpch_fmt_partsupp(const sb_tpch_part_row_t *r, int fmt, char *dst)
{
  char *p = dst;
  for (int i = 0; i < SB_TPCH_SUPP_PER_PART; i++) {
    out_t o = start(p, fmt);
    put_int(&o, r->key);
    put_int(&o, r->ps[i].suppkey);
    put_int(&o, r->ps[i].qty);
    put_money(&o, r->ps[i].cost);
    put_str(&o, r->ps[i].comment, (size_t)r->ps[i].clen);
    p += end_row(&o, p);
  }
  return (size_t)(p - dst);
}

/* SUPPLIER and CUSTOMER: "Supplier#000000001" / "Customer#000000001". */
static size_t fmt_party(const sb_tpch_party_row_t *r, const char *tag,
                        int segment, int fmt, char *dst)
{
  out_t o = start(dst, fmt);
  char tmp[32];
  put_int(&o, r->key);
  snprintf(tmp, sizeof(tmp), "%s%09lld", tag, (long long)r->key);
  put_cstr(&o, tmp);
  put_cstr(&o, r->address);
  put_int(&o, r->nation);
  put_cstr(&o, r->phone);
  put_money(&o, r->acctbal);
  if (segment)
    put_cstr(&o, word(SB_TPCH_D_SEGMENTS, r->segment));
  put_str(&o, r->comment, (size_t)r->clen);
  return end_row(&o, dst);
}

size_t sb_tpch_fmt_supplier(const sb_tpch_party_row_t *r, int fmt, char *dst)
{
  return fmt_party(r, "Supplier#", 0, fmt, dst);
}

size_t sb_tpch_fmt_customer(const sb_tpch_party_row_t *r, int fmt, char *dst)
{
  return fmt_party(r, "Customer#", 1, fmt, dst);
}

size_t sb_tpch_fmt_order(const sb_tpch_order_row_t *r, int fmt, char *dst)
{
  out_t o = start(dst, fmt);
  char tmp[32];
  put_int(&o, r->key);
  put_int(&o, r->custkey);
  put_char(&o, r->status);
  put_money(&o, r->total);
  put_date(&o, r->date);
  put_cstr(&o, word(SB_TPCH_D_PRIORITIES, r->priority));
  snprintf(tmp, sizeof(tmp), "Clerk#%09lld", (long long)r->clerk);
  put_cstr(&o, tmp);
  put_int(&o, 0);
  put_str(&o, r->comment, (size_t)r->clen);
  return end_row(&o, dst);
}

size_t sb_tpch_fmt_lines(const sb_tpch_order_row_t *r, int fmt, char *dst)
{
  char *p = dst;
  for (int i = 0; i < r->nlines; i++) {
    const sb_tpch_line_row_t *l = &r->line[i];
    out_t o = start(p, fmt);
    put_int(&o, r->key);
    put_int(&o, l->partkey);
    put_int(&o, l->suppkey);
    put_int(&o, l->number);
    put_int(&o, l->qty);
    put_money(&o, l->price);
    put_money(&o, l->discount);
    put_money(&o, l->tax);
    put_char(&o, l->rflag);
    put_char(&o, l->status);
    put_date(&o, l->ship);
    put_date(&o, l->commit);
    put_date(&o, l->receipt);
    put_cstr(&o, word(SB_TPCH_D_INSTRUCT, l->instruct));
    put_cstr(&o, word(SB_TPCH_D_SHIPMODES, l->mode));
    put_str(&o, l->comment, (size_t)l->clen);
    p += end_row(&o, p);
  }
  return (size_t)(p - dst);
}

/* Writes all of buf[0..len) to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *buf, size_t len)
{
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

int64_t sb_tpch_gen_write(sb_tpch_gen_t *g, int fmt, int fd, int cfd,
                          int64_t max_rows)
{
  enum { CAP = 1 << 18 };
  char *buf = malloc(CAP), *cbuf = malloc(CAP);
  int64_t done = 0;
  if (buf == NULL || cbuf == NULL) {
    free(buf);
    free(cbuf);
    errno = ENOMEM;
    return -1;
  }
  while (done < max_rows) {
    size_t len = 0, clen = 0;
    int64_t want = max_rows - done;
    int n = sb_tpch_gen_rows(g, fmt, buf, CAP, &len, cfd >= 0 ? cbuf : NULL,
                             CAP, &clen, want > 100000 ? 100000 : (int)want);
    if (n == 0)
      break;
    if (write_all(fd, buf, len) != 0 ||
        (cfd >= 0 && write_all(cfd, cbuf, clen) != 0)) {
      done = -1;
      break;
    }
    done += n;
  }
  free(buf);
  free(cbuf);
  return done;
}

int64_t sb_tpch_write_deletes(double sf, int set, int fmt, int fd)
{
  sb_tpch_scale_t sc;
  char buf[1 << 16];
  size_t len = 0;
  int64_t rows, k;
  if (sb_tpch_scale(sf, &sc) != 0 || set < 1 || set > SB_TPCH_UPDATE_SETS_MAX) {
    errno = EINVAL;
    return -1;
  }
  rows = sb_tpch_update_rows(&sc);
  for (k = 1; k <= rows; k++) {
    len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%lld%s\n",
                            (long long)sb_tpch_delete_key(sf, set, k),
                            fmt == SB_TPCH_FMT_TBL ? "|" : "");
    if (sizeof(buf) - len < 64 || k == rows) {
      if (write_all(fd, buf, len) != 0)
        return -1;
      len = 0;
    }
  }
  return rows;
}

int sb_tpch_create(const char *path)
{
  return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}
