/* VU-to-worker planning; see sb_vuplan.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sb_logger.h"
#include "engine/sb_vuplan.h"

/* Parses a positive decimal count; false for anything else. */
static bool parse_count(const char *s, unsigned *out)
{
  if (s == NULL || *s < '0' || *s > '9')
    return false;
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (*end != '\0' || v > 10000000UL)
    return false;
  *out = (unsigned) v;
  return true;
}

int sb_plan_resolve(const sb_plan_in_t *in, sb_plan_t *out, char *err, size_t errlen)
{
  unsigned k = 1, w = 0;
  uint64_t vus;
  const char *as = in->async_sessions ? in->async_sessions : "1";
  bool as_auto = strcasecmp(as, "auto") == 0;
  if (as_auto)
  {
    /* one session per terminal: terminals per warehouse x warehouses
       sessions spread over the --threads workers */
    if (in->terminals == 0)
      return sb_errf(err, errlen, "--async-sessions=auto takes the number of sessions from "
                  "the workload's terminals (tpcc: --terminals-per-warehouse), which this "
                  "workload does not have: give a "
                  "number");
    vus = in->terminals;
    k = (in->terminals + in->threads - 1) / in->threads;
  }
  else if (!parse_count(as, &k) || k == 0)
    return sb_errf(err, errlen, "Invalid value for --async-sessions: '%s' (a number >= 1, or auto)", as);
  else
    vus = (uint64_t) in->threads * k;

  const char *ws = in->workers ? in->workers : "auto";
  bool auto_w = strcasecmp(ws, "auto") == 0;
  bool threads_w = strcasecmp(ws, "threads") == 0;   /* one per VU */
  if (threads_w)
    w = vus <= 10000000ULL ? (unsigned) vus : 0;
  else if (!auto_w && (!parse_count(ws, &w) || w == 0))
    return sb_errf(err, errlen, "Invalid value for --workers: '%s' (auto, threads, or a "
                "number of worker threads from 1 to --threads)", ws);

  if (vus > 10000000ULL)
    return sb_errf(err, errlen, "--threads x --async-sessions is more than 10,000,000 "
                "virtual users");
  out->vus = (unsigned) vus;
  if (k > 1 || as_auto)
  {
    /* HammerDB's model: each thread runs K asynchronous sessions */
    if (in->workers_given && !auto_w && w != in->threads)
    {
      return sb_errf(err, errlen, "--async-sessions=%u runs --threads=%u worker threads; "
                     "--workers=%u contradicts it (leave --workers out)", k, in->threads, w);
    }
    out->workers = in->threads < out->vus ? in->threads : out->vus;
  }
  else if (auto_w)
  {
    unsigned ncpu = in->ncpu ? in->ncpu : 1;
    unsigned min_vus = in->event_min_vus ? in->event_min_vus : SB_PLAN_EVENT_MIN_VUS;
    bool threads = in->own_work ? out->vus <= SB_PLAN_OWN_WORK_THREADS_MAX
                                : out->vus < min_vus;
    out->workers = threads || ncpu > out->vus ? out->vus : ncpu;
  }
  else
  {
    if (w > out->vus)
    {
      return sb_errf(err, errlen, "--workers=%u is more than --threads=%u: each worker thread "
                     "runs at least one virtual user (lower --workers or use auto)", w, out->vus);
    }
    out->workers = w;
  }
  out->event_mode = out->workers < out->vus;
  return 0;
}
