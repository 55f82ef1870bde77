/* Core options; see sb_core_options.h. Help texts are sysbench 1.1's,
   byte for byte (tests/integration/golden/help.txt). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/sb_core_options.h"
#include "core/sb_cluster.h"
#include "core/sb_endpoints.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_rand.h"
#include "core/sb_retry.h"
#include "core/sb_version.h"
#include "engine/sb_engine.h"
#include "engine/sb_vuplan.h"

static const sb_option_t general_options[] = {
  { "threads", "number of threads to use", "1", SB_ARG_TYPE_INT },
  { "events", "limit for total number of events", "0", SB_ARG_TYPE_INT },
  { "time", "limit for total execution time in seconds", "10", SB_ARG_TYPE_INT },
  { "warmup-time", "execute events for this many seconds with statistics disabled before the actual benchmark run with statistics enabled", "0", SB_ARG_TYPE_INT },
  { "forced-shutdown", "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable", "off", SB_ARG_TYPE_STRING },
  { "thread-stack-size", "size of stack per thread", "64K", SB_ARG_TYPE_SIZE },
  { "thread-init-timeout", "wait time in seconds for worker threads to initialize", "30", SB_ARG_TYPE_INT },
  /* bmk decision: fractional rates and intervals are accepted, so these
     are DOUBLE internally; the help keeps sysbench's "=N". */
  { "rate", "average transactions rate. 0 for unlimited rate", "0", SB_ARG_TYPE_DOUBLE },
  { "report-interval", "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports", "0", SB_ARG_TYPE_DOUBLE },
  { "report-checkpoints", "dump full statistics and reset all counters at specified points in time. The argument is a list of comma-separated values representing the amount of time in seconds elapsed from start of test when report checkpoint(s) must be performed. Report checkpoints are off by default.", "", SB_ARG_TYPE_LIST },
  { "debug", "print more debugging info", "off", SB_ARG_TYPE_BOOL },
  { "validate", "perform validation checks where possible", "off", SB_ARG_TYPE_BOOL },
  { "help", "print help and exit", "off", SB_ARG_TYPE_BOOL },
  { "version", "print version and exit", "off", SB_ARG_TYPE_BOOL },
  { "config-file", "File containing command line options", NULL, SB_ARG_TYPE_FILE },
  { "luajit-cmd", "perform LuaJIT control command. This option is equivalent to 'luajit -j'. See LuaJIT documentation for more information", NULL, SB_ARG_TYPE_STRING },
  { NULL, NULL, NULL, 0 }
};

static const sb_option_t rand_options[] = {
  { "rand-type", "random numbers distribution {uniform, gaussian, pareto, zipfian} to use by default", "uniform", SB_ARG_TYPE_STRING },
  { "rand-seed", "seed for random number generator. When 0, the current time is used as an RNG seed.", "0", SB_ARG_TYPE_INT },
  { "rand-pareto-h", "shape parameter for the Pareto distribution", "0.2", SB_ARG_TYPE_DOUBLE },
  { "rand-zipfian-exp", "shape parameter (exponent, theta) for the Zipfian distribution", "0.8", SB_ARG_TYPE_DOUBLE },
  { NULL, NULL, NULL, 0 }
};

static const sb_option_t log_options[] = {
  { "verbosity", "verbosity level {5 - debug, 0 - only critical messages}", "3", SB_ARG_TYPE_INT },
  { NULL, NULL, NULL, 0 }
};

static const sb_option_t report_options[] = {
  { "percentile", "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations", "95", SB_ARG_TYPE_INT },
  { "histogram", "print latency histogram in report", "off", SB_ARG_TYPE_BOOL },
  { NULL, NULL, NULL, 0 }
};

