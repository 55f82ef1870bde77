/*
 * Query parameters of the TPC-H-derived workload: qgen 2.17.3's draws,
 * defaults and stream orders (see sb_tpch_qgen.h). The per-query rules
 * are TPC-H specification v3.0.1 clause 2.4; the order of the draws is
 * qgen's.
 */
#include "datagen/sb_tpch_qgen.h"

#include <stdio.h>
#include <string.h>

#include "datagen/sb_tpch_dists.h"
#include "datagen/sb_tpch_rand.h"

/* Appendix A: the query order of streams 0..40. */
static const int8_t order[SB_TPCH_PERMUTATIONS][SB_TPCH_QUERIES] = {
  {14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12},
  {21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4},
  {6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21},
  {8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3},
  {5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20},
  {21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9},
  {10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21},
  {18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12},
  {19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11},
  {8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16},
  {6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5},
  {15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7},
  {1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15},
  {21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19},
  {2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6},
  {16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18},
  {1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21},
  {3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12},
  {14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16},
  {4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1},
  {16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8},
  {20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2},
  {16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17},
  {18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7},
  {7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16},
  {18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9},
  {13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16},
  {14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19},
  {10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11},
  {10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4},
  {7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2},
  {2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22},
  {15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2},
  {15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1},
  {1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2},
  {14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11},
  {9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19},
  {13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20},
  {20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9},
  {3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2},
  {13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19},
};

/* The validation parameters (qgen -d), "" ends a list; Q11's is computed. */
static const char *const defaults[SB_TPCH_QUERIES][SB_TPCH_PARAMS_MAX] = {
  {"90"}, {"15", "BRASS", "EUROPE"}, {"BUILDING", "1995-03-15"}, {"1993-07-01"},
  {"ASIA", "1994-01-01"}, {"1994-01-01", ".06", "24"}, {"FRANCE", "GERMANY"},
  {"BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"}, {"green"}, {"1993-10-01"},
  {"GERMANY", ""}, {"MAIL", "SHIP", "1994-01-01"}, {"special", "requests"},
  {"1995-09-01"}, {"1996-01-01"},
  {"Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"},
  {"Brand#23", "MED BOX"}, {"300"},
  {"Brand#12", "Brand#23", "Brand#34", "1", "10", "20"},
  {"forest", "1994-01-01", "CANADA"}, {"SAUDI ARABIA"},
  {"13", "31", "23", "29", "30", "18", "17"},
};

/* Q13's word pairs (qgen's lists; uniform). */
static const char *const q13_words1[4] = { "special", "pending", "unusual", "express" };
static const char *const q13_words2[4] = { "packages", "requests", "accounts", "deposits" };

int sb_tpch_qgen_order(int stream, int pos)
{
  if (stream < 0 || pos < 1 || pos > SB_TPCH_QUERIES)
    return 0;
  return order[stream % SB_TPCH_PERMUTATIONS][pos - 1];
}

int sb_tpch_qgen_rowcount(int q)
{
  switch (q) {
  case 2: case 18: case 21: return 100;
  case 3: return 10;
  case 10: return 20;
  default: return -1;
  }
}

static const char *word(int d, int i)
{
  return sb_tpch_dists[d].words[i].text;
}

static int pick(sb_tpch_stream_t *s, int d)
{
  return sb_tpch_pick(s, &sb_tpch_dists[d]);
}

/* A nation drawn uniformly (qgen's "nations2": all weights 1). */
static int nation(sb_tpch_stream_t *s)
{
  return (int)sb_tpch_unif(s, 1, SB_TPCH_NATIONS) - 1;
}

/* "19YY-MM-01" of month m (0 = January 1993). */
static void month(char *dst, int64_t m)
{
  snprintf(dst, SB_TPCH_PARAM_LEN, "19%02d-%02d-01", (int)(93 + m / 12), (int)(m % 12 + 1));
}

static void put(sb_tpch_params_t *out, const char *s)
{
  out->n++;
  snprintf(out->p[out->n], SB_TPCH_PARAM_LEN, "%s", s);
}

