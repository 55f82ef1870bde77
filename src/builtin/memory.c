/* STUB: replaced by the real built-in test. */
#include <stddef.h>
#include "sb_builtin.h"

static int stub_event(int tid) { (void) tid; return 1; }

const sb_builtin_t sb_test_memory = {
  .name = "memory",
  .description = "Memory functions speed test",
  .run = { .event = stub_event },
};
