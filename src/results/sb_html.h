/*
 * `bmk report --html=FILE` (docs/report.md): one self-contained HTML page
 * of charts from a set of --results documents, drawn by gnuplot (Debian
 * gnuplot-nox, SVG terminal) and embedded inline, so the page needs no
 * network access and no script:
 *  - per series (sb_series_table.h grouping): throughput vs users (tps
 *    and qps on their own axes), and p95/p99 latency vs users;
 *  - per run: its per-interval timeline of tps, p95 and errors/s (an
 *    empty "no data" panel for a figure the run does not have);
 *  - when DBL runs are present (summary.metrics.rows): rows/s vs the
 *    transaction size (one line per job count and load method) and rows/s
 *    vs jobs (one line per transaction size and load method).
 *  - with sb_html_write_compare: both sides' timelines overlaid
 *    (sb_html_compare.c);
 *  - with sb_html_write_capacity: a capacity search's curve
 *    (sb_html_capacity.c).
 * Every chart is a <figure class="chart"> holding one <svg>, so a browser
 * test can count them. gnuplot runs as a child process (`gnuplot` on PATH,
 * or $BMK_GNUPLOT); its absence is an error naming the package.
 */
#ifndef SB_HTML_H
#define SB_HTML_H

#include <stddef.h>

#include "results/sb_results_file.h"

/*
 * Writes the page for the `n` documents to `path` (through path.tmp
 * renamed into place). Returns 0, or -1 with the reason in `err`: gnuplot
 * missing or failing (its message), the file not writable, a corrupt
 * histogram. Not thread-safe (runs a child process, uses a temporary
 * directory under $TMPDIR or /tmp).
 */
int sb_html_write(const char *path, const sb_results_file_t *docs, unsigned n, char *err,
                  size_t errlen);

/*
 * `bmk compare --html=FILE`: the page of sb_html_write for the runs of
 * both sides (docs[0..na) side A, docs[na..na+nb) side B, labelled
 * `label_a` / `label_b`: "run 17", "tag:build=41"), headed by one chart of
 * every run's per-interval tps and p95 overlaid, A's runs in blue and B's
 * in red. Returns and errors as sb_html_write. Not thread-safe.
 */
int sb_html_write_compare(const char *path, const sb_results_file_t *docs, unsigned na, unsigned nb,
                          const char *label_a, const char *label_b, char *err, size_t errlen);

/*
 * `bmk capacity --html=FILE` (docs/capacity.md): the page of one search
 * from its bmk-capacity document `search_json` (written by bmk capacity):
 * the answer lines, one chart of achieved tps and p50/p95/p99 against the
 * offered rate (users in --mode=users) with the SLO bounds as horizontal
 * lines and the highest passing step and the saturation marked, then
 * every step's per-interval timeline (the step files the document names).
 * Returns 0, or -1 with the reason in `err`: the document unreadable or
 * not a capacity search, a step file missing, gnuplot failing, the page
 * not writable. Not thread-safe.
 */
int sb_html_write_capacity(const char *path, const char *search_json, char *err, size_t errlen);

/* Where sb_html_write also copies every chart as a standalone SVG file,
   DIR/chart-<n>.svg, with DIR/charts.txt listing "chart-<n>.svg: caption"
   (for documents that embed charts as images; `--svg-dir`). NULL (the
   default) = none. Not thread-safe. */
void sb_html_set_svg_dir(const char *dir);

#endif
