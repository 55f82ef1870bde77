/*
 * Built-in test `fileio`: file I/O over test_file.N in the current
 * directory (sysbench's src/tests/fileio/sb_fileio.c), with its texts,
 * request generators and accounting:
 *
 * - sequential modes cycle over the files until a time or event limit;
 * - random modes pick a block uniformly over all files; rndrw chooses read
 *   or write from the thread's own read/write counts and --file-rw-ratio;
 * - --file-fsync-freq=N: after every N requests (while there were writes)
 *   the next events are fsyncs, one file each, until every file is synced;
 * - the end-of-test fsync (--file-fsync-end) runs in each thread after its
 *   last event and is counted in the fsync IOPS;
 * - --file-io-mode=async uses Linux AIO (fileio_aio.c), sync pread/pwrite,
 *   mmap maps every file once;
 * - --validate writes a CRC32 and the offset into each block and checks
 *   them on reads.
 *
 * Request generation is serialised by one mutex, as in sysbench. Options,
 * buffers, checksums and the prepare/cleanup commands: fileio_setup.c.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "builtin/fileio_priv.h"
#ifdef HAVE_LIBAIO
#include "builtin/fileio_aio.h"
#endif
#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"

static const char *const mode_text[] = {
  "sequential read", "sequential write (creation)", "sequential rewrite",
  "random read", "random write", "random r/w"
};
static const char *const io_text[] = { "synchronous", "asynchronous", "fast mmaped" };
typedef enum { OP_READ, OP_WRITE, OP_FSYNC } op_t;

typedef struct {
  op_t op;
  unsigned file;
  long long pos, size;
} request_t;

static uint64_t max_events;

/* Run state. */
static int *fds;
static char **maps;
static pthread_mutex_t gen_mutex = PTHREAD_MUTEX_INITIALIZER;
static long long position;               /* sequential cursor */
static unsigned current_file, fsynced_file;
static bool is_dirty;                    /* writes since the last fsync round */
static unsigned long req_performed;
static request_t prev_req;               /* --validate: sequence check */

/* ---- run: setup ----------------------------------------------------------- */

static int fileio_init(sb_run_config_t *cfg)
{
  if (fio_parse_arguments(true) != 0)
    return 1;
  max_events = cfg->events_limit;
  fds = malloc(fio.num_files * sizeof(int));
  maps = calloc(fio.num_files, sizeof(char *));
  if (fds == NULL || maps == NULL)
  {
    log_text(LOG_FATAL, "Memory allocation failure.");
    return 1;
  }
  for (unsigned i = 0; i < fio.num_files; i++)
    fds[i] = -1;
  if (fio_alloc_buffers(cfg->threads) != 0)
    return 1;
#ifdef HAVE_LIBAIO
  if (fio.io_mode == IO_ASYNC)
  {
    int b = sb_opt_int("file-async-backlog");
    if (b <= 0)
    {
      log_text(LOG_FATAL, "Invalid value of file-async-backlog: %d", b);
      return 1;
    }
    if (fio_aio_init(cfg->threads, (unsigned) b) != 0)
      return 1;
  }
#endif
  position = 0;
  current_file = fsynced_file = 0;
  req_performed = 0;
  is_dirty = false;
  memset(&prev_req, 0, sizeof(prev_req));
  prev_req.file = (unsigned) -1;
  return 0;
}

