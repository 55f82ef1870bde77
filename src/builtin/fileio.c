/*
 * Built-in test `fileio`: file I/O over test_file.N in the current
 * directory (sysbench-compat.md §8), with sysbench 1.1's texts, request
 * generators and accounting:
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
 * Request generation is serialised by one mutex, as in sysbench.
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
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "builtin/sb_builtin.h"
#ifdef HAVE_LIBAIO
#include "builtin/fileio_aio.h"
#endif
#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"
#include "core/sb_timer.h"

static const sb_option_t fileio_options[] = {
  { "file-num", "number of files to create", "128", SB_ARG_TYPE_INT },
  { "file-block-size", "block size to use in all IO operations", "16384", SB_ARG_TYPE_INT },
  { "file-total-size", "total size of files to create", "2G", SB_ARG_TYPE_SIZE },
  { "file-test-mode", "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}", NULL, SB_ARG_TYPE_STRING },
  { "file-io-mode", "file operations mode {sync,async,mmap}", "sync", SB_ARG_TYPE_STRING },
#ifdef HAVE_LIBAIO
  { "file-async-backlog", "number of asynchronous operatons to queue per thread", "128", SB_ARG_TYPE_INT },
#endif
  { "file-extra-flags", "list of additional flags to use to open files {sync,dsync,direct}", "", SB_ARG_TYPE_LIST },
  { "file-fsync-freq", "do fsync() after this number of requests (0 - don't use fsync())", "100", SB_ARG_TYPE_INT },
  { "file-fsync-all", "do fsync() after each write operation", "off", SB_ARG_TYPE_BOOL },
  { "file-fsync-end", "do fsync() at the end of test", "on", SB_ARG_TYPE_BOOL },
  { "file-fsync-mode", "which method to use for synchronization {fsync, fdatasync}", "fsync", SB_ARG_TYPE_STRING },
  { "file-merged-requests", "merge at most this number of IO requests if possible (0 - don't merge)", "0", SB_ARG_TYPE_INT },
  { "file-rw-ratio", "reads/writes ratio for combined test", "1.5", SB_ARG_TYPE_DOUBLE },
  { NULL, NULL, NULL, 0 }
};

/* sysbench's order: the names below map to these values. */
typedef enum { SEQRD, SEQWR, SEQREWR, RNDRD, RNDWR, RNDRW } test_mode_t;
static const char *const mode_names[] = { "seqrd", "seqwr", "seqrewr", "rndrd", "rndwr", "rndrw" };
static const char *const mode_text[] = {
  "sequential read", "sequential write (creation)", "sequential rewrite",
  "random read", "random write", "random r/w"
};
typedef enum { IO_SYNC, IO_ASYNC, IO_MMAP } io_mode_t;
static const char *const io_text[] = { "synchronous", "asynchronous", "fast mmaped" };
enum { FLAG_SYNC = 1, FLAG_DSYNC = 2, FLAG_DIRECT = 4 };
typedef enum { OP_READ, OP_WRITE, OP_FSYNC } op_t;

typedef struct {
  op_t op;
  unsigned file;
  long long pos, size;
} request_t;

typedef struct {
  unsigned char *buffer;        /* request-size, page-aligned */
  unsigned file;                /* block in use (--validate) */
  long long pos;
} __attribute__((aligned(64))) per_thread_t;

/* Options (parse_arguments). */
static unsigned num_files, nthreads;
static long long total_size, file_size, request_size;
static int block_size, merged, fsync_freq, extra_flags;
static bool fsync_all, fsync_end, fsync_data, validate;
static double rw_ratio;
static test_mode_t test_mode;
static io_mode_t io_mode;
static uint64_t max_events;

/* Run state. */
static int *fds;
static char **maps;
static per_thread_t *per_thread;
static pthread_mutex_t gen_mutex = PTHREAD_MUTEX_INITIALIZER;
static long long position;               /* sequential cursor */
static unsigned current_file, fsynced_file;
static bool is_dirty;                    /* writes since the last fsync round */
static unsigned long req_performed;
static request_t prev_req;               /* --validate: sequence check */

#define CHECKSUM_LEN sizeof(int)
#define OFFSET_LEN sizeof(long)

/* ---- options -------------------------------------------------------------- */

static void test_file_name(char *buf, size_t len, unsigned i)
{
  snprintf(buf, len, "test_file.%u", i);
}

