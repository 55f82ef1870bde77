/*
 * The "server" block of a --results document (docs/results.md
 * "Reconciliation with the server" and "Server cost per transaction",
 * docs/results.schema.json): the server's own counters over the measured
 * window (server/sb_server_stats.h) as deltas, transactions and queries
 * with their rates per second, redo/WAL and data-file writes (bytes,
 * counts, times in ms), and the server cost (server/sb_server_cost.h) as
 * its "cost" member.
 * A counter the server does not have is null, never 0.
 */
#ifndef SB_RESULTS_SERVER_H
#define SB_RESULTS_SERVER_H

#include <jansson.h>

/* The block of the run that ended: null when reconciliation was off or
   failed and there is no cost either, an object holding only "cost" when
   only the cost was measured. New reference. Main thread, after the
   statistics probe's last sample. */
json_t *sb_results_server_json(void);

#endif