static void put_int(sb_tpch_params_t *out, int64_t v)
{
  out->n++;
  snprintf(out->p[out->n], SB_TPCH_PARAM_LEN, "%lld", (long long)v);
}

/* "Brand#MN" with M, N uniform in 1..5. */
static void brand(sb_tpch_stream_t *s, sb_tpch_params_t *out)
{
  int64_t m = sb_tpch_unif(s, 1, 5), n = sb_tpch_unif(s, 1, 5);
  out->n++;
  snprintf(out->p[out->n], SB_TPCH_PARAM_LEN, "Brand#%lld%lld", (long long)m, (long long)n);
}

/* The last word of a part type (Q2), or all but it (Q16). */
static void type_part(sb_tpch_stream_t *s, int last, sb_tpch_params_t *out)
{
  const char *t = word(SB_TPCH_D_TYPES, pick(s, SB_TPCH_D_TYPES));
  const char *sp = strrchr(t, ' ');
  out->n++;
  if (last)
    snprintf(out->p[out->n], SB_TPCH_PARAM_LEN, "%s", sp + 1);
  else
    snprintf(out->p[out->n], SB_TPCH_PARAM_LEN, "%.*s", (int)(sp - t), t);
}

/* Queries 1-11. */
static void draw_a(sb_tpch_stream_t *s, int q, double sf, sb_tpch_params_t *out)
{
  char tmp[SB_TPCH_PARAM_LEN];
  int a, b;
  switch (q) {
  case 1: put_int(out, sb_tpch_unif(s, 60, 120)); break;
  case 2:
    put_int(out, sb_tpch_unif(s, 1, 50));
    type_part(s, 1, out);
    put(out, word(SB_TPCH_D_REGIONS, pick(s, SB_TPCH_D_REGIONS)));
    break;
  case 3:
    put(out, word(SB_TPCH_D_SEGMENTS, pick(s, SB_TPCH_D_SEGMENTS)));
    snprintf(tmp, sizeof(tmp), "1995-03-%02d", (int)sb_tpch_unif(s, 0, 30) + 1);
    put(out, tmp);
    break;
  case 4:
    month(tmp, sb_tpch_unif(s, 0, 57));
    put(out, tmp);
    break;
  case 5:
    put(out, word(SB_TPCH_D_REGIONS, pick(s, SB_TPCH_D_REGIONS)));
    snprintf(tmp, sizeof(tmp), "19%02d-01-01", (int)sb_tpch_unif(s, 93, 97));
    put(out, tmp);
    break;
  case 6:
    snprintf(tmp, sizeof(tmp), "19%02d-01-01", (int)sb_tpch_unif(s, 93, 97));
    put(out, tmp);
    snprintf(tmp, sizeof(tmp), "0.%02d", (int)sb_tpch_unif(s, 2, 9));
    put(out, tmp);
    put_int(out, sb_tpch_unif(s, 24, 25));
    break;
  case 7:
    a = nation(s);
    while ((b = nation(s)) == a)
      ;
    put(out, sb_tpch_nations[a].name);
    put(out, sb_tpch_nations[b].name);
    break;
  case 8:
    a = nation(s);
    put(out, sb_tpch_nations[a].name);
    put(out, word(SB_TPCH_D_REGIONS, sb_tpch_nations[a].region));
    put(out, word(SB_TPCH_D_TYPES, pick(s, SB_TPCH_D_TYPES)));
    break;
  case 9: put(out, word(SB_TPCH_D_COLORS, pick(s, SB_TPCH_D_COLORS))); break;
  case 10:
    month(tmp, sb_tpch_unif(s, 1, 24));
    put(out, tmp);
    break;
  default:   /* 11 */
    put(out, sb_tpch_nations[nation(s)].name);
    snprintf(tmp, sizeof(tmp), "%11.10f", 0.0001 / sf);
    put(out, tmp);
    break;
  }
}