/* bmk's own options ("bmk extensions (general):" in --help). */
static const sb_option_t ext_options[] = {
  { "percentiles", "additional latency percentiles to report, e.g. 50,99,99.9", "", SB_ARG_TYPE_LIST },
  { "rate-overload", "what to do when workers cannot keep up with --rate {continue, abort}", "continue", SB_ARG_TYPE_STRING },
  { "sync-file", "start barrier: wait until this file disappears before starting the measured run", "", SB_ARG_TYPE_STRING },
  { "sync-wait", "check interval of the --sync-file barrier in milliseconds", "10", SB_ARG_TYPE_INT },
  { "latency-limit", "count events slower than this many milliseconds as late (0 = off)", "0", SB_ARG_TYPE_DOUBLE },
  { "max-tries", "Lua workloads: tries of a transaction that fails with a serialization failure or deadlock, run again with the same random numbers after a ROLLBACK (0 = unlimited, with a time limit); when given, failures and retries are counted and reported (docs/usage.md \"Retries\")", "1", SB_ARG_TYPE_INT },
  { "results", "write the results (manifest, intervals, per-type statistics, summary, histogram) to this JSON file", "", SB_ARG_TYPE_STRING },
  { "repeat", "run the same run N times, each a process of its own: --results/--hdr-log files get .K before the extension, --save keeps each tagged repeat=K (the repetitions bmk compare's gates want; docs/results-db.md)", "1", SB_ARG_TYPE_INT },
  { "endpoints", "JSON file of database endpoints (primary, replicas; credentials from environment variables or files) and routes (docs/endpoints.md)", "", SB_ARG_TYPE_STRING },
  { "on-endpoint-failure", "with --endpoints, a lost connection whose endpoint does not answer: reconnect (retry that endpoint until it is back) or next (move to the next endpoint of its role, then to the primary)", "reconnect", SB_ARG_TYPE_STRING },
  { "hdr-log", "write per-interval latency histograms to this file (HdrHistogram interval log)", "", SB_ARG_TYPE_STRING },
  { "series-id", "name of the series this run belongs to, written to the --results manifest (bmk series sets it; bmk report groups by it)", "", SB_ARG_TYPE_STRING },
  { "cluster-index", "this process's number in a cluster run, 0 to --cluster-size - 1: global thread ids, its share of --events, --rate and of the bundled workloads' prepare (docs/cluster.md)", "0", SB_ARG_TYPE_INT },
  { "cluster-size", "number of processes of a cluster run (bmk cluster run sets both)", "1", SB_ARG_TYPE_INT },
  { "cluster-stream", "cluster child: report to bmk cluster run on stdout (ready line, intervals with their histograms, end) and take the start time from stdin; the text report goes to stderr", "off", SB_ARG_TYPE_BOOL },
  { "db-checkpoint", "before the measured run, make the database server write its dirty pages (PostgreSQL CHECKPOINT; MariaDB/MySQL FLUSH TABLES and InnoDB flushing), so every run starts from the same state", "off", SB_ARG_TYPE_BOOL },
  { NULL, NULL, NULL, 0 }
};

/* bmk's additive output, on by default under the name bmk and off under
   the name sysbench (the drop-in persona prints sysbench's output byte for
   byte unless these are asked for); registered between the two halves of
   ext_options so the help keeps one block. */
static const struct {
  const char *name, *desc;
} additive_options[] = {
  { "db-server-stats", "compare the client's counts with the server's own counters over the run" },
  { "rate-lag", "append the schedule's lag (how long the oldest due arrival has waited, ms) to the --rate queue line" },
  { "server-cost", "measure the database server's CPU time and instructions per transaction over the run (the local server is found through the connection)" },
};

static const sb_option_t ext_options_2[] = {
  { "server-pid", "process id(s) of the database server to measure, with their child processes", "", SB_ARG_TYPE_LIST },
  { "server-cgroup", "cgroup v2 directory of the database server to measure (absolute, or relative to the cgroup v2 mount)", "", SB_ARG_TYPE_STRING },
  { "rand-spec-iter", "number of iterations for the special and gaussian distributions", "12", SB_ARG_TYPE_INT },
  { "rand-spec-pct", "percentage of the values to be treated as 'special' (for special distribution)", "1", SB_ARG_TYPE_INT },
  { "rand-spec-res", "percentage of 'special' values to use (for special distribution)", "75", SB_ARG_TYPE_INT },
  { "workers", "worker threads running the --threads virtual users: auto = one per virtual user below 16 (64 with the mysql driver; at any count under the name sysbench), else an event loop on one worker per CPU; threads = one per virtual user; fewer than --threads = event loop", "auto", SB_ARG_TYPE_STRING },
  { "async-sessions", "virtual users per worker thread: --threads x K sessions on --threads event-loop workers (auto: one session per terminal, --terminals-per-warehouse x warehouses, on --threads workers)", "1", SB_ARG_TYPE_STRING },
  { "login-delay", "event loop: the m-th virtual user of a worker connects m x this many milliseconds after the start", "0", SB_ARG_TYPE_DOUBLE },
  { "num-threads", "deprecated alias of --threads", "1", SB_ARG_TYPE_INT },
  { "max-requests", "deprecated alias of --events", "0", SB_ARG_TYPE_INT },
  { "max-time", "deprecated alias of --time", "0", SB_ARG_TYPE_INT },
  { "tx-rate", "deprecated alias of --rate", "0", SB_ARG_TYPE_DOUBLE },
  { "test", "deprecated: the test name (give it as the first argument instead)", NULL, SB_ARG_TYPE_STRING },
  { NULL, NULL, NULL, 0 }
};

