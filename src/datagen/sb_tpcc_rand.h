/*
 * Random primitives of the TPC-C-derived workload.
 *
 * Every function draws from an explicit stream (sb_rand_stream_t), never
 * from the per-thread generator: a load unit and a session each own a
 * stream seeded from (--rand-seed, unit or session), so one seed gives the
 * same data and the same inputs whatever the thread count. The Lua workload
 * (src/workloads/tpcc_*.lua) calls these through FFI; they are thread-safe as
 * long as a stream has one user at a time.
 *
 * Sources: TPC-C Standard Specification revision 5.11, clauses 2.1.6
 * (NURand), 4.3.2.2 (a-/n-strings), 4.3.2.3 (last names), 4.3.2.7 (zip),
 * 2.1.6.1 (C_RUN vs C_LOAD), 5.2.5.4 (think time). bmk's own decisions:
 * a 62-character a-string alphabet, think times in whole milliseconds.
 */
#ifndef SB_TPCC_RAND_H
#define SB_TPCC_RAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sb_rand.h"

/* Longest last name: three 5-letter syllables ("CALLYCALLYATION"). */
#define SB_TPCC_LASTNAME_MAX 15

/* Seeds `r` from a hash of (seed, a, b, c, d): e.g. (--rand-seed, set,
   warehouse, part, table) for a load unit, (--rand-seed, session, 0, 0, 0)
   for a session. Distinct tuples give independent streams. */
void sb_tpcc_seed(sb_rand_stream_t *r, uint64_t seed, int64_t a, int64_t b,
                  int64_t c, int64_t d);

/* The --rand-seed in force for this process (resolved: never 0; a
   clock-derived value when --rand-seed=0), for recording and for seeding
   streams. */
uint64_t sb_tpcc_run_seed(void);

/* rand(x,y): uniform integer in [x,y] (x <= y; returns x when x >= y). */
int64_t sb_tpcc_rand(sb_rand_stream_t *r, int64_t x, int64_t y);

/* Uniform double in [0,1) with 53 random bits. */
double sb_tpcc_rand_double(sb_rand_stream_t *r);

/* NURand(A,x,y) = (((rand(0,A) | rand(x,y)) + C) mod (y-x+1)) + x
   (clause 2.1.6); C is the run's constant for A (0..A). */
int32_t sb_tpcc_nurand(sb_rand_stream_t *r, int32_t A, int32_t x, int32_t y,
                       int32_t C);

/* Writes Lastname(num), num in 0..999, the syllables BAR OUGHT ABLE PRI
   PRES ESE ANTI CALLY ATION EING indexed by its three digits (371 ->
   PRICALLYOUGHT), NUL-terminated, into `buf` (at least
   SB_TPCC_LASTNAME_MAX+1 bytes). Returns the length; num outside 0..999
   is reduced modulo 1000. */
size_t sb_tpcc_lastname(int32_t num, char *buf);

/* a-string[min..max]: random length, characters from the 62 ASCII
   alphanumerics (bmk decision: byte lengths stay the same under any
   charset). Writes into `buf` (at least max bytes, not NUL-terminated);
   returns the length. */
size_t sb_tpcc_astring(sb_rand_stream_t *r, char *buf, int32_t min, int32_t max);

/* n-string[min..max]: like sb_tpcc_astring with digits only. */
size_t sb_tpcc_nstring(sb_rand_stream_t *r, char *buf, int32_t min, int32_t max);

/* `n` random letters A-Z (state codes, 2 letters). */
void sb_tpcc_letters(sb_rand_stream_t *r, char *buf, size_t n);

/* Zip code: 4 random digits followed by "11111" (clause 4.3.2.7); writes
   9 bytes, not NUL-terminated. */
void sb_tpcc_zip(sb_rand_stream_t *r, char *buf);

/* Replaces 8 bytes of `buf` (len >= 8) at a random position with
   "ORIGINAL" (clause 4.3.3.1, i_data and s_data). */
void sb_tpcc_original(sb_rand_stream_t *r, char *buf, size_t len);

/* Remote warehouse in the same set: r = rand(1, scale-1), w = r if
   r < home else r+1, so never `home`; returns `home` when scale < 2
   (nothing can be remote). home in 1..scale. */
int32_t sb_tpcc_remote_wh(sb_rand_stream_t *r, int32_t home, int32_t scale);

/* True when C_RUN satisfies clause 2.1.6.1 against C_LOAD (both 0..255):
   |C_RUN - C_LOAD| in [65,119] and not 96 or 112. */
bool sb_tpcc_c_delta_ok(int32_t c_load, int32_t c_run);

/* Draws C_RUN in 0..255 satisfying sb_tpcc_c_delta_ok against c_load
   (rejection sampling; c_load is reduced to 0..255). */
int32_t sb_tpcc_c_run(sb_rand_stream_t *r, int32_t c_load);

/* Think time in ms: round(-ln(u) * mean_ms) with u uniform in (0,1],
   truncated at 10 * mean_ms (clause 5.2.5.4; bmk rounds to 1 ms). */
int64_t sb_tpcc_think_ms(sb_rand_stream_t *r, double mean_ms);

/* Fills out[0..n-1] with a uniformly random permutation of 1..n
   (Fisher-Yates): o_c_id of a district's orders (clause 4.3.3.1). */
void sb_tpcc_permutation(sb_rand_stream_t *r, int32_t *out, int32_t n);

/* Shuffles a[0..n-1] in place (Fisher-Yates): the transaction deck. */
void sb_tpcc_shuffle(sb_rand_stream_t *r, int32_t *a, int32_t n);

/* Selection sampling (Knuth, TAOCP vol. 2, 3.4.2 Algorithm S): called for
   each of `n` items in order with *k_left = items still to pick and
   n_left = items not yet seen (this one included), it returns true for
   exactly the initial *k_left items overall, every k-subset equally
   likely, and decrements *k_left when it does. Exactly 10 % ORIGINAL
   rows and 300 BC customers per district use it. */
bool sb_tpcc_select(sb_rand_stream_t *r, int64_t *k_left, int64_t n_left);

/* Parses the decimal text p[0..len) ("-12.5", "0.0750", "3") into an
   integer scaled by 10^scale, exactly, truncating digits beyond `scale`
   (e.g. scale 2: "-12.5" -> -1250). Sets *ok (may be NULL) to false on
   empty or malformed input (then returns 0). For money and rates read
   from the server (amounts are kept exact, in cents). */
int64_t sb_tpcc_parse_fixed(const char *p, size_t len, int scale, bool *ok);

/* Formats v / 10^scale as decimal text ("-12.50" for v=-1250, scale 2)
   into `buf` (at least 24 bytes), NUL-terminated; returns the length. */
size_t sb_tpcc_fmt_fixed(char *buf, int64_t v, int scale);

#endif
