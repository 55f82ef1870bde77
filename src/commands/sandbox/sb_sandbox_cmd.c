/* `bmk sandbox`; see sb_sandbox_cmd.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/sandbox/sb_sandbox_cmd.h"

#ifndef BMK_DATADIR
#define BMK_DATADIR "/usr/local/share/bmk"
#endif

static const char USAGE[] =
  "Usage:\n"
  "  bmk sandbox start|stop|restart|crash|status|env SERVER\n"
  "  bmk sandbox down|up REPLICA\n"
  "SERVER: mysql, pgsql, pgbouncer or a REPLICA: mysql-replica, mysql-replica2,\n"
  "pgsql-replica.\n"
  "Throwaway MariaDB and PostgreSQL servers (and PgBouncer, replicas) from Debian's\n"
  "packages (mariadb-server, postgresql, pgbouncer), with a fresh data directory under\n"
  "$BMK_SANDBOX_DIR (default /tmp/bmk-sandbox), listening on 127.0.0.1 and a unix socket\n"
  "only, with a user and database sbtest (password $BMK_SANDBOX_PASSWORD, default\n"
  "sbtest). stop removes the data directory. env prints the connection options:\n"
  "  eval \"$(bmk sandbox env mysql)\"; bmk oltp_read_write $BMK_MYSQL_OPTS prepare\n"
  "Ports: $BMK_MYSQL_PORT (3306), $BMK_PGSQL_PORT (5432), $BMK_PGBOUNCER_PORT (6432).\n"
  "Exit code: 0, 1 when a server could not be started or stopped (or status: it\n"
  "does not run), 2 for a usage error. See docs/usage.md.\n";

/* Appends `path` to the list of places looked at. */
static void note(char *buf, size_t len, const char *path)
{
  size_t n = strlen(buf);
  if (n < len)
    snprintf(buf + n, len - n, "%s%s", n ? ", " : "", path);
}

int sb_sandbox_script(char *buf, size_t len)
{
  char exe[PATH_MAX], cand[PATH_MAX + 32], tried[3 * (PATH_MAX + 32)] = "";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  const char *tree[] = { "%s/tools/sandbox.sh", "%s/../tools/sandbox.sh" };
  if (n > 0)
  {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
      *slash = '\0';
    for (size_t i = 0; slash != NULL && i < sizeof(tree) / sizeof(tree[0]); i++)
    {
      snprintf(cand, sizeof(cand), tree[i], exe);
      if (access(cand, R_OK) == 0)
      {
        snprintf(buf, len, "%s", cand);
        return 0;
      }
      note(tried, sizeof(tried), cand);
    }
  }
  snprintf(cand, sizeof(cand), "%s/sandbox.sh", BMK_DATADIR);
  if (access(cand, R_OK) == 0)
  {
    snprintf(buf, len, "%s", cand);
    return 0;
  }
  note(tried, sizeof(tried), cand);
  snprintf(buf, len, "%s", tried);
  return -1;
}

int sb_sandbox_main(int argc, char **argv)
{
  if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0 ||
      strcmp(argv[2], "help") == 0)
  {
    fputs(USAGE, argc < 3 ? stderr : stdout);
    return argc < 3 ? 2 : 0;
  }
  char script[3 * (PATH_MAX + 32)];
  if (sb_sandbox_script(script, sizeof(script)) != 0)
  {
    fprintf(stderr, "bmk sandbox: the sandbox script is missing from this installation "
            "(looked for %s); reinstall bmk, or run tools/sandbox.sh of a source tree\n",
            script);
    return 1;
  }
  /* bash SCRIPT ARGS...; the script names itself as `bmk sandbox` in its
     messages */
  char **av = calloc((size_t) argc + 1, sizeof(*av));
  if (av == NULL)
  {
    fprintf(stderr, "bmk sandbox: out of memory\n");
    return 1;
  }
  av[0] = "bash";
  av[1] = script;
  for (int i = 2; i < argc; i++)
    av[i] = argv[i];
  setenv("BMK_SANDBOX_CMD", "bmk sandbox", 1);
  fflush(stdout);
  execvp("bash", av);
  fprintf(stderr, "bmk sandbox: cannot run bash %s: %s\n", script, strerror(errno));
  free(av);
  return 1;
}
