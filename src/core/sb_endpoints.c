/* --endpoints=FILE: the endpoints table and routing; see core/sb_endpoints.h
   and docs/endpoints.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <pthread.h>

#include <jansson.h>

#include "core/sb_endpoints.h"
#include "core/sb_histogram.h"
#include "core/sb_logger.h"
#include "core/sb_rand.h"

/* A route: a name and the endpoints it may go to (an endpoint, or every
   endpoint of a role in file order), and how it picks one. */
typedef struct {
  char *key;
  unsigned *members;
  unsigned nmembers;
  sb_ep_choice_t choice;
  unsigned cursor;              /* round robin (atomic) */
} route_t;

static sb_endpoint_t *eps;
static unsigned neps;
static route_t *routes;
static unsigned nroutes;

static const char *file_path;  /* for messages while loading */
static char *file_text;         /* the file, for the line of a message */
static int err_line;            /* the line the next message names, 0: none */

/* The line of the first `needle` at or after the nth (1-based)
   occurrence of `anchor` (NULL: the file's start) in the file's text; 0
   when not found. A hint for messages: JSON has no line numbers once
   parsed, so the text is searched for the quoted key. */
static int line_of(const char *anchor, unsigned nth, const char *needle)
{
  if (file_text == NULL)
    return 0;
  const char *p = file_text;
  for (unsigned i = 0; anchor != NULL && i < nth && p != NULL; i++)
    if ((p = strstr(i ? p + 1 : p, anchor)) == NULL)
      return 0;
  const char *q = strstr(p, needle);
  if (q == NULL)
    return 0;
  int line = 1;
  for (const char *c = file_text; c < q; c++)
    line += *c == '\n';
  return line;
}

/* "\"s\"" into buf (a quoted key or value to search for). */
static const char *quoted(char *buf, size_t len, const char *s)
{
  snprintf(buf, len, "\"%s\"", s);
  return buf;
}

/* Prints "FATAL: --endpoints FILE: [line N: ]<where>: <message>" (the
   line when err_line was set for it). Returns 1. */
static int bad(const char *where, const char *fmt, ...)
{
  char msg[512], line[32] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (err_line > 0)
    snprintf(line, sizeof(line), "line %d: ", err_line);
  log_text(LOG_FATAL, "--endpoints %s: %s%s: %s", file_path, line, where, msg);
  err_line = 0;
  return 1;
}

/* The first line of `path` (the password), or NULL with *err set. */
static char *read_password_file(const char *path, const char **err)
{
  FILE *f = fopen(path, "r");
  if (f == NULL)
  {
    *err = strerror(errno);
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077) != 0)
    log_text(LOG_WARNING, "--endpoints: the password file %s is readable by others "
             "(chmod 600 %s)", path, path);
  char buf[1024];
  if (fgets(buf, sizeof(buf), f) == NULL)
    buf[0] = '\0';
  fclose(f);
  buf[strcspn(buf, "\r\n")] = '\0';
  return strdup(buf);
}

/* A string member `key` of `obj` into *out (absent: untouched). */
static int get_str(json_t *obj, const char *key, const char *where, char **out)
{
  json_t *v = json_object_get(obj, key);
  if (v == NULL)
    return 0;
  if (!json_is_string(v))
    return bad(where, "\"%s\" must be a string", key);
  *out = strdup(json_string_value(v));
  return 0;
}

static int parse_tls(json_t *tls, const char *where, sb_endpoint_t *ep)
{
  char w[160];
  snprintf(w, sizeof(w), "%s.tls", where);
  if (!json_is_object(tls))
    return bad(w, "must be an object with mode, ca, cert, key");
  const char *key;
  json_t *v;
  json_object_foreach(tls, key, v)
  {
    if (strcmp(key, "mode") && strcmp(key, "ca") && strcmp(key, "cert") && strcmp(key, "key"))
      return bad(w, "unknown key \"%s\" (known: mode, ca, cert, key)", key);
  }
  return get_str(tls, "mode", w, &ep->tls_mode) || get_str(tls, "ca", w, &ep->tls_ca) ||
    get_str(tls, "cert", w, &ep->tls_cert) || get_str(tls, "key", w, &ep->tls_key);
}

