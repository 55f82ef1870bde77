/* The manifest of a --results document; see sb_results_manifest.h. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/sb_options.h"
#include "core/sb_rand.h"
#include "core/sb_redact.h"
#include "core/sb_version.h"
#include "results/sb_results.h"
#include "results/sb_results_manifest.h"
#include "server/sb_server_stats.h"

static json_t *cmdline;
static char test_name[256];

void sb_results_set_test(const char *name)
{
  snprintf(test_name, sizeof(test_name), "%s", name ? name : "");
}

void sb_results_set_cmdline(int argc, char **argv)
{
  json_decref(cmdline);
  cmdline = json_array();
  for (int i = 0; i < argc; i++)
  {
    /* Never write a password given on the command line. */
    const char *a = argv[i];
    const char *eq = strchr(a, '=');
    if (strstr(a, "password") && eq)
    {
      char buf[256];
      snprintf(buf, sizeof(buf), "%.*s=***", (int) (eq - a), a);
      json_array_append_new(cmdline, json_string(buf));
    }
    else
    {
      /* nor one in a URL (--results-db=postgresql://user:PASSWORD@...) */
      char buf[4096];
      json_array_append_new(cmdline, json_string(sb_redact(a, buf, sizeof(buf))));
    }
  }
}

void sb_results_iso_time(double epoch_s, char *buf, size_t len)
{
  time_t t = (time_t) epoch_s;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* {key: value} of the --tag key=value items (checked by the metrics
   module's sb_metrics_check_tags when a run starts; here any item with
   '=' is kept). */
static json_t *tags_json(void)
{
  json_t *tags = json_object();
  unsigned ntags = 0;
  char **items = sb_opt_list("tag", &ntags);
  for (unsigned i = 0; i < ntags; i++)
  {
    const char *eq = items[i] ? strchr(items[i], '=') : NULL;
    if (eq == NULL)
      continue;
    char key[128];
    snprintf(key, sizeof(key), "%.*s", (int) (eq - items[i]), items[i]);
    json_object_set_new(tags, key, json_string(eq + 1));
  }
  return tags;
}

/* {name: value} of every option (null when unset), passwords masked and
   URLs redacted. */
static json_t *options_json(void)
{
  json_t *opts = json_object();
  for (unsigned i = 0; i < sb_opt_count(); i++)
  {
    const sb_opt_t *o = sb_opt_at(i);
    if (o == NULL || o->name == NULL)
      continue;
    if (o->value == NULL)
      json_object_set_new(opts, o->name, json_null());
    else if (strstr(o->name, "password"))
      json_object_set_new(opts, o->name, json_string(*o->value ? "***" : ""));
    else
    {
      char buf[4096];
      json_object_set_new(opts, o->name, json_string(sb_redact(o->value, buf, sizeof(buf))));
    }
  }
  return opts;
}

/* {driver, version, settings} of the server the statistics probe saw, or
   null when it saw none. */
static json_t *server_json(void)
{
  const sb_srv_stats_t *sv = sb_server_stats();
  if (!sv->driver[0])
    return json_null();
  json_t *srv = json_object();
  json_object_set_new(srv, "driver", json_string(sv->driver));
  json_object_set_new(srv, "version", sv->have_info ? json_string(sv->version) : json_null());
  json_t *set = json_object();
  for (unsigned i = 0; i < sv->nsettings; i++)
    json_object_set_new(set, sv->setting_name[i], json_string(sv->setting_value[i]));
  json_object_set_new(srv, "settings", set);
  return srv;
}

json_t *sb_results_manifest_json(void)
{
  double start_epoch = sb_results_start_epoch();
  json_t *m = json_object();
  json_object_set_new(m, "bmk_version", json_string(sb_bmk_release()));
  json_object_set_new(m, "sysbench_compat_version", json_string(sb_compat_version()));
  /* the header line's text: compat version, build commit and LuaJIT */
  json_object_set_new(m, "version_string", json_string(sb_version_string()));
  json_object_set_new(m, "command_line", cmdline ? json_incref(cmdline) : json_array());
  json_object_set_new(m, "test", test_name[0] ? json_string(test_name) : json_null());
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  json_object_set_new(m, "host", json_string(host));
  char iso[64];
  sb_results_iso_time(start_epoch, iso, sizeof(iso));
  json_object_set_new(m, "start_time", json_string(iso));
  json_object_set_new(m, "start_epoch_s", json_real(start_epoch));
  /* start_epoch_s is written with 10 significant digits (whole seconds);
     merging runs on the wall clock needs the fraction. */
  json_object_set_new(m, "start_epoch_us", json_integer((json_int_t) (start_epoch * 1e6)));
  const char *series = sb_opt_str("series-id");
  json_object_set_new(m, "series_id", series && *series ? json_string(series) : json_null());
  json_object_set_new(m, "tags", tags_json());
  const sb_rand_params_t *rp = sb_rand_params();
  json_object_set_new(m, "rand_seed", json_integer((json_int_t) rp->seed));
  json_object_set_new(m, "rand_seed_from_clock", json_boolean(rp->seed_from_clock));
  json_object_set_new(m, "options", options_json());
  json_object_set_new(m, "server", server_json());
  return m;
}
