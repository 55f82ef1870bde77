/*
 * --metrics-listen for a command that times its own steps (`bmk tpch
 * run`), which has no intervals for the run's endpoint to publish: a page
 * rendered at each scrape from the command's live numbers
 * (core/sb_cmd_gauge.h) as bmk_<prefix>_queries_in_flight (gauge),
 * bmk_<prefix>_query_duration_seconds (histogram),
 * bmk_<prefix>_queries_failed_total (counter), and the figures set so
 * far (core/sb_figure.h) as bmk_<name> gauges; labels test, run_id, host
 * and --tag's (docs/metrics.md "Commands").
 */
#ifndef SB_METRICS_CMD_H
#define SB_METRICS_CMD_H

#include <stdbool.h>
#include <stddef.h>

/* When --metrics-listen is given: checks --tag and --metrics-linger,
   binds, serves. `prefix` names the metrics and the label test ("tpch").
   Returns 0 (also when the option is not given), or -1 after a FATAL
   message (bad address, port in use, bad tag). Main thread or the
   command's first thread, once. */
int sb_metrics_cmd_start(const char *prefix);

/* The command ended: when anything scraped, keeps serving until a scrape
   read the final numbers, at most --metrics-linger seconds; then stops.
   No-op when not started. Same thread as sb_metrics_cmd_start. */
void sb_metrics_cmd_stop(void);

/* The live numbers alone (no figures, no # EOF) as the families above,
   named bmk_<prefix>_..., each sample with `labels` (name="value",...);
   `om`: OpenMetrics naming. For an engine run's page whose workload
   times queries of its own (core/sb_cmd_gauge.h sb_cmd_gauge_publish).
   Returns a malloc'd text (*len its length; the caller frees), or NULL
   when out of memory. Any thread. */
char *sb_metrics_cmd_gauge_text(const char *prefix, const char *labels, bool om, size_t *len);

#endif
