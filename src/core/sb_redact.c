/* Passwords masked in URLs; see core/sb_redact.h. */
#include <string.h>

#include "core/sb_redact.h"

/* Appends n bytes of s to out at *o (keeping room for the NUL). */
static void put(char *out, size_t len, size_t *o, const char *s, size_t n)
{
  while (n-- > 0 && *o + 1 < len)
    out[(*o)++] = *s++;
}

/* The end of the value starting at p: the next '&', whitespace or NUL. */
static const char *value_end(const char *p)
{
  while (*p && *p != '&' && *p != ' ' && *p != '\t')
    p++;
  return p;
}

const char *sb_redact(const char *in, char *out, size_t len)
{
  size_t o = 0;
  const char *p = in;
  if (len == 0)
    return out;
  while (*p)
  {
    if (strncmp(p, "://", 3) == 0)
    {
      /* the authority: user[:password]@host, up to the path */
      const char *a = p + 3, *e = a + strcspn(a, "/?# ");
      const char *at = NULL, *colon;
      for (const char *q = a; q < e; q++)
        if (*q == '@')
          at = q;
      colon = at ? memchr(a, ':', (size_t) (at - a)) : NULL;
      if (colon)
      {
        put(out, len, &o, p, (size_t) (colon + 1 - p));
        put(out, len, &o, "***", 3);
        p = at;
        continue;
      }
      put(out, len, &o, p, (size_t) (e - p));
      p = e;
      continue;
    }
    if (strncmp(p, "password=", 9) == 0 &&
        (p == in || strchr("?& \t", p[-1]) != NULL))
    {
      put(out, len, &o, p, 9);
      put(out, len, &o, "***", 3);
      p = value_end(p + 9);
      continue;
    }
    put(out, len, &o, p, 1);
    p++;
  }
  out[o] = '\0';
  return out;
}
