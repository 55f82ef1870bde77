/*
 * The pgbench persona's transaction logs (-l, --aggregate-interval,
 * --sampling-rate, --log-prefix) in pgbench 15's file names and columns
 * (its manual page, "Per-Transaction Logging"): one file per thread (-j),
 * PREFIX.PID for thread 0 and PREFIX.PID.N for thread N; a line per
 * transaction "client_id transaction_no time script_no time_epoch
 * time_us [retries]" (time in microseconds, or "failed"), or with an aggregate
 * interval a line per interval "interval_start num_transactions
 * sum_latency sum_latency_2 min_latency max_latency sum_lag sum_lag_2
 * min_lag max_lag skipped retried retries serialization_failures
 * deadlock_failures" (the failure columns count with
 * --failures-detailed, else 0).
 *
 * Threads: the clients of one -j thread share its file under its mutex;
 * open and close run in the main thread, before and after the run.
 */
#ifndef PGB_LOG_H
#define PGB_LOG_H

#include <stdint.h>

#include "pgscript/pgs_random.h"

/* Opens the files of the pgbench threads, each with its sampling
   generator `sample_rs[t]` (copied). Returns 0, or 1 after pgbench's
   "could not open logfile" message. */
int pgb_log_open(const pgs_prng_t *sample_rs);

/* Logs one transaction of client `client` in thread `thread`: its
   number (1 for the client's first), script, latency in microseconds
   and outcome (0 success, 1 serialization failure, 2 deadlock failure,
   3 skipped by -R with -L), its tries (a column of retries with
   --max-tries other than 1) and its schedule lag in microseconds (a
   column with -R).
   Any client thread. */
void pgb_log_tx(int thread, int client, int64_t tx_no, unsigned script, double latency_us,
                int kind, unsigned tries, double lag_us);

/* Writes the aggregate intervals that ended by each file's last
   transaction (as pgbench does when its thread ends), closes the files. */
void pgb_log_close(void);

#endif
