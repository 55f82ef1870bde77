/* --metrics-listen as an output of the engine: options, labels, the
   listening socket and the page every scrape gets; see
   metrics/sb_metrics.h and docs/metrics.md. */
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/sb_cmd_gauge.h"
#include "core/sb_logger.h"
#include "core/sb_options.h"
#include "core/sb_timer.h"
#include "metrics/sb_metrics.h"
#include "metrics/sb_metrics_cmd.h"
#include "metrics/sb_prom.h"

static const sb_option_t metrics_options[] = {
  { "metrics-listen", "serve live Prometheus metrics at http://ADDRESS:PORT/metrics "
    "(e.g. 127.0.0.1:9464, or :9464 on every address; docs/metrics.md)", NULL,
    SB_ARG_TYPE_STRING },
  { "metrics-linger", "after the final report, keep --metrics-listen up until a scrape has "
    "read the final numbers, at most this many seconds (when nothing scraped during the "
    "run, it closes at once)", "30", SB_ARG_TYPE_DOUBLE },
  { "tag", "labels of this run, key=value[,key=value...] (the metrics' labels)", NULL,
    SB_ARG_TYPE_LIST },
  { NULL, NULL, NULL, 0 }
};

int sb_metrics_register_options(void)
{
  return sb_opt_register_table(metrics_options, SB_GROUP_EXT_GENERAL, NULL);
}

/* ---- labels ------------------------------------------------------------- */

static bool label_key_ok(const char *k, size_t n)
{
  static const char *const own[] = { "test", "run_id", "host", "type", "kind", "class", "le" };
  if (n == 0 || isdigit((unsigned char) k[0]))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char) k[i]) && k[i] != '_')
      return false;
  if (n >= 2 && k[0] == '_' && k[1] == '_')
    return false;                       /* reserved by Prometheus */
  for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
    if (strlen(own[i]) == n && strncmp(own[i], k, n) == 0)
      return false;
  return true;
}

/* 0 when every item of tags[0..n) is a good label; else -1 after a FATAL. */
static int check_tag_list(char *const *items, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
  {
    const char *eq = items[i] ? strchr(items[i], '=') : NULL;
    if (eq == NULL || !label_key_ok(items[i], (size_t) (eq - items[i])))
    {
      log_text(LOG_FATAL, "--tag: '%s' is not key=value with a key of letters, digits and _ "
               "(not starting with a digit or __, and none of test, run_id, host, type, kind, "
               "class, le)", items[i] ? items[i] : "");
      return -1;
    }
  }
  return 0;
}

int sb_metrics_check_tags(void)
{
  unsigned n = 0;
  char **items = sb_opt_list("tag", &n);
  return check_tag_list(items, n);
}

/* The label text of every sample: test, run_id, host, then the tags
   (items[0..n), checked). */
static char run_id[64];

const char *sb_metrics_run_id(void)
{
  return run_id;
}

char *sb_metrics_labels(const char *test, char *const *items, unsigned n)
{
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  snprintf(run_id, sizeof(run_id), "%04d%02d%02dT%02d%02d%02dZ-%d", tm.tm_year + 1900,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int) getpid());
  size_t cap = 4096;
  char *l = calloc(1, cap);
  if (l == NULL)
    return NULL;
  const char *keys[3] = { "test", "run_id", "host" };
  const char *vals[3] = { test ? test : "", run_id, host };
  for (int i = 0; i < 3; i++)
  {
    snprintf(l + strlen(l), cap - strlen(l), "%s%s=\"", i ? "," : "", keys[i]);
    sb_prom_escape(l, cap - 2, vals[i]);
    strcat(l, "\"");
  }
  for (unsigned i = 0; i < n; i++)
  {
    const char *eq = strchr(items[i], '=');
    snprintf(l + strlen(l), cap - strlen(l), ",%.*s=\"", (int) (eq - items[i]), items[i]);
    if (!sb_prom_escape(l, cap - 2, eq + 1))
      break;
    strcat(l, "\"");
  }
  return l;
}

/* ---- the listening socket ----------------------------------------------- */

int sb_metrics_listen(const char *spec)
{
  char host[256];
  const char *colon = strrchr(spec, ':');
  const char *port = colon ? colon + 1 : NULL;
  if (colon == NULL || *port == '\0' || strspn(port, "0123456789") != strlen(port) ||
      (size_t) (colon - spec) >= sizeof(host))
  {
    log_text(LOG_FATAL, "--metrics-listen=%s: give ADDRESS:PORT, e.g. 127.0.0.1:9464, or "
             ":9464 for every address", spec);
    return -1;
  }
  size_t hl = (size_t) (colon - spec);
  memcpy(host, spec, hl);
  host[hl] = '\0';
  if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']')
  {
    memmove(host, host + 1, hl - 2);
    host[hl - 2] = '\0';
  }
  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
  struct addrinfo *res = NULL;
  int gai = getaddrinfo(*host ? host : NULL, port, &hints, &res);
  if (gai != 0)
  {
    log_text(LOG_FATAL, "--metrics-listen=%s: cannot resolve '%s': %s", spec, host,
             gai_strerror(gai));
    return -1;
  }
  int fd = -1, err = 0;
  for (struct addrinfo *a = res; a != NULL && fd < 0; a = a->ai_next)
  {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
    {
      err = errno;
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 64) != 0)
    {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd >= 0)
    return fd;
  if (err == EADDRINUSE)
    log_text(LOG_FATAL, "--metrics-listen=%s: the port is in use (another bmk or exporter "
             "there?); choose another port", spec);
  else if (err == EADDRNOTAVAIL)
    log_text(LOG_FATAL, "--metrics-listen=%s: '%s' is not an address of this host; give one "
             "of its own addresses, or :PORT for every address", spec, host);
  else if (err == EACCES)
    log_text(LOG_FATAL, "--metrics-listen=%s: not permitted (a port below 1024 needs root)",
             spec);
  else
    log_text(LOG_FATAL, "--metrics-listen=%s: cannot listen there: %s", spec, strerror(err));
  return -1;
}