static const char *const ep_keys[] = {
  "name", "driver", "host", "port", "socket", "user", "password_env", "password_file",
  "database", "role", "tls", "standby_name", NULL
};

/* The password of endpoint `ep` from password_env or password_file. */
static int parse_password(json_t *o, const char *w, sb_endpoint_t *ep)
{
  char *env = NULL, *file = NULL;
  if (get_str(o, "password_env", w, &env) || get_str(o, "password_file", w, &file))
  {
    free(env);
    free(file);
    return 1;
  }
  int rc = 0;
  if (env && file)
    rc = bad(w, "give either \"password_env\" or \"password_file\", not both");
  else if (env)
  {
    const char *v = getenv(env);
    if (v == NULL)
      rc = bad(w, "\"password_env\": the environment variable %s is not set", env);
    else
      ep->password = strdup(v);
  }
  else if (file)
  {
    const char *err = NULL;
    ep->password = read_password_file(file, &err);
    if (ep->password == NULL)
      rc = bad(w, "\"password_file\": cannot read %s: %s", file, err);
  }
  free(env);
  free(file);
  return rc;
}

static int parse_endpoint(json_t *o, unsigned i, sb_endpoint_t *ep)
{
  char w[128];
  snprintf(w, sizeof(w), "endpoints[%u]", i);
  if (!json_is_object(o))
    return bad(w, "must be an object");
  json_t *name = json_object_get(o, "name");
  if (json_is_string(name))
    snprintf(w, sizeof(w), "endpoints[%u] (\"%s\")", i, json_string_value(name));
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v)
  {
    char qn[256], qk[256];
    err_line = line_of(json_is_string(name) ? quoted(qn, sizeof(qn), json_string_value(name))
                       : NULL, 1, quoted(qk, sizeof(qk), key));
    if (strcmp(key, "password") == 0 || strcmp(key, "passwd") == 0)
      return bad(w, "\"%s\": a password may not be written in the endpoints file; "
                 "name an environment variable with \"password_env\" or a file with "
                 "\"password_file\"", key);
    bool known = false;
    for (unsigned k = 0; ep_keys[k]; k++)
      known |= strcmp(key, ep_keys[k]) == 0;
    if (!known)
      return bad(w, "unknown key \"%s\" (known: name, driver, host, port, socket, user, "
                 "password_env, password_file, database, role, tls, standby_name)", key);
  }
  err_line = 0;
  if (!json_is_string(name) || *json_string_value(name) == '\0')
    return bad(w, "\"name\" (a non-empty string) is required");
  if (get_str(o, "name", w, &ep->name) || get_str(o, "driver", w, &ep->driver) ||
      get_str(o, "host", w, &ep->host) || get_str(o, "socket", w, &ep->socket) ||
      get_str(o, "user", w, &ep->user) || get_str(o, "database", w, &ep->database) ||
      get_str(o, "role", w, &ep->role) || get_str(o, "standby_name", w, &ep->standby_name))
    return 1;
  if (ep->driver == NULL || (strcmp(ep->driver, "mysql") && strcmp(ep->driver, "pgsql")))
    return bad(w, "\"driver\" must be \"mysql\" or \"pgsql\"");
  if (ep->standby_name && (strcmp(ep->driver, "pgsql") || !*ep->standby_name))
    return bad(w, "\"standby_name\" (the standby's application_name) must be a non-empty "
               "string, and is for \"driver\": \"pgsql\" only");
  if (ep->role == NULL)
    ep->role = strdup("primary");
  if (*ep->role == '\0')
    return bad(w, "\"role\" must not be empty");
  ep->lag_us = ep->lag_max_us = -1;
  ep->behind = ep->behind_max = -1;
  json_t *port = json_object_get(o, "port");
  if (port != NULL)
  {
    if (!json_is_integer(port) || json_integer_value(port) < 1 || json_integer_value(port) > 65535)
      return bad(w, "\"port\" must be an integer from 1 to 65535");
    ep->port = (unsigned) json_integer_value(port);
  }
  json_t *tls = json_object_get(o, "tls");
  if (tls != NULL && parse_tls(tls, w, ep) != 0)
    return 1;
  return parse_password(o, w, ep);
}

/* The endpoints a target names: the endpoint of that name, else every
   endpoint of that role. Returns the count (0: none). */
