/*
 * `bmk report ...` (docs/report.md): the series table of a set of
 * --results files, `--merge` of concurrent runs into one report (and
 * optionally one merged file), `--html` charts.
 */
#ifndef SB_REPORT_CMD_H
#define SB_REPORT_CMD_H

/* Runs `bmk report` with argv[0] = program, argv[1] = "report", then its
   arguments. Prints to stdout, errors to stderr; returns the exit status
   (0, or 1 for bad arguments or files that cannot be read or merged). */
int sb_report_main(int argc, char **argv);

#endif
