/* `bmk cluster run`'s state and its options and hosts file
   (cli/sb_cluster_opts.c), shared by cli/sb_cluster_cmd.c. Main thread. */
#ifndef SB_CLUSTER_PRIV_H
#define SB_CLUSTER_PRIV_H

#include <signal.h>
#include <stdbool.h>

#include "commands/cluster/sb_cluster_proc.h"
#include "commands/cluster/sb_cluster_merge.h"

#define MAX_PROCS 1024

typedef struct {
  const char *hosts, *launcher, *remote_bmk, *results;
  const char *copy_bmk, *remote_cache; /* --copy-bmk, --remote-cache */
  bool copy_script;            /* --copy-script (also implied by --copy-bmk) */
  const char *html;            /* --html=FILE: the merged run's charts */
  bool save;                   /* --save, --results-db or $BMK_RESULTS_DB */
  const char *results_db;      /* --results-db=FILE (NULL: the default store) */
  bool stop_on_failure, verbose;
  double max_offset_ms, ready_timeout_s;
  double silence_s;            /* --cluster-timeout */
  const char *metrics_listen;  /* --metrics-listen: the merged metrics, here */
  double metrics_linger;       /* --metrics-linger, s */
  int nargs;
  char **args;                 /* the bmk run arguments */
  char **kit_argv;             /* -- kit ...: the plan's words (owned; args
                                  point into it) */
  /* from the run arguments */
  double interval_s;
  bool intervals;
  unsigned threads, percentile;
  double warmup_s;             /* --warmup-time */
  double rate;                 /* --rate: the whole run's target, events/s */
  const char *proc_metrics;    /* the run arguments' --metrics-listen=ADDR:PORT
                                  (each process on PORT + its slot), or NULL */
  bool command;                /* the command is `prepare`: split, no stream */
} cl_opts_t;

typedef struct {
  cl_opts_t o;
  cluster_proc_t *p;
  unsigned n;
  char dir[256];               /* logs and ssh control sockets */
  sb_cluster_merge_t *merge;
  double start_epoch;          /* the start time, Unix s */
  int failures;                /* processes lost during the run */
  bool stopping;
  bool generic;                /* a built-in test: its report layout */
  char *script_arg;            /* the copied script's path on the hosts (owned) */
  char *lua_path;              /* "LUA_PATH=<its directory>/?.lua;;" (owned) */
  sb_output_t metrics;         /* --metrics-listen's endpoint (metrics.close
                                  NULL: none) */
} cl_t;

/* The command's usage text. */
extern const char cluster_opts_usage[];

/* Reads argv (argv[1] "cluster", argv[2] "run") into *o. 0, or 1 (the
   usage error printed). */
int cluster_opts_parse_opts(int argc, char **argv, cl_opts_t *o);

/* `-- kit NAME USERS SECONDS [options]`: replaces o->args with the bmk
   command line of that kit plan (`self kit explain ...`; its kit Lua
   file is a path, which --copy-script copies with its modules). 0 (also
   when the arguments are not a kit name), or 1 (FATAL: no such plan, a
   plan of several processes). Main thread, after cluster_opts_parse_opts. */
int cluster_opts_expand_kit(cl_opts_t *o, const char *self);

/* Reads c->o.hosts into c->p / c->n (one entry per process slot). 0, or
   1 (FATAL naming the file, line and entry). */
int cluster_opts_read_hosts(cl_t *c);

/* The launcher's words for process p (index `index`), then the remote
   bmk's (shell-quoted when the launcher is ssh). NULL on OOM. */
char **cluster_opts_build_argv(cl_t *c, const cluster_proc_t *p, unsigned index);

/* The launcher's words for `host`, then `words` (nwords; shell-quoted
   when the launcher is ssh). NULL on OOM. */
char **cluster_opts_launch_argv(cl_t *c, const char *host, char *const *words, int nwords);

/* --metrics-listen of the coordinator (cli/sb_cluster_metrics.c): binds
   c->o.metrics_listen and fills c->metrics with the endpoint the merge
   feeds its merged intervals and end (labels: the workload's name, the
   run arguments' --tag). 0 (also without the option), or 1 (FATAL: the
   address, the port in use). Call before the processes start. */
int cluster_metrics_open(cl_t *c);

/* Adds the pgbench scripts' per-statement series to the coordinator's
   page (docs/metrics.md "Cluster runs"): those of the merged document's
   "statements" (counts summed over the processes, quantiles from the
   added histograms: sb_merge_statements), served from now on, i.e. at
   the scrapes of --metrics-linger. Nothing without --metrics-listen or
   statements. Main thread, after the processes' documents are merged
   (sb_cluster_merge_report). */
void cluster_metrics_statements(cl_t *c);

/* Takes the series off the page and frees them; after the endpoint is
   closed. Main thread. */
void cluster_metrics_statements_free(void);

/* Frees an argv of the above. */
void cluster_opts_free_argv(char **v);

/* The merged run's files (cli/sb_cluster_out.c): --results (the merged
   document), --html (its charts, as `bmk report --html`) and --save (one
   run in the results database). Call after the report. 0, or 1 (ALERT
   naming what failed). */
int cluster_opts_write_outputs(cl_t *c);

/* --copy-bmk (cli/sb_cluster_files.c): copies c->o.copy_bmk through the
   launcher to --remote-cache/bmk-RELEASE on every host where that file is
   not yet (one remote sh per host, in parallel, the file on its stdin)
   and makes it c->o.remote_bmk. 0, or 1 (FATAL naming the host). */
int cluster_files_copy_bmk(cl_t *c);

/* --copy-script (and --copy-bmk): when the run's test argument is a
   script file here (a path with '/', or a name ending in .lua), copies it
   and every other .lua file of its directory (the modules it may
   require; at most 256 files, 32 MiB) to --remote-cache/scripts/HASH/ on
   every host (HASH: FNV-1a 64 of the files' names and bytes, so a copy is
   never stale and never sent twice; packed with tar, unpacked by the
   remote sh), then points the test argument there and sets
   c->lua_path, which the processes get as their LUA_PATH. 0 (also when
   the test is a bundled workload: nothing to copy), or 1 (FATAL naming
   the file or the host). */
int cluster_files_copy_script(cl_t *c);

/* `prepare` split over the processes (cli/sb_cluster_prep.c): process 0
   starts first; the others once it printed `bmkc go` (its part that must
   come first is done) or ended normally. Their output is printed with
   their names; a failed process is named. `sig` / `sig_fd`: set / readable
   when SIGINT or SIGTERM came. Returns 0, the highest exit code of the
   processes, 1 (a launch failed) or 130/143; the caller ends whatever
   still runs (end_all). */
int clc_prepare(cl_t *c, volatile sig_atomic_t *sig, int sig_fd);

#endif
