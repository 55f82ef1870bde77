/*
 * Transaction retries: the --max-tries setting and the counts per error
 * code (sb_retry.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_counter.h"
#include "core/sb_retry.h"

static bool tries_given;
static unsigned tries_max;

static pthread_mutex_t codes_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned ncodes;          /* published with release after the slot is filled */
static char codes[SB_RETRY_CODES][SB_RETRY_CODE_MAX];
static sb_retry_kind_t kinds[SB_RETRY_CODES];
static uint64_t counts[SB_RETRY_CODES][SB_RETRY_WHAT];
static uint64_t base[SB_RETRY_CODES][SB_RETRY_WHAT];

void sb_retry_configure(bool given, unsigned tries)
{
  tries_given = given;
  tries_max = tries;
}

int sb_retry_max_tries(void)
{
  return tries_given ? (int) tries_max : -1;
}

sb_retry_kind_t sb_retry_kind_of(const char *code)
{
  if (code == NULL)
    return SB_RETRY_OTHER;
  if (strcmp(code, "40001") == 0)
    return SB_RETRY_SERIALIZATION;
  /* MySQL's lock wait timeout is how InnoDB ends a wait it did not see as
     a deadlock (innodb_lock_wait_timeout): counted with the deadlocks */
  if (strcmp(code, "40P01") == 0 || strcmp(code, "1213") == 0 || strcmp(code, "1205") == 0)
    return SB_RETRY_DEADLOCK;
  return SB_RETRY_OTHER;
}

const char *sb_retry_kind_name(sb_retry_kind_t kind)
{
  static const char *const names[SB_RETRY_KINDS] = { "serialization", "deadlock", "other" };
  return kind < SB_RETRY_KINDS ? names[kind] : "other";
}

/* The slot of `code`, registering it; the last slot takes the codes past
   the table's size. */
static unsigned code_slot(const char *code)
{
  char key[SB_RETRY_CODE_MAX];
  snprintf(key, sizeof(key), "%s", code != NULL && *code ? code : "none");
  unsigned n = __atomic_load_n(&ncodes, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++)
    if (strcmp(codes[i], key) == 0)
      return i;
  pthread_mutex_lock(&codes_mutex);
  n = ncodes;
  unsigned i = 0;
  while (i < n && strcmp(codes[i], key) != 0)
    i++;
  if (i == n)
  {
    if (n == SB_RETRY_CODES)
    {
      i = n - 1;
      snprintf(codes[i], sizeof(codes[i]), "more");
      kinds[i] = SB_RETRY_OTHER;
    }
    else
    {
      memcpy(codes[i], key, sizeof(key));
      kinds[i] = sb_retry_kind_of(key);
      __atomic_store_n(&ncodes, n + 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&codes_mutex);
  return i;
}

void sb_retry_count(int thread_id, const char *code, int what)
{
  if (what < 0 || what >= SB_RETRY_WHAT)
    return;
  unsigned i = code_slot(code);
  __atomic_fetch_add(&counts[i][what], 1, __ATOMIC_RELAXED);
  if (what == SB_RETRY_RETRIES)
    sb_counter_inc(thread_id, SB_CNT_RETRY);
  else if (what == SB_RETRY_FAILURES)
    sb_counter_inc(thread_id, SB_CNT_FAILED);
}

void sb_retry_rebase(void)
{
  for (unsigned i = 0; i < SB_RETRY_CODES; i++)
    for (unsigned w = 0; w < SB_RETRY_WHAT; w++)
      __atomic_store_n(&base[i][w], __atomic_load_n(&counts[i][w], __ATOMIC_RELAXED),
                       __ATOMIC_RELAXED);
}

void sb_retry_snapshot(sb_retry_snap_t *out, bool since_base)
{
  memset(out, 0, sizeof(*out));
  unsigned n = __atomic_load_n(&ncodes, __ATOMIC_ACQUIRE);
  out->ncodes = n;
  for (unsigned i = 0; i < n; i++)
  {
    pthread_mutex_lock(&codes_mutex);   /* "more" may rename the last slot */
    memcpy(out->code[i], codes[i], SB_RETRY_CODE_MAX);
    out->kind[i] = kinds[i];
    pthread_mutex_unlock(&codes_mutex);
    for (unsigned w = 0; w < SB_RETRY_WHAT; w++)
    {
      uint64_t v = __atomic_load_n(&counts[i][w], __ATOMIC_RELAXED);
      uint64_t b = since_base ? __atomic_load_n(&base[i][w], __ATOMIC_RELAXED) : 0;
      v = v > b ? v - b : 0;
      out->by_code[i].n[w] = v;
      out->by_kind[out->kind[i]].n[w] += v;
      out->total.n[w] += v;
    }
  }
}

void sb_retry_reset(void)
{
  ncodes = 0;
  memset(codes, 0, sizeof(codes));
  memset(counts, 0, sizeof(counts));
  memset(base, 0, sizeof(base));
}