static unsigned members_of(const char *target, unsigned *out)
{
  for (unsigned i = 0; i < neps; i++)
    if (strcmp(eps[i].name, target) == 0)
    {
      out[0] = i;
      return 1;
    }
  unsigned n = 0;
  for (unsigned i = 0; i < neps; i++)
    if (strcmp(eps[i].role, target) == 0)
      out[n++] = i;
  return n;
}

static const struct {
  const char *name;
  sb_ep_choice_t choice;
} choices[] = {
  { "first", SB_EP_FIRST }, { "round_robin", SB_EP_ROUND_ROBIN },
  { "random", SB_EP_RANDOM }, { "sticky", SB_EP_STICKY }, { "least_lag", SB_EP_LEAST_LAG },
};

/* Adds route `key` to target (a string, or {"to": ..., "choose": ...}). */
static int add_route(const char *key, json_t *v, const char *where)
{
  const char *target = NULL, *choose = "round_robin";
  if (json_is_string(v))
    target = json_string_value(v);
  else if (json_is_object(v))
  {
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x)
    {
      if (strcmp(k, "to") && strcmp(k, "choose"))
        return bad(where, "unknown key \"%s\" (known: to, choose)", k);
      if (!json_is_string(x))
        return bad(where, "\"%s\" must be a string", k);
    }
    target = json_string_value(json_object_get(v, "to"));
    if (json_object_get(v, "choose"))
      choose = json_string_value(json_object_get(v, "choose"));
  }
  if (target == NULL)
    return bad(where, "must be an endpoint's name or a role, or {\"to\": NAME_OR_ROLE, "
               "\"choose\": \"first|round_robin|random|sticky|least_lag\"}");
  route_t r = { .key = strdup(key), .members = calloc(neps, sizeof(unsigned)) };
  bool ok = false;
  for (unsigned i = 0; i < sizeof(choices) / sizeof(choices[0]); i++)
    if (strcmp(choose, choices[i].name) == 0)
    {
      r.choice = choices[i].choice;
      ok = true;
    }
  int rc = 0;
  if (!ok)
    rc = bad(where, "\"choose\": unknown choice \"%s\" (first, round_robin, random, sticky, "
                "least_lag)", choose);
  else if ((r.nmembers = members_of(target, r.members)) == 0)
  {
    char qt[256];
    err_line = line_of("\"routing\"", 1, quoted(qt, sizeof(qt), target));
    rc = bad(where, "\"%s\" names no endpoint and no role of the file", target);
  }
  for (unsigned i = 0; rc == 0 && i < nroutes; i++)
    if (strcmp(routes[i].key, key) == 0)
      rc = bad(where, "the route \"%s\" is given twice", key);
  if (rc != 0)
  {
    free(r.key);
    free(r.members);
    return rc;
  }
  routes[nroutes++] = r;
  return 0;
}

static route_t *find_route(const char *key)
{
  for (unsigned i = 0; i < nroutes; i++)
    if (strcmp(routes[i].key, key) == 0)
      return &routes[i];
  return NULL;
}

static int parse_routing(json_t *routing)
{
  json_t *types = json_object_get(routing, "types");
  size_t cap = json_object_size(routing) + (json_is_object(types) ? json_object_size(types) : 0) + 3;
  routes = calloc(cap, sizeof(*routes));
  const char *key;
  json_t *v;
  json_object_foreach(routing, key, v)
  {
    char w[160];
    snprintf(w, sizeof(w), "routing.%s", key);
    if (strcmp(key, "types") == 0)
    {
      if (!json_is_object(v))
        return bad(w, "must be an object of event type names");
      const char *t;
      json_t *tv;
      json_object_foreach(v, t, tv)
      {
        snprintf(w, sizeof(w), "routing.types.%s", t);
        if (!strcmp(t, "default") || !strcmp(t, "read") || !strcmp(t, "write"))
          return bad(w, "\"%s\" is a route of its own: give it outside \"types\"", t);
        if (add_route(t, tv, w) != 0)
          return 1;
      }
    }
    else if (strcmp(key, "default") && strcmp(key, "read") && strcmp(key, "write"))
      return bad(w, "unknown route (known: default, read, write, types)");
    else if (add_route(key, v, w) != 0)
      return 1;
  }
  return 0;
}

