/*
 * The pgbench persona's entry point (docs/pgbench.md): main.c calls it
 * when bmk runs under the name "pgbench" (a link, as for sysbench), and
 * `bmk pgbench ...` runs it from the commands table.
 */
#ifndef PGB_CMD_H
#define PGB_CMD_H

/*
 * Runs pgbench 15's command line `argv` (argv[0] is the program name;
 * the options as pgbench takes them): -i initialises, anything else runs
 * the scripts on bmk's engine with pgbench's output. Returns the exit
 * status as pgbench gives it: 0, 1 for a bad option or a failed setup, 2
 * for a run in which a client aborted. Main thread, once per process
 * (it configures the process's options and drivers).
 */
int pgb_main(int argc, char **argv);

/* `bmk pgbench ARGS...` (the commands table): pgb_main with argv[1] as
   the program name. */
int pgb_cmd_main(int argc, char **argv);

#endif
