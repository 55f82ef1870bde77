/* Linux native AIO for fileio's async mode; see fileio_aio.h. */
#include <errno.h>
#include <libaio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/fileio_aio.h"
#include "builtin/sb_builtin.h"
#include "core/sb_counter.h"
#include "core/sb_logger.h"

/* One queued request; the iocb comes first so a completion's `obj`
   pointer leads back to it. */
typedef struct {
  struct iocb iocb;
  bool write;
  size_t len;
} aio_op_t;

typedef struct {
  io_context_t ctx;
  unsigned pending;             /* submitted, not yet completed */
  struct io_event *events;      /* `backlog` slots for io_getevents */
} __attribute__((aligned(64))) aio_thread_t;

static aio_thread_t *ctxs;
static unsigned nctxs, backlog;

int fio_aio_init(unsigned threads, unsigned queue)
{
  ctxs = sb_builtin_calloc_aligned(threads, sizeof(*ctxs));
  if (ctxs == NULL)
  {
    log_text(LOG_FATAL, "Failed to allocate async I/O context!");
    return 1;
  }
  nctxs = threads;
  backlog = queue;
  for (unsigned i = 0; i < threads; i++)
  {
    /* libaio returns -errno instead of setting errno. */
    int rc = io_queue_init((int) backlog, &ctxs[i].ctx);
    if (rc != 0)
    {
      log_text(LOG_FATAL, "io_queue_init() failed! errno = %d (%s)", -rc, strerror(-rc));
      if (rc == -EAGAIN)
        log_text(LOG_WARNING, "The kernel's AIO limit is too low for %u threads x %u "
                 "requests: raise /proc/sys/fs/aio-max-nr or lower --file-async-backlog",
                 threads, backlog);
      return 1;
    }
    ctxs[i].events = calloc(backlog, sizeof(struct io_event));
    if (ctxs[i].events == NULL)
    {
      log_text(LOG_FATAL, "Failed to allocate async I/O context!");
      return 1;
    }
  }
  return 0;
}

/* Waits for at least `min` completions of worker `tid` and counts them.
   0 = ok, 1 = an I/O failed, -1 = waiting itself failed. */
static int wait_some(int tid, long min)
{
  aio_thread_t *t = &ctxs[tid];
  int n;
  do
    n = io_getevents(t->ctx, min, (long) backlog, t->events, NULL);
  while (n == -EINTR);
  if (n < 1)
  {
    log_text(LOG_FATAL, "io_getevents() failed! errno = %d (%s)", -n, strerror(-n));
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < n; i++)
  {
    aio_op_t *op = (aio_op_t *) (uintptr_t) t->events[i].obj;
    long res = (long) t->events[i].res;
    if (res != (long) op->len)
    {
      log_text(LOG_FATAL, "Asynchronous %s failed!\n", op->write ? "write" : "read");
      rc = 1;
    }
    else if (op->write)
    {
      sb_counter_inc(tid, SB_CNT_WRITE);
      sb_counter_add(tid, SB_CNT_BYTES_WRITTEN, op->len);
    }
    else
    {
      sb_counter_inc(tid, SB_CNT_READ);
      sb_counter_add(tid, SB_CNT_BYTES_READ, op->len);
    }
    free(op);
    t->pending--;
  }
  return rc;
}

int fio_aio_submit(int tid, int fd, void *buf, size_t len, long long off, bool write)
{
  aio_thread_t *t = &ctxs[tid];
  aio_op_t *op = malloc(sizeof(*op));
  if (op == NULL)
  {
    log_text(LOG_FATAL, "Failed to allocate AIO operation!");
    return 1;
  }
  if (write)
    io_prep_pwrite(&op->iocb, fd, buf, len, off);
  else
    io_prep_pread(&op->iocb, fd, buf, len, off);
  op->write = write;
  op->len = len;
  struct iocb *p = &op->iocb;
  int rc = io_submit(t->ctx, 1, &p);
  if (rc < 1)
  {
    log_text(LOG_FATAL, "io_submit() failed! errno = %d (%s)", -rc, strerror(-rc));
    free(op);
    return 1;
  }
  t->pending++;
  if (t->pending < backlog)
    return 0;
  return wait_some(tid, 1) != 0;
}

int fio_aio_drain(int tid)
{
  int rc = 0;
  while (ctxs[tid].pending > 0)
  {
    int r = wait_some(tid, (long) ctxs[tid].pending);
    if (r < 0)
      return 1;
    if (r > 0)
      rc = 1;
  }
  return rc;
}

void fio_aio_done(void)
{
  for (unsigned i = 0; ctxs && i < nctxs; i++)
  {
    if (ctxs[i].events)
      io_queue_release(ctxs[i].ctx);
    free(ctxs[i].events);
  }
  free(ctxs);
  ctxs = NULL;
  nctxs = 0;
}
