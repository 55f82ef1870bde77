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

#endif
