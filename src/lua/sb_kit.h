/* `bmk kit ...` (docs/kit.md), `bmk series ...` and `bmk capacity ...`; see sb_kit.c. */
#ifndef SB_KIT_H
#define SB_KIT_H

/* Runs the kit with the whole command line (argv[1] is "kit"); returns
   the exit status. */
int sb_kit_main(int argc, char **argv);

/* Runs `bmk series ...` (docs/report.md; the embedded module bmk.series,
   in the same plain Lua state as the kit) with the whole command line
   (argv[1] is "series"); returns the exit status. */
int sb_series_main(int argc, char **argv);

/* Runs `bmk capacity ...` (docs/capacity.md; the embedded module
   bmk.capacity, same state as the kit) with the whole command line
   (argv[1] is "capacity"); returns the exit status: 0 an answer found, 3
   no rate met the SLO, 1 bad input or a step that failed to run, 130/143
   interrupted. */
int sb_capacity_main(int argc, char **argv);

#endif
