/* `bmk kit ...` (bmk-kit.md §4.4); see sb_kit.c. */
#ifndef SB_KIT_H
#define SB_KIT_H

/* Runs the kit with the whole command line (argv[1] is "kit"); returns
   the exit status. */
int sb_kit_main(int argc, char **argv);

#endif
