/*
 * Shared between sb_server_cost.c (target, measurements) and
 * sb_server_cost_run.c (the engine's window, report block, JSON). Not for
 * other modules.
 */
#ifndef SB_SERVER_COST_PRIV_H
#define SB_SERVER_COST_PRIV_H

#include <stdbool.h>
#include <sys/types.h>

#include "server/sb_server_cost.h"

typedef enum {
  SB_COST_NONE = 0,            /* no server to measure (reason says why) */
  SB_COST_PIDS,                /* process trees from /proc */
  SB_COST_CGROUP               /* a cgroup v2 directory */
} sb_cost_kind_t;

/* What is measured. Main thread only. */
typedef struct {
  bool enabled;                /* --server-cost */
  bool explicit_target;        /* --server-pid or --server-cgroup given */
  sb_cost_kind_t kind;
  unsigned npids;
  pid_t pids[SB_COST_MAX_PIDS];
  char cgroup[4096];           /* absolute path */
  char found_by[1100];         /* "--server-pid", "@@pid_file /path", ... */
  char what[4200];             /* "pid 12 (mariadbd) and its child processes" */
  char desc[5400];             /* `what` and how it was found, one line */
  char reason[1200];           /* one line: why nothing is (kind NONE) */
} sb_cost_target_t;

extern sb_cost_target_t sb_cost_tgt;

/* Why the server's CPU could not be sampled at the start ("" when it
   was). */
const char *sb_cost_server_note(const sb_cost_meas_t *m);

#endif
