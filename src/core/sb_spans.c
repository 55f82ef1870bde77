/* The spans of a run; see core/sb_spans.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_spans.h"

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static sb_span_t *spans;       /* start_s and end_s: monotonic seconds */
static size_t nspans, cap;
static double origin_s;

void sb_span_add(int lane, int label, double start_ms, double end_ms)
{
  pthread_mutex_lock(&mtx);
  if (nspans == cap)
  {
    size_t ncap = cap ? cap * 2 : 256;
    sb_span_t *p = realloc(spans, ncap * sizeof(*p));
    if (p == NULL)
    {
      pthread_mutex_unlock(&mtx);
      return;
    }
    spans = p;
    cap = ncap;
  }
  spans[nspans++] = (sb_span_t) { lane, label, start_ms / 1e3, end_ms / 1e3 };
  pthread_mutex_unlock(&mtx);
}

void sb_spans_origin(uint64_t t0_ns)
{
  pthread_mutex_lock(&mtx);
  origin_s = (double) t0_ns / 1e9;
  pthread_mutex_unlock(&mtx);
}

sb_span_t *sb_spans_list(size_t *n)
{
  *n = 0;
  pthread_mutex_lock(&mtx);
  sb_span_t *out = nspans ? malloc(nspans * sizeof(*out)) : NULL;
  for (size_t i = 0; out && i < nspans; i++)
    if (spans[i].start_s >= origin_s)
    {
      out[*n] = spans[i];
      out[*n].start_s -= origin_s;
      out[*n].end_s -= origin_s;
      (*n)++;
    }
  pthread_mutex_unlock(&mtx);
  if (out && *n == 0)
  {
    free(out);
    out = NULL;
  }
  return out;
}