static void fileio_print_mode(void)
{
  char size[32];
  fio_print_extra_flags();
  log_text(LOG_NOTICE, "%u files, %sB each", fio.num_files,
           sb_builtin_size_text(size, sizeof(size), (double) fio.file_size));
  log_text(LOG_NOTICE, "%sB total file size",
           sb_builtin_size_text(size, sizeof(size), (double) (fio.file_size * fio.num_files)));
  log_text(LOG_NOTICE, "Block size %sB", sb_builtin_size_text(size, sizeof(size), fio.block_size));
  if (fio.merged > 0)
    log_text(LOG_NOTICE, "Merging requests up to %sB for sequential IO.",
             sb_builtin_size_text(size, sizeof(size), (double) fio.request_size));
  if (fio.test_mode >= RNDRD)
  {
    log_text(LOG_NOTICE, "Number of IO requests: %" PRIu64, max_events);
    log_text(LOG_NOTICE, "Read/Write ratio for combined random IO test: %2.2f", fio.rw_ratio);
  }
  if (fio.fsync_freq > 0)
    log_text(LOG_NOTICE, "Periodic FSYNC enabled, calling fsync() each %d requests.", fio.fsync_freq);
  if (fio.fsync_end)
    log_text(LOG_NOTICE, "Calling fsync() at the end of test, Enabled.");
  if (fio.fsync_all)
    log_text(LOG_NOTICE, "Calling fsync() after each write operation.");
  log_text(LOG_NOTICE, "Using %s I/O mode", io_text[fio.io_mode]);
  if (fio.validate)
    log_text(LOG_NOTICE, "Using checksums validation.");
  log_text(LOG_NOTICE, "Doing %s test", mode_text[fio.test_mode]);
}

