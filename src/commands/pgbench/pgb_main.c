/*
 * The pgbench persona's command line: pgbench 15's options and checks,
 * with its messages and exit status 1 for a bad one, then -i or the run.
 * See pgb.h and docs/pgbench.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "commands/pgbench/pgb.h"
#include "commands/pgbench/pgb_additions.h"
#include "commands/pgbench/pgb_cmd.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_version.h"
#include "drivers/db_async.h"

pgb_config_t pgb_cfg;

static void vmsg(const char *level, const char *fmt, va_list ap)
{
  fprintf(stderr, "pgbench: %s: ", level);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

const char *pgb_sql_error(const db_conn_t *con)
{
  static __thread char buf[4096];
  const char *full = db_conn_sql_errmsg_full(con);
  const char *state = db_conn_sql_state(con);
  if (full)
    snprintf(buf, sizeof(buf), "%s", full);
  else
    snprintf(buf, sizeof(buf), "%s%s", state && *state ? "ERROR:  " : "", db_conn_sql_errmsg(con));
  return buf;
}

void pgb_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vmsg("error", fmt, ap);
  va_end(ap);
}

void pgb_warning(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vmsg("warning", fmt, ap);
  va_end(ap);
}

void pgb_info(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "pgbench: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void hint(void)
{
  fprintf(stderr, "pgbench: hint: Try \"pgbench --help\" for more information.\n");
}

/* pgbench's option_parse_int: exits 1 with its messages. */
static int parse_int(const char *arg, const char *name, int min, int max)
{
  char *end;
  errno = 0;
  long v = strtol(arg, &end, 10);
  while (*end == ' ' || (*end >= '\t' && *end <= '\r'))
    end++;
  if (*end != '\0' || end == arg || errno == ERANGE)
  {
    pgb_error("invalid value \"%s\" for option %s", arg, name);
    exit(1);
  }
  if (v < min || v > max)
  {
    pgb_error("%s must be in range %d..%d", name, min, max);
    exit(1);
  }
  return (int) v;
}

bool pgb_parse_query_mode(const char *name, pgb_qmode_t *mode)
{
  static const char *const names[] = { "simple", "extended", "prepared" };
  static const pgb_qmode_t modes[] = { PGB_QUERY_SIMPLE, PGB_QUERY_EXTENDED, PGB_QUERY_PREPARED };
  for (unsigned i = 0; i < 3; i++)
    if (name == NULL ? i == 0 : strcmp(name, names[i]) == 0)
    {
      *mode = modes[i];
      return true;
    }
  return false;
}

int pgb_parse_weight(const char *opt, char **name)
{
  const char *sep = strrchr(opt, '@');
  if (sep == NULL)
  {
    *name = strdup(opt);
    return 1;
  }
  *name = strndup(opt, (size_t) (sep - opt));
  char *bad;
  errno = 0;
  long w = strtol(sep + 1, &bad, 10);
  if (errno != 0 || bad == sep + 1 || *bad != '\0')
  {
    pgb_error("invalid weight specification: %s", sep);
    exit(1);
  }
  if (w > INT_MAX || w < 0)
  {
    pgb_error("weight specification out of range (0 .. %d): %ld", INT_MAX, w);
    exit(1);
  }
  return (int) w;
}

