/* Built-in test `memory`: block reads/writes over a buffer
   (sysbench's src/tests/memory/sb_memory.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "builtin/sb_builtin.h"
#include "core/sb_counter.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"

static const sb_option_t memory_options[] = {
  { "memory-block-size", "size of memory block for test", "1K", SB_ARG_TYPE_SIZE },
  { "memory-total-size", "total size of data to transfer", "100G", SB_ARG_TYPE_SIZE },
  { "memory-scope", "memory access scope {global,local}", "global", SB_ARG_TYPE_STRING },
  { "memory-hugetlb", "allocate memory from HugeTLB pool", "off", SB_ARG_TYPE_BOOL },
  { "memory-oper", "type of memory operations {read, write, none}", "write", SB_ARG_TYPE_STRING },
  { "memory-access-mode", "memory access mode {seq,rnd}", "seq", SB_ARG_TYPE_STRING },
  { NULL, NULL, NULL, 0 }
};

enum { OP_WRITE, OP_READ, OP_NONE };

static uint64_t block_size, total_size, per_thread_events;
static bool scope_global, hugetlb, rnd;
static int oper;
static unsigned threads;
static uint64_t *global_buf;
static _Thread_local uint64_t *local_buf;
static _Thread_local uint64_t done_events;
static volatile uint64_t sink;

static uint64_t *alloc_block(void)
{
  if (hugetlb)
  {
#ifdef MAP_HUGETLB
    void *p = mmap(NULL, block_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p != MAP_FAILED)
      return p;
#endif
    log_text(LOG_FATAL, "Failed to allocate %lu bytes from HugeTLB memory.",
             (unsigned long) block_size);
    return NULL;
  }
  void *p = NULL;
  if (posix_memalign(&p, 64, block_size) != 0)
    return NULL;
  memset(p, 0, block_size);
  return p;
}

/* Reads a {name, value} choice of option `opt` (exact, case-sensitive
   match as sysbench); -1 with sysbench's FATAL text when not listed. */
static int pick(const char *opt, const char *const *names, int n)
{
  const char *v = sb_opt_str(opt);
  for (int i = 0; v && i < n; i++)
    if (strcmp(v, names[i]) == 0)
      return i;
  log_text(LOG_FATAL, "Invalid value for %s: %s", opt, v ? v : "");
  return -1;
}

static int memory_init(sb_run_config_t *cfg)
{
  /* The raw text, as sysbench prints it: the option parser lets any value
     of this option through (sb_options.c) so that "-1" or "3K" reach
     this check and its message. */
  const char *bs_text = sb_opt_str("memory-block-size");
  if (bs_text == NULL || sb_parse_size(bs_text, &block_size) != 0 ||
      block_size < sizeof(size_t) || (block_size & (block_size - 1)) != 0)
  {
    log_text(LOG_FATAL, "Invalid value for memory-block-size: %s", bs_text ? bs_text : "");
    return 1;
  }
  total_size = sb_opt_size("memory-total-size");
  static const char *const scopes[] = { "global", "local" };
  static const char *const opers[] = { "write", "read", "none" };
  static const char *const modes[] = { "seq", "rnd" };
  int sc = pick("memory-scope", scopes, 2);
  if (sc < 0)
    return 1;
  scope_global = sc == 0;
  hugetlb = sb_opt_bool("memory-hugetlb");
  oper = pick("memory-oper", opers, 3);
  if (oper < 0)
    return 1;
  int md = pick("memory-access-mode", modes, 2);
  if (md < 0)
    return 1;
  rnd = md == 1;
  threads = cfg->threads;
  /* As sysbench: the test counts its own events (to --memory-total-size)
     and ignores --events. bmk lifts the default 10 s limit when --events
     is given alone; without --events that default applies again. */
  if (cfg->events_limit > 0)
  {
    cfg->events_limit = 0;
    if (!sb_opt_given("time"))
      cfg->time_limit = sb_opt_int("time");
  }
  /* bmk decision: each thread's share rounds up,
     so it is never 0 events. --memory-total-size=0: no limit of its own. */
  uint64_t blocks = total_size / block_size;
  per_thread_events = total_size == 0 ? 0 : (blocks + threads - 1) / threads;
  if (total_size > 0 && per_thread_events == 0)
    per_thread_events = 1;
  if (scope_global && (global_buf = alloc_block()) == NULL)
    return 1;
  return 0;
}

