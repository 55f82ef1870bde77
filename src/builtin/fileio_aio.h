/*
 * Linux native AIO (libaio) for the fileio test's --file-io-mode=async
 * (as sysbench's sb_fileio.c). Each worker thread owns one kernel AIO context
 * with room for --file-async-backlog requests: a request is submitted and
 * the event returns at once; when the backlog is full the thread waits for
 * at least one completion. Completed reads and writes are counted then
 * (SB_CNT_READ/WRITE and the byte counters), as sysbench does, so the
 * event latency is the submission time.
 *
 * Built only with libaio (configure: HAVE_LIBAIO).
 */
#ifndef SB_FILEIO_AIO_H
#define SB_FILEIO_AIO_H

#include <stdbool.h>
#include <stddef.h>

/* Creates one context per thread (`threads` contexts, `backlog` requests
   each). Prints sysbench's FATAL text and returns 1 on failure, else 0.
   Main thread, before the workers start. */
int fio_aio_init(unsigned threads, unsigned backlog);

/* Queues a read or write of `len` bytes at byte offset `off` of `fd` from
   `buf` (which must stay valid until completion) for worker `tid`; waits
   for one completion when the backlog is full. 0 = ok, 1 = failed (FATAL
   printed). Owner thread only. */
int fio_aio_submit(int tid, int fd, void *buf, size_t len, long long off, bool write);

/* Waits until every request of worker `tid` has completed. 0 = ok, 1 =
   an I/O failed (FATAL printed). Owner thread only. */
int fio_aio_drain(int tid);

/* Releases the contexts. Main thread, after the workers ended. */
void fio_aio_done(void);

#endif