static void usage(void)
{
  printf("pgbench is a benchmarking tool for PostgreSQL: this is bmk's pgbench 15\n"
         "persona (docs/pgbench.md lists what it supports).\n\n"
         "Usage:\n  pgbench [OPTION]... [DBNAME]\n\n"
         "Initialization options:\n"
         "  -i, --initialize         invokes initialization mode\n"
         "  -I, --init-steps=[dtgGvpf]+ (default \"dtgvp\")\n"
         "                           run selected initialization steps\n"
         "  -F, --fillfactor=NUM     set fill factor\n"
         "  -n, --no-vacuum          do not run VACUUM during initialization\n"
         "  -q, --quiet              quiet logging (one message each 5 seconds)\n"
         "  -s, --scale=NUM          scaling factor\n"
         "  --foreign-keys           create foreign key constraints between tables\n"
         "  --index-tablespace=TABLESPACE\n"
         "                           create indexes in the specified tablespace\n"
         "  --partition-method=(range|hash)\n"
         "                           partition pgbench_accounts with this method (default: range)\n"
         "  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)\n"
         "  --tablespace=TABLESPACE  create tables in the specified tablespace\n"
         "  --unlogged-tables        create tables as unlogged tables\n\n"
         "Options to select what to run:\n"
         "  -b, --builtin=NAME[@W]   add builtin script NAME weighted at W (default: 1)\n"
         "                           (use \"-b list\" to list available scripts)\n"
         "  -f, --file=FILENAME[@W]  add script FILENAME weighted at W (default: 1)\n"
         "  -N, --skip-some-updates  skip updates of pgbench_tellers and pgbench_branches\n"
         "                           (same as \"-b simple-update\")\n"
         "  -S, --select-only        perform SELECT-only transactions\n"
         "                           (same as \"-b select-only\")\n\n"
         "Benchmarking options:\n"
         "  -c, --client=NUM         number of concurrent database clients (default: 1)\n"
         "  -C, --connect            establish new connection for each transaction\n"
         "  -D, --define=VARNAME=VALUE\n"
         "                           define variable for use by custom script\n"
         "  -j, --jobs=NUM           number of threads (default: 1)\n"
         "  -l, --log                write transaction times to log file\n"
         "  -L, --latency-limit=NUM  count transactions lasting more than NUM ms as late\n"
         "  -M, --protocol=simple|extended|prepared\n"
         "                           protocol for submitting queries (default: simple)\n"
         "  -n, --no-vacuum          do not run VACUUM before tests\n"
         "  -P, --progress=NUM       show thread progress report every NUM seconds\n"
         "  -r, --report-per-command report latencies, failures, and retries per command\n"
         "  -R, --rate=NUM           target rate in transactions per second\n"
         "  -s, --scale=NUM          report this scale factor in output\n"
         "  -t, --transactions=NUM   number of transactions each client runs (default: 10)\n"
         "  -T, --time=NUM           duration of benchmark test in seconds\n"
         "  -v, --vacuum-all         vacuum all four standard tables before tests\n"
         "  --aggregate-interval=NUM aggregate data over NUM seconds\n"
         "  --failures-detailed      report the failures grouped by basic types\n"
         "  --log-prefix=PREFIX      prefix for transaction time log file\n"
         "                           (default: \"pgbench_log\")\n"
         "  --max-tries=NUM          max number of tries to run transaction (default: 1)\n"
         "  --progress-timestamp     use Unix epoch timestamps for progress\n"
         "  --random-seed=SEED       set random seed (\"time\", \"rand\", integer)\n"
         "  --sampling-rate=NUM      fraction of transactions to log (e.g., 0.01 for 1%%)\n"
         "  --show-script=NAME       show builtin script code, then exit\n"
         "  --verbose-errors         print messages of all errors\n\n"
         "Common options:\n"
         "  -d, --debug              print debugging output\n"
         "  -h, --host=HOSTNAME      database server host or socket directory\n"
         "  -p, --port=PORT          database server port number\n"
         "  -U, --username=USERNAME  connect as specified database user\n"
         "  -V, --version            output version information, then exit\n"
         "  -?, --help               show this help, then exit\n\n"
         "bmk's additions (benchmarking mode; off unless given; docs/pgbench.md):\n"
         "  --db-server-stats=on     the server's counters beside the run's, after the report\n"
         "  --results=FILE           write bmk's results document (JSON) to FILE\n"
         "  --hdr-log=FILE           write per-interval latency histograms to FILE\n"
         "  --save, --results-db=FILE, --tag=KEY=VALUE[,KEY=VALUE...]\n"
         "                           store the run in bmk's results database\n"
         "  --metrics-listen=ADDR:PORT\n"
         "                           serve the run's metrics to Prometheus\n"
         "  --percentile=P           the percentile of --results and the metrics (default: 95)\n"
         "  --statement-percentiles=on\n"
         "                           each command's count and latency percentiles, after the report\n");
}

