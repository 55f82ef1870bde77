/* The registry of the run's probes; see core/sb_probe.h. */
#include <stdbool.h>

#include "core/sb_probe.h"

#define PROBE_MAX 8

static sb_probe_t probes[PROBE_MAX];
static bool active[PROBE_MAX];
static unsigned nprobes;

int sb_probe_register(const sb_probe_t *p)
{
  if (nprobes >= PROBE_MAX)
    return -1;
  probes[nprobes] = *p;
  active[nprobes] = false;
  nprobes++;
  return 0;
}

int sb_probe_at_start_line(void)
{
  for (unsigned i = 0; i < nprobes; i++)
    if (probes[i].at_start_line)
    {
      int rc = probes[i].at_start_line(probes[i].ctx);
      if (rc != 0)
        return rc;
    }
  return 0;
}

bool sb_probe_begin(void)
{
  bool any = false;
  for (unsigned i = nprobes; i-- > 0;)
  {
    active[i] = probes[i].begin && probes[i].begin(probes[i].ctx);
    any = any || active[i];
  }
  return any;
}

void sb_probe_end(void)
{
  for (unsigned i = 0; i < nprobes; i++)
    if (active[i] && probes[i].end)
      probes[i].end(probes[i].ctx);
}

void sb_probe_print(void)
{
  for (unsigned i = 0; i < nprobes; i++)
    if (probes[i].print)
      probes[i].print(probes[i].ctx);
}

void sb_probe_close(void)
{
  for (unsigned i = 0; i < nprobes; i++)
    if (probes[i].close)
      probes[i].close(probes[i].ctx);
  nprobes = 0;
}
