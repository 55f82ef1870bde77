/* `bmk cluster run`'s options, hosts file and launcher command lines;
   see cli/sb_cluster_priv.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/sb_command_usage.h"
#include "commands/cluster/sb_cluster_priv.h"
#include "core/sb_logger.h"

const char cluster_opts_usage[] =
  "usage: bmk cluster run --hosts=FILE [--launcher=TEMPLATE] [--remote-bmk=PATH | --copy-bmk=FILE]\n"
  "           [--copy-script] [--remote-cache=DIR]\n"
  "           [--cluster-on-failure=continue|stop] [--cluster-verbose] [--results=FILE]\n"
  "           [--html=FILE] [--save] [--results-db=FILE]\n"
  "           [--max-clock-offset=MS] [--ready-timeout=S] [--cluster-timeout=S]\n"
  "           [--metrics-listen=ADDR:PORT] [--metrics-linger=S]\n"
  "           -- <bmk run arguments>   (or a workload's prepare: split over the processes)\n"
  "           -- kit NAME USERS SECONDS [options]   (a kit plan: USERS VUs per process)\n"
  "  --hosts=FILE        one entry per line: HOST [PROCESSES] (default 1; '#' comments)\n"
  "  --launcher=T        command starting a process on {host}; default: ssh -o BatchMode=yes\n"
  "                      with one multiplexed connection per host; 'local': on this host\n"
  "  --remote-bmk=PATH   the bmk to run on the hosts (default: this binary's path)\n"
  "  --copy-bmk=FILE     copy FILE (the static bmk-x64 of this release) to each host's\n"
  "                      --remote-cache (default .cache/bmk, in the login's home) unless\n"
  "                      there, and run it; implies --copy-script\n"
  "  --copy-script       copy a workload given as a file, with every .lua file beside it,\n"
  "                      to each host's --remote-cache/scripts/HASH and run that copy\n"
  "  --cluster-on-failure=continue|stop  a process lost mid-run: go on (default) or stop all\n"
  "  --cluster-verbose   a line per process under each merged interval line\n"
  "  --results=FILE      the merged run's document (--results layout: the processes'\n"
  "                      documents merged exactly, plus a \"cluster\" section)\n"
  "  --html=FILE         the merged run's charts (as bmk report --html)\n"
  "  --save, --results-db=FILE  store the merged run as one run (docs/results-db.md;\n"
  "                      also when $BMK_RESULTS_DB is set)\n"
  "  --max-clock-offset=MS  refuse hosts whose clock is further off (default 50)\n"
  "  --ready-timeout=S   how long the processes may take to connect and init (default 120)\n"
  "  --cluster-timeout=S a running process silent this long is lost (default 10)\n"
  "  --metrics-listen=ADDR:PORT  serve the merged live metrics of every process here\n"
  "                      (Prometheus; one scrape target for the run; docs/metrics.md)\n"
  "  --metrics-linger=S  after the report, wait up to S s for a last scrape (default 30)\n"
  "  A --metrics-listen=ADDR:PORT among the run arguments gives each process its own\n"
  "  endpoint on PORT + its slot on its host (PORT, PORT+1, ...).\n"
  "See docs/cluster.md.\n";

static int bad(const char *fmt, const char *a)
{
  char msg[512];
  snprintf(msg, sizeof(msg), fmt, a);
  return sb_command_usage_error("bmk cluster run", cluster_opts_usage, "%s", msg);
}

/* The run arguments' values the coordinator needs too. */
static void scan_run_args(cl_opts_t *o)
{
  o->interval_s = 1;
  o->threads = 1;
  o->percentile = 95;
  for (int i = 0; i < o->nargs; i++)
  {
    const char *a = o->args[i];
    if (strncmp(a, "--report-interval=", 18) == 0 && atof(a + 18) > 0)
    {
      o->interval_s = atof(a + 18);
      o->intervals = true;
    }
    else if (strncmp(a, "--threads=", 10) == 0 && atoi(a + 10) > 0)
      o->threads = (unsigned) atoi(a + 10);
    else if (strncmp(a, "--warmup-time=", 14) == 0)
      o->warmup_s = atof(a + 14);
    else if (strncmp(a, "--rate=", 7) == 0)
      o->rate = atof(a + 7);
    else if (strncmp(a, "--metrics-listen=", 17) == 0 && a[17])
      o->proc_metrics = a + 17;
    else if (strncmp(a, "--percentile=", 13) == 0)
      o->percentile = (unsigned) atoi(a + 13);
    else if (strncmp(a, "--results=", 10) == 0 && o->results == NULL)
      o->results = a + 10;
    else if (strcmp(a, "--save") == 0 || strcmp(a, "--save=on") == 0)
      o->save = true;
    else if (strncmp(a, "--results-db=", 13) == 0 && a[13])
    {
      o->save = true;
      if (o->results_db == NULL)
        o->results_db = a + 13;
    }
  }
}

