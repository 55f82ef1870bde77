/* Program name and version strings (sysbench 1.1.0 compatible). */
#ifndef SB_VERSION_H
#define SB_VERSION_H

#include <stdbool.h>

/* Sets the program name from argv[0] (its basename). */
void sb_set_progname(const char *argv0);

/* The invocation name, e.g. "bmk" or "sysbench". */
const char *sb_progname(void);

/* True when bmk runs under the name "sysbench" (the drop-in persona): its
   output is then sysbench 1.1's, and bmk's additive output blocks (the
   server-side statistics, the rate lag field) are off unless their option
   asks for them (docs/compatibility.md). */
bool sb_persona_sysbench(void);

/* "1.1.0" */
const char *sb_compat_version(void);

/* "<name> 1.1.0[-<sha>]" */
const char *sb_version_string(void);

/* bmk's own release, e.g. "0.1.0". */
const char *sb_bmk_release(void);

/* Prints the header line and a blank line (NOTICE). */
void sb_print_header(void);

#endif
