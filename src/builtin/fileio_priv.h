/*
 * Shared between the parts of the fileio test: fileio_setup.c (options,
 * buffers, checksums, prepare/cleanup) and fileio.c (the run). Not for
 * other tests.
 */
#ifndef SB_FILEIO_PRIV_H
#define SB_FILEIO_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "builtin/sb_builtin.h"

/* sysbench's order: --file-test-mode seqrd, seqwr, seqrewr, rndrd, ... */
typedef enum { SEQRD, SEQWR, SEQREWR, RNDRD, RNDWR, RNDRW } test_mode_t;
typedef enum { IO_SYNC, IO_ASYNC, IO_MMAP } io_mode_t;
enum { FLAG_SYNC = 1, FLAG_DSYNC = 2, FLAG_DIRECT = 4 };   /* --file-extra-flags */

/* The parsed options (fio_parse_arguments); sizes in bytes. */
typedef struct {
  unsigned num_files, nthreads;          /* nthreads: buffers allocated */
  long long total_size, file_size;       /* file_size = total / num_files */
  long long request_size;                /* block x merged requests */
  int block_size, merged, fsync_freq, extra_flags;
  bool fsync_all, fsync_end, fsync_data, validate;
  double rw_ratio;
  test_mode_t test_mode;                 /* `run` only */
  io_mode_t io_mode;
} fio_opts_t;

/* Per-thread request buffer and, with --validate, the block in use. */
typedef struct {
  unsigned char *buffer;        /* request_size bytes, page-aligned */
  unsigned file;
  long long pos;
} __attribute__((aligned(64))) per_thread_t;

extern fio_opts_t fio;
extern per_thread_t *per_thread;         /* fio.nthreads entries */
extern const sb_option_t fio_options[];

/* Reads and checks the options (the test mode for `run` only), printing
   sysbench's FATAL texts. 0 = ok, 1 = bad option. Main thread. */
int fio_parse_arguments(bool run);

/* "test_file.<i>" into buf. */
void fio_file_name(char *buf, size_t len, unsigned i);

/* open(2) flags of --file-extra-flags. */
int fio_open_flags(void);

/* "Extra file open flags: ..." as sysbench prints it. */
void fio_print_extra_flags(void);

/* Allocates / frees `n` zeroed per-thread buffers. 1 on failure (FATAL). */
int fio_alloc_buffers(unsigned n);
void fio_free_buffers(void);

/* --validate: fills a block with random bytes, a CRC32 of them and its
   offset; checks one (FATAL lines and 1 on a mismatch). */
void fio_fill_buffer(unsigned char *buf, size_t len, long long offset);
int fio_validate_buffer(const unsigned char *buf, size_t len, long long offset);

/* The `prepare` and `cleanup` commands; exit code. */
int fio_cmd_prepare(const sb_run_config_t *cfg);
int fio_cmd_cleanup(const sb_run_config_t *cfg);

#endif
