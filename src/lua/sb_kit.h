/* `bmk kit ...` (docs/kit.md) and `bmk series ...`; see sb_kit.c. */
#ifndef SB_KIT_H
#define SB_KIT_H

/* Runs the kit with the whole command line (argv[1] is "kit"); returns
   the exit status. */
int sb_kit_main(int argc, char **argv);

/* Runs `bmk series ...` (docs/report.md; the embedded module bmk.series,
   in the same plain Lua state as the kit) with the whole command line
   (argv[1] is "series"); returns the exit status. */
int sb_series_main(int argc, char **argv);

#endif
