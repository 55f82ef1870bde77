/* Ctrl-C in a command; see core/sb_cmd_signal.h. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_cmd_signal.h"
#include "core/sb_logger.h"

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
  if (stop_sig)
  {
    static const char msg[] = "FATAL: interrupted again: exiting at once\n";
    ssize_t rc = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
    (void) rc;
    _exit(sig == SIGINT ? 130 : 143);
  }
  stop_sig = sig;
  static const char msg[] = "Interrupted: finishing the step in flight, then the results so "
                            "far (Ctrl-C again to quit at once)\n";
  ssize_t rc = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
  (void) rc;
}

int sb_cmd_catch_stop(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_stop;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
    return -1;
  return 0;
}

int sb_cmd_stop_signal(void)
{
  return stop_sig;
}

void sb_cmd_exit_on_signal(void)
{
  int sig = stop_sig;
  if (sig == 0)
    return;
  log_text(LOG_FATAL, "interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
  log_flush();
  _exit(sig == SIGINT ? 130 : 143);
}
