/*
 * --repeat=N: the same run N times, one after another, each a complete
 * bmk process of its own (the engine keeps per-run state in globals, and
 * a fresh process is also what a repetition means to a statistician: no
 * warm client caches carried over). The repetitions are what `bmk
 * compare` wants on each side of a gate (docs/results-db.md "Gates"):
 * with two runs or more a side it compares the runs' values, whatever
 * the metric.
 *
 * The first process (the parent) runs nothing itself: it starts the
 * repetitions with BMK_REPETITION=K/N in their environment and waits for
 * each. A repetition (sb_repeat_child_setup) suffixes its --results and
 * --hdr-log files with ".K" before the extension (r.json -> r.2.json)
 * and adds the tag repeat=K, so --save keeps each as a run of its own
 * that `tag:KEY=VALUE` still selects together.
 *
 * Single-threaded: both run from main() before any thread starts.
 */
#ifndef SB_REPEAT_H
#define SB_REPEAT_H

#include <stdbool.h>

/* Most repetitions one --repeat asks for. */
#define SB_REPEAT_MAX 1000

/*
 * True when this process is to run the repetitions rather than a run:
 * --repeat is above 1, the command is `run` and this is not itself a
 * repetition. When --repeat is given to another command, or is out of
 * 1..SB_REPEAT_MAX, prints a FATAL line, sets *rc to 1 and returns true.
 */
bool sb_repeat_wanted(const char *command, int *rc);

/*
 * Runs the repetitions: argv (main's, unchanged) executed again through
 * /proc/self/exe once per repetition, each announced on stdout
 * ("Repetition K of N"), then one line with every exit code. Stops after
 * a repetition that exits 1 (an error a next one would repeat) or is
 * interrupted (130/143, or killed by a signal: SIGINT and SIGTERM reach
 * the repetition, and the parent waits for its summary). Returns the
 * exit code: the first 1, 2 or interrupt code, else 3 when a repetition's
 * --threshold failed, else 4 when one was inconclusive, else 0.
 */
int sb_repeat_run(int argc, char **argv);

/*
 * In a repetition (BMK_REPETITION=K/N set by sb_repeat_run): suffixes
 * --results and --hdr-log with ".K" and adds the tag repeat=K. Call after
 * the options are parsed and before the run reads them. Returns 0 (also
 * when this is not a repetition), or -1 with a FATAL line on a malformed
 * BMK_REPETITION.
 */
int sb_repeat_child_setup(void);

#endif
