/* Which outputs a run gets (core/sb_output.h): decided here, above the
   engine, which publishes to them without naming any. */
#ifndef SB_OUTPUTS_H
#define SB_OUTPUTS_H

#include <stdbool.h>

#include "engine/sb_engine.h"

/*
 * Registers the outputs `cfg` asks for: the --results / --hdr-log files,
 * the --metrics-listen endpoint (bound here, before any connection to the
 * database); and the probes: --db-checkpoint, the server-statistics and
 * server-cost samplers (src/server/; no statistics or checkpoint for a
 * `builtin` test). `test` names the workload. Returns 0, or 1 after a
 * FATAL message (a bad option, a port in use). Main thread, before
 * sb_engine_run.
 */
int sb_cli_register_outputs(const char *test, const sb_run_config_t *cfg, bool builtin);

#endif
