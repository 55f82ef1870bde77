/* The server samplers and actions as probes; see server/sb_server_probes.h. */
#include <stddef.h>

#include "core/sb_probe.h"
#include "server/sb_server_cost.h"
#include "server/sb_server_probes.h"
#include "server/sb_server_reset.h"
#include "server/sb_server_stats.h"

static int checkpoint(void *ctx)
{
  (void) ctx;
  return sb_server_checkpoint();
}

static bool stats_begin(void *ctx)
{
  (void) ctx;
  sb_server_stats_begin(true);
  return sb_server_stats_active();
}

static void stats_end(void *ctx)
{
  (void) ctx;
  sb_server_stats_end();
}

static void stats_print(void *ctx)
{
  (void) ctx;
  sb_server_stats_print();
}

static void stats_close(void *ctx)
{
  (void) ctx;
  sb_server_stats_close();
}

static bool cost_begin(void *ctx)
{
  (void) ctx;
  sb_server_cost_begin();
  return sb_server_cost_active();
}

static void cost_end(void *ctx)
{
  (void) ctx;
  sb_server_cost_end();
}

static void cost_print(void *ctx)
{
  (void) ctx;
  sb_server_cost_print();
}

int sb_server_register_probes(bool stats, bool ckpt)
{
  int rc = 0;
  if (ckpt)
  {
    sb_probe_t p = { .name = "--db-checkpoint", .at_start_line = checkpoint };
    rc |= sb_probe_register(&p);
  }
  if (stats)
  {
    sb_probe_t p = { .name = "server statistics", .begin = stats_begin, .end = stats_end,
                     .print = stats_print, .close = stats_close };
    rc |= sb_probe_register(&p);
  }
  sb_probe_t c = { .name = "server cost", .begin = cost_begin, .end = cost_end,
                   .print = cost_print };
  rc |= sb_probe_register(&c);
  return rc ? -1 : 0;
}
