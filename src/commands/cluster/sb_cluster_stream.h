/*
 * --cluster-stream: a cluster child's side of `bmk cluster run`
 * (docs/cluster.md "The stream"), as an output of the engine
 * (core/sb_output.h) and a probe at the start line (core/sb_probe.h).
 *
 * One line per message on the stream (the process's stdout; everything
 * else bmk prints goes to stderr from sb_cluster_stream_setup on), each
 * starting with "bmkc ":
 *   bmkc ready INDEX PID RELEASE LAYOUT workers at the start line (LAYOUT:
 *                                       sql, or generic for a built-in test)
 *   bmkc pong EPOCH_US                  answer to "ping" (clock offset)
 *   bmkc hb                             during the run, each second of silence
 *   bmkc iv K LEN_S RUNNING EVENTS READS WRITES OTHER ERRORS RECONNECTS LATE HIST
 *   bmkc doc DOC                        the run's --results document
 *                                       (results/sb_cluster_pack.h), then
 *   bmkc note KEY VALUE                 its sysbench.cluster.note pairs, then
 *   bmkc end TIME_S EVENTS READS WRITES OTHER ERRORS RECONNECTS LATE
 *            MIN_S MAX_S SUM_S EXIT HIST
 * K is the interval's number (its end / the interval length, rounded),
 * HIST the interval's (or the run's) HDR histogram in the V2 compressed
 * base64 encoding of results/sb_hdrlog.h, so the coordinator merges
 * counter for counter. Lines read on stdin: "ping", "start EPOCH_US"
 * (begin the measured time at that wall-clock instant), "stop" (end the
 * run as SIGINT does); end of input before the start aborts the run,
 * after it stops the run as SIGTERM does, so a lost coordinator leaves
 * nothing running.
 */
#ifndef SB_CLUSTER_STREAM_H
#define SB_CLUSTER_STREAM_H

#include <stdbool.h>

#include "core/sb_output.h"
#include "core/sb_probe.h"

/* Moves the process's stdout to a private descriptor for the stream and
   points descriptor 1 at stderr, so the text report no longer reaches
   the stream. Returns 0, or -1 (FATAL printed) when the descriptors
   cannot be duplicated. Main thread, once, before the run. */
int sb_cluster_stream_setup(void);

/* Fills `out` with the stream output's intervals (every `interval_s`
   seconds, or every second when 0, as the reporter ticks them) and
   `probe` with its start line: the ready line (its layout "generic" when
   `builtin`, a built-in test, else "sql"), pings, waiting for the start
   time. Asks the results output to keep the run's document
   (sb_results_keep_document), which sb_cluster_stream_end_output sends.
   Main thread, after sb_cluster_stream_setup. */
void sb_cluster_stream_output(double interval_s, bool builtin, sb_output_t *out,
                              sb_probe_t *probe);

/* Fills `out` with the stream's end: the "doc" line (the document the
   results output built), the notes, the "end" line. Register it after
   the results output (outputs end in their order). Main thread. */
void sb_cluster_stream_end_output(sb_output_t *out);

#endif