enum {
  O_UNLOGGED = 1, O_TABLESPACE, O_INDEX_TABLESPACE, O_SAMPLING_RATE, O_AGG_INTERVAL,
  O_PROGRESS_TIMESTAMP, O_LOG_PREFIX, O_FOREIGN_KEYS, O_RANDOM_SEED, O_SHOW_SCRIPT,
  O_PARTITIONS, O_PARTITION_METHOD, O_FAILURES_DETAILED, O_MAX_TRIES, O_VERBOSE_ERRORS
};

static const struct option long_options[] = {
  {"builtin", required_argument, NULL, 'b'}, {"client", required_argument, NULL, 'c'},
  {"connect", no_argument, NULL, 'C'}, {"debug", no_argument, NULL, 'd'},
  {"define", required_argument, NULL, 'D'}, {"file", required_argument, NULL, 'f'},
  {"fillfactor", required_argument, NULL, 'F'}, {"host", required_argument, NULL, 'h'},
  {"initialize", no_argument, NULL, 'i'}, {"init-steps", required_argument, NULL, 'I'},
  {"jobs", required_argument, NULL, 'j'}, {"log", no_argument, NULL, 'l'},
  {"latency-limit", required_argument, NULL, 'L'}, {"no-vacuum", no_argument, NULL, 'n'},
  {"port", required_argument, NULL, 'p'}, {"progress", required_argument, NULL, 'P'},
  {"protocol", required_argument, NULL, 'M'}, {"quiet", no_argument, NULL, 'q'},
  {"report-per-command", no_argument, NULL, 'r'}, {"rate", required_argument, NULL, 'R'},
  {"scale", required_argument, NULL, 's'}, {"select-only", no_argument, NULL, 'S'},
  {"skip-some-updates", no_argument, NULL, 'N'}, {"time", required_argument, NULL, 'T'},
  {"transactions", required_argument, NULL, 't'}, {"username", required_argument, NULL, 'U'},
  {"vacuum-all", no_argument, NULL, 'v'},
  {"unlogged-tables", no_argument, NULL, O_UNLOGGED},
  {"tablespace", required_argument, NULL, O_TABLESPACE},
  {"index-tablespace", required_argument, NULL, O_INDEX_TABLESPACE},
  {"sampling-rate", required_argument, NULL, O_SAMPLING_RATE},
  {"aggregate-interval", required_argument, NULL, O_AGG_INTERVAL},
  {"progress-timestamp", no_argument, NULL, O_PROGRESS_TIMESTAMP},
  {"log-prefix", required_argument, NULL, O_LOG_PREFIX},
  {"foreign-keys", no_argument, NULL, O_FOREIGN_KEYS},
  {"random-seed", required_argument, NULL, O_RANDOM_SEED},
  {"show-script", required_argument, NULL, O_SHOW_SCRIPT},
  {"partitions", required_argument, NULL, O_PARTITIONS},
  {"partition-method", required_argument, NULL, O_PARTITION_METHOD},
  {"failures-detailed", no_argument, NULL, O_FAILURES_DETAILED},
  {"max-tries", required_argument, NULL, O_MAX_TRIES},
  {"verbose-errors", no_argument, NULL, O_VERBOSE_ERRORS},
  {NULL, 0, NULL, 0}
};

typedef struct {
  bool bench_set, init_set;
} parse_state_t;

/* pgbench's set_random_seed: "time" (the default: the clock in
   microseconds), "rand" (the kernel's random bytes) or an unsigned
   integer; an explicit seed is announced on stderr. False after the
   message when `seed` is none of them. */
static bool set_random_seed(const char *seed)
{
  uint64_t v;
  if (seed == NULL || strcmp(seed, "time") == 0)
  {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
  }
  else if (strcmp(seed, "rand") == 0)
  {
    if (getrandom(&v, sizeof(v), 0) != (ssize_t) sizeof(v))
    {
      pgb_error("could not generate random seed");
      return false;
    }
  }
  else
  {
    char garbage;
    unsigned long long u;
    if (sscanf(seed, "%llu%c", &u, &garbage) != 1)
    {
      pgb_error("unrecognized random seed option \"%s\"", seed);
      fprintf(stderr, "pgbench: detail: Expecting an unsigned integer, \"time\" or \"rand\".\n");
      return false;
    }
    v = u;
  }
  if (seed != NULL)
    fprintf(stderr, "pgbench: setting random seed to %llu\n", (unsigned long long) v);
  pgb_cfg.random_seed = v;
  return true;
}