/* default: role primary (else the first endpoint); read: role replica
   (else default); write: default. */
static void add_default_routes(void)
{
  json_t *s;
  if (find_route("default") == NULL)
  {
    bool has_primary = false;
    for (unsigned i = 0; i < neps; i++)
      has_primary |= strcmp(eps[i].role, "primary") == 0;
    s = json_string(has_primary ? "primary" : eps[0].name);
    json_t *o = json_pack("{s:o,s:s}", "to", s, "choose", "first");
    add_route("default", o, "routing.default");
    json_decref(o);
  }
  route_t *d = find_route("default");
  const char *fallback[2] = { "read", "write" };
  for (unsigned k = 0; k < 2; k++)
  {
    if (find_route(fallback[k]) != NULL)
      continue;
    unsigned m[neps];
    if (k == 0 && members_of("replica", m) > 0)
    {
      json_t *o = json_pack("{s:s,s:s}", "to", "replica", "choose", "round_robin");
      add_route("read", o, "routing.read");
      json_decref(o);
      continue;
    }
    route_t r = *d;
    r.key = strdup(fallback[k]);
    r.members = malloc(d->nmembers * sizeof(unsigned));
    memcpy(r.members, d->members, d->nmembers * sizeof(unsigned));
    r.cursor = 0;
    routes[nroutes++] = r;
  }
}

static int load_json(json_t *root)
{
  if (!json_is_object(root))
    return bad("(top)", "must be an object with \"endpoints\" and \"routing\"");
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v)
  {
    if (strcmp(key, "endpoints") && strcmp(key, "routing"))
      return bad(key, "unknown key (known: endpoints, routing)");
  }
  json_t *list = json_object_get(root, "endpoints");
  if (!json_is_array(list) || json_array_size(list) == 0)
    return bad("endpoints", "a non-empty array of endpoints is required");
  neps = (unsigned) json_array_size(list);
  eps = calloc(neps, sizeof(*eps));
  for (unsigned i = 0; i < neps; i++)
  {
    if (parse_endpoint(json_array_get(list, i), i, &eps[i]) != 0)
      return 1;
    for (unsigned j = 0; j < i; j++)
    {
      char w[64];
      snprintf(w, sizeof(w), "endpoints[%u]", i);
      char qn[256];
      err_line = line_of(quoted(qn, sizeof(qn), eps[i].name), 2, qn);
      if (strcmp(eps[i].name, eps[j].name) == 0)
        return bad(w, "duplicate name \"%s\" (also endpoints[%u])", eps[i].name, j);
      err_line = 0;
      if (strcmp(eps[i].driver, eps[j].driver) != 0)
        return bad(w, "driver \"%s\" differs from endpoints[%u]'s \"%s\": one driver per run",
                   eps[i].driver, j, eps[j].driver);
    }
  }
  json_t *routing = json_object_get(root, "routing");
  if (routing != NULL && !json_is_object(routing))
    return bad("routing", "must be an object");
  json_t *none = routing ? NULL : json_object();
  int rc = parse_routing(routing ? routing : none);
  json_decref(none);
  if (rc != 0)
    return 1;
  add_default_routes();
  return 0;
}

int sb_endpoints_load(const char *path)
{
  json_error_t jerr;
  file_path = path;
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL)
  {
    log_text(LOG_FATAL, "--endpoints %s: line %d, column %d: %s", path, jerr.line,
             jerr.column, jerr.text);
    return 1;
  }
  FILE *f = fopen(path, "r");
  if (f != NULL)
  {
    size_t cap = 1 << 16, n = 0;
    file_text = malloc(cap + 1);
    if (file_text != NULL)
    {
      n = fread(file_text, 1, cap, f);
      file_text[n] = '\0';
    }
    fclose(f);
  }
  int rc = load_json(root);
  json_decref(root);
  free(file_text);
  file_text = NULL;
  err_line = 0;
  if (rc != 0)
    sb_endpoints_free();
  return rc;
}

