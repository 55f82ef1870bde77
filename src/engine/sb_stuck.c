/*
 * Stuck work: events that wait for the server longer than a report
 * interval, and events still running when the run ends (docs/reliability.md).
 *
 * A server that stops answering (a network partition, a hung server, a full
 * disk) leaves every VU inside an event, blocked on its socket. Nothing
 * completes, so a report built from completed events alone reads "tps 0,
 * latency 0" and looks healthy. These functions read each VU's in_event
 * flag and the start of its current event (written by the worker before it
 * sets in_event) so the reporter can show the waiting work, and the end of
 * the run can name what never finished. sysbench's persona prints none of
 * this (its layout is kept byte for byte).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ck_pr.h>
#include <stdio.h>

#include "core/sb_logger.h"
#include "core/sb_timer.h"
#include "core/sb_version.h"
#include "engine/sb_engine_priv.h"

/* How many VUs are printed by name in the end-of-run list. */
#define STUCK_LIST_MAX 10

unsigned eng_in_flight(uint64_t now_ns, uint64_t older_than_ns, double *oldest_s)
{
  unsigned n = 0;
  uint64_t oldest = 0;
  for (unsigned i = 0; i < eng_cfg.threads; i++)
  {
    if (!ck_pr_load_int(&eng_vus[i].in_event))
      continue;
    ck_pr_fence_load();
    uint64_t start = ck_pr_load_64(&eng_vus[i].start_ns);
    uint64_t age = now_ns > start ? now_ns - start : 0;
    if (age < older_than_ns)
      continue;
    n++;
    if (age > oldest)
      oldest = age;
  }
  if (oldest_s)
    *oldest_s = (double) oldest / 1e9;
  return n;
}

void eng_note_stalls(sb_stat_t *st, uint64_t now_ns, double interval_s)
{
  st->stalled = 0;
  st->stalled_oldest_s = 0;
  if (sb_persona_sysbench() || interval_s <= 0)
    return;
  st->stalled = eng_in_flight(now_ns, (uint64_t) (interval_s * 1e9), &st->stalled_oldest_s);
  /* Nothing completed while events waited: their waiting time is the
     interval's latency, never 0 (the same rule as latency measured from
     the intended start under --rate: work that does not finish is not
     left out). */
  if (st->stalled > 0 && st->events == 0)
    st->latency_pct = st->stalled_oldest_s;
}

unsigned eng_print_stuck(uint64_t end_ns, double grace_s)
{
  double oldest = 0;
  unsigned n = eng_in_flight(end_ns, 0, &oldest);
  if (n == 0)
    return 0;
  log_text(LOG_FATAL, "%u event(s) still waiting for the server %.1f s after the end of "
           "--time (--stuck-grace): the run ends now; the report covers --time with "
           "them counted as events whose latency lasts to its end (oldest %.2f s)",
           n, grace_s, oldest);
  unsigned shown = 0;
  for (unsigned i = 0; i < eng_cfg.threads && shown < STUCK_LIST_MAX; i++)
  {
    if (!ck_pr_load_int(&eng_vus[i].in_event))
      continue;
    uint64_t start = ck_pr_load_64(&eng_vus[i].start_ns), now = sb_now_ns();
    log_text(LOG_NOTICE, "    thread %u: in its event for %.2f s at the end of --time, "
             "%.2f s now", i, end_ns > start ? (double) (end_ns - start) / 1e9 : 0.0,
             now > start ? (double) (now - start) / 1e9 : 0.0);
    shown++;
  }
  if (n > shown)
    log_text(LOG_NOTICE, "    ... and %u more", n - shown);
  return n;
}
