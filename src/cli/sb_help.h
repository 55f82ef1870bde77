/* `--help` output: sysbench 1.1's text, then bmk's extension blocks. */
#ifndef SB_HELP_H
#define SB_HELP_H

/* Prints the general help to stdout (does not depend on --verbosity). */
void sb_print_help(void);

#endif