/* Queries 12-22. */
static void draw_b(sb_tpch_stream_t *s, int q, sb_tpch_params_t *out)
{
  char tmp[SB_TPCH_PARAM_LEN];
  int32_t perm[50];
  int a, b;
  switch (q) {
  case 12:
    a = pick(s, SB_TPCH_D_SHIPMODES);
    while ((b = pick(s, SB_TPCH_D_SHIPMODES)) == a)
      ;
    put(out, word(SB_TPCH_D_SHIPMODES, a));
    put(out, word(SB_TPCH_D_SHIPMODES, b));
    snprintf(tmp, sizeof(tmp), "19%02d-01-01", (int)sb_tpch_unif(s, 93, 97));
    put(out, tmp);
    break;
  case 13:   /* weights 20 and 40 each: a uniform pick */
    put(out, q13_words1[(sb_tpch_unif(s, 1, 80) - 1) / 20]);
    put(out, q13_words2[(sb_tpch_unif(s, 1, 160) - 1) / 40]);
    break;
  case 14:
    month(tmp, sb_tpch_unif(s, 0, 59));
    put(out, tmp);
    break;
  case 15:
    month(tmp, sb_tpch_unif(s, 0, 57));
    put(out, tmp);
    break;
  case 16:
    brand(s, out);
    type_part(s, 0, out);
    for (int i = 0; i < 50; i++)
      perm[i] = i + 1;
    sb_tpch_permute(s, perm, 50);
    for (int i = 0; i < 8; i++)
      put_int(out, perm[i]);
    break;
  case 17:
    brand(s, out);
    put(out, word(SB_TPCH_D_CONTAINERS, pick(s, SB_TPCH_D_CONTAINERS)));
    break;
  case 18: put_int(out, sb_tpch_unif(s, 312, 315)); break;
  case 19:
    brand(s, out);
    brand(s, out);
    brand(s, out);
    put_int(out, sb_tpch_unif(s, 1, 10));
    put_int(out, sb_tpch_unif(s, 10, 20));
    put_int(out, sb_tpch_unif(s, 20, 30));
    break;
  case 20:
    put(out, word(SB_TPCH_D_COLORS, pick(s, SB_TPCH_D_COLORS)));
    snprintf(tmp, sizeof(tmp), "19%02d-01-01", (int)sb_tpch_unif(s, 93, 97));
    put(out, tmp);
    put(out, sb_tpch_nations[nation(s)].name);
    break;
  case 21: put(out, sb_tpch_nations[nation(s)].name); break;
  default:   /* 22 */
    for (int i = 0; i < 25; i++)
      perm[i] = i;
    sb_tpch_permute(s, perm, 25);
    for (int i = 0; i < 7; i++)
      put_int(out, 10 + perm[i]);
    break;
  }
}

int sb_tpch_qgen_params(int64_t seed, int q, double sf, sb_tpch_params_t *out)
{
  sb_tpch_stream_t s = { 0, 0 };
  if (q < 1 || q > SB_TPCH_QUERIES || seed < 1 || seed >= SB_TPCH_RAND_M || !(sf > 0))
    return -1;
  memset(out, 0, sizeof(*out));
  out->query = q;
  /* qgen: stream q starts at the seed advanced q times */
  s.value = sb_tpch_skip(seed, q);
  if (q <= 11)
    draw_a(&s, q, sf, out);
  else
    draw_b(&s, q, out);
  return 0;
}

int sb_tpch_qgen_defaults(int q, double sf, sb_tpch_params_t *out)
{
  if (q < 1 || q > SB_TPCH_QUERIES || !(sf > 0))
    return -1;
  memset(out, 0, sizeof(*out));
  out->query = q;
  for (int i = 0; i < SB_TPCH_PARAMS_MAX && defaults[q - 1][i] != NULL; i++) {
    if (q == 11 && i == 1)
      snprintf(out->p[i + 1], SB_TPCH_PARAM_LEN, "%11.10f", 0.0001 / sf);
    else
      snprintf(out->p[i + 1], SB_TPCH_PARAM_LEN, "%s", defaults[q - 1][i]);
    out->n = i + 1;
  }
  return 0;
}
