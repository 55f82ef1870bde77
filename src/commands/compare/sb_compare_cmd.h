/* `bmk compare A B`: two runs, or two sets of repetitions, compared with
   confidence intervals (docs/results-db.md "Comparing"). */
#ifndef SB_COMPARE_CMD_H
#define SB_COMPARE_CMD_H

/* Runs `bmk compare ...` (argv[1] is "compare"); the exit code: 0, 1
   after a message (usage, no such run), 3 when a --fail-if is
   violated. */
int sb_compare_main(int argc, char **argv);

#endif
