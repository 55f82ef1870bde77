/*
 * Log output, as sysbench 1.1's src/sb_logger.c: everything goes to
 * stdout, unbuffered, with a level prefix; a line prints when its level <=
 * --verbosity. Identical consecutive non-interval lines collapse into
 * "(last message repeated N times)". Thread-safe (one lock around output).
 */
#ifndef SB_LOGGER_H
#define SB_LOGGER_H

#include <stdarg.h>
#include <stddef.h>

typedef enum {
  LOG_FATAL = 0,
  LOG_ALERT = 1,
  LOG_WARNING = 2,
  LOG_NOTICE = 3,
  LOG_INFO = 4,
  LOG_DEBUG = 5
} log_level_t;

/* Sets the verbosity (0..5). */
void log_set_verbosity(int v);
int log_get_verbosity(void);

/* Prints one message (a trailing newline is added if missing) at `level`. */
void log_text(log_level_t level, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
void log_vtext(log_level_t level, const char *fmt, va_list ap);

/* Prints text exactly as given (no prefix, no newline added, no repeat
   collapsing) when NOTICE is enabled: report blocks and interval lines. */
void log_raw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flushes a pending "(last message repeated N times)". */
void log_flush(void);

/* Lock / unlock the output, for multi-line blocks printed by one thread. */
void log_lock(void);
void log_unlock(void);

/* Formats a message into the caller's error buffer `err` (`errlen`
   bytes; nothing when err is NULL or errlen 0) and returns -1, so an
   error path reads `return sb_errf(err, errlen, "...", ...)`. For
   functions that report to their caller instead of logging. Thread-safe. */
int sb_errf(char *err, size_t errlen, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

#endif
