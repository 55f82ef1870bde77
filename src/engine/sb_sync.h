/*
 * BMK-kit's SYNC_file start barrier (docs/kit.md; --sync-file, --sync-wait):
 * lets several processes or hosts start their measured run at one moment.
 */
#ifndef SB_SYNC_H
#define SB_SYNC_H

#include <stdbool.h>

/* Prints "=> SYNC-file : synchronization via PATH". */
void sb_sync_announce(const char *path);

/*
 * Creates PATH (if absent) and the ready marker PATH.ready.<pid>, prints
 * "=> SYNC-file : ready to start..", then waits, checking every `wait_ms`,
 * until PATH disappears (released: marker removed, "=> SYNC-file :
 * started !" printed, returns 0) or `*interrupted` becomes non-zero
 * (marker removed, "=> SYNC-file : aborted" printed, returns 1).
 * Returns -1 when a file cannot be created (FATAL printed).
 */
int sb_sync_wait(const char *path, int wait_ms, unsigned threads,
                 volatile int *interrupted);

#endif
