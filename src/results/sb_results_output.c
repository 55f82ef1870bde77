/* The --results JSON file and the --hdr-log interval log as one of the
   engine's outputs (core/sb_output.h): an adapter over sb_results.c. */
#include <stddef.h>

#include "core/sb_output.h"
#include "results/sb_results.h"
#include "results/sb_results_output.h"

typedef struct {
  const char *json_path, *hdrlog_path;
} paths_t;

static paths_t paths;

static int out_open(void *ctx)
{
  paths_t *p = ctx;
  return sb_results_open(p->json_path, p->hdrlog_path) != 0 ? -1 : 0;
}

static int out_start(void *ctx, const sb_out_start_t *s)
{
  (void) ctx;
  sb_results_start(s->epoch_s);
  return 0;
}

static int out_interval(void *ctx, const sb_out_interval_t *iv)
{
  (void) ctx;
  sb_interval_extra_t x = {
    .start_s = iv->start_s, .len_s = iv->st->time_interval,
    .lag_ms = iv->lag_ms, .late = iv->late
  };
  sb_results_interval(iv->st, iv->hist, iv->types, &x);
  return 0;
}

static int out_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  /* an output registered before this one may have given its verdict (a
     missed --threshold): the code the run will exit with */
  int code = e->exit_code ? e->exit_code : sb_output_requested_exit();
  return sb_results_finish(e->st, e->hist, e->types, e->rows, e->nrows, e->late,
                           e->interrupted, code) != 0 ? -1 : 0;
}

void sb_results_output(const char *json_path, const char *hdrlog_path, sb_output_t *out)
{
  paths.json_path = json_path;
  paths.hdrlog_path = hdrlog_path;
  *out = (sb_output_t) {
    .name = json_path ? "--results" : hdrlog_path ? "--hdr-log" : "the run's document",
    .open = out_open, .start = out_start, .interval = out_interval, .end = out_end,
    .close = NULL, .ctx = &paths
  };
}
