/*
 * Ctrl-C in a command that times its own steps (`bmk tpch run`): instead
 * of the early handler's immediate exit (cli/main.c), the first SIGINT or
 * SIGTERM only marks the command stopping, so that it finishes the step
 * in flight, prints what it measured so far and writes its results; a
 * second signal exits at once as before (exit 130 or 143).
 */
#ifndef SB_CMD_SIGNAL_H
#define SB_CMD_SIGNAL_H

/* Installs the handler (SA_RESTART: a query in flight goes on). Any
   thread of the command, any number of times; returns 0, or -1 when
   sigaction failed. Exported for LuaJIT FFI. */
int sb_cmd_catch_stop(void);

/* The signal that asked the command to stop (SIGINT, SIGTERM), or 0.
   Any thread; async-signal-safe. Exported for LuaJIT FFI. */
int sb_cmd_stop_signal(void);

/* Ends the process with the shell's code of the stop signal (130 for
   SIGINT, 143 for SIGTERM) after flushing the log; returns when no signal
   came. For the command's last thread, after its report and results.
   Exported for LuaJIT FFI. */
void sb_cmd_exit_on_signal(void);

#endif
