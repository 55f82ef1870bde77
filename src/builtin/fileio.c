/*
 * Built-in test `fileio`: file I/O over test_file.N in the current
 * directory (sysbench-compat.md §8).
 *
 * bmk decision: --file-io-mode=async uses synchronous pread/pwrite (with a
 * notice), since bmk adds no AIO dependency; sync and mmap are implemented.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin/sb_builtin.h"
#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"
#include "core/sb_timer.h"

static const sb_option_t fileio_options[] = {
  { "file-num", "number of files to create", "128", SB_ARG_TYPE_INT },
  { "file-block-size", "block size to use in all IO operations", "16384", SB_ARG_TYPE_INT },
  { "file-total-size", "total size of files to create", "2G", SB_ARG_TYPE_SIZE },
  { "file-test-mode", "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}", NULL, SB_ARG_TYPE_STRING },
  { "file-io-mode", "file operations mode {sync,async,mmap}", "sync", SB_ARG_TYPE_STRING },
  { "file-async-backlog", "number of asynchronous operatons to queue per thread", "128", SB_ARG_TYPE_INT },
  { "file-extra-flags", "list of additional flags to use to open files {sync,dsync,direct}", "", SB_ARG_TYPE_LIST },
  { "file-fsync-freq", "do fsync() after this number of requests (0 - don't use fsync())", "100", SB_ARG_TYPE_INT },
  { "file-fsync-all", "do fsync() after each write operation", "off", SB_ARG_TYPE_BOOL },
  { "file-fsync-end", "do fsync() at the end of test", "on", SB_ARG_TYPE_BOOL },
  { "file-fsync-mode", "which method to use for synchronization {fsync, fdatasync}", "fsync", SB_ARG_TYPE_STRING },
  { "file-merged-requests", "merge at most this number of IO requests if possible (0 - don't merge)", "0", SB_ARG_TYPE_INT },
  { "file-rw-ratio", "reads/writes ratio for combined test", "1.5", SB_ARG_TYPE_DOUBLE },
  { NULL, NULL, NULL, 0 }
};

typedef enum { SEQWR, SEQREWR, SEQRD, RNDRD, RNDWR, RNDRW } mode_t_;
static const char *mode_names[] = { "seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw" };
static const char *mode_text[] = {
  "Doing sequential write (creation) test", "Doing sequential rewrite test",
  "Doing sequential read test", "Doing random read test",
  "Doing random write test", "Doing random r/w test"
};

static int nfiles, fsync_freq, mode = -1, open_flags;
static uint64_t block_size, total_size, file_size, total_blocks;
static bool fsync_all, fsync_end, use_fdatasync, use_mmap;
static double rw_ratio;
static char extra_text[64];
static int *fds;
static char **maps;
static uint64_t seq_next;                 /* shared cursor for seq modes */
static unsigned long req_count;           /* for --file-fsync-freq */
static _Thread_local char *iobuf;

