/*
 * HdrHistogram interchange: the V2 compressed histogram encoding and the
 * interval log format ("Histogram log format version 1.3"), so bmk's
 * latency histograms can be read by the reference HdrHistogram tools
 * (HistogramLogReader, HistogramLogProcessor, HdrHistogram plotters).
 *
 * Format facts (from the HdrHistogram project's documentation and
 * reference implementation, re-implemented here):
 *  - V2 encoding, all integers big-endian: cookie 0x1c849313, payload
 *    length, normalizing index offset (0), significant digits (3), lowest
 *    discernible value (1 ns), highest trackable value (1 h in ns),
 *    integer-to-double ratio (1.0), then the counts from index 0 up to the
 *    highest non-zero one as ZigZag LEB128 varints (at most 9 bytes), a run
 *    of n > 1 zero counts written as the single value -n.
 *  - Compressed form: cookie 0x1c849314, deflated length, then the zlib
 *    stream of the V2 encoding. Logs carry it base64-encoded.
 *  - bmk's sb_hdr_t layout (1 ns unit, 2048 sub-buckets) is exactly
 *    HdrHistogram's for those parameters, so counts map index for index.
 */
#ifndef SB_HDRLOG_H
#define SB_HDRLOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/sb_histogram.h"

/* Encodes `h` uncompressed (V2). On success stores a malloc'd buffer in
   *out and its length (bytes) in *len and returns 0; -1 on OOM. */
int sb_hdr_encode_v2(const sb_hdr_t *h, uint8_t **out, size_t *len);

/* `len` bytes as base64 text (no line breaks; malloc'd, NUL-terminated),
   NULL on OOM. Thread-safe. */
char *sb_base64(const uint8_t *data, size_t len);

/* Base64 text to bytes (malloc'd, *n bytes); NULL when the text is not
   base64 (or on OOM). Thread-safe. */
uint8_t *sb_unbase64(const char *b64, size_t *n);

/* Encodes `h` compressed (V2, zlib) and base64 (no line breaks). Returns a
   malloc'd NUL-terminated string, NULL on OOM or zlib failure. */
char *sb_hdr_encode_v2_base64(const sb_hdr_t *h);

/*
 * Decodes a compressed, base64 V2 histogram (what sb_hdr_encode_v2_base64
 * writes, or any HdrHistogram encoding with bmk's layout: lowest
 * discernible value 1, 3 significant digits, normalizing offset 0) and
 * adds its counts to `h`, counter for counter, so merged histograms are
 * exact. Nothing is added unless the whole input decodes. Returns 0, or
 * -1 with the reason written to `err` (`errlen` bytes, may be 0): not
 * base64, wrong cookie, inflate failure, another layout, counts past
 * bmk's 1 h range, truncated data, OOM. Thread-safe for distinct `h`.
 */
int sb_hdr_decode_v2_base64(const char *b64, sb_hdr_t *h, char *err, size_t errlen);

typedef struct sb_hdrlog sb_hdrlog_t;

/*
 * Creates (truncates) the interval log `path` and writes its header with
 * the start time `start_epoch_s` (seconds since the epoch, also the base
 * time interval timestamps are relative to). NULL with errno set when the
 * file cannot be created. The log is flushed after every write, so a run
 * that dies leaves a valid log of the intervals so far.
 */
sb_hdrlog_t *sb_hdrlog_open(const char *path, double start_epoch_s);

/*
 * Appends one interval: start `start_s` (seconds since the start time),
 * length `len_s` (s), histogram `h`, optional `tag` (NULL = untagged; tags
 * must not contain ',' or whitespace). The Interval_Max column is in ms
 * (HdrHistogram's default max-value unit ratio 1e6 for ns values).
 * Returns 0, -1 on a write or encoding error. Not thread-safe per log.
 */
int sb_hdrlog_write(sb_hdrlog_t *log, double start_s, double len_s,
                    const sb_hdr_t *h, const char *tag);

/* Appends the comment line "#[text]" (readers of the format skip it;
   `text` must hold no newline). Returns 0, -1 on a write error. */
int sb_hdrlog_comment(sb_hdrlog_t *log, const char *text);

/* Flushes and closes the log; returns 0 or -1 on a write error. */
int sb_hdrlog_close(sb_hdrlog_t *log);

#endif
