/*
 * bmk's additions asked for on the pgbench persona's command line
 * (docs/pgbench.md "bmk's additions"): a few of bmk's own long options
 * (--db-server-stats, --results, --hdr-log, --save, --results-db,
 * --tag, --metrics-listen, --percentile, --statement-percentiles),
 * which pgbench 15 does not
 * have, are taken out of the command line before pgbench's options are
 * parsed. The outputs they ask for are set up by an installer that the
 * program's entry point hands over (src/cli/, a layer above this one),
 * with the persona's final report in the place of bmk's text report.
 * Without any of them nothing here runs and the persona's output is
 * pgbench's alone.
 */
#ifndef PGB_ADDITIONS_H
#define PGB_ADDITIONS_H

#include "core/sb_output.h"
#include "engine/sb_engine.h"

/* What the installer gets. */
typedef struct {
  int argc;                    /* the persona's whole command line, as */
  char **argv;                 /* given (the --results manifest's) */
  int nopts;                   /* opts[0]: the program name; opts[1 ..
                                  nopts - 1]: bmk's options as given
                                  ("--results=F", "--save"), in order */
  char **opts;
  sb_run_config_t *cfg;        /* the run's configuration: the installer
                                  fills in results_path, hdrlog_path,
                                  server_stats and percentile */
  bool *statements;            /* the installer sets it when the
                                  per-statement percentiles are asked for
                                  (--statement-percentiles=on) */
  const sb_output_t *report;   /* the persona's report output: registered
                                  where bmk registers its text report, and
                                  its end prints the probes' blocks after
                                  pgbench's report */
} pgb_additions_t;

/* Reads bmk's options in `a->opts` (bmk's messages and checks), fills in
   a->cfg and registers the run's outputs and probes. Returns 0, or 1
   after a message. Main thread, before the run. */
typedef int (*pgb_additions_fn)(const pgb_additions_t *a);

/* Sets the installer (the entry point's; NULL: none, bmk's options are
   then refused). Main thread, before pgb_main. */
void pgb_set_additions(pgb_additions_fn fn);

/* Moves bmk's options out of `argv` (up to a "--"): afterwards argv[0 ..
   *argc - 1] holds the rest in their order, for pgbench's parser, and
   pgb_additions_count() counts the ones taken. An option that takes a
   value takes "--NAME=VALUE" or "--NAME VALUE" (the next argument,
   whatever it is, as getopt_long does); a switch (--save,
   --db-server-stats) takes "--NAME", "--NAME=on" or "--NAME on" (the
   next argument only when it is on/off/true/false/1/0). Returns 0, or
   -1 after getopt's message ("ARGV0: option '--NAME' requires an
   argument") when the last argument is an option that wants a value:
   the caller prints pgbench's hint and exits 1. `argv` must be writable
   (main's). Main thread, once. */
int pgb_additions_take(int *argc, char **argv);

/* The number of bmk's options taken by pgb_additions_take (0: none,
   the persona is pgbench alone). Main thread. */
int pgb_additions_count(void);

/* Runs the installer for a run of `cfg` whose report is `report`;
   *statements becomes true when the per-statement percentiles are asked
   for. Returns 0, or 1 after a message. Main thread, before
   sb_engine_run. */
int pgb_additions_install(sb_run_config_t *cfg, const sb_output_t *report, bool *statements);

#endif
