/* HdrHistogram V2 encoding and interval logs; see sb_hdrlog.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <zlib.h>

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
    size_t total = 8 + zlen;
    b64 = malloc(4 * ((total + 2) / 3) + 1);
    if (b64)
      EVP_EncodeBlock((unsigned char *) b64, packed, (int) total);
  }
  free(packed);
  free(raw);
  return b64;
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