static int map_files(void)
{
  for (unsigned i = 0; i < fio.num_files; i++)
  {
    if (fio.test_mode == SEQWR && ftruncate(fds[i], (off_t) fio.file_size) != 0)
    {
      log_text(LOG_FATAL, "ftruncate() failed on file %u errno = %d (%s)", i, errno, strerror(errno));
      return 1;
    }
    maps[i] = mmap(NULL, (size_t) fio.file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
    if (maps[i] == MAP_FAILED)
    {
      maps[i] = NULL;
      log_text(LOG_FATAL, "mmap() failed on file %u errno = %d (%s)", i, errno, strerror(errno));
      return 1;
    }
  }
  return 0;
}

/* After the mode text: opens the files (seqwr recreates them empty) and
   checks that the others have the size the options imply. */
static int fileio_prepare(void)
{
  for (unsigned i = 0; i < fio.num_files; i++)
  {
    char name[64];
    fio_file_name(name, sizeof(name), i);
    if (fio.test_mode == SEQWR)
    {
      unlink(name);
      int fd = open(name, O_CREAT | O_EXCL, S_IRUSR | S_IWUSR);
      if (fd < 0)
      {
        log_text(LOG_FATAL, "Cannot create file '%s' errno = %d (%s)", name, errno, strerror(errno));
        return 1;
      }
      close(fd);
    }
    log_text(LOG_DEBUG, "Opening file: %s", name);
    fds[i] = open(name, O_RDWR | fio_open_flags(), S_IRUSR | S_IWUSR);
    if (fds[i] < 0)
    {
      log_text(LOG_FATAL, "Cannot open file '%s' errno = %d (%s)", name, errno, strerror(errno));
      log_text(LOG_WARNING, "Did you forget to run the prepare step?");
      return 1;
    }
    if (fio.test_mode == SEQWR)
      continue;
    struct stat st;
    if (fstat(fds[i], &st) != 0)
    {
      log_text(LOG_FATAL, "fstat() failed on file '%s' errno = %d (%s)", name, errno, strerror(errno));
      return 1;
    }
    if (st.st_size < fio.file_size)
    {
      char have[32], want[32];
      log_text(LOG_FATAL, "Size of file '%s' is %sB, but at least %sB is expected.", name,
               sb_builtin_size_text(have, sizeof(have), (double) st.st_size),
               sb_builtin_size_text(want, sizeof(want), (double) fio.file_size));
      log_text(LOG_WARNING, "Did you run 'prepare' with different --file-total-size or "
               "--file-num values?");
      return 1;
    }
  }
  return fio.io_mode == IO_MMAP ? map_files() : 0;
}

/* ---- run: request generation -------------------------------------------- */

/* The next file of the periodic fsync round, when one is due (caller holds
   gen_mutex). */
static bool next_fsync(request_t *r)
{
  if (fio.fsync_freq == 0 || !is_dirty || req_performed % (unsigned long) fio.fsync_freq != 0)
    return false;
  r->op = OP_FSYNC;
  r->file = fsynced_file++;
  r->pos = r->size = 0;
  if (fsynced_file == fio.num_files)
  {
    fsynced_file = 0;
    is_dirty = false;
  }
  return true;
}

/* --validate: warns when a sequential request does not follow the last. */
static void check_seq(const request_t *r)
{
  const request_t *p = &prev_req;
  if (p->file == (unsigned) -1)
    return;
  if (r->file != p->file && r->file - p->file > 1 && !(r->file == 0 && p->file == fio.num_files - 1))
    log_text(LOG_WARNING, "Discovered too large file difference in seq requests!");
  else if (r->file == p->file && r->pos - p->pos != p->size)
    log_text(LOG_WARNING, "Discovered too large position difference in seq request!");
  else if (r->file != p->file && (p->pos + p->size != fio.file_size || r->pos != 0))
  {
    log_text(LOG_WARNING, "Invalid file switch found!");
    log_text(LOG_WARNING, "Old: file_id: %u, pos: %d  size: %d", p->file, (int) p->pos, (int) p->size);
    log_text(LOG_WARNING, "New: file_id: %u, pos: %d  size: %d", r->file, (int) r->pos, (int) r->size);
  }
}

static void seq_request(request_t *r)
{
  pthread_mutex_lock(&gen_mutex);
  r->op = fio.test_mode == SEQRD ? OP_READ : OP_WRITE;
  if (r->op == OP_WRITE && next_fsync(r))
  {
    pthread_mutex_unlock(&gen_mutex);
    return;
  }
  req_performed++;
  if (r->op == OP_WRITE)
    is_dirty = true;
  if (current_file == fio.num_files)       /* every file done: start over */
  {
    position = 0;
    current_file = 0;
  }
  r->file = current_file;
  r->pos = position;
  r->size = fio.request_size < fio.file_size - position ? fio.request_size : fio.file_size - position;
  position += r->size;
  if (position == fio.file_size)
  {
    current_file++;
    position = 0;
  }
  if (fio.validate)
  {
    check_seq(r);
    prev_req = *r;
  }
  pthread_mutex_unlock(&gen_mutex);
}

static void rnd_request(int tid, request_t *r)
{
  test_mode_t m = fio.test_mode;
  if (m == RNDRW)
    m = ((double) sb_counter_val(tid, SB_CNT_READ) + 1.0) /
        ((double) sb_counter_val(tid, SB_CNT_WRITE) + 1.0) < fio.rw_ratio ? RNDRD : RNDWR;
  pthread_mutex_lock(&gen_mutex);
  if (next_fsync(r))
  {
    pthread_mutex_unlock(&gen_mutex);
    return;
  }
  r->op = m == RNDWR ? OP_WRITE : OP_READ;
  /* bmk: the range is the files' real extent (num_files x file_size);
     sysbench uses --file-total-size, which can name a file past the last
     when the total does not divide evenly. */
  long long span = fio.file_size * fio.num_files;
  for (;;)
  {
    long long p = (long long) (sb_rand_uniform_double() * (double) span);
    p -= p % fio.block_size;
    r->file = (unsigned) (p / fio.file_size);
    r->pos = p % fio.file_size;
    r->size = fio.block_size < fio.file_size - r->pos ? fio.block_size : fio.file_size - r->pos;
    if (!fio.validate)
      break;
    /* Checksums need a block no other thread is using. */
    bool busy = false;
    for (unsigned i = 0; i < fio.nthreads && !busy; i++)
      busy = (int) i != tid && per_thread[i].file == r->file && per_thread[i].pos == r->pos;
    if (!busy)
      break;
  }
  per_thread[tid].file = r->file;
  per_thread[tid].pos = r->pos;
  req_performed++;
  if (r->op == OP_WRITE)
    is_dirty = true;
  pthread_mutex_unlock(&gen_mutex);
}

/* ---- run: I/O ------------------------------------------------------------- */

static int do_fsync(unsigned file)
{
  if (fio.io_mode == IO_MMAP)
    return msync(maps[file], (size_t) fio.file_size, MS_SYNC | MS_INVALIDATE);
  /* async too: the kernel has no asynchronous fsync worth using. */
  return fio.fsync_data ? fdatasync(fds[file]) : fsync(fds[file]);
}

static int file_fsync(int tid, unsigned file)
{
  if (do_fsync(file) != 0)
  {
    log_text(LOG_FATAL, "Failed to fsync file! file: %d errno = %d (%s)", fds[file], errno,
             strerror(errno));
    return 1;
  }
  sb_counter_inc(tid, SB_CNT_OTHER);
  return 0;
}

/* Reads or writes; returns the bytes done (async: queued), else -1. */
static long long file_io(int tid, const request_t *r, bool write)
{
  void *buf = per_thread[tid].buffer;
  size_t len = (size_t) r->size;
  int fd = fds[r->file];
  switch (fio.io_mode)
  {
  case IO_SYNC:
    return write ? pwrite(fd, buf, len, (off_t) r->pos) : pread(fd, buf, len, (off_t) r->pos);
#ifdef HAVE_LIBAIO
  case IO_ASYNC:
    return fio_aio_submit(tid, fd, buf, len, r->pos, write) == 0 ? r->size : -1;
#endif
  case IO_MMAP:
    if (write)
      memcpy(maps[r->file] + r->pos, buf, len);
    else
      memcpy(buf, maps[r->file] + r->pos, len);
    return r->size;
  default:
    return -1;
  }
}

static int execute(int tid, const request_t *r)
{
  if (log_get_verbosity() >= LOG_DEBUG)
    log_text(LOG_DEBUG, "Executing request, operation: %d, file_id: %u, pos: %d, size: %d",
             (int) r->op, r->file, (int) r->pos, (int) r->size);
  if (r->file >= fio.num_files)
  {
    log_text(LOG_FATAL, "Incorrect file id in request: %u", r->file);
    return 1;
  }
  if (r->pos + r->size > fio.file_size)
  {
    log_text(LOG_FATAL, "I/O request exceeds file size. file id: %u file size: %lld "
             "req offset: %lld req size: %lld", r->file, fio.file_size, r->pos, r->size);
    return 1;
  }
  unsigned char *buf = per_thread[tid].buffer;
  switch (r->op)
  {
  case OP_WRITE:
    if (fio.validate)
      fio_fill_buffer(buf, (size_t) r->size, r->pos);
    if (file_io(tid, r, true) != r->size)
    {
      log_text(LOG_FATAL, "Failed to write file! file: %d pos: %lld errno = %d (%s)",
               fds[r->file], r->pos, errno, strerror(errno));
      return 1;
    }
    if (fio.fsync_all && file_fsync(tid, r->file) != 0)
      return 1;
    if (fio.io_mode != IO_ASYNC)   /* async: counted on completion */
    {
      sb_counter_inc(tid, SB_CNT_WRITE);
      sb_counter_add(tid, SB_CNT_BYTES_WRITTEN, (uint64_t) r->size);
    }
    return 0;
  case OP_READ:
    if (file_io(tid, r, false) != r->size)
    {
      log_text(LOG_FATAL, "Failed to read file! file: %d pos: %lld errno = %d (%s)",
               fds[r->file], r->pos, errno, strerror(errno));
      return 1;
    }
    if (fio.validate && fio.io_mode != IO_ASYNC && fio_validate_buffer(buf, (size_t) r->size, r->pos) != 0)
    {
      log_text(LOG_FATAL, "Validation failed on file %u, block offset %lld, exiting...",
               r->file, r->pos);
      return 1;
    }
    if (fio.io_mode != IO_ASYNC)
    {
      sb_counter_inc(tid, SB_CNT_READ);
      sb_counter_add(tid, SB_CNT_BYTES_READ, (uint64_t) r->size);
    }
    return 0;
  default:
    /* --file-fsync-all already syncs after every write. */
    return fio.fsync_all ? 0 : file_fsync(tid, r->file);
  }
}

static int fileio_event(int tid)
{
  request_t r;
  if (fio.test_mode <= SEQREWR)
    seq_request(&r);
  else
    rnd_request(tid, &r);
  return execute(tid, &r) != 0 ? -1 : 0;
}

/* After the thread's last event: the end-of-test fsync of every file
   (counted, as in sysbench) and the wait for queued AIO requests. */
static int fileio_thread_done(int tid)
{
  if (fio.fsync_end && fio.test_mode != SEQRD && fio.test_mode != RNDRD)
    for (unsigned i = 0; i < fio.num_files; i++)
      if (file_fsync(tid, i) != 0)
        return 1;
#ifdef HAVE_LIBAIO
  if (fio.io_mode == IO_ASYNC)
    return fio_aio_drain(tid);
#endif
  return 0;
}

/* ---- reports -------------------------------------------------------------- */

static void fileio_interval(const sb_stat_t *st)
{
  double t = st->time_interval > 0 ? st->time_interval : 1;
  log_text(LOG_NOTICE, "[ %.0fs ] reads: %4.2f MiB/s writes: %4.2f MiB/s fsyncs: %4.2f/s "
           "latency (ms,%u%%): %4.3f", st->time_total, (double) st->bytes_read / 1048576.0 / t,
           (double) st->bytes_written / 1048576.0 / t, (double) st->other / t, st->percentile,
           st->latency_pct * 1000.0);
}

/* Replaces the generic report (no fairness block), as in sysbench 1.1. */
static void fileio_report(const sb_stat_t *st)
{
  double t = st->time_interval > 0 ? st->time_interval : 1;
  double rb = (double) st->bytes_read / t, wb = (double) st->bytes_written / t;
  sb_builtin_report_line("\nThroughput:\n"
                         "         read:  IOPS=%4.2f %4.2f MiB/s (%4.2f MB/s)\n"
                         "         write: IOPS=%4.2f %4.2f MiB/s (%4.2f MB/s)\n"
                         "         fsync: IOPS=%4.2f",
                         (double) st->reads / t, rb / 1048576.0, rb / 1e6,
                         (double) st->writes / t, wb / 1048576.0, wb / 1e6, (double) st->other / t);
  sb_builtin_report_line("%s", "");
  sb_builtin_report_line("Latency (ms):");
  sb_builtin_report_line("         min:                            %10.2f", st->latency_min * 1e3);
  sb_builtin_report_line("         avg:                            %10.2f", st->latency_avg * 1e3);
  sb_builtin_report_line("         max:                            %10.2f", st->latency_max * 1e3);
  if (st->percentile > 0)
    sb_builtin_report_line("        %3uth percentile:                %10.2f", st->percentile,
                           st->latency_pct * 1e3);
  else
    sb_builtin_report_line("         percentile stats:               disabled");
  sb_builtin_report_line("         sum:                            %10.2f", st->latency_sum * 1e3);
  sb_builtin_report_line("%s", "");
}

static void fileio_done(void)
{
  for (unsigned i = 0; fds && i < fio.num_files; i++)
  {
    if (maps[i])
      munmap(maps[i], (size_t) fio.file_size);
    if (fds[i] >= 0)
      close(fds[i]);
  }
#ifdef HAVE_LIBAIO
  fio_aio_done();
#endif
  free(fds);
  free(maps);
  fds = NULL;
  maps = NULL;
  fio_free_buffers();
}

const sb_builtin_t sb_test_fileio = {
  .name = "fileio",
  .description = "File I/O test",
  .options = fio_options,
  .init = fileio_init,
  .prepare = fio_cmd_prepare,
  .cleanup = fio_cmd_cleanup,
  .run = { .prepare = fileio_prepare, .event = fileio_event,
           .thread_done = fileio_thread_done, .print_mode = fileio_print_mode,
           .report_intermediate = fileio_interval,
           .report_cumulative = fileio_report, .replace_cumulative = true },
  .done = fileio_done,
};
