/* --repeat=N; see sb_repeat.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/sb_repeat.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"

#define ENV_NAME "BMK_REPETITION"

bool sb_repeat_wanted(const char *command, int *rc)
{
  int n = sb_opt_int("repeat");
  *rc = 0;
  if (!sb_opt_given("repeat") || getenv(ENV_NAME) != NULL)
    return false;
  if (n < 1 || n > SB_REPEAT_MAX)
  {
    log_text(LOG_FATAL, "--repeat=%d: give 1 to %d repetitions", n, SB_REPEAT_MAX);
    *rc = 1;
    return true;
  }
  if (command == NULL || strcmp(command, "run") != 0)
  {
    log_text(LOG_FATAL, "--repeat repeats the 'run' command, not '%s'",
             command ? command : "(none)");
    *rc = 1;
    return true;
  }
  return n > 1;
}

/* The exit code of a repetition from waitpid's status: its own, or 128
   plus the signal that ended it (as a shell reports it). */
static int code_of(int status)
{
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/* Runs one repetition; its exit code, or -1 when it could not start. */
static int one(char **argv, unsigned k, unsigned n)
{
  char env[32];
  snprintf(env, sizeof(env), "%u/%u", k, n);
  pid_t pid = fork();
  if (pid < 0)
  {
    log_text(LOG_FATAL, "--repeat: cannot start repetition %u: %s", k, strerror(errno));
    return -1;
  }
  if (pid == 0)
  {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setenv(ENV_NAME, env, 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "FATAL: --repeat: cannot run %s again: %s\n", argv[0], strerror(errno));
    _exit(1);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
    {
      log_text(LOG_FATAL, "--repeat: lost repetition %u: %s", k, strerror(errno));
      return -1;
    }
  return code_of(status);
}

/* The rank of an exit code in the overall one: errors and interrupts
   first, then a failed gate, an inconclusive one, a pass. */
static int rank(int code)
{
  switch (code)
  {
  case 0:
    return 0;
  case 4:
    return 1;
  case 3:
    return 2;
  default:
    return 3;
  }
}

int sb_repeat_run(int argc, char **argv)
{
  (void) argc;
  unsigned n = (unsigned) sb_opt_int("repeat");
  /* the repetition in the foreground gets SIGINT/SIGTERM from the
     terminal or the caller and prints its summary; the parent outlives
     it to say what ran */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  int overall = 0;
  char codes[SB_REPEAT_MAX * 5 + 1] = "";
  size_t used = 0;
  unsigned k;
  for (k = 1; k <= n; k++)
  {
    printf("%sRepetition %u of %u\n", k > 1 ? "\n" : "", k, n);
    fflush(stdout);
    int code = one(argv, k, n);
    if (code < 0)
      code = 1;
    used += (size_t) snprintf(codes + used, sizeof(codes) - used, "%s%d", k > 1 ? " " : "", code);
    if (rank(code) > rank(overall))
      overall = code;
    if (code == 1 || code >= 128)
      break;
  }
  printf("\nRepetitions: %u of %u ran; exit codes %s\n", k > n ? n : k, n, codes);
  return overall;
}

/* `path` with ".K" before its extension (the last dot of its file name),
   else at its end; malloc'd. */
static char *suffixed(const char *path, unsigned k)
{
  const char *slash = strrchr(path, '/');
  const char *dot = strrchr(slash ? slash + 1 : path, '.');
  if (dot == (slash ? slash + 1 : path))
    dot = NULL;                 /* a dot file's name is no extension */
  size_t head = dot ? (size_t) (dot - path) : strlen(path);
  size_t len = strlen(path) + 16;
  char *s = malloc(len);
  if (s)
    snprintf(s, len, "%.*s.%u%s", (int) head, path, k, dot ? dot : "");
  return s;
}

/* Sets option `name` to its value suffixed for repetition k, when given. */
static int suffix_option(const char *name, unsigned k)
{
  const char *v = sb_opt_str(name);
  if (v == NULL || *v == '\0')
    return 0;
  char *s = suffixed(v, k);
  int rc = s ? sb_opt_set(name, s) : -1;
  free(s);
  if (rc != 0)
    log_text(LOG_FATAL, "--repeat: cannot name repetition %u's --%s file", k, name);
  return rc;
}

/* Adds the tag repeat=K to the run's --tag list. */
static int add_tag(unsigned k)
{
  unsigned n = 0;
  char **items = sb_opt_list("tag", &n);
  size_t len = 32;
  for (unsigned i = 0; i < n; i++)
    len += strlen(items[i]) + 1;
  char *s = malloc(len);
  if (s == NULL)
    return -1;
  size_t used = 0;
  for (unsigned i = 0; i < n; i++)
    used += (size_t) snprintf(s + used, len - used, "%s,", items[i]);
  snprintf(s + used, len - used, "repeat=%u", k);
  int rc = sb_opt_set("tag", s);
  free(s);
  if (rc != 0)
    log_text(LOG_FATAL, "--repeat: cannot add the tag repeat=%u", k);
  return rc;
}

int sb_repeat_child_setup(void)
{
  const char *env = getenv(ENV_NAME);
  if (env == NULL)
    return 0;
  unsigned k, n;
  char end;
  if (sscanf(env, "%u/%u%c", &k, &n, &end) != 2 || k < 1 || k > n)
  {
    log_text(LOG_FATAL, "%s='%s' is not K/N (set by --repeat; unset it to run once)",
             ENV_NAME, env);
    return -1;
  }
  if (suffix_option("results", k) != 0 || suffix_option("hdr-log", k) != 0 || add_tag(k) != 0)
    return -1;
  return 0;
}
