/* The client's own CPU in --results; see sb_results_client.h. */
#include "results/sb_results_client.h"

json_t *sb_results_client_interval_json(const sb_client_t *c)
{
  if (!c->measured)
    return NULL;
  json_t *o = json_object();
  json_object_set_new(o, "cpu", json_real(c->cpu));
  json_object_set_new(o, "busiest_worker", json_real(c->busiest));
  json_object_set_new(o, "busiest_worker_on_cpu", json_real(c->busiest_cpu));
  json_object_set_new(o, "saturated", json_boolean(c->saturated));
  return o;
}

json_t *sb_results_client_json(const sb_client_t *c)
{
  json_t *o = json_object();
  if (c->measured)
  {
    json_object_set_new(o, "engine", json_string(c->event_mode ? "event" : "threads"));
    json_object_set_new(o, "workers", json_integer(c->workers));
    json_object_set_new(o, "cpus", json_integer(c->cpus));
    json_object_set_new(o, "cpu", json_real(c->cpu));
    json_object_set_new(o, "busiest_worker", json_real(c->busiest));
    json_object_set_new(o, "busiest_worker_on_cpu", json_real(c->busiest_cpu));
  }
  else
  {
    const char *keys[] = { "engine", "workers", "cpus", "cpu", "busiest_worker",
                           "busiest_worker_on_cpu" };
    for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
      json_object_set_new(o, keys[i], json_null());
  }
  json_object_set_new(o, "intervals", json_integer(c->intervals));
  json_object_set_new(o, "saturated_intervals", json_integer(c->saturated_intervals));
  json_object_set_new(o, "saturated", json_boolean(c->saturated));
  json_object_set_new(o, "loop_blocking_calls", json_integer((json_int_t) c->blocking_calls));
  return o;
}