/* The options that take the run's values (the rest: parse_option). */
/* A positive number of atof(arg) or exit 1 with pgbench's "invalid
   WHAT: "ARG"". */
static double positive(const char *arg, const char *what)
{
  double v = atof(arg);
  if (v <= 0.0)
  {
    pgb_error("invalid %s: \"%s\"", what, arg);
    exit(1);
  }
  return v;
}

/* The options that pick the scripts and their variables. */
static bool parse_script_option(int c)
{
  char *name;
  int w;
  switch (c)
  {
    case 'b':
      if (strcmp(optarg, "list") == 0)
      {
        pgb_script_list();
        exit(0);
      }
      w = pgb_parse_weight(optarg, &name);
      pgb_script_add_builtin(name, w);
      free(name);
      pgb_cfg.internal_script_used = true;
      return true;
    case 'f':
      w = pgb_parse_weight(optarg, &name);
      pgb_script_add_file(name, w);
      free(name);
      return true;
    case 'S': case 'N':
      pgb_script_add_builtin(c == 'S' ? "select-only" : "simple-update", 1);
      pgb_cfg.internal_script_used = true;
      return true;
    case 'D':
    {
      char *eq = strchr(optarg, '=');
      if (eq == NULL || eq == optarg || eq[1] == '\0')
      {
        pgb_error("invalid variable definition: \"%s\"", optarg);
        exit(1);
      }
      pgb_cfg.defines = realloc(pgb_cfg.defines, (pgb_cfg.ndefines + 1) * sizeof(char *));
      pgb_cfg.defines[pgb_cfg.ndefines++] = optarg;
      return true;
    }
    case 'M':
      if (!pgb_parse_query_mode(optarg, &pgb_cfg.querymode))
      {
        pgb_error("invalid query mode (-M): \"%s\"", optarg);
        exit(1);
      }
      return true;
    case O_RANDOM_SEED:
      if (!set_random_seed(optarg))
      {
        pgb_error("error while setting random seed from --random-seed option");
        exit(1);
      }
      return true;
    default:
      return false;
  }
}

/* The transaction logs' options, retries and failures. */
static bool parse_log_option(int c)
{
  switch (c)
  {
    case 'l': pgb_cfg.use_log = true; return true;
    case O_SAMPLING_RATE:
      pgb_cfg.sample_rate = atof(optarg);
      if (pgb_cfg.sample_rate <= 0.0 || pgb_cfg.sample_rate > 1.0)
      {
        pgb_error("invalid sampling rate: \"%s\"", optarg);
        exit(1);
      }
      return true;
    case O_AGG_INTERVAL:
      pgb_cfg.agg_interval = parse_int(optarg, "--aggregate-interval", 1, INT_MAX);
      return true;
    case O_LOG_PREFIX: pgb_cfg.log_prefix = optarg; return true;
    case O_FAILURES_DETAILED: pgb_cfg.failures_detailed = true; return true;
    case O_VERBOSE_ERRORS: pgb_cfg.verbose_errors = true; return true;
    case O_MAX_TRIES:
      if (atoi(optarg) < 0)
      {
        pgb_error("invalid number of maximum tries: \"%s\"", optarg);
        exit(1);
      }
      pgb_cfg.max_tries = (uint32_t) atoi(optarg);
      return true;
    default:
      return false;
  }
}

