/* A `bmk tpch run` document as its report; see sb_report_file.h
   (sb_report_file_tpch). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/sb_report_file.h"
#include "results/sb_results_file.h"

/* One step's line: stream (throughput test), position, step, seconds,
   rows, status. */
static void step_line(FILE *out, const json_t *st, bool streams)
{
  const json_t *stream = json_object_get(st, "stream");
  char sbuf[16] = "", pbuf[16] = "", rbuf[32] = "-";
  if (json_is_integer(stream))
    snprintf(sbuf, sizeof(sbuf), "%lld", (long long) json_integer_value(stream));
  else if (json_is_string(stream))
    snprintf(sbuf, sizeof(sbuf), "%s", json_string_value(stream));
  double pos = sb_json_num(st, "pos", NULL), rows = sb_json_num(st, "rows", NULL);
  double set = sb_json_num(st, "update_set", NULL), secs = sb_json_num(st, "seconds", NULL);
  if (isfinite(pos))
    snprintf(pbuf, sizeof(pbuf), "%.0f", pos);
  if (isfinite(rows))
    snprintf(rbuf, sizeof(rbuf), "%.0f", rows);
  const char *name = sb_json_str(st, "name", NULL), *status = sb_json_str(st, "status", NULL);
  char nbuf[32];
  if (isfinite(set))
    snprintf(nbuf, sizeof(nbuf), "%s %.0f", name ? name : "?", set);
  else
    snprintf(nbuf, sizeof(nbuf), "%s", name ? name : "?");
  if (streams)
    fprintf(out, "  %-6s ", sbuf);
  else
    fprintf(out, "  ");
  fprintf(out, "%-4s %-8s %10.6f %10s  %s\n", pbuf, nbuf, isfinite(secs) ? secs : 0.0, rbuf,
          status ? status : "?");
}

/* The steps of one test, then its metrics (or why there are none). */
static void test_part(FILE *out, const json_t *t, const char *title, bool streams)
{
  size_t i;
  const json_t *st;
  fprintf(out, "\n%s:\n", title);
  if (streams)
    fprintf(out, "  %-6s ", "stream");
  else
    fprintf(out, "  ");
  fprintf(out, "%-4s %-8s %10s %10s  %s\n", "pos", "step", "seconds", "rows", "status");
  json_array_foreach(json_object_get(t, "steps"), i, st)
    step_line(out, st, streams);
  double failed = sb_json_num(t, "failed_steps", NULL);
  if (!json_is_true(json_object_get(t, "complete")))
    fprintf(out, "Metrics incomplete: %.0f step(s) failed (or timed out, or did not run)\n",
            isfinite(failed) ? failed : 0.0);
  if (streams)
    fprintf(out, "Ts (the longest stream): %.6f s\n", sb_json_num(t, "ts_s", NULL));
  double g = sb_json_num(t, "geomean_s", NULL), p = sb_json_num(t, "power_size", NULL);
  double tp = sb_json_num(t, "throughput_size", NULL);
  if (isfinite(g))
    fprintf(out, "Geometric mean of the 22 query and 2 refresh times: %.4f s\n", g);
  if (isfinite(p))
    fprintf(out, "Power@Size: %.1f\n", p);
  if (isfinite(tp))
    fprintf(out, "Throughput@Size: %.1f\n", tp);
}

void sb_report_file_tpch(FILE *out, const json_t *doc)
{
  const json_t *t = json_object_get(doc, "tpch");
  const json_t *power = json_object_get(t, "power"), *tput = json_object_get(t, "throughput");
  double sf = sb_json_num(t, "scale", NULL);
  if (json_is_object(power))
  {
    char title[128];
    if (json_is_true(json_object_get(power, "validation")))
      snprintf(title, sizeof(title), "Validation run, SF %g", sf);
    else
      snprintf(title, sizeof(title), "Power test, SF %g, seed %.0f, update set %.0f", sf,
               sb_json_num(power, "seed", NULL), sb_json_num(power, "update_set", NULL));
    test_part(out, power, title, false);
  }
  if (json_is_object(tput))
  {
    char title[128];
    snprintf(title, sizeof(title), "Throughput test, SF %g, %.0f query streams", sf,
             sb_json_num(tput, "streams", NULL));
    test_part(out, tput, title, true);
  }
  double q = sb_json_num(t, "qphh_size", NULL);
  if (isfinite(q))
    fprintf(out, "QphH@Size: %.1f\n", q);
  const char *why = sb_json_str(doc, "summary", "interrupted_reason", NULL);
  if (why)
    fprintf(out, "Interrupted (%s)\n", why);
  const char *disclaimer = sb_json_str(t, "disclaimer", NULL);
  if (disclaimer)
    fprintf(out, "%s\n", disclaimer);
}
