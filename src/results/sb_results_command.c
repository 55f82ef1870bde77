/* The results document of a command; see sb_results_command.h. */
#include <jansson.h>

#include "results/sb_results.h"
#include "results/sb_results_command.h"
#include "results/sb_results_manifest.h"

json_t *sb_results_command_doc(const char *section, json_t *body, double start_epoch_s,
                               double time_s, unsigned threads, const char *interrupted,
                               int exit_code)
{
  sb_results_start(start_epoch_s);
  json_t *doc = json_object();
  if (doc == NULL)
  {
    json_decref(body);
    return NULL;
  }
  json_object_set_new(doc, "format", json_string("bmk-results"));
  json_object_set_new(doc, "format_version", json_integer(SB_RESULTS_FORMAT_VERSION));
  json_object_set_new(doc, "manifest", sb_results_manifest_json());
  json_object_set_new(doc, "intervals", json_array());
  json_t *s = json_object();
  json_object_set_new(s, "completed", json_boolean(interrupted == NULL));
  json_object_set_new(s, "interrupted_reason",
                      interrupted ? json_string(interrupted) : json_null());
  json_object_set_new(s, "exit_code", json_integer(exit_code));
  json_object_set_new(s, "time_s", json_real(time_s));
  json_object_set_new(s, "threads", json_integer(threads));
  json_t *figs = sb_results_figures_json(time_s);
  if (figs)
    json_object_set_new(s, "figures", figs);
  json_object_set_new(doc, "summary", s);
  if (section && body)
    json_object_set_new(doc, section, body);
  else
    json_decref(body);
  return doc;
}