static int parse_options(bool need_mode)
{
  nfiles = sb_opt_int("file-num");
  int bs = sb_opt_int("file-block-size");
  total_size = sb_opt_size("file-total-size");
  if (nfiles <= 0 || bs <= 0)
  {
    log_text(LOG_FATAL, "Invalid value for file-num or file-block-size");
    return 1;
  }
  block_size = (uint64_t) bs;
  file_size = total_size / (uint64_t) nfiles;
  file_size -= file_size % block_size;
  total_blocks = file_size / block_size * (uint64_t) nfiles;

  const char *m = sb_opt_str("file-test-mode");
  if (m == NULL || *m == '\0')
  {
    if (need_mode)
    {
      log_text(LOG_FATAL, "Missing required argument: --file-test-mode");
      return 1;
    }
  }
  else
  {
    for (int i = 0; i < 6; i++)
      if (strcmp(m, mode_names[i]) == 0)
        mode = i;
    if (mode < 0)
    {
      log_text(LOG_FATAL, "Invalid IO operations mode: %s.", m);
      return 1;
    }
  }
  const char *io = sb_opt_str("file-io-mode");
  use_mmap = io && !strcmp(io, "mmap");
  if (io && strcmp(io, "sync") && strcmp(io, "async") && strcmp(io, "mmap"))
  {
    log_text(LOG_FATAL, "Invalid value for file-io-mode: %s", io);
    return 1;
  }
  unsigned n;
  char **flags = sb_opt_list("file-extra-flags", &n);
  open_flags = 0;
  extra_text[0] = '\0';
  for (unsigned i = 0; i < n; i++)
  {
    if (!strcmp(flags[i], "sync"))
      open_flags |= O_SYNC;
    else if (!strcmp(flags[i], "dsync"))
      open_flags |= O_DSYNC;
    else if (!strcmp(flags[i], "direct"))
      open_flags |= O_DIRECT;
    else
    {
      log_text(LOG_FATAL, "Invalid value for file-extra-flags: %s", flags[i]);
      return 1;
    }
    snprintf(extra_text + strlen(extra_text), sizeof(extra_text) - strlen(extra_text),
             "%s%s", *extra_text ? " " : "", flags[i]);
  }
  fsync_freq = sb_opt_int("file-fsync-freq");
  fsync_all = sb_opt_bool("file-fsync-all");
  fsync_end = sb_opt_bool("file-fsync-end");
  const char *fm = sb_opt_str("file-fsync-mode");
  use_fdatasync = fm && !strcmp(fm, "fdatasync");
  rw_ratio = sb_opt_double("file-rw-ratio");
  return 0;
}

static int fileio_prepare(const sb_run_config_t *cfg)
{
  (void) cfg;
  if (parse_options(false) != 0)
    return 1;
  log_text(LOG_NOTICE, "%d files, %luKb each, %luMb total", nfiles,
           (unsigned long) (file_size / 1024), (unsigned long) (file_size * (uint64_t) nfiles / 1024 / 1024));
  log_text(LOG_NOTICE, "Creating files for the test...");
  log_text(LOG_NOTICE, "Extra file open flags: %s", *extra_text ? extra_text : "(none)");
  char *buf = calloc(1, block_size);
  uint64_t written = 0, t0 = sb_now_ns();
  for (int i = 0; i < nfiles; i++)
  {
    char name[64];
    snprintf(name, sizeof(name), "test_file.%d", i);
    log_text(LOG_NOTICE, "Creating file %s", name);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC | open_flags, 0644);
    if (fd < 0)
    {
      log_text(LOG_FATAL, "Cannot open file '%s' errno = %d (%s)", name, errno, strerror(errno));
      free(buf);
      return 1;
    }
    for (uint64_t off = 0; off < file_size; off += block_size)
    {
      if (write(fd, buf, block_size) != (ssize_t) block_size)
      {
        log_text(LOG_FATAL, "Failed to write file '%s': errno = %d (%s)", name, errno, strerror(errno));
        close(fd);
        free(buf);
        return 1;
      }
      written += block_size;
    }
    fsync(fd);
    close(fd);
  }
  free(buf);
  double secs = (double) (sb_now_ns() - t0) / 1e9;
  log_text(LOG_NOTICE, "%lu bytes written in %.2f seconds (%.2f MiB/sec).",
           (unsigned long) written, secs, secs > 0 ? (double) written / 1048576.0 / secs : 0);
  return 0;
}

static int fileio_cleanup(const sb_run_config_t *cfg)
{
  (void) cfg;
  if (parse_options(false) != 0)
    return 1;
  log_text(LOG_NOTICE, "Removing test files...");
  for (int i = 0; i < nfiles; i++)
  {
    char name[64];
    snprintf(name, sizeof(name), "test_file.%d", i);
    unlink(name);
  }
  return 0;
}

