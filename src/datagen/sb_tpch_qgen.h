/*
 * Query parameters of the TPC-H-derived workload (`bmk tpch`): the
 * substitution parameters of the 22 queries as TPC-H's reference tool
 * qgen 2.17.3 draws them (TPC-H specification v3.0.1, clause 2.4: each
 * query's "Substitution Parameters"), the validation defaults of `qgen -d`
 * (clause 2.4, "Query Validation"), and the query order of each stream
 * (Appendix A's 41 permutations).
 *
 * qgen seeds its 22 query streams from one seed s: query q uses a
 * Park-Miller stream (sb_tpch_rand.h) started at s advanced q times, so a
 * query's parameters depend on the seed (and, for Q11, on SF) only, not
 * on the stream or on the other queries. `qgen -r s` is reproduced for
 * any s in 1 .. 2^31-2.
 *
 * Everything here is reentrant: a parameter set is computed into the
 * caller's struct. Exported for LuaJIT FFI (src/workloads/tpch_run.lua).
 */
#ifndef SB_TPCH_QGEN_H
#define SB_TPCH_QGEN_H

#include <stdint.h>

#define SB_TPCH_QUERIES 22
#define SB_TPCH_PERMUTATIONS 41
#define SB_TPCH_PARAMS_MAX 10          /* parameters of one query (Q16) */
#define SB_TPCH_PARAM_LEN 32

/* One query's parameters: p[1..n] as qgen substitutes them for ":1" ..
   ":n" (p[0] unused), NUL-terminated text. */
typedef struct {
  int32_t query;
  int32_t n;
  char p[SB_TPCH_PARAMS_MAX + 1][SB_TPCH_PARAM_LEN];
} sb_tpch_params_t;

/* Computes query `q`'s (1..22) parameters for seed `seed` (qgen -r; 1 ..
   2^31-2) at scale factor `sf` (> 0; used by Q11's fraction 0.0001/SF)
   into *out. Returns 0, or -1 for a bad query or seed. */
int sb_tpch_qgen_params(int64_t seed, int q, double sf, sb_tpch_params_t *out);

/* The same, with qgen -d's defaults: the validation parameters (clause
   2.4.x.3 of each query; Q11's fraction still 0.0001/SF). */
int sb_tpch_qgen_defaults(int q, double sf, sb_tpch_params_t *out);

/* The query at position `pos` (1..22) of stream `stream` (>= 0; stream
   41 is stream 0 again): Appendix A's table. 0 for a bad argument. */
int sb_tpch_qgen_order(int stream, int pos);

/* Rows a query's answer is limited to (qgen's :n; Q2 100, Q3 10, Q10 20,
   Q18 100, Q21 100), or -1 for none. */
int sb_tpch_qgen_rowcount(int q);

#endif