int sb_core_register_options(void)
{
  int rc = 0;
  rc |= sb_opt_register_table(general_options, SB_GROUP_GENERAL, NULL);
  rc |= sb_opt_register_table(rand_options, SB_GROUP_RAND, NULL);
  rc |= sb_opt_register_table(log_options, SB_GROUP_LOG, NULL);
  rc |= sb_opt_register_table(report_options, SB_GROUP_REPORT, NULL);
  rc |= sb_opt_register_table(ext_options, SB_GROUP_EXT_GENERAL, NULL);
  for (unsigned i = 0; i < sizeof(additive_options) / sizeof(additive_options[0]); i++)
    rc |= sb_opt_register(additive_options[i].name, additive_options[i].desc,
                          sb_persona_sysbench() ? "off" : "on", SB_ARG_TYPE_BOOL,
                          SB_GROUP_EXT_GENERAL, NULL);
  rc |= sb_opt_register_table(ext_options_2, SB_GROUP_EXT_GENERAL, NULL);
  /* off under the sysbench persona, which waits for stuck events as
     sysbench does (docs/reliability.md) */
  rc |= sb_opt_register("stuck-grace", "seconds to wait after the --time limit for events "
                        "still waiting for the server; then the run ends, lists them with "
                        "their age, counts them in the latency and exits with code 2 ('off' "
                        "waits for them, as sysbench does; --forced-shutdown, when given, "
                        "comes first)", sb_persona_sysbench() ? "off" : "5",
                        SB_ARG_TYPE_STRING, SB_GROUP_EXT_GENERAL, NULL);
  return rc ? -1 : 0;
}

static void alias(const char *old, const char *new_name, bool positive_only)
{
  if (!sb_opt_given(old))
    return;
  double v = sb_opt_double(old);
  if (positive_only && !(v > 0))
    return;
  if (strcmp(old, "num-threads") == 0 && !(v > 1))
    return;
  sb_opt_set(new_name, sb_opt_str(old));
  log_text(LOG_WARNING, "--%s is deprecated, use --%s instead", old, new_name);
}

void sb_core_apply_aliases(void)
{
  alias("num-threads", "threads", true);
  alias("max-requests", "events", true);
  alias("max-time", "time", true);
  alias("tx-rate", "rate", true);
}