/* Opens the files for `run` (after the mode text). */
static int open_files(void)
{
  fds = calloc((size_t) nfiles, sizeof(int));
  maps = calloc((size_t) nfiles, sizeof(char *));
  int flags = (mode == SEQRD || mode == RNDRD ? O_RDONLY : O_RDWR) | open_flags;
  if (mode == SEQWR)
    flags |= O_CREAT;
  for (int i = 0; i < nfiles; i++)
  {
    char name[64];
    snprintf(name, sizeof(name), "test_file.%d", i);
    fds[i] = open(name, flags, 0644);
    if (fds[i] < 0)
    {
      log_text(LOG_FATAL, "Cannot open file '%s' errno = %d (%s)", name, errno, strerror(errno));
      if (errno == ENOENT)
        log_text(LOG_WARNING, "Did you forget to run the prepare step?");
      return 1;
    }
    if (use_mmap)
    {
      if (mode == SEQWR && ftruncate(fds[i], (off_t) file_size) != 0)
        return 1;
      maps[i] = mmap(NULL, file_size, PROT_READ | (flags & O_RDWR ? PROT_WRITE : 0),
                     MAP_SHARED, fds[i], 0);
      if (maps[i] == MAP_FAILED)
      {
        log_text(LOG_FATAL, "mmap() failed for '%s': %s", name, strerror(errno));
        return 1;
      }
    }
  }
  return 0;
}

static void do_fsync(int tid, int fd, int file)
{
  if (use_mmap)
    msync(maps[file], file_size, MS_SYNC);
  else if (use_fdatasync)
    fdatasync(fd);
  else
    fsync(fd);
  sb_counter_inc(tid, SB_CNT_OTHER);
}

static int fileio_thread_init(int tid)
{
  (void) tid;
  if (posix_memalign((void **) &iobuf, 4096, block_size) != 0)
    return 1;
  memset(iobuf, 'x', block_size);
  return 0;
}

static int fileio_event(int tid)
{
  uint64_t blk;
  bool write_op;
  if (mode <= SEQRD)
  {
    blk = __atomic_fetch_add(&seq_next, 1, __ATOMIC_RELAXED);
    if (blk >= total_blocks)
      return 1;           /* one pass over the files */
    write_op = mode != SEQRD;
  }
  else
  {
    blk = (uint64_t) (sb_rand_uniform_double() * (double) total_blocks);
    write_op = mode == RNDWR ||
      (mode == RNDRW && sb_rand_uniform_double() * (rw_ratio + 1) >= rw_ratio);
  }
  uint64_t per_file = file_size / block_size;
  int file = (int) (blk / per_file);
  off_t off = (off_t) ((blk % per_file) * block_size);
  int fd = fds[file];
  ssize_t n;
  if (use_mmap)
  {
    if (write_op)
      memcpy(maps[file] + off, iobuf, block_size);
    else
      memcpy(iobuf, maps[file] + off, block_size);
    n = (ssize_t) block_size;
  }
  else
    n = write_op ? pwrite(fd, iobuf, block_size, off) : pread(fd, iobuf, block_size, off);
  if (n != (ssize_t) block_size)
  {
    log_text(LOG_FATAL, "Failed to %s file! file: %d pos: %lld errno = %d (%s)",
             write_op ? "write" : "read", file, (long long) off, errno, strerror(errno));
    return 1;
  }
  if (write_op)
  {
    sb_counter_inc(tid, SB_CNT_WRITE);
    sb_counter_add(tid, SB_CNT_BYTES_WRITTEN, block_size);
    unsigned long c = __atomic_add_fetch(&req_count, 1, __ATOMIC_RELAXED);
    if (fsync_all || (fsync_freq > 0 && c % (unsigned long) fsync_freq == 0))
      do_fsync(tid, fd, file);
  }
  else
  {
    sb_counter_inc(tid, SB_CNT_READ);
    sb_counter_add(tid, SB_CNT_BYTES_READ, block_size);
  }
  return 0;
}

static int fileio_thread_done(int tid)
{
  (void) tid;
  free(iobuf);
  iobuf = NULL;
  return 0;
}

static bool files_ok;

