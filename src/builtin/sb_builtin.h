/*
 * Built-in tests (cpu, fileio, memory, threads, mutex; sysbench 1.1's
 * src/tests/). Each is a C implementation of the engine's test callbacks
 * plus its options and the commands it supports.
 */
#ifndef SB_BUILTIN_H
#define SB_BUILTIN_H

#include "engine/sb_engine.h"
#include "core/sb_options.h"

typedef struct sb_builtin {
  const char *name;             /* "cpu" */
  const char *description;      /* "CPU performance test" */
  const sb_option_t *options;   /* registered when the test is selected */
  /* Validates options after parsing (prints FATAL on error); 0 = ok.
     May adjust the run configuration (memory ignores --events, as
     sysbench's memory test does). Called for `run` only. */
  int (*init)(sb_run_config_t *cfg);
  /* Commands; NULL when unsupported. Return the exit code. */
  int (*prepare)(const sb_run_config_t *cfg);
  int (*cleanup)(const sb_run_config_t *cfg);
  /* Callbacks for `run` (event loop, mode text, reports). */
  sb_c_test_t run;
  /* Called after the run's final report (e.g. fileio's fsync at end). */
  void (*done)(void);
} sb_builtin_t;

/* NULL-terminated list in help order (fileio, cpu, memory, threads,
   mutex). */
const sb_builtin_t *const *sb_builtins(void);

/* Finds a built-in test by name; NULL if none. */
const sb_builtin_t *sb_builtin_find(const char *name);

/* Prints one line of a final-report block (a newline is appended) when
   --verbosity is NOTICE (3) or more, as sysbench's log_text(LOG_NOTICE)
   does. For report_cumulative callbacks, which run with the output lock
   held (log_text would deadlock there). */
void sb_builtin_report_line(const char *fmt, ...)
  __attribute__((format(printf, 1, 2)));

/* Zeroed array of `n` elements of `size` bytes aligned on 64 bytes (one
   cache line per thread: calloc ignores a type's alignment attribute), to
   release with free(); NULL when out of memory. */
void *sb_builtin_calloc_aligned(size_t n, size_t size);

/* sysbench's sb_print_value_size(): `bytes` scaled by 1024 while >= 1024
   with "%.5g" and a "Ki"/"Mi"/"Gi"/"Ti" suffix ("16Ki", "8Mi", "100").
   Callers append "B". Returns `buf`. */
char *sb_builtin_size_text(char *buf, size_t len, double bytes);

#endif
