/* Built-in test `memory`: block reads/writes over a buffer
   (sysbench-compat.md §8). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "builtin/sb_builtin.h"
#include "core/sb_counter.h"
#include "core/sb_logger.h"
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

static int memory_init(const sb_run_config_t *cfg)
{
  block_size = sb_opt_size("memory-block-size");
  total_size = sb_opt_size("memory-total-size");
  if (block_size == 0 || (block_size & (block_size - 1)) != 0 || block_size < 8)
  {
    log_text(LOG_FATAL, "Invalid value for memory-block-size: %s",
             sb_opt_str("memory-block-size"));
    return 1;
  }
  const char *scope = sb_opt_str("memory-scope");
  if (scope && !strcasecmp(scope, "global"))
    scope_global = true;
  else if (scope && !strcasecmp(scope, "local"))
    scope_global = false;
  else
  {
    log_text(LOG_FATAL, "Invalid value for memory-scope: %s", scope ? scope : "");
    return 1;
  }
  const char *op = sb_opt_str("memory-oper");
  if (op && !strcasecmp(op, "write"))
    oper = OP_WRITE;
  else if (op && !strcasecmp(op, "read"))
    oper = OP_READ;
  else if (op && !strcasecmp(op, "none"))
    oper = OP_NONE;
  else
  {
    log_text(LOG_FATAL, "Invalid value for memory-oper: %s", op ? op : "");
    return 1;
  }
  const char *mode = sb_opt_str("memory-access-mode");
  if (mode && !strcasecmp(mode, "seq"))
    rnd = false;
  else if (mode && !strcasecmp(mode, "rnd"))
    rnd = true;
  else
  {
    log_text(LOG_FATAL, "Invalid value for memory-access-mode: %s", mode ? mode : "");
    return 1;
  }
  hugetlb = sb_opt_bool("memory-hugetlb");
  threads = cfg->threads;
  /* bmk decision: each thread's share rounds up, so it is never 0 events. */
  uint64_t blocks = total_size / block_size;
  per_thread_events = (blocks + threads - 1) / threads;
  if (per_thread_events == 0)
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
  if (done_events >= per_thread_events)
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
  log_text(LOG_NOTICE, "  scope: %s\n", scope_global ? "global" : "local");
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
  printf("Total operations: %lu (%8.2f per second)\n\n", (unsigned long) st->events,
         (double) st->events / t);
  if (oper != OP_NONE)
    printf("%4.2f MiB transferred (%4.2f MiB/sec)\n\n", mib(st->events), mib(st->events) / t);
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
