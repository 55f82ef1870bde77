/* --cluster-stream; see results/sb_cluster_stream.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_cluster.h"
#include "core/sb_logger.h"
#include "core/sb_version.h"
#include "commands/cluster/sb_cluster_stream.h"
#include "commands/cluster/sb_cluster_pack.h"
#include "results/sb_hdrlog.h"
#include "results/sb_results.h"

static int stream_fd = -1;
static double iv_len = 1;
static bool generic;            /* a built-in test: its report layout */
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
/* Set once the end line is out: the coordinator then closes our stdin
   while we still tear down (the Lua `done` hook, freeing, the sanitizers'
   exit checks), and that end of input must not end us by a signal. */
static int stream_ended;

int sb_cluster_stream_setup(void)
{
  fflush(stdout);
  stream_fd = dup(STDOUT_FILENO);
  if (stream_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
  {
    log_text(LOG_FATAL, "--cluster-stream: cannot move stdout aside: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* Writes one line (formatted, then `tail` when not NULL, then '\n') in
   one write. 0, or -1 when the stream is gone. */
static int emit(const char *tail, const char *fmt, ...)
{
  char head[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(head, sizeof(head), fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t) n >= sizeof(head))
    return -1;
  size_t tl = tail ? strlen(tail) : 0;
  char *line = malloc((size_t) n + tl + 2);
  if (line == NULL)
    return -1;
  memcpy(line, head, (size_t) n);
  if (tl)
    memcpy(line + n, tail, tl);
  line[(size_t) n + tl] = '\n';
  size_t len = (size_t) n + tl + 1, off = 0;
  int rc = 0;
  pthread_mutex_lock(&wlock);
  while (off < len)
  {
    ssize_t w = write(stream_fd, line + off, len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
    {
      rc = -1;
      break;
    }
    off += (size_t) w;
  }
  pthread_mutex_unlock(&wlock);
  free(line);
  return rc;
}

/* The counters every line carries, in the order of the header comment. */
#define COUNTS_FMT "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
#define COUNTS(st, late) (st)->events, (st)->reads, (st)->writes, (st)->other, \
    (st)->errors, (st)->reconnects, (uint64_t) (late)

static int stream_interval(void *ctx, const sb_out_interval_t *iv)
{
  (void) ctx;
  const sb_stat_t *st = iv->st;
  /* the tick's scheduled time, not when it was sampled: a reporter that
     woke late still numbers its interval as every other process does */
  long long k = llround(st->time_total / iv_len);
  char *h = sb_hdr_encode_v2_base64(iv->hist);
  int rc = emit(h ? h : "-", "bmkc iv %lld %.6f %u " COUNTS_FMT " ", k, st->time_interval,
                st->threads_running, COUNTS(st, iv->late));
  free(h);
  if (rc != 0)
    log_text(LOG_WARNING, "--cluster-stream: the coordinator's stream is gone");
  return rc;
}

/* One "bmkc note KEY VALUE" line (sb_cluster_notes_each's callback; ctx:
   the int result, -1 once a write failed). */
static void stream_note(void *ctx, const char *key, const char *value)
{
  int *rc = ctx;
  if (*rc == 0)
    *rc = emit(value, "bmkc note %s ", key);
}

static int stream_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  /* the whole document first: the coordinator merges the processes'
     documents as `bmk report --merge` does (per-type rows, metrics) */
  const json_t *doc = sb_results_document();
  char *packed = doc ? sb_cluster_pack(doc) : NULL;
  if (doc != NULL && packed == NULL)
    log_text(LOG_WARNING, "--cluster-stream: the run's document could not be packed; the "
             "coordinator's document will lack this process");
  int drc = packed ? emit(packed, "bmkc doc ") : 0;
  free(packed);
  if (drc != 0)
    return drc;
  int nrc = 0;
  sb_cluster_notes_each(stream_note, &nrc);
  if (nrc != 0)
    return nrc;
  const sb_stat_t *st = e->st;
  char *h = sb_hdr_encode_v2_base64(e->hist);
  int rc = emit(h ? h : "-", "bmkc end %.6f " COUNTS_FMT " %.9f %.9f %.9f %d ",
                st->time_total, COUNTS(st, e->late), st->latency_min, st->latency_max,
                st->latency_sum, e->exit_code);
  free(h);
  __atomic_store_n(&stream_ended, 1, __ATOMIC_RELEASE);
  return rc;
}

static uint64_t epoch_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

/* Reads one line of stdin into buf (without '\n'); false at the end of
   input or an error. Byte by byte: nothing past the line is consumed. */
static bool read_line(char *buf, size_t size)
{
  size_t n = 0;
  for (;;)
  {
    char c;
    ssize_t r = read(STDIN_FILENO, &c, 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    if (c == '\n')
      break;
    if (n + 1 < size)
      buf[n++] = c;
  }
  buf[n] = '\0';
  return true;
}

/* During the run: "stop" ends it as SIGINT, the end of input before our
   end line as SIGTERM (the signals the engine already waits for); a heartbeat line every
   second while nothing comes, so the coordinator tells a silent process
   (warmup, the end of the run) from a lost one. */
static void *watch_stdin(void *arg)
{
  (void) arg;
  char line[128];
  for (;;)
  {
    struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
    int r = poll(&pfd, 1, 1000);
    if (r == 0 || (r < 0 && errno == EINTR))
    {
      emit(NULL, "bmkc hb");
      continue;
    }
    if (!read_line(line, sizeof(line)))
    {
      if (!__atomic_load_n(&stream_ended, __ATOMIC_ACQUIRE))
        kill(getpid(), SIGTERM);
      return NULL;
    }
    if (strcmp(line, "stop") == 0)
    {
      kill(getpid(), SIGINT);
      return NULL;
    }
  }
}

/* Sleeps until the wall clock reaches `us` (Unix microseconds). */
static void sleep_until(uint64_t us)
{
  struct timespec ts = { .tv_sec = (time_t) (us / 1000000u),
                         .tv_nsec = (long) (us % 1000000u) * 1000 };
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

/* The start line: ready, pings, then the start time. 0 to start; 1 when
   the coordinator went away or said stop first. */
static int at_start_line(void *ctx)
{
  (void) ctx;
  if (emit(NULL, "bmkc ready %u %ld %s %s", sb_cluster_index(), (long) getpid(),
           sb_bmk_release(), generic ? "generic" : "sql") != 0)
    return 1;
  char line[128];
  while (read_line(line, sizeof(line)))
  {
    if (strcmp(line, "ping") == 0)
    {
      if (emit(NULL, "bmkc pong %" PRIu64, epoch_us()) != 0)
        return 1;
      continue;
    }
    uint64_t at;
    if (sscanf(line, "start %" SCNu64, &at) == 1)
    {
      pthread_t t;
      pthread_attr_t a;
      pthread_attr_init(&a);
      pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
      int rc = pthread_create(&t, &a, watch_stdin, NULL);
      pthread_attr_destroy(&a);
      if (rc != 0)
      {
        log_text(LOG_FATAL, "--cluster-stream: cannot start the stdin watcher: %s", strerror(rc));
        return 1;
      }
      sleep_until(at);
      return 0;
    }
    if (strcmp(line, "stop") == 0)
      break;
  }
  log_text(LOG_FATAL, "--cluster-stream: the coordinator stopped the run before its start");
  return 1;
}

void sb_cluster_stream_output(double interval_s, bool builtin, sb_output_t *out,
                              sb_probe_t *probe)
{
  generic = builtin;
  iv_len = interval_s > 0 ? interval_s : 1;
  sb_results_keep_document();
  *out = (sb_output_t) { .name = "--cluster-stream", .interval = stream_interval };
  *probe = (sb_probe_t) { .name = "--cluster-stream", .at_start_line = at_start_line };
}

void sb_cluster_stream_end_output(sb_output_t *out)
{
  *out = (sb_output_t) { .name = "--cluster-stream", .end = stream_end };
}
