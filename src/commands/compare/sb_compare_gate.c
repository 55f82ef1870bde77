/* `bmk compare --fail-if` gates; see sb_compare_gate.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/compare/sb_compare_gate.h"

int sb_cmp_gate_parse(const char *s, sb_cmp_gate_t *g, char *err, size_t errlen)
{
  memset(g, 0, sizeof(*g));
  const char *op = strpbrk(s, "<>");
  char *end;
  if (op == NULL || sb_cmp_metric_parse(s, (size_t) (op - s), &g->metric) != 0)
  {
    snprintf(err, errlen, "--fail-if='%s': give METRIC<-N%% or METRIC>+N%% with METRIC one of "
             "tps, qps, errors, nopm, tpm, a figure's name or pN (p50, p99, p99.9)", s);
    return -1;
  }
  g->op = *op;
  g->pct = strtod(op + 1, &end);
  if (end == op + 1 || strcmp(end, "%") != 0 || !isfinite(g->pct))
  {
    snprintf(err, errlen, "--fail-if='%s': the threshold is a signed percentage, e.g. -5%%", s);
    return -1;
  }
  g->text = s;
  return 0;
}

sb_cmp_verdict_t sb_cmp_gate_decide(const sb_cmp_gate_t *g, const sb_cmp_row_t *r,
                                    bool ignore_noise)
{
  if (!r->have)
    return GATE_INCONCLUSIVE;
  bool crosses = g->op == '<' ? r->pct < g->pct : r->pct > g->pct;
  if (ignore_noise)
    return crosses ? GATE_FAIL : GATE_PASS;
  if (crosses && r->significant)
    return GATE_FAIL;
  bool safe = g->op == '<' ? r->lo >= g->pct : r->hi <= g->pct;
  return safe ? GATE_PASS : GATE_INCONCLUSIVE;
}

void sb_cmp_gate_needed(const sb_cmp_gate_t *g, const sb_cmp_row_t *r, char *buf, size_t n)
{
  if (!r->have)
  {
    if (r->by_runs || g->metric.kind == CM_FIGURE)
      snprintf(buf, n, "%s needs at least 2 runs a side (3 or more are better: --repeat=3)",
               g->metric.name);
    else if (r->ia == 0 || r->ib == 0)
      snprintf(buf, n, "the runs have no per-interval samples of %s: compare repetitions "
               "(2 or more runs a side, --repeat)", g->metric.name);
    else
      snprintf(buf, n, "%s needs at least 2 intervals a side (10 or more for a useful "
               "interval: a longer run, or a shorter --report-interval), or repetitions "
               "(--repeat)", g->metric.name);
    return;
  }
  /* the interval must shrink until it leaves the threshold on one side:
     to its distance from the change measured (the threshold's own size
     when the change sits on it) */
  double half = (r->hi - r->lo) / 2;
  double t = fabs(g->pct) > 0 ? fabs(g->pct) : 1;
  double d = fabs(r->pct - g->pct);
  if (!(d > 0.01 * t))
    d = t;
  if (!isfinite(half) || !(d > 0))
  {
    snprintf(buf, n, "more samples of %s (its interval is unbounded)", g->metric.name);
    return;
  }
  double k = half / d;
  unsigned now = r->na < r->nb ? r->na : r->nb;
  double want = ceil((double) now * k * k);
  if (want < now + 1)
    want = now + 1;
  if (r->by_runs)
    snprintf(buf, n, "about %.0f runs a side would tell whether %s changed by more than %+g%% "
             "(now %u and %u)", want, g->metric.name, g->pct, r->na, r->nb);
  else
  {
    /* the batches hold the intervals evenly: intervals = batches x length */
    unsigned ia = r->ia < r->ib ? r->ia : r->ib;
    double per = now > 0 ? (double) ia / now : 5;
    snprintf(buf, n, "about %.0f intervals a side would tell whether %s changed by more "
             "than %+g%% (now %u and %u); repetitions (--repeat=3) are the sturdier way",
             ceil(want * per), g->metric.name, g->pct, r->ia, r->ib);
  }
}