int cluster_opts_parse_opts(int argc, char **argv, cl_opts_t *o)
{
  memset(o, 0, sizeof(*o));
  o->max_offset_ms = 50;
  o->ready_timeout_s = 120;
  o->silence_s = 10;
  o->metrics_linger = 30;
  if (argc < 3 || strcmp(argv[2], "run") != 0)
    return bad("%s", "the only subcommand is 'run'");
  int i = 3;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++)
  {
    const char *a = argv[i], *v = strchr(a, '=');
    v = v ? v + 1 : "";
    if (strncmp(a, "--hosts=", 8) == 0)
      o->hosts = v;
    else if (strncmp(a, "--launcher=", 11) == 0)
      o->launcher = v;
    else if (strncmp(a, "--remote-bmk=", 13) == 0)
      o->remote_bmk = v;
    else if (strncmp(a, "--results=", 10) == 0)
      o->results = v;
    else if (strncmp(a, "--html=", 7) == 0)
      o->html = v;
    else if (strcmp(a, "--save") == 0 || strcmp(a, "--save=on") == 0)
      o->save = true;
    else if (strncmp(a, "--results-db=", 13) == 0)
    {
      o->results_db = v;
      o->save = true;
    }
    else if (strncmp(a, "--copy-bmk=", 11) == 0)
      o->copy_bmk = v;
    else if (strncmp(a, "--remote-cache=", 15) == 0)
      o->remote_cache = v;
    else if (strcmp(a, "--copy-script") == 0)
      o->copy_script = true;
    else if (strcmp(a, "--cluster-verbose") == 0)
      o->verbose = true;
    else if (strncmp(a, "--cluster-on-failure=", 21) == 0)
    {
      if (strcmp(v, "stop") != 0 && strcmp(v, "continue") != 0)
        return bad("--cluster-on-failure=%s: give continue or stop", v);
      o->stop_on_failure = strcmp(v, "stop") == 0;
    }
    else if (strncmp(a, "--max-clock-offset=", 19) == 0)
      o->max_offset_ms = atof(v);
    else if (strncmp(a, "--ready-timeout=", 16) == 0)
      o->ready_timeout_s = atof(v);
    else if (strncmp(a, "--metrics-listen=", 17) == 0 && *v)
      o->metrics_listen = v;
    else if (strncmp(a, "--metrics-linger=", 17) == 0)
    {
      char *end;
      o->metrics_linger = strtod(v, &end);
      if (end == v || *end || !(o->metrics_linger >= 0) || o->metrics_linger > 86400)
        return bad("--metrics-linger=%s: give seconds, 0 to 86400", v);
    }
    else if (strncmp(a, "--cluster-timeout=", 18) == 0)
    {
      o->silence_s = atof(v);
      if (!(o->silence_s > 0))
        return bad("--cluster-timeout=%s: give seconds > 0", v);
    }
    else
      return bad("unknown option %s (the bmk run arguments come after --)", a);
  }
  if (o->hosts == NULL || !*o->hosts)
    return bad("%s", "--hosts=FILE is required");
  if (i >= argc - 1)
    return bad("%s", "no bmk run arguments after --");
  o->args = argv + i + 1;
  o->nargs = argc - i - 1;
  o->command = strcmp(o->args[o->nargs - 1], "prepare") == 0;
  scan_run_args(o);
  if (o->proc_metrics)
  {
    const char *colon = strrchr(o->proc_metrics, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (colon == NULL || end == colon + 1 || *end || port < 1 || port > 65535)
      return bad("--metrics-listen=%s (a run argument): give ADDRESS:PORT; each process "
                 "listens on PORT plus its slot on its host", o->proc_metrics);
  }
  const char *env = getenv("BMK_RESULTS_DB");
  if (env && *env)
    o->save = true;
  return 0;
}

