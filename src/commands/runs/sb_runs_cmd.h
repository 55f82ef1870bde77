/* `bmk runs list|show|export|import|delete`: the results database
   (docs/results-db.md). */
#ifndef SB_RUNS_CMD_H
#define SB_RUNS_CMD_H

/* Runs `bmk runs ...` (argv[1] is "runs"); returns the exit code: 0, or 1
   after a message (usage, no such run, a database error). */
int sb_runs_main(int argc, char **argv);

#endif