static int fatal_blank(const char *fmt, const char *val)
{
  char buf[512];
  snprintf(buf, sizeof(buf), fmt, val);
  log_text(LOG_FATAL, "%s\n", buf);
  return -1;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static int check_login_ramp(const sb_run_config_t *cfg);

static bool g_own_work;   /* sb_core_set_own_work */

void sb_core_set_own_work(bool own_work)
{
  g_own_work = own_work;
}

int sb_core_resolve_vus(sb_run_config_t *cfg, unsigned terminals)
{
  /* sysbench's persona keeps sysbench's model, one thread per virtual
     user, unless --workers asks otherwise (docs/compatibility.md) */
  const char *workers = sb_opt_str("workers");
  if (sb_persona_sysbench() && !sb_opt_given("workers"))
    workers = "threads";
  sb_plan_in_t in = {
    .threads = cfg->threads_given,
    .workers = workers,
    .async_sessions = sb_opt_str("async-sessions"),
    .terminals = terminals,
    .workers_given = sb_opt_given("workers"),
    .own_work = g_own_work,
    /* the default driver is mysql, as sysbench's */
    .event_min_vus = strcasecmp(sb_opt_str("db-driver") ? sb_opt_str("db-driver") : "mysql",
                                "mysql") == 0 ? SB_PLAN_EVENT_MIN_VUS_MYSQL
                                              : SB_PLAN_EVENT_MIN_VUS,
    .ncpu = sb_engine_cpus(),
  };
  sb_plan_t plan;
  char err[512];
  if (sb_plan_resolve(&in, &plan, err, sizeof(err)) != 0)
  {
    log_text(LOG_FATAL, "%s", err);
    return -1;
  }
  cfg->threads = plan.vus;
  cfg->workers = plan.workers;
  cfg->event_mode = plan.event_mode;
  /* scripts partition work by sysbench.opt.threads: it counts the VUs */
  if (plan.vus != cfg->threads_given)
  {
    char buf[32];
    snprintf(buf, sizeof(buf), "%u", plan.vus);
    sb_opt_set("threads", buf);
  }
  /* with --async-sessions=auto the plan comes after the options were
     read: check the ramp now (a no-op before --login-delay is read) */
  return check_login_ramp(cfg);
}

bool sb_core_async_auto(void)
{
  const char *as = sb_opt_str("async-sessions");
  return as != NULL && strcasecmp(as, "auto") == 0;
}

/* The read_* helpers below fill their group of `cfg` from the options.
   Each returns 0, or -1 after printing the FATAL message. */

/* --threads, --workers, --async-sessions (unless auto), --login-delay. */
static int read_vus(sb_run_config_t *cfg)
{
  int threads = sb_opt_int("threads");
  if (threads <= 0)
    return fatal_blank("Invalid value for --threads: %s.", sb_opt_str("threads"));
  cfg->threads = cfg->threads_given = (unsigned) threads;
  /* --async-sessions=auto is resolved once the script's options exist */
  if (!sb_core_async_auto() && sb_core_resolve_vus(cfg, 0) != 0)
    return -1;
  cfg->login_delay_ms = sb_opt_double("login-delay");
  if (cfg->login_delay_ms < 0 || isnan(cfg->login_delay_ms))
  {
    log_text(LOG_FATAL, "Invalid value for --login-delay: %s (milliseconds, >= 0)",
             sb_opt_str("login-delay"));
    return -1;
  }
  if (cfg->login_delay_ms > 0 && !cfg->event_mode && !sb_core_async_auto())
    log_text(LOG_WARNING, "--login-delay applies to the event loop only (--workers below "
             "--threads, or --async-sessions): ignored in this run of one thread per "
             "virtual user");
  return 0;
}

/* --events, --time, --warmup-time. */
static int read_limits(sb_run_config_t *cfg)
{
  int events = sb_opt_int("events");
  int time_limit = sb_opt_int("time");
  if (events < 0)
    events = 0;
  if (time_limit < 0)
    time_limit = 0;
  cfg->events_limit = (uint64_t) events;
  /* bmk decision: --events alone is not capped by the default --time. */
  if (events > 0 && !sb_opt_given("time") && !sb_opt_given("max-time"))
    time_limit = 0;
  cfg->time_limit = time_limit;

  int warmup = sb_opt_int("warmup-time");
  if (warmup < 0)
    return fatal_blank("Invalid value for --warmup-time: %s.", sb_opt_str("warmup_time"));
  cfg->warmup = warmup;
  return 0;
}

/* --stuck-grace (seconds, or off): bmk's end of a run whose events outlive
   --time because the server stopped answering (its default is off under
   the sysbench persona). */
static int read_stuck_grace(sb_run_config_t *cfg)
{
  const char *g = sb_opt_str("stuck-grace");
  cfg->stuck_grace = -1;
  if (g == NULL || strcmp(g, "off") == 0)
    return 0;
  char *end;
  double v = strtod(g, &end);
  if (end == g || *end != '\0' || !(v >= 0) || v > 86400)
  {
    log_text(LOG_FATAL, "Invalid value for --stuck-grace: '%s' (seconds, or off)", g);
    return -1;
  }
  if (cfg->time_limit > 0)
    cfg->stuck_grace = v;
  return 0;
}

/* --forced-shutdown (seconds, N% of --time, empty = 5%, off); after
   read_limits. */
static int read_forced_shutdown(sb_run_config_t *cfg)
{
  const char *fs = sb_opt_str("forced-shutdown");
  cfg->forced_shutdown = -1;
  if (sb_opt_given("forced-shutdown") && (fs == NULL || *fs == '\0'))
    cfg->forced_shutdown = cfg->time_limit * 0.05;
  else if (fs && strcmp(fs, "off") != 0)
  {
    char *end;
    double v = strtod(fs, &end);
    if (end == fs || v < 0 || (*end != '\0' && strcmp(end, "%") != 0))
    {
      log_text(LOG_FATAL, "Invalid value for --forced-shutdown: '%s'", fs);
      return -1;
    }
    cfg->forced_shutdown = *end == '%' ? cfg->time_limit * v / 100.0 : v;
  }
  if (cfg->time_limit <= 0)
    cfg->forced_shutdown = -1;
  return read_stuck_grace(cfg);
}

/* --thread-init-timeout covers the whole --login-delay ramp: a ramp
   longer than it can only end in a timeout, so say so at once. Needs the
   VU plan (read_vus, or sb_core_resolve_vus for --async-sessions=auto).
   0, or -1 (FATAL printed). */
static int check_login_ramp(const sb_run_config_t *cfg)
{
  if (cfg->event_mode && cfg->login_delay_ms > 0 && cfg->thread_init_timeout > 0)
  {
    unsigned per_worker = sb_plan_vus_of_worker(0, cfg->threads, cfg->workers);
    double ramp_s = (double) sb_plan_login_offset_ns(per_worker - 1, cfg->login_delay_ms) / 1e9;
    if (ramp_s >= cfg->thread_init_timeout)
    {
      log_text(LOG_FATAL, "--login-delay=%g staggers %u virtual users per worker over %.0f s, "
               "longer than --thread-init-timeout=%g: raise --thread-init-timeout (0 = no "
               "limit) or lower --login-delay", cfg->login_delay_ms, per_worker, ramp_s,
               cfg->thread_init_timeout);
      return -1;
    }
  }
  return 0;
}

/* --thread-init-timeout (checked against the --login-delay ramp),
   --thread-stack-size; after read_vus. */
static int read_thread_options(sb_run_config_t *cfg)
{
  cfg->thread_init_timeout = sb_opt_int("thread-init-timeout");
  if (check_login_ramp(cfg) != 0)
    return -1;
  cfg->thread_stack_size = (size_t) sb_opt_size("thread-stack-size");
  return 0;
}

/* --rate, --rate-overload. */
static int read_rate(sb_run_config_t *cfg)
{
  cfg->rate = sb_opt_double("rate");
  if (cfg->rate < 0 || isnan(cfg->rate))
  {
    log_text(LOG_FATAL, "Invalid value for --rate: %s", sb_opt_str("rate"));
    return -1;
  }
  const char *ov = sb_opt_str("rate-overload");
  if (ov && strcmp(ov, "abort") == 0)
    cfg->rate_overload_abort = true;
  else if (ov && strcmp(ov, "continue") != 0)
  {
    log_text(LOG_FATAL, "Invalid value for --rate-overload: '%s'", ov);
    return -1;
  }
  return 0;
}

/* --report-interval, --report-checkpoints (sorted). */
static int read_report_times(sb_run_config_t *cfg)
{
  cfg->report_interval = sb_opt_double("report-interval");
  if (cfg->report_interval < 0)
  {
    log_text(LOG_FATAL, "Invalid value for --report-interval: %s", sb_opt_str("report_interval"));
    return -1;
  }

  unsigned n;
  char **cps = sb_opt_list("report-checkpoints", &n);
  if (n > SB_MAX_CHECKPOINTS)
  {
    log_text(LOG_FATAL, "Too many checkpoints in --report-checkpoints (up to %d can be defined)",
             SB_MAX_CHECKPOINTS);
    return -1;
  }
  for (unsigned i = 0; i < n; i++)
  {
    int v;
    if (sb_parse_int(cps[i], &v) != 0 || v < 0)
    {
      log_text(LOG_FATAL, "Invalid value for --report-checkpoints: '%s'", cps[i]);
      return -1;
    }
    cfg->checkpoints[cfg->ncheckpoints++] = v;
  }
  qsort(cfg->checkpoints, cfg->ncheckpoints, sizeof(double), cmp_double);
  return 0;
}

/* --percentile, --histogram, --percentiles. */
static int read_percentiles(sb_run_config_t *cfg)
{
  int pct = sb_opt_int("percentile");
  if (pct < 0 || pct > 100)
  {
    log_text(LOG_FATAL, "Invalid value for --percentile: %d", pct);
    return -1;
  }
  cfg->percentile = (unsigned) pct;
  cfg->histogram = sb_opt_bool("histogram");
  if (cfg->histogram && pct == 0)
  {
    log_text(LOG_FATAL, "--histogram cannot be used with --percentile=0");
    return -1;
  }

  /* --percentiles: ascending, no duplicates (nor the --percentile one). */
  unsigned n;
  char **pl = sb_opt_list("percentiles", &n);
  double tmp[SB_MAX_PERCENTILES];
  unsigned m = 0;
  for (unsigned i = 0; i < n && m < SB_MAX_PERCENTILES; i++)
  {
    double v;
    if (sb_parse_double(pl[i], &v) != 0 || !(v > 0) || v > 100)
    {
      log_text(LOG_FATAL, "Invalid value for --percentiles: '%s'", pl[i]);
      return -1;
    }
    tmp[m++] = v;
  }
  qsort(tmp, m, sizeof(double), cmp_double);
  for (unsigned i = 0; i < m; i++)
    if ((i == 0 || tmp[i] != tmp[i - 1]))
      cfg->pct[cfg->npct++] = tmp[i];
  return 0;
}

/* --endpoints=FILE and --on-endpoint-failure: loads the endpoints
   (core/sb_endpoints.h) and sets the failure policy before
   anything connects; without --db-driver the file's driver is the run's.
   Returns 0, or -1 (FATAL printed: the file and the offending key). */
static int read_endpoints(void)
{
  const char *path = sb_opt_str("endpoints");
  const char *policy = sb_opt_str("on-endpoint-failure");
  if (sb_endpoints_set_failure(policy) != 0)
  {
    log_text(LOG_FATAL, "Invalid value for --on-endpoint-failure: %s (reconnect or next)",
             policy ? policy : "");
    return -1;
  }
  if (path == NULL || *path == '\0')
    return 0;
  if (sb_endpoints_load(path) != 0)
    return -1;
  const char *drv = sb_opt_str("db-driver");
  if (!sb_opt_given("db-driver"))
    sb_opt_set("db-driver", sb_endpoints_driver());
  else if (drv != NULL && strcmp(drv, sb_endpoints_driver()) != 0)
  {
    log_text(LOG_FATAL, "--endpoints %s: its endpoints are %s, --db-driver is %s", path,
             sb_endpoints_driver(), drv);
    return -1;
  }
  return 0;
}

/* --max-tries (core/sb_retry.h); after read_limits and --latency-limit. */
static int read_max_tries(const sb_run_config_t *cfg)
{
  bool given = sb_opt_given("max-tries");
  int tries = sb_opt_int("max-tries");
  if (given && tries < 0)
  {
    log_text(LOG_FATAL, "Invalid value for --max-tries: %s (tries of a transaction, >= 1, "
             "or 0 for unlimited)", sb_opt_str("max-tries"));
    return -1;
  }
  if (given && tries == 0 && cfg->time_limit == 0 && cfg->latency_limit_ns == 0)
  {
    log_text(LOG_FATAL, "--max-tries=0 (unlimited tries) needs a time limit: give --time=N "
             "or --latency-limit (a transaction that never commits would never end the run)");
    return -1;
  }
  sb_retry_configure(given, given ? (unsigned) tries : 1);
  return 0;
}

/* --debug and bmk's extensions: --sync-file/--sync-wait,
   --latency-limit, --results, --hdr-log, --db-server-stats,
   --db-checkpoint, --rate-lag. */
static int read_extensions(sb_run_config_t *cfg)
{
  cfg->debug = sb_opt_bool("debug");
  cfg->sync_file = sb_opt_str("sync-file");
  cfg->sync_wait_ms = sb_opt_int("sync-wait");
  if (cfg->sync_file && *cfg->sync_file && cfg->sync_wait_ms < 1)
  {
    log_text(LOG_FATAL, "Invalid value for --sync-wait: %d (must be >= 1)", cfg->sync_wait_ms);
    return -1;
  }

  double limit_ms = sb_opt_double("latency-limit");
  if (limit_ms < 0 || isnan(limit_ms))
  {
    log_text(LOG_FATAL, "Invalid value for --latency-limit: %s (milliseconds, >= 0)",
             sb_opt_str("latency-limit"));
    return -1;
  }
  cfg->latency_limit_ns = (uint64_t) (limit_ms * 1e6);
  if (read_max_tries(cfg) != 0)
    return -1;
  cfg->results_path = sb_opt_str("results");
  cfg->hdrlog_path = sb_opt_str("hdr-log");
  if (cfg->results_path && !*cfg->results_path)
    cfg->results_path = NULL;
  if (cfg->hdrlog_path && !*cfg->hdrlog_path)
    cfg->hdrlog_path = NULL;
  cfg->server_stats = sb_opt_bool("db-server-stats");
  cfg->db_checkpoint = sb_opt_bool("db-checkpoint");
  cfg->rate_lag = sb_opt_bool("rate-lag");
  return read_endpoints();
}

/* --cluster-index, --cluster-size: the process's place, its exact share
   of --events and its part of --rate (docs/cluster.md). */
static int read_cluster(sb_run_config_t *cfg)
{
  int index = sb_opt_int("cluster-index"), size = sb_opt_int("cluster-size");
  if (size < 1 || index < 0 || index >= size)
  {
    log_text(LOG_FATAL, "Invalid --cluster-index=%d / --cluster-size=%d: the size must be "
             ">= 1 and the index 0 to size - 1", index, size);
    return -1;
  }
  sb_cluster_set((unsigned) index, (unsigned) size, cfg->threads);
  if (size == 1)
    return 0;
  if (cfg->events_limit > 0)
  {
    if (cfg->events_limit < (uint64_t) size)
    {
      log_text(LOG_FATAL, "--events=%llu cannot be divided among --cluster-size=%d processes: "
               "give at least one event per process", (unsigned long long) cfg->events_limit, size);
      return -1;
    }
    cfg->events_limit = sb_cluster_share(cfg->events_limit, (unsigned) index, (unsigned) size);
  }
  cfg->rate /= size;
  return 0;
}

int sb_core_read_config(sb_run_config_t *cfg)
{
  memset(cfg, 0, sizeof(*cfg));
  /* In this order: the messages of the first bad option come first, and
     later groups read what earlier ones set. */
  if (read_vus(cfg) != 0 || read_limits(cfg) != 0 || read_forced_shutdown(cfg) != 0 ||
      read_thread_options(cfg) != 0 || read_rate(cfg) != 0 ||
      read_report_times(cfg) != 0 || read_percentiles(cfg) != 0 ||
      read_extensions(cfg) != 0 || read_cluster(cfg) != 0)
    return -1;
  return 0;
}

int sb_core_init_rand(void)
{
  sb_rand_params_t p;
  memset(&p, 0, sizeof(p));
  const char *type = sb_opt_str("rand-type");
  if (sb_rand_parse_type(type ? type : "uniform", &p.dist) != 0)
  {
    log_text(LOG_FATAL, "Invalid random numbers distribution: %s.", type);
    return -1;
  }
  int seed = sb_opt_int("rand-seed");
  p.seed = (uint64_t) (unsigned) seed;
  p.spec_iter = (unsigned) sb_opt_int("rand-spec-iter");
  p.spec_pct = (unsigned) sb_opt_int("rand-spec-pct");
  p.spec_res = (unsigned) sb_opt_int("rand-spec-res");
  p.pareto_h = sb_opt_double("rand-pareto-h");
  p.zipf_exp = sb_opt_double("rand-zipfian-exp");
  if (p.zipf_exp < 0)
  {
    log_text(LOG_FATAL, "Invalid value for --rand-zipfian-exp: %s", sb_opt_str("rand_zipfian_exp"));
    return -1;
  }
  if (p.spec_iter == 0)
    p.spec_iter = 1;
  sb_rand_init(&p);
  return 0;
}
