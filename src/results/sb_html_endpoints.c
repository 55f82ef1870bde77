/* The Endpoints tables of a report page (--endpoints runs); see
   results/sb_html_priv.h. */
#include <stdio.h>

#include <jansson.h>

#include "results/sb_html_priv.h"
#include "results/sb_results_file.h"

/* e's string field `key`, or "?" */
static const char *str(const json_t *e, const char *key)
{
  const char *v = json_string_value(json_object_get(e, key));
  return v ? v : "?";
}

/* A count, or "-" for a missing one. */
static void cell_count(FILE *out, const json_t *v)
{
  if (json_is_integer(v))
    fprintf(out, "<td>%lld</td>", (long long) json_integer_value(v));
  else
    fputs("<td>-</td>", out);
}

/* A number with `decimals`, or "-" for null / missing. */
static void cell_num(FILE *out, const json_t *v, int decimals)
{
  if (json_is_number(v))
    fprintf(out, "<td>%.*f</td>", decimals, json_number_value(v));
  else
    fputs("<td>-</td>", out);
}

/* The server's count of `what` ("statements", "transactions") and bmk's
   (routed + own) beside it, "server (bmk)", or "-" without server figures
   (--db-server-stats off, or none for that counter). */
static void cell_server(FILE *out, const json_t *srv, const char *what)
{
  char routed[32], own[32];
  snprintf(routed, sizeof(routed), "bmk_%s", what);
  snprintf(own, sizeof(own), "bmk_own_%s", what);
  const json_t *v = json_object_get(srv, what);
  if (!json_is_integer(v))
  {
    fputs("<td>-</td>", out);
    return;
  }
  fprintf(out, "<td>%lld (%lld)</td>", (long long) json_integer_value(v),
          (long long) (json_integer_value(json_object_get(srv, routed)) +
                       json_integer_value(json_object_get(srv, own))));
}

static void table(FILE *out, const sb_results_file_t *d, const json_t *eps)
{
  fputs("<h2>Endpoints: ", out);
  sb_html_text(out, d->path);
  fputs("</h2>\n<table><tr><th>endpoint</th><th>role</th><th>reads</th><th>writes</th>"
        "<th>other</th><th>errors</th><th>reconnects</th><th>failovers</th>"
        "<th>p95 (ms)</th><th>max (ms)</th><th>lag max (s)</th><th>behind max</th>"
        "<th>server statements (bmk's)</th><th>server transactions (bmk's)</th></tr>\n",
        out);
  size_t i;
  const json_t *e;
  json_array_foreach(eps, i, e)
  {
    fputs("<tr><td>", out);
    sb_html_text(out, str(e, "name"));
    fputs("</td><td>", out);
    sb_html_text(out, str(e, "role"));
    fputs("</td>", out);
    static const char *const counts[] = { "reads", "writes", "other", "errors", "reconnects",
                                          "failovers" };
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
      cell_count(out, json_object_get(e, counts[k]));
    const json_t *lat = json_object_get(e, "latency_ms");
    cell_num(out, json_object_get(lat, "p95"), 3);
    cell_num(out, json_object_get(lat, "max"), 3);
    cell_num(out, json_object_get(e, "lag_max_s"), 3);
    const json_t *b = json_object_get(e, "behind_max");
    if (json_is_integer(b))
      fprintf(out, "<td>%lld %s</td>", (long long) json_integer_value(b),
              str(e, "behind_unit"));
    else
      fputs("<td>-</td>", out);
    const json_t *srv = json_object_get(e, "server");
    cell_server(out, srv, "statements");
    cell_server(out, srv, "transactions");
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

void sb_html_endpoint_tables(FILE *out, const sb_results_file_t *docs, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
  {
    const json_t *eps = json_object_get(docs[i].doc, "endpoints");
    if (json_is_array(eps) && json_array_size(eps) > 0)
      table(out, &docs[i], eps);
  }
}
