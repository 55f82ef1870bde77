/* The registry of the engine's outputs; see core/sb_output.h. */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "core/sb_figure.h"
#include "core/sb_logger.h"
#include "core/sb_output.h"

#define OUTPUT_MAX 16

typedef struct {
  sb_output_t o;
  bool off;                    /* failed: no more calls but close */
} slot_t;

static slot_t outputs[OUTPUT_MAX];
static unsigned noutputs;
/* interval (reporter thread) and end (main thread) never overlap, but a
   failure count is read from either */
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static unsigned failures;
static int requested_exit;

int sb_output_register(const sb_output_t *out)
{
  if (noutputs >= OUTPUT_MAX)
    return -1;
  outputs[noutputs].o = *out;
  outputs[noutputs].off = false;
  noutputs++;
  return 0;
}

bool sb_output_wants_intervals(void)
{
  for (unsigned i = 0; i < noutputs; i++)
    if (outputs[i].o.interval != NULL)
      return true;
  return false;
}

/* An output failed in `what`: one WARNING, then it is off. */
static void fail(slot_t *s, const char *what)
{
  pthread_mutex_lock(&mtx);
  s->off = true;
  failures++;
  pthread_mutex_unlock(&mtx);
  log_text(LOG_WARNING, "output %s failed (%s) and is switched off for the rest of the run; "
           "the report and the other outputs go on, and the exit code will be 1",
           s->o.name, what);
}

int sb_output_open(void)
{
  pthread_mutex_lock(&mtx);
  failures = 0;
  requested_exit = 0;
  pthread_mutex_unlock(&mtx);
  sb_figure_reset();
  for (unsigned i = 0; i < noutputs; i++)
  {
    slot_t *s = &outputs[i];
    if (s->o.open && s->o.open(s->o.ctx) != 0)
    {
      sb_output_close();
      return -1;
    }
  }
  return 0;
}

void sb_output_start(const sb_out_start_t *st)
{
  for (unsigned i = 0; i < noutputs; i++)
  {
    slot_t *s = &outputs[i];
    if (!s->off && s->o.start && s->o.start(s->o.ctx, st) != 0)
      fail(s, "at the start of the measured time");
  }
}

void sb_output_interval(const sb_out_interval_t *iv)
{
  for (unsigned i = 0; i < noutputs; i++)
  {
    slot_t *s = &outputs[i];
    if (!s->off && s->o.interval && s->o.interval(s->o.ctx, iv) != 0)
      fail(s, "writing an interval");
  }
}

void sb_output_checkpoint(const sb_out_checkpoint_t *c)
{
  for (unsigned i = 0; i < noutputs; i++)
  {
    slot_t *s = &outputs[i];
    if (!s->off && s->o.checkpoint && s->o.checkpoint(s->o.ctx, c) != 0)
      fail(s, "at a checkpoint");
  }
}

unsigned sb_output_end(const sb_out_end_t *e)
{
  for (unsigned i = 0; i < noutputs; i++)
  {
    slot_t *s = &outputs[i];
    if (!s->off && s->o.end && s->o.end(s->o.ctx, e) != 0)
      fail(s, "at the end of the run");
  }
  return sb_output_failures();
}

void sb_output_close(void)
{
  for (unsigned i = 0; i < noutputs; i++)
    if (outputs[i].o.close)
      outputs[i].o.close(outputs[i].o.ctx);
  noutputs = 0;
}

unsigned sb_output_failures(void)
{
  pthread_mutex_lock(&mtx);
  unsigned n = failures;
  pthread_mutex_unlock(&mtx);
  return n;
}

void sb_output_request_exit(int code)
{
  pthread_mutex_lock(&mtx);
  if (code > requested_exit)
    requested_exit = code;
  pthread_mutex_unlock(&mtx);
}

int sb_output_requested_exit(void)
{
  pthread_mutex_lock(&mtx);
  int c = requested_exit;
  pthread_mutex_unlock(&mtx);
  return c;
}
