/* The usage error of a bmk subcommand (bmk compare, bmk runs, bmk
   report): one form for all of them. */
#ifndef SB_COMMAND_USAGE_H
#define SB_COMMAND_USAGE_H

/*
 * Prints "<prog>: <message>" (`fmt`, printf format, checked by the
 * compiler) and then the command's usage text `usage` on stderr. Returns
 * 1, the exit code of a usage error. Main thread.
 */
int sb_command_usage_error(const char *prog, const char *usage, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

#endif
