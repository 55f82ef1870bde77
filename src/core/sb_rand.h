/*
 * Pseudo-random numbers for workloads (sysbench.rand.*).
 *
 * Generator: xoroshiro128+, one state per thread (thread-local). Thread t is
 * seeded from a hash (splitmix64) of (--rand-seed, t), so a non-zero seed
 * reproduces every thread's stream; seed 0 means "from the clock".
 * Bounds are inclusive; u denotes a uniform draw in [0,1).
 * Formulas: sysbench 1.1's src/sb_rand.c (gaussian as in 1.0.20).
 */
#ifndef SB_RAND_H
#define SB_RAND_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
  SB_RAND_UNIFORM,
  SB_RAND_GAUSSIAN,
  SB_RAND_SPECIAL,
  SB_RAND_PARETO,
  SB_RAND_ZIPFIAN
} sb_rand_dist_t;

/* Process-wide parameters; set once by sb_rand_init(), read-only after. */
typedef struct {
  sb_rand_dist_t dist;   /* --rand-type */
  uint64_t seed;         /* --rand-seed, resolved (never 0 after init) */
  bool seed_from_clock;  /* --rand-seed was 0 */
  unsigned spec_iter;    /* --rand-spec-iter, default 12 */
  unsigned spec_pct;     /* --rand-spec-pct, default 1 */
  unsigned spec_res;     /* --rand-spec-res, default 75 */
  double pareto_h;       /* --rand-pareto-h, default 0.2 */
  double zipf_exp;       /* --rand-zipfian-exp (theta), default 0.8 */
} sb_rand_params_t;

/* Parses a --rand-type name; returns 0 and sets *dist, or -1 if unknown. */
int sb_rand_parse_type(const char *name, sb_rand_dist_t *dist);

/*
 * Sets the process-wide parameters (copied). A zero seed is replaced by one
 * from the clock. Not thread-safe: call before any thread draws numbers.
 * Also seeds the calling thread as thread 0.
 */
void sb_rand_init(const sb_rand_params_t *params);

/* Returns the parameters in force (read-only). */
const sb_rand_params_t *sb_rand_params(void);

/* Seeds the calling thread's generator for thread id `tid` (made global
   in a cluster run, core/sb_cluster.h, so processes draw distinct
   streams). Call once at the start of every thread that draws numbers. */
void sb_rand_thread_init(int tid);

/* An explicit generator state (same xoroshiro128+ as the per-thread one)
   for streams that must not depend on which thread draws them, e.g. one
   stream per TPC-C load unit or per session. Plain data: copy it, keep it
   anywhere (FFI), one user at a time. */
typedef struct {
  uint64_t s[2];
} sb_rand_stream_t;

/* Seeds `st` from `key` through splitmix64 (never the all-zero state).
   Equal keys give equal streams. Thread-safe (touches only `st`). */
void sb_rand_stream_seed(sb_rand_stream_t *st, uint64_t key);

/* Next raw 64-bit value of stream `st`. Thread-safe per stream. */
uint64_t sb_rand_stream_next(sb_rand_stream_t *st);

/* splitmix64 of x (Steele, Lea, Flood 2014): a 64-bit mixing function
   for building stream keys from several numbers. Pure. */
uint64_t sb_rand_mix64(uint64_t x);
/* Saves / restores the calling thread's generator state (2 words): the
   event-loop engine gives each virtual user its own stream and switches
   it in and out around each resume. */
void sb_rand_state_get(uint64_t s[2]);
void sb_rand_state_set(const uint64_t s[2]);

/* Next raw 64-bit value of the calling thread's generator. */
uint64_t sb_rand_uniform_uint64(void);

/* u in [0,1) with 53 random bits. */
double sb_rand_uniform_double(void);

/* a + floor(u*(b-a+1)). Requires a <= b. */
uint32_t sb_rand_uniform(uint32_t a, uint32_t b);

/* The --rand-type distribution over [a,b]. */
uint32_t sb_rand_default(uint32_t a, uint32_t b);

/* Mean of spec_iter uniform draws scaled to [a,b] (1.0.20 semantics). */
uint32_t sb_rand_gaussian(uint32_t a, uint32_t b);

/* sysbench's "special": spec_res % of draws fall into the central
   spec_pct % of [a,b]. */
uint32_t sb_rand_special(uint32_t a, uint32_t b);

/* a + floor((b-a+1) * u^(ln h / ln(1-h))), h = pareto_h. */
uint32_t sb_rand_pareto(uint32_t a, uint32_t b);

/* a-1+k, k in [1,b-a+1] with P(k) ~ k^-s (s = zipf_exp), by
   rejection-inversion (Hormann & Derflinger 1996). */
uint32_t sb_rand_zipfian(uint32_t a, uint32_t b);

/* A uint32 that never repeats within 2^32 calls per process: a shared atomic
   index through a quadratic-residue permutation modulo 4294967291
   (Preshing's construction). Thread-safe. */
uint32_t sb_rand_unique(void);

/* Copies `fmt` into `buf` (same length, NUL-terminated), replacing each '#'
   by a random digit and each '@' by a random lowercase letter. `buf` must
   hold strlen(fmt)+1 bytes. */
void sb_rand_str(const char *fmt, char *buf);

/* Writes a random string of uniform length in [min_len,max_len] with
   characters in '0'..'z' (0x30..0x7a) into `buf` (not NUL-terminated unless
   room) and returns the length. `buf` must hold max_len bytes. */
uint32_t sb_rand_varstr(char *buf, uint32_t min_len, uint32_t max_len);

#endif
