/*
 * --threshold: pass/fail gates on one run's final numbers, as one of the
 * engine's outputs (core/sb_output.h); docs/results-db.md "Thresholds".
 *
 * Grammar of one threshold (the option is repeatable):
 *
 *   METRIC OP VALUE[UNIT]
 *   METRIC  tps | qps             events / queries per second (UNIT: none or /s)
 *           pN (p50, p95, p99.9)  latency percentile of the run's histogram
 *           avg | max             mean / highest latency
 *                                 (latency UNIT: ms, the default, s or us)
 *           errors                ignored errors per second (UNIT: none or /s),
 *                                 or with % the percentage of events
 *                                 (100 x errors / events)
 *   OP      <= < >= >
 *
 * At the end of the run each threshold prints one line
 * ("threshold p95<=20ms: 12.31 ms — passed" / "... — FAILED"), the
 * verdicts go into the --results document ("thresholds"), and when one
 * failed the output asks for exit code 3 (sb_output_request_exit). TPC-C's
 * NOPM/TPM are not among the metrics: the engine's end snapshot does not
 * hold them (the tpcc script computes them in its own report).
 */
#ifndef SB_THRESHOLD_H
#define SB_THRESHOLD_H

#include "core/sb_output.h"

/* Registers --threshold (a bmk extension option). 0 or -1. Main thread,
   at start-up. */
int sb_threshold_register_options(void);

/*
 * Parses every --threshold given (before anything connects). Returns 0
 * when none was given (`out` untouched), 1 with `out` filled with the
 * output that checks them (register it before the --results output, so
 * that the verdicts reach the document), or -1 after printing to stderr
 * which threshold is malformed and the grammar (the run's exit code is
 * then 1). Main thread.
 */
int sb_threshold_output(sb_output_t *out);

#endif