static int memory_thread_init(int tid)
{
  (void) tid;
  done_events = 0;
  if (!scope_global && (local_buf = alloc_block()) == NULL)
    return 1;
  return 0;
}

static int memory_event(int tid)
{
  if (per_thread_events > 0 && done_events >= per_thread_events)
    return 1;
  done_events++;
  uint64_t *buf = scope_global ? global_buf : local_buf;
  size_t words = block_size / sizeof(uint64_t);
  uint64_t acc = 0;
  switch (oper)
  {
  case OP_WRITE:
    if (rnd)
      for (size_t i = 0; i < words; i++)
        buf[sb_rand_uniform(0, (uint32_t) words - 1)] = i;
    else
      for (size_t i = 0; i < words; i++)
        buf[i] = i;
    break;
  case OP_READ:
    if (rnd)
      for (size_t i = 0; i < words; i++)
        acc += buf[sb_rand_uniform(0, (uint32_t) words - 1)];
    else
      for (size_t i = 0; i < words; i++)
        acc += buf[i];
    sink = acc;
    break;
  default:
    break;
  }
  sb_counter_add(tid, oper == OP_READ ? SB_CNT_BYTES_READ : SB_CNT_BYTES_WRITTEN,
                 oper == OP_NONE ? 0 : block_size);
  return 0;
}

static int memory_thread_done(int tid)
{
  (void) tid;
  if (!scope_global && local_buf)
  {
    if (hugetlb)
      munmap(local_buf, block_size);
    else
      free(local_buf);
    local_buf = NULL;
  }
  return 0;
}

static void memory_mode(void)
{
  log_text(LOG_NOTICE, "Running memory speed test with the following options:");
  log_text(LOG_NOTICE, "  block size: %luKiB", (unsigned long) (block_size / 1024));
  log_text(LOG_NOTICE, "  total size: %luMiB", (unsigned long) (total_size / 1024 / 1024));
  log_text(LOG_NOTICE, "  operation: %s", oper == OP_WRITE ? "write" : oper == OP_READ ? "read" : "none");
  log_text(LOG_NOTICE, "  scope: %s", scope_global ? "global" : "local");
  log_text(LOG_NOTICE, "%s", "");
}

static double mib(uint64_t events)
{
  return (double) events * (double) block_size / (1024.0 * 1024.0);
}

static void memory_interval(const sb_stat_t *st)
{
  log_text(LOG_NOTICE, "[ %.0fs ] %4.2f MiB/sec", st->time_total,
           st->time_interval > 0 ? mib(st->events) / st->time_interval : 0);
}

static void memory_report(const sb_stat_t *st)
{
  double t = st->time_interval > 0 ? st->time_interval : 1;
  sb_builtin_report_line("Total operations: %lu (%8.2f per second)\n", (unsigned long) st->events,
                         (double) st->events / t);
  if (oper != OP_NONE)
    sb_builtin_report_line("%4.2f MiB transferred (%4.2f MiB/sec)\n", mib(st->events),
                           mib(st->events) / t);
}

static void memory_done(void)
{
  if (global_buf)
  {
    if (hugetlb)
      munmap(global_buf, block_size);
    else
      free(global_buf);
    global_buf = NULL;
  }
}

const sb_builtin_t sb_test_memory = {
  .name = "memory",
  .description = "Memory functions speed test",
  .options = memory_options,
  .init = memory_init,
  .run = { .thread_init = memory_thread_init, .event = memory_event,
           .thread_done = memory_thread_done, .print_mode = memory_mode,
           .report_intermediate = memory_interval,
           .report_cumulative = memory_report },
  .done = memory_done,
};
