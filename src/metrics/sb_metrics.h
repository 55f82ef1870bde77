/*
 * --metrics-listen: the live Prometheus endpoint as an output of the
 * engine (core/sb_output.h); docs/metrics.md.
 *
 * The HTTP server is libmicrohttpd's, on its own thread
 * (sb_metrics_http.c); the exposition is rendered once per interval
 * (metrics/sb_prom.h) and every scrape is served that page, so a scrape
 * never sees half an interval.
 */
#ifndef SB_METRICS_H
#define SB_METRICS_H

#include <stdbool.h>

#include "core/sb_output.h"

/* Registers --metrics-listen, --metrics-linger and --tag (bmk extension
   options). Returns 0 or -1. Main thread, at option registration. */
int sb_metrics_register_options(void);

/*
 * When --metrics-listen is given (--tag checked before, by
 * sb_metrics_check_tags): binds the address (before
 * any connection to the database, so a port in use or an address of
 * another host is reported first) and fills `out` with the output, whose
 * interval and end publish the numbers and whose close keeps the endpoint
 * up until a scrape saw the final numbers or --metrics-linger seconds
 * passed. `test` names the workload (label "test"). Returns 1 with `out`
 * filled, 0 when the option is not given, -1 after a FATAL message (bad
 * option). Main thread.
 */
int sb_metrics_output(const char *test, unsigned vus, double rate, sb_output_t *out);

/*
 * The same endpoint for an address the caller gives: `spec` ADDRESS:PORT,
 * `linger_s` as --metrics-linger (0 to 86400 s), `tags` (ntags items
 * key=value, checked as --tag) for the labels, and the workload's name,
 * VUs and target rate. `bmk cluster run --metrics-listen` serves its
 * processes' merged numbers this way (feeding `out` the merged intervals
 * and end). Returns 0 with `out` filled, or -1 after a FATAL message (a
 * bad address, tag or linger, the port in use). One endpoint per
 * process at a time. Main thread.
 */
int sb_metrics_output_at(const char *spec, double linger_s, char *const *tags, unsigned ntags,
                         const char *test, unsigned vus, double rate, sb_output_t *out);

/* A workload's own families on the run's page (the pgbench scripts'
   per-statement series, docs/metrics.md): at each scrape `fn(labels,
   openmetrics, &len)` returns malloc'ed exposition text (whole families,
   each sample with `labels` first, the names bmk_...; OpenMetrics'
   counter families named without _total when `openmetrics`) and its
   length, or NULL; it is added before OpenMetrics' # EOF. NULL removes
   it. Main thread, before the run; fn is called from the HTTP thread
   while the run goes on, so it must be thread-safe. */
void sb_metrics_extra_source(char *(*fn)(const char *labels, bool openmetrics, size_t *len));

/* The --tag list checked: 0, or -1 after a FATAL message naming the bad
   item (key=value, key of letters, digits and _ not starting with a
   digit, not one of bmk's own label names). Main thread. */
int sb_metrics_check_tags(void);

/* Binds ADDRESS:PORT ("[::1]:9464", "127.0.0.1:9464", ":9464") and
   listens; the socket, or -1 after a FATAL line saying what is wrong with
   it (format, resolution, port in use, not this host's address). One
   thread at a time (the main thread, or a command's first thread). */
int sb_metrics_listen(const char *spec);

/* The label text of every sample (test="...",run_id="...",host="..." then
   the tags items[0..n), key=value, checked by the caller), malloc'ed, or
   NULL when out of memory; sets the run id. One thread at a time (as
   sb_metrics_listen). */
char *sb_metrics_labels(const char *test, char *const *items, unsigned n);

/* The Content-Type of a page: OpenMetrics 1.0.0 when `openmetrics`,
   else Prometheus text 0.0.4. */
const char *sb_metrics_content_type(bool openmetrics);

/* 0 when `linger_s` is a good --metrics-linger (0 to 86400 s); else -1
   after a FATAL message. */
int sb_metrics_check_linger(double linger_s);

/* Says it waits, then waits until scraped() is true (a scrape read the
   final numbers), at most `linger_s` seconds; `spec` is the address the
   message names. The thread that ends the endpoint. */
void sb_metrics_linger(double linger_s, const char *spec, bool (*scraped)(void));

/* The run id the last sb_metrics_labels made ("20261129T001500Z-1234"). */
const char *sb_metrics_run_id(void);

/* ---- the HTTP side (sb_metrics_http.c; a stand-in in the static binary) */

/* Serves GET /metrics on the listening socket `fd` (taken over) from its
   own thread: `page` is called for each scrape with `openmetrics` (the
   scraper asked for it) and returns a malloc'ed body and its length, or
   NULL. Returns an opaque server, or NULL after a FATAL message. */
void *sb_metrics_http_start(int fd, char *(*page)(bool openmetrics, size_t *len,
                                                  const char **content_type));

/* Stops the server (waits for its thread). */
void sb_metrics_http_stop(void *server);

#endif