void sb_endpoints_free(void)
{
  for (unsigned i = 0; i < neps; i++)
  {
    sb_endpoint_t *e = &eps[i];
    free(e->name), free(e->driver), free(e->host), free(e->socket), free(e->user);
    if (e->password)
      memset(e->password, 0, strlen(e->password));
    free(e->password), free(e->database), free(e->role);
    free(e->tls_mode), free(e->tls_ca), free(e->tls_cert), free(e->tls_key);
    free(e->standby_name);
    sb_hdr_free(e->lat_retired), sb_hdr_free(e->lat_window);
  }
  for (unsigned i = 0; i < nroutes; i++)
  {
    free(routes[i].key);
    free(routes[i].members);
  }
  free(eps);
  free(routes);
  eps = NULL;
  routes = NULL;
  neps = nroutes = 0;
}

unsigned sb_endpoints_count(void)
{
  return neps;
}

sb_endpoint_t *sb_endpoint_get(unsigned i)
{
  return i < neps ? &eps[i] : NULL;
}

const char *sb_endpoints_name(unsigned i)
{
  return i < neps ? eps[i].name : NULL;
}

const char *sb_endpoints_role(unsigned i)
{
  return i < neps ? eps[i].role : NULL;
}

bool sb_endpoints_replica(unsigned i)
{
  return i < neps && sb_endpoint_is_replica(&eps[i]);
}

double sb_endpoints_replica_lag(unsigned i)
{
  return i < neps && sb_endpoint_is_replica(&eps[i]) ? sb_endpoint_lag(&eps[i]) : -1;
}

const char *sb_endpoints_driver(void)
{
  return neps ? eps[0].driver : NULL;
}

/* least_lag: the member with the smallest fresh lag sample, looking from
   a rotating start so that equal ones take turns; round robin when no
   member has one. */
static unsigned least_lag(route_t *r)
{
  unsigned start = __atomic_fetch_add(&r->cursor, 1, __ATOMIC_RELAXED);
  unsigned best = r->nmembers;
  double best_lag = 0;
  for (unsigned k = 0; k < r->nmembers; k++)
  {
    unsigned m = (start + k) % r->nmembers;
    double lag = sb_endpoint_lag(&eps[r->members[m]]);
    if (lag >= 0 && (best == r->nmembers || lag < best_lag))
    {
      best = m;
      best_lag = lag;
    }
  }
  return r->members[best < r->nmembers ? best : start % r->nmembers];
}

static unsigned choose(route_t *r, int who)
{
  if (r->nmembers == 1)
    return r->members[0];
  switch (r->choice)
  {
  case SB_EP_ROUND_ROBIN:
    return r->members[__atomic_fetch_add(&r->cursor, 1, __ATOMIC_RELAXED) % r->nmembers];
  case SB_EP_RANDOM:
  {
    static uint64_t seq;
    uint64_t x = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED) ^ (uint64_t) time(NULL);
    return r->members[sb_rand_mix64(x) % r->nmembers];
  }
  case SB_EP_STICKY:
    return r->members[(unsigned) (who < 0 ? 0 : who) % r->nmembers];
  case SB_EP_LEAST_LAG:
    return least_lag(r);
  case SB_EP_FIRST:
  default:
    return r->members[0];
  }
}

sb_endpoint_t *sb_endpoints_pick(const char *what, int who, bool *known)
{
  *known = false;
  if (neps == 0)
    return NULL;
  if (what == NULL || *what == '\0')
    what = "default";
  route_t *r = find_route(what);
  if (r != NULL)
  {
    *known = true;
    return &eps[choose(r, who)];
  }
  /* an endpoint's name or a role: its first endpoint, or sticky per VU */
  unsigned m[neps];
  unsigned n = members_of(what, m);
  if (n == 0)
    return NULL;
  *known = true;
  route_t tmp = { .members = m, .nmembers = n, .choice = SB_EP_STICKY };
  return &eps[choose(&tmp, who)];
}

static sb_ep_failure_t failure_policy = SB_EP_FAIL_RECONNECT;

int sb_endpoints_set_failure(const char *name)
{
  if (name != NULL && strcmp(name, "reconnect") == 0)
    failure_policy = SB_EP_FAIL_RECONNECT;
  else if (name != NULL && strcmp(name, "next") == 0)
    failure_policy = SB_EP_FAIL_NEXT;
  else
    return -1;
  return 0;
}

sb_ep_failure_t sb_endpoints_failure(void)
{
  return failure_policy;
}