/* One hosts-file entry into c->p. Returns 0, or 1 (message printed). */
static int add_entry(cl_t *c, const char *file, int lineno, char *line, int *first_line)
{
  char host[64] = "", extra[64] = "";
  long procs = 1;
  char pbuf[32] = "";
  int n = sscanf(line, "%63s %31s %63s", host, pbuf, extra);
  if (n <= 0)
    return 0;
  if (n == 3)
  {
    log_text(LOG_FATAL, "%s line %d: '%s': expected HOST [PROCESSES]", file, lineno, line);
    return 1;
  }
  for (const char *h = host; *h; h++)
    if (!isalnum((unsigned char) *h) && !strchr(".-_@:[]", *h))
    {
      log_text(LOG_FATAL, "%s line %d: '%s' is not a host name", file, lineno, host);
      return 1;
    }
  if (n == 2)
  {
    char *end;
    procs = strtol(pbuf, &end, 10);
    if (*end || procs < 1 || procs > 256)
    {
      log_text(LOG_FATAL, "%s line %d: '%s': the process count must be 1 to 256", file,
               lineno, pbuf);
      return 1;
    }
  }
  for (unsigned i = 0; i < c->n; i++)
    if (strcmp(c->p[i].host, host) == 0)
    {
      log_text(LOG_FATAL, "%s line %d: host '%s' is already listed on line %d: its process "
               "slots would be started twice; give one entry 'HOST PROCESSES'", file, lineno,
               host, first_line[i]);
      return 1;
    }
  for (long s = 0; s < procs; s++)
  {
    if (c->n >= MAX_PROCS)
    {
      log_text(LOG_FATAL, "%s: more than %d processes", file, MAX_PROCS);
      return 1;
    }
    cluster_proc_t *p = &c->p[c->n];
    memset(p, 0, sizeof(*p));
    snprintf(p->host, sizeof(p->host), "%s", host);
    p->slot = (unsigned) s;
    snprintf(p->name, sizeof(p->name), "%s#%ld", host, s);
    p->in_fd = p->out_fd = -1;
    first_line[c->n++] = lineno;
  }
  return 0;
}

int cluster_opts_read_hosts(cl_t *c)
{
  FILE *f = fopen(c->o.hosts, "r");
  if (f == NULL)
  {
    log_text(LOG_FATAL, "cannot read the hosts file %s: %s", c->o.hosts, strerror(errno));
    return 1;
  }
  c->p = calloc(MAX_PROCS, sizeof(*c->p));
  int *first = calloc(MAX_PROCS, sizeof(int));
  char line[512];
  int lineno = 0, rc = c->p && first ? 0 : 1;
  while (rc == 0 && fgets(line, sizeof(line), f))
  {
    lineno++;
    line[strcspn(line, "#\r\n")] = '\0';
    rc = add_entry(c, c->o.hosts, lineno, line, first);
  }
  fclose(f);
  free(first);
  if (rc == 0 && c->n == 0)
  {
    log_text(LOG_FATAL, "the hosts file %s lists no host", c->o.hosts);
    rc = 1;
  }
  return rc;
}

/* Appends `w` to the growing argv (*v, *n); 0 or -1 on OOM. */
static int push(char ***v, size_t *n, char *w)
{
  char **nv = realloc(*v, (*n + 2) * sizeof(char *));
  if (nv == NULL || w == NULL)
  {
    if (nv)
      *v = nv;
    return -1;
  }
  *v = nv;
  nv[(*n)++] = w;
  nv[*n] = NULL;
  return 0;
}

/* `tmpl` with every {host} replaced by `host` (malloc'd). */
static char *subst_host(const char *tmpl, const char *host)
{
  size_t cap = strlen(tmpl) * 2 + strlen(host) * 4 + 1, o = 0;
  char *r = malloc(cap);
  if (r == NULL)
    return NULL;
  for (const char *s = tmpl; *s;)
  {
    if (strncmp(s, "{host}", 6) == 0 && o + strlen(host) < cap)
    {
      o += (size_t) sprintf(r + o, "%s", host);
      s += 6;
    }
    else if (o + 1 < cap)
      r[o++] = *s++;
    else
      break;
  }
  r[o] = '\0';
  return r;
}

/* The launcher's words for p, then the remote bmk's (shell-quoted when
   the launcher is ssh, which hands one command line to the remote
   shell). NULL on OOM. */
