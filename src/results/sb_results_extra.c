/* A workload's own members of the results document; see
   results/sb_results_extra.h. */
#include <pthread.h>

#include "results/sb_results_extra.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *extra;            /* object: name -> value */

void sb_results_extra_set(const char *name, json_t *value)
{
  pthread_mutex_lock(&lock);
  if (extra == NULL)
    extra = json_object();
  if (extra && value)
    json_object_set_new(extra, name, value);
  else
    json_decref(value);
  pthread_mutex_unlock(&lock);
}

void sb_results_extra_add(json_t *doc)
{
  pthread_mutex_lock(&lock);
  if (extra)
    json_object_update(doc, extra);
  pthread_mutex_unlock(&lock);
}

static const char *iv_name;
static json_t *(*iv_fn)(void *ctx, double start_s, double len_s);
static void *iv_ctx;

void sb_results_extra_interval_source(const char *name,
                                      json_t *(*fn)(void *ctx, double start_s, double len_s),
                                      void *ctx)
{
  pthread_mutex_lock(&lock);
  iv_name = name;
  iv_fn = fn;
  iv_ctx = ctx;
  pthread_mutex_unlock(&lock);
}

void sb_results_extra_interval_add(json_t *row, double start_s, double len_s)
{
  pthread_mutex_lock(&lock);
  json_t *(*fn)(void *, double, double) = iv_fn;
  const char *name = iv_name;
  void *ctx = iv_ctx;
  pthread_mutex_unlock(&lock);
  json_t *v = fn ? fn(ctx, start_s, len_s) : NULL;
  if (v)
    json_object_set_new(row, name, v);
}

static void (*hdr_fn)(void *ctx, double start_s, bool final, sb_results_hdr_emit_t emit,
                      void *ectx);
static void *hdr_ctx;

void sb_results_extra_hdr_source(void (*fn)(void *ctx, double start_s, bool final,
                                            sb_results_hdr_emit_t emit, void *ectx),
                                 void *ctx)
{
  pthread_mutex_lock(&lock);
  hdr_fn = fn;
  hdr_ctx = ctx;
  pthread_mutex_unlock(&lock);
}

void sb_results_extra_hdr_each(double start_s, bool final, sb_results_hdr_emit_t emit,
                               void *ectx)
{
  pthread_mutex_lock(&lock);
  void (*fn)(void *, double, bool, sb_results_hdr_emit_t, void *) = hdr_fn;
  void *ctx = hdr_ctx;
  pthread_mutex_unlock(&lock);
  if (fn)
    fn(ctx, start_s, final, emit, ectx);
}
