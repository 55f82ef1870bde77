/* The server samplers and actions as the engine's probes
   (core/sb_probe.h). */
#ifndef SB_SERVER_PROBES_H
#define SB_SERVER_PROBES_H

#include <stdbool.h>

/*
 * Registers, in this order: the --db-checkpoint action (when
 * `checkpoint`), the server-statistics sampler (when `stats`: the
 * "Server-side statistics" block; the innermost window, so nothing but
 * the workers' statements falls between its samples) and the server-cost
 * measurement (the "Server cost" block; it decides itself from
 * --server-cost whether it measures). Returns 0, or -1 when the registry is full. Main thread,
 * before the run.
 */
int sb_server_register_probes(bool stats, bool checkpoint);

#endif