/* The benchmarking options: true when `c` is one (ps->bench_set set). */
static bool parse_bench_option(int c, parse_state_t *ps)
{
  switch (c)
  {
    case 'c': pgb_cfg.nclients = parse_int(optarg, "-c/--client", 1, INT_MAX); break;
    case 'j': pgb_cfg.nthreads = parse_int(optarg, "-j/--jobs", 1, INT_MAX); break;
    case 't': pgb_cfg.nxacts = parse_int(optarg, "-t/--transactions", 1, INT_MAX); break;
    case 'T': pgb_cfg.duration = parse_int(optarg, "-T/--time", 1, INT_MAX); break;
    case 'P': pgb_cfg.progress = parse_int(optarg, "-P/--progress", 1, INT_MAX); break;
    case 'r': pgb_cfg.report_per_command = pgb_cfg.print_per_command = true; break;
    case 'v': pgb_cfg.vacuum_accounts = true; break;
    case 'C': pgb_cfg.is_connect = true; break;
    case O_PROGRESS_TIMESTAMP: pgb_cfg.progress_timestamp = true; break;
    case 'L': pgb_cfg.latency_limit_us = (int64_t) (positive(optarg, "latency limit") * 1000); break;
    case 'R': pgb_cfg.throttle_delay = 1000000.0 / positive(optarg, "rate limit"); break;
    default:
      if (!parse_script_option(c) && !parse_log_option(c))
        return false;
  }
  ps->bench_set = true;
  return true;
}

/* The initialisation options and the common ones. */
static void parse_option(int c, parse_state_t *ps)
{
  if (parse_bench_option(c, ps))
    return;
  switch (c)
  {
    case 'd': pgb_cfg.debug = true; break;
    case 'h': pgb_cfg.host = optarg; break;
    case 'p': pgb_cfg.port = optarg; break;
    case 'U': pgb_cfg.user = optarg; break;
    case 'i': pgb_cfg.init = true; break;
    case 'n': pgb_cfg.no_vacuum = true; break;
    case 's':
      pgb_cfg.scale_given = true;
      pgb_cfg.scale = parse_int(optarg, "-s/--scale", 1, INT_MAX);
      break;
    case O_SHOW_SCRIPT:
      pgb_script_show(optarg);
      exit(0);
    default:
      ps->init_set = true;
      switch (c)
      {
        case 'I':
          if (pgb_init_check_steps(optarg) != 0)
            exit(1);
          free(pgb_cfg.init_steps);
          pgb_cfg.init_steps = strdup(optarg);
          break;
        case 'F': pgb_cfg.fillfactor = parse_int(optarg, "-F/--fillfactor", 10, 100); break;
        case 'q': pgb_cfg.quiet = true; break;
        case O_UNLOGGED: pgb_cfg.unlogged = true; break;
        case O_FOREIGN_KEYS: pgb_cfg.foreign_keys = true; break;
        case O_PARTITIONS:
          pgb_cfg.partitions = parse_int(optarg, "--partitions", 0, INT_MAX);
          break;
        case O_PARTITION_METHOD:
          if (strcasecmp(optarg, "range") == 0)
            pgb_cfg.partition_method = "range";
          else if (strcasecmp(optarg, "hash") == 0)
            pgb_cfg.partition_method = "hash";
          else
          {
            pgb_error("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"",
                      optarg);
            exit(1);
          }
          break;
        case O_TABLESPACE: pgb_cfg.tablespace = optarg; break;
        case O_INDEX_TABLESPACE: pgb_cfg.index_tablespace = optarg; break;
        default:
          hint();
          exit(1);
      }
  }
}

/* The database name as pgbench 15 picks it: the first argument left,
   PGDATABASE, PGUSER, the OS user (its -d is --debug). */
static void pick_dbname(int argc, char **argv)
{
  const char *env;
  if (pgb_cfg.dbname == NULL)
  {
    if (argc > optind)
      pgb_cfg.dbname = argv[optind++];
    else if ((env = getenv("PGDATABASE")) != NULL && *env)
      pgb_cfg.dbname = env;
    else if ((env = getenv("PGUSER")) != NULL && *env)
      pgb_cfg.dbname = env;
    else
    {
      struct passwd *pw = getpwuid(geteuid());
      pgb_cfg.dbname = pw ? strdup(pw->pw_name) : "postgres";
    }
  }
  if (optind < argc)
  {
    pgb_error("too many command-line arguments (first is \"%s\")", argv[optind]);
    hint();
    exit(1);
  }
}

/* pgbench's error `msg`, exit 1. */
__attribute__((noreturn)) static void fail(const char *msg)
{
  pgb_error("%s", msg);
  exit(1);
}

