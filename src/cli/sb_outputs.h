/* Which outputs a run gets (core/sb_output.h): decided here, above the
   engine, which publishes to them without naming any. */
#ifndef SB_OUTPUTS_H
#define SB_OUTPUTS_H

#include <stdbool.h>

#include "core/sb_output.h"
#include "engine/sb_engine.h"

/*
 * Registers the outputs `cfg` asks for, in the order they print: the text
 * report (with `ctest`'s report functions for a built-in test, or the Lua
 * script's report hooks), the --results / --hdr-log files, --save, the
 * --metrics-listen endpoint (bound here, before any connection to the
 * database), and last a script's report_final hook; and the probes:
 * --db-checkpoint, the server-statistics and server-cost samplers
 * (src/server/; no statistics or checkpoint for a built-in test).
 * `test` names the workload; `ctest` is the built-in test, or NULL for
 * a Lua script. Returns 0, or 1 after a FATAL message (a bad option, a
 * port in use). Main thread, before sb_engine_run.
 */
int sb_cli_register_outputs(const char *test, const sb_run_config_t *cfg,
                            const sb_c_test_t *ctest);

/*
 * The same for a run that prints a report of its own (the pgbench
 * persona's, with bmk's additions asked for): `report` is registered where
 * the text report goes, first, and its end prints the probes' blocks
 * (sb_probe_print) after the report; the run is taken to run SQL (server
 * statistics, --db-checkpoint). `test` names the workload. Returns 0, or
 * 1 after a FATAL message. Main thread, before sb_engine_run.
 */
int sb_cli_register_report_outputs(const char *test, const sb_run_config_t *cfg,
                                   const sb_output_t *report);

#endif
