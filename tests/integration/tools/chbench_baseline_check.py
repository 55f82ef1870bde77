#!/usr/bin/env python3
"""Checks `bmk chbench run --baseline` (test_chbench.sh) against each
phase's own files, by exact relations only (no timing):

  chbench_baseline_check.py RESULTS.json REPORT.json OUTPUT.txt QUERIES
  chbench_baseline_check.py RESULTS.json REPORT.json OUTPUT.txt QUERIES \
      TPCC.json STREAMS.json TPCC_ID STREAMS_ID

RESULTS.json is the mixed run's --results (the phases' are beside it:
RESULTS.tpcc-alone.json, RESULTS.streams-alone.json), REPORT.json its
--chbench-report (and REPORT.streams-alone.json), OUTPUT.txt what bmk
printed, QUERIES the --queries list. For every row of the interference
block (NOPM, each type's p95, each query's mean time): its alone and
mixed figures are the phases' own (tpcc_nopm, event_types[].latency_ms.p95,
queries[q].avg; missing there: null here), its ratio is mixed / alone of
those two as written (null when a side is), and the printed table shows
the same three. Every query of QUERIES has a row; the stream's first
query, done first in both phases, has both sides; the streams alone ran
the mixed run's order; the per-interval chbench_queries add up to the
run's, less at most one query per stream that ended after the last
interval. Prints "ok", else one line per failed relation.

The second form checks a --baseline=tag:K=V run: the alone side is the
saved runs TPCC_ID and STREAMS_ID, exported to TPCC.json and STREAMS.json
(`bmk runs export`): tpcc_nopm and event_types[].latency_ms.p95 of the
first, the figures chbench_mean_qNN_seconds of the second; the report's
alone_source names both runs.
"""
import json
import re
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def beside(path, kind):
    stem, ext = re.match(r"^(.*)(\.[^./]*)$", path).groups()
    return "%s.%s-alone%s" % (stem, kind, ext)


def main():
    res_path, rep_path, out_path, qlist = sys.argv[1:5]
    saved = len(sys.argv) > 5
    queries = [q.strip() for q in qlist.split(",")]
    mixed_r, mixed_c = load(res_path), load(rep_path)
    if saved:
        tpcc_r, streams_r = load(sys.argv[5]), load(sys.argv[6])
        tid, sid = int(sys.argv[7]), int(sys.argv[8])
    else:
        tpcc_r, streams_c = load(beside(res_path, "tpcc")), load(beside(rep_path, "streams"))
    out = open(out_path).read()
    bad = []
    inter = mixed_c.get("interference")
    if inter is None:
        print("no interference member in " + rep_path)
        return

    def near(a, b, tol):
        if a is None or b is None:
            return a is None and b is None
        return abs(a - b) <= tol

    def printed_as(text, v, fmt):
        # `text` is v printed with fmt: "-" for none, else within half a
        # unit of its last digit (a value exactly at a half, such as a
        # ratio of 1.625, rounds either way: C's printf to even, LuaJIT's
        # string.format up)
        if v is None or text == "-":
            return v is None and text == "-"
        digits = int(fmt[2:-1])
        try:
            return abs(float(text) - v) <= 0.5 * 10 ** -digits + 1e-9
        except ValueError:
            return False

    def check(name, row, alone, mixed, tol, label, fmt):
        if not near(row["alone"], alone, tol):
            bad.append("%s: alone %s, the phase's own %s" % (name, row["alone"], alone))
        if not near(row["mixed"], mixed, tol):
            bad.append("%s: mixed %s, the run's own %s" % (name, row["mixed"], mixed))
        a, m, r = row["alone"], row["mixed"], row["ratio"]
        want = round(m / a, 6) if a and m is not None else None
        if not near(r, want, 1.5e-6):
            bad.append("%s: ratio %s, mixed / alone %s" % (name, r, want))
        shown = [("-" if v is None else fmt % v) for v in (a, m)]
        shown.append("-" if r is None else "%.2f" % r)
        line = re.search(r"^  " + re.escape(label) + r" +(\S+) +(\S+) +(\S+)$", out, re.M)
        if not line or not all(printed_as(p, v, f) for p, v, f in
                               zip(line.groups(), (a, m, r), (fmt, fmt, "%.2f"))):
            bad.append("%s: printed %s, JSON %s" % (name, line and line.groups(), shown))

    fig = lambda d, k: d["summary"]["figures"].get(k, {}).get("value")
    check("NOPM", inter["nopm"], fig(tpcc_r, "tpcc_nopm"), fig(mixed_r, "tpcc_nopm"), 0.01,
          "NOPM", "%.0f")
    if not near(fig(mixed_r, "chbench_alone_nopm"), fig(tpcc_r, "tpcc_nopm"), 0.01):
        bad.append("figure chbench_alone_nopm is not the TPC-C-alone run's tpcc_nopm")
    p95 = lambda d: {t["name"]: t["latency_ms"]["p95"] for t in d["event_types"] if t["events"]}
    pa, pm = p95(tpcc_r), p95(mixed_r)
    for t in ("new_order", "payment", "order_status", "delivery", "stock_level"):
        check(t + " p95", inter["p95_ms"][t], pa.get(t), pm.get(t), 1.5e-6, t + " p95 ms", "%.3f")
    if sorted(inter["queries"], key=int) != sorted(queries, key=int):
        bad.append("queries %s, asked %s" % (sorted(inter["queries"], key=int), queries))
    avg = lambda d, q: d["queries"].get(q, {}).get("avg")
    if saved:
        alone = lambda q: fig(streams_r, "chbench_mean_q%02d_seconds" % int(q))
        src = inter.get("alone_source", {})
        if (src.get("from"), src.get("tpcc_run"), src.get("streams_run")) != ("saved runs", tid, sid):
            bad.append("alone_source %s, not saved runs %d and %d" % (src, tid, sid))
    else:
        alone = lambda q: avg(streams_c, q)
        if inter.get("alone_source") != {"from": "phases"}:
            bad.append("alone_source %s, not this command's phases" % inter.get("alone_source"))
    for q in queries:
        check("Q" + q, inter["queries"].get(q, {"alone": None, "mixed": None, "ratio": None}),
              alone(q), avg(mixed_c, q), 1.5e-6, "Q%s mean s" % q, "%.3f")
    order = mixed_c["streams"][0]["order"]
    if not saved and streams_c["streams"][0]["order"] != order:
        bad.append("the streams alone ran another order")
    first = inter["queries"].get(str(order[0]), {})
    if first.get("alone") is None or first.get("mixed") is None:
        bad.append("the stream's first query, Q%d, lacks a side" % order[0])
    # the intervals are whole seconds: a query in flight at the end of
    # --time ends after the last interval line, in the run's total (at
    # most one per stream)
    per_interval = sum(i.get("metrics", {}).get("chbench_queries", 0) for i in mixed_r["intervals"])
    total = mixed_r["summary"]["metrics"].get("chbench_queries", {}).get("total")
    nstreams = len(mixed_c["streams"])
    if total is None or not per_interval <= total <= per_interval + nstreams:
        bad.append("intervals' chbench_queries add up to %d, the run's %s (%d stream(s) may end "
                   "one query each after the last interval)" % (per_interval, total, nstreams))
    print("\n".join(bad) if bad else "ok")


main()
