/*
 * A Lua script's report hooks behind the engine's outputs
 * (core/sb_output.h): sysbench.hooks.report_intermediate and
 * report_cumulative as the text report's own sections
 * (results/sb_text_output.h), and bmk's report_final hook as an output of
 * its own, registered last so it prints after everything else.
 */
#ifndef SB_LUA_OUTPUT_H
#define SB_LUA_OUTPUT_H

#include "core/sb_output.h"
#include "results/sb_text_output.h"

/* Fills *hooks with the script's report hooks. The hooks are looked up
   when a report is due (a script may set them in init()); an interval or
   checkpoint report calls them in a Lua state of the reporter thread's
   own (sysbench.tid = `vus`, as sysbench's reporter), made at its first
   use and closed when the intervals are done (before the final report);
   the final report calls them in the script's global state. Main thread,
   before the run. */
void sb_lua_text_hooks(unsigned vus, sb_text_hooks_t *hooks);

/* Fills *out with the output calling sysbench.hooks.report_final(stat)
   at the end of the run, when the script defines it: after the report
   and the other outputs, on every ending of the run and whatever the
   verbosity (tpcc's tables, dbl's figures). A hook that fails prints its
   error; the run's exit code is not changed (the report is
   already out). Main thread. */
void sb_lua_final_output(sb_output_t *out);

#endif
