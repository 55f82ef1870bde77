/* HdrHistogram V2 encoding and interval logs; see sb_hdrlog.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "core/sb_logger.h"
#include "results/sb_hdrlog.h"

#define V2_COOKIE            0x1c849313u
#define V2_COMPRESSED_COOKIE 0x1c849314u
#define V2_HEADER_LEN        40

struct sb_hdrlog {
  FILE *f;
};

static void put32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t) (v >> 24);
  p[1] = (uint8_t) (v >> 16);
  p[2] = (uint8_t) (v >> 8);
  p[3] = (uint8_t) v;
}

static void put64(uint8_t *p, uint64_t v)
{
  put32(p, (uint32_t) (v >> 32));
  put32(p + 4, (uint32_t) v);
}

/* ZigZag then LEB128 with at most 9 bytes: 8 groups of 7 bits, then a
   ninth byte holding the last 8 bits whole. */
static size_t put_zigzag(uint8_t *p, int64_t value)
{
  uint64_t v = ((uint64_t) value << 1) ^ (uint64_t) (value >> 63);
  size_t n = 0;
  for (int i = 0; i < 8; i++)
  {
    if ((v >> (7 * (i + 1))) == 0)
    {
      p[n++] = (uint8_t) (v >> (7 * i));
      return n;
    }
    p[n++] = (uint8_t) (((v >> (7 * i)) & 0x7f) | 0x80);
  }
  p[n++] = (uint8_t) (v >> 56);
  return n;
}

int sb_hdr_encode_v2(const sb_hdr_t *h, uint8_t **out, size_t *len)
{
  uint32_t n = sb_hdr_counts_len(h);
  uint32_t relevant = 0;
  for (uint32_t i = 0; i < n; i++)
    if (sb_hdr_count_at(h, i))
      relevant = i + 1;
  /* Worst case 9 bytes per counter. */
  uint8_t *buf = malloc(V2_HEADER_LEN + (size_t) relevant * 9 + 9);
  if (buf == NULL)
    return -1;
  size_t pos = V2_HEADER_LEN;
  uint32_t i = 0;
  while (i < relevant)
  {
    uint64_t c = sb_hdr_count_at(h, i++);
    if (c != 0)
    {
      pos += put_zigzag(buf + pos, (int64_t) c);
      continue;
    }
    int64_t zeros = 1;
    while (i < relevant && sb_hdr_count_at(h, i) == 0)
    {
      zeros++;
      i++;
    }
    pos += put_zigzag(buf + pos, zeros > 1 ? -zeros : 0);
  }
  double ratio = 1.0;
  uint64_t ratio_bits;
  memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
  put32(buf, V2_COOKIE);
  put32(buf + 4, (uint32_t) (pos - V2_HEADER_LEN));
  put32(buf + 8, 0);                        /* normalizing index offset */
  put32(buf + 12, 3);                       /* significant digits */
  put64(buf + 16, 1);                       /* lowest discernible: 1 ns */
  put64(buf + 24, SB_HDR_HIGHEST_NS);
  put64(buf + 32, ratio_bits);
  *out = buf;
  *len = pos;
  return 0;
}

char *sb_base64(const uint8_t *data, size_t len)
{
  char *b64 = malloc(4 * ((len + 2) / 3) + 1);
  if (b64)
    EVP_EncodeBlock((unsigned char *) b64, data, (int) len);
  return b64;
}

char *sb_hdr_encode_v2_base64(const sb_hdr_t *h)
{
  uint8_t *raw;
  size_t raw_len;
  if (sb_hdr_encode_v2(h, &raw, &raw_len) != 0)
    return NULL;
  uLongf zlen = compressBound((uLong) raw_len);
  uint8_t *packed = malloc(8 + zlen);
  char *b64 = NULL;
  if (packed && compress2(packed + 8, &zlen, raw, (uLong) raw_len,
                          Z_DEFAULT_COMPRESSION) == Z_OK)
  {
    put32(packed, V2_COMPRESSED_COOKIE);
    put32(packed + 4, (uint32_t) zlen);
    b64 = sb_base64(packed, 8 + zlen);
  }
  free(packed);
  free(raw);
  return b64;
}