static int parse_flags(void)
{
  unsigned n;
  char **flags = sb_opt_list("file-extra-flags", &n);
  extra_flags = 0;
  for (unsigned i = 0; i < n; i++)
  {
    if (!strcmp(flags[i], "sync"))
      extra_flags |= FLAG_SYNC;
    else if (!strcmp(flags[i], "dsync"))
      extra_flags |= FLAG_DSYNC;
    else if (!strcmp(flags[i], "direct"))
      extra_flags |= FLAG_DIRECT;
    else
    {
      /* sysbench names the list's first value here; bmk the wrong one. */
      log_text(LOG_FATAL, "Invalid value for file-extra-flags: %s", flags[i]);
      return 1;
    }
  }
  return 0;
}

/* The test mode is read for `run` only, as in sysbench. */
static int parse_mode(void)
{
  const char *m = sb_opt_str("file-test-mode");
  if (m == NULL || *m == '\0')
  {
    log_text(LOG_FATAL, "Missing required argument: --file-test-mode\n");
    log_text(LOG_NOTICE, "fileio options:");
    sb_opt_print_group(SB_GROUP_TEST, NULL, false);
    printf("\n");
    return 1;
  }
  for (int i = 0; i <= RNDRW; i++)
    if (!strcmp(m, mode_names[i]))
    {
      test_mode = (test_mode_t) i;
      return 0;
    }
  log_text(LOG_FATAL, "Invalid IO operations mode: %s.", m);
  return 1;
}

static int parse_io_mode(void)
{
  const char *m = sb_opt_str("file-io-mode");
  if (m == NULL || !strcmp(m, "sync"))
    io_mode = IO_SYNC;
  else if (!strcmp(m, "async"))
  {
#ifdef HAVE_LIBAIO
    io_mode = IO_ASYNC;
#else
    log_text(LOG_FATAL, "asynchronous I/O mode is unsupported on this platform.");
    return 1;
#endif
  }
  else if (!strcmp(m, "mmap"))
    io_mode = IO_MMAP;
  else
  {
    log_text(LOG_FATAL, "unknown I/O mode: %s", m);
    return 1;
  }
  return 0;
}

static int parse_arguments(bool run)
{
  num_files = (unsigned) sb_opt_int("file-num");
  if (sb_opt_int("file-num") <= 0)
  {
    log_text(LOG_FATAL, "Invalid value for file-num: %d", sb_opt_int("file-num"));
    return 1;
  }
  total_size = (long long) sb_opt_size("file-total-size");
  if (total_size <= 0)
  {
    log_text(LOG_FATAL, "Invalid value for file-total-size: %lld", total_size);
    return 1;
  }
  file_size = total_size / num_files;
  if ((run && parse_mode() != 0) || parse_io_mode() != 0)
    return 1;
  merged = sb_opt_int("file-merged-requests");
  if (merged < 0)
  {
    log_text(LOG_FATAL, "Invalid value for file-merged-requests: %d.", merged);
    return 1;
  }
  /* A SIZE value ("16K") as sysbench reads it, though the help says N. */
  uint64_t bs = 0;
  const char *bs_text = sb_opt_str("file-block-size");
  if (bs_text)
    sb_parse_size(bs_text, &bs);
  block_size = bs > 0x7fffffff ? 0 : (int) bs;
  if (block_size <= 0)
  {
    log_text(LOG_FATAL, "Invalid value for file-block-size: %d.", block_size);
    return 1;
  }
  request_size = merged > 0 ? (long long) block_size * merged : block_size;
  if (parse_flags() != 0)
    return 1;
  fsync_freq = sb_opt_int("file-fsync-freq");
  if (fsync_freq < 0)
  {
    log_text(LOG_FATAL, "Invalid value for file-fsync-freq: %d.", fsync_freq);
    return 1;
  }
  fsync_end = sb_opt_bool("file-fsync-end");
  fsync_all = sb_opt_bool("file-fsync-all");
  if (fsync_all)               /* overrides the two others */
  {
    fsync_end = false;
    fsync_freq = 0;
  }
  const char *fm = sb_opt_str("file-fsync-mode");
  if (fm && !strcmp(fm, "fsync"))
    fsync_data = false;
  else if (fm && !strcmp(fm, "fdatasync"))
    fsync_data = true;
  else
  {
    log_text(LOG_FATAL, "Invalid fsync mode: %s.", fm ? fm : "");
    return 1;
  }
  rw_ratio = sb_opt_double("file-rw-ratio");
  if (rw_ratio < 0)
  {
    log_text(LOG_FATAL, "Invalid value for --file-rw-ratio: %f.", rw_ratio);
    return 1;
  }
  validate = sb_opt_bool("validate");
  return 0;
}

