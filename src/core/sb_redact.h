/*
 * Passwords kept out of what bmk prints and stores: the password of a URL
 * (postgresql://user:PASSWORD@host/db) and the value of a "password="
 * parameter (postgresql://host/db?password=PASSWORD, or a conninfo
 * string) become "***".
 */
#ifndef SB_REDACT_H
#define SB_REDACT_H

#include <stddef.h>

/* Copies `in` into `out` (`len` bytes, always NUL-terminated, truncated
   when it does not fit) with every password it holds replaced by "***".
   Returns out. Thread-safe (touches nothing but out). */
const char *sb_redact(const char *in, char *out, size_t len);

#endif