/* ---- decoding ---------------------------------------------------------- */

/* Largest inflated V2 payload accepted: bmk's layout needs about 33k
   counters of at most 9 bytes (300 KB); anything far above is not ours. */
#define V2_MAX_RAW (16u << 20)

static uint32_t get32(const uint8_t *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
  return (uint64_t) get32(p) << 32 | get32(p + 4);
}

uint8_t *sb_unbase64(const char *b64, size_t *n)
{
  size_t len = strlen(b64);
  if (len == 0 || len % 4 != 0)
    return NULL;
  uint8_t *out = malloc(len / 4 * 3 + 1);
  if (out == NULL)
    return NULL;
  int got = EVP_DecodeBlock(out, (const unsigned char *) b64, (int) len);
  if (got < 0)
  {
    free(out);
    return NULL;
  }
  /* EVP_DecodeBlock counts the padding as zero bytes. */
  size_t pad = (b64[len - 1] == '=') + (b64[len - 2] == '=');
  *n = (size_t) got - pad;
  return out;
}

/* Inflates `len` bytes of zlib data into a malloc'd buffer (*n bytes). */
static uint8_t *inflate_all(const uint8_t *in, size_t len, size_t *n)
{
  z_stream z;
  memset(&z, 0, sizeof(z));
  if (inflateInit(&z) != Z_OK)
    return NULL;
  size_t cap = 64 * 1024, used = 0;
  uint8_t *out = malloc(cap);
  z.next_in = (Bytef *) in;
  z.avail_in = (uInt) len;
  int rc = Z_OK;
  while (out && rc == Z_OK)
  {
    if (used == cap)
    {
      uint8_t *bigger = cap < V2_MAX_RAW ? realloc(out, cap * 2) : NULL;
      if (bigger == NULL)
      {
        free(out);
        out = NULL;
        break;
      }
      out = bigger;
      cap *= 2;
    }
    z.next_out = out + used;
    z.avail_out = (uInt) (cap - used);
    rc = inflate(&z, Z_NO_FLUSH);
    used = cap - z.avail_out;
  }
  inflateEnd(&z);
  if (out && rc != Z_STREAM_END)
  {
    free(out);
    out = NULL;
  }
  *n = used;
  return out;
}

/* Reads one ZigZag LEB128 value at *pos (at most 9 bytes). -1 if the
   buffer ends inside it. */
static int get_zigzag(const uint8_t *p, size_t end, size_t *pos, int64_t *value)
{
  uint64_t v = 0;
  int i;
  for (i = 0; i < 8; i++)
  {
    if (*pos >= end)
      return -1;
    uint8_t b = p[(*pos)++];
    v |= (uint64_t) (b & 0x7f) << (7 * i);
    if (!(b & 0x80))
      break;
  }
  if (i == 8)
  {
    if (*pos >= end)
      return -1;
    v |= (uint64_t) p[(*pos)++] << 56;
  }
  *value = (int64_t) ((v >> 1) ^ (~(v & 1) + 1));
  return 0;
}

/* Adds the counts of the V2 payload `raw` to `h`. */
static int decode_v2(const uint8_t *raw, size_t n, sb_hdr_t *h, char *err, size_t errlen)
{
  if (n < V2_HEADER_LEN || get32(raw) != V2_COOKIE)
    return sb_errf(err, errlen, "not an HdrHistogram V2 encoding (cookie 0x%08x)",
                n >= 4 ? get32(raw) : 0);
  uint32_t payload = get32(raw + 4);
  if (payload > n - V2_HEADER_LEN)
    return sb_errf(err, errlen, "truncated histogram (%u of %zu payload bytes)",
                (unsigned) (n - V2_HEADER_LEN), (size_t) payload);
  if (get32(raw + 8) != 0 || get32(raw + 12) != 3 || get64(raw + 16) != 1)
    return sb_errf(err, errlen, "histogram layout differs from bmk's (normalizing offset %u, "
                "%u significant digits, lowest value %llu; bmk writes 0, 3, 1)",
                get32(raw + 8), get32(raw + 12), (unsigned long long) get64(raw + 16));
  size_t pos = V2_HEADER_LEN, end = V2_HEADER_LEN + payload;
  uint64_t index = 0;
  uint32_t limit = sb_hdr_counts_len(h);
  while (pos < end)
  {
    int64_t v;
    if (get_zigzag(raw, end, &pos, &v) != 0)
      return sb_errf(err, errlen, "truncated histogram counts");
    if (v < 0)
    {
      index += (uint64_t) (-(v + 1)) + 1;
      continue;
    }
    if (v > 0)
    {
      if (index >= limit)
        return sb_errf(err, errlen, "histogram holds values above bmk's range (1 h)");
      if (sb_hdr_add_count_at(h, (uint32_t) index, (uint64_t) v) != 0)
        return sb_errf(err, errlen, "out of memory");
    }
    index++;
  }
  return 0;
}