static int open_flags(void)
{
  return (extra_flags & FLAG_SYNC ? O_SYNC : 0) | (extra_flags & FLAG_DSYNC ? O_DSYNC : 0) |
         (extra_flags & FLAG_DIRECT ? O_DIRECT : 0);
}

static void print_extra_flags(void)
{
  log_text(LOG_NOTICE, "Extra file open flags: %s%s%s%s", extra_flags == 0 ? "(none)" : "",
           extra_flags & FLAG_SYNC ? "sync " : "", extra_flags & FLAG_DSYNC ? "dsync " : "",
           extra_flags & FLAG_DIRECT ? "directio" : "");
}

/* Page-aligned request buffers for `n` threads (O_DIRECT needs the
   alignment). */
static int alloc_buffers(unsigned n)
{
  /* posix_memalign: calloc does not honour the type's 64-byte alignment. */
  if (posix_memalign((void **) &per_thread, 64, n * sizeof(*per_thread)) != 0)
    per_thread = NULL;
  else
    memset(per_thread, 0, n * sizeof(*per_thread));
  if (per_thread == NULL)
  {
    log_text(LOG_FATAL, "Failed to allocate per-thread data");
    return 1;
  }
  nthreads = n;
  long page = sysconf(_SC_PAGESIZE);
  for (unsigned i = 0; i < n; i++)
  {
    if (posix_memalign((void **) &per_thread[i].buffer, (size_t) page, (size_t) request_size) != 0)
    {
      per_thread[i].buffer = NULL;
      log_text(LOG_FATAL, "Failed to allocate a memory buffer");
      return 1;
    }
    memset(per_thread[i].buffer, 0, (size_t) request_size);
    per_thread[i].file = (unsigned) -1;
  }
  return 0;
}

static void free_buffers(void)
{
  for (unsigned i = 0; per_thread && i < nthreads; i++)
    free(per_thread[i].buffer);
  free(per_thread);
  per_thread = NULL;
  nthreads = 0;
}

/* ---- --validate: checksummed blocks -------------------------------------- */

static void fill_buffer(unsigned char *buf, size_t len, long long offset)
{
  size_t n = len - (CHECKSUM_LEN + OFFSET_LEN), i;
  for (i = 0; i < n; i++)
    buf[i] = (unsigned char) (sb_rand_uniform_uint64() & 0xFF);
  int crc = (int) crc32(0, buf, (uInt) n);
  memcpy(buf + i, &crc, CHECKSUM_LEN);
  long off = (long) offset;
  memcpy(buf + i + CHECKSUM_LEN, &off, OFFSET_LEN);
}

static int validate_buffer(const unsigned char *buf, size_t len, long long offset)
{
  size_t n = len - (CHECKSUM_LEN + OFFSET_LEN);
  unsigned crc = (unsigned) crc32(0, buf, (uInt) n), stored;
  long stored_off;
  memcpy(&stored, buf + n, CHECKSUM_LEN);
  memcpy(&stored_off, buf + n + CHECKSUM_LEN, OFFSET_LEN);
  if (crc != stored)
  {
    log_text(LOG_FATAL, "Checksum mismatch in block with offset: %lld", offset);
    log_text(LOG_FATAL, "    Calculated value: 0x%x    Stored value: 0x%x", crc, stored);
    return 1;
  }
  if (stored_off != (long) offset)
  {
    log_text(LOG_FATAL, "Offset mismatch in block:");
    log_text(LOG_FATAL, "   Actual offset: %lld    Stored offset: %ld", offset, stored_off);
    return 1;
  }
  return 0;
}

/* ---- prepare / cleanup commands ------------------------------------------ */

