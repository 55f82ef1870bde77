/*
 * pgbench's pseudo-random numbers, bit for bit: its generator (PostgreSQL's
 * pg_prng, xoroshiro128** seeded through splitmix64), the distributions of
 * the script functions random, random_exponential, random_gaussian and
 * random_zipfian, the --rate Poisson delays, the hash functions and
 * permute(). With the same seed a script draws the same values as
 * pgbench 15 (tests/unit/test_pgscript_rand.c checks figures recorded from
 * pgbench 15.20).
 *
 * Sources of the algorithms (facts only, no code taken):
 * - PostgreSQL src/common/pg_prng.c: xoroshiro128** 1.0 (Blackman and
 *   Vigna, https://prng.di.unimi.it/), splitmix64 seeding, the all-zero
 *   state replaced by Knuth's LCG constants, bitmask rejection for ranges,
 *   doubles from the top 52 bits, Box-Muller for the normal distribution;
 * - PostgreSQL src/bin/pgbench/pgbench.c: getrand, getExponentialRand,
 *   getGaussianRand, getPoissonRand, computeIterativeZipfian (Devroye,
 *   "Non-Uniform Random Variate Generation", 1986, p. 550-551),
 *   getHashFnv1a, getHashMurmur2 (Austin Appleby's MurmurHash2, 64-bit
 *   single word), permute (six rounds of multiply/xor/rotate on the
 *   overlapping halves and a random offset).
 *
 * Everything here is pure computation on caller-owned state: thread-safe
 * as long as one state is not shared between threads.
 */
#ifndef PGS_RANDOM_H
#define PGS_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

/* A generator's state (pg_prng_state): never all zero once seeded. */
typedef struct {
  uint64_t s0, s1;
} pgs_prng_t;

/* Seeds `st` from a 64-bit seed (two splitmix64 outputs). */
void pgs_prng_seed(pgs_prng_t *st, uint64_t seed);

/* The next 64 random bits. */
uint64_t pgs_prng_u64(pgs_prng_t *st);

/* Uniform in [rmin, rmax] (rmin when the range is empty), by bitmask
   rejection: the same draws as pg_prng_uint64_range. */
uint64_t pgs_prng_u64_range(pgs_prng_t *st, uint64_t rmin, uint64_t rmax);

/* Uniform double in [0, 1) from the top 52 bits. */
double pgs_prng_double(pgs_prng_t *st);

/* Standard normal (mean 0, stddev 1) by Box-Muller on two draws. */
double pgs_prng_normal(pgs_prng_t *st);

/* Lower bound of random_gaussian's parameter and the range of
   random_zipfian's (pgbench's MIN_GAUSSIAN_PARAM, MIN_/MAX_ZIPFIAN_PARAM). */
#define PGS_MIN_GAUSSIAN_PARAM 2.0
#define PGS_MIN_ZIPFIAN_PARAM 1.001
#define PGS_MAX_ZIPFIAN_PARAM 1000.0

/* random(min, max): uniform integer in [min, max]. The caller checks that
   max - min + 1 does not overflow (pgbench's "random range is too large"). */
int64_t pgs_rand_uniform(pgs_prng_t *st, int64_t min, int64_t max);

/* random_exponential(min, max, param): param > 0 (checked by the caller). */
int64_t pgs_rand_exponential(pgs_prng_t *st, int64_t min, int64_t max, double param);

/* random_gaussian(min, max, param): param >= 2.0 (checked by the caller). */
int64_t pgs_rand_gaussian(pgs_prng_t *st, int64_t min, int64_t max, double param);

/* random_zipfian(min, max, s): 1.001 <= s <= 1000 (checked by the caller). */
int64_t pgs_rand_zipfian(pgs_prng_t *st, int64_t min, int64_t max, double s);

/* A Poisson-process delay whose mean is `center` (the unit of center):
   pgbench's --rate schedule. */
int64_t pgs_rand_poisson(pgs_prng_t *st, double center);

/* hash_fnv1a(v, seed) and hash_murmur2(v, seed) (hash() is murmur2). */
int64_t pgs_hash_fnv1a(int64_t v, uint64_t seed);
int64_t pgs_hash_murmur2(int64_t v, uint64_t seed);

/* permute(v, size, seed): a pseudo-random permutation of [0, size) applied
   to v mod size; 0 when size < 2. size > 0 is checked by the caller. */
int64_t pgs_permute(int64_t v, int64_t size, int64_t seed);

#endif
