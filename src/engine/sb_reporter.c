/* The reporter thread: interval lines on the grid and checkpoint reports;
   see sb_engine_priv.h. */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include <ck_pr.h>

#include "engine/sb_engine_priv.h"
#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "core/sb_rand.h"
#include "engine/sb_rate.h"
#include "results/sb_results.h"
#include "core/sb_timer.h"

/* ---- reporter thread --------------------------------------------------------- */

static pthread_t reporter;
static int reporter_started;
static int reporter_quit;

static void *reporter_main(void *arg)
{
  (void) arg;
  lua_State *L = NULL;
  lua_State *G = sb_lua_global();
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);

  sb_tls_tid = -1;
  sb_rand_thread_init((int) eng_cfg.threads);
  if (G && !eng_ctest && (sb_lua_hook_defined(G, "report_intermediate") ||
                      sb_lua_hook_defined(G, "report_cumulative")))
    L = sb_lua_new_state((int) eng_cfg.threads);

  snap_t prev, cur;
  sb_hdr_t *scratch = sb_hdr_new();
  eng_snap_alloc(&prev);
  eng_snap_alloc(&cur);
  eng_snap_take(&prev);
  prev.t_ns = eng_run_t0_ns;

  /* Result files get a row per second even without --report-interval;
     only --report-interval prints. */
  bool print = eng_cfg.report_interval > 0;
  bool files = sb_results_enabled();
  double every = print ? eng_cfg.report_interval : files ? 1.0 : 0.0;
  uint64_t interval_ns = (uint64_t) (every * 1e9);
  sb_evtype_stat_t *tscratch = sb_evtype_stats_new();
  sb_type_row_t trows[SB_EVTYPE_MAX];
  uint64_t next_tick = interval_ns ? eng_run_t0_ns + interval_ns : UINT64_MAX;
  unsigned cp = 0;

  for (;;)
  {
    uint64_t next_cp = cp < eng_cfg.ncheckpoints
      ? eng_run_t0_ns + (uint64_t) (eng_cfg.checkpoints[cp] * 1e9) : UINT64_MAX;
    uint64_t next = next_tick < next_cp ? next_tick : next_cp;
    if (next == UINT64_MAX)
      break;
    /* Wait in slices so quitting is prompt. */
    while (sb_now_ns() < next && !ck_pr_load_int(&reporter_quit))
    {
      uint64_t now = sb_now_ns();
      sb_sleep_until_ns(next - now > 50 * NS_PER_MS ? now + 50 * NS_PER_MS : next);
    }
    /* Never print a partial last interval: a tick after the stop is
       dropped. */
    uint64_t stop_at = ck_pr_load_64(&eng_stop_ns);
    if (ck_pr_load_int(&reporter_quit) && (stop_at == 0 || next > stop_at))
      break;
    if (stop_at != 0 && next > stop_at)
      break;

    if (next == next_tick)
    {
      eng_snap_take(&cur);
      sb_stat_t st;
      memset(&st, 0, sizeof(st));
      eng_stat_diff(&st, &cur, &prev, scratch);
      st.time_interval = (double) (cur.t_ns - prev.t_ns) / 1e9;
      st.time_total = (double) (next - eng_run_t0_ns) / 1e9;
      st.threads_running = eng_threads_running();
      if (eng_cfg.rate > 0)
      {
        st.queue_length = sb_rate_backlog(cur.t_ns);
        st.concurrency = eng_concurrency();
        st.schedule_lag = (double) sb_rate_lag_ns(cur.t_ns) / 1e9;
      }
      /* The interval's per-type numbers: for the result files, and for a
         Lua report hook (stat.types) when the script names types. */
      bool want_types = tscratch && (files || (L && sb_evtype_used()));
      if (want_types)
      {
        sb_evtype_zero(tscratch);
        sb_evtype_add(tscratch, cur.types);
        sb_evtype_sub(tscratch, prev.types);
      }
      if (want_types && L && sb_evtype_used())
      {
        st.ntypes = eng_type_rows(tscratch, st.time_interval, trows);
        st.types = trows;
      }
      if (st.time_interval > 0 && print)
        eng_print_interval(L, &st);
      if (st.time_interval > 0 && files && tscratch)
      {
        sb_interval_extra_t x;
        memset(&x, 0, sizeof(x));
        x.start_s = (double) (prev.t_ns - eng_run_t0_ns) / 1e9;
        x.len_s = st.time_interval;
        x.lag_ms = st.schedule_lag * 1000.0;
        for (unsigned i = 0; i < sb_evtype_count(); i++)
          x.late += tscratch[i].late;
        sb_results_interval(&st, scratch, tscratch, &x);
      }
      eng_snap_copy(&prev, &cur);
      /* Skip missed ticks (a stalled reporter must not print bursts). */
      uint64_t now = sb_now_ns();
      do
        next_tick += interval_ns;
      while (next_tick <= now);
    }
    if (next == next_cp)
    {
      eng_snap_take(&cur);
      sb_stat_t st;
      double elapsed = (double) (cur.t_ns - eng_t0_ns) / 1e9;
      eng_stat_cumulative(&st, &cur, scratch, elapsed);
      log_raw("\n[ %.0fs ] Checkpoint report:\n", (double) (next - eng_run_t0_ns) / 1e9);
      eng_print_cumulative(L, &st);
      eng_set_baseline(cur.t_ns);
      cp++;
    }
  }
  eng_snap_free(&prev);
  eng_snap_free(&cur);
  sb_hdr_free(scratch);
  sb_evtype_stats_free(tscratch);
  sb_lua_close_state(L);
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
