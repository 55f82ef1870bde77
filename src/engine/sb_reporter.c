/* The reporter thread: interval and checkpoint snapshots on the grid,
   published to the outputs (core/sb_output.h); see sb_engine_priv.h. */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include <ck_pr.h>

#include "engine/sb_engine_priv.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"
#include "engine/sb_rate.h"
#include "core/sb_output.h"
#include "core/sb_timer.h"

/* ---- reporter thread --------------------------------------------------------- */

static pthread_t reporter;
static int reporter_started;
static int reporter_quit;

/* The reporter thread's state, its own from start to end. */
typedef struct {
  snap_t prev, cur;           /* last interval's end, this one's */
  sb_hdr_t *scratch;          /* an interval's / the run's latencies */
  sb_evtype_stat_t *tscratch; /* an interval's per-type numbers */
  sb_type_row_t trows[SB_EVTYPE_MAX];
  bool intervals;             /* an output wants interval snapshots */
  uint64_t interval_ns;       /* interval length, 0 = none */
  uint64_t next_tick;         /* next interval end, UINT64_MAX = none */
  unsigned cp;                /* next checkpoint (index) */
} reporter_t;

/* Thread start: signals blocked, the random state, scratch space, the
   first snapshot and the schedule. */
static void reporter_open(reporter_t *rp)
{
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);

  sb_tls_tid = -1;
  sb_rand_thread_init((int) eng_cfg.threads);
  rp->scratch = sb_hdr_new();
  eng_snap_alloc(&rp->prev);
  eng_snap_alloc(&rp->cur);
  eng_snap_take(&rp->prev);
  rp->prev.t_ns = eng_run_t0_ns;

  /* Every --report-interval; without it, every second: for the outputs
     that want intervals (result files, metrics) anyway, and for the
     client's own CPU (sb_client.c), which is judged per second. */
  rp->intervals = sb_output_wants_intervals();
  double every = rp->intervals && eng_cfg.report_interval > 0 ? eng_cfg.report_interval : 1.0;
  rp->interval_ns = (uint64_t) (every * 1e9);
  rp->tscratch = sb_evtype_stats_new();
  rp->next_tick = rp->interval_ns ? eng_run_t0_ns + rp->interval_ns : UINT64_MAX;
  rp->cp = 0;
  eng_client_begin();
}

static void reporter_close(reporter_t *rp)
{
  eng_snap_free(&rp->prev);
  eng_snap_free(&rp->cur);
  sb_hdr_free(rp->scratch);
  sb_evtype_stats_free(rp->tscratch);
}

/* Sleeps until `next_ns`, in slices so quitting is prompt. */
static void wait_until(uint64_t next_ns)
{
  while (sb_now_ns() < next_ns && !ck_pr_load_int(&reporter_quit))
  {
    uint64_t now = sb_now_ns();
    sb_sleep_until_ns(next_ns - now > 50 * NS_PER_MS ? now + 50 * NS_PER_MS : next_ns);
  }
}

/* The next tick; missed ticks are skipped (a stalled reporter must not
   print bursts). */
static void skip_ticks(reporter_t *rp)
{
  uint64_t now = sb_now_ns();
  do
    rp->next_tick += rp->interval_ns;
  while (rp->next_tick <= now);
}

/* The interval's snapshot for the outputs (`st`: its statistics; the
   per-type numbers are in rp->tscratch). */
static void interval_row(reporter_t *rp, const sb_stat_t *st)
{
  sb_out_interval_t iv;
  memset(&iv, 0, sizeof(iv));
  iv.st = st;
  iv.hist = rp->scratch;
  iv.types = rp->tscratch;
  iv.start_s = (double) (rp->prev.t_ns - eng_run_t0_ns) / 1e9;
  iv.lag_ms = st->schedule_lag * 1000.0;
  for (unsigned i = 0; rp->tscratch && i < sb_evtype_count(); i++)
    iv.late += rp->tscratch[i].late;
  iv.vus_running = st->threads_running;
  sb_output_interval(&iv);
}

