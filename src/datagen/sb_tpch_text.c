/*
 * Comment text of the TPC-H-derived generator: the grammar, the pool and
 * the draws (see sb_tpch_text.h).
 */
#include "datagen/sb_tpch_text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The seed of the stream the pool is made from (dbgen 2.17.3). */
#define POOL_SEED 933588178

static char *pool;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Appends a word of list `d` at dst[*pos]. */
static void put_word(sb_tpch_stream_t *s, int d, char *dst, int *pos)
{
  const sb_tpch_dist_t *dist = &sb_tpch_dists[d];
  const char *w = dist->words[sb_tpch_pick(s, dist)].text;
  size_t n = strlen(w);
  memcpy(dst + *pos, w, n);
  *pos += (int)n;
}

/* Appends a phrase of form list `forms` (noun or verb phrase): each form
   letter is a word, an optional second character (',') follows the word,
   then a space. */
static void put_phrase(sb_tpch_stream_t *s, int forms, char *dst, int *pos)
{
  const sb_tpch_dist_t *fd = &sb_tpch_dists[forms];
  const char *f = fd->words[sb_tpch_pick(s, fd)].text;
  while (*f) {
    int d;
    if (*f == ' ') {
      f++;
      continue;
    }
    switch (*f) {
    case 'A': d = SB_TPCH_D_ARTICLES; break;
    case 'J': d = SB_TPCH_D_ADJECTIVES; break;
    case 'D': d = SB_TPCH_D_ADVERBS; break;
    case 'N': d = SB_TPCH_D_NOUNS; break;
    case 'V': d = SB_TPCH_D_VERBS; break;
    default: d = SB_TPCH_D_AUXILIARIES; break;   /* 'X' */
    }
    put_word(s, d, dst, pos);
    f++;
    if (*f && *f != ' ')
      dst[(*pos)++] = *f++;
    dst[(*pos)++] = ' ';
  }
}

int sb_tpch_sentence(sb_tpch_stream_t *s, char *dst)
{
  const sb_tpch_dist_t *g = &sb_tpch_dists[SB_TPCH_D_GRAMMAR];
  const char *f = g->words[sb_tpch_pick(s, g)].text;
  int pos = 0;
  for (; *f; f++) {
    switch (*f) {
    case 'N':
      put_phrase(s, SB_TPCH_D_NP, dst, &pos);
      break;
    case 'V':
      put_phrase(s, SB_TPCH_D_VP, dst, &pos);
      break;
    case 'P':
      put_word(s, SB_TPCH_D_PREPOSITIONS, dst, &pos);
      memcpy(dst + pos, " the ", 5);
      pos += 5;
      put_phrase(s, SB_TPCH_D_NP, dst, &pos);
      break;
    case 'T':
      pos--;   /* the end mark replaces the last space */
      put_word(s, SB_TPCH_D_TERMINATORS, dst, &pos);
      break;
    default:
      break;
    }
  }
  dst[pos] = '\0';
  return pos;
}

static void build_pool(void)
{
  sb_tpch_stream_t s = { POOL_SEED, 0 };
  char sentence[SB_TPCH_SENTENCE_MAX + 1];
  size_t filled = 0;
  char *p = malloc((size_t)SB_TPCH_POOL_SIZE + 1);
  if (p == NULL)
    return;
  while (filled < SB_TPCH_POOL_SIZE) {
    size_t len = (size_t)sb_tpch_sentence(&s, sentence);
    size_t room = SB_TPCH_POOL_SIZE - filled;
    if (room >= len + 1) {
      memcpy(p + filled, sentence, len);
      p[filled + len] = ' ';
      filled += len + 1;
    } else {
      memcpy(p + filled, sentence, room);   /* the last one is cut */
      filled += room;
    }
  }
  p[filled] = '\0';
  pool = p;
}

const char *sb_tpch_text_pool(void)
{
  pthread_once(&pool_once, build_pool);
  return pool;
}

int sb_tpch_text(sb_tpch_stream_t *s, int min, int max, char *dst)
{
  int64_t off = sb_tpch_unif(s, 0, SB_TPCH_POOL_SIZE - max);
  int len = (int)sb_tpch_unif(s, min, max);
  memcpy(dst, pool + off, (size_t)len);
  dst[len] = '\0';
  return len;
}