/* Creates or extends every file to file_size; existing data is kept. */
static int create_files(void)
{
  log_text(LOG_NOTICE, "%u files, %ldKb each, %ldMb total", num_files, (long) (file_size / 1024),
           (long) (file_size * num_files / (1024 * 1024)));
  log_text(LOG_NOTICE, "Creating files for the test...");
  print_extra_flags();
  if (alloc_buffers(1) != 0)
    return 1;
  unsigned char *buf = per_thread[0].buffer;
  long long written = 0;
  uint64_t t0 = sb_now_ns();
  for (unsigned i = 0; i < num_files; i++)
  {
    char name[64];
    test_file_name(name, sizeof(name), i);
    int fd = open(name, O_CREAT | O_WRONLY | open_flags(), S_IRUSR | S_IWUSR);
    if (fd < 0)
    {
      log_text(LOG_FATAL, "Can't open file errno = %d (%s)", errno, strerror(errno));
      free_buffers();
      return 1;
    }
    long long offset = (long long) lseek(fd, 0, SEEK_END);
    if (offset >= file_size)
      log_text(LOG_NOTICE, "Reusing existing file %s", name);
    else if (offset > 0)
      log_text(LOG_NOTICE, "Extending existing file %s", name);
    else
      log_text(LOG_NOTICE, "Creating file %s", name);
    for (; offset < file_size; offset += block_size, written += block_size)
    {
      if (validate)
        fill_buffer(buf, (size_t) block_size, offset);
      if (write(fd, buf, (size_t) block_size) < 0)
      {
        log_text(LOG_FATAL, "Failed to write file! errno = %d (%s)", errno, strerror(errno));
        close(fd);
        free_buffers();
        return 1;
      }
    }
    /* Flushed now, so the page cache does not carry them into the run. */
    fsync(fd);
    close(fd);
  }
  free_buffers();
  double secs = (double) (sb_now_ns() - t0) / 1e9;
  if (written > 0)
    log_text(LOG_NOTICE, "%lld bytes written in %.2f seconds (%.2f MiB/sec).", written, secs,
             (double) written / 1048576.0 / secs);
  else
    log_text(LOG_NOTICE, "No bytes written.");
  return 0;
}

static int remove_files(void)
{
  log_text(LOG_NOTICE, "Removing test files...");
  for (unsigned i = 0; i < num_files; i++)
  {
    char name[64];
    test_file_name(name, sizeof(name), i);
    unlink(name);
  }
  return 0;
}

static int fileio_cmd_prepare(const sb_run_config_t *cfg)
{
  (void) cfg;
  return parse_arguments(false) != 0 ? 1 : create_files();
}

static int fileio_cmd_cleanup(const sb_run_config_t *cfg)
{
  (void) cfg;
  return parse_arguments(false) != 0 ? 1 : remove_files();
}

/* ---- run: setup ----------------------------------------------------------- */

static int fileio_init(sb_run_config_t *cfg)
{
  if (parse_arguments(true) != 0)
    return 1;
  max_events = cfg->events_limit;
  fds = malloc(num_files * sizeof(int));
  maps = calloc(num_files, sizeof(char *));
  if (fds == NULL || maps == NULL)
  {
    log_text(LOG_FATAL, "Memory allocation failure.");
    return 1;
  }
  for (unsigned i = 0; i < num_files; i++)
    fds[i] = -1;
  if (alloc_buffers(cfg->threads) != 0)
    return 1;
#ifdef HAVE_LIBAIO
  if (io_mode == IO_ASYNC)
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
  print_extra_flags();
  log_text(LOG_NOTICE, "%u files, %sB each", num_files,
           sb_builtin_size_text(size, sizeof(size), (double) file_size));
  log_text(LOG_NOTICE, "%sB total file size",
           sb_builtin_size_text(size, sizeof(size), (double) (file_size * num_files)));
  log_text(LOG_NOTICE, "Block size %sB", sb_builtin_size_text(size, sizeof(size), block_size));
  if (merged > 0)
    log_text(LOG_NOTICE, "Merging requests up to %sB for sequential IO.",
             sb_builtin_size_text(size, sizeof(size), (double) request_size));
  if (test_mode >= RNDRD)
  {
    log_text(LOG_NOTICE, "Number of IO requests: %" PRIu64, max_events);
    log_text(LOG_NOTICE, "Read/Write ratio for combined random IO test: %2.2f", rw_ratio);
  }
  if (fsync_freq > 0)
    log_text(LOG_NOTICE, "Periodic FSYNC enabled, calling fsync() each %d requests.", fsync_freq);
  if (fsync_end)
    log_text(LOG_NOTICE, "Calling fsync() at the end of test, Enabled.");
  if (fsync_all)
    log_text(LOG_NOTICE, "Calling fsync() after each write operation.");
  log_text(LOG_NOTICE, "Using %s I/O mode", io_text[io_mode]);
  if (validate)
    log_text(LOG_NOTICE, "Using checksums validation.");
  log_text(LOG_NOTICE, "Doing %s test", mode_text[test_mode]);
}

