#!/usr/bin/env python3
"""Checks the alone side of a `bmk chbench run --baseline` --results
document and its chart in `bmk report --html` (test_chbench.sh), by
exact relations only (no timing):

  chbench_alone_chart_check.py RESULTS.json PAGE.html

RESULTS.json is the mixed run's --results (the phases' are beside it:
RESULTS.tpcc-alone.json, RESULTS.streams-alone.json), PAGE.html the page
`bmk report --html` drew from it. The alone figures are the phases' own:
chbench_alone_mean_qNN_seconds the streams-alone run's
chbench_mean_qNN_seconds (the same queries), chbench_alone_TYPE_p95_ms
the TPC-C-alone run's event_types[].latency_ms.p95. The page has one
chart "analytic query times alone vs mixed" whose x tics are the queries
with a value on either side (Q<n>, in query order) and whose bar labels
(gnuplot's value labels, 3 significant digits) are the alone figures then
the mixed ones (chbench_mean_qNN_seconds), each in query order. Prints
"ok", else one line per failed relation.
"""
import json
import re
import sys

TYPES = ["new_order", "payment", "order_status", "delivery", "stock_level"]


def figures(path):
    with open(path) as f:
        doc = json.load(f)
    return doc, {k: v["value"] for k, v in doc["summary"].get("figures", {}).items()}


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12)


def main():
    res, page = sys.argv[1], sys.argv[2]
    stem = res[:-5] if res.endswith(".json") else res
    _, mixed = figures(res)
    _, streams = figures(stem + ".streams-alone.json")
    tdoc, _ = figures(stem + ".tpcc-alone.json")
    bad = []
    alone_q = {q: mixed.get("chbench_alone_mean_q%02d_seconds" % q) for q in range(1, 23)}
    mixed_q = {q: mixed.get("chbench_mean_q%02d_seconds" % q) for q in range(1, 23)}
    for q in range(1, 23):
        own = streams.get("chbench_mean_q%02d_seconds" % q)
        a = alone_q[q]
        if (a is None) != (own is None) or (a is not None and not close(a, own)):
            bad.append("Q%d: alone figure %s, the streams-alone run's %s" % (q, a, own))
    if not any(v is not None for v in alone_q.values()):
        bad.append("no chbench_alone_mean_qNN_seconds figure")
    p95 = {t["name"]: t["latency_ms"]["p95"] for t in tdoc.get("event_types", [])
           if t.get("events", 0) > 0}
    for ty in TYPES:
        a = mixed.get("chbench_alone_%s_p95_ms" % ty)
        own = p95.get(ty)
        if (a is None) != (own is None) or (a is not None and not close(a, own)):
            bad.append("%s: alone p95 figure %s, the TPC-C-alone run's %s" % (ty, a, own))

    with open(page) as f:
        html = f.read()
    charts = [m for m in re.findall(r'<figure class="chart".*?</figure>', html, re.S)
              if "analytic query times alone vs mixed" in m]
    if len(charts) != 1:
        bad.append("%d charts 'analytic query times alone vs mixed' in the page" % len(charts))
    else:
        svg = charts[0]
        want_tics = ["Q%d" % q for q in range(1, 23)
                     if alone_q[q] is not None or mixed_q[q] is not None]
        tics = re.findall(r"<text>(Q[0-9]+)</text>", svg)
        if tics != want_tics:
            bad.append("x tics %s, want %s" % (tics, want_tics))
        # the value labels: gnuplot's groups of font-size 7 (only they are)
        labels = re.findall(r'font-size="7\.00"[^>]*>\s*<text>([^<]*)</text>', svg)
        want = ["%.3g" % alone_q[q] for q in range(1, 23) if alone_q[q] is not None] + \
               ["%.3g" % mixed_q[q] for q in range(1, 23) if mixed_q[q] is not None]
        if labels != want:
            bad.append("bar labels %s, want (alone, then mixed) %s" % (labels, want))
    print("\n".join(bad) if bad else "ok")


main()
