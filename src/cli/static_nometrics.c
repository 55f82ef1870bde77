/*
 * The static bmk-x64 has no --metrics-listen endpoint: Debian's
 * libmicrohttpd.a needs GnuTLS, whose static archive needs p11-kit and
 * libunistring archives that Debian does not ship. This stand-in says so
 * (docs/metrics.md); the dynamically linked bmk serves the metrics.
 */
#include <unistd.h>

#include "core/sb_logger.h"
#include "metrics/sb_metrics.h"

void *sb_metrics_http_start(int fd, char *(*page)(bool, size_t *, const char **))
{
  (void) page;
  close(fd);
  log_text(LOG_FATAL, "--metrics-listen: this static bmk-x64 has no HTTP server (Debian "
           "ships no static libraries for libmicrohttpd's TLS dependencies); run the "
           "dynamically linked bmk to serve metrics");
  return NULL;
}

void sb_metrics_http_stop(void *server)
{
  (void) server;
}