static int map_files(void)
{
  for (unsigned i = 0; i < num_files; i++)
  {
    if (test_mode == SEQWR && ftruncate(fds[i], (off_t) file_size) != 0)
    {
      log_text(LOG_FATAL, "ftruncate() failed on file %u errno = %d (%s)", i, errno, strerror(errno));
      return 1;
    }
    maps[i] = mmap(NULL, (size_t) file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
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
  for (unsigned i = 0; i < num_files; i++)
  {
    char name[64];
    test_file_name(name, sizeof(name), i);
    if (test_mode == SEQWR)
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
    fds[i] = open(name, O_RDWR | open_flags(), S_IRUSR | S_IWUSR);
    if (fds[i] < 0)
    {
      log_text(LOG_FATAL, "Cannot open file '%s' errno = %d (%s)", name, errno, strerror(errno));
      log_text(LOG_WARNING, "Did you forget to run the prepare step?");
      return 1;
    }
    if (test_mode == SEQWR)
      continue;
    struct stat st;
    if (fstat(fds[i], &st) != 0)
    {
      log_text(LOG_FATAL, "fstat() failed on file '%s' errno = %d (%s)", name, errno, strerror(errno));
      return 1;
    }
    if (st.st_size < file_size)
    {
      char have[32], want[32];
      log_text(LOG_FATAL, "Size of file '%s' is %sB, but at least %sB is expected.", name,
               sb_builtin_size_text(have, sizeof(have), (double) st.st_size),
               sb_builtin_size_text(want, sizeof(want), (double) file_size));
      log_text(LOG_WARNING, "Did you run 'prepare' with different --file-total-size or "
               "--file-num values?");
      return 1;
    }
  }
  return io_mode == IO_MMAP ? map_files() : 0;
}

/* ---- run: request generation -------------------------------------------- */

/* The next file of the periodic fsync round, when one is due (caller holds
   gen_mutex). */
static bool next_fsync(request_t *r)
{
  if (fsync_freq == 0 || !is_dirty || req_performed % (unsigned long) fsync_freq != 0)
    return false;
  r->op = OP_FSYNC;
  r->file = fsynced_file++;
  r->pos = r->size = 0;
  if (fsynced_file == num_files)
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
  if (r->file != p->file && r->file - p->file > 1 && !(r->file == 0 && p->file == num_files - 1))
    log_text(LOG_WARNING, "Discovered too large file difference in seq requests!");
  else if (r->file == p->file && r->pos - p->pos != p->size)
    log_text(LOG_WARNING, "Discovered too large position difference in seq request!");
  else if (r->file != p->file && (p->pos + p->size != file_size || r->pos != 0))
  {
    log_text(LOG_WARNING, "Invalid file switch found!");
    log_text(LOG_WARNING, "Old: file_id: %u, pos: %d  size: %d", p->file, (int) p->pos, (int) p->size);
    log_text(LOG_WARNING, "New: file_id: %u, pos: %d  size: %d", r->file, (int) r->pos, (int) r->size);
  }
}

static void seq_request(request_t *r)
{
  pthread_mutex_lock(&gen_mutex);
  r->op = test_mode == SEQRD ? OP_READ : OP_WRITE;
  if (r->op == OP_WRITE && next_fsync(r))
  {
    pthread_mutex_unlock(&gen_mutex);
    return;
  }
  req_performed++;
  if (r->op == OP_WRITE)
    is_dirty = true;
  if (current_file == num_files)       /* every file done: start over */
  {
    position = 0;
    current_file = 0;
  }
  r->file = current_file;
  r->pos = position;
  r->size = request_size < file_size - position ? request_size : file_size - position;
  position += r->size;
  if (position == file_size)
  {
    current_file++;
    position = 0;
  }
  if (validate)
  {
    check_seq(r);
    prev_req = *r;
  }
  pthread_mutex_unlock(&gen_mutex);
}

static void rnd_request(int tid, request_t *r)
{
  test_mode_t m = test_mode;
  if (m == RNDRW)
    m = ((double) sb_counter_val(tid, SB_CNT_READ) + 1.0) /
        ((double) sb_counter_val(tid, SB_CNT_WRITE) + 1.0) < rw_ratio ? RNDRD : RNDWR;
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
  long long span = file_size * num_files;
  for (;;)
  {
    long long p = (long long) (sb_rand_uniform_double() * (double) span);
    p -= p % block_size;
    r->file = (unsigned) (p / file_size);
    r->pos = p % file_size;
    r->size = block_size < file_size - r->pos ? block_size : file_size - r->pos;
    if (!validate)
      break;
    /* Checksums need a block no other thread is using. */
    bool busy = false;
    for (unsigned i = 0; i < nthreads && !busy; i++)
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
  if (io_mode == IO_MMAP)
    return msync(maps[file], (size_t) file_size, MS_SYNC | MS_INVALIDATE);
  /* async too: the kernel has no asynchronous fsync worth using. */
  return fsync_data ? fdatasync(fds[file]) : fsync(fds[file]);
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
  switch (io_mode)
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
  if (r->file >= num_files)
  {
    log_text(LOG_FATAL, "Incorrect file id in request: %u", r->file);
    return 1;
  }
  if (r->pos + r->size > file_size)
  {
    log_text(LOG_FATAL, "I/O request exceeds file size. file id: %u file size: %lld "
             "req offset: %lld req size: %lld", r->file, file_size, r->pos, r->size);
    return 1;
  }
  unsigned char *buf = per_thread[tid].buffer;
  switch (r->op)
  {
  case OP_WRITE:
    if (validate)
      fill_buffer(buf, (size_t) r->size, r->pos);
    if (file_io(tid, r, true) != r->size)
    {
      log_text(LOG_FATAL, "Failed to write file! file: %d pos: %lld errno = %d (%s)",
               fds[r->file], r->pos, errno, strerror(errno));
      return 1;
    }
    if (fsync_all && file_fsync(tid, r->file) != 0)
      return 1;
    if (io_mode != IO_ASYNC)   /* async: counted on completion */
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
    if (validate && io_mode != IO_ASYNC && validate_buffer(buf, (size_t) r->size, r->pos) != 0)
    {
      log_text(LOG_FATAL, "Validation failed on file %u, block offset %lld, exiting...",
               r->file, r->pos);
      return 1;
    }
    if (io_mode != IO_ASYNC)
    {
      sb_counter_inc(tid, SB_CNT_READ);
      sb_counter_add(tid, SB_CNT_BYTES_READ, (uint64_t) r->size);
    }
    return 0;
  default:
    /* --file-fsync-all already syncs after every write. */
    return fsync_all ? 0 : file_fsync(tid, r->file);
  }
}

static int fileio_event(int tid)
{
  request_t r;
  if (test_mode <= SEQREWR)
    seq_request(&r);
  else
    rnd_request(tid, &r);
  return execute(tid, &r) != 0 ? -1 : 0;
}

/* After the thread's last event: the end-of-test fsync of every file
   (counted, as in sysbench) and the wait for queued AIO requests. */
static int fileio_thread_done(int tid)
{
  if (fsync_end && test_mode != SEQRD && test_mode != RNDRD)
    for (unsigned i = 0; i < num_files; i++)
      if (file_fsync(tid, i) != 0)
        return 1;
#ifdef HAVE_LIBAIO
  if (io_mode == IO_ASYNC)
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
  for (unsigned i = 0; fds && i < num_files; i++)
  {
    if (maps[i])
      munmap(maps[i], (size_t) file_size);
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
  free_buffers();
}

const sb_builtin_t sb_test_fileio = {
  .name = "fileio",
  .description = "File I/O test",
  .options = fileio_options,
  .init = fileio_init,
  .prepare = fileio_cmd_prepare,
  .cleanup = fileio_cmd_cleanup,
  .run = { .prepare = fileio_prepare, .event = fileio_event,
           .thread_done = fileio_thread_done, .print_mode = fileio_print_mode,
           .report_intermediate = fileio_interval,
           .report_cumulative = fileio_report, .replace_cumulative = true },
  .done = fileio_done,
};
