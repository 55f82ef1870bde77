/* Figures of a run; see core/sb_figure.h. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_figure.h"

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static sb_figure_t figures[SB_FIGURE_MAX];
static unsigned nfigures;

/* [a-z][a-z0-9_]*, short enough: usable as a Prometheus name part and a
   JSON key without escaping. */
static bool valid_name(const char *name)
{
  if (name == NULL || name[0] < 'a' || name[0] > 'z' ||
      strlen(name) >= SB_FIGURE_NAME_MAX)
    return false;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

int sb_figure_set(const char *name, const char *help, int flags, double value)
{
  if (!valid_name(name))
    return -1;
  int rc = 0;
  pthread_mutex_lock(&mtx);
  unsigned i = 0;
  while (i < nfigures && strcmp(figures[i].name, name) != 0)
    i++;
  if (i == nfigures && nfigures == SB_FIGURE_MAX)
    rc = -1;
  else
  {
    sb_figure_t *f = &figures[i];
    if (i == nfigures)
      nfigures++;
    snprintf(f->name, sizeof(f->name), "%s", name);
    snprintf(f->help, sizeof(f->help), "%s", help ? help : "");
    /* one line: the help text is a Prometheus HELP line */
    for (char *p = f->help; *p; p++)
      if (*p == '\n' || *p == '\r')
        *p = ' ';
    f->per_minute = (flags & SB_FIGURE_PER_MINUTE) != 0;
    f->server = (flags & SB_FIGURE_SERVER) != 0;
    f->value = value;
  }
  pthread_mutex_unlock(&mtx);
  return rc;
}

unsigned sb_figure_list(sb_figure_t *out, unsigned max)
{
  pthread_mutex_lock(&mtx);
  unsigned n = nfigures < max ? nfigures : max;
  memcpy(out, figures, n * sizeof(*out));
  pthread_mutex_unlock(&mtx);
  return n;
}

double sb_figure_shown(const sb_figure_t *f, double window_s)
{
  if (!f->per_minute)
    return f->value;
  return window_s > 0 ? f->value / (window_s / 60.0) : 0;
}

void sb_figure_reset(void)
{
  pthread_mutex_lock(&mtx);
  nfigures = 0;
  pthread_mutex_unlock(&mtx);
}