/* pgbench's checks of the benchmarking options; exits 1. */
static void check_bench(void)
{
  if (pgb_cfg.nxacts > 0 && pgb_cfg.duration > 0)
  {
    pgb_error("specify either a number of transactions (-t) or a duration (-T), not both");
    exit(1);
  }
  if (pgb_cfg.nxacts <= 0 && pgb_cfg.duration <= 0)
    pgb_cfg.nxacts = 10;
  if (pgb_cfg.sample_rate > 0.0 && !pgb_cfg.use_log)
    fail("log sampling (--sampling-rate) is allowed only when logging transactions (-l)");
  if (pgb_cfg.sample_rate > 0.0 && pgb_cfg.agg_interval > 0)
    fail("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time");
  if (pgb_cfg.agg_interval > 0 && !pgb_cfg.use_log)
    fail("log aggregation is allowed only when actually logging transactions");
  if (!pgb_cfg.use_log && pgb_cfg.log_prefix)
    fail("log file prefix (--log-prefix) is allowed only when logging transactions (-l)");
  if (pgb_cfg.duration > 0 && pgb_cfg.agg_interval > pgb_cfg.duration)
  {
    pgb_error("number of seconds for aggregation (%d) must not be higher than test duration (%d)",
              pgb_cfg.agg_interval, pgb_cfg.duration);
    exit(1);
  }
  if (pgb_cfg.duration > 0 && pgb_cfg.agg_interval > 0 &&
      pgb_cfg.duration % pgb_cfg.agg_interval != 0)
  {
    pgb_error("duration (%d) must be a multiple of aggregation interval (%d)",
              pgb_cfg.duration, pgb_cfg.agg_interval);
    exit(1);
  }
  if (pgb_cfg.max_tries == 0 && pgb_cfg.latency_limit_us == 0 && pgb_cfg.duration <= 0)
    fail("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)");
  if (pgb_cfg.progress_timestamp && pgb_cfg.progress == 0)
  {
    pgb_error("--progress-timestamp is allowed only under --progress");
    exit(1);
  }
}

/* -i: pgbench's checks and the steps' list, then the steps. */
static int init_mode(bool bench_set)
{
  if (bench_set)
  {
    pgb_error("some of the specified options cannot be used in initialization (-i) mode");
    return 1;
  }
  if (pgb_cfg.partitions == 0 && pgb_cfg.partition_method)
  {
    pgb_error("--partition-method requires greater than zero --partitions");
    return 1;
  }
  if (pgb_cfg.partitions > 0 && pgb_cfg.partition_method == NULL)
    pgb_cfg.partition_method = "range";
  if (pgb_cfg.init_steps == NULL)
    pgb_cfg.init_steps = strdup("dtgvp");
  if (pgb_cfg.no_vacuum)
    for (char *p = pgb_cfg.init_steps; *p; p++)
      if (*p == 'v')
        *p = ' ';
  if (pgb_cfg.foreign_keys && strchr(pgb_cfg.init_steps, 'f') == NULL)
  {
    size_t n = strlen(pgb_cfg.init_steps);
    pgb_cfg.init_steps = realloc(pgb_cfg.init_steps, n + 2);
    strcpy(pgb_cfg.init_steps + n, "f");
  }
  return pgb_init_run();
}