static void fileio_mode(void)
{
  log_text(LOG_NOTICE, "Extra file open flags: %s", *extra_text ? extra_text : "(none)");
  log_text(LOG_NOTICE, "%d files, %luMiB each", nfiles, (unsigned long) (file_size / 1048576));
  log_text(LOG_NOTICE, "%luMiB total file size", (unsigned long) (file_size * (uint64_t) nfiles / 1048576));
  log_text(LOG_NOTICE, "Block size %luKiB", (unsigned long) (block_size / 1024));
  log_text(LOG_NOTICE, "Number of IO requests: %d", sb_opt_int("events"));
  if (mode == RNDRW)
    log_text(LOG_NOTICE, "Read/Write ratio for combined random IO test: %.2f", rw_ratio);
  if (fsync_freq > 0)
    log_text(LOG_NOTICE, "Periodic FSYNC enabled, calling fsync() each %d requests.", fsync_freq);
  if (fsync_end)
    log_text(LOG_NOTICE, "Calling fsync() at the end of test, Enabled.");
  const char *io = sb_opt_str("file-io-mode");
  if (io && !strcmp(io, "async"))
    log_text(LOG_NOTICE, "Using synchronous I/O mode (bmk runs async mode synchronously)");
  else if (use_mmap)
    log_text(LOG_NOTICE, "Using mmap I/O mode");
  else
    log_text(LOG_NOTICE, "Using synchronous I/O mode");
  log_text(LOG_NOTICE, "%s", mode_text[mode]);
}

static void fileio_interval(const sb_stat_t *st)
{
  double t = st->time_interval > 0 ? st->time_interval : 1;
  log_text(LOG_NOTICE, "[ %.0fs ] reads: %4.2f MiB/s writes: %4.2f MiB/s fsyncs: %4.2f/s latency (ms,%u%%): %4.3f",
           st->time_total, (double) st->reads * (double) block_size / 1048576.0 / t,
           (double) st->writes * (double) block_size / 1048576.0 / t,
           (double) st->other / t, st->percentile, st->latency_pct * 1000.0);
}

static void fileio_report(const sb_stat_t *st)
{
  double t = st->time_interval > 0 ? st->time_interval : 1;
  double rmib = (double) st->reads * (double) block_size / 1048576.0 / t;
  double wmib = (double) st->writes * (double) block_size / 1048576.0 / t;
  printf("\nThroughput:\n");
  printf("         read:  IOPS=%4.2f %4.2f MiB/s (%4.2f MB/s)\n", (double) st->reads / t,
         rmib, rmib * 1.048576);
  printf("         write: IOPS=%4.2f %4.2f MiB/s (%4.2f MB/s)\n", (double) st->writes / t,
         wmib, wmib * 1.048576);
  printf("         fsync: IOPS=%4.2f\n\n", (double) st->other / t);
  printf("Latency (ms):\n");
  printf("%-41s%10.2f\n", "         min:", st->latency_min * 1000.0);
  printf("%-41s%10.2f\n", "         avg:", st->latency_avg * 1000.0);
  printf("%-41s%10.2f\n", "         max:", st->latency_max * 1000.0);
  char label[64];
  snprintf(label, sizeof(label), "         %uth percentile:", st->percentile);
  printf("%-41s%10.2f\n", label, st->latency_pct * 1000.0);
  printf("%-41s%10.2f\n", "         sum:", st->latency_sum * 1000.0);
  printf("\n");
}

static int fileio_run_init(const sb_run_config_t *cfg)
{
  (void) cfg;
  if (parse_options(true) != 0)
    return 1;
  files_ok = open_files() == 0;
  return files_ok ? 0 : 1;
}

static void fileio_done(void)
{
  for (int i = 0; fds && i < nfiles; i++)
  {
    if (fds[i] <= 0)
      continue;
    if (fsync_end && mode != SEQRD && mode != RNDRD)
    {
      if (use_mmap)
        msync(maps[i], file_size, MS_SYNC);
      else
        fsync(fds[i]);
    }
    if (use_mmap && maps[i] && maps[i] != MAP_FAILED)
      munmap(maps[i], file_size);
    close(fds[i]);
  }
  free(fds);
  free(maps);
  fds = NULL;
  maps = NULL;
}

const sb_builtin_t sb_test_fileio = {
  .name = "fileio",
  .description = "File I/O test",
  .options = fileio_options,
  .run_init = fileio_run_init,
  .prepare = fileio_prepare,
  .cleanup = fileio_cleanup,
  .run = { .thread_init = fileio_thread_init, .event = fileio_event,
           .thread_done = fileio_thread_done, .print_mode = fileio_mode,
           .report_intermediate = fileio_interval,
           .report_cumulative = fileio_report, .replace_cumulative = true },
  .done = fileio_done,
};

