/* The figures of merged runs; see sb_merge_figures.h. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "results/sb_merge_figures.h"

/* manifest.options.<name> as a string, or "". */
static const char *option(const json_t *doc, const char *name)
{
  const char *v = sb_json_str(doc, "manifest", "options", name, NULL);
  return v ? v : "";
}

static bool is_loopback(const char *host)
{
  return host[0] == '\0' || strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
         strcmp(host, "::1") == 0 || host[0] == '/';
}

const char *sb_merge_database(const json_t *doc, char *buf, size_t len)
{
  /* the driver the server block names, else the option (the block is
     null with --db-server-stats=off), else the default one */
  const char *driver = sb_json_str(doc, "manifest", "server", "driver", NULL);
  if (driver == NULL)
    driver = sb_json_str(doc, "manifest", "options", "db-driver", NULL);
  if (driver == NULL || *driver == '\0')
    driver = "mysql";
  buf[0] = '\0';
  if (strcmp(driver, "mysql") != 0 && strcmp(driver, "pgsql") != 0)
    return buf;
  char key[32];
  snprintf(key, sizeof(key), "%s-host", driver);
  const char *host = option(doc, key);
  const char *sock = strcmp(driver, "mysql") == 0 ? option(doc, "mysql-socket") : "";
  snprintf(key, sizeof(key), "%s-port", driver);
  const char *port = option(doc, key);
  snprintf(key, sizeof(key), "%s-db", driver);
  const char *db = option(doc, key);
  const char *where = sock[0] ? sock : host;
  const char *load_host = sb_json_str(doc, "manifest", "host", NULL);
  snprintf(buf, len, "%s%s%s %s %s %s", is_loopback(where) ? (load_host ? load_host : "?") : "",
           is_loopback(where) ? ":" : "", driver, where, port, db);
  return buf;
}

/* How the runs' server figures combine: 'm' (mean: one database), 's'
   (sum: a database each), or 0 (a mix, or a run without a database). */
static char server_merge(const sb_results_file_t *d, unsigned n)
{
  char a[512], b[512];
  bool same = true, distinct = true;
  for (unsigned i = 0; i < n; i++)
  {
    if (sb_merge_database(d[i].doc, a, sizeof(a))[0] == '\0')
      return 0;
    for (unsigned j = 0; j < i; j++)
    {
      bool eq = strcmp(a, sb_merge_database(d[j].doc, b, sizeof(b))) == 0;
      same &= eq;
      distinct &= !eq;
    }
  }
  return same ? 'm' : distinct ? 's' : 0;
}

/* Appends "name (why)" to the list of left-out figures. */
static void left_out(char *list, size_t len, const char *name, const char *why)
{
  size_t used = strlen(list);
  if (used < len)
    snprintf(list + used, len - used, "%s%s (%s)", used ? ", " : "", name, why);
}

/* Merges figure `name` (the first run's `f0`) into `out`, or says in
   `skipped` why not. */
static void merge_one(const sb_results_file_t *d, unsigned n, double window_s, const char *name,
                      const json_t *f0, char how_server, json_t *out, char *skipped, size_t len)
{
  bool per_minute = json_is_true(json_object_get(f0, "per_minute"));
  const char *scope0 = sb_json_str(f0, "scope", NULL);
  bool server = scope0 && strcmp(scope0, "server") == 0;
  double sum_value = 0, sum_count = 0;
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *f = sb_json_at(d[i].doc, "summary", "figures", name, NULL);
    if (f == NULL)
    {
      left_out(skipped, len, name, "not in every run");
      return;
    }
    const char *scope = sb_json_str(f, "scope", NULL);
    bool srv = scope && strcmp(scope, "server") == 0;
    if (json_is_true(json_object_get(f, "per_minute")) != per_minute || srv != server)
    {
      left_out(skipped, len, name, "published differently by the runs");
      return;
    }
    double v = sb_json_num(f, "value", NULL), c = sb_json_num(f, "count", NULL);
    if (isnan(v) || (per_minute && isnan(c)))
    {
      left_out(skipped, len, name, "a run has no value");
      return;
    }
    sum_value += v;
    sum_count += per_minute ? c : 0;
  }
  if (server && how_server == 0)
  {
    left_out(skipped, len, name, "the database's own figure, from runs on more than one "
             "database but not one each");
    return;
  }
  bool mean = server && how_server == 'm';
  json_t *x = json_deep_copy(f0);
  if (per_minute)
  {
    /* a mean keeps the runs' own values (each over its own window); a
       sum is the counts over the merged window, as the summary's rates */
    double count = mean ? sum_count / n : sum_count;
    double value = mean ? sum_value / n : window_s > 0 ? count / (window_s / 60.0) : 0;
    json_object_set_new(x, "count", json_real(count));
    json_object_set_new(x, "value", json_real(value));
  }
  else
    json_object_set_new(x, "value", json_real(mean ? sum_value / n : sum_value));
  json_object_set_new(x, "merge", json_string(mean ? "mean" : "sum"));
  json_object_set_new(x, "runs", json_integer(n));
  json_object_set_new(out, name, x);
}

json_t *sb_merge_figures(const sb_results_file_t *d, unsigned n, double window_s, char *note,
                         size_t notelen)
{
  const json_t *figs = n ? sb_json_at(d[0].doc, "summary", "figures", NULL) : NULL;
  if (!json_is_object(figs))
    return NULL;
  char how_server = server_merge(d, n);
  char skipped[512] = "";
  json_t *out = json_object();
  const char *name;
  json_t *f0;
  json_object_foreach((json_t *) figs, name, f0)
    merge_one(d, n, window_s, name, f0, how_server, out, skipped, sizeof(skipped));
  if (skipped[0] && note && notelen)
  {
    size_t used = strlen(note);
    snprintf(note + used, notelen - used, "%sfigures not merged: %s", used ? "\nNOTE: " : "",
             skipped);
  }
  if (json_object_size(out) == 0)
  {
    json_decref(out);
    return NULL;
  }
  return out;
}
