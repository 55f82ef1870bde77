/*
 * `bmk compare --fail-if` gates (docs/results-db.md "Gates"): a gate
 * names a metric and a relative threshold on B's change against A, and
 * its verdict is pass, fail or inconclusive: a comparison that cannot
 * decide is never a pass (its own exit code, SB_CMP_EXIT_INCONCLUSIVE,
 * unless --inconclusive=pass). Pure functions over a row of
 * sb_compare_metrics.h; reentrant.
 */
#ifndef SB_COMPARE_GATE_H
#define SB_COMPARE_GATE_H

#include <stddef.h>

#include "commands/compare/sb_compare_metrics.h"

/* Exit codes of bmk compare and --threshold (docs/reliability.md "Exit
   codes"): a gate failed; a gate could not decide. */
#define SB_CMP_EXIT_FAIL 3
#define SB_CMP_EXIT_INCONCLUSIVE 4

typedef enum { GATE_PASS, GATE_FAIL, GATE_INCONCLUSIVE } sb_cmp_verdict_t;

typedef struct {
  sb_cmp_metric_t metric;
  char op;                     /* '<' (a drop fails) or '>' (a rise fails) */
  double pct;                  /* the signed threshold, percent */
  const char *text;            /* as given */
} sb_cmp_gate_t;

/*
 * Parses "METRIC<-N%" or "METRIC>+N%" (METRIC as sb_cmp_metric_parse:
 * tps, qps, errors, nopm, tpm, a figure's name, pN) into *g. Returns 0,
 * or -1 with the reason in `err` (`errlen` bytes).
 */
int sb_cmp_gate_parse(const char *s, sb_cmp_gate_t *g, char *err, size_t errlen);

/*
 * The verdict of gate g on row r (B against A):
 *  - fail: the change crosses the threshold and is significant (its 95%
 *    interval excludes 0), or crosses it at all with `ignore_noise`;
 *  - pass: the whole interval lies on the safe side of the threshold
 *    (a drop gate `<T`: lo >= T; a rise gate `>T`: hi <= T), or with
 *    `ignore_noise` the change does not cross it;
 *  - inconclusive otherwise: no interval (too few samples), or an
 *    interval that holds changes beyond the threshold without the change
 *    being a significant one past it.
 */
sb_cmp_verdict_t sb_cmp_gate_decide(const sb_cmp_gate_t *g, const sb_cmp_row_t *r,
                                    bool ignore_noise);

/*
 * What would make an inconclusive gate decide, as a phrase into buf
 * (`n` bytes): with an interval, about how many runs a side (by runs) or
 * intervals a side (by intervals) would bring its half-width down to the
 * threshold, so that a change of that size would be told from noise (the
 * half-width shrinks as 1/sqrt(samples); the t quantile's own shrinking
 * is left out, so the figure errs high); without one, the least that
 * gives an interval at all. Source: the standard error of a mean,
 * NIST/SEMATECH e-Handbook 7.2.2.2 (sample sizes for a given precision).
 */
void sb_cmp_gate_needed(const sb_cmp_gate_t *g, const sb_cmp_row_t *r, char *buf, size_t n);

#endif
