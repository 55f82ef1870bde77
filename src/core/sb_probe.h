/*
 * Probes: what samples the server at the edges of a run's measured
 * window (docs/design.md "One run"). The engine starts every
 * registered probe while the workers wait at the start line, stops them
 * while the workers wait at the end line (so both samples see exactly the
 * run), has them print their blocks after the final report and closes
 * them; it names none of them. src/cli/sb_outputs.c registers the
 * server-statistics and server-cost probes (src/server/).
 *
 * Main thread only. A probe that cannot sample says so itself (a
 * WARNING) and is inactive: it never fails the run.
 */
#ifndef SB_PROBE_H
#define SB_PROBE_H

#include <stdbool.h>

typedef struct {
  const char *name;
  /* An action with the workers at the start line, before the SYNC-file
     barrier (--db-checkpoint). 0, or non-zero (reason printed) to end the
     run there. NULL: none. */
  int (*at_start_line)(void *ctx);
  /* Takes the start sample; true when the probe is active (it then needs
     the end line). */
  bool (*begin)(void *ctx);
  /* Takes the end sample (workers parked at the end line). */
  void (*end)(void *ctx);
  /* Prints its block after the final report (NULL: none). */
  void (*print)(void *ctx);
  /* Releases what it holds (connections); after print. */
  void (*close)(void *ctx);
  void *ctx;
} sb_probe_t;

/* Adds a probe for the next run (copied; at most 8). 0, or -1 when full. */
int sb_probe_register(const sb_probe_t *p);

/* The probes' actions at the start line, in registration order; 0, or
   the first failure's non-zero value (the others are not run). */
int sb_probe_at_start_line(void);

/* Starts every probe, in the reverse order of registration; true when
   one is active (the engine then holds the workers at an end line for
   the end samples). */
bool sb_probe_begin(void);

/* Ends the active probes in registration order. So the first registered
   probe's window is the innermost: no other probe's work falls in it
   (the server-statistics sampler's: a server-cost query at the start
   would count in Questions). */
void sb_probe_end(void);

/* Prints the active probes' blocks, in registration order. */
void sb_probe_print(void);

/* Closes every probe and forgets them. */
void sb_probe_close(void);

#endif
