/*
 * bmk's commands, in one table (docs/design.md "Commands"): the first
 * word after `bmk` picks one. Each has a one-line summary, which
 * `bmk --help` prints, and one entry point: a C function, an embedded Lua
 * module (sb_lua_command.h), or, for workloads with commands of their own
 * (`bmk tpcc prepare`), the sysbench command line that runs every test
 * (main.c: `bmk [options] TEST COMMAND`, with `run` and sysbench's
 * commands prepare, run, cleanup and help).
 *
 * Each command's code lives in one folder or file under src/commands/.
 * The table is static data: any thread may read it.
 */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

#include <stddef.h>

typedef struct {
  const char *name;            /* the word after `bmk` */
  const char *usage;           /* its arguments, for --help ("RUNS...") */
  const char *summary;         /* one line */
  /* how it runs, exactly one of: */
  int (*main)(int argc, char **argv); /* C: the whole command line (argv[1]
                                          is the name); returns the exit
                                          status */
  const char *lua_module;      /* Lua: the embedded module whose
                                  main(args, info) runs it */
  const char *workload;        /* a bundled workload run through the
                                  sysbench command line (main.c) */
} sb_command_t;

/* The commands, in the order --help lists them; *n receives the count. */
const sb_command_t *sb_commands(size_t *n);

/* The command named `name`, or NULL. */
const sb_command_t *sb_command_find(const char *name);

/* Runs command `cmd` (not a workload) with the whole command line
   (argv[1] is its name); returns its exit status. */
int sb_command_run(const sb_command_t *cmd, int argc, char **argv);

#endif