int pgb_main(int argc, char **argv)
{
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-?") == 0))
  {
    usage();
    return 0;
  }
  if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0))
  {
    printf("pgbench (PostgreSQL) 15 (bmk %s)\n", sb_bmk_release());
    return 0;
  }
  memset(&pgb_cfg, 0, sizeof(pgb_cfg));
  pgb_cfg.nclients = pgb_cfg.nthreads = pgb_cfg.scale = 1;
  pgb_cfg.fillfactor = 100;
  pgb_cfg.max_tries = 1;
  parse_state_t ps = {false, false};
  int c;
  /* bmk's own options: out of pgbench's way, benchmarking mode's */
  if (pgb_additions_take(&argc, argv) != 0)
  {
    hint();
    return 1;
  }
  if (pgb_additions_count() > 0)
    ps.bench_set = true;
  if (!set_random_seed(getenv("PGBENCH_RANDOM_SEED")))
  {
    pgb_error("error while setting random seed from PGBENCH_RANDOM_SEED environment variable");
    return 1;
  }
  while ((c = getopt_long(argc, argv, "b:c:CdD:f:F:h:iI:j:lL:M:nNp:P:qrR:s:St:T:U:v",
                          long_options, NULL)) != -1)
  {
    if (c == '?')
    {
      hint();
      return 1;
    }
    parse_option(c, &ps);
  }
  if (pgb_cfg.nscripts == 0 && !pgb_cfg.init)
  {
    pgb_script_add_builtin("tpcb-like", 1);
    pgb_cfg.internal_script_used = true;
    ps.bench_set = true;
  }
  for (unsigned i = 0; i < pgb_cfg.nscripts; i++)
    pgb_cfg.total_weight += pgb_cfg.scripts[i].weight;
  if (pgb_cfg.total_weight == 0 && !pgb_cfg.init)
  {
    pgb_error("total script weight must not be zero");
    return 1;
  }
  pgb_cfg.per_script_stats = pgb_cfg.nscripts > 1;
  if (pgb_cfg.nthreads > pgb_cfg.nclients)
    pgb_cfg.nthreads = pgb_cfg.nclients;
  /* -R's delay is per thread: each thread schedules its share */
  pgb_cfg.throttle_delay *= pgb_cfg.nthreads;
  pick_dbname(argc, argv);

  if (pgb_cfg.init)
    return init_mode(ps.bench_set);
  if (ps.init_set)
  {
    pgb_error("some of the specified options cannot be used in benchmarking mode");
    return 1;
  }
  check_bench();
  return pgb_run();
}

int pgb_setup_driver(void)
{
  static bool done;
  if (done)
    return 0;
  done = true;
  sb_opt_init();
  log_set_verbosity(LOG_WARNING);
  if (db_register_options() != 0)
    return 1;
  const char *port = pgb_cfg.port ? pgb_cfg.port : getenv("PGPORT");
  sb_opt_set("db-driver", "pgsql");
  sb_opt_set("pgsql-host", pgb_cfg.host ? pgb_cfg.host : "");
  sb_opt_set("pgsql-port", port && *port ? port : "5432");
  sb_opt_set("pgsql-user", pgb_cfg.user ? pgb_cfg.user : "");
  sb_opt_set("pgsql-password", "");
  sb_opt_set("pgsql-db", pgb_cfg.dbname);
  sb_opt_set("pgsql-sslmode", "");  /* libpq's: PGSSLMODE, else prefer */
  db_set_application_name("pgbench");  /* pg_stat_activity's, as pgbench's */
  sb_opt_set("pgsql-ignore-errors", "40001,40P01");
  db_quiet_all_errors(1);
  return db_check_options();
}

/* The driver of every connection, created once by the first connect:
   that may be a client's, in its VU thread beside the others'
   (pthread_once: one creation, seen by all). */
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static db_driver_t *drv;

static void create_driver(void)
{
  /* bmk's face: the driver bmk's options configured (--db-driver) */
  drv = db_create(pgb_cfg.bmk_face ? NULL : "pgsql");
}

db_conn_t *pgb_connect(void)
{
  if (!pgb_cfg.bmk_face && pgb_setup_driver() != 0)
    return NULL;
  pthread_once(&drv_once, create_driver);
  if (drv == NULL)
    return NULL;
  db_conn_t *con;
  if (pgb_cfg.evloop && pgb_cfg.mysql)
  {
    /* on event loops: a MySQL connection the asynchronous forms may use
       must be opened by them (db_async.h); connected in place */
    con = db_connection_new(drv);
    int st = con ? db_connect_start(con) : DB_STEP_DONE;
    while (st == DB_STEP_WAIT)
      st = db_async_step(con, db_wait_ready(con));
    if (con && db_connect_finish(con) != 0)
      con = NULL;
  }
  else
    con = db_connection_create(drv);
  if (con == NULL)
  {
    const char *m = db_last_connect_errmsg();
    pgb_error("%s", m && *m ? m : "could not connect to the server");
    return NULL;
  }
  /* a client's wait on the loop costs less than a read that finds no
     answer yet, which after a send is the common case (measured: 1.73
     recv per select-only transaction with it, 1.00 without) */
  con->skip_early_read = true;
  return con;
}

int pgb_cmd_main(int argc, char **argv)
{
  return pgb_main(argc - 1, argv + 1);
}
