/* `bmk sandbox ACTION SERVER`: throwaway MariaDB, PostgreSQL and
   PgBouncer servers for trying and testing bmk (docs/usage.md "Sandbox
   servers"), through the sandbox script of this bmk's source tree or of
   its installation. */
#ifndef SB_SANDBOX_CMD_H
#define SB_SANDBOX_CMD_H

#include <stddef.h>

/*
 * Finds the sandbox script: tools/sandbox.sh of the source tree the
 * running binary sits in (the build directory, or one level below it for
 * an out-of-tree build), else sandbox.sh in the installation's data
 * directory (BMK_DATADIR, e.g. /usr/share/bmk). Writes its path to `buf`
 * (`len` bytes). Returns 0, or -1 when none of them exists; then `buf`
 * holds the places looked at, separated by ", " (for the message).
 * Main thread (reads /proc/self/exe).
 */
int sb_sandbox_script(char *buf, size_t len);

/*
 * Runs `bmk sandbox ...` (argv[1] is "sandbox"): the script with the
 * remaining arguments, in place of this process (exec), so its output and
 * exit code are the command's: 0, 1 when a server could not be started or
 * stopped, 2 for a usage error. `--help` (or no argument) prints the
 * usage (exit 0, or 2 with no argument); a missing script is named with
 * the places looked at (exit 1). Main thread.
 */
int sb_sandbox_main(int argc, char **argv);

#endif