/* The interval ending at the tick `next_ns`: its snapshot to the
   outputs, then the next tick (missed ticks skipped). */
static void report_interval(reporter_t *rp, uint64_t next_ns)
{
  sb_client_t client;
  eng_client_sample(&client);
  if (!rp->intervals)
  {
    /* a tick for the client's CPU only */
    skip_ticks(rp);
    return;
  }
  eng_snap_take(&rp->cur);
  sb_stat_t st;
  memset(&st, 0, sizeof(st));
  eng_stat_diff(&st, &rp->cur, &rp->prev, rp->scratch);
  st.time_interval = (double) (rp->cur.t_ns - rp->prev.t_ns) / 1e9;
  st.time_total = (double) (next_ns - eng_run_t0_ns) / 1e9;
  st.threads_running = eng_threads_running(next_ns);
  if (eng_cfg.rate > 0)
  {
    st.queue_length = sb_rate_backlog(rp->cur.t_ns);
    st.concurrency = eng_concurrency();
    st.schedule_lag = (double) sb_rate_lag_ns(rp->cur.t_ns) / 1e9;
  }
  /* The interval's per-type numbers (st.types as rows when the script
     names types: a Lua report hook's stat.types). */
  if (rp->tscratch)
  {
    sb_evtype_zero(rp->tscratch);
    sb_evtype_add(rp->tscratch, rp->cur.types);
    sb_evtype_sub(rp->tscratch, rp->prev.types);
    if (sb_evtype_used())
    {
      st.ntypes = eng_type_rows(rp->tscratch, st.time_interval, rp->trows);
      st.types = rp->trows;
    }
  }
  eng_note_stalls(&st, rp->cur.t_ns, st.time_interval);
  st.client = client;
  if (st.time_interval > 0)
    interval_row(rp, &st);
  eng_snap_copy(&rp->prev, &rp->cur);
  skip_ticks(rp);
}

/* The checkpoint due at `next_ns`: a cumulative report, then a new
   baseline. */
static void report_checkpoint(reporter_t *rp, uint64_t next_ns)
{
  eng_snap_take(&rp->cur);
  sb_stat_t st;
  double elapsed = (double) (rp->cur.t_ns - eng_t0_ns) / 1e9;
  eng_stat_cumulative(&st, &rp->cur, rp->scratch, elapsed);
  sb_out_checkpoint_t c = { .st = &st, .at_s = (double) (next_ns - eng_run_t0_ns) / 1e9 };
  sb_output_checkpoint(&c);
  eng_set_baseline(rp->cur.t_ns);
  rp->cp++;
}

static void *reporter_main(void *arg)
{
  (void) arg;
  reporter_t rp;
  reporter_open(&rp);

  for (;;)
  {
    uint64_t next_cp = rp.cp < eng_cfg.ncheckpoints
      ? eng_run_t0_ns + (uint64_t) (eng_cfg.checkpoints[rp.cp] * 1e9) : UINT64_MAX;
    uint64_t next = rp.next_tick < next_cp ? rp.next_tick : next_cp;
    if (next == UINT64_MAX)
      break;
    wait_until(next);
    /* Never print a partial last interval: a tick after the stop is
       dropped. */
    uint64_t stop_at = ck_pr_load_64(&eng_stop_ns);
    if (ck_pr_load_int(&reporter_quit) && (stop_at == 0 || next > stop_at))
      break;
    if (stop_at != 0 && next > stop_at)
      break;

    if (next == rp.next_tick)
      report_interval(&rp, next);
    if (next == next_cp)
      report_checkpoint(&rp, next);
  }
  reporter_close(&rp);
  return NULL;
}

void sb_reporter_start(void)
{
  ck_pr_store_int(&reporter_quit, 0);
  reporter_started = pthread_create(&reporter, NULL, reporter_main, NULL) == 0;
}

void sb_reporter_stop(void)
{
  ck_pr_store_int(&reporter_quit, 1);
  if (reporter_started)
    pthread_join(reporter, NULL);
  reporter_started = 0;
}
