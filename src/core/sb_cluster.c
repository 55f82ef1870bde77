/* A process's place in a cluster run; see core/sb_cluster.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_cluster.h"

typedef struct {
  char key[SB_CLUSTER_NOTE_KEY];
  char value[SB_CLUSTER_NOTE_VALUE];
} note_t;

static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;
static note_t *notes;
static unsigned nnotes, notes_cap;

static unsigned c_index, c_size = 1, c_threads;

void sb_cluster_set(unsigned index, unsigned size, unsigned threads)
{
  c_index = index;
  c_size = size ? size : 1;
  c_threads = threads;
}

unsigned sb_cluster_index(void)
{
  return c_index;
}

unsigned sb_cluster_size(void)
{
  return c_size;
}

int sb_cluster_global_tid(int tid)
{
  if (tid < 0)
    return tid;
  return (int) (c_index * c_threads) + tid;
}

uint64_t sb_cluster_share(uint64_t total, unsigned index, unsigned size)
{
  if (size == 0)
    return total;
  return total / size + (index < total % size ? 1 : 0);
}

static bool key_ok(const char *k)
{
  size_t n = strlen(k);
  if (n == 0 || n >= SB_CLUSTER_NOTE_KEY)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
          (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '.' || k[i] == '-'))
      return false;
  return true;
}

int sb_cluster_note(const char *key, const char *value)
{
  if (key == NULL || value == NULL || !key_ok(key) || strlen(value) >= SB_CLUSTER_NOTE_VALUE ||
      strpbrk(value, "\r\n") != NULL)
    return -1;
  int rc = 0;
  pthread_mutex_lock(&notes_lock);
  unsigned i;
  for (i = 0; i < nnotes; i++)
    if (strcmp(notes[i].key, key) == 0 && strcmp(notes[i].value, value) == 0)
      break;
  if (i == nnotes)
  {
    if (nnotes == notes_cap)
    {
      unsigned cap = notes_cap ? notes_cap * 2 : 16;
      note_t *n = cap <= SB_CLUSTER_NOTES_MAX ? realloc(notes, cap * sizeof(*n)) : NULL;
      if (n == NULL)
        rc = -1;
      else
      {
        notes = n;
        notes_cap = cap;
      }
    }
    if (rc == 0)
    {
      snprintf(notes[nnotes].key, sizeof(notes[nnotes].key), "%s", key);
      snprintf(notes[nnotes].value, sizeof(notes[nnotes].value), "%s", value);
      nnotes++;
    }
  }
  pthread_mutex_unlock(&notes_lock);
  return rc;
}

void sb_cluster_notes_each(void (*fn)(void *ctx, const char *key, const char *value),
                           void *ctx)
{
  pthread_mutex_lock(&notes_lock);
  for (unsigned i = 0; i < nnotes; i++)
    fn(ctx, notes[i].key, notes[i].value);
  pthread_mutex_unlock(&notes_lock);
}
