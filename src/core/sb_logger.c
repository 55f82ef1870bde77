/* Log output; see sb_logger.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_logger.h"

static int verbosity = 3;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Repeat collapsing: the last line printed and how often it repeated. */
static char last_msg[4096];
static unsigned long last_repeats;

static const char *prefix[] = {
  "FATAL: ", "ALERT: ", "WARNING: ", "", "", "DEBUG: "
};

void log_set_verbosity(int v)
{
  verbosity = v;
}

int log_get_verbosity(void)
{
  return verbosity;
}

/* Caller holds log_mutex. */
static void flush_repeats_locked(void)
{
  if (last_repeats > 0)
  {
    fprintf(stdout, "(last message repeated %lu times)\n", last_repeats);
    last_repeats = 0;
  }
}

void log_flush(void)
{
  pthread_mutex_lock(&log_mutex);
  flush_repeats_locked();
  last_msg[0] = '\0';
  fflush(stdout);
  pthread_mutex_unlock(&log_mutex);
}

void log_vtext(log_level_t level, const char *fmt, va_list ap)
{
  char buf[sizeof(last_msg)];
  int n;

  if ((int) level > verbosity)
    return;

  n = snprintf(buf, sizeof(buf), "%s", prefix[level]);
  vsnprintf(buf + n, sizeof(buf) - (size_t) n, fmt, ap);
  /* As in sysbench, every message gets a newline: a trailing "\n" in the
     format therefore produces a blank line after it. */
  size_t len = strlen(buf);
  if (len + 1 >= sizeof(buf))
    len = sizeof(buf) - 2;
  buf[len++] = '\n';
  buf[len] = '\0';

  pthread_mutex_lock(&log_mutex);
  /* Blank lines are layout, not messages: never collapse them. */
  if (buf[0] != '\n' && strcmp(buf, last_msg) == 0)
    last_repeats++;
  else
  {
    flush_repeats_locked();
    fputs(buf, stdout);
    memcpy(last_msg, buf, len + 1);
  }
  fflush(stdout);
  pthread_mutex_unlock(&log_mutex);
}

void log_text(log_level_t level, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  log_vtext(level, fmt, ap);
  va_end(ap);
}

void log_raw(const char *fmt, ...)
{
  va_list ap;

  if (verbosity < LOG_NOTICE)
    return;
  pthread_mutex_lock(&log_mutex);
  flush_repeats_locked();
  /* Report text breaks a run of identical messages. */
  last_msg[0] = '\0';
  va_start(ap, fmt);
  vfprintf(stdout, fmt, ap);
  va_end(ap);
  fflush(stdout);
  pthread_mutex_unlock(&log_mutex);
}

void log_lock(void)
{
  pthread_mutex_lock(&log_mutex);
}

void log_unlock(void)
{
  pthread_mutex_unlock(&log_mutex);
}

int sb_errf(char *err, size_t errlen, const char *fmt, ...)
{
  if (err && errlen)
  {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}
