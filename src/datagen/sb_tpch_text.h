/*
 * Comment text of the TPC-H-derived data generator (`bmk tpch`).
 *
 * TPC-H's comment columns are substrings of one long text made of
 * pseudo-English sentences from a small grammar (TPC-H specification
 * v3.0.1, clause 4.2.2.10). dbgen 2.17.3 builds that text once, 300 MiB
 * of it (314,572,800 bytes), from its own random stream (seed 933588178),
 * and every comment is then a uniformly placed piece of it of uniform
 * length: two draws of the column's stream. To give dbgen's rows, the
 * pool here is the same text, byte for byte.
 *
 * The pool is built once per process, on first use (about 2 s of one core
 * and 300 MiB of memory), and then shared read-only: sb_tpch_text_pool()
 * is thread-safe (pthread_once), and so is sb_tpch_text() for distinct
 * streams.
 */
#ifndef SB_TPCH_TEXT_H
#define SB_TPCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "datagen/sb_tpch_rand.h"

/* Bytes of the text pool (dbgen 2.17.3's 300 MiB). */
#define SB_TPCH_POOL_SIZE (300 * 1024 * 1024)

/* Longest sentence the grammar can make, in bytes (a bound, with room). */
#define SB_TPCH_SENTENCE_MAX 256

/* Writes one sentence drawn from stream `s` to dst (at least
   SB_TPCH_SENTENCE_MAX + 1 bytes; NUL-terminated) and returns its length.
   Grammar: a sentence form (noun phrase N, verb phrase V, prepositional
   phrase P = preposition + " the " + noun phrase, end T), words separated
   by one space, the end mark ('.', ';', ...) right after the last word.
   Exposed for the unit tests. */
int sb_tpch_sentence(sb_tpch_stream_t *s, char *dst);

/* The pool: SB_TPCH_POOL_SIZE bytes plus a NUL, built on first call.
   NULL when its memory cannot be allocated (then every later call is
   NULL too). */
const char *sb_tpch_text_pool(void);

/* Writes a comment of uniform length in min..max (max <= 1000) taken at a
   uniform offset of the pool to dst (max + 1 bytes, NUL-terminated) and
   returns its length; two draws of `s` (offset, then length). The pool
   must exist (sb_tpch_text_pool() returned non-NULL). */
int sb_tpch_text(sb_tpch_stream_t *s, int min, int max, char *dst);

#endif
