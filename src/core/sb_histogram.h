/*
 * Latency histograms.
 *
 * 1. sb_hdr_t: HDR-style log-linear histogram used for every latency bmk
 *    records. Values are nanoseconds; trackable range 1 us .. 1 h with 3
 *    significant digits (relative error <= 0.1 %, well inside the 1 % the
 *    reports promise). Values outside the range are clamped to it (and still
 *    counted). Recording is single-writer and lock-free (plain 64-bit counter
 *    increments, blocks allocated on first use); readers take copies with
 *    relaxed loads. Histograms of the
 *    same layout can be merged (added) and subtracted (to turn cumulative
 *    snapshots into interval ones). Bucketing follows the HdrHistogram
 *    design (Gil Tene): bucket index from the position of the highest set
 *    bit, sub-bucket from the next 11 bits.
 *
 * 2. sb_histogram_t: the sysbench.histogram Lua object, sysbench's bounded
 *    histogram (its src/sb_histogram.c): `size` buckets spread evenly in
 *    log space over [min,max] (values outside go to the end buckets),
 *    thread-safe updates, and sysbench's `--histogram` row layout.
 */
#ifndef SB_HISTOGRAM_H
#define SB_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- HDR histogram ---------------------------------------------------- */

#define SB_HDR_LOWEST_NS   1000ULL               /* 1 us */
#define SB_HDR_HIGHEST_NS  3600000000000ULL      /* 1 h */

#define SB_HDR_BLOCK 1024      /* counters per block (one power-of-two range) */

/* Counters live in blocks allocated on first use, so a histogram costs
   only the ranges its values fall in (typically 3-6 blocks of 8 KB),
   which keeps thousands of per-VU histograms small. */
typedef struct sb_hdr {
  uint64_t total;        /* number of recorded values */
  uint32_t counts_len;   /* number of counters (logical) */
  uint32_t nblocks;      /* counts_len / SB_HDR_BLOCK */
  uint64_t **blocks;     /* NULL until a value falls in the block; a block
                            is published with a release store by the single
                            writer and read with acquire loads */
} sb_hdr_t;

/* Allocates an empty histogram; NULL on allocation failure. */
sb_hdr_t *sb_hdr_new(void);

/* Frees `h` (NULL is fine). */
void sb_hdr_free(sb_hdr_t *h);

/* Zeroes all counts. Not safe concurrently with sb_hdr_record on `h`. */
void sb_hdr_reset(sb_hdr_t *h);

/* Records one value `ns` (nanoseconds; clamped to the range). Single
   writer per histogram; safe to run concurrently with readers. */
void sb_hdr_record(sb_hdr_t *h, uint64_t ns);

/* Records `count` occurrences of `ns`. Same rules as sb_hdr_record. */
void sb_hdr_record_n(sb_hdr_t *h, uint64_t ns, uint64_t count);

/* Adds `count` to the counter at index `i` (as returned by the iteration
   functions below): for decoders that rebuild a histogram counter by
   counter, exactly. Returns 0, or -1 when i is out of the layout's range
   or on OOM. Same writer rules as sb_hdr_record. */
int sb_hdr_add_count_at(sb_hdr_t *h, uint32_t i, uint64_t count);

/* dst += src (both same layout). `src` may be concurrently recorded into:
   its counters are read with relaxed atomic loads. */
void sb_hdr_add(sb_hdr_t *dst, const sb_hdr_t *src);

/* dst -= src, counter by counter (src must be an earlier snapshot of the
   same cumulative histogram, so no counter goes negative). */
void sb_hdr_sub(sb_hdr_t *dst, const sb_hdr_t *src);

/* dst = src (copy with relaxed loads). */
void sb_hdr_copy(sb_hdr_t *dst, const sb_hdr_t *src);

/* Value (ns) at percentile `pct` (0..100]: the highest value equivalent to
   the bucket holding the ceil(pct/100 * total)-th smallest sample, as
   HdrHistogram reports it. 0 when the histogram is empty. */
uint64_t sb_hdr_percentile(const sb_hdr_t *h, double pct);

/* Standard deviation (ns) of the recorded values, each taken at the
   middle of its bucket (as HdrHistogram's getStdDeviation does); 0 when
   fewer than two values. Same concurrency rules as sb_hdr_percentile. */
double sb_hdr_stddev(const sb_hdr_t *h);

/* Smallest / largest recorded value (bucket-equivalent, ns); 0 if empty. */
uint64_t sb_hdr_min(const sb_hdr_t *h);
uint64_t sb_hdr_max(const sb_hdr_t *h);

/* Iteration support for exporters: number of counters, the count at index
   i, and the lowest and highest value (ns) equivalent to index i. */
uint32_t sb_hdr_counts_len(const sb_hdr_t *h);
uint64_t sb_hdr_count_at(const sb_hdr_t *h, uint32_t i);
uint64_t sb_hdr_value_lo(uint32_t i);
uint64_t sb_hdr_value_hi(uint32_t i);

/*
 * Prints the sysbench --histogram block for `h` to `out` (values in ms):
 * the title line, the column header, one `%12.3f |%-40s %lu` row per
 * non-empty display bucket, and the closing line holding one space. HDR counts are folded
 * onto a fixed log grid (ratio e^(1/55.5), 0.001 ms .. 3 600 000 ms); each
 * row shows its bucket's geometric midpoint. Prints nothing when empty.
 */
void sb_hdr_print_sysbench(const sb_hdr_t *h, FILE *out);

/* ---- sysbench.histogram (Lua API object) ------------------------------- */

typedef struct sb_histogram sb_histogram_t;

/* Creates a histogram of `size` buckets over [range_min, range_max] (both
   > 0, min < max; any unit, e.g. ms). Bucket i stands for the value
   exp(i / mult + ln min), mult = (size - 1) / (ln max - ln min), as in
   sysbench. NULL on bad arguments or OOM. */
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);

/* Frees it (NULL is fine). */
void sb_histogram_delete(sb_histogram_t *h);

/* The bucket `value` falls in: floor(mult * (ln value - ln min) + 0.5),
   clamped to [0, size-1]; 0, negative values and NaN give 0 (sysbench's
   formula and clamping). Pure; thread-safe. */
size_t sb_histogram_bucket(const sb_histogram_t *h, double value);

/* Counts one value in its bucket. Thread-safe (mutex). */
void sb_histogram_update(sb_histogram_t *h, double value);

/* Prints sysbench's column header and one `%12.3f |%-40s %lu` row per
   non-empty bucket (its value, 40 stars for the fullest bucket, the
   count) to `out`, with no title and no closing line, as sysbench's
   sb_histogram_print; prints nothing when empty. Thread-safe; the counts
   are kept (it can print again). */
void sb_histogram_fprint(sb_histogram_t *h, FILE *out);

/* sb_histogram_fprint to stdout (h:print() in Lua). */
void sb_histogram_print(sb_histogram_t *h);

#endif