char **cluster_opts_launch_argv(cl_t *c, const char *host, char *const *words, int nwords)
{
  char **v = NULL;
  size_t n = 0;
  char tmpl[1024];
  if (c->o.launcher == NULL)
    snprintf(tmpl, sizeof(tmpl), "ssh -o BatchMode=yes -o ServerAliveInterval=5 "
             "-o ControlMaster=auto -o ControlPath=%s/cm-%%C -o ControlPersist=no {host}", c->dir);
  else
    snprintf(tmpl, sizeof(tmpl), "%s", strcmp(c->o.launcher, "local") == 0 ? "" : c->o.launcher);
  char *save = NULL;
  for (char *w = strtok_r(tmpl, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
    if (push(&v, &n, subst_host(w, host)) != 0)
      goto oom;
  const char *base = n ? strrchr(v[0], '/') : NULL;
  bool quote = n && strcmp(base ? base + 1 : v[0], "ssh") == 0;
  for (int i = 0; i < nwords; i++)
    if (push(&v, &n, quote ? cluster_proc_shell_quote(words[i]) : strdup(words[i])) != 0)
      goto oom;
  return v;
oom:
  cluster_opts_free_argv(v);
  return NULL;
}

/* "--metrics-listen=ADDR:PORT+slot" for a process (malloc'd; the port
   checked when the options were read), so two processes of one host do
   not ask for the same port. */
static char *proc_metrics_arg(const char *spec, unsigned slot)
{
  const char *colon = strrchr(spec, ':');
  char *s = NULL;
  if (asprintf(&s, "--metrics-listen=%.*s:%ld", (int) (colon - spec), spec,
               strtol(colon + 1, NULL, 10) + (long) slot) < 0)
    return NULL;
  return s;
}

char **cluster_opts_build_argv(cl_t *c, const cluster_proc_t *p, unsigned index)
{
  char **w = NULL, buf[64];
  size_t n = 0;
  int ok = 1;
  if (c->lua_path)             /* the copied script's modules (--copy-script) */
    ok = push(&w, &n, strdup("env")) == 0 && push(&w, &n, strdup(c->lua_path)) == 0;
  ok = ok && push(&w, &n, strdup(c->o.remote_bmk)) == 0;
  for (int i = 0; ok && i < c->o.nargs; i++)
    if (strncmp(c->o.args[i], "--metrics-listen=", 17) == 0 && c->o.proc_metrics)
      ok = push(&w, &n, proc_metrics_arg(c->o.proc_metrics, p->slot)) == 0;
    else if (strncmp(c->o.args[i], "--results=", 10) != 0 &&
        strncmp(c->o.args[i], "--hdr-log=", 10) != 0 &&
        strncmp(c->o.args[i], "--save", 6) != 0 &&          /* the coordinator saves */
        strncmp(c->o.args[i], "--results-db=", 13) != 0)
      ok = push(&w, &n, strdup(c->o.args[i])) == 0;
  /* each process would sample the server by itself: off unless asked */
  static const char *const per_server[] = { "--db-server-stats", "--server-cost" };
  for (size_t k = 0; k < 2; k++)
  {
    bool given = false;
    for (int i = 0; i < c->o.nargs; i++)
      given = given || strncmp(c->o.args[i], per_server[k], strlen(per_server[k])) == 0;
    snprintf(buf, sizeof(buf), "%s=off", per_server[k]);
    if (!given && !c->o.command)
      ok = ok && push(&w, &n, strdup(buf)) == 0;
  }
  snprintf(buf, sizeof(buf), "--cluster-index=%u", index);
  ok = ok && push(&w, &n, strdup(buf)) == 0;
  snprintf(buf, sizeof(buf), "--cluster-size=%u", c->n);
  ok = ok && push(&w, &n, strdup(buf)) == 0;
  if (!c->o.command)
    ok = ok && push(&w, &n, strdup("--cluster-stream")) == 0;
  char **v = ok ? cluster_opts_launch_argv(c, p->host, w, (int) n) : NULL;
  cluster_opts_free_argv(w);
  return v;
}

void cluster_opts_free_argv(char **v)
{
  for (size_t i = 0; v && v[i]; i++)
    free(v[i]);
  free(v);
}

/* ---- -- kit NAME USERS SECONDS [options] ------------------------------------- */

/* Splits `line` (words as `bmk kit explain` prints them: bare, or in
   single quotes with ' written '\'') into a malloc'd NULL-terminated
   array; NULL on OOM or an unterminated quote. */
static char **shell_words(const char *line)
{
  char **v = NULL;
  size_t n = 0;
  char *w = malloc(strlen(line) + 1);
  if (w == NULL)
    return NULL;
  const char *p = line;
  for (;;)
  {
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (!*p)
      break;
    size_t len = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
    {
      if (*p != '\'')
      {
        w[len++] = *p++;
        continue;
      }
      for (p++; *p && *p != '\''; p++)
        w[len++] = *p;
      if (*p != '\'')
      {
        cluster_opts_free_argv(v);
        free(w);
        return NULL;
      }
      p++;
    }
    w[len] = '\0';
    if (push(&v, &n, strdup(w)) != 0)
    {
      cluster_opts_free_argv(v);
      free(w);
      return NULL;
    }
  }
  free(w);
  return v;
}

int cluster_opts_expand_kit(cl_opts_t *o, const char *self)
{
  if (o->nargs < 1 || strcmp(o->args[0], "kit") != 0)
    return 0;
  /* `bmk kit explain NAME USERS SECONDS [options]`: the plan's command */
  size_t len = strlen(self) + 32;
  for (int i = 1; i < o->nargs; i++)
    len += strlen(o->args[i]) * 4 + 3;
  char *cmd = malloc(len), *q;
  if (cmd == NULL)
    return 1;
  snprintf(cmd, len, "%s kit explain", q = cluster_proc_shell_quote(self));
  free(q);
  for (int i = 1; i < o->nargs; i++)
  {
    q = cluster_proc_shell_quote(o->args[i]);
    snprintf(cmd + strlen(cmd), len - strlen(cmd), " %s", q ? q : "''");
    free(q);
  }
  FILE *f = popen(cmd, "r");
  char line[16384] = "", extra[16] = "";
  int lines = 0;
  if (f)
  {
    char buf[16384];
    while (fgets(buf, sizeof(buf), f))
      if (lines++ == 0)
        snprintf(line, sizeof(line), "%s", buf);
      else
        snprintf(extra, sizeof(extra), "more");
  }
  int st = f ? pclose(f) : -1;
  free(cmd);
  if (st != 0 || lines == 0)
  {
    log_text(LOG_FATAL, "cluster: -- kit %s: 'bmk kit explain' found no plan for it (see its "
             "message above); give a kit name with USERS and SECONDS",
             o->nargs > 1 ? o->args[1] : "");
    return 1;
  }
  if (extra[0])
  {
    log_text(LOG_FATAL, "cluster: -- kit %s: its plan has more than one process (sb11_MAX "
             "split, or a prepare with its steps): give fewer USERS per process, or the "
             "bmk command lines of 'bmk kit explain' after -- yourself", o->args[1]);
    return 1;
  }
  char **w = shell_words(line);
  int nw = 0;
  while (w && w[nw])
    nw++;
  if (nw < 3)
  {
    cluster_opts_free_argv(w);
    log_text(LOG_FATAL, "cluster: -- kit: unreadable plan line: %.200s", line);
    return 1;
  }
  /* the words after the bmk path; MYSQL_PWD=*** style assignments first
     (the password stays in this environment's variables: give
     --mysql-password / --pgsql-password after the kit arguments) */
  int first = 0;
  while (first < nw - 1 && strchr(w[first], '=') && w[first][0] != '-')
    first++;
  /* the plan passes passwords in MYSQL_PWD / PGPASSWORD (shown as ***),
     which do not reach the hosts: the processes get the password options
     given with the kit arguments */
  for (int i = 2; i < o->nargs; i++)
    if (strncmp(o->args[i], "--mysql-password=", 17) == 0 ||
        strncmp(o->args[i], "--pgsql-password=", 17) == 0)
    {
      size_t wn = (size_t) nw;
      char *last = w[nw - 1];           /* the command stays last */
      w[nw - 1] = strdup(o->args[i]);
      if (w[nw - 1] == NULL || push(&w, &wn, last) != 0)
      {
        cluster_opts_free_argv(w);
        return 1;
      }
      nw = (int) wn;
    }
  o->kit_argv = w;
  o->args = w + first + 1;
  o->nargs = nw - first - 1;
  o->command = strcmp(o->args[o->nargs - 1], "prepare") == 0;
  scan_run_args(o);
  return 0;
}