sb_endpoint_t *sb_endpoints_default_first(void)
{
  route_t *d = neps > 0 ? find_route("default") : NULL;
  return d != NULL && d->nmembers > 0 ? &eps[d->members[0]] : NULL;
}

sb_endpoint_t *sb_endpoints_failover(const sb_endpoint_t *from, unsigned k)
{
  if (from == NULL || neps == 0)
    return NULL;
  unsigned self = (unsigned) (from - eps);
  for (unsigned i = 1; i < neps; i++)
  {
    sb_endpoint_t *e = &eps[(self + i) % neps];
    if (strcmp(e->role, from->role) == 0 && k-- == 0)
      return e;
  }
  sb_endpoint_t *p = sb_endpoints_default_first();
  if (p == NULL || p == from || strcmp(p->role, from->role) == 0)
    return NULL;
  return k == 0 ? p : NULL;
}

bool sb_endpoints_has_route(const char *key)
{
  return key != NULL && neps > 0 && find_route(key) != NULL;
}

static pthread_mutex_t lat_mutex = PTHREAD_MUTEX_INITIALIZER;

void sb_endpoint_latency_retire(sb_endpoint_t *ep, const sb_hdr_t *h)
{
  if (ep == NULL || h == NULL || h->total == 0)
    return;
  pthread_mutex_lock(&lat_mutex);
  if (ep->lat_retired == NULL)
    ep->lat_retired = sb_hdr_new();
  if (ep->lat_retired != NULL)
    sb_hdr_add(ep->lat_retired, h);
  pthread_mutex_unlock(&lat_mutex);
}

void sb_endpoint_latency_add_window(sb_endpoint_t *ep, const sb_hdr_t *h)
{
  if (ep != NULL && ep->lat_window != NULL && h != NULL)
    sb_hdr_add(ep->lat_window, h);
}

uint64_t sb_endpoint_latency_count(const sb_endpoint_t *ep)
{
  return ep->lat_window ? ep->lat_window->total : 0;
}

uint64_t sb_endpoint_latency_pct(const sb_endpoint_t *ep, double pct)
{
  return sb_endpoint_latency_count(ep) ? sb_hdr_percentile(ep->lat_window, pct) : 0;
}

void sb_endpoints_window_begin(void)
{
  pthread_mutex_lock(&lat_mutex);
  for (unsigned i = 0; i < neps; i++)
    if (eps[i].lat_retired != NULL)
      sb_hdr_reset(eps[i].lat_retired);
  pthread_mutex_unlock(&lat_mutex);
  for (unsigned i = 0; i < neps; i++)
  {
    for (unsigned c = 0; c < SB_EPC_MAX; c++)
      eps[i].start[c] = sb_endpoint_counter(&eps[i], c);
    eps[i].has_window = false;
    __atomic_store_n(&eps[i].lag_max_us, -1, __ATOMIC_RELAXED);
    __atomic_store_n(&eps[i].behind_max, -1, __ATOMIC_RELAXED);
  }
}

void sb_endpoints_window_end(void)
{
  pthread_mutex_lock(&lat_mutex);
  for (unsigned i = 0; i < neps; i++)
  {
    if (eps[i].lat_window == NULL)
      eps[i].lat_window = sb_hdr_new();
    else
      sb_hdr_reset(eps[i].lat_window);
    if (eps[i].lat_window != NULL && eps[i].lat_retired != NULL)
      sb_hdr_add(eps[i].lat_window, eps[i].lat_retired);
  }
  pthread_mutex_unlock(&lat_mutex);
  for (unsigned i = 0; i < neps; i++)
  {
    for (unsigned c = 0; c < SB_EPC_MAX; c++)
      eps[i].window[c] = sb_endpoint_counter(&eps[i], c) - eps[i].start[c];
    eps[i].has_window = true;
  }
}

bool sb_endpoints_have_replicas(void)
{
  for (unsigned i = 0; i < neps; i++)
    if (sb_endpoint_is_replica(&eps[i]))
      return true;
  return false;
}

const char *sb_endpoints_behind_unit(void)
{
  const char *d = sb_endpoints_driver();
  return d && strcmp(d, "pgsql") == 0 ? "bytes" : "trx";
}
