/*
 * Random streams of the TPC-H-derived data generator (`bmk tpch`).
 *
 * dbgen 2.17.3, TPC-H's reference generator, gives every generated column
 * its own stream of a Park-Miller "minimal standard" generator
 * (x' = 16807 x mod (2^31 - 1)), each started from a fixed seed, and lets
 * every row of a table use a fixed number of draws of each of its streams
 * (a row that draws fewer skips the rest). So row r of a table starts from
 * seed x 16807^((r - 1) x draws) mod (2^31 - 1), computable in O(log r):
 * any range of rows can be generated alone, which is how dbgen's -C/-S
 * chunks (and ours) work. Everything here reproduces dbgen's arithmetic
 * exactly, including its rounding; the formulas are dbgen 2.17.3's
 * behaviour (TPC-H specification v3.0.1, clause 4.2.2 describes the
 * distributions, not the generator).
 *
 * A stream is plain data owned by one generator; nothing here has global
 * state. Thread-safe for distinct streams.
 */
#ifndef SB_TPCH_RAND_H
#define SB_TPCH_RAND_H

#include <stdint.h>

#include "datagen/sb_tpch_dists.h"

/* The Park-Miller modulus, 2^31 - 1. */
#define SB_TPCH_RAND_M 2147483647LL

/* One column's stream: the current value (1 .. 2^31 - 2 for the
   Park-Miller generator) and the draws made in the current row. */
typedef struct {
  int64_t value;
  int64_t used;
} sb_tpch_stream_t;

/* The value after `n` (>= 0; n <= 0 leaves it) further steps of the
   Park-Miller generator from `value`, by square-and-multiply: O(log n).
   dbgen 2.17.3's skip-ahead; values above 2^31 (only met by the 64-bit
   streams of SF >= 30000) wrap as dbgen's 64-bit arithmetic does. */
int64_t sb_tpch_skip(int64_t value, int64_t n);

/* Ends a row for stream `s`: skips the draws the row did not make out of
   its `per_row` and resets the count. When the row made more draws than
   `per_row` the stream keeps its place (dbgen does the same). */
void sb_tpch_row_end(sb_tpch_stream_t *s, int64_t per_row);

/* A uniform integer in lo..hi (lo <= hi, hi - lo < 2^31) from stream `s`,
   dbgen's way: the next value v, then lo + (int64)(v / (2^31-1) x
   (hi - lo + 1)) in double arithmetic. For lo = 0, hi = 2^31 - 1 dbgen's
   32-bit range overflows to -2^31 and the result is <= 0; that is kept,
   since its alphanumeric strings depend on it. Counts one draw. */
int64_t sb_tpch_unif(sb_tpch_stream_t *s, int64_t lo, int64_t hi);

/* A uniform integer in lo..hi from the 64-bit linear congruential
   generator dbgen uses for o_custkey and l_partkey from SF 30000 up
   (x' = 6364136223846793005 x + 1 mod 2^64, then |x| mod range). Counts
   one draw. */
int64_t sb_tpch_unif64(sb_tpch_stream_t *s, int64_t lo, int64_t hi);

/* Picks a word of list `d` by weight (one draw: uniform 1..total, then
   the first word whose running total reaches it) and returns its index. */
int sb_tpch_pick(sb_tpch_stream_t *s, const sb_tpch_dist_t *d);

/* Writes a random string of letters, digits, space and ',' of a uniform
   length in min..max to dst (NUL-terminated; dst holds max + 1 bytes) and
   returns the length. One draw for the length and one per 5 characters
   (6 bits each): dbgen's "v-string" of addresses (clause 4.2.2.7). */
int sb_tpch_vstring(sb_tpch_stream_t *s, int min, int max, char *dst);

/* Shuffles perm[0..n) as dbgen does (for i = 0 .. n-1 swap perm[i] with
   perm[uniform i..n-1]); n draws. The caller fills perm first. */
void sb_tpch_permute(sb_tpch_stream_t *s, int32_t *perm, int n);

#endif
