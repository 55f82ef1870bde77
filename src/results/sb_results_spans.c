/* The run's spans in the results document; see results/sb_results_spans.h. */
#include <stdlib.h>

#include "core/sb_spans.h"
#include "results/sb_results_spans.h"

void sb_results_spans_add(json_t *doc)
{
  size_t n = 0;
  sb_span_t *s = sb_spans_list(&n);
  if (s == NULL)
    return;
  json_t *arr = json_array();
  for (size_t i = 0; arr && i < n; i++)
    json_array_append_new(arr, json_pack("{s:i, s:i, s:f, s:f}", "stream", s[i].lane, "query",
                                         s[i].label, "start_s", s[i].start_s,
                                         "end_s", s[i].end_s));
  free(s);
  if (arr)
    json_object_set_new(doc, "analytic_queries", arr);
}
