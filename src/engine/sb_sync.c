/* SYNC_file start barrier; see sb_sync.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_logger.h"
#include "engine/sb_sync.h"

void sb_sync_announce(const char *path)
{
  log_text(LOG_NOTICE, "=> SYNC-file : synchronization via %s", path);
}

int sb_sync_wait(const char *path, int wait_ms, unsigned threads,
                 volatile int *interrupted)
{
  char marker[4096];
  char host[256] = "localhost";

  if (access(path, F_OK) != 0)
  {
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0 && errno != EEXIST)
    {
      log_text(LOG_FATAL, "SYNC-file: cannot create %s: %s", path, strerror(errno));
      return -1;
    }
    if (fd >= 0)
      close(fd);
  }
  snprintf(marker, sizeof(marker), "%s.ready.%ld", path, (long) getpid());
  FILE *f = fopen(marker, "w");
  if (f == NULL)
  {
    log_text(LOG_FATAL, "SYNC-file: cannot create %s: %s", marker, strerror(errno));
    return -1;
  }
  gethostname(host, sizeof(host) - 1);
  fprintf(f, "%s %ld %u\n", host, (long) getpid(), threads);
  fclose(f);
  log_text(LOG_NOTICE, "=> SYNC-file : ready to start..");

  struct timespec ts = { wait_ms / 1000, (long) (wait_ms % 1000) * 1000000L };
  while (access(path, F_OK) == 0)
  {
    if (*interrupted)
    {
      unlink(marker);
      log_text(LOG_NOTICE, "=> SYNC-file : aborted");
      return 1;
    }
    nanosleep(&ts, NULL);
  }
  unlink(marker);
  log_text(LOG_NOTICE, "=> SYNC-file : started !");
  return 0;
}
