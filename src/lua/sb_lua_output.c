/* A script's report hooks as outputs; see lua/sb_lua_output.h. */
#include <stddef.h>

#include "core/sb_logger.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_output.h"

/* The reporter thread's state for interval and checkpoint hooks. */
static struct {
  unsigned vus;
  lua_State *L;                /* made at first use, or NULL */
  bool failed;                 /* could not be made: standard reports */
} rep;

/* The reporter's state, made at its first use (reporter thread). */
static lua_State *reporter_state(void)
{
  if (rep.L == NULL && !rep.failed)
  {
    rep.L = sb_lua_new_state((int) rep.vus);
    rep.failed = rep.L == NULL;
  }
  return rep.L;
}

static bool hook_interval(void *ctx, const sb_stat_t *st)
{
  (void) ctx;
  lua_State *G = sb_lua_global();
  if (G == NULL || !sb_lua_hook_defined(G, "report_intermediate"))
    return false;
  lua_State *L = reporter_state();
  if (L == NULL || !sb_lua_hook_defined(L, "report_intermediate"))
    return false;
  sb_lua_call_report_hook(L, "report_intermediate", st, false);
  return true;
}

static sb_text_hook_rc_t hook_cumulative(void *ctx, const sb_stat_t *st, bool checkpoint)
{
  (void) ctx;
  lua_State *G = sb_lua_global();
  if (G == NULL || !sb_lua_hook_defined(G, "report_cumulative"))
    return SB_TEXT_STANDARD;
  lua_State *L = checkpoint ? reporter_state() : G;
  if (L == NULL || !sb_lua_hook_defined(L, "report_cumulative"))
    return SB_TEXT_STANDARD;
  sb_lua_call_report_hook(L, "report_cumulative", st, true);
  return SB_TEXT_REPLACED;
}

static void hooks_intervals_done(void *ctx)
{
  (void) ctx;
  sb_lua_close_state(rep.L);
  rep.L = NULL;
}

void sb_lua_text_hooks(unsigned vus, sb_text_hooks_t *hooks)
{
  rep.vus = vus;
  rep.L = NULL;
  rep.failed = false;
  *hooks = (sb_text_hooks_t) { .interval = hook_interval, .cumulative = hook_cumulative,
                               .intervals_done = hooks_intervals_done, .ctx = NULL };
}

static int final_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  lua_State *G = sb_lua_global();
  if (G && sb_lua_hook_defined(G, "report_final"))
    sb_lua_call_report_hook(G, "report_final", e->st, true);
  return 0;
}

void sb_lua_final_output(sb_output_t *out)
{
  *out = (sb_output_t) { .name = "the script's report_final hook", .end = final_end,
                         .ctx = NULL };
}