/* ---- the output ------------------------------------------------------------ */

static struct {
  pthread_mutex_t mtx;
  sb_prom_t *prom;
  char *page_text, *page_om;   /* the rendered pages */
  size_t len_text, len_om;
  void *server;
  unsigned long scrapes, scrapes_after_end;
  bool ended;
  double linger_s;
  char *spec;
  char *labels;                /* the samples' labels, for the workload's own queries */
  /* what the endpoint costs bmk (CPU time, ns): adding and rendering in
     the reporter thread, and the HTTP server's thread as a whole (its
     thread clock, read at each scrape) */
  uint64_t render_cpu_ns, http_cpu_ns;
} m = { .mtx = PTHREAD_MUTEX_INITIALIZER };

/* The calling thread's CPU time so far, ns. */
static uint64_t thread_cpu_ns(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* Renders both pages from m.prom (the caller holds the lock). */
static void render_locked(void)
{
  size_t lt = 0, lo = 0;
  char *t = sb_prom_render(m.prom, false, &lt), *o = sb_prom_render(m.prom, true, &lo);
  if (t == NULL || o == NULL)
  {
    free(t);
    free(o);
    return;                   /* the last good pages stay */
  }
  free(m.page_text);
  free(m.page_om);
  m.page_text = t;
  m.page_om = o;
  m.len_text = lt;
  m.len_om = lo;
}

static char *(*extra_fn)(const char *labels, bool openmetrics, size_t *len);

void sb_metrics_extra_source(char *(*fn)(const char *labels, bool openmetrics, size_t *len))
{
  pthread_mutex_lock(&m.mtx);
  extra_fn = fn;
  pthread_mutex_unlock(&m.mtx);
}

/* A malloc'd copy of the rendered page `src` (`n` bytes) with, when
   the workload times queries of its own (core/sb_cmd_gauge.h), their
   live numbers added, and a workload's own families
   (sb_metrics_extra_source), both before OpenMetrics' # EOF. Caller
   holds m.mtx. */
static char *page_copy(const char *src, size_t n, bool om, size_t *len)
{
  const char *prefix = sb_cmd_gauge_prefix();
  size_t gl = 0, xl = 0;
  char *g = prefix && m.labels ? sb_metrics_cmd_gauge_text(prefix, m.labels, om, &gl) : NULL;
  char *x = extra_fn && m.labels ? extra_fn(m.labels, om, &xl) : NULL;
  if (g == NULL)
    gl = 0;
  if (x == NULL)
    xl = 0;
  static const char eof[] = "# EOF\n";
  size_t head = n;
  if ((g || x) && om && n >= sizeof(eof) - 1 && strcmp(src + n - (sizeof(eof) - 1), eof) == 0)
    head = n - (sizeof(eof) - 1);
  char *copy = malloc(n + gl + xl + 1);
  if (copy)
  {
    memcpy(copy, src, head);
    if (g)
      memcpy(copy + head, g, gl);
    if (x)
      memcpy(copy + head + gl, x, xl);
    memcpy(copy + head + gl + xl, src + head, n - head + 1);
    *len = n + gl + xl;
  }
  free(g);
  free(x);
  return copy;
}

static char *serve_page(bool openmetrics, size_t *len, const char **type)
{
  pthread_mutex_lock(&m.mtx);
  const char *src = openmetrics ? m.page_om : m.page_text;
  size_t n = openmetrics ? m.len_om : m.len_text;
  char *copy = src ? page_copy(src, n, openmetrics, len) : NULL;
  if (copy)
  {
    m.http_cpu_ns = thread_cpu_ns();
    m.scrapes++;
    if (m.ended)
      m.scrapes_after_end++;
  }
  pthread_mutex_unlock(&m.mtx);
  *type = sb_metrics_content_type(openmetrics);
  return copy;
}

static int out_interval(void *ctx, const sb_out_interval_t *iv)
{
  (void) ctx;
  uint64_t t0 = thread_cpu_ns();
  pthread_mutex_lock(&m.mtx);
  sb_prom_add_interval(m.prom, iv);
  render_locked();
  m.render_cpu_ns += thread_cpu_ns() - t0;
  pthread_mutex_unlock(&m.mtx);
  return 0;
}

static int out_end(void *ctx, const sb_out_end_t *e)
{
  (void) ctx;
  uint64_t t0 = thread_cpu_ns();
  pthread_mutex_lock(&m.mtx);
  sb_prom_set_end(m.prom, e);
  render_locked();
  m.render_cpu_ns += thread_cpu_ns() - t0;
  m.ended = true;
  pthread_mutex_unlock(&m.mtx);
  return 0;
}

void sb_metrics_linger(double linger_s, const char *spec, bool (*scraped)(void))
{
  log_text(LOG_NOTICE, "Metrics: waiting up to %.0f s for a last scrape of %s "
           "(--metrics-linger)", linger_s, spec);
  uint64_t until = sb_now_ns() + (uint64_t) (linger_s * 1e9);
  while (!scraped() && sb_now_ns() < until)
    sb_sleep_until_ns(sb_now_ns() + 50 * NS_PER_MS);
}

const char *sb_metrics_content_type(bool openmetrics)
{
  return openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                     : "text/plain; version=0.0.4; charset=utf-8";
}

int sb_metrics_check_linger(double linger_s)
{
  if (linger_s >= 0 && linger_s <= 86400)
    return 0;
  log_text(LOG_FATAL, "Invalid value for --metrics-linger: %g (seconds, 0 to 86400)", linger_s);
  return -1;
}

/* A scrape has read the final page (sb_metrics_linger's test). */
static bool scraped_after_end(void)
{
  pthread_mutex_lock(&m.mtx);
  bool done = m.scrapes_after_end > 0;
  pthread_mutex_unlock(&m.mtx);
  return done;
}

/* Keeps serving until a scrape read the final page (when anything scraped
   during the run), at most --metrics-linger seconds. */
static void out_close(void *ctx)
{
  (void) ctx;
  pthread_mutex_lock(&m.mtx);
  bool wait = m.ended && m.scrapes > 0 && m.scrapes_after_end == 0 && m.linger_s > 0;
  pthread_mutex_unlock(&m.mtx);
  if (wait)
    sb_metrics_linger(m.linger_s, m.spec, scraped_after_end);
  sb_metrics_http_stop(m.server);
  m.server = NULL;
  pthread_mutex_lock(&m.mtx);
  log_text(LOG_NOTICE, "Metrics: %lu scrape(s) served; the endpoint used %.3f s of CPU "
           "(rendering %.3f s, HTTP server %.3f s)", m.scrapes,
           (double) (m.render_cpu_ns + m.http_cpu_ns) / 1e9, (double) m.render_cpu_ns / 1e9,
           (double) m.http_cpu_ns / 1e9);
  sb_prom_free(m.prom);
  m.prom = NULL;
  free(m.page_text);
  free(m.page_om);
  m.page_text = m.page_om = NULL;
  free(m.spec);
  free(m.labels);
  m.spec = m.labels = NULL;
  pthread_mutex_unlock(&m.mtx);
}

int sb_metrics_output(const char *test, unsigned vus, double rate, sb_output_t *out)
{
  const char *spec = sb_opt_str("metrics-listen");
  if (spec == NULL || *spec == '\0')
    return 0;
  unsigned n = 0;
  char **items = sb_opt_list("tag", &n);
  return sb_metrics_output_at(spec, sb_opt_double("metrics-linger"), items, n, test, vus, rate,
                              out) == 0 ? 1 : -1;
}

int sb_metrics_output_at(const char *spec, double linger_s, char *const *tags, unsigned ntags,
                         const char *test, unsigned vus, double rate, sb_output_t *out)
{
  if (check_tag_list(tags, ntags) != 0)
    return -1;
  m.linger_s = linger_s;
  if (sb_metrics_check_linger(linger_s) != 0)
    return -1;
  int fd = sb_metrics_listen(spec);
  if (fd < 0)
    return -1;
  char *labels = sb_metrics_labels(test, tags, ntags);
  m.prom = labels ? sb_prom_new(labels) : NULL;
  m.labels = labels;
  if (m.prom == NULL)
  {
    free(labels);
    m.labels = NULL;
    log_text(LOG_FATAL, "--metrics-listen: out of memory");
    close(fd);
    return -1;
  }
  sb_prom_set_config(m.prom, vus, rate);
  render_locked();
  m.spec = strdup(spec);
  m.scrapes = m.scrapes_after_end = 0;
  m.render_cpu_ns = m.http_cpu_ns = 0;
  m.ended = false;
  m.server = sb_metrics_http_start(fd, serve_page);
  if (m.server == NULL)
  {
    sb_prom_free(m.prom);
    m.prom = NULL;
    free(m.labels);
    m.labels = NULL;
    return -1;
  }
  log_text(LOG_NOTICE, "Metrics: run_id %s at http://%s/metrics", run_id, spec);
  *out = (sb_output_t) { .name = "--metrics-listen", .interval = out_interval,
                         .end = out_end, .close = out_close, .ctx = NULL };
  return 0;
}
