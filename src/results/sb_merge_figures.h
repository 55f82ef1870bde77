/*
 * The figures of merged runs (`summary.figures` of `bmk report --merge`
 * and a cluster run's document): TPC-C's NOPM and TPM, the server's
 * counters, a script's sysbench.figure. A figure is one value per run,
 * so how the runs' values combine depends on whose measure it is
 * (core/sb_figure.h):
 *  - a client figure (scope "client", or no scope: older files) is the
 *    run's own count: summed (per-minute figures: the counts summed, shown
 *    per minute of the merged window);
 *  - a server figure (scope "server": a count in the schema, the
 *    server's own counters) is the database's: every run on one database
 *    measured the same thing over nearly the same window, so the runs'
 *    values are averaged when they all name the same database; runs on
 *    distinct databases (each its own) are summed; a mix is not merged.
 * A figure that not every run has, or that runs publish differently (per
 * minute or not, scope), is left out. Each merged figure records how
 * ("merge": "sum" or "mean") and from how many runs ("runs").
 * Reentrant: works on the caller's documents.
 */
#ifndef SB_MERGE_FIGURES_H
#define SB_MERGE_FIGURES_H

#include <stddef.h>

#include <jansson.h>

#include "results/sb_results_file.h"

/*
 * The merged `figures` object of `n` documents over the merged window of
 * `window_s` seconds, or NULL when no figure merges (none, or none that
 * every run has alike). Appends to `note` (`notelen` bytes, may be NULL)
 * one line naming the figures left out and why.
 */
json_t *sb_merge_figures(const sb_results_file_t *d, unsigned n, double window_s, char *note,
                         size_t notelen);

/*
 * The database a run's document names, as "driver host port db" (with
 * the load host's name first when the database host is a loopback
 * address or a socket, which names a different server on each host),
 * into buf. Returns buf; "" when the document names none (a run without
 * a database).
 */
const char *sb_merge_database(const json_t *doc, char *buf, size_t len);

#endif
