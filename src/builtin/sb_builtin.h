/*
 * Built-in tests (cpu, fileio, memory, threads, mutex; sysbench-compat.md
 * §8). Each is a C implementation of the engine's test callbacks plus its
 * options and the commands it supports.
 */
#ifndef SB_BUILTIN_H
#define SB_BUILTIN_H

#include "engine/sb_engine.h"
#include "core/sb_options.h"

typedef struct sb_builtin {
  const char *name;             /* "cpu" */
  const char *description;      /* "CPU performance test" */
  const sb_option_t *options;   /* registered when the test is selected */
  /* Validates options after parsing (prints FATAL on error); 0 = ok. */
  int (*init)(const sb_run_config_t *cfg);
  /* Called before `run` only (after init); 0 = ok. */
  int (*run_init)(const sb_run_config_t *cfg);
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

#endif
