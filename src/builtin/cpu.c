/* Built-in test `cpu`: primes by trial division (sysbench's sb_cpu.c). */
#include <math.h>

#include "builtin/sb_builtin.h"
#include "core/sb_logger.h"

static const sb_option_t cpu_options[] = {
  { "cpu-max-prime", "upper limit for primes generator", "10000", SB_ARG_TYPE_INT },
  { NULL, NULL, NULL, 0 }
};

static unsigned max_prime;

static int cpu_init(sb_run_config_t *cfg)
{
  (void) cfg;
  int v = sb_opt_int("cpu-max-prime");
  if (v <= 0)
  {
    log_text(LOG_FATAL, "Invalid value of cpu-max-prime: %d.", v);
    return 1;
  }
  max_prime = (unsigned) v;
  return 0;
}

/* One event: count the primes up to max_prime, as sysbench does, so the
   cost of an event is comparable. */
static int cpu_event(int tid)
{
  (void) tid;
  volatile unsigned found = 0;
  for (unsigned c = 3; c < max_prime; c++)
  {
    unsigned limit = (unsigned) sqrt((double) c);
    unsigned l;
    for (l = 2; l <= limit; l++)
      if (c % l == 0)
        break;
    if (l > limit)
      found++;
  }
  return 0;
}

static void cpu_mode(void)
{
  log_text(LOG_INFO, "Doing CPU performance benchmark\n");
  log_text(LOG_NOTICE, "Prime numbers limit: %u\n", max_prime);
}

/* Precedes the generic report, whose leading blank line separates the
   two blocks (sysbench prints exactly one blank line here). */
static void cpu_report(const sb_stat_t *st)
{
  sb_builtin_report_line("CPU speed:");
  sb_builtin_report_line("    events per second: %8.2f",
                         st->time_interval > 0 ? (double) st->events / st->time_interval : 0);
}

const sb_builtin_t sb_test_cpu = {
  .name = "cpu",
  .description = "CPU performance test",
  .options = cpu_options,
  .init = cpu_init,
  .run = { .event = cpu_event, .print_mode = cpu_mode,
           .report_cumulative = cpu_report },
};
