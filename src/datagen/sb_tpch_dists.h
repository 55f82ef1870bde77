/*
 * Word lists of the TPC-H-derived data generator (`bmk tpch`).
 *
 * TPC-H's reference generator, dbgen 2.17.3, draws the text columns and
 * the coded columns (containers, part types, priorities, ...) from
 * weighted word lists and builds its comment text from a small grammar
 * (TPC-H specification v3.0.1, clauses 4.2.2.10 and 4.2.3). These are
 * those lists, as facts: the words, in dbgen's order, with dbgen's
 * weights. The order and the weights matter: a draw picks the first word
 * whose running weight total reaches a uniform number in 1..total, so a
 * different order gives different rows.
 *
 * All data here is constant; reading it is thread-safe.
 */
#ifndef SB_TPCH_DISTS_H
#define SB_TPCH_DISTS_H

#include <stdint.h>

/* One word and its weight (a positive count of "tickets"). */
typedef struct {
  const char *text;
  int32_t weight;
} sb_tpch_word_t;

/* One list: its dbgen name, words, number of words and the sum of the
   weights (the upper bound of a draw). */
typedef struct {
  const char *name;
  const sb_tpch_word_t *words;
  int32_t count;
  int32_t total;
} sb_tpch_dist_t;

/* The lists, indexes into sb_tpch_dists[]. */
enum {
  SB_TPCH_D_CONTAINERS = 0,  /* p_container */
  SB_TPCH_D_COLORS,          /* the words of p_name */
  SB_TPCH_D_TYPES,           /* p_type */
  SB_TPCH_D_REGIONS,         /* r_name */
  SB_TPCH_D_PRIORITIES,      /* o_orderpriority */
  SB_TPCH_D_INSTRUCT,        /* l_shipinstruct */
  SB_TPCH_D_SHIPMODES,       /* l_shipmode */
  SB_TPCH_D_RFLAGS,          /* l_returnflag of a returned item */
  SB_TPCH_D_SEGMENTS,        /* c_mktsegment */
  SB_TPCH_D_NOUNS,           /* the text grammar's parts of speech ... */
  SB_TPCH_D_VERBS,
  SB_TPCH_D_ADJECTIVES,
  SB_TPCH_D_ADVERBS,
  SB_TPCH_D_AUXILIARIES,
  SB_TPCH_D_TERMINATORS,
  SB_TPCH_D_ARTICLES,
  SB_TPCH_D_PREPOSITIONS,
  SB_TPCH_D_GRAMMAR,         /* ... sentence forms ... */
  SB_TPCH_D_NP,              /* ... noun phrase forms ... */
  SB_TPCH_D_VP,              /* ... verb phrase forms */
  SB_TPCH_NDISTS
};

extern const sb_tpch_dist_t sb_tpch_dists[SB_TPCH_NDISTS];

/* The 25 nations of N_NAME in key order (n_nationkey 0..24) with their
   region keys (n_regionkey); TPC-H specification clause 4.2.3. */
#define SB_TPCH_NATIONS 25
#define SB_TPCH_REGIONS 5
typedef struct {
  const char *name;
  int32_t region;
} sb_tpch_nation_t;

extern const sb_tpch_nation_t sb_tpch_nations[SB_TPCH_NATIONS];

#endif
