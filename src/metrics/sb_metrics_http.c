/* The /metrics HTTP endpoint on libmicrohttpd (Debian's
   libmicrohttpd-dev); see metrics/sb_metrics.h. Not in the static
   bmk-x64 (src/cli/static_nometrics.c). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "core/sb_logger.h"
#include "metrics/sb_metrics.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_t;
#else
typedef enum MHD_Result MHD_Result_t;
#endif

typedef char *(*page_fn)(bool openmetrics, size_t *len, const char **content_type);

static MHD_Result_t reply(struct MHD_Connection *c, unsigned status, const char *text,
                          const char *type)
{
  struct MHD_Response *r =
    MHD_create_response_from_buffer(strlen(text), (void *) text, MHD_RESPMEM_PERSISTENT);
  if (r == NULL)
    return MHD_NO;
  MHD_add_response_header(r, "Content-Type", type);
  MHD_Result_t rc = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return rc;
}

static MHD_Result_t handle(void *cls, struct MHD_Connection *c, const char *url,
                           const char *method, const char *version, const char *upload,
                           size_t *upload_size, void **state)
{
  (void) version;
  (void) upload;
  (void) upload_size;
  (void) state;
  page_fn page = (page_fn) cls;
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n", "text/plain");
  if (strcmp(url, "/metrics") != 0)
    return reply(c, MHD_HTTP_NOT_FOUND, "bmk serves its metrics at /metrics\n", "text/plain");
  const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
  bool om = accept && strstr(accept, "application/openmetrics-text") != NULL;
  size_t len = 0;
  const char *type = NULL;
  char *body = page(om, &len, &type);
  if (body == NULL)
    return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n", "text/plain");
  struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
  if (r == NULL)
  {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  MHD_Result_t rc = MHD_queue_response(c, MHD_HTTP_OK, r);
  MHD_destroy_response(r);
  return rc;
}

void *sb_metrics_http_start(int fd, page_fn page)
{
  /* MHD_USE_AUTO: epoll on Linux, not select(). A run of thousands of
     VUs holds a connection each, so a scraper's socket gets a descriptor
     above FD_SETSIZE (1024), which select() cannot watch: libmicrohttpd
     then closes it at once and every scrape fails.
     The server's thread is started with SIGINT and SIGTERM blocked (a
     thread inherits its creator's mask): a signal sent to the process
     goes to any thread that does not block it, and the run picks these
     two up in its own thread (engine/sb_engine_run.c) to print the
     summary so far. Taken by this thread, they would run main's early
     handler instead, which ends the process at once. */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO,
                                          0, NULL, NULL,
                                          handle, (void *) page,
                                          MHD_OPTION_LISTEN_SOCKET, fd,
                                          MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) 30,
                                          MHD_OPTION_END);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (d == NULL)
  {
    log_text(LOG_FATAL, "--metrics-listen: libmicrohttpd could not start its server");
    close(fd);
  }
  return d;
}

void sb_metrics_http_stop(void *server)
{
  if (server)
    MHD_stop_daemon(server);
}