int sb_hdr_decode_v2_base64(const char *b64, sb_hdr_t *h, char *err, size_t errlen)
{
  size_t n = 0, raw_n = 0;
  uint8_t *packed = b64 ? sb_unbase64(b64, &n) : NULL;
  if (packed == NULL)
    return sb_errf(err, errlen, "histogram is not base64 text");
  int rc;
  if (n < 8 || get32(packed) != V2_COMPRESSED_COOKIE)
    rc = sb_errf(err, errlen, "not a compressed HdrHistogram V2 encoding");
  else if (get32(packed + 4) > n - 8)
    rc = sb_errf(err, errlen, "truncated compressed histogram");
  else
  {
    uint8_t *raw = inflate_all(packed + 8, get32(packed + 4), &raw_n);
    sb_hdr_t *tmp = raw ? sb_hdr_new() : NULL;
    if (raw == NULL)
      rc = sb_errf(err, errlen, "compressed histogram does not inflate");
    else if (tmp == NULL)
      rc = sb_errf(err, errlen, "out of memory");
    else if ((rc = decode_v2(raw, raw_n, tmp, err, errlen)) == 0)
      sb_hdr_add(h, tmp);
    sb_hdr_free(tmp);
    free(raw);
  }
  free(packed);
  return rc;
}

sb_hdrlog_t *sb_hdrlog_open(const char *path, double start_epoch_s)
{
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return NULL;
  sb_hdrlog_t *log = calloc(1, sizeof(*log));
  if (log == NULL)
  {
    fclose(f);
    return NULL;
  }
  log->f = f;
  time_t t = (time_t) start_epoch_s;
  struct tm tm;
  char date[64];
  gmtime_r(&t, &tm);
  strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
  fprintf(f, "#[Histogram log format version 1.3]\n");
  fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch_s, date);
  fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch_s);
  fprintf(f, "#[Written by bmk: latency in nanoseconds; Interval_Max in milliseconds]\n");
  fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
  fflush(f);
  return log;
}

int sb_hdrlog_write(sb_hdrlog_t *log, double start_s, double len_s,
                    const sb_hdr_t *h, const char *tag)
{
  if (log == NULL)
    return -1;
  char *b64 = sb_hdr_encode_v2_base64(h);
  if (b64 == NULL)
    return -1;
  if (tag && *tag)
    fprintf(log->f, "Tag=%s,", tag);
  fprintf(log->f, "%.3f,%.3f,%.3f,%s\n", start_s, len_s,
          (double) sb_hdr_max(h) / 1e6, b64);
  free(b64);
  return fflush(log->f) == 0 && !ferror(log->f) ? 0 : -1;
}

int sb_hdrlog_comment(sb_hdrlog_t *log, const char *text)
{
  if (log == NULL)
    return -1;
  fprintf(log->f, "#[%s]\n", text);
  return fflush(log->f) == 0 && !ferror(log->f) ? 0 : -1;
}

int sb_hdrlog_close(sb_hdrlog_t *log)
{
  if (log == NULL)
    return 0;
  int rc = fflush(log->f) == 0 && !ferror(log->f) ? 0 : -1;
  if (fclose(log->f) != 0)
    rc = -1;
  free(log);
  return rc;
}
